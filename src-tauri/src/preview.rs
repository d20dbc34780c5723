//! What a confirmation dialog shows about a call before the person signs it.
//!
//! A hash and a JSON blob are not consent. The dialog needs the effect in the person's terms:
//! which files, how big, where they go, what is already at the destination. This module reads
//! the file system *now* (sizes, existence) for the call's resolved absolute paths; it never
//! changes anything, and a file it cannot read is shown as such rather than hidden. For
//! `apply.move` the moves are not in the arguments (only the plan's hash is), so the plan is
//! looked up in the ledger where `propose.move` recorded it — the person sees the plan they are
//! about to apply, not a re-derivation of it.

use serde::Serialize;
use serde_json::Value;
use smart_kernel::ResolvedCall;
use smart_runtime::Engine;
use std::path::Path;

/// At most this many rows per preview; the rest are counted, not listed.
pub const MAX_ROWS: usize = 200;

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Preview {
    /// Files a call removes from view (quarantine).
    Files { files: Vec<FileRow>, total_bytes: u64, more: usize },
    /// Files a call moves (a plan).
    Moves { moves: Vec<MoveRow>, total_bytes: u64, more: usize },
    /// Anything else: the arguments, pretty-printed.
    Args { text: String },
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct FileRow {
    pub path: String,
    /// `None` when it does not exist or cannot be read.
    pub bytes: Option<u64>,
    pub is_dir: bool,
    pub exists: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct MoveRow {
    pub from: String,
    pub to: String,
    pub bytes: Option<u64>,
    /// Something is already at `to`: the move would be refused or rename around it.
    pub target_exists: bool,
}

fn file_row(path: &str) -> FileRow {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => {
            FileRow { path: path.into(), bytes: dir_size(Path::new(path)), is_dir: true, exists: true }
        }
        Ok(m) => FileRow { path: path.into(), bytes: Some(m.len()), is_dir: false, exists: true },
        Err(_) => FileRow { path: path.into(), bytes: None, is_dir: false, exists: false },
    }
}

/// The size of a folder's files, to a bounded depth and count: a preview must not stall on a
/// huge tree. `None` if the bound was hit (the dialog then says "size unknown").
fn dir_size(dir: &Path) -> Option<u64> {
    let mut total = 0u64;
    let mut seen = 0usize;
    let mut stack = vec![(dir.to_path_buf(), 0usize)];
    while let Some((d, depth)) = stack.pop() {
        for entry in std::fs::read_dir(&d).ok()? {
            let entry = entry.ok()?;
            seen += 1;
            if seen > 10_000 || depth > 16 {
                return None;
            }
            let m = entry.metadata().ok()?;
            if m.is_dir() {
                stack.push((entry.path(), depth + 1));
            } else {
                total += m.len();
            }
        }
    }
    Some(total)
}

fn moves_preview(moves: &[Value]) -> Preview {
    let rows: Vec<MoveRow> = moves
        .iter()
        .map(|m| {
            let from = m["from"].as_str().unwrap_or_default().to_string();
            let to = m["to"].as_str().unwrap_or_default().to_string();
            let bytes = file_row(&from).bytes;
            let target_exists = !to.is_empty() && Path::new(&to).exists();
            MoveRow { from, to, bytes, target_exists }
        })
        .collect();
    let total_bytes = rows.iter().filter_map(|r| r.bytes).sum();
    let more = rows.len().saturating_sub(MAX_ROWS);
    Preview::Moves { moves: rows.into_iter().take(MAX_ROWS).collect(), total_bytes, more }
}

/// The preview of `call` as things stand now.
pub fn preview(call: &ResolvedCall, engine: &Engine) -> Preview {
    match call.tool.as_str() {
        // Both take files out of view (fs.compact packs them into an archive first).
        "fs.quarantine" | "fs.compact" => {
            let rows: Vec<FileRow> = call.paths.iter().map(|p| file_row(p)).collect();
            let total_bytes = rows.iter().filter_map(|r| r.bytes).sum();
            let more = rows.len().saturating_sub(MAX_ROWS);
            Preview::Files { files: rows.into_iter().take(MAX_ROWS).collect(), total_bytes, more }
        }
        "propose.move" => moves_preview(call.args["moves"].as_array().map(Vec::as_slice).unwrap_or_default()),
        "apply.move" => {
            let plan = call.artifact.as_ref().and_then(|h| engine.artifact(h).ok().flatten());
            match plan {
                Some(p) => moves_preview(p.body["moves"].as_array().map(Vec::as_slice).unwrap_or_default()),
                None => Preview::Args { text: format!("the plan {} is not in the ledger", call.args["proposal"]) },
            }
        }
        // The reviewed diff itself, as propose.patch recorded it.
        "apply.patch" => {
            let plan = call.artifact.as_ref().and_then(|h| engine.artifact(h).ok().flatten());
            match plan.as_ref().and_then(|p| Some((p.body["path"].as_str()?, p.body["diff"].as_str()?))) {
                Some((path, diff)) => Preview::Args { text: format!("{path}\n{diff}") },
                None => Preview::Args { text: format!("the patch {} is not in the ledger", call.args["proposal"]) },
            }
        }
        // What a purge deletes for good: the batch's original paths.
        "quarantine.purge" => {
            let batch = call.args["batch"].as_str().unwrap_or_default();
            let found = engine.quarantine_list().ok().and_then(|l| l.into_iter().find(|b| b.batch == batch));
            match found {
                Some(b) => Preview::Args {
                    text: format!(
                        "deletes quarantine batch {batch} for good: {} item(s), {} bytes, from\n{}",
                        b.items,
                        b.bytes,
                        b.originals.join("\n")
                    ),
                },
                None => Preview::Args { text: format!("there is no quarantine batch {batch}") },
            }
        }
        _ => Preview::Args { text: serde_json::to_string_pretty(&call.args).unwrap_or_default() },
    }
}
