//! Running admitted calls.
//!
//! The executor is the narrow door between the kernel's "yes" and the person's files. It takes
//! only an [`AdmittedCall`] — which only the kernel can make — so a call that skipped admission
//! has no way in, and it dispatches on the tool name to one module per tool so that each tool's
//! effects can be read (and reviewed) in one place. Every failure comes back as a message meant
//! for the person: which path, what was wrong, and what state the files were left in.

mod apply_move;
mod duplicates;
mod hash;
mod journal;
pub mod plan;
mod propose_move;
mod quarantine;
mod scan;
mod transfer;
mod undo;
mod walk;

pub use quarantine::MANIFEST as QUARANTINE_MANIFEST;
pub use scan::MAX_ENTRIES as SCAN_MAX_ENTRIES;

use serde_json::Value;
use smart_kernel::AdmittedCall;
use smart_kernel::kernel::ToolOutput;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Runs admitted calls. Holds where quarantined files go.
#[derive(Clone, Debug)]
pub struct Executor {
    quarantine_dir: PathBuf,
}

impl Executor {
    /// `quarantine_dir` is where `fs.quarantine` puts files; it is created when first needed.
    pub fn new(quarantine_dir: PathBuf) -> Executor {
        Executor { quarantine_dir }
    }

    pub fn quarantine_dir(&self) -> &Path {
        &self.quarantine_dir
    }

    /// Runs an admitted call and reports its output, artifact and rollback data.
    pub fn execute(&self, call: &AdmittedCall) -> Result<ToolOutput, String> {
        let started = Instant::now();
        let mut out = match call.tool() {
            "fs.scan" => scan::run(call)?,
            "fs.hash" => hash::run(call)?,
            "cluster.duplicates" => duplicates::run(call)?,
            "propose.move" => propose_move::run(call)?,
            "apply.move" => apply_move::run(call)?,
            "fs.quarantine" => quarantine::run(call, &self.quarantine_dir)?,
            "undo" => undo::run(call)?,
            other => return Err(format!("there is no executor for the tool {other:?}")),
        };
        out.duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        Ok(out)
    }
}

/// A string argument the schema guarantees; its absence means the call does not match its tool.
pub(crate) fn str_arg<'a>(args: &'a Value, key: &str, tool: &str) -> Result<&'a str, String> {
    args.get(key).and_then(Value::as_str).ok_or_else(|| format!("{tool} needs a string argument {key:?}"))
}

/// Whether anything (a file, folder or symlink, even a dangling one) is at `path`.
pub(crate) fn exists(path: &Path) -> Result<bool, String> {
    match fs::symlink_metadata(path) {
        Ok(_) => Ok(true),
        Err(e) if matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory) => Ok(false),
        Err(e) => Err(format!("cannot inspect {}: {e}", path.display())),
    }
}

/// A path as text for outputs (lossless for the UTF-8 paths the kernel hands over).
pub(crate) fn text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}
