//! GBNF grammars built from the visible tools' JSON schemas.
//!
//! A grammar-constrained model cannot write a call that does not parse, cannot name a tool that
//! is not in the grammar, and cannot leave out a required argument — so the interesting errors
//! left are the ones only the kernel can judge (wrong folder, too early, not allowed). That is
//! the division of labour this project wants: the model's freedom is in choosing among
//! well-formed proposals, never in their form.
//!
//! The grammar covers the subset of JSON schema our tools use (objects with known properties,
//! strings, fixed-length character-class patterns, enums, integers, numbers, booleans, arrays
//! with a minimum length). Anything else becomes a generic JSON value, and the kernel's full
//! schema validation still applies — the grammar narrows, it does not replace that check.
//!
//! Whitespace is fixed (`": "` and `", "`) because that is how these models write JSON anyway,
//! and a fixed form lets [`spaced_json`] write earlier calls back into the prompt exactly as the
//! grammar would have produced them.

use crate::call_syntax::{PromptFormat, spaced_json};
use crate::tools::ToolDecl;
use serde_json::Value;
use thiserror::Error;

#[derive(Debug, Error, PartialEq)]
pub enum GrammarError {
    #[error("no tools are visible, so there is nothing the model could call")]
    NoTools,
    #[error("tool {0:?} has a name that cannot be written in a grammar literal")]
    BadName(String),
}

struct Builder {
    rules: Vec<(String, String)>,
}

impl Builder {
    fn add(&mut self, name: String, body: String) -> String {
        self.rules.push((name.clone(), body));
        name
    }

    /// A rule for a value of `schema`, named under `prefix`.
    fn value(&mut self, prefix: &str, schema: &Value) -> String {
        if let Some(options) = schema.get("enum").and_then(Value::as_array) {
            let alts: Vec<String> = options.iter().map(|o| literal(&spaced_json(o))).collect();
            if !alts.is_empty() {
                return self.add(prefix.to_string(), alts.join(" | "));
            }
        }
        match schema.get("type").and_then(Value::as_str) {
            Some("object") => self.object(prefix, schema),
            Some("array") => {
                let item = match schema.get("items") {
                    Some(items) => self.value(&format!("{prefix}-item"), items),
                    None => "value".to_string(),
                };
                let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0);
                let body = if min == 0 {
                    format!("\"[\" ({item} (\", \" {item})*)? \"]\"")
                } else {
                    format!("\"[\" {item} (\", \" {item})* \"]\"")
                };
                self.add(prefix.to_string(), body)
            }
            Some("string") => match schema.get("pattern").and_then(Value::as_str).and_then(fixed_class) {
                Some((class, n)) => self.add(prefix.to_string(), format!("\"\\\"\" {class}{{{n}}} \"\\\"\"")),
                None => {
                    let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0);
                    let body = if min >= 1 { "\"\\\"\" char char* \"\\\"\"" } else { "string" };
                    self.add(prefix.to_string(), body.to_string())
                }
            },
            Some("integer") => "integer".to_string(),
            Some("number") => "number".to_string(),
            Some("boolean") => "boolean".to_string(),
            _ => "value".to_string(),
        }
    }

    fn object(&mut self, prefix: &str, schema: &Value) -> String {
        let Some(props) = schema.get("properties").and_then(Value::as_object) else {
            return "object".to_string();
        };
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        // Required properties first, in schema order, then optional ones, each optional.
        let mut parts: Vec<String> = vec![];
        let mut first = true;
        for (key, sub) in props.iter().filter(|(k, _)| required.contains(&k.as_str())) {
            let v = self.value(&format!("{prefix}-{}", rule_name(key)), sub);
            let sep = if first { "" } else { ", " };
            parts.push(format!("{} {v}", literal(&format!("{sep}{}: ", Value::String(key.clone())))));
            first = false;
        }
        for (key, sub) in props.iter().filter(|(k, _)| !required.contains(&k.as_str())) {
            let v = self.value(&format!("{prefix}-{}", rule_name(key)), sub);
            let sep = if first { "" } else { ", " };
            parts.push(format!("({} {v})?", literal(&format!("{sep}{}: ", Value::String(key.clone())))));
        }
        let body = format!("\"{{\" {} \"}}\"", parts.join(" "));
        self.add(prefix.to_string(), body)
    }
}

/// The grammar for one answer in `format`: a call to one of `tools`, or a one-line reply.
pub fn build(format: PromptFormat, tools: &[ToolDecl]) -> Result<String, GrammarError> {
    if tools.is_empty() {
        return Err(GrammarError::NoTools);
    }
    let mut b = Builder { rules: vec![] };
    let mut alts = vec![];
    for (i, tool) in tools.iter().enumerate() {
        if tool.name.chars().any(|c| c.is_control() || c == '"' || c == '\\') {
            return Err(GrammarError::BadName(tool.name.clone()));
        }
        let args = b.value(&format!("t{i}-args"), &tool.parameters);
        let head = literal(&format!("{{\"name\": \"{}\", \"{}\": ", tool.name, format.args_key()));
        alts.push(b.add(format!("t{i}-call"), format!("{head} {args} \"}}\"")));
    }
    let forms: Vec<String> = format
        .call_forms()
        .iter()
        .map(|(open, close)| {
            // GBNF has no use for empty literals; the completion format writes bare JSON.
            [literal(open), "call".to_string(), literal(close)]
                .into_iter()
                .filter(|part| part != "\"\"")
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let call = forms.join(" | ");
    let (root, reply) = match format {
        // A reply may not open like a call, a code fence or JSON, so the branches never overlap.
        PromptFormat::ChatMl | PromptFormat::FunctionGemma => (format!("{call} | reply"), "[^<{`\\n] [^\\n]*"),
        // The prompt ends with "Answer:"; the model's own first token usually carries the space.
        PromptFormat::Completion => (format!("\" \"? ({call} | reply) \"\\n\""), "[^{\\n ] [^\\n]*"),
    };
    let mut out = format!("root ::= {root}\ncall ::= {}\nreply ::= {reply}\n", alts.join(" | "));
    for (name, body) in &b.rules {
        out.push_str(&format!("{name} ::= {body}\n"));
    }
    out.push_str(COMMON);
    Ok(out)
}

const COMMON: &str = r#"char ::= [^"\\\x00-\x1f] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F])
string ::= "\"" char* "\""
integer ::= "-"? ([0-9] | [1-9] [0-9]*)
number ::= integer ("." [0-9]+)? ([eE] [-+]? [0-9]+)?
boolean ::= "true" | "false"
value ::= object | array | string | number | boolean | "null"
object ::= "{" (string ": " value (", " string ": " value)*)? "}"
array ::= "[" (value (", " value)*)? "]"
"#;

/// `^[0-9a-f]{64}$` → (`[0-9a-f]`, 64): the one pattern shape worth enforcing in the grammar
/// (a hash the model must copy). Other patterns are left to the kernel's validation.
fn fixed_class(pattern: &str) -> Option<(String, u64)> {
    let inner = pattern.strip_prefix('^')?.strip_suffix('$')?;
    let (class, count) = inner.split_once("]{")?;
    let class = class.strip_prefix('[')?;
    if class.contains(['[', ']', '\\']) {
        return None;
    }
    let n: u64 = count.strip_suffix('}')?.parse().ok()?;
    Some((format!("[{class}]"), n))
}

fn rule_name(key: &str) -> String {
    key.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect()
}

/// A GBNF string literal for `text`.
fn literal(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use serde_json::json;

    fn tools() -> Vec<ToolDecl> {
        vec![
            ToolDecl {
                name: "fs.scan".into(),
                description: "d".into(),
                parameters: json!({"type":"object","properties":{"path":{"type":"string","minLength":1}},"required":["path"]}),
            },
            ToolDecl {
                name: "apply.move".into(),
                description: "d".into(),
                parameters: json!({"type":"object","properties":{"proposal":{"type":"string","pattern":"^[0-9a-f]{64}$"}},"required":["proposal"]}),
            },
        ]
    }

    #[test]
    fn every_visible_tool_is_an_alternative_and_no_other() {
        let g = build(PromptFormat::ChatMl, &tools()).unwrap();
        assert!(
            g.starts_with("root ::= \"<tool_call>\\n\" call \"\\n</tool_call>\" | \"```json\\n\" call \"\\n```\" | reply\ncall ::= t0-call | t1-call\n"),
            "{g}"
        );
        assert!(g.contains(r#"t0-call ::= "{\"name\": \"fs.scan\", \"arguments\": " t0-args "}""#), "{g}");
        assert!(g.contains(r#"t1-args-proposal ::= "\"" [0-9a-f]{64} "\"""#), "{g}");
        assert!(!g.contains("quarantine"));
    }

    #[test]
    fn function_gemma_calls_use_args_and_its_control_tokens() {
        let g = build(PromptFormat::FunctionGemma, &tools()).unwrap();
        assert!(g.contains(r#"root ::= "<start_function_call>\n" call "\n<end_function_call>" | reply"#), "{g}");
        assert!(g.contains(r#"\"args\": "#));
    }

    #[test]
    fn no_visible_tools_is_an_error() {
        assert_eq!(build(PromptFormat::ChatMl, &[]), Err(GrammarError::NoTools));
    }

    #[test]
    fn spaced_json_matches_the_grammar_spacing() {
        assert_eq!(spaced_json(&json!({"a": [1, "x"], "b": {"c": true}})), r#"{"a": [1, "x"], "b": {"c": true}}"#);
    }

    #[test]
    fn only_fixed_length_class_patterns_are_enforced() {
        assert_eq!(fixed_class("^[0-9a-f]{64}$"), Some(("[0-9a-f]".into(), 64)));
        assert_eq!(fixed_class("^[a-z]+$"), None);
        assert_eq!(fixed_class("^[\\]]{2}$"), None);
    }
}
