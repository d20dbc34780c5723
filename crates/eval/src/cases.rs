//! The eval's cases: sentences with slots, bound to one tree, with what must come of them.
//!
//! A case in `tests/eval/{dev,test}.jsonl` is a sentence whose names are slots — `"hash
//! {F1.spoken}"` — the tool it should produce (or `null`: no call), the arguments that must
//! match, and optionally a call made just before it (`after`), for "hash that file". Binding
//! fills the slots from a generated tree ([`crate::tree`]), so the same case asks about other
//! names in every run, and renders the sentence twice: as typed, and as it would be said
//! aloud (every name in its spoken form) for the spoken eval.

use crate::tree::{Binding, Form, render, spoken_name};
use anyhow::{Context, Result, anyhow, bail};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::path::Path;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCase {
    text: String,
    tool: Option<String>,
    #[serde(default)]
    args: Value,
    #[serde(default)]
    after: Option<RawAfter>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAfter {
    tool: String,
    args: Value,
}

/// A case as written, before binding.
#[derive(Clone, Debug)]
pub struct Template {
    /// `dev:12` — the split and line.
    pub id: String,
    raw: RawCase,
}

/// A case bound to one tree.
#[derive(Clone, Debug)]
pub struct Case {
    pub id: String,
    /// As typed.
    pub text: String,
    /// As said aloud (names in their spoken form), for espeak-ng.
    pub speech: String,
    pub tool: Option<String>,
    /// What must match, with paths absolute.
    pub args: Value,
    /// A call to commit just before the case.
    pub after: Option<(String, Value)>,
    /// The folder tree's root the case was bound to.
    pub root: String,
}

/// Argument keys whose values are paths (compared after joining to the root).
const PATH_KEYS: &[&str] = &["path", "path_prefix", "paths", "ids", "from", "to"];

pub fn load(path: &Path, split: &str) -> Result<Vec<Template>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut out = vec![];
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let raw: RawCase =
            serde_json::from_str(line).with_context(|| format!("{}:{}: not a case", path.display(), i + 1))?;
        out.push(Template { id: format!("{split}:{}", i + 1), raw });
    }
    Ok(out)
}

impl Template {
    pub fn bind(&self, b: &Binding, root: &str) -> Result<Case> {
        let ctx = || format!("case {}", self.id);
        let text = fill(&self.raw.text, b, Fill::Typed).with_context(ctx)?;
        let speech = fill(&self.raw.text, b, Fill::Spoken).with_context(ctx)?;
        let args = expect(&self.raw.args, b, root, false).with_context(ctx)?;
        let after = match &self.raw.after {
            Some(a) => Some((a.tool.clone(), expect(&a.args, b, root, false).with_context(ctx)?)),
            None => None,
        };
        Ok(Case { id: self.id.clone(), text, speech, tool: self.raw.tool.clone(), args, after, root: root.to_string() })
    }
}

/// What a slot is filled for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fill {
    /// An expected argument: the path as the tree has it (`{ROOT}` is the empty path).
    Args,
    /// The sentence as typed: names as they are written.
    Typed,
    /// The sentence as said: names the way a person says them.
    Spoken,
}

/// How a sentence names the working folder. What broke: `{ROOT}` filled a sentence with the
/// empty path ("list everything in , please"), which no person says, so every such case of
/// the authors' sets was a sentence with a hole in it.
const ROOT_SAID: &str = "my home folder";

/// `text` with every `{SLOT}` / `{SLOT.form}` filled, for `how`.
fn fill(text: &str, b: &Binding, how: Fill) -> Result<String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..].find('}').ok_or_else(|| anyhow!("unclosed slot in {text:?}"))? + open;
        let slot = &rest[open + 1..close];
        out.push_str(&slot_value(slot, b, how)?);
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn slot_value(slot: &str, b: &Binding, how: Fill) -> Result<String> {
    let (name, form) = slot.split_once('.').unwrap_or((slot, ""));
    if let Some(word) = b.words.get(name) {
        if !form.is_empty() {
            bail!("{{{slot}}}: a word has no forms");
        }
        return Ok(word.clone());
    }
    let path = b
        .paths
        .get(name)
        .ok_or_else(|| anyhow!("unknown slot {{{slot}}}"))?
        .as_ref()
        .ok_or_else(|| anyhow!("the tree has nothing for {{{slot}}}"))?;
    let form = Form::parse(form).ok_or_else(|| anyhow!("unknown form in {{{slot}}}"))?;
    if path.is_empty() && how != Fill::Args {
        return Ok(ROOT_SAID.to_string());
    }
    Ok(if how != Fill::Spoken {
        render(path, form)
    } else {
        match form {
            Form::Path | Form::Lower | Form::Spoken => render(path, Form::Spoken),
            Form::Letters => render(path, Form::Letters),
            Form::Name => spoken_name(&render(path, Form::Name), false),
            Form::Parent => render(path, Form::Parent).replace(['_', '-'], " "),
            Form::Stem => render(path, Form::Stem).replace(['_', '-'], " "),
        }
    })
}

/// The expected arguments with slots filled: path keys joined to `root`, other strings as is.
fn expect(v: &Value, b: &Binding, root: &str, path_key: bool) -> Result<Value> {
    Ok(match v {
        Value::String(s) => {
            let filled = fill(s, b, Fill::Args)?;
            if path_key {
                let rel = filled.trim_matches('/');
                Value::String(if rel.is_empty() { root.to_string() } else { format!("{root}/{rel}") })
            } else {
                Value::String(filled)
            }
        }
        Value::Array(items) => Value::Array(items.iter().map(|x| expect(x, b, root, path_key)).collect::<Result<_>>()?),
        Value::Object(o) => {
            let mut m = Map::new();
            for (k, x) in o {
                m.insert(k.clone(), expect(x, b, root, PATH_KEYS.contains(&k.as_str()))?);
            }
            Value::Object(m)
        }
        other => other.clone(),
    })
}

/// Whether `got` satisfies `want`: every expected key matches; strings exactly (paths without a
/// trailing `/`); `{"$contains": w}` a string (or any JSON) holding `w`, ignoring case and
/// spaces; lists of strings as sets.
pub fn matches(want: &Value, got: &Value) -> bool {
    match (want, got) {
        (Value::Object(w), _) if w.contains_key("$contains") => {
            // Spaces do not count: said aloud, "pancake7" and "pancake 7" are the same sound,
            // and a transcript cannot know which was meant.
            let squeeze = |s: &str| s.to_lowercase().split_whitespace().collect::<String>();
            let needle = squeeze(w.get("$contains").and_then(Value::as_str).unwrap_or_default());
            let hay = match got {
                Value::String(s) => squeeze(s),
                other => squeeze(&other.to_string()),
            };
            !needle.is_empty() && hay.contains(&needle)
        }
        (Value::Object(w), Value::Object(g)) => w.iter().all(|(k, wv)| g.get(k).is_some_and(|gv| matches(wv, gv))),
        (Value::Array(w), Value::Array(g)) if w.iter().all(Value::is_string) => {
            let norm = |v: &Value| v.as_str().map(|s| s.trim_end_matches('/').to_string());
            let mut a: Vec<_> = w.iter().map(norm).collect();
            let mut b: Vec<_> = g.iter().map(norm).collect();
            a.sort();
            b.sort();
            a == b
        }
        (Value::Array(w), Value::Array(g)) => w.len() == g.len() && w.iter().zip(g).all(|(a, b)| matches(a, b)),
        (Value::String(w), Value::String(g)) => w.trim_end_matches('/') == g.trim_end_matches('/'),
        (w, g) => w == g,
    }
}

/// Every string in `v` equal to `from` becomes `to` (a slot's value bound again).
pub fn replace_strings(v: &mut Value, from: &str, to: &str) {
    match v {
        Value::String(s) if s == from => *s = to.to_string(),
        Value::Array(items) => items.iter_mut().for_each(|x| replace_strings(x, from, to)),
        Value::Object(m) => m.values_mut().for_each(|x| replace_strings(x, from, to)),
        _ => {}
    }
}

/// The expected arguments that are paths, as (pointer, value) — what path accuracy is about.
pub fn path_parts(want: &Value) -> Vec<(String, Value)> {
    fn walk(v: &Value, at: &str, inside: bool, out: &mut Vec<(String, Value)>) {
        match v {
            Value::Object(o) => {
                for (k, x) in o {
                    if PATH_KEYS.contains(&k.as_str()) {
                        out.push((format!("{at}/{k}"), x.clone()));
                    } else if !inside {
                        walk(x, &format!("{at}/{k}"), inside, out);
                    }
                }
            }
            Value::Array(items) => {
                for (i, x) in items.iter().enumerate() {
                    walk(x, &format!("{at}/{i}"), inside, out);
                }
            }
            _ => {}
        }
    }
    let mut out = vec![];
    walk(want, "", false, &mut out);
    out
}

/// Whether every path the case expects is what `got` has there.
pub fn paths_match(want: &Value, got: &Value) -> bool {
    path_parts(want).iter().all(|(ptr, w)| got.pointer(ptr).is_some_and(|g| matches(w, g)))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use serde_json::json;

    fn binding() -> Binding {
        let mut b = Binding::default();
        b.paths.insert("D1".into(), Some("Band Practice".into()));
        b.paths.insert("F1".into(), Some("shopping_list.md".into()));
        b.paths.insert("ROOT".into(), Some(String::new()));
        b.words.insert("TOPIC".into(), "kayak".into());
        b
    }

    fn case(line: &str) -> Case {
        let raw: RawCase = serde_json::from_str(line).unwrap();
        Template { id: "t:1".into(), raw }.bind(&binding(), "/r").unwrap()
    }

    #[test]
    fn slots_fill_the_text_typed_and_aloud_and_the_paths_absolute() {
        let c = case(
            r#"{"text": "move {F1} into {D1.lower}", "tool": "propose.move", "args": {"moves": [{"from": "{F1}", "to": "{D1}/{F1.name}"}]}}"#,
        );
        assert_eq!(c.text, "move shopping_list.md into band practice");
        assert_eq!(c.speech, "move shopping list dot md into band practice");
        assert_eq!(
            c.args,
            json!({"moves": [{"from": "/r/shopping_list.md", "to": "/r/Band Practice/shopping_list.md"}]})
        );
        let c = case(
            r#"{"text": "find {TOPIC}", "tool": "rag.search", "args": {"query": {"$contains": "{TOPIC}"}, "path_prefix": "{ROOT}"}}"#,
        );
        assert_eq!(c.args, json!({"query": {"$contains": "kayak"}, "path_prefix": "/r"}));
    }

    #[test]
    fn the_working_folder_in_a_sentence_is_said_not_left_blank() {
        let c = case(r#"{"text": "list everything in {ROOT}, please", "tool": "fs.scan", "args": {"path": "{ROOT}"}}"#);
        assert_eq!(c.text, "list everything in my home folder, please");
        assert_eq!(c.speech, "list everything in my home folder, please");
        assert_eq!(c.args, json!({"path": "/r"}));
    }

    #[test]
    fn an_unknown_slot_is_an_error_not_a_blank() {
        let raw: RawCase = serde_json::from_str(r#"{"text": "scan {Q9}", "tool": "fs.scan"}"#).unwrap();
        assert!(Template { id: "t:1".into(), raw }.bind(&binding(), "/r").is_err());
    }

    #[test]
    fn matching_is_exact_for_paths_loose_for_contains_and_unordered_for_lists() {
        assert!(matches(&json!({"path": "/r/a"}), &json!({"path": "/r/a/"})));
        assert!(!matches(&json!({"path": "/r/a"}), &json!({"path": "/r/A"})));
        assert!(matches(&json!({"query": {"$contains": "Kayak"}}), &json!({"query": "kayak trips"})));
        assert!(matches(&json!({"value": {"$contains": "42"}}), &json!({"value": {"locker": 42}})));
        let mut v = json!({"proposal": "aa", "moves": [{"from": "aa"}], "note": "aab"});
        replace_strings(&mut v, "aa", "bb");
        assert_eq!(v, json!({"proposal": "bb", "moves": [{"from": "bb"}], "note": "aab"}));
        // What a transcript writes for "pancake7" said aloud.
        assert!(matches(
            &json!({"value": {"$contains": "pancake7"}}),
            &json!({"value": "the WiFi password is pancake 7"})
        ));
        assert!(!matches(
            &json!({"value": {"$contains": "pancake7"}}),
            &json!({"value": "the WiFi password is pancake 8"})
        ));
        assert!(matches(&json!({"paths": ["/a", "/b"]}), &json!({"paths": ["/b", "/a"]})));
        assert!(!matches(&json!({"paths": ["/a", "/b"]}), &json!({"paths": ["/a"]})));
        assert!(paths_match(
            &json!({"moves": [{"from": "/a", "to": "/b"}]}),
            &json!({"moves": [{"from": "/a", "to": "/b"}]})
        ));
        assert!(!paths_match(
            &json!({"moves": [{"from": "/a", "to": "/b"}]}),
            &json!({"moves": [{"from": "/a", "to": "/c"}]})
        ));
        assert_eq!(path_parts(&json!({"query": {"$contains": "x"}})), vec![]);
    }
}
