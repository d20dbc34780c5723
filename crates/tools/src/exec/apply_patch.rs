//! `apply.patch`: writing a reviewed edit, exactly as reviewed.
//!
//! The kernel has checked the file still has the content the patch was made against (snapshot
//! freshness). Here the file is read once more, the diff applied, and the result must hash to the
//! "after" the person saw; only then is it written — atomically, through a temporary sibling and
//! a rename, so a crash never leaves half an edit. The rollback data carries the inverse diff and
//! both hashes, so undo can prove the file was not edited since and restore it byte for byte.

use crate::confine::Writer;
use crate::exec::patch_text::{self, hash_hex};
use crate::exec::propose_patch::PATCH;
use serde_json::{Value, json};
use smart_kernel::AdmittedCall;
use smart_kernel::kernel::ToolOutput;
use std::path::Path;

pub(crate) fn run(call: &AdmittedCall, w: Writer<'_>) -> Result<ToolOutput, String> {
    let plan = call.artifact().ok_or("apply.patch needs a patch, and this call carries none")?;
    if plan.kind != PATCH {
        return Err(format!("apply.patch applies a {PATCH} artifact, not a {:?} artifact", plan.kind));
    }
    let field = |k: &str| plan.body.get(k).and_then(Value::as_str).ok_or_else(|| format!("the patch has no {k}"));
    let (path, diff, before_hash, after_hash) = (field("path")?, field("diff")?, field("before")?, field("after")?);
    let current = patch_text::read_text(&*w, Path::new(path))?;
    if hash_hex(&current) != before_hash {
        return Err(format!("{path} changed since the patch was made; nothing was written"));
    }
    let after = patch_text::apply(&current, diff)?;
    if hash_hex(&after) != after_hash {
        return Err(format!("applying the patch to {path} does not give the reviewed result; nothing was written"));
    }
    w.replace(Path::new(path), after.as_bytes()).map_err(|e| format!("cannot write {path}: {e}"))?;
    let inverse = patch_text::make(&after, &current);
    Ok(ToolOutput {
        output: json!({ "path": path, "patched": true, "blake3": after_hash }),
        rollback: Some(json!({
            "inputs": { path: after_hash },
            "path": path,
            "inverse": inverse,
            "before": before_hash,
            "after": after_hash,
        })),
        ..ToolOutput::default()
    })
}
