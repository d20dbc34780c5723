//! The handle a caller holds: one SQLite connection to the index file, and the promise that it
//! follows the file when `rebuild` replaces it.
//!
//! `rebuild` renames a new file over the index path. A connection opened before that keeps
//! reading the old file (its inode) — which is what lets the old index answer while the new one
//! is built — but after the swap it must not stay there: its answers would go stale, and a
//! connection writing to a file that is no longer at its path can collide with the new file's
//! journal, which has the same name. So before every call, `Index` checks that the file at its
//! path is still the one it opened (device and inode, on Unix) and reopens if not. The check is
//! one `stat`. On platforms without a file identity there is no check; there, renaming over a
//! file another handle has open fails in the first place, and `rebuild` reports it.
//!
//! Reads take `&self`, so the connection sits in a `RefCell` to be swapped on a read; nothing
//! in the crate calls back into the handle while it is borrowed, and if a caller's callback ever
//! did, it would get [`IndexError::Busy`] rather than a panic.

use crate::error::IndexError;
use crate::limits::Limits;
use crate::query::Query;
use crate::report::{Progress, UpdateReport};
use crate::schema::{self, Mode};
use crate::search::{self, Hit};
use crate::store::{self, Doc, Stats};
use crate::sync;
use crate::vocabulary::Vocabulary;
use rusqlite::Connection;
use std::cell::RefCell;
use std::path::{Path, PathBuf};

/// Which file a connection has open.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct FileId {
    dev: u64,
    ino: u64,
}

#[cfg(unix)]
fn file_id(path: &Path) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| FileId { dev: m.dev(), ino: m.ino() })
}

#[cfg(not(unix))]
fn file_id(_path: &Path) -> Option<FileId> {
    None
}

struct Live {
    conn: Connection,
    id: Option<FileId>,
}

impl Live {
    fn connect(path: &Path, mode: Mode) -> Result<Live, IndexError> {
        // If the file is swapped between the open and the identity check, the identity would
        // describe a file the connection does not have; opening again until both agree closes
        // that window (one retry suffices unless rebuilds run back to back).
        let mut tries = 0;
        loop {
            let before = file_id(path);
            let conn = schema::connect(path, mode)?;
            let after = file_id(path);
            tries += 1;
            if before == after || tries == 3 {
                return Ok(Live { conn, id: after });
            }
        }
    }
}

/// An open index. See the crate documentation for the whole API.
pub struct Index {
    path: PathBuf,
    mode: Mode,
    live: RefCell<Live>,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index").field("path", &self.path).finish_non_exhaustive()
    }
}

impl Index {
    /// Opens the index at `path`, creating the file and its schema if missing.
    pub fn open(path: &Path) -> Result<Index, IndexError> {
        Index::open_mode(path, Mode::Live)
    }

    pub(crate) fn open_mode(path: &Path, mode: Mode) -> Result<Index, IndexError> {
        let live = Live::connect(path, mode)?;
        Ok(Index { path: path.to_path_buf(), mode, live: RefCell::new(live) })
    }

    /// The index file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `f` on the connection to the file now at the index path.
    pub(crate) fn with<T>(&self, f: impl FnOnce(&Connection) -> Result<T, IndexError>) -> Result<T, IndexError> {
        let mut live = self.live.try_borrow_mut().map_err(|_| IndexError::Busy)?;
        if self.mode == Mode::Live {
            let now = file_id(&self.path);
            if now.is_some() && now != live.id {
                *live = Live::connect(&self.path, Mode::Live)?;
            }
        }
        f(&live.conn)
    }

    /// Walks every root and brings the index in line with it: new and changed entries are read,
    /// unchanged ones (same size and modification time) are not, vanished ones are removed.
    /// `progress` is called once per entry examined.
    pub fn sync_roots(
        &mut self,
        roots: &[PathBuf],
        limits: &Limits,
        now_ms: u64,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<UpdateReport, IndexError> {
        let path = self.path.clone();
        self.with(|c| sync::sync_roots(c, &path, roots, limits, now_ms, progress))
    }

    /// Re-checks `paths` (absolute, inside `roots`): files re-read if changed, folders re-walked,
    /// deleted paths removed with everything below them. A path outside every root refuses the
    /// whole call with [`IndexError::OutsideRoots`] before anything changes.
    pub fn update_paths(
        &mut self,
        roots: &[PathBuf],
        paths: &[PathBuf],
        limits: &Limits,
        now_ms: u64,
    ) -> Result<UpdateReport, IndexError> {
        let path = self.path.clone();
        self.with(|c| sync::update_paths(c, &path, roots, paths, limits, now_ms))
    }

    /// The best hits for `q`, ranked as `crate::rank` describes, at time `now_ms`.
    pub fn search(&self, q: &Query, now_ms: u64) -> Result<Vec<Hit>, IndexError> {
        self.with(|c| search::search(c, q, now_ms))
    }

    /// The record of the entry at `path` (absolute, as stored).
    pub fn doc(&self, path: &str) -> Result<Option<Doc>, IndexError> {
        self.with(|c| store::doc(c, path))
    }

    /// The indexed text of the entry at `path`; `None` when there is no such entry or its text
    /// is not indexed (binary, oversize, symlink). It is the text as read at the last sync.
    pub fn text_of(&self, path: &str) -> Result<Option<String>, IndexError> {
        self.with(|c| store::text_of(c, path))
    }

    /// The words a search can find ([`crate::vocabulary`]).
    pub fn vocabulary(&self) -> Result<Vocabulary, IndexError> {
        self.with(crate::vocabulary::vocabulary)
    }

    /// Whether some document holds `word` ([`crate::vocabulary`]).
    pub fn holds(&self, word: &str) -> Result<bool, IndexError> {
        self.with(|c| crate::vocabulary::holds(c, word))
    }

    /// Totals: entries, text entries, bytes, entries per kind, last full sync.
    pub fn stats(&self) -> Result<Stats, IndexError> {
        self.with(store::stats)
    }
}
