//! Moving one file or folder, even when it has to cross to another disk.
//!
//! A rename is the ideal move: atomic, instant, and it cannot leave half a file behind. But a
//! rename cannot cross filesystems (the quarantine folder may live on another disk than the
//! person's documents), and there the only way is copy then delete. That path is where data gets
//! lost, so it is careful: the copy never overwrites anything, it is made under a temporary name
//! beside the destination and renamed into place only once it is verified against the
//! original's content hash — a process killed mid-copy leaves `.<name>.smart-partial`, never a
//! truncated file under the real name — and if the original cannot be removed the copy is taken
//! back out, so a failed move leaves exactly what was there before.

use crate::confine::{Kind, ReadFs, Writer, is_missing};
use crate::fs_world::content_hash_in;
use std::io;
use std::path::Path;

/// The OS error a rename gives when the two paths are on different filesystems.
#[cfg(windows)]
const CROSS_DEVICE: i32 = 17; // ERROR_NOT_SAME_DEVICE
#[cfg(not(windows))]
const CROSS_DEVICE: i32 = 18; // EXDEV

/// Moves `from` to `to`. The caller has checked that `to` does not exist and its parent does.
pub(crate) fn move_path(w: Writer<'_>, from: &Path, to: &Path) -> Result<(), String> {
    match w.rename_new(from, to) {
        Ok(()) => Ok(()),
        Err(e) if is_cross_device(&e) => copy_then_remove(w, from, to),
        Err(e) => Err(format!("cannot move {} to {}: {e}", from.display(), to.display())),
    }
}

fn is_cross_device(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::CrossesDevices || e.raw_os_error() == Some(CROSS_DEVICE)
}

/// Where a cross-device copy of `to` is made before it is renamed into place.
pub(crate) fn partial_name(to: &Path) -> std::path::PathBuf {
    let mut name = std::ffi::OsString::from(".");
    name.push(to.file_name().unwrap_or_default());
    name.push(".smart-partial");
    to.with_file_name(name)
}

/// The cross-device move: copy under a temporary name, verify, rename into place, remove the
/// original. On failure nothing changed.
pub(crate) fn copy_then_remove(w: Writer<'_>, from: &Path, to: &Path) -> Result<(), String> {
    let hash_err = |e: smart_kernel::WorldError| e.0;
    let Some(before) = content_hash_in(&*w, from).map_err(hash_err)? else {
        return Err(format!("cannot move {}: it does not exist", from.display()));
    };
    if w.exists(to).unwrap_or(true) {
        return Err(format!("cannot move {} to {}: something already exists there", from.display(), to.display()));
    }
    let partial = partial_name(to);
    // A partial copy left by a move that was cut off before is only ever our own leftover.
    if w.exists(&partial).unwrap_or(false) {
        w.remove_any(&partial).map_err(|e| format!("cannot clear the old partial copy {}: {e}", partial.display()))?;
    }
    if let Err(why) = copy_entry(w, from, &partial, false) {
        let _ = w.remove_any(&partial);
        return Err(format!("cannot copy {} to {}: {why}", from.display(), to.display()));
    }
    match content_hash_in(&*w, &partial) {
        Ok(Some(after)) if after == before => {}
        _ => {
            let _ = w.remove_any(&partial);
            return Err(format!(
                "the copy of {} at {} does not match the original; the copy was removed and the original left in place",
                from.display(),
                to.display()
            ));
        }
    }
    if let Err(e) = w.rename_new(&partial, to) {
        let _ = w.remove_any(&partial);
        return Err(format!("cannot put the copy of {} in place at {}: {e}", from.display(), to.display()));
    }
    if let Err(e) = w.remove_any(from) {
        // A folder may be half removed: put back whatever is missing from the verified copy.
        if let Err(why) = restore_missing(w, to, from) {
            return Err(format!(
                "copied {} to {} but could not remove the original ({e}), and restoring it failed too ({why}); the complete copy is still at {}",
                from.display(),
                to.display(),
                to.display()
            ));
        }
        let _ = w.remove_any(to);
        return Err(format!(
            "cannot move {} to {}: the original could not be removed ({e}), so it was kept and the copy removed",
            from.display(),
            to.display()
        ));
    }
    Ok(())
}

/// Copies what is missing at `to` from `from` and checks the two match afterwards.
pub(crate) fn restore_missing(w: Writer<'_>, from: &Path, to: &Path) -> Result<(), String> {
    copy_entry(w, from, to, true)?;
    match (content_hash_in(&*w, from), content_hash_in(&*w, to)) {
        (Ok(Some(a)), Ok(Some(b))) if a == b => Ok(()),
        _ => Err(format!("{} does not match {} after restoring", to.display(), from.display())),
    }
}

/// Copies a file, symlink or folder tree. With `merge`, entries already present are kept.
fn copy_entry(w: Writer<'_>, from: &Path, to: &Path, merge: bool) -> Result<(), String> {
    let meta = w.meta(from).map_err(|e| format!("cannot inspect {}: {e}", from.display()))?;
    let exists = match w.meta(to) {
        Ok(_) => true,
        Err(e) if is_missing(&e) => false,
        Err(e) => return Err(format!("cannot inspect {}: {e}", to.display())),
    };
    match meta.kind {
        Kind::File => {
            if merge && exists {
                return Ok(());
            }
            copy_file(w, from, to, &meta)
        }
        Kind::Dir => {
            if !(merge && exists) {
                w.create_dir(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
            }
            let names = w.list(from).map_err(|e| format!("cannot list {}: {e}", from.display()))?;
            for l in names {
                copy_entry(w, &from.join(&l.name), &to.join(&l.name), merge)?;
            }
            match meta.permissions {
                Some(p) => {
                    w.set_permissions(to, p).map_err(|e| format!("cannot set permissions of {}: {e}", to.display()))
                }
                None => Ok(()),
            }
        }
        Kind::Symlink => {
            if merge && exists {
                return Ok(());
            }
            let target = w.read_link(from).map_err(|e| format!("cannot read the symlink {}: {e}", from.display()))?;
            w.symlink(&target, to).map_err(|e| format!("cannot create the symlink {}: {e}", to.display()))
        }
        Kind::Other => {
            Err(format!("{} is a special file (a pipe, socket or device) and cannot be copied", from.display()))
        }
    }
}

fn copy_file(w: Writer<'_>, from: &Path, to: &Path, meta: &crate::confine::Meta) -> Result<(), String> {
    let mut src = w.open(from).map_err(|e| format!("cannot open {}: {e}", from.display()))?;
    // create_new: a copy never overwrites anything.
    let mut dst = w.create_new(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
    io::copy(&mut src, &mut dst).map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), to.display()))?;
    dst.sync_all().map_err(|e| format!("cannot flush {}: {e}", to.display()))?;
    if let Some(ms) = meta.modified_ms {
        let _ = dst.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms));
    }
    match meta.permissions.clone() {
        Some(p) => w.set_permissions(to, p).map_err(|e| format!("cannot set permissions of {}: {e}", to.display())),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use crate::confine::Confined;
    use crate::fs_world::content_hash;
    use std::fs;

    fn confined(r: &Path) -> Confined {
        Confined::open(&[dunce::canonicalize(r).unwrap()]).unwrap()
    }

    #[test]
    fn the_copy_fallback_moves_a_tree_exactly() {
        let t = tempfile::tempdir().unwrap();
        let r = &dunce::canonicalize(t.path()).unwrap();
        let c = confined(r);
        fs::create_dir_all(r.join("src/deep/er")).unwrap();
        fs::write(r.join("src/a.txt"), b"alpha").unwrap();
        fs::write(r.join("src/deep/er/b.bin"), vec![7u8; 200_000]).unwrap();
        fs::create_dir(r.join("src/empty")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("a.txt", r.join("src/link")).unwrap();
        let before = content_hash(&r.join("src")).unwrap();
        copy_then_remove(c.writer(), &r.join("src"), &r.join("dst")).unwrap();
        assert!(!r.join("src").exists());
        assert_eq!(content_hash(&r.join("dst")).unwrap(), before);
        #[cfg(unix)]
        assert!(fs::symlink_metadata(r.join("dst/link")).unwrap().file_type().is_symlink());
    }

    #[test]
    fn the_copy_fallback_never_overwrites() {
        let t = tempfile::tempdir().unwrap();
        let r = &dunce::canonicalize(t.path()).unwrap();
        let c = confined(r);
        fs::write(r.join("a"), b"new").unwrap();
        fs::write(r.join("b"), b"precious").unwrap();
        assert!(copy_then_remove(c.writer(), &r.join("a"), &r.join("b")).is_err());
        assert_eq!(fs::read(r.join("b")).unwrap(), b"precious", "the destination was removed only if we made it");
        assert_eq!(fs::read(r.join("a")).unwrap(), b"new");
    }
}
