//! Moving one file or folder, even when it has to cross to another disk.
//!
//! A rename is the ideal move: atomic, instant, and it cannot leave half a file behind. But a
//! rename cannot cross filesystems (the quarantine folder may live on another disk than the
//! person's documents), and there the only way is copy then delete. That path is where data gets
//! lost, so it is careful: the copy never overwrites anything, it is verified against the
//! original's content hash before the original is removed, and if the original cannot be
//! removed the copy is taken back out, so a failed move leaves exactly what was there before.

use crate::exec::walk::Kind;
use crate::fs_world::content_hash;
use std::fs;
use std::io;
use std::path::Path;

/// The OS error a rename gives when the two paths are on different filesystems.
#[cfg(windows)]
const CROSS_DEVICE: i32 = 17; // ERROR_NOT_SAME_DEVICE
#[cfg(not(windows))]
const CROSS_DEVICE: i32 = 18; // EXDEV

/// Moves `from` to `to`. The caller has checked that `to` does not exist and its parent does.
pub(crate) fn move_path(from: &Path, to: &Path) -> Result<(), String> {
    match fs::rename(from, to) {
        Ok(()) => Ok(()),
        Err(e) if is_cross_device(&e) => copy_then_remove(from, to),
        Err(e) => Err(format!("cannot move {} to {}: {e}", from.display(), to.display())),
    }
}

fn is_cross_device(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::CrossesDevices || e.raw_os_error() == Some(CROSS_DEVICE)
}

/// The cross-device move: copy, verify, remove the original. On failure nothing changed.
pub(crate) fn copy_then_remove(from: &Path, to: &Path) -> Result<(), String> {
    let hash_err = |e: smart_kernel::WorldError| e.0;
    let Some(before) = content_hash(from).map_err(hash_err)? else {
        return Err(format!("cannot move {}: it does not exist", from.display()));
    };
    if fs::symlink_metadata(to).is_ok() {
        return Err(format!("cannot move {} to {}: something already exists there", from.display(), to.display()));
    }
    if let Err(why) = copy_tree(from, to) {
        let _ = remove_any(to);
        return Err(format!("cannot copy {} to {}: {why}", from.display(), to.display()));
    }
    match content_hash(to) {
        Ok(Some(after)) if after == before => {}
        _ => {
            let _ = remove_any(to);
            return Err(format!(
                "the copy of {} at {} does not match the original; the copy was removed and the original left in place",
                from.display(),
                to.display()
            ));
        }
    }
    if let Err(e) = remove_any(from) {
        // The original may now be partly gone (a folder): put back what is missing from the
        // verified copy before taking the copy away.
        if let Err(why) = restore_missing(to, from) {
            return Err(format!(
                "copied {} to {} but could not remove the original ({e}), and restoring it failed too ({why}); the complete copy is still at {}",
                from.display(),
                to.display(),
                to.display()
            ));
        }
        let _ = remove_any(to);
        return Err(format!(
            "cannot move {} to {}: the original could not be removed ({e}), so it was kept and the copy removed",
            from.display(),
            to.display()
        ));
    }
    Ok(())
}

/// Copies `from` to `to`, which must not exist: files with their permissions and modification
/// time, folders recursively, symlinks as symlinks.
pub(crate) fn copy_tree(from: &Path, to: &Path) -> Result<(), String> {
    copy_entry(from, to, false)
}

/// Copies whatever of `from` is missing at `to`, leaving what exists there alone.
fn restore_missing(from: &Path, to: &Path) -> Result<(), String> {
    copy_entry(from, to, true)?;
    match (content_hash(from), content_hash(to)) {
        (Ok(Some(a)), Ok(Some(b))) if a == b => Ok(()),
        _ => Err(format!("{} does not match {} after restoring", to.display(), from.display())),
    }
}

fn copy_entry(from: &Path, to: &Path, merge: bool) -> Result<(), String> {
    let meta = fs::symlink_metadata(from).map_err(|e| format!("cannot inspect {}: {e}", from.display()))?;
    let exists = fs::symlink_metadata(to).is_ok();
    match Kind::of(meta.file_type()) {
        Kind::File => {
            if merge && exists {
                return Ok(());
            }
            copy_file(from, to, &meta)
        }
        Kind::Dir => {
            if !(merge && exists) {
                fs::create_dir(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
            }
            let mut names = Vec::new();
            for item in fs::read_dir(from).map_err(|e| format!("cannot list {}: {e}", from.display()))? {
                names.push(item.map_err(|e| format!("cannot list {}: {e}", from.display()))?.file_name());
            }
            names.sort();
            for name in names {
                copy_entry(&from.join(&name), &to.join(&name), merge)?;
            }
            // Last, so a read-only folder can still be filled first.
            fs::set_permissions(to, meta.permissions())
                .map_err(|e| format!("cannot set permissions of {}: {e}", to.display()))
        }
        Kind::Symlink => {
            if merge && exists {
                return Ok(());
            }
            let target = fs::read_link(from).map_err(|e| format!("cannot read the symlink {}: {e}", from.display()))?;
            make_symlink(&target, to)
        }
        Kind::Other => {
            Err(format!("{} is a special file (a pipe, socket or device) and cannot be copied", from.display()))
        }
    }
}

fn copy_file(from: &Path, to: &Path, meta: &fs::Metadata) -> Result<(), String> {
    let mut src = fs::File::open(from).map_err(|e| format!("cannot open {}: {e}", from.display()))?;
    // create_new: a copy never overwrites anything.
    let mut dst = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(to)
        .map_err(|e| format!("cannot create {}: {e}", to.display()))?;
    io::copy(&mut src, &mut dst).map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), to.display()))?;
    dst.sync_all().map_err(|e| format!("cannot flush {}: {e}", to.display()))?;
    if let Ok(modified) = meta.modified() {
        let _ = dst.set_modified(modified);
    }
    fs::set_permissions(to, meta.permissions()).map_err(|e| format!("cannot set permissions of {}: {e}", to.display()))
}

#[cfg(unix)]
fn make_symlink(target: &Path, at: &Path) -> Result<(), String> {
    std::os::unix::fs::symlink(target, at).map_err(|e| format!("cannot create the symlink {}: {e}", at.display()))
}

#[cfg(windows)]
fn make_symlink(target: &Path, at: &Path) -> Result<(), String> {
    let resolved = at.parent().map(|p| p.join(target)).unwrap_or_else(|| target.to_path_buf());
    let made = if resolved.is_dir() {
        std::os::windows::fs::symlink_dir(target, at)
    } else {
        std::os::windows::fs::symlink_file(target, at)
    };
    made.map_err(|e| format!("cannot create the symlink {}: {e}", at.display()))
}

#[cfg(not(any(unix, windows)))]
fn make_symlink(_target: &Path, at: &Path) -> Result<(), String> {
    Err(format!("cannot create the symlink {}: this platform has no symlinks", at.display()))
}

/// Removes a file, symlink or whole folder.
pub(crate) fn remove_any(path: &Path) -> io::Result<()> {
    let meta = fs::symlink_metadata(path)?;
    if meta.file_type().is_dir() { fs::remove_dir_all(path) } else { fs::remove_file(path) }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn the_copy_fallback_moves_a_tree_exactly() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        fs::create_dir_all(r.join("src/deep/er")).unwrap();
        fs::write(r.join("src/a.txt"), b"alpha").unwrap();
        fs::write(r.join("src/deep/er/b.bin"), vec![7u8; 200_000]).unwrap();
        fs::create_dir(r.join("src/empty")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("a.txt", r.join("src/link")).unwrap();
        let before = content_hash(&r.join("src")).unwrap();
        copy_then_remove(&r.join("src"), &r.join("dst")).unwrap();
        assert!(!r.join("src").exists());
        assert_eq!(content_hash(&r.join("dst")).unwrap(), before);
        #[cfg(unix)]
        assert!(fs::symlink_metadata(r.join("dst/link")).unwrap().file_type().is_symlink());
    }

    #[test]
    fn the_copy_fallback_never_overwrites() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        fs::write(r.join("a"), b"new").unwrap();
        fs::write(r.join("b"), b"precious").unwrap();
        assert!(copy_then_remove(&r.join("a"), &r.join("b")).is_err());
        assert_eq!(fs::read(r.join("b")).unwrap(), b"precious", "the destination was removed only if we made it");
        assert_eq!(fs::read(r.join("a")).unwrap(), b"new");
    }
}
