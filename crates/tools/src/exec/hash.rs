//! `fs.hash`: a file's identity, as a fact the person can check independently.
//!
//! A content hash is what every later step is anchored to: a plan records the hashes it was made
//! against, and apply refuses when they no longer hold. Showing the hash of one file lets the
//! person (or a model) tie a name to exact content. It is plain blake3 of the bytes, so `b3sum`
//! gives the same answer. Folders are refused rather than given a tree hash, because the tree
//! hash is an internal fingerprint no outside tool can reproduce.

use crate::confine::{Kind, ReadFs, Reader, is_missing};
use crate::exec::{str_arg, text};
use crate::fs_world::file_hash_in;
use serde_json::json;
use smart_kernel::AdmittedCall;
use smart_kernel::kernel::ToolOutput;
use std::path::Path;

pub(crate) fn run(call: &AdmittedCall, r: Reader<'_>) -> Result<ToolOutput, String> {
    let path = Path::new(str_arg(call.args(), "path", "fs.hash")?);
    let meta = match r.meta(path) {
        Ok(m) => m,
        Err(e) if is_missing(&e) => return Err(format!("{} does not exist", path.display())),
        Err(e) => return Err(format!("cannot inspect {}: {e}", path.display())),
    };
    let kind = meta.kind;
    if kind == Kind::Dir {
        return Err(format!("{} is a folder; fs.hash takes a file (use fs.scan to list a folder)", path.display()));
    }
    if kind == Kind::Other {
        return Err(format!("{}; fs.hash takes a file", super::read::not_a_file(&r, path)));
    }
    if kind != Kind::File {
        return Err(format!("{} is not a regular file; fs.hash takes a file", path.display()));
    }
    let hash = file_hash_in(&r, path).map_err(|e| e.0)?;
    Ok(ToolOutput {
        output: json!({ "path": text(path), "blake3": hash.to_hex(), "size": meta.len }),
        ..ToolOutput::default()
    })
}
