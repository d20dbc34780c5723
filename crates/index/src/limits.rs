//! How much of the person's folders the index is willing to take in.
//!
//! An index that reads everything is an index that reads a 40 GB disk image into SQLite. The
//! limits bound the three things that grow without bound in a real home folder: the size of one
//! file's text (a larger text file is still findable by name and metadata, its words are not
//! indexed), the number of entries (the walk stops there, in its fixed order, so the same tree
//! always keeps the same prefix), and the folders that are machinery rather than documents —
//! version-control stores and dependency caches, which hold many thousands of files a person
//! never means when they ask for "my notes".

use serde::{Deserialize, Serialize};

/// Limits on what is indexed. `Default` gives the documented defaults.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Text larger than this (bytes) is indexed by name and metadata only. Default 1 MiB.
    pub max_text_bytes: u64,
    /// The most entries the index holds; the walk stops there. Default 500,000.
    pub max_files: u64,
    /// Folder names that are never entered (compared with the whole name, case-sensitively).
    /// Default: `.git`, `.hg`, `.svn`, `node_modules`, `__pycache__`, `.venv`, `.tox`.
    pub skip_dirs: Vec<String>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_text_bytes: 1024 * 1024,
            max_files: 500_000,
            skip_dirs: [".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", ".tox"]
                .map(str::to_string)
                .to_vec(),
        }
    }
}

impl Limits {
    pub(crate) fn skips(&self, dir_name: &str) -> bool {
        self.skip_dirs.iter().any(|d| d == dir_name)
    }
}
