//! What the kernel may learn about the world, and only through this door.
//!
//! Admission needs three facts it cannot compute itself: where a path really points (symlinks,
//! `..`), what a file's content hash is right now (snapshot freshness), and the body of a
//! proposal artifact named by its hash. The host implements [`World`] with real IO; tests
//! implement it with a map. The kernel trusts none of it blindly: artifact bodies are re-hashed,
//! and a path the world resolves is still checked against the allowed roots.

use crate::canonical::Hash;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct WorldError(pub String);

/// A proposal artifact (an L2 tool's output) as the kernel sees it: its content hash, the
/// files it was computed against, and its body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Artifact {
    pub kind: String,
    pub body: Value,
    /// Path → content hash at the time the artifact was made. Applying the artifact requires the
    /// files to still match (the snapshot-freshness check).
    pub inputs: std::collections::BTreeMap<String, Hash>,
}

pub trait World {
    /// Resolves `raw` to an absolute path with symlinks of every existing component followed and
    /// `.`/`..` removed. A path whose last components do not exist yet resolves through its
    /// deepest existing ancestor.
    fn resolve(&self, raw: &str) -> Result<PathBuf, WorldError>;

    /// The blake3 hash of the file's content now, or `None` when there is no file.
    fn file_hash(&self, path: &Path) -> Result<Option<Hash>, WorldError>;

    /// The artifact with this hash, if the host has it.
    fn artifact(&self, hash: &Hash) -> Result<Option<Artifact>, WorldError>;

    /// The first entry beneath the folder `path` whose name `sensitive` picks out (a `.ssh`
    /// inside a folder being moved), not following links; `None` when there is none or `path`
    /// is not a folder. A folder too big to look through whole is answered with itself: a
    /// mutation of it is raised as if something sensitive were inside.
    fn sensitive_within(&self, path: &Path, sensitive: &dyn Fn(&str) -> bool) -> Result<Option<PathBuf>, WorldError> {
        let _ = (path, sensitive);
        Ok(None)
    }

    /// The hash of a record's current value in the host's record store (`collection/key`), or
    /// `None` when there is none. Undo of a record write checks it, as it checks file hashes.
    fn record_hash(&self, id: &str) -> Result<Option<Hash>, WorldError> {
        Err(WorldError(format!("this host keeps no record store, so record {id} cannot be checked")))
    }
}
