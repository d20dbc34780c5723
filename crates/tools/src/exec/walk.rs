//! Walking a folder the same way every time.
//!
//! Listing and duplicate search must never leave the folder they were pointed at, so the walk
//! does not follow symlinks (a link is reported as a link, and a link to `/` cannot turn a scan
//! of `~/Downloads` into a scan of the disk). The order is fixed — depth first, names sorted by
//! their bytes — so the same tree gives the same output on every run and every machine, and a
//! truncated listing is always the same prefix. A folder that cannot be read is reported, not
//! fatal: one locked sub-folder should not hide everything else.

pub(crate) use crate::confine::Kind;
use crate::confine::ReadFs;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug)]
pub(crate) struct Entry {
    pub path: PathBuf,
    pub kind: Kind,
    /// Bytes for a file, the target's length for a symlink, 0 for a folder.
    pub size: u64,
    pub modified_ms: Option<u64>,
}

#[derive(Debug, Default)]
pub(crate) struct Walk {
    /// Everything below the root (not the root itself), in walk order.
    pub entries: Vec<Entry>,
    /// Folders or entries that could not be read, with why.
    pub unreadable: Vec<(PathBuf, String)>,
    /// Whether the walk stopped at its limit with more left to see.
    pub truncated: bool,
}

/// Walks everything below `root`, stopping after `limit` entries.
pub(crate) fn walk(fs: &dyn ReadFs, root: &Path, limit: usize) -> Walk {
    let mut out = Walk::default();
    // A stack of folders still to list; each listing pushes its children in reverse so they pop
    // in sorted order (a pre-order walk).
    let mut stack: Vec<Entry> = vec![Entry { path: root.to_path_buf(), kind: Kind::Dir, size: 0, modified_ms: None }];
    let mut first = true;
    while let Some(entry) = stack.pop() {
        if !first {
            if out.entries.len() == limit {
                out.truncated = true;
                break;
            }
            out.entries.push(entry.clone());
        }
        first = false;
        if entry.kind != Kind::Dir {
            continue;
        }
        match list(fs, &entry.path) {
            Ok(mut children) => {
                children.reverse();
                stack.extend(children);
            }
            Err(why) => out.unreadable.push((entry.path.clone(), why)),
        }
    }
    out.unreadable.sort();
    out
}

/// The entries of one folder, sorted by name.
fn list(fs: &dyn ReadFs, dir: &Path) -> Result<Vec<Entry>, String> {
    let listed = fs.list(dir).map_err(|e| e.to_string())?;
    Ok(listed
        .into_iter()
        .map(|l| Entry { path: dir.join(&l.name), kind: l.kind, size: l.len, modified_ms: l.modified_ms })
        .collect())
}

/// The bytes of every regular file in a tree (for a file, its size).
pub(crate) fn total_bytes(fs: &dyn ReadFs, path: &Path) -> Result<u64, String> {
    let meta = fs.meta(path).map_err(|e| format!("cannot inspect {}: {e}", path.display()))?;
    match meta.kind {
        Kind::Dir => {
            let w = walk(fs, path, usize::MAX);
            Ok(w.entries.iter().filter(|e| e.kind == Kind::File).map(|e| e.size).sum())
        }
        Kind::File => Ok(meta.len),
        Kind::Symlink | Kind::Other => Ok(0),
    }
}
