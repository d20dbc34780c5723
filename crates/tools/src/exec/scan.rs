//! `fs.scan`: what is there, before anything is decided about it.
//!
//! Every task starts by looking, and a look must be cheap, bounded and safe: it follows no
//! symlinks (so it stays inside the folder it was pointed at), reads no file contents, and stops
//! at a fixed number of entries so a scan of a huge folder cannot flood the person's screen or a
//! model's context. When it stops early it says so (`truncated`); the counts then cover the
//! entries listed.

use crate::confine::{ReadFs, Reader, is_missing};
use crate::exec::walk::{Kind, walk};
use crate::exec::{str_arg, text};
use serde_json::{Value, json};
use smart_kernel::AdmittedCall;
use smart_kernel::kernel::ToolOutput;
use std::path::Path;

/// The most entries one scan lists.
pub const MAX_ENTRIES: usize = 10_000;

/// How many unreadable places are named before the rest are only counted.
const MAX_UNREADABLE: usize = 100;

pub(crate) fn run(call: &AdmittedCall, r: Reader<'_>) -> Result<ToolOutput, String> {
    let root = Path::new(str_arg(call.args(), "path", "fs.scan")?);
    let meta = match r.meta(root) {
        Ok(m) => m,
        Err(e) if is_missing(&e) => return Err(format!("{} does not exist", root.display())),
        Err(e) => return Err(format!("cannot inspect {}: {e}", root.display())),
    };
    let kind = meta.kind;
    let (entries, unreadable, truncated) = if kind == Kind::Dir {
        let w = walk(&r, root, MAX_ENTRIES);
        (w.entries, w.unreadable, w.truncated)
    } else {
        let entry =
            crate::exec::walk::Entry { path: root.to_path_buf(), kind, size: meta.len, modified_ms: meta.modified_ms };
        (vec![entry], vec![], false)
    };
    let files = entries.iter().filter(|e| e.kind == Kind::File).count();
    let dirs = entries.iter().filter(|e| e.kind == Kind::Dir).count();
    let total_bytes: u64 = entries.iter().filter(|e| e.kind == Kind::File).map(|e| e.size).sum();
    let listed: Vec<Value> = entries
        .iter()
        .map(|e| json!({"path": text(&e.path), "kind": e.kind.name(), "size": e.size, "modified_ms": e.modified_ms}))
        .collect();
    let unreadable_list: Vec<Value> =
        unreadable.iter().take(MAX_UNREADABLE).map(|(p, why)| json!({"path": text(p), "error": why})).collect();
    Ok(ToolOutput {
        output: json!({
            "root": text(root),
            "entries": listed,
            "files": files,
            "dirs": dirs,
            "total_bytes": total_bytes,
            "truncated": truncated,
            "unreadable": unreadable_list,
            "unreadable_count": unreadable.len(),
        }),
        ..ToolOutput::default()
    })
}
