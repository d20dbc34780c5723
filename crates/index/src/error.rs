//! Everything that can go wrong in the index, as data.
//!
//! A caller (the runtime, the CLI, the model's tool layer) has to tell apart the failures it can
//! explain to a person — a query with no words in it, a path outside the allowed folders — from
//! the ones that mean the index file itself is unusable. So each has its own variant with the
//! facts needed to say what happened, and none carries a live `io::Error` (which is neither
//! `Clone` nor comparable): the reason is kept as text.
//!
//! Files the walk cannot read are not errors at all: they land in `UpdateReport::skipped`, so a
//! single locked file never stops an index of a hundred thousand.

use std::path::PathBuf;

/// Why an index operation failed.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// The query had nothing left to search for once FTS syntax and punctuation were removed.
    #[error("the query has no searchable words (letters or digits)")]
    EmptyQuery,
    /// `update_paths` was given a path that is not inside any allowed root.
    #[error("{path} is not inside any of the allowed roots; the index only reads inside them")]
    OutsideRoots { path: PathBuf },
    /// A path the index cannot take at all: relative, `..`, not UTF-8.
    #[error("{path} cannot be indexed: {why}")]
    BadPath { path: PathBuf, why: String },
    /// The index file would live inside a root; the index never writes inside one.
    #[error("the index file {index} is inside the allowed root {root}; the index never writes inside a root")]
    IndexInsideRoot { index: PathBuf, root: PathBuf },
    /// The file is not a usable SQLite index.
    #[error("{path} is not a usable index ({reason}); it was left untouched — `rebuild` makes a new one")]
    Corrupt { path: PathBuf, reason: String },
    /// The file was written by a different version of the index.
    #[error("{path} has index schema version {found}, this build reads {expected}; `rebuild` makes a new one")]
    Schema { path: PathBuf, found: i64, expected: i64 },
    /// A filesystem step of opening or rebuilding the index (not of reading the roots) failed.
    #[error("could not {step} {path}: {reason}")]
    Io { step: &'static str, path: PathBuf, reason: String },
    /// The index's state is in use by another call on the same handle (a re-entrant call).
    #[error("the index handle is busy with another call")]
    Busy,
    #[error("index database error: {0}")]
    Sql(#[from] rusqlite::Error),
}

impl IndexError {
    pub(crate) fn io(step: &'static str, path: &std::path::Path, e: &std::io::Error) -> IndexError {
        IndexError::Io { step, path: path.to_path_buf(), reason: e.to_string() }
    }
}
