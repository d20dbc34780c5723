//! `fs.quarantine`: removal that can be taken back.
//!
//! SMART never deletes. What a person would call "delete these" becomes "move these into the
//! quarantine folder", one batch folder per call, with a manifest that says where every item
//! came from and what its content hash was — readable by the person without SMART, should they
//! ever need to restore by hand. The batch is named after the admitted call's hash, so the same
//! admitted call always lands in the same place (no randomness to record or replay). Like every
//! mutation it is all or nothing, and it returns the rollback data undo uses to put each item
//! back.

use crate::exec::journal::Journal;
use crate::exec::walk::{Kind, total_bytes};
use crate::exec::{exists, text};
use crate::fs_world::{content_hash, resolve};
use serde_json::{Map, Value, json};
use smart_kernel::AdmittedCall;
use smart_kernel::kernel::ToolOutput;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The manifest's file name inside a batch folder.
pub const MANIFEST: &str = "manifest.json";

struct Item {
    original: PathBuf,
    stored: PathBuf,
    hash: String,
    size: u64,
    kind: Kind,
}

pub(crate) fn run(call: &AdmittedCall, quarantine_dir: &Path) -> Result<ToolOutput, String> {
    let paths = paths_of(call)?;
    let qdir = quarantine_dir
        .to_str()
        .ok_or_else(|| format!("the quarantine folder {} is not valid UTF-8", quarantine_dir.display()))
        .and_then(|raw| resolve(raw).map_err(|e| format!("the quarantine folder: {}", e.0)))?;
    for p in &paths {
        if qdir.starts_with(p) {
            return Err(format!(
                "{} holds the quarantine folder {}; it cannot be quarantined into itself",
                p.display(),
                qdir.display()
            ));
        }
        if p.starts_with(&qdir) {
            return Err(format!("{} is already in the quarantine folder", p.display()));
        }
    }
    let (batch, batch_dir) = batch_dir(&qdir, &call.hash().to_hex())?;

    // Everything is checked before the first move.
    let mut items = Vec::with_capacity(paths.len());
    for (i, original) in paths.into_iter().enumerate() {
        let meta =
            fs::symlink_metadata(&original).map_err(|e| format!("cannot quarantine {}: {e}", original.display()))?;
        let hash = content_hash(&original)
            .map_err(|e| e.0)?
            .ok_or_else(|| format!("{} does not exist", original.display()))?;
        if let Some(Some(approved)) = call.inputs().get(&text(&original))
            && *approved != hash
        {
            return Err(format!("{} changed since the call was admitted; nothing was quarantined", original.display()));
        }
        let name = original.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "item".into());
        let stored = batch_dir.join(format!("{i}-{name}"));
        let size = total_bytes(&original)?;
        items.push(Item { original, stored, hash: hash.to_hex(), size, kind: Kind::of(meta.file_type()) });
    }

    let mut journal = Journal::new();
    if let Err(e) = journal.create_dir_all(&batch_dir) {
        return Err(journal.abort(format!("fs.quarantine could not make its batch folder: {e}")));
    }
    for (i, item) in items.iter().enumerate() {
        if let Err(e) = journal.transfer(&item.original, &item.stored) {
            return Err(journal.abort(format!(
                "fs.quarantine stopped at item {} ({}): {e}",
                i + 1,
                item.original.display()
            )));
        }
    }
    let listed: Vec<Value> = items
        .iter()
        .map(|it| json!({"original": text(&it.original), "stored": text(&it.stored), "blake3": it.hash, "size": it.size, "kind": it.kind.name()}))
        .collect();
    let manifest_path = batch_dir.join(MANIFEST);
    let manifest = json!({ "batch": batch, "items": listed });
    let written = serde_json::to_vec_pretty(&manifest)
        .map_err(|e| format!("the manifest cannot be encoded: {e}"))
        .and_then(|bytes| journal.write_new(&manifest_path, &bytes));
    if let Err(e) = written {
        return Err(journal.abort(format!("fs.quarantine could not write its manifest: {e}")));
    }

    let mut inputs = Map::new();
    for it in &items {
        inputs.insert(text(&it.stored), json!(it.hash));
        inputs.insert(text(&it.original), Value::Null);
    }
    let pairs: Vec<Value> =
        items.iter().map(|it| json!({"original": text(&it.original), "stored": text(&it.stored)})).collect();
    Ok(ToolOutput {
        output: json!({ "batch": batch, "count": items.len(), "manifest": text(&manifest_path), "items": listed }),
        rollback: Some(json!({ "inputs": inputs, "items": pairs, "batch_dir": text(&batch_dir) })),
        ..ToolOutput::default()
    })
}

/// The call's paths, refusing repeats and paths inside other listed paths.
fn paths_of(call: &AdmittedCall) -> Result<Vec<PathBuf>, String> {
    let list = call.args().get("paths").and_then(Value::as_array).ok_or("fs.quarantine needs a list of paths")?;
    let mut paths = Vec::with_capacity(list.len());
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, v) in list.iter().enumerate() {
        let p = v.as_str().ok_or_else(|| format!("path {} is not a string", i + 1))?;
        if let Some(j) = seen.insert(p, i) {
            return Err(format!("{p} is listed twice (items {} and {})", j + 1, i + 1));
        }
        paths.push(PathBuf::from(p));
    }
    for p in &paths {
        for ancestor in p.ancestors().skip(1).filter_map(Path::to_str) {
            if seen.contains_key(ancestor) {
                return Err(format!(
                    "{} is inside {}, which is also listed; list only one of them",
                    p.display(),
                    ancestor
                ));
            }
        }
    }
    Ok(paths)
}

/// The batch folder: the call hash's first 16 hex digits, with `-2`, `-3`… if that name is
/// taken (the same call admitted again after its files reappeared).
fn batch_dir(qdir: &Path, call_hash: &str) -> Result<(String, PathBuf), String> {
    let base: String = call_hash.chars().take(16).collect();
    for n in 1..=1000u32 {
        let name = if n == 1 { base.clone() } else { format!("{base}-{n}") };
        let dir = qdir.join(&name);
        if !exists(&dir)? {
            return Ok((name, dir));
        }
    }
    Err(format!("the quarantine folder {} already holds 1000 batches named {base}", qdir.display()))
}
