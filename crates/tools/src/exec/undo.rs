//! `undo`: putting things back the way a mutation found them.
//!
//! The kernel admits an undo only after checking, against the rollback data the mutation
//! recorded, that every path (and record) still looks exactly as the mutation left it — so undo
//! can never overwrite something the person did afterwards. What is left here is the mechanical
//! reverse, one function per reversible tool: moves run backwards in reverse order, a patch's
//! inverse is applied and checked against the content it must give back, a record gets its
//! previous value (or goes, if the upsert created it), a compacted folder comes back from
//! quarantine and its archive goes. Folders the original call created (or its quarantine batch
//! folder) are removed once they are empty. The reversal is all or nothing like the call it
//! reverses.

use crate::confine::{ReadFs, Writer};
use crate::exec::db_upsert;
use crate::exec::journal::Journal;
use crate::exec::patch_text;
use crate::exec::plan::moves_in;
use crate::exec::quarantine::MANIFEST;
use crate::exec::str_arg;
use serde::Deserialize;
use serde_json::{Value, json};
use smart_kernel::AdmittedCall;
use smart_kernel::kernel::ToolOutput;
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
struct StoredItem {
    original: String,
    stored: String,
}

pub(crate) fn run(call: &AdmittedCall, w: Writer<'_>, records: &Path) -> Result<ToolOutput, String> {
    let tool = str_arg(call.args(), "tool", "undo")?;
    let rollback = call.args().get("rollback").ok_or("undo needs the rollback data of the call it reverses")?;
    let (restored, removed) = match tool {
        "apply.move" => undo_moves(w, rollback)?,
        "fs.quarantine" => undo_quarantine(w, rollback)?,
        "fs.compact" => undo_compact(w, rollback)?,
        "apply.patch" => (undo_patch(w, rollback)?, Vec::new()),
        "db.upsert" => (db_upsert::restore(records, rollback)?, Vec::new()),
        other => return Err(format!("undo does not know how to reverse {other:?}")),
    };
    Ok(ToolOutput {
        output: json!({ "undone": tool, "restored": restored, "removed_dirs": removed }),
        ..ToolOutput::default()
    })
}

/// Moves every destination back to its source, newest first, then removes the folders
/// `apply.move` created if they are empty.
fn undo_moves(w: Writer<'_>, rollback: &Value) -> Result<(usize, Vec<String>), String> {
    let moves = moves_in(rollback, "the rollback data")?;
    let pairs: Vec<(PathBuf, PathBuf)> =
        moves.iter().rev().map(|m| (PathBuf::from(&m.to), PathBuf::from(&m.from))).collect();
    let restored = put_back(w, &pairs, "undo of apply.move")?;
    Ok((restored, remove_created_dirs(w, rollback)?))
}

fn remove_created_dirs(w: Writer<'_>, rollback: &Value) -> Result<Vec<String>, String> {
    let created: Vec<String> = match rollback.get("created_dirs") {
        Some(v) => serde_json::from_value(v.clone())
            .map_err(|e| format!("the rollback data has malformed created_dirs: {e}"))?,
        None => Vec::new(),
    };
    let mut dirs: Vec<PathBuf> = created.into_iter().map(PathBuf::from).collect();
    dirs.sort_by(|a, b| b.components().count().cmp(&a.components().count()).then_with(|| a.cmp(b)));
    Ok(dirs
        .iter()
        .filter(|d| w.list(d).is_ok_and(|entries| entries.is_empty()) && remove_empty_dir(w, d))
        .map(|d| d.to_string_lossy().into_owned())
        .collect())
}

/// Removes the empty folder `dir` (best effort, as tidying up is), logged first: an undo cut
/// off after it must be rolled back into the folder, not fail to find it (regression: a kill
/// just after the undo of a 120-file move had removed the folder the move made left the
/// rollback unable to put any file back). Not removed when the step cannot be logged.
fn remove_empty_dir(w: Writer<'_>, dir: &Path) -> bool {
    w.intend(&crate::exec::steps::Step::Rmdir { path: dir.to_path_buf() }).is_ok() && w.remove_dir(dir).is_ok()
}

/// Moves every quarantined item back, then removes the batch folder if only the manifest is left.
fn undo_quarantine(w: Writer<'_>, rollback: &Value) -> Result<(usize, Vec<String>), String> {
    let items: Vec<StoredItem> = rollback
        .get("items")
        .cloned()
        .map(serde_json::from_value)
        .ok_or("the rollback data has no list of items")?
        .map_err(|e| format!("the rollback data has malformed items: {e}"))?;
    let pairs: Vec<(PathBuf, PathBuf)> =
        items.iter().rev().map(|it| (PathBuf::from(&it.stored), PathBuf::from(&it.original))).collect();
    let restored = put_back(w, &pairs, "undo of the quarantine")?;
    let mut removed = Vec::new();
    if let Some(batch) = rollback.get("batch_dir").and_then(Value::as_str) {
        let batch = Path::new(batch);
        let only_manifest = w.list(batch).map(|entries| entries.iter().all(|e| e.name == MANIFEST)).unwrap_or(false);
        if only_manifest {
            let _ = w.remove_file(&batch.join(MANIFEST));
            if remove_empty_dir(w, batch) {
                removed.push(batch.to_string_lossy().into_owned());
            }
        }
    }
    Ok((restored, removed))
}

/// Brings the folder back from quarantine, then removes the archive `fs.compact` made (the
/// kernel checked it is byte for byte what was made, so nothing of the person's is lost).
fn undo_compact(w: Writer<'_>, rollback: &Value) -> Result<(usize, Vec<String>), String> {
    let archive = rollback.get("archive").and_then(Value::as_str).ok_or("the rollback data names no archive")?;
    let (restored, removed) = undo_quarantine(w, rollback)?;
    if let Err(e) = w.remove_file(Path::new(archive)) {
        return Err(format!(
            "the folder was restored, but the archive {archive} could not be removed ({e}); remove it by hand if you do not want it"
        ));
    }
    Ok((restored, removed))
}

/// Applies the recorded inverse patch, and writes only if the result is exactly the content the
/// file had before `apply.patch`.
fn undo_patch(w: Writer<'_>, rollback: &Value) -> Result<usize, String> {
    let path = rollback.get("path").and_then(Value::as_str).ok_or("the rollback data names no file")?;
    let inverse = rollback.get("inverse").and_then(Value::as_str).ok_or("the rollback data has no inverse patch")?;
    let before = rollback.get("before").and_then(Value::as_str).ok_or("the rollback data has no content hash")?;
    let current = patch_text::read_text(&*w, Path::new(path))?;
    let restored = patch_text::apply(&current, inverse).map_err(|e| format!("undo of apply.patch on {path}: {e}"))?;
    if blake3::hash(restored.as_bytes()).to_hex().as_str() != before {
        return Err(format!(
            "undo of apply.patch on {path}: the inverse patch does not give back the original content"
        ));
    }
    w.replace(Path::new(path), restored.as_bytes()).map_err(|e| format!("cannot write {path}: {e}"))?;
    Ok(1)
}

/// Moves each (from, to) pair in order, all or nothing.
fn put_back(w: Writer<'_>, pairs: &[(PathBuf, PathBuf)], what: &str) -> Result<usize, String> {
    let mut journal = Journal::new(w);
    for (from, to) in pairs {
        let step = format!("{what} stopped putting {} back at {}", from.display(), to.display());
        match (w.exists(from), w.exists(to)) {
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
