//! Opening a root as a handle, without following a link to get there.
//!
//! Everything beneath a root is reached through a `cap_std::fs::Dir` held on it, which refuses
//! any path that would leave it — but the root itself has to be opened by its path first, and
//! the attack run went around the wall there: a loop exchanging the root folder with a symlink
//! to an outside folder (`renameat2(RENAME_EXCHANGE)`) made `fs.read` return the outside file
//! and `apply.patch` write to it, because opening the root followed the link. Roots are
//! canonical — no component of them was a link when SMART resolved them — so a link anywhere in
//! one now means it was swapped: each component is opened beneath the one before with
//! `O_NOFOLLOW`, and a link fails the open with a message that says so. The executors' areas
//! and the library's walk both open their roots here.
//!
//! What it cannot see: a real folder renamed into the root's place (no link anywhere) is, from
//! then on, the folder at that path, and is treated as the root.

use cap_std::fs::Dir;
use std::io;
use std::path::Path;
#[cfg(unix)]
use std::{
    fs,
    path::{Component, PathBuf},
};

/// Opens a canonical folder as a handle without following a symbolic link anywhere on the way.
#[cfg(unix)]
pub fn open_canonical_dir(root: &Path) -> io::Result<Dir> {
    use rustix::fs::{Mode, OFlags, openat};
    if !root.is_absolute() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not an absolute folder", root.display()),
        ));
    }
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut at = rustix::fs::open("/", flags, Mode::empty())?;
    for c in root.components() {
        match c {
            Component::RootDir => {}
            Component::Normal(name) => {
                at = openat(&at, name, flags, Mode::empty()).map_err(|e| {
                    if e == rustix::io::Errno::LOOP || (e == rustix::io::Errno::NOTDIR && is_link(root, c)) {
                        io::Error::new(
                            io::ErrorKind::PermissionDenied,
                            format!(
                                "{} is reached through a symbolic link now, not the folder SMART was given; \
                                 nothing was done there",
                                root.display()
                            ),
                        )
                    } else {
                        e.into()
                    }
                })?
            }
            _ => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{} is not a canonical folder", root.display()),
                ));
            }
        }
    }
    Ok(Dir::from_std_file(fs::File::from(at)))
}

/// Whether the part of `root` up to and including `component` is a symbolic link (for the
/// message only: the open has already failed).
#[cfg(unix)]
fn is_link(root: &Path, component: Component<'_>) -> bool {
    let mut upto = PathBuf::new();
    for c in root.components() {
        upto.push(c);
        if c == component {
            break;
        }
    }
    fs::symlink_metadata(&upto).is_ok_and(|m| m.file_type().is_symlink())
}

/// Elsewhere the folder is opened by its path.
#[cfg(not(unix))]
pub fn open_canonical_dir(root: &Path) -> io::Result<Dir> {
    Dir::open_ambient_dir(root, cap_std::ambient_authority())
}

#[cfg(all(test, unix))]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_link_anywhere_on_the_way_fails_the_open_and_says_so() {
        let tmp = tempfile::tempdir().unwrap();
        let base = dunce::canonicalize(tmp.path()).unwrap();
        fs::create_dir_all(base.join("real/inner")).unwrap();
        fs::write(base.join("real/inner/a.txt"), "a").unwrap();
        std::os::unix::fs::symlink(base.join("real"), base.join("link")).unwrap();
        let dir = open_canonical_dir(&base.join("real/inner")).unwrap();
        assert_eq!(dir.read_to_string("a.txt").unwrap(), "a");
        for through in [base.join("link"), base.join("link/inner")] {
            let e = open_canonical_dir(&through).err().unwrap();
            assert_eq!(e.kind(), io::ErrorKind::PermissionDenied, "{}: {e}", through.display());
            assert!(e.to_string().contains("symbolic link"), "{e}");
        }
        let e = open_canonical_dir(&base.join("gone")).err().unwrap();
        assert_eq!(e.kind(), io::ErrorKind::NotFound, "a missing root is only missing");
        let e = open_canonical_dir(Path::new("relative/path")).err().unwrap();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{e}");
    }
}
