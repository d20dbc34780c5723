//! Walking a folder the same way every time.
//!
//! Listing and duplicate search must never leave the folder they were pointed at, so the walk
//! does not follow symlinks (a link is reported as a link, and a link to `/` cannot turn a scan
//! of `~/Downloads` into a scan of the disk). The order is fixed — depth first, names sorted by
//! their bytes — so the same tree gives the same output on every run and every machine, and a
//! truncated listing is always the same prefix. A folder that cannot be read is reported, not
//! fatal: one locked sub-folder should not hide everything else.

use std::fs;
use std::path::{Path, PathBuf};

/// What a directory entry is, without following symlinks.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    File,
    Dir,
    Symlink,
    Other,
}

impl Kind {
    pub(crate) fn of(t: fs::FileType) -> Kind {
        if t.is_symlink() {
            Kind::Symlink
        } else if t.is_dir() {
            Kind::Dir
        } else if t.is_file() {
            Kind::File
        } else {
            Kind::Other
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::File => "file",
            Kind::Dir => "dir",
            Kind::Symlink => "symlink",
            Kind::Other => "other",
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Entry {
    pub path: PathBuf,
    pub kind: Kind,
    /// Bytes for a file, the target's length for a symlink, 0 for a folder.
    pub size: u64,
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
pub(crate) fn walk(root: &Path, limit: usize) -> Walk {
    let mut out = Walk::default();
    // A stack of folders still to list; each listing pushes its children in reverse so they pop
    // in sorted order (a pre-order walk).
    let mut stack: Vec<Entry> = vec![Entry { path: root.to_path_buf(), kind: Kind::Dir, size: 0 }];
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
        match list(&entry.path, &mut out.unreadable) {
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
fn list(dir: &Path, unreadable: &mut Vec<(PathBuf, String)>) -> Result<Vec<Entry>, String> {
    let mut children = Vec::new();
    for item in fs::read_dir(dir).map_err(|e| e.to_string())? {
        let item = match item {
            Ok(i) => i,
            Err(e) => {
                unreadable.push((dir.to_path_buf(), e.to_string()));
                continue;
            }
        };
        let path = item.path();
        // DirEntry::metadata does not follow symlinks.
        match item.metadata() {
            Ok(meta) => {
                let kind = Kind::of(meta.file_type());
                let size = if kind == Kind::Dir { 0 } else { meta.len() };
                children.push(Entry { path, kind, size });
            }
            Err(e) => unreadable.push((path, e.to_string())),
        }
    }
    children.sort_by(|a, b| a.path.as_os_str().as_encoded_bytes().cmp(b.path.as_os_str().as_encoded_bytes()));
    Ok(children)
}

/// The bytes of every regular file in a tree (for a file, its size).
pub(crate) fn total_bytes(path: &Path) -> Result<u64, String> {
    let meta = fs::symlink_metadata(path).map_err(|e| format!("cannot inspect {}: {e}", path.display()))?;
    match Kind::of(meta.file_type()) {
        Kind::Dir => {
            let w = walk(path, usize::MAX);
            Ok(w.entries.iter().filter(|e| e.kind == Kind::File).map(|e| e.size).sum())
        }
        Kind::File => Ok(meta.len()),
        Kind::Symlink | Kind::Other => Ok(0),
    }
}
