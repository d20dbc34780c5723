//! The two filesystem facts the kernel cannot compute itself: where a path really points, and
//! what is there now.
//!
//! The kernel confines every path to the allowed roots, but it can only compare strings. If the
//! string it compares is not where the filesystem will actually write, the confinement is a
//! fiction: a symlink inside a root pointing at `~/.ssh`, or `new/../../etc` under a folder that
//! does not exist yet, would pass a string check and land outside. So [`resolve`] follows every
//! symlink that exists and refuses the constructions it cannot follow honestly (`..` after a
//! missing folder, a path through a dangling symlink).
//!
//! Snapshot freshness and undo both ask "is this still exactly what it was?", for folders as well
//! as files (a plan may move a whole folder). [`content_hash`] answers with one hash per path: a
//! file's plain blake3 (the same a person gets from `b3sum`), and for a folder a hash over its
//! sorted tree, so a change anywhere inside changes the folder's hash. Folder, symlink and
//! special-file hashes use blake3's key-derivation mode with their own contexts, so no file's
//! bytes can ever hash to the same value as a folder.
//!
//! The runtime implements the kernel's `World` with these functions and the executors use the
//! same ones, so what the kernel checked and what an executor verifies cannot drift apart.

use crate::confine::{Ambient, Kind, ReadFs, is_missing};
use smart_kernel::{Hash, WorldError};
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

/// Longest path accepted, in bytes (the kernel refuses longer ones before asking).
pub const MAX_PATH_BYTES: usize = 4096;

const TREE_CONTEXT: &str = "smart-tools 2025 fs_world directory tree v1";
const SYMLINK_CONTEXT: &str = "smart-tools 2025 fs_world symlink target v1";
const SPECIAL_CONTEXT: &str = "smart-tools 2025 fs_world special file v1";

/// Resolves an absolute path: symlinks in the part that exists are followed (so the result is
/// where the filesystem would really go), and the part that does not exist yet is appended as
/// written, with `.` dropped. `..` in the missing part is refused, because there is nothing to
/// resolve it against, and so is a path that continues through a dangling symlink. A path whose
/// last component is itself a dangling symlink resolves to the link. Windows takes `..`
/// lexically before it looks (`C:\a\missing\..\b` is `C:\a\b`, and a junction is never
/// climbed out of by `..`), so there such a path resolves to what the system would open, which
/// the kernel then confines like any other.
pub fn resolve(raw: &str) -> Result<PathBuf, WorldError> {
    let fail = |why: String| Err(WorldError(why));
    if raw.is_empty() {
        return fail("an empty path cannot be resolved".into());
    }
    if raw.contains('\0') {
        return fail("a path containing a NUL byte cannot be resolved".into());
    }
    if raw.len() > MAX_PATH_BYTES {
        return fail(format!("a path of {} bytes is longer than the {MAX_PATH_BYTES} allowed", raw.len()));
    }
    let path = Path::new(raw);
    if !path.is_absolute() {
        return fail(format!("{raw:?} is relative; paths must be absolute"));
    }
    let components: Vec<Component> = path.components().collect();
    for keep in (1..=components.len()).rev() {
        let prefix: PathBuf = components[..keep].iter().collect();
        match dunce::canonicalize(&prefix) {
            Ok(base) => return append_missing(raw, base, &components[keep..]),
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return fail(format!("{raw} cannot be resolved: {}: {e}", prefix.display())),
        }
    }
    fail(format!("{raw} cannot be resolved: not even its root exists"))
}

/// Appends the components that do not exist below `base` (the canonical deepest ancestor).
fn append_missing(raw: &str, base: PathBuf, missing: &[Component]) -> Result<PathBuf, WorldError> {
    // Nothing is below a file. Unix says so while canonicalising ("not a directory"); Windows
    // says only "not found", which would make the file the deepest existing ancestor.
    if missing.iter().any(|c| matches!(c, Component::Normal(_))) && !base.is_dir() {
        return Err(WorldError(format!("{raw} cannot be resolved: {} is not a folder", base.display())));
    }
    let mut out = base;
    for (i, component) in missing.iter().enumerate() {
        match component {
            Component::Normal(name) => {
                out.push(name);
                let more_follow =
                    missing[i + 1..].iter().any(|c| matches!(c, Component::Normal(_) | Component::ParentDir));
                if more_follow
                    && let Ok(meta) = fs::symlink_metadata(&out)
                    && meta.file_type().is_symlink()
                {
                    return Err(WorldError(format!(
                        "{raw} cannot be resolved: {} is a symlink to something that does not exist",
                        out.display()
                    )));
                }
            }
            Component::CurDir => {}
            Component::ParentDir => {
                return Err(WorldError(format!(
                    "{raw} cannot be resolved: `..` follows {}, which does not exist",
                    out.display()
                )));
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(WorldError(format!("{raw} cannot be resolved: unexpected root inside the path")));
            }
        }
    }
    Ok(out)
}

/// The content hash of whatever is at `path` now, without following a symlink at `path` itself:
/// `None` when nothing is there, a file's blake3, a folder's tree hash, a symlink's target hash.
pub fn content_hash(path: &Path) -> Result<Option<Hash>, WorldError> {
    content_hash_in(&Ambient, path)
}

/// [`content_hash`] through any [`ReadFs`] (executors pass their confined [`crate::confine::Reader`]).
pub fn content_hash_in(fs: &dyn ReadFs, path: &Path) -> Result<Option<Hash>, WorldError> {
    let meta = match fs.meta(path) {
        Ok(m) => m,
        Err(e) if is_missing(&e) => return Ok(None),
        Err(e) => return Err(WorldError(format!("cannot inspect {}: {e}", path.display()))),
    };
    hash_entry(fs, path, meta.kind).map(Some)
}

/// The most entries looked through for something sensitive inside a folder a call changes;
/// past it the folder counts as holding something.
pub const MAX_LOOK_INSIDE: usize = 100_000;

/// The first entry beneath the folder `path` whose name `sensitive` picks out, walking without
/// following links (see [`smart_kernel::World::sensitive_within`]).
pub fn sensitive_within(path: &Path, sensitive: &dyn Fn(&str) -> bool) -> Result<Option<PathBuf>, WorldError> {
    let cannot = |p: &Path, e: io::Error| WorldError(format!("cannot look inside {}: {e}", p.display()));
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Ok(None),
        Err(e) if is_missing(&e) => return Ok(None),
        Err(e) => return Err(cannot(path, e)),
    }
    let mut stack = vec![path.to_path_buf()];
    let mut seen = 0usize;
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).map_err(|e| cannot(&dir, e))? {
            let entry = entry.map_err(|e| cannot(&dir, e))?;
            seen += 1;
            if seen > MAX_LOOK_INSIDE {
                return Ok(Some(path.to_path_buf()));
            }
            if sensitive(&entry.file_name().to_string_lossy()) {
                return Ok(Some(entry.path()));
            }
            // `file_type` does not follow links: a link to a folder is not walked into.
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(entry.path());
            }
        }
    }
    Ok(None)
}

/// The blake3 of a regular file's bytes, read in a stream.
pub fn file_hash(path: &Path) -> Result<Hash, WorldError> {
    file_hash_in(&Ambient, path)
}

/// [`file_hash`] through any [`ReadFs`].
pub fn file_hash_in(fs: &dyn ReadFs, path: &Path) -> Result<Hash, WorldError> {
    let file = fs.open(path).map_err(|e| WorldError(format!("cannot open {}: {e}", path.display())))?;
    let mut hasher = blake3::Hasher::new();
    hasher.update_reader(file).map_err(|e| WorldError(format!("cannot read {}: {e}", path.display())))?;
    Ok(Hash(*hasher.finalize().as_bytes()))
}

fn hash_entry(fs: &dyn ReadFs, path: &Path, kind: Kind) -> Result<Hash, WorldError> {
    match kind {
        Kind::File => file_hash_in(fs, path),
        Kind::Dir => tree_hash(fs, path),
        Kind::Symlink => {
            let target = fs
                .read_link(path)
                .map_err(|e| WorldError(format!("cannot read the symlink {}: {e}", path.display())))?;
            let mut hasher = blake3::Hasher::new_derive_key(SYMLINK_CONTEXT);
            hasher.update(target.as_os_str().as_encoded_bytes());
            Ok(Hash(*hasher.finalize().as_bytes()))
        }
        // A FIFO, socket or device: reading it could block or never end, so only its existence
        // counts.
        Kind::Other => Ok(Hash(*blake3::Hasher::new_derive_key(SPECIAL_CONTEXT).finalize().as_bytes())),
    }
}

/// A folder's hash: over its entries sorted by name, each as (name, kind, hash), recursing into
/// sub-folders and never following symlinks.
fn tree_hash(fs: &dyn ReadFs, dir: &Path) -> Result<Hash, WorldError> {
    let entries = fs.list(dir).map_err(|e| WorldError(format!("cannot list {}: {e}", dir.display())))?;
    let mut hasher = blake3::Hasher::new_derive_key(TREE_CONTEXT);
    hasher.update(&(entries.len() as u64).to_le_bytes());
    for entry in entries {
        let child = dir.join(&entry.name);
        let tag: u8 = match entry.kind {
            Kind::File => b'f',
            Kind::Dir => b'd',
            Kind::Symlink => b'l',
            Kind::Other => b'o',
        };
        let bytes = entry.name.as_encoded_bytes();
        hasher.update(&(bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
        hasher.update(&[tag]);
        hasher.update(&hash_entry(fs, &child, entry.kind)?.0);
    }
    Ok(Hash(*hasher.finalize().as_bytes()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    fn root() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let canonical = dunce::canonicalize(dir.path()).unwrap();
        (dir, canonical)
    }

    fn s(p: &Path) -> &str {
        p.to_str().unwrap()
    }

    #[test]
    fn resolve_keeps_missing_suffixes_and_drops_dots() {
        let (_t, r) = root();
        fs::create_dir(r.join("a")).unwrap();
        let raw = format!("{}/./a/./new/file.txt", s(&r));
        assert_eq!(resolve(&raw).unwrap(), r.join("a/new/file.txt"));
        let raw = format!("{}/a/../a", s(&r));
        assert_eq!(resolve(&raw).unwrap(), r.join("a"), "`..` over existing folders is fine");
    }

    #[test]
    fn resolve_refuses_dotdot_after_a_missing_folder_and_relative_paths() {
        let (_t, r) = root();
        let raw = format!("{}/missing/../../etc", s(&r));
        if cfg!(windows) {
            let parent = r.parent().unwrap();
            assert_eq!(resolve(&raw).unwrap(), parent.join("etc"), "Windows reads `..` lexically");
        } else {
            let err = resolve(&raw).unwrap_err();
            assert!(err.0.contains("`..`"), "{err}");
        }
        assert!(resolve("relative/path").unwrap_err().0.contains("relative"));
        assert!(resolve("").is_err());
        assert!(resolve("/a\0b").is_err());
        assert!(resolve(&format!("/{}", "x".repeat(MAX_PATH_BYTES))).is_err());
    }

    #[test]
    fn resolve_refuses_a_path_through_a_file() {
        let (_t, r) = root();
        fs::write(r.join("f"), b"x").unwrap();
        let err = resolve(&format!("{}/f/child", s(&r))).unwrap_err();
        assert!(err.0.contains("cannot be resolved"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn resolve_refuses_a_path_through_a_dangling_symlink_but_names_the_link_itself() {
        let (_t, r) = root();
        std::os::unix::fs::symlink("/nonexistent-smart-target", r.join("dangling")).unwrap();
        let err = resolve(&format!("{}/dangling/x", s(&r))).unwrap_err();
        assert!(err.0.contains("symlink"), "{err}");
        assert_eq!(resolve(&format!("{}/dangling", s(&r))).unwrap(), r.join("dangling"));
    }

    #[test]
    fn content_hash_of_files_is_plain_blake3_and_none_when_missing() {
        let (_t, r) = root();
        fs::write(r.join("f"), b"hello").unwrap();
        assert_eq!(content_hash(&r.join("f")).unwrap(), Some(Hash::of_bytes(b"hello")));
        assert_eq!(content_hash(&r.join("nothing")).unwrap(), None);
        assert_eq!(content_hash(&r.join("f/below")).unwrap(), None);
    }

    #[test]
    fn folder_hash_sees_nested_changes_renames_and_new_empty_folders_but_not_its_own_name() {
        let (_t, r) = root();
        fs::create_dir_all(r.join("d/sub")).unwrap();
        fs::write(r.join("d/sub/x"), b"1").unwrap();
        let h0 = content_hash(&r.join("d")).unwrap().unwrap();
        assert_ne!(h0, Hash::of_bytes(b"1"));
        fs::write(r.join("d/sub/x"), b"2").unwrap();
        let h1 = content_hash(&r.join("d")).unwrap().unwrap();
        assert_ne!(h0, h1, "a nested edit changes the folder hash");
        fs::rename(r.join("d/sub/x"), r.join("d/sub/y")).unwrap();
        let h2 = content_hash(&r.join("d")).unwrap().unwrap();
        assert_ne!(h1, h2, "a rename inside changes it");
        fs::create_dir(r.join("d/empty")).unwrap();
        let h3 = content_hash(&r.join("d")).unwrap().unwrap();
        assert_ne!(h2, h3, "an empty folder counts");
        fs::rename(r.join("d"), r.join("e")).unwrap();
        assert_eq!(content_hash(&r.join("e")).unwrap(), Some(h3), "the folder's own name is not part of it");
    }

    #[test]
    fn the_kernel_and_the_executors_hash_alike() {
        let (_t, r) = root();
        fs::create_dir_all(r.join("d/sub")).unwrap();
        fs::write(r.join("d/sub/x"), b"1").unwrap();
        fs::write(r.join("d/y"), b"2").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("y", r.join("d/link")).unwrap();
        let c = crate::confine::Confined::open(std::slice::from_ref(&r)).unwrap();
        for p in ["d", "d/sub/x", "d/link", "missing"] {
            assert_eq!(content_hash(&r.join(p)).unwrap(), content_hash_in(&c.reader(), &r.join(p)).unwrap(), "{p}");
        }
    }
}
