//! The model's call syntax: which prompt format a model speaks, and how a call is written in it —
//! the wrapper that opens and closes it, the key its arguments sit under, and the spacing of its
//! JSON.
//!
//! Four parts of the proposer must agree on this to the byte: the prompt writes earlier calls and
//! examples in it (`crate::format`), the grammar constrains the model to it (`crate::grammar`),
//! the parser reads it back (`crate::parse`), and the worker protocol names the format a request
//! is rendered in (`crate::protocol`). It used to live in the prompt module, which made those four
//! import each other in a circle; here it is a leaf that depends on nothing else in the crate, so
//! each of them depends on it and none on the others for the syntax.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The prompt layout a model was trained on (`crate::format` renders each).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PromptFormat {
    FunctionGemma,
    ChatMl,
    Completion,
}

impl PromptFormat {
    /// Chooses the format from what the GGUF says about itself.
    pub fn detect(name: &str, chat_template: Option<&str>) -> PromptFormat {
        let template = chat_template.unwrap_or("");
        if template.contains("start_function_call")
            || template.contains("start_function_declaration")
            || name.to_ascii_lowercase().replace(['-', '_', ' '], "").contains("functiongemma")
        {
            PromptFormat::FunctionGemma
        } else if template.contains("<|im_start|>") {
            PromptFormat::ChatMl
        } else {
            PromptFormat::Completion
        }
    }

    /// The ways a call may be opened and closed in this format; the first is how this format
    /// writes one. Qwen2.5-Coder, asked for a call, often writes it as a fenced JSON block rather
    /// than in `<tool_call>` tags: accepting that form (and only with the grammar's exact shape)
    /// keeps the model on the call branch instead of pushing it into a reply that merely quotes
    /// a call.
    pub fn call_forms(self) -> &'static [(&'static str, &'static str)] {
        match self {
            PromptFormat::FunctionGemma => &[("<start_function_call>\n", "\n<end_function_call>")],
            PromptFormat::ChatMl => &[("<tool_call>\n", "\n</tool_call>"), ("```json\n", "\n```")],
            PromptFormat::Completion => &[("", "")],
        }
    }

    /// The text that opens a call in this format, and the one that closes it.
    pub fn call_delimiters(self) -> (&'static str, &'static str) {
        self.call_forms()[0]
    }

    /// Whether `text` (the answer so far) holds a finished call: generation can stop there.
    pub fn call_complete(self, text: &str) -> bool {
        let t = text.trim_start();
        self.call_forms().iter().any(|(open, close)| {
            !open.is_empty() && t.strip_prefix(open.trim()).is_some_and(|rest| rest.contains(close.trim()))
        })
    }

    /// The key the arguments object sits under inside a call.
    pub fn args_key(self) -> &'static str {
        match self {
            PromptFormat::FunctionGemma => "args",
            PromptFormat::ChatMl | PromptFormat::Completion => "arguments",
        }
    }

    /// A call written the way this format writes one (for earlier turns and for examples).
    pub fn write_call(self, tool: &str, args: &Value) -> String {
        let (open, close) = self.call_delimiters();
        format!("{open}{}{close}", call_json(self, tool, args))
    }
}

/// `{"name": "fs.scan", "arguments": {...}}` with the spacing the grammar enforces.
pub fn call_json(format: PromptFormat, tool: &str, args: &Value) -> String {
    format!("{{\"name\": {}, \"{}\": {}}}", Value::String(tool.to_string()), format.args_key(), spaced_json(args))
}

/// JSON with `": "` and `", "`, as the grammar writes it.
pub fn spaced_json(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let parts: Vec<String> =
                map.iter().map(|(k, v)| format!("{}: {}", Value::String(k.clone()), spaced_json(v))).collect();
            format!("{{{}}}", parts.join(", "))
        }
        Value::Array(items) => format!("[{}]", items.iter().map(spaced_json).collect::<Vec<_>>().join(", ")),
        other => other.to_string(),
    }
}
