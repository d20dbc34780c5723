//! Reading a model's answer back into a proposal.
//!
//! Under the grammar the answer always parses; this module still checks everything, because it
//! is also what the runtime runs on a worker's claimed output. A worker is another process and
//! may be a different build, a broken one or a hostile one: its `Call` is re-derived from its
//! raw text here and the tool name checked against the tools the runtime actually showed. The
//! kernel then validates the arguments against the full schema — a parse is not an admission.

use crate::call_syntax::PromptFormat;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use thiserror::Error;

/// What a model answered: a call to propose, or a reply and no call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ModelOutput {
    Call { tool: String, args: Value },
    NoCall { reply: String },
}

#[derive(Debug, Error, PartialEq)]
pub enum ParseError {
    #[error("the model opened a call but did not close it: {0:?}")]
    Unclosed(String),
    #[error("the call is not a JSON object with a name and arguments: {0}")]
    NotACall(String),
    #[error("the model named {tool:?}, which is not among the tools it was shown ({shown})")]
    InvisibleTool { tool: String, shown: String },
    #[error("the model produced no text at all")]
    Empty,
}

/// Parses `text` as written in `format`, accepting only tools in `visible`.
pub fn parse(format: PromptFormat, text: &str, visible: &[&str]) -> Result<ModelOutput, ParseError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(ParseError::Empty);
    }
    let body = if format.call_delimiters().0.is_empty() {
        if !trimmed.starts_with('{') {
            return Ok(ModelOutput::NoCall { reply: trimmed.to_string() });
        }
        trimmed
    } else {
        let form = format
            .call_forms()
            .iter()
            .find_map(|(open, close)| trimmed.strip_prefix(open.trim()).map(|rest| (rest, close.trim())));
        let Some((rest, close)) = form else {
            return Ok(ModelOutput::NoCall { reply: trimmed.to_string() });
        };
        match rest.find(close) {
            Some(end) => rest[..end].trim(),
            None => return Err(ParseError::Unclosed(shorten(trimmed))),
        }
    };
    let value: Value =
        serde_json::from_str(body).map_err(|e| ParseError::NotACall(format!("{e}: {}", shorten(body))))?;
    let tool = value
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| ParseError::NotACall(format!("no \"name\": {}", shorten(body))))?;
    let args = value
        .get(format.args_key())
        .or_else(|| value.get("arguments"))
        .or_else(|| value.get("args"))
        .cloned()
        .ok_or_else(|| ParseError::NotACall(format!("no arguments: {}", shorten(body))))?;
    if !args.is_object() {
        return Err(ParseError::NotACall(format!("arguments are not an object: {}", shorten(body))));
    }
    if !visible.contains(&tool) {
        return Err(ParseError::InvisibleTool { tool: tool.to_string(), shown: visible.join(", ") });
    }
    Ok(ModelOutput::Call { tool: tool.to_string(), args })
}

fn shorten(s: &str) -> String {
    let mut out: String = s.chars().take(200).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use serde_json::json;

    const SHOWN: &[&str] = &["fs.scan", "fs.quarantine"];

    #[test]
    fn each_format_reads_back_the_call_it_writes() {
        for format in [PromptFormat::FunctionGemma, PromptFormat::ChatMl, PromptFormat::Completion] {
            let args = json!({"path": "/tmp/a \"b\""});
            let text = format.write_call("fs.scan", &args);
            assert_eq!(
                parse(format, &text, SHOWN).unwrap(),
                ModelOutput::Call { tool: "fs.scan".into(), args },
                "{format:?}: {text}"
            );
        }
    }

    #[test]
    fn a_fenced_json_call_is_a_call_in_chatml() {
        let text = "```json\n{\"name\": \"fs.scan\", \"arguments\": {\"path\": \"/x\"}}\n```";
        assert_eq!(
            parse(PromptFormat::ChatMl, text, SHOWN).unwrap(),
            ModelOutput::Call { tool: "fs.scan".into(), args: json!({"path": "/x"}) }
        );
    }

    #[test]
    fn text_without_a_call_is_a_reply() {
        assert_eq!(
            parse(PromptFormat::ChatMl, " Hello there. ", SHOWN).unwrap(),
            ModelOutput::NoCall { reply: "Hello there.".into() }
        );
    }

    #[test]
    fn a_tool_that_was_not_shown_is_refused_even_if_well_formed() {
        let text = PromptFormat::ChatMl.write_call("fs.delete", &json!({"path": "/"}));
        assert!(matches!(parse(PromptFormat::ChatMl, &text, SHOWN), Err(ParseError::InvisibleTool { .. })));
    }

    #[test]
    fn broken_calls_are_errors_not_replies() {
        assert!(matches!(
            parse(PromptFormat::ChatMl, "<tool_call>\n{\"name\": \"fs.scan\"", SHOWN),
            Err(ParseError::Unclosed(_))
        ));
        assert!(matches!(
            parse(PromptFormat::ChatMl, "<tool_call>\n{nope}\n</tool_call>", SHOWN),
            Err(ParseError::NotACall(_))
        ));
        assert!(matches!(
            parse(PromptFormat::Completion, "{\"name\": \"fs.scan\", \"arguments\": 3}", SHOWN),
            Err(ParseError::NotACall(_))
        ));
        assert_eq!(parse(PromptFormat::ChatMl, "  \n", SHOWN), Err(ParseError::Empty));
    }
}
