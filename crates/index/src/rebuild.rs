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
//!    survives a power cut.
//!
//! Connections to the old file keep reading it until then; an `Index` moves to the new file on
//! its next call (see `index`). If any step before the rename fails, the old index is untouched.

use crate::error::IndexError;
use crate::index::Index;
use crate::limits::Limits;
use crate::report::{Progress, UpdateReport};
use crate::roots;
use crate::schema::{self, Mode};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

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
        remove_if_present(&prev)?;
        if std::fs::hard_link(index_path, &prev).is_err() {
            std::fs::copy(index_path, &prev).map_err(|e| IndexError::io("keep a copy of", index_path, &e))?;
        }
    }
    std::fs::rename(&tmp, index_path).map_err(|e| IndexError::io("rename the rebuilt index over", index_path, &e))?;
    sync_folder(index_path)?;
    Ok(report)
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
