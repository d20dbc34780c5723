//! Building a whole new index while the old one keeps answering, then swapping it in at once.
//!
//! A rebuild is the cure for an index that has drifted (a changed tokenizer, a damaged file, a
//! watcher that missed events), so it must not start from the old file, and a person asking
//! questions meanwhile should get the old answers rather than none. So:
//!
//! 1. The roots are checked first: the index file may not be inside one (nothing is written
//!    inside a root, not even a temporary file). Nor may the path hold someone else's database:
//!    a SQLite file with tables but no index (the ledger, say) is refused, untouched. A file
//!    that is not readable as SQLite at all is taken for a damaged index and replaced.
//! 2. The new index is built from scratch in a sibling, `<name>.rebuild` (a leftover from a
//!    crashed rebuild is deleted first), with no journal and no syncs — it is not the index yet,
//!    and a crash only leaves a file the next rebuild deletes.
//! 3. Its FTS segments are merged, it is switched to the normal journal, closed and fsynced.
//! 4. The old file is kept as `<name>.prev` (a hard link, so it costs no copy; a copy where the
//!    filesystem has no hard links), replacing the previous `.prev`. It is for a person to look
//!    at or fall back to (`Index::open` opens it); nothing reads it automatically, and it may be
//!    deleted at any time.
//! 5. `<name>.rebuild` is renamed over `<name>` — atomic: any open of the path sees either the
//!    old file or the new, never a mix or nothing — and the folder is fsynced so the rename
//!    survives a power cut. Where Windows refuses the rename (other connections hold the file),
//!    the new index is copied into the live file in one SQLite transaction instead
//!    ([`copy_into_place`]): the same all-or-nothing, by the live file's journal.
//!
//! Connections to the old file keep reading it until then; an `Index` moves to the new file on
//! its next call (see `index`). If any step before the rename fails, the old index is untouched.

use crate::error::IndexError;
use crate::index::Index;
use crate::limits::Limits;
use crate::report::{Progress, UpdateReport};
use crate::roots;
use crate::schema::{self, Mode};
use rusqlite::backup::{Backup, StepResult};
use rusqlite::{Connection, OpenFlags};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// `<index file name>.<suffix>`, beside it.
pub fn sibling(index_path: &Path, suffix: &str) -> Result<PathBuf, IndexError> {
    let name = index_path.file_name().ok_or_else(|| IndexError::BadPath {
        path: index_path.to_path_buf(),
        why: "the index path has no file name".into(),
    })?;
    let mut name = name.to_os_string();
    name.push(".");
    name.push(suffix);
    Ok(index_path.with_file_name(name))
}

fn remove_if_present(path: &Path) -> Result<(), IndexError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(IndexError::io("remove", path, &e)),
    }
}

/// SQLite's rollback journal of the database at `path`.
fn journal_of(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push("-journal");
    PathBuf::from(name)
}

/// Builds a new index of `roots` beside `index_path` and renames it into place; see the module
/// essay for the steps. Returns the build's report (everything in it is `added`).
pub fn rebuild(
    index_path: &Path,
    roots: &[PathBuf],
    limits: &Limits,
    now_ms: u64,
    progress: &mut dyn FnMut(&Progress),
) -> Result<UpdateReport, IndexError> {
    let mut ignored = UpdateReport::default();
    roots::check_outside(index_path, &roots::resolve(roots, &mut ignored))?;
    if index_path.exists()
        && let Some(reason) = schema::foreign(index_path)
    {
        return Err(IndexError::Corrupt { path: index_path.to_path_buf(), reason });
    }
    let tmp = sibling(index_path, "rebuild")?;
    let prev = sibling(index_path, "prev")?;
    remove_if_present(&tmp)?;
    remove_if_present(&journal_of(&tmp))?;
    let built = (|| {
        let mut fresh = Index::open_mode(&tmp, Mode::Build)?;
        let report = fresh.sync_roots(roots, limits, now_ms, progress)?;
        fresh.with(|c| schema::finish_build(c, &tmp))?;
        Ok::<_, IndexError>(report)
    })();
    let report = match built {
        Ok(r) => r,
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
    };
    // Opened for writing: Windows flushes a file only through a handle that may write to it
    // (a read-only one is "access denied").
    std::fs::OpenOptions::new()
        .write(true)
        .open(&tmp)
        .and_then(|f| f.sync_all())
        .map_err(|e| IndexError::io("fsync", &tmp, &e))?;
    if index_path.exists() {
        keep_previous(index_path, &prev)?;
    }
    swap_file(&tmp, index_path)?;
    Ok(report)
}

/// Keeps the index at `index_path` as `prev`: a hard link where the swap renames (it costs no
/// copy and the rename leaves the old file to it), else a copy read through SQLite (a
/// consistent one while other connections use the index). On Windows the swap may write the
/// new index into the live file in place ([`swap_file`]), which would change a linked `.prev`
/// too, so there it is always a copy.
fn keep_previous(index_path: &Path, prev: &Path) -> Result<(), IndexError> {
    remove_if_present(prev)?;
    if !cfg!(windows) && std::fs::hard_link(index_path, prev).is_ok() {
        return Ok(());
    }
    // A file SQLite cannot read (a damaged index, about to be replaced) is copied byte for byte.
    copy_index(index_path, prev).or_else(|_| {
        remove_if_present(prev)?;
        std::fs::copy(index_path, prev).map(|_| ()).map_err(|e| IndexError::io("keep a copy of", index_path, &e))
    })
}

/// A copy of the index at `from` as a new file `to`, read through SQLite.
fn copy_index(from: &Path, to: &Path) -> Result<(), IndexError> {
    let src = Connection::open_with_flags(from, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    src.backup(rusqlite::MAIN_DB, to, None).map_err(|e| IndexError::Io {
        step: "keep a copy of",
        path: from.to_path_buf(),
        reason: e.to_string(),
    })
}

/// Puts the rebuilt index `tmp` at `index_path` at once. A rename where the system allows it,
/// then the folder is synced so the rename survives a power cut. Windows refuses to rename
/// over a file another connection holds open (SQLite opens without `FILE_SHARE_DELETE`), and
/// the old index is meant to answer until this moment, so there the new index's pages are
/// copied into the live file through SQLite's backup API instead ([`copy_into_place`]).
fn swap_file(tmp: &Path, index_path: &Path) -> Result<(), IndexError> {
    match std::fs::rename(tmp, index_path) {
        Ok(()) => sync_folder(index_path),
        // Whatever Windows calls the refusal (access denied, a sharing violation), the copy is
        // right: it needs nothing of the rename, and it says what went wrong if it fails too.
        Err(_) if cfg!(windows) => {
            copy_into_place(tmp, index_path)?;
            remove_if_present(tmp)
        }
        Err(e) => Err(IndexError::io("rename the rebuilt index over", index_path, &e)),
    }
}

/// Copies the index at `from` over the live one at `to`, in place: one write transaction under
/// the live file's own rollback journal, so each connection reads the old index or the new one,
/// never a mix, and a crash midway leaves the old one. Connections that stay open see the new
/// index on their next read (SQLite notices the change and re-reads the schema).
pub(crate) fn copy_into_place(from: &Path, to: &Path) -> Result<(), IndexError> {
    let src = Connection::open_with_flags(from, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let mut dst = schema::connect(to, Mode::Live)?;
    let backup = Backup::new(&src, &mut dst)?;
    // Every page in one step, so one transaction. A reader mid-query holds the live file for a
    // moment: wait for it as long as a live connection waits for a lock.
    let deadline = Instant::now() + schema::BUSY_TIMEOUT;
    loop {
        match backup.step(-1)? {
            StepResult::Done => return Ok(()),
            StepResult::More => {}
            StepResult::Busy | StepResult::Locked if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(20));
            }
            // A lock that stayed past the deadline (the enum is non-exhaustive).
            _ => {
                return Err(IndexError::Io {
                    step: "copy the rebuilt index into",
                    path: to.to_path_buf(),
                    reason: format!("the index stayed locked by another connection for {:?}", schema::BUSY_TIMEOUT),
                });
            }
        }
    }
}

#[cfg(unix)]
fn sync_folder(index_path: &Path) -> Result<(), IndexError> {
    let folder = match index_path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    std::fs::File::open(folder).and_then(|f| f.sync_all()).map_err(|e| IndexError::io("fsync", folder, &e))
}

#[cfg(not(unix))]
fn sync_folder(_index_path: &Path) -> Result<(), IndexError> {
    // std cannot open a folder to fsync it on Windows; NTFS journals the rename itself.
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::query::Query;

    const NOW: u64 = 1_700_000_000_000;

    /// An index of one folder holding `name` with `words`, at `index`.
    fn index_of(dir: &Path, folder: &str, name: &str, words: &str, index: &Path) -> Index {
        let root = dunce::canonicalize(dir).unwrap().join(folder);
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join(name), words).unwrap();
        let mut idx = Index::open(index).unwrap();
        idx.sync_roots(&[root], &Limits::default(), NOW, &mut |_| {}).unwrap();
        idx
    }

    fn names(idx: &Index, text: &str) -> Vec<String> {
        let hits = idx.search(&Query::new(text), NOW).unwrap();
        hits.iter().map(|h| Path::new(&h.path).file_name().unwrap().to_string_lossy().into_owned()).collect()
    }

    /// Windows' swap, run on every system: a handle open on the live index reads the copied-in
    /// index on its next search, and the old one's words are gone, not mixed in.
    #[test]
    fn an_index_copied_into_the_live_file_is_what_an_open_handle_reads_next() {
        let dir = tempfile::tempdir().unwrap();
        let live_path = dir.path().join("index.sqlite");
        let live = index_of(dir.path(), "old", "alpha.txt", "apple", &live_path);
        let fresh_path = dir.path().join("index.sqlite.rebuild");
        drop(index_of(dir.path(), "new", "beta.txt", "banana", &fresh_path));
        assert_eq!(names(&live, "apple"), ["alpha.txt"]);
        copy_into_place(&fresh_path, &live_path).unwrap();
        assert_eq!(names(&live, "banana"), ["beta.txt"]);
        assert!(names(&live, "apple").is_empty(), "nothing of the old index is left");
        assert_eq!(names(&Index::open(&live_path).unwrap(), "banana"), ["beta.txt"], "and a new handle reads it too");
    }

    /// `.prev` as Windows keeps it (a copy, not a link) is the old index as it was, whatever the
    /// swap then writes into the live file.
    #[test]
    fn a_copied_previous_index_is_apart_from_the_live_file() {
        let dir = tempfile::tempdir().unwrap();
        let live_path = dir.path().join("index.sqlite");
        drop(index_of(dir.path(), "old", "alpha.txt", "apple", &live_path));
        let fresh_path = dir.path().join("index.sqlite.rebuild");
        drop(index_of(dir.path(), "new", "beta.txt", "banana", &fresh_path));
        let prev = dir.path().join("index.sqlite.prev");
        copy_index(&live_path, &prev).unwrap();
        copy_into_place(&fresh_path, &live_path).unwrap();
        let kept = Index::open(&prev).unwrap();
        assert_eq!(names(&kept, "apple"), ["alpha.txt"]);
        assert!(names(&kept, "banana").is_empty());
    }
}
