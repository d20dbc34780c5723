//! The quarantine as a person sees it: batches, where they came from, and what can be done.
//!
//! Quarantine batches are made by `fs.quarantine` and `fs.compact`; each is a folder with a
//! manifest in the data dir. This joins the folders with the ledger — which event made each
//! batch, whether it was undone — so `smart quarantine list` can say "restore with …" or "purge
//! with …". Restoring is the undo of the event that made the batch (a kernel call, refused if
//! anything changed); purging is `quarantine.purge` (L4, irreversible, always Tier 3).

use crate::engine::Engine;
use crate::error::RuntimeError;
use serde::Serialize;
use serde_json::Value;
use smart_kernel::KernelEvent;
use std::collections::BTreeMap;

/// How long a batch is kept before `smart quarantine list` calls it due for purging. Nothing is
/// ever purged without the person's signed approval; this only says which batches are old.
pub const RETENTION_DAYS: u64 = 30;

#[derive(Debug, Serialize)]
pub struct Batch {
    pub batch: String,
    /// The event that made it (what `smart undo` / restore takes), if the ledger knows it.
    pub seq: Option<u64>,
    pub tool: Option<String>,
    pub made_at_ms: Option<u64>,
    pub items: usize,
    pub bytes: u64,
    pub originals: Vec<String>,
    /// For `fs.compact` batches: the archive the originals were packed into.
    pub compacted_into: Option<String>,
    /// Whether `RETENTION_DAYS` have passed.
    pub due_for_purge: bool,
}

impl Engine {
    /// Every batch in the quarantine folder, oldest first.
    pub fn quarantine_list(&self) -> Result<Vec<Batch>, RuntimeError> {
        let qdir = self.places().quarantine;
        let mut made: BTreeMap<String, (u64, String, u64)> = BTreeMap::new();
        // Only the commits of the two tools that make batches come back (SQLite filters the
        // payloads), not the whole ledger.
        for tool in ["fs.quarantine", "fs.compact"] {
            let filter = smart_ledger::EventFilter {
                kinds: vec!["committed".into()],
                tool: Some(tool.into()),
                ..smart_ledger::EventFilter::default()
            };
            let n = usize::try_from(self.ledger().count(&filter)?).unwrap_or(usize::MAX);
            for row in self.ledger().page(&filter, 0, n)? {
                if let Ok(KernelEvent::Committed { tool, output, .. }) = row.event()
                    && let Some(b) = output.get("batch").and_then(Value::as_str)
                {
                    made.insert(b.to_string(), (row.seq, tool, row.at_ms));
                }
            }
        }
        let mut out = Vec::new();
        let entries = match std::fs::read_dir(&qdir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
            Err(e) => return Err(RuntimeError::Io { path: qdir, reason: e.to_string() }),
        };
        let now = self.now().0;
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let manifest: Value = match std::fs::read(entry.path().join(smart_tools::exec::QUARANTINE_MANIFEST)) {
                Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or(Value::Null),
                Err(_) => continue,
            };
            let items = manifest.get("items").and_then(Value::as_array).cloned().unwrap_or_default();
            let origin = made.get(&name);
            let made_at_ms = origin.map(|o| o.2);
            out.push(Batch {
                batch: name,
                seq: origin.map(|o| o.0),
                tool: origin.map(|o| o.1.clone()),
                made_at_ms,
                items: items.len(),
                bytes: items.iter().filter_map(|i| i.get("size").and_then(Value::as_u64)).sum(),
                originals: items
                    .iter()
                    .filter_map(|i| i.get("original").and_then(Value::as_str).map(str::to_string))
                    .collect(),
                compacted_into: smart_tools::exec::compacted_into(&manifest).map(str::to_string),
                due_for_purge: made_at_ms.is_some_and(|t| now.saturating_sub(t) >= RETENTION_DAYS * 86_400_000),
            });
        }
        out.sort_by(|a, b| a.made_at_ms.cmp(&b.made_at_ms).then_with(|| a.batch.cmp(&b.batch)));
        Ok(out)
    }

    /// Restores a batch: the undo of the event that made it.
    pub fn quarantine_restore(&mut self, batch: &str) -> Result<crate::CallReport, RuntimeError> {
        let list = self.quarantine_list()?;
        let found = list.iter().find(|b| b.batch == batch).ok_or_else(|| {
            RuntimeError::BadInput(format!(
                "there is no quarantine batch {batch:?}; `smart quarantine list` shows them"
            ))
        })?;
        let seq = found.seq.ok_or_else(|| {
            RuntimeError::BadInput(format!(
                "batch {batch} was not made by a call in this ledger; restore it by hand from its manifest"
            ))
        })?;
        self.undo(seq)
    }
}
