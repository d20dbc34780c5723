//! `undo`: putting things back the way a mutation found them.
//!
//! The kernel admits an undo only after checking, against the rollback data the mutation
//! recorded, that every path still looks exactly as the mutation left it — so undo can never
//! overwrite something the person did afterwards. What is left here is the mechanical reverse:
//! moves run backwards in reverse order, missing parent folders are recreated, and the folders the
//! original call created (or its quarantine batch folder) are removed once they are empty. The
//! reversal is all or nothing like the call it reverses.

use crate::exec::journal::Journal;
use crate::exec::plan::moves_in;
use crate::exec::quarantine::MANIFEST;
use crate::exec::{exists, str_arg};
use serde::Deserialize;
use serde_json::{Value, json};
use smart_kernel::AdmittedCall;
use smart_kernel::kernel::ToolOutput;
use std::fs;
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
struct StoredItem {
    original: String,
    stored: String,
}

pub(crate) fn run(call: &AdmittedCall) -> Result<ToolOutput, String> {
    let tool = str_arg(call.args(), "tool", "undo")?;
    let rollback = call.args().get("rollback").ok_or("undo needs the rollback data of the call it reverses")?;
    let (restored, removed) = match tool {
        "apply.move" => undo_moves(rollback)?,
        "fs.quarantine" => undo_quarantine(rollback)?,
        other => return Err(format!("undo does not know how to reverse {other:?}")),
    };
    Ok(ToolOutput {
        output: json!({ "undone": tool, "restored": restored, "removed_dirs": removed }),
        ..ToolOutput::default()
    })
}

/// Moves every destination back to its source, newest first, then removes the folders
/// `apply.move` created if they are empty.
fn undo_moves(rollback: &Value) -> Result<(usize, Vec<String>), String> {
    let moves = moves_in(rollback, "the rollback data")?;
    let created: Vec<String> = match rollback.get("created_dirs") {
        Some(v) => serde_json::from_value(v.clone())
            .map_err(|e| format!("the rollback data has malformed created_dirs: {e}"))?,
        None => Vec::new(),
    };
    let pairs: Vec<(PathBuf, PathBuf)> =
        moves.iter().rev().map(|m| (PathBuf::from(&m.to), PathBuf::from(&m.from))).collect();
    let restored = put_back(&pairs, "undo of apply.move")?;
    let mut dirs: Vec<PathBuf> = created.into_iter().map(PathBuf::from).collect();
    dirs.sort_by(|a, b| b.components().count().cmp(&a.components().count()).then_with(|| a.cmp(b)));
    let removed = dirs.iter().filter(|d| fs::remove_dir(d).is_ok()).map(|d| d.to_string_lossy().into_owned()).collect();
    Ok((restored, removed))
}

/// Moves every quarantined item back, then removes the batch folder if only the manifest is left.
fn undo_quarantine(rollback: &Value) -> Result<(usize, Vec<String>), String> {
    let items: Vec<StoredItem> = rollback
        .get("items")
        .cloned()
        .map(serde_json::from_value)
        .ok_or("the rollback data has no list of items")?
        .map_err(|e| format!("the rollback data has malformed items: {e}"))?;
    let pairs: Vec<(PathBuf, PathBuf)> =
        items.iter().rev().map(|it| (PathBuf::from(&it.stored), PathBuf::from(&it.original))).collect();
    let restored = put_back(&pairs, "undo of fs.quarantine")?;
    let mut removed = Vec::new();
    if let Some(batch) = rollback.get("batch_dir").and_then(Value::as_str) {
        let batch = Path::new(batch);
        let only_manifest = fs::read_dir(batch)
            .map(|entries| entries.filter_map(Result::ok).all(|e| e.file_name() == MANIFEST))
            .unwrap_or(false);
        if only_manifest {
            let _ = fs::remove_file(batch.join(MANIFEST));
            if fs::remove_dir(batch).is_ok() {
                removed.push(batch.to_string_lossy().into_owned());
            }
        }
    }
    Ok((restored, removed))
}

/// Moves each (from, to) pair in order, all or nothing.
fn put_back(pairs: &[(PathBuf, PathBuf)], what: &str) -> Result<usize, String> {
    let mut journal = Journal::new();
    for (from, to) in pairs {
        let step = format!("{what} stopped putting {} back at {}", from.display(), to.display());
        match (exists(from), exists(to)) {
            (Ok(true), Ok(false)) => {}
            (Ok(false), _) => return Err(journal.abort(format!("{step}: {} is no longer there", from.display()))),
            (_, Ok(true)) => return Err(journal.abort(format!("{step}: something now exists at {}", to.display()))),
            (Err(e), _) | (_, Err(e)) => return Err(journal.abort(format!("{step}: {e}"))),
        }
        if let Err(e) = journal.create_parents(to).and_then(|()| journal.transfer(from, to)) {
            return Err(journal.abort(format!("{step}: {e}")));
        }
    }
    Ok(journal.moves())
}
