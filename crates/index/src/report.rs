//! What a sync did, in counts, and what it could not do, in words.
//!
//! The counts let a caller (and a test) see that an incremental update did only the work it
//! had to: a re-sync of an unchanged tree reports everything `unchanged` and nothing re-read.
//! `skipped` names each entry that could not be indexed and why (unreadable, not UTF-8, changed
//! while being read), so a person can find out why a file is missing from answers; it is capped,
//! because a folder of a million unreadable files must not produce a million-line report, and
//! `skipped_total` keeps the true count.

use serde::{Deserialize, Serialize};

/// The most `(path, why)` pairs kept in [`UpdateReport::skipped`].
pub const MAX_SKIPPED: usize = 200;

/// The outcome of `sync_roots`, `update_paths` or `rebuild`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UpdateReport {
    /// Entries examined (files, symlinks, special files; folders are walked, not counted).
    pub scanned: u64,
    /// Entries new to the index.
    pub added: u64,
    /// Entries whose size or modification time changed, re-read.
    pub updated: u64,
    /// Entries that are gone (or can no longer be read) and were removed.
    pub removed: u64,
    /// Entries with the same size and modification time as indexed: not re-read.
    pub unchanged: u64,
    /// Up to [`MAX_SKIPPED`] entries that could not be indexed: `(path, why)`, in walk order.
    pub skipped: Vec<(String, String)>,
    /// How many entries were skipped in all.
    pub skipped_total: u64,
    /// Whether the walk stopped at `Limits::max_files` with more left to see.
    pub truncated: bool,
}

impl UpdateReport {
    pub(crate) fn skip(&mut self, path: String, why: String) {
        self.skipped_total += 1;
        if self.skipped.len() < MAX_SKIPPED {
            self.skipped.push((path, why));
        }
    }
}

/// Where a sync is: entries examined so far and the latest one's path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Progress {
    pub done: u64,
    pub path: String,
}
