//! Bringing the index in line with the folders: a full walk, or just the paths a watcher saw.
//!
//! Both ways end in the same state a fresh full sync would give (the tests hold them to that),
//! and both do as little work as they can: an entry whose size and modification time match what
//! is indexed is not opened again (unless `max_text_bytes` changed since it was indexed, which
//! can change what it yields), and everything the walk did not see — deleted, moved, now
//! unreadable, now behind a symlink — is removed. "Not seen" is the only deletion rule, so a
//! file that cannot be read any more leaves the index rather than answering with stale text.
//!
//! A root that cannot be opened at the time of a full sync counts as empty: its entries leave
//! the index (and the root is named in `skipped`), since nothing of it can be confirmed.
//!
//! `update_paths` re-checks each path it is given: a file is re-read if it changed, a folder is
//! re-walked, and a path that is gone takes everything indexed below it along. A path inside a
//! folder named in `Limits::skip_dirs` (a watcher reports every write to `.git/`) is treated as
//! nothing to index. Each path is looked up from its root's handle one name at a time without
//! following symlinks, so a watcher event cannot lead the index through a link either. Paths
//! are all checked against the roots before anything is done: one path outside them refuses
//! the whole call.
//!
//! Writes are committed in batches ([`BATCH`] entries), so other connections' searches proceed
//! during a long sync and a crash loses at most one batch (the next sync redoes it).
//!
//! `max_files` caps the entries held. A full sync stops its walk there (the walk's fixed order
//! makes the kept set the same prefix every time) and reports `truncated`; an incremental update
//! cannot know which entries a full walk would keep, so it skips new entries once the index is
//! full and lets the next full sync settle the set.

use crate::error::IndexError;
use crate::extract::{Stamp, extract};
use crate::limits::Limits;
use crate::report::{Progress, UpdateReport};
use crate::roots::{self, Root, SEP};
use crate::store::{self, Existing};
use crate::walk::{self, Flow, Visitor};
use cap_std::fs::{Dir, Metadata};
use rusqlite::Connection;
use std::collections::HashMap;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

/// Entries written per transaction.
pub(crate) const BATCH: usize = 2_000;

const LIMIT_KEY: &str = "max_text_bytes";

/// An open write transaction, committed every [`BATCH`] writes and rolled back if dropped.
struct Tx<'c> {
    conn: &'c Connection,
    pending: usize,
    open: bool,
}

impl<'c> Tx<'c> {
    fn begin(conn: &'c Connection) -> Result<Tx<'c>, IndexError> {
        conn.execute_batch("BEGIN IMMEDIATE")?;
        Ok(Tx { conn, pending: 0, open: true })
    }

    fn wrote(&mut self) -> Result<(), IndexError> {
        self.pending += 1;
        if self.pending >= BATCH {
            self.open = false;
            self.conn.execute_batch("COMMIT")?;
            self.conn.execute_batch("BEGIN IMMEDIATE")?;
            self.open = true;
            self.pending = 0;
        }
        Ok(())
    }

    fn commit(mut self) -> Result<(), IndexError> {
        self.open = false;
        self.conn.execute_batch("COMMIT")?;
        Ok(())
    }
}

impl Drop for Tx<'_> {
    fn drop(&mut self) {
        if self.open {
            // Already failing; the rollback's own error adds nothing.
            let _ = self.conn.execute_batch("ROLLBACK");
        }
    }
}

/// What to do with a new entry when the index holds `max_files`.
#[derive(Copy, Clone, PartialEq, Eq)]
enum WhenFull {
    /// End the walk (full sync).
    Stop,
    /// Skip the entry, keep updating known ones (incremental update).
    Skip,
}

struct State<'a> {
    conn: &'a Connection,
    tx: Tx<'a>,
    limits: &'a Limits,
    now_ms: u64,
    /// Re-read even unchanged entries (the text limit changed since they were indexed).
    force: bool,
    /// Indexed entries in the part being synced that the walk has not seen yet.
    existing: HashMap<String, Existing>,
    report: UpdateReport,
    progress: &'a mut dyn FnMut(&Progress),
    /// Entries the index holds (incremental) or has kept so far (full).
    held: u64,
    when_full: WhenFull,
    error: Option<IndexError>,
}

/// The folders column of an entry: the root's name and the folders down to the entry.
fn folders(root: &Root, rel: &str) -> String {
    match rel.rsplit_once(SEP) {
        Some((dir, _)) => format!("{}{SEP}{dir}", root.label),
        None => root.label.clone(),
    }
}

impl State<'_> {
    fn visit(&mut self, root: &Root, parent: &Dir, name: &str, rel: &str, meta: &Metadata) -> Flow {
        match self.try_visit(root, parent, name, rel, meta) {
            Ok(flow) => flow,
            Err(e) => {
                self.error = Some(e);
                Flow::Stop
            }
        }
    }

    fn try_visit(
        &mut self,
        root: &Root,
        parent: &Dir,
        name: &str,
        rel: &str,
        meta: &Metadata,
    ) -> Result<Flow, IndexError> {
        let full = self.held >= self.limits.max_files;
        if full && self.when_full == WhenFull::Stop {
            self.report.truncated = true;
            return Ok(Flow::Stop);
        }
        let path = root.path_of(rel);
        self.report.scanned += 1;
        (self.progress)(&Progress { done: self.report.scanned, path: path.clone() });
        let old = self.existing.remove(&path);
        let counts_kept = self.when_full == WhenFull::Stop;
        if let Some(o) = old
            && !self.force
            && o.stamp == Stamp::of(meta)
        {
            self.report.unchanged += 1;
            self.held += u64::from(counts_kept);
            return Ok(Flow::Continue);
        }
        if old.is_none() && full {
            let why = format!("the index is full (it holds at most {} entries)", self.limits.max_files);
            self.report.skip(path, why);
            return Ok(Flow::Continue);
        }
        match extract(parent, name, meta, self.limits) {
            Ok(x) => {
                store::put(self.conn, old.map(|o| o.id), &path, name, &folders(root, rel), &x, self.now_ms)?;
                if old.is_some() {
                    self.report.updated += 1;
                } else {
                    self.report.added += 1;
                }
                self.held += u64::from(counts_kept || old.is_none());
            }
            Err(why) => {
                self.report.skip(path, why);
                if let Some(o) = old {
                    store::remove(self.conn, o.id)?;
                    self.report.removed += 1;
                    self.held = self.held.saturating_sub(u64::from(!counts_kept));
                }
            }
        }
        self.tx.wrote()?;
        Ok(Flow::Continue)
    }

    /// Removes every entry the walk did not see.
    fn drop_unseen(&mut self) -> Result<(), IndexError> {
        let unseen: Vec<Existing> = self.existing.drain().map(|(_, e)| e).collect();
        for e in unseen {
            store::remove(self.conn, e.id)?;
            self.report.removed += 1;
            self.held = self.held.saturating_sub(u64::from(self.when_full == WhenFull::Skip));
            self.tx.wrote()?;
        }
        Ok(())
    }

    /// Walks `dir` (the folder at `rel` in `root`), then surfaces any error the visitor met.
    fn walk(&mut self, root: &Root, dir: Dir, rel: &str) -> Result<Flow, IndexError> {
        let limits = self.limits;
        let flow = walk::walk(dir, rel, limits, &mut OnRoot { state: self, root });
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(flow),
        }
    }

    /// Removes `path` and everything below it.
    fn gone(&mut self, path: &str) -> Result<(), IndexError> {
        let n = store::remove_under(self.conn, path)?;
        self.report.removed += n;
        self.held = self.held.saturating_sub(n);
        self.tx.wrote()
    }

    /// Re-checks one path (`rel` in `root`; empty for the whole root).
    fn update_one(&mut self, root: &Root, rel: &str) -> Result<(), IndexError> {
        let path = root.path_of(rel);
        let dir = match crate::open_canonical_dir(&root.canonical) {
            Ok(d) => d,
            Err(e) => {
                self.report.skip(root.prefix.clone(), format!("the root cannot be opened: {e}"));
                return Ok(());
            }
        };
        if rel.is_empty() {
            self.existing = store::load_under(self.conn, &path, false)?;
            self.walk(root, dir, rel)?;
            return self.drop_unseen();
        }
        let names: Vec<&str> = rel.split(SEP).collect();
        if names.iter().any(|n| self.limits.skips(n)) {
            return self.gone(&path);
        }
        let Some((last, folders)) = names.split_last() else {
            return Ok(());
        };
        let mut dir = dir;
        for name in folders {
            match dir.symlink_metadata(name) {
                Ok(m) if m.is_dir() => match walk::enter(&dir, name, &m) {
                    Ok(sub) => dir = sub,
                    Err(why) => {
                        self.report.skip(path.clone(), why);
                        return self.gone(&path);
                    }
                },
                Ok(_) => return self.gone(&path),
                Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
                    return self.gone(&path);
                }
                Err(e) => {
                    self.report.skip(path.clone(), format!("cannot be inspected: {e}"));
                    return self.gone(&path);
                }
            }
        }
        let meta = match dir.symlink_metadata(last) {
            Ok(m) => m,
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => return self.gone(&path),
            Err(e) => {
                self.report.skip(path.clone(), format!("cannot be inspected: {e}"));
                return self.gone(&path);
            }
        };
        self.existing = store::load_under(self.conn, &path, true)?;
        if meta.is_dir() {
            match walk::enter(&dir, last, &meta) {
                Ok(sub) => {
                    self.walk(root, sub, rel)?;
                }
                Err(why) => self.report.skip(path.clone(), why),
            }
        } else if self.visit(root, &dir, last, rel, &meta) == Flow::Stop
            && let Some(e) = self.error.take()
        {
            return Err(e);
        }
        self.drop_unseen()
    }
}

struct OnRoot<'s, 'a> {
    state: &'s mut State<'a>,
    root: &'s Root,
}

impl Visitor for OnRoot<'_, '_> {
    fn entry(&mut self, parent: &Dir, name: &str, rel: &str, meta: &Metadata) -> Flow {
        self.state.visit(self.root, parent, name, rel, meta)
    }

    fn unreadable(&mut self, rel: &str, why: String) -> Flow {
        self.state.report.skip(self.root.path_of(rel), why);
        Flow::Continue
    }
}

/// Whether entries must be re-read because the text limit changed since they were indexed.
fn limit_changed(conn: &Connection, limits: &Limits) -> Result<bool, IndexError> {
    Ok(store::meta_get(conn, LIMIT_KEY)?.is_some_and(|v| v != limits.max_text_bytes.to_string()))
}

/// A full walk of every root; see the module essay.
pub(crate) fn sync_roots(
    conn: &Connection,
    index_path: &Path,
    roots: &[PathBuf],
    limits: &Limits,
    now_ms: u64,
    progress: &mut dyn FnMut(&Progress),
) -> Result<UpdateReport, IndexError> {
    let mut report = UpdateReport::default();
    let roots = roots::resolve(roots, &mut report);
    roots::check_outside(index_path, &roots)?;
    let force = limit_changed(conn, limits)?;
    let existing = store::load_all(conn)?;
    let tx = Tx::begin(conn)?;
    let mut state = State {
        conn,
        tx,
        limits,
        now_ms,
        force,
        existing,
        report,
        progress,
        held: 0,
        when_full: WhenFull::Stop,
        error: None,
    };
    for root in &roots {
        match crate::open_canonical_dir(&root.canonical) {
            Ok(dir) => {
                if state.walk(root, dir, "")? == Flow::Stop {
                    break;
                }
            }
            Err(e) => state.report.skip(root.prefix.clone(), format!("the root cannot be opened: {e}")),
        }
    }
    state.drop_unseen()?;
    store::meta_set(conn, "last_sync_ms", &now_ms.to_string())?;
    store::meta_set(conn, LIMIT_KEY, &limits.max_text_bytes.to_string())?;
    let State { tx, report, .. } = state;
    tx.commit()?;
    Ok(report)
}

/// Re-checks `paths`; see the module essay.
pub(crate) fn update_paths(
    conn: &Connection,
    index_path: &Path,
    roots: &[PathBuf],
    paths: &[PathBuf],
    limits: &Limits,
    now_ms: u64,
) -> Result<UpdateReport, IndexError> {
    let mut report = UpdateReport::default();
    let roots = roots::resolve(roots, &mut report);
    roots::check_outside(index_path, &roots)?;
    let targets = paths.iter().map(|p| roots::locate(&roots, p)).collect::<Result<Vec<_>, _>>()?;
    if targets.is_empty() {
        return Ok(report);
    }
    let force = limit_changed(conn, limits)?;
    let held = store::count(conn)?;
    let tx = Tx::begin(conn)?;
    let mut quiet = |_: &Progress| {};
    let mut state = State {
        conn,
        tx,
        limits,
        now_ms,
        force,
        existing: HashMap::new(),
        report,
        progress: &mut quiet,
        held,
        when_full: WhenFull::Skip,
        error: None,
    };
    for (root, rel) in targets {
        state.update_one(root, &rel)?;
    }
    let State { tx, report, .. } = state;
    tx.commit()?;
    Ok(report)
}
