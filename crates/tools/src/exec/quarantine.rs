//! `fs.quarantine`: removal that can be taken back.
//!
//! SMART never deletes. What a person would call "delete these" becomes "move these into the
//! quarantine folder", one batch folder per call, with a manifest that says where every item
//! came from and what its content hash was — readable by the person without SMART, should they
//! ever need to restore by hand. The batch is named after the admitted call's hash, so the same
//! admitted call always lands in the same place (no randomness to record or replay). Like every
//! mutation it is all or nothing, and it returns the rollback data undo uses to put each item
//! back.

use crate::confine::{ReadFs, Writer};
use crate::exec::journal::Journal;
use crate::exec::text;
use crate::exec::walk::{Kind, total_bytes};
use crate::fs_world::content_hash_in;
use serde_json::{Map, Value, json};
use smart_kernel::kernel::ToolOutput;
use smart_kernel::{AdmittedCall, Hash};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The manifest's file name inside a batch folder.
pub const MANIFEST: &str = "manifest.json";

/// The artifact kind `propose.quarantine` writes and `fs.quarantine` can take instead of paths.
pub const QUARANTINE_PLAN: &str = "quarantine_plan";

pub(crate) struct Item {
    pub original: PathBuf,
    pub stored: PathBuf,
    pub hash: String,
    pub size: u64,
    pub kind: Kind,
}

/// A finished quarantine batch, its journal still open so a caller doing more (`fs.compact`)
/// can abort everything together.
pub(crate) struct Batch<'a> {
    pub name: String,
    pub dir: PathBuf,
    pub manifest: PathBuf,
    pub items: Vec<Item>,
    pub journal: Journal<'a>,
}

impl Batch<'_> {
    pub(crate) fn listed(&self) -> Vec<Value> {
        self.items
            .iter()
            .map(|it| json!({"original": text(&it.original), "stored": text(&it.stored), "blake3": it.hash, "size": it.size, "kind": it.kind.name()}))
            .collect()
    }

    /// What undo checks (each stored item as quarantined, each original place empty) and the
    /// pairs it moves back.
    pub(crate) fn rollback(&self) -> (Map<String, Value>, Vec<Value>) {
        let mut inputs = Map::new();
        for it in &self.items {
            inputs.insert(text(&it.stored), json!(it.hash));
            inputs.insert(text(&it.original), Value::Null);
        }
        let pairs =
            self.items.iter().map(|it| json!({"original": text(&it.original), "stored": text(&it.stored)})).collect();
        (inputs, pairs)
    }
}

pub(crate) fn run(call: &AdmittedCall, w: Writer<'_>, quarantine_dir: &Path) -> Result<ToolOutput, String> {
    let paths = match call.artifact() {
        Some(plan) => {
            if plan.kind != QUARANTINE_PLAN {
                return Err(format!(
                    "fs.quarantine takes a {QUARANTINE_PLAN} artifact, not a {:?} artifact",
                    plan.kind
                ));
            }
            paths_of(&plan.body, "the quarantine plan")?
        }
        None => paths_of(call.args(), "fs.quarantine's arguments")?,
    };
    let expected = match call.artifact() {
        Some(plan) => plan.inputs.iter().map(|(k, v)| (k.clone(), Some(*v))).collect(),
        None => call.inputs().clone(),
    };
    let batch = quarantine(w, quarantine_dir, &paths, &call.hash(), &expected, &json!({}))?;
    let listed = batch.listed();
    let (inputs, pairs) = batch.rollback();
    Ok(ToolOutput {
        output: json!({ "batch": batch.name, "count": batch.items.len(), "manifest": text(&batch.manifest), "items": listed }),
        rollback: Some(json!({ "inputs": inputs, "items": pairs, "batch_dir": text(&batch.dir) })),
        ..ToolOutput::default()
    })
}

/// Moves `paths` into a new batch folder with a manifest, all or nothing. Every item's content
/// must still be what the kernel admitted (`expected`).
pub(crate) fn quarantine<'a>(
    w: Writer<'a>,
    quarantine_dir: &Path,
    paths: &[PathBuf],
    call_hash: &Hash,
    expected: &BTreeMap<String, Option<Hash>>,
    extra: &Value,
) -> Result<Batch<'a>, String> {
    let qdir = quarantine_dir.to_path_buf();
    for p in paths {
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
    let (name, batch_dir) = batch_dir(&w, &qdir, &call_hash.to_hex())?;

    // Everything is checked before the first move.
    let mut items = Vec::with_capacity(paths.len());
    for (i, original) in paths.iter().enumerate() {
        let meta = w.meta(original).map_err(|e| format!("cannot quarantine {}: {e}", original.display()))?;
        let hash = content_hash_in(&*w, original)
            .map_err(|e| e.0)?
            .ok_or_else(|| format!("{} does not exist", original.display()))?;
        if let Some(Some(approved)) = expected.get(&text(original))
            && *approved != hash
        {
            return Err(format!("{} changed since the call was admitted; nothing was quarantined", original.display()));
        }
        let base = original.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "item".into());
        // Names may be up to 255 bytes; the index prefix must not push the stored name past
        // that (the manifest keeps the original path in full).
        let stored = batch_dir.join(format!("{i}-{}", shorten(&base, 200)));
        let size = total_bytes(&*w, original)?;
        items.push(Item { original: original.clone(), stored, hash: hash.to_hex(), size, kind: meta.kind });
    }

    let mut journal = Journal::new(w);
    if let Err(e) = journal.create_dir_all(&batch_dir) {
        return Err(journal.abort(format!("quarantine could not make its batch folder: {e}")));
    }
    for (i, item) in items.iter().enumerate() {
        if let Err(e) = journal.transfer(&item.original, &item.stored) {
            return Err(journal.abort(format!(
                "quarantine stopped at item {} ({}): {e}",
                i + 1,
                item.original.display()
            )));
        }
    }
    let manifest_path = batch_dir.join(MANIFEST);
    let mut batch = Batch { name, dir: batch_dir, manifest: manifest_path.clone(), items, journal };
    let mut manifest = json!({ "batch": batch.name, "items": batch.listed() });
    if let (Some(m), Some(extra)) = (manifest.as_object_mut(), extra.as_object()) {
        m.extend(extra.clone());
    }
    let written = serde_json::to_vec_pretty(&manifest)
        .map_err(|e| format!("the manifest cannot be encoded: {e}"))
        .and_then(|bytes| batch.journal.write_new(&manifest_path, &bytes));
    if let Err(e) = written {
        return Err(batch.journal.abort(format!("quarantine could not write its manifest: {e}")));
    }
    Ok(batch)
}

/// At most `max` bytes of `name`, cut at a character boundary.
fn shorten(name: &str, max: usize) -> &str {
    if name.len() <= max {
        return name;
    }
    let mut end = max;
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    &name[..end]
}

/// The listed paths, refusing repeats and paths inside other listed paths.
pub(crate) fn paths_of(value: &Value, what: &str) -> Result<Vec<PathBuf>, String> {
    let list = value.get("paths").and_then(Value::as_array).ok_or_else(|| format!("{what} has no list of paths"))?;
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
fn batch_dir(w: &Writer<'_>, qdir: &Path, call_hash: &str) -> Result<(String, PathBuf), String> {
    let base: String = call_hash.chars().take(16).collect();
    for n in 1..=1000u32 {
        let name = if n == 1 { base.clone() } else { format!("{base}-{n}") };
        let dir = qdir.join(&name);
        if !w.exists(&dir).map_err(|e| format!("cannot inspect {}: {e}", dir.display()))? {
            return Ok((name, dir));
        }
    }
    Err(format!("the quarantine folder {} already holds 1000 batches named {base}", qdir.display()))
}
