//! Prompt formats: how the tools, the context and the conversation are laid out for a given
//! model family, and where the model's answer begins.
//!
//! A small model answers well only in the layout it was trained on, so the format is chosen
//! from the GGUF itself (its chat template and name), never configured by hand:
//!
//! - [`PromptFormat::FunctionGemma`]: the control-token protocol of seed 000 §5.3 — a
//!   `developer` turn holding one `<start_function_declaration>` block per tool, the `user`
//!   turn, a `model` turn that answers with `<start_function_call>{"name", "args"}`, and `tool`
//!   turns carrying `<start_function_response>`.
//! - [`PromptFormat::ChatMl`]: ChatML models (Qwen2.5, SmolLM2, Hermes-style), with Qwen2.5's
//!   tools section (`<tools>` declarations, `<tool_call>` answers, `<tool_response>` results).
//! - [`PromptFormat::Completion`]: a hand-built few-shot completion prompt for GGUFs without a
//!   chat template (base models), where examples do the work instructions cannot.
//!
//! How each format writes a call — its wrapper, its JSON — is the model's call syntax, a leaf
//! module of its own (`crate::call_syntax`) that this one, the grammar ([`crate::grammar`]), the
//! parser ([`crate::parse`]) and the worker protocol all read; the four are kept in step by tests
//! that render, constrain and parse the same calls.

pub use crate::call_syntax::{PromptFormat, call_json};
use crate::protocol::{ProposeRequest, Turn};
use crate::tools::ToolDecl;
use serde_json::Value;

impl PromptFormat {
    /// The whole prompt, ending exactly where the model's answer starts.
    pub fn render(self, req: &ProposeRequest) -> String {
        let (prefix, rest) = self.render_parts(req);
        prefix + &rest
    }

    /// The prompt in two parts: the static prefix (instructions and the visible tools — the same
    /// for every utterance in a scope, so its evaluated state can be cached, even on disk) and
    /// the rest (context, conversation, the opening of the answer).
    pub fn render_parts(self, req: &ProposeRequest) -> (String, String) {
        match self {
            PromptFormat::FunctionGemma => render_function_gemma(req),
            PromptFormat::ChatMl => render_chatml(req),
            PromptFormat::Completion => render_completion(req),
        }
    }

    /// A plain exchange with no tools: `system` as the instructions, `user` as the one turn,
    /// ending exactly where the model's answer starts. For requests that are not tool calls
    /// (the perception sensor), in the layout the model was trained on.
    pub fn render_chat(self, system: &str, user: &str) -> String {
        let (system, user) = (system.trim(), user.trim());
        match self {
            PromptFormat::FunctionGemma => format!(
                "<start_of_turn>developer\n{system}\n<end_of_turn>\n<start_of_turn>user\n{user}\n<end_of_turn>\n<start_of_turn>model\n"
            ),
            PromptFormat::ChatMl => {
                format!(
                    "<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n<|im_start|>assistant\n"
                )
            }
            // A base model continues text: the answer opens on its own line after a label.
            PromptFormat::Completion => format!("{system}\n\n{user}\n\nAnswer:\n"),
        }
    }
}

/// Paths are asked for as the person said them (relative to the working folder): a small model
/// copies words far more reliably than it composes absolute paths, and the runtime joins them to
/// the working folder exactly as the CLI does for a person.
const INSTRUCTIONS: &str = "You are SMART, a desktop assistant that acts only through the tools below. \
Turn the person's request into exactly one tool call, or, when no tool fits (greetings, small \
talk, questions about yourself, anything the tools cannot do), answer in one short sentence \
without a call. Write each path exactly as the person named it, relative to the working folder \
(for example Pictures/cat.jpg); write an absolute path only if the person gave one. A call is \
only a proposal: the kernel decides whether it runs.";

fn render_function_gemma(req: &ProposeRequest) -> (String, String) {
    let mut prefix = String::from("<start_of_turn>developer\n");
    prefix.push_str(INSTRUCTIONS);
    prefix.push('\n');
    for tool in &req.tools {
        prefix.push_str("<start_function_declaration>\n");
        prefix.push_str(&tool.declaration_json());
        prefix.push_str("\n<end_function_declaration>\n");
    }
    let mut out = String::new();
    out.push_str(req.context.trim());
    out.push('\n');
    out.push_str("<end_of_turn>\n");
    for turn in &req.turns {
        match turn {
            Turn::User { text } => {
                out.push_str(&format!("<start_of_turn>user\n{}\n<end_of_turn>\n", text.trim()));
            }
            Turn::Call { tool, args } => {
                let call = PromptFormat::FunctionGemma.write_call(tool, args);
                out.push_str(&format!("<start_of_turn>model\n{call}\n<end_of_turn>\n"));
            }
            Turn::Response { body, .. } => {
                out.push_str(&format!(
                    "<start_of_turn>tool\n<start_function_response>\n{}\n<end_function_response>\n<end_of_turn>\n",
                    body
                ));
            }
            Turn::Assistant { text } => {
                out.push_str(&format!("<start_of_turn>model\n{}\n<end_of_turn>\n", text.trim()));
            }
        }
    }
    out.push_str("<start_of_turn>model\n");
    (prefix, out)
}

fn render_chatml(req: &ProposeRequest) -> (String, String) {
    let mut out = String::from("<|im_start|>system\n");
    out.push_str(INSTRUCTIONS);
    out.push_str(
        "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n\
You are provided with function signatures within <tools></tools> XML tags:\n<tools>",
    );
    for tool in &req.tools {
        out.push('\n');
        out.push_str(
            &serde_json::json!({
                "type": "function",
                "function": {"name": tool.name, "description": tool.description, "parameters": tool.parameters},
            })
            .to_string(),
        );
    }
    out.push_str(
        "\n</tools>\n\nFor each function call, return a json object with function name and arguments \
within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": \
<args-json-object>}\n</tool_call>\n\n",
    );
    let prefix = out;
    let mut out = String::new();
    out.push_str(req.context.trim());
    out.push_str("<|im_end|>\n");
    for turn in &req.turns {
        match turn {
            Turn::User { text } => out.push_str(&format!("<|im_start|>user\n{}<|im_end|>\n", text.trim())),
            Turn::Call { tool, args } => {
                let call = PromptFormat::ChatMl.write_call(tool, args);
                out.push_str(&format!("<|im_start|>assistant\n{call}<|im_end|>\n"));
            }
            Turn::Response { body, .. } => {
                out.push_str(&format!("<|im_start|>user\n<tool_response>\n{body}\n</tool_response><|im_end|>\n"));
            }
            Turn::Assistant { text } => {
                out.push_str(&format!("<|im_start|>assistant\n{}<|im_end|>\n", text.trim()));
            }
        }
    }
    out.push_str("<|im_start|>assistant\n");
    (prefix, out)
}

/// Examples for base models, one per tool that is visible. Only visible tools appear: an
/// example is as much a declaration as the declaration itself.
fn examples(tools: &[ToolDecl]) -> Vec<(&'static str, &'static str, Value)> {
    let table: Vec<(&str, &str, Value)> = vec![
        ("what is in /home/ana/Pictures", "fs.scan", serde_json::json!({"path": "/home/ana/Pictures"})),
        ("hash the file /home/ana/notes.txt", "fs.hash", serde_json::json!({"path": "/home/ana/notes.txt"})),
        (
            "are there duplicate files in /home/ana/Music",
            "cluster.duplicates",
            serde_json::json!({"path": "/home/ana/Music"}),
        ),
        (
            "move /home/ana/a.txt into /home/ana/old",
            "propose.move",
            serde_json::json!({"moves": [{"from": "/home/ana/a.txt", "to": "/home/ana/old/a.txt"}]}),
        ),
        ("throw away /home/ana/tmp.log", "fs.quarantine", serde_json::json!({"paths": ["/home/ana/tmp.log"]})),
    ];
    table.into_iter().filter(|(_, tool, _)| tools.iter().any(|t| t.name == *tool)).collect()
}

fn render_completion(req: &ProposeRequest) -> (String, String) {
    let mut out = String::new();
    out.push_str(INSTRUCTIONS);
    out.push_str(
        "\nAnswer with one JSON object {\"name\": TOOL, \"arguments\": {...}}, or with a sentence.\n\nTools:\n",
    );
    for tool in &req.tools {
        out.push_str(&format!("- {}: {} Arguments: {}\n", tool.name, tool.description, tool.parameters));
    }
    out.push('\n');
    for (utterance, tool, args) in examples(&req.tools) {
        out.push_str(&format!(
            "Request: {utterance}\nAnswer: {}\n\n",
            call_json(PromptFormat::Completion, tool, &args)
        ));
    }
    out.push_str("Request: hello, who are you?\nAnswer: I am SMART; tell me what to do with your files.\n\n");
    let prefix = out;
    let mut out = String::new();
    out.push_str(req.context.trim());
    out.push_str("\n\n");
    for turn in &req.turns {
        match turn {
            Turn::User { text } => {
                out.push_str(&format!("Request: {}\n", text.trim()));
            }
            Turn::Call { tool, args } => {
                out.push_str(&format!("Answer: {}\n", call_json(PromptFormat::Completion, tool, args)));
            }
            Turn::Response { body, .. } => {
                out.push_str(&format!("Result: {body}\n"));
            }
            Turn::Assistant { text } => {
                out.push_str(&format!("Answer: {}\n\n", text.trim()));
            }
        }
    }
    out.push_str("Answer:");
    (prefix, out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use serde_json::json;

    fn req() -> ProposeRequest {
        ProposeRequest {
            tools: vec![ToolDecl {
                name: "fs.scan".into(),
                description: "List a folder.".into(),
                parameters: json!({"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}),
            }],
            context: "Allowed folders: /tmp/r".into(),
            turns: vec![
                Turn::User { text: "Clean up my docs folder".into() },
                Turn::Call { tool: "fs.scan".into(), args: json!({"path": "/docs"}) },
                Turn::Response { tool: "fs.scan".into(), body: json!({"count": 42}) },
            ],
            max_tokens: 64,
            no_cache: false,
        }
    }

    #[test]
    fn function_gemma_uses_the_seed_control_tokens_in_order() {
        let text = PromptFormat::FunctionGemma.render(&req());
        let order = [
            "<start_of_turn>developer\n",
            "<start_function_declaration>\n{\"description\":\"List a folder.\",\"name\":\"fs.scan\"",
            "<end_function_declaration>\nAllowed folders: /tmp/r\n<end_of_turn>\n",
            "<start_of_turn>user\nClean up my docs folder\n<end_of_turn>\n",
            "<start_of_turn>model\n<start_function_call>\n{\"name\": \"fs.scan\", \"args\": {\"path\": \"/docs\"}}\n<end_function_call>\n<end_of_turn>\n",
            "<start_of_turn>tool\n<start_function_response>\n{\"count\":42}\n<end_function_response>\n<end_of_turn>\n",
        ];
        let mut at = 0;
        for part in order {
            let found = text[at..].find(part).unwrap_or_else(|| panic!("missing or out of order: {part:?}\n{text}"));
            at += found + part.len();
        }
        assert!(text.ends_with("<start_of_turn>model\n"));
    }

    #[test]
    fn chatml_carries_qwens_tools_section_and_tool_responses() {
        let text = PromptFormat::ChatMl.render(&req());
        assert!(text.starts_with("<|im_start|>system\n"));
        assert!(text.contains("<tools>\n{\"function\":{\"description\":\"List a folder.\""));
        assert!(text.contains("<|im_start|>assistant\n<tool_call>\n{\"name\": \"fs.scan\", \"arguments\": {\"path\": \"/docs\"}}\n</tool_call><|im_end|>"));
        assert!(text.contains("<tool_response>\n{\"count\":42}\n</tool_response>"));
        assert!(text.ends_with("<|im_start|>assistant\n"));
    }

    #[test]
    fn completion_examples_only_name_visible_tools() {
        let text = PromptFormat::Completion.render(&req());
        assert!(text.contains("\"name\": \"fs.scan\""));
        for hidden in ["fs.quarantine", "propose.move", "fs.hash", "cluster.duplicates"] {
            assert!(!text.contains(hidden), "{hidden} leaked into the prompt:\n{text}");
        }
        assert!(text.ends_with("Answer:"));
    }

    #[test]
    fn a_call_is_complete_only_once_its_own_closing_follows_its_opening() {
        let f = PromptFormat::ChatMl;
        assert!(!f.call_complete("```json\n{\"name\": \"fs.scan\""));
        assert!(f.call_complete("```json\n{\"name\": \"fs.scan\", \"arguments\": {}}\n```"));
        assert!(f.call_complete("<tool_call>\n{}\n</tool_call>"));
        assert!(!f.call_complete("<tool_call>\n{}"));
        assert!(!PromptFormat::Completion.call_complete("{}"));
    }

    #[test]
    fn the_prefix_depends_only_on_the_tools_not_on_context_or_conversation() {
        for format in [PromptFormat::FunctionGemma, PromptFormat::ChatMl, PromptFormat::Completion] {
            let a = req();
            let mut b = req();
            b.context = "Allowed folders: /elsewhere".into();
            b.turns = vec![Turn::User { text: "something else".into() }];
            let (pa, ra) = format.render_parts(&a);
            let (pb, _) = format.render_parts(&b);
            assert_eq!(pa, pb, "{format:?}");
            assert!(
                !pa.contains("/tmp/r") && ra.contains("/tmp/r"),
                "{format:?}: the context belongs after the prefix"
            );
            let mut c = req();
            c.tools[0].description = "Other.".into();
            assert_ne!(format.render_parts(&c).0, pa, "{format:?}: the tools are in the prefix");
        }
    }

    #[test]
    fn a_plain_chat_uses_each_formats_turns_and_ends_where_the_answer_starts() {
        let chatml = PromptFormat::ChatMl.render_chat("Observe.\n", " hello ");
        assert_eq!(
            chatml,
            "<|im_start|>system\nObserve.<|im_end|>\n<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n"
        );
        let gemma = PromptFormat::FunctionGemma.render_chat("Observe.", "hello");
        assert!(gemma.starts_with("<start_of_turn>developer\nObserve.\n<end_of_turn>\n<start_of_turn>user\nhello\n"));
        assert!(gemma.ends_with("<start_of_turn>model\n"));
        assert_eq!(PromptFormat::Completion.render_chat("Observe.", "hello"), "Observe.\n\nhello\n\nAnswer:\n");
    }

    #[test]
    fn detection_follows_the_gguf() {
        assert_eq!(PromptFormat::detect("FunctionGemma 270M", None), PromptFormat::FunctionGemma);
        assert_eq!(
            PromptFormat::detect("x", Some("{{ '<start_function_declaration>' }}")),
            PromptFormat::FunctionGemma
        );
        assert_eq!(PromptFormat::detect("Qwen2.5", Some("<|im_start|>{{ tools }}")), PromptFormat::ChatMl);
        assert_eq!(PromptFormat::detect("Gemma 3 270m", None), PromptFormat::Completion);
    }
}
