//! Keeping the library index current: the runtime's side of RAG++.
//!
//! The index is SMART's memory of the person's files, not the files themselves: keeping it in
//! step is the runtime's housekeeping, like the state snapshot, and needs no kernel decision —
//! it never writes inside a root. What *is* governed is the wholesale replacement
//! (`rebuild.index`, L4) and every query (`rag.*`, through the kernel). Updates come from the
//! watcher's dirty set when there is one; otherwise (the CLI, a watcher that lost events) a full
//! sync re-reads only files whose size or modification time changed.

use crate::engine::Engine;
use crate::error::RuntimeError;
use crate::watch::Dirty;
use serde::Serialize;
use smart_index::{Index, Limits, UpdateReport};
use std::path::PathBuf;

#[derive(Debug, Serialize)]
pub struct IndexUpdate {
    /// `full` (walked every root) or `incremental` (only the dirty paths).
    pub mode: &'static str,
    pub scanned: u64,
    pub added: u64,
    pub updated: u64,
    pub removed: u64,
    pub unchanged: u64,
    pub skipped: usize,
    pub ms: u64,
}

fn report(mode: &'static str, r: &UpdateReport, ms: u64) -> IndexUpdate {
    IndexUpdate {
        mode,
        scanned: r.scanned,
        added: r.added,
        updated: r.updated,
        removed: r.removed,
        unchanged: r.unchanged,
        skipped: r.skipped.len(),
        ms,
    }
}

/// Brings the index at `places.index` up to date: only `dirty`'s paths when given and
/// complete, otherwise a full sync. Needs no engine, so a host can run it on its own thread
/// without holding the kernel.
pub fn update_index(
    places: &smart_tools::Places,
    now_ms: u64,
    dirty: Option<Dirty>,
    progress: &mut dyn FnMut(u64, &str),
) -> Result<IndexUpdate, RuntimeError> {
    let started = std::time::Instant::now();
    let err = |e: smart_index::IndexError| RuntimeError::BadInput(format!("library index: {e}"));
    let mut index = Index::open(&places.index).map_err(err)?;
    let limits = Limits::default();
    let (mode, r) = match dirty {
        Some(d) if !d.overflowed => {
            let paths: Vec<PathBuf> = d.paths.into_iter().collect();
            ("incremental", index.update_paths(&places.roots, &paths, &limits, now_ms).map_err(err)?)
        }
        _ => {
            ("full", index.sync_roots(&places.roots, &limits, now_ms, &mut |p| progress(p.done, &p.path)).map_err(err)?)
        }
    };
    let ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    Ok(report(mode, &r, ms))
}

impl Engine {
    /// [`update_index`] for this data dir.
    pub fn index_update(
        &self,
        dirty: Option<Dirty>,
        progress: &mut dyn FnMut(u64, &str),
    ) -> Result<IndexUpdate, RuntimeError> {
        update_index(&self.places(), self.now().0, dirty, progress)
    }

    /// What the index holds.
    pub fn index_stats(&self) -> Result<serde_json::Value, RuntimeError> {
        let places = self.places();
        if !places.index.exists() {
            return Ok(serde_json::json!({ "built": false, "path": places.index }));
        }
        let index = Index::open(&places.index).map_err(|e| RuntimeError::BadInput(format!("library index: {e}")))?;
        let stats = index.stats().map_err(|e| RuntimeError::BadInput(format!("library index: {e}")))?;
        let mut v = serde_json::to_value(stats).unwrap_or_default();
        if let Some(o) = v.as_object_mut() {
            o.insert("built".into(), true.into());
            o.insert("path".into(), serde_json::json!(places.index));
        }
        Ok(v)
    }
}
