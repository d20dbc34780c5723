//! The kernel's view of the world, backed by the real filesystem and the ledger.

use smart_kernel::{Artifact, Hash, KernelEvent, KernelState, World, WorldError};
use smart_ledger::Ledger;
use std::path::{Path, PathBuf};

pub struct LedgerWorld<'a> {
    pub ledger: &'a Ledger,
    pub state: &'a KernelState,
    /// The record store `db.upsert` writes (checked by undo).
    pub records: PathBuf,
}

impl World for LedgerWorld<'_> {
    fn resolve(&self, raw: &str) -> Result<PathBuf, WorldError> {
        smart_tools::fs_world::resolve(raw)
    }

    fn file_hash(&self, path: &Path) -> Result<Option<Hash>, WorldError> {
        smart_tools::fs_world::content_hash(path)
    }

    fn sensitive_within(&self, path: &Path, sensitive: &dyn Fn(&str) -> bool) -> Result<Option<PathBuf>, WorldError> {
        smart_tools::fs_world::sensitive_within(path, sensitive)
    }

    /// Artifacts live in the `committed` event of the L2 call that made them. The kernel
    /// re-hashes what we return, so a tampered row cannot pass for the artifact.
    fn artifact(&self, hash: &Hash) -> Result<Option<Artifact>, WorldError> {
        let Some(meta) = self.state.artifacts.get(hash) else { return Ok(None) };
        let row = self.ledger.get(meta.seq).map_err(|e| WorldError(e.to_string()))?;
        let Some(row) = row else { return Ok(None) };
        match row.event() {
            Ok(KernelEvent::Committed { artifact: Some(a), .. }) => Ok(Some(a)),
            Ok(_) => Ok(None),
            Err(e) => Err(WorldError(e)),
        }
    }

    fn record_hash(&self, id: &str) -> Result<Option<Hash>, WorldError> {
        let (collection, key) =
            id.split_once('/').ok_or_else(|| WorldError(format!("{id:?} does not name a record as collection/key")))?;
        smart_tools::record_hash(&self.records, collection, key).map_err(WorldError)
    }
}
