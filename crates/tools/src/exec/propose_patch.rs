//! `propose.patch`: an edit to a text file, written down before it is made.
//!
//! The person (or a model) says what should change — either as a unified diff against the file,
//! or as "replace this exact text with that" (what a small model can write reliably: "fix the
//! typo teh → the in the README"). Either way the result is the same artifact: the file's path,
//! the unified diff, and the blake3 of the text before and after. Nothing on disk changes;
//! `apply.patch` later writes the "after" text only if the file is still the "before" text.
//!
//! A `find` that occurs more than once is refused rather than guessed at: replacing the wrong
//! occurrence is exactly the kind of quiet mistake this split exists to prevent.

use crate::confine::Reader;
use crate::exec::patch_text::{self, hash_hex};
use crate::exec::str_arg;
use serde_json::{Value, json};
use smart_kernel::kernel::ToolOutput;
use smart_kernel::{AdmittedCall, Artifact, Hash, hash_of};
use std::collections::BTreeMap;
use std::path::Path;

/// The artifact kind of a patch.
pub const PATCH: &str = "patch";

pub(crate) fn run(call: &AdmittedCall, r: Reader<'_>) -> Result<ToolOutput, String> {
    let path = str_arg(call.args(), "path", "propose.patch")?;
    let before = patch_text::read_text(&r, Path::new(path))?;
    let after = match (call.args().get("diff").and_then(Value::as_str), call.args().get("find").and_then(Value::as_str))
    {
        (Some(diff), None) => patch_text::apply(&before, diff)?,
        (None, Some(find)) => {
            let replace = str_arg(call.args(), "replace", "propose.patch")?;
            if find.is_empty() {
                return Err("find is empty; say which text to replace".into());
            }
            match before.matches(find).count() {
                0 => return Err(format!("{path} does not contain {find:?}")),
                1 => before.replacen(find, replace, 1),
                n => {
                    return Err(format!(
                        "{path} contains {find:?} {n} times; include more of the surrounding text so it is found once"
                    ));
                }
            }
        }
        _ => return Err("propose.patch takes either a diff, or find and replace".into()),
    };
    if after == before {
        return Err(format!("the change leaves {path} exactly as it is"));
    }
    let diff = patch_text::make(&before, &after);
    let (added, removed) = count_lines(&diff);
    let mut inputs = BTreeMap::new();
    inputs.insert(path.to_string(), Hash(*blake3::hash(before.as_bytes()).as_bytes()));
    let artifact = Artifact {
        kind: PATCH.into(),
        body: json!({
            "path": path,
            "diff": diff,
            "before": hash_hex(&before),
            "after": hash_hex(&after),
            "lines_added": added,
            "lines_removed": removed,
        }),
        inputs,
    };
    let hash = hash_of(&artifact).map_err(|e| format!("the patch cannot be encoded: {e}"))?;
    Ok(ToolOutput {
        output: json!({ "artifact": hash.to_hex(), "path": path, "diff": diff, "lines_added": added, "lines_removed": removed }),
        artifact: Some(artifact),
        ..ToolOutput::default()
    })
}

fn count_lines(diff: &str) -> (usize, usize) {
    let body = diff.lines().skip_while(|l| !l.starts_with("@@"));
    body.fold((0, 0), |(a, r), l| {
        if l.starts_with('+') {
            (a + 1, r)
        } else if l.starts_with('-') {
            (a, r + 1)
        } else {
            (a, r)
        }
    })
}
