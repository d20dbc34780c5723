//! The allowed roots, as the index sees them, and where a path falls among them.
//!
//! Stored paths are absolute and spelled under each root's canonical path — the same spelling
//! the kernel's policy uses for its roots — so a hit's path can be handed straight to a tool and
//! a path prefix filter written against the policy's roots matches. A root nested inside another
//! is dropped: the outer walk already covers it, and walking it twice would index every file
//! below it twice.
//!
//! A watcher hands `update_paths` absolute paths, possibly spelled under the root as it was
//! configured (before canonicalisation); both spellings are recognised. A path with `..` in it
//! is refused rather than resolved: the index never asks the filesystem to interpret a path
//! outside a root handle.

use crate::error::IndexError;
use crate::report::UpdateReport;
use std::path::{Component, Path, PathBuf};

/// The separator of stored paths (and of relative paths inside the crate).
pub(crate) const SEP: char = std::path::MAIN_SEPARATOR;

/// One allowed root.
#[derive(Clone, Debug)]
pub(crate) struct Root {
    /// As the caller gave it.
    pub given: PathBuf,
    /// Canonical (symlinks resolved, absolute).
    pub canonical: PathBuf,
    /// `canonical` as text, without a trailing separator: the prefix of every stored path.
    pub prefix: String,
    /// The root folder's own name, indexed with every entry's folders ("Documents").
    pub label: String,
}

impl Root {
    /// The stored path of the entry at `rel` (relative, `SEP`-separated; empty for the root).
    pub(crate) fn path_of(&self, rel: &str) -> String {
        if rel.is_empty() { self.prefix.clone() } else { format!("{}{SEP}{rel}", self.prefix) }
    }
}

/// The usable roots among `roots`, in the order given; unusable ones are reported as skipped.
pub(crate) fn resolve(roots: &[PathBuf], report: &mut UpdateReport) -> Vec<Root> {
    let mut out: Vec<Root> = Vec::new();
    for given in roots {
        let shown = given.display().to_string();
        let canonical = match dunce::canonicalize(given) {
            Ok(c) if c.is_dir() => c,
            Ok(_) => {
                report.skip(shown, "the root is not a folder".into());
                continue;
            }
            Err(e) => {
                report.skip(shown, format!("the root cannot be opened: {e}"));
                continue;
            }
        };
        let Some(text) = canonical.to_str() else {
            report.skip(shown, "the root's path is not valid UTF-8".into());
            continue;
        };
        let prefix = text.trim_end_matches(SEP).to_string();
        let label = canonical.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        out.push(Root { given: given.clone(), canonical, prefix, label });
    }
    // Drop duplicates and roots inside other roots (component-wise `starts_with`).
    let mut kept: Vec<Root> = Vec::new();
    for r in out {
        if kept.iter().any(|k| r.canonical.starts_with(&k.canonical)) {
            continue;
        }
        kept.retain(|k| !k.canonical.starts_with(&r.canonical));
        kept.push(r);
    }
    kept
}

/// The root `path` lies in and its path relative to it (`SEP`-separated, empty for the root).
pub(crate) fn locate<'a>(roots: &'a [Root], path: &Path) -> Result<(&'a Root, String), IndexError> {
    let bad = |why: &str| IndexError::BadPath { path: path.to_path_buf(), why: why.to_string() };
    if !path.is_absolute() {
        return Err(bad("the path is relative; paths must be absolute"));
    }
    if path.components().any(|c| matches!(c, Component::ParentDir)) {
        return Err(bad("the path contains `..`"));
    }
    for root in roots {
        for base in [&root.canonical, &root.given] {
            let Ok(rest) = path.strip_prefix(base) else { continue };
            let mut parts = Vec::new();
            for c in rest.components() {
                match c {
                    Component::Normal(name) => {
                        parts.push(name.to_str().ok_or_else(|| bad("the path is not valid UTF-8"))?)
                    }
                    Component::CurDir => {}
                    _ => return Err(bad("the path has an unexpected component")),
                }
            }
            return Ok((root, parts.join(&SEP.to_string())));
        }
    }
    Err(IndexError::OutsideRoots { path: path.to_path_buf() })
}

/// Refuses an index file that would live inside one of `roots`.
pub(crate) fn check_outside(index: &Path, roots: &[Root]) -> Result<(), IndexError> {
    let absolute = match (index.parent(), index.file_name()) {
        (Some(parent), Some(name)) if !parent.as_os_str().is_empty() => {
            dunce::canonicalize(parent).map(|p| p.join(name)).unwrap_or_else(|_| index.to_path_buf())
        }
        _ => std::env::current_dir().map(|d| d.join(index)).unwrap_or_else(|_| index.to_path_buf()),
    };
    match roots.iter().find(|r| absolute.starts_with(&r.canonical)) {
        Some(r) => Err(IndexError::IndexInsideRoot { index: absolute, root: r.canonical.clone() }),
        None => Ok(()),
    }
}
