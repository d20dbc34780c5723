//! Walking a root through a capability handle, the same way every time.
//!
//! The index must never read outside the folders the person allowed, even while those folders
//! change under it. Paths are the wrong tool for that: between listing `reports/` and reading
//! `reports/q3.md`, `reports` can be swapped for a symlink to `/etc`, and a path-based walk would
//! follow it. So the walk holds an open `cap_std::fs::Dir` for each folder it is in and opens
//! children by *name* relative to that handle. cap-std resolves every open beneath the handle
//! (on Linux with `openat2(RESOLVE_BENEATH)`), so even a swap that wins the race cannot reach
//! outside the folder being listed, let alone the root.
//!
//! Symlinks are never followed: the listing's metadata is taken without following (`lstat`), a
//! link is handed to the visitor as a link (indexed by name and metadata), and a folder is
//! entered only when the entry is a real folder — and, on Unix, only when the handle opened is
//! the same inode the listing saw, so a folder replaced by a link between the two is reported
//! as changed rather than entered.
//!
//! The order is fixed: depth first, names sorted by their bytes. The same tree gives the same
//! walk on every run, so a walk cut short by `max_files` always keeps the same prefix. Folders
//! named in `Limits::skip_dirs` are not entered. A folder that cannot be listed is reported to
//! the visitor and the walk goes on.

use crate::limits::Limits;
use crate::roots::SEP;
use cap_std::fs::{Dir, Metadata};

/// Whether the visitor wants the walk to go on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    Continue,
    Stop,
}

/// Receives the walk's entries, in walk order.
pub(crate) trait Visitor {
    /// A non-folder entry `name` (relative path `rel`) of the folder `parent`, with its metadata
    /// taken without following symlinks.
    fn entry(&mut self, parent: &Dir, name: &str, rel: &str, meta: &Metadata) -> Flow;
    /// A folder or entry that could not be listed, entered or named.
    fn unreadable(&mut self, rel: &str, why: String) -> Flow;
}

/// `rel` joined with a child name.
pub(crate) fn join(rel: &str, name: &str) -> String {
    if rel.is_empty() { name.to_string() } else { format!("{rel}{SEP}{name}") }
}

struct Frame {
    dir: Dir,
    rel: String,
    entries: std::vec::IntoIter<(String, Metadata)>,
}

/// Walks everything below the open folder `dir`, whose relative path is `rel`.
pub(crate) fn walk(dir: Dir, rel: &str, limits: &Limits, v: &mut dyn Visitor) -> Flow {
    let mut stack: Vec<Frame> = Vec::new();
    match list(&dir, rel, v) {
        Ok(entries) => stack.push(Frame { dir, rel: rel.to_string(), entries: entries.into_iter() }),
        Err(flow) => return flow,
    }
    while let Some(frame) = stack.last_mut() {
        let Some((name, meta)) = frame.entries.next() else {
            stack.pop();
            continue;
        };
        let child = join(&frame.rel, &name);
        if !meta.is_dir() {
            if v.entry(&frame.dir, &name, &child, &meta) == Flow::Stop {
                return Flow::Stop;
            }
            continue;
        }
        if limits.skips(&name) {
            continue;
        }
        let sub = match enter(&frame.dir, &name, &meta) {
            Ok(sub) => sub,
            Err(why) => {
                if v.unreadable(&child, why) == Flow::Stop {
                    return Flow::Stop;
                }
                continue;
            }
        };
        match list(&sub, &child, v) {
            Ok(entries) => stack.push(Frame { dir: sub, rel: child, entries: entries.into_iter() }),
            Err(Flow::Stop) => return Flow::Stop,
            Err(Flow::Continue) => {}
        }
    }
    Flow::Continue
}

/// Opens the sub-folder `name` of `parent`, which the listing saw as the folder `seen`.
pub(crate) fn enter(parent: &Dir, name: &str, seen: &Metadata) -> Result<Dir, String> {
    let sub = parent.open_dir(name).map_err(|e| format!("the folder cannot be opened: {e}"))?;
    let now = sub.dir_metadata().map_err(|e| format!("the folder cannot be inspected: {e}"))?;
    if !same_object(seen, &now) {
        return Err("the folder was replaced while it was being walked".into());
    }
    Ok(sub)
}

/// The entries of `dir`, sorted by name; failures go to the visitor. `Err` carries the
/// visitor's wish when the folder itself could not be listed.
fn list(dir: &Dir, rel: &str, v: &mut dyn Visitor) -> Result<Vec<(String, Metadata)>, Flow> {
    let listing = match dir.entries() {
        Ok(l) => l,
        Err(e) => return Err(v.unreadable(rel, format!("the folder cannot be listed: {e}"))),
    };
    let mut out = Vec::new();
    for item in listing {
        let item = match item {
            Ok(i) => i,
            Err(e) => {
                if v.unreadable(rel, format!("the folder could not be listed to the end: {e}")) == Flow::Stop {
                    return Err(Flow::Stop);
                }
                continue;
            }
        };
        let raw = item.file_name();
        let Some(name) = raw.to_str() else {
            let shown = join(rel, &raw.to_string_lossy());
            if v.unreadable(&shown, "the name is not valid UTF-8".into()) == Flow::Stop {
                return Err(Flow::Stop);
            }
            continue;
        };
        // `DirEntry::metadata` does not follow symlinks.
        match item.metadata() {
            Ok(meta) => out.push((name.to_string(), meta)),
            Err(e) => {
                if v.unreadable(&join(rel, name), format!("cannot be inspected: {e}")) == Flow::Stop {
                    return Err(Flow::Stop);
                }
            }
        }
    }
    out.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    Ok(out)
}

/// Whether two metadata describe the same filesystem object (always true where the platform
/// gives no identity; cap-std's beneath-resolution is then the only guard).
#[cfg(unix)]
pub(crate) fn same_object(a: &Metadata, b: &Metadata) -> bool {
    use cap_std::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
pub(crate) fn same_object(_a: &Metadata, _b: &Metadata) -> bool {
    true
}
