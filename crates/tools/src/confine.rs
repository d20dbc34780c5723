//! Capability-style file access: every executor reaches the person's files only through folders
//! it holds open, never through a path string.
//!
//! The kernel resolves each path and confines it to the allowed roots — but it does so *before*
//! the executor runs, and the filesystem can change in between. If an executor then handed the
//! same path string to `std::fs`, a folder swapped for a symlink (`~/Docs/reports` →
//! `/etc`) after admission would send the write outside the roots: a check-then-use race no
//! string check can close. So executors get a [`Confined`] instead: one `cap_std::fs::Dir` per
//! allowed area (each root, the quarantine folder), opened once, and every operation is done
//! *relative to that handle*. `cap-std` resolves each component beneath the handle (with
//! `openat2(RESOLVE_BENEATH)` where the kernel has it) and fails on any `..`, absolute symlink
//! or symlink chain that would leave it — at the moment of use, not before.
//!
//! Least privilege is a type here: read-only tools receive a [`Reader`], which has no method that
//! changes anything; only the apply/transform tools and undo receive a [`Writer`]. A read-only
//! executor that tried to write would not compile.
//!
//! [`ReadFs`] is the small read surface the hashing and walking code is written against, so the
//! kernel's `World` (which hashes through [`Ambient`], the plain filesystem, because it must also
//! see paths that do not resolve yet) and the executors (which hash through a [`Reader`]) compute
//! exactly the same content hashes.

use cap_std::fs::{Dir, OpenOptions, Permissions};
use std::ffi::OsString;
use std::fs;
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};
use std::time::UNIX_EPOCH;

/// What a directory entry is, without following symlinks.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Symlink,
    Other,
}

impl Kind {
    fn from_parts(is_symlink: bool, is_dir: bool, is_file: bool) -> Kind {
        if is_symlink {
            Kind::Symlink
        } else if is_dir {
            Kind::Dir
        } else if is_file {
            Kind::File
        } else {
            Kind::Other
        }
    }

    pub fn of_std(t: fs::FileType) -> Kind {
        Kind::from_parts(t.is_symlink(), t.is_dir(), t.is_file())
    }

    fn of_cap(t: cap_std::fs::FileType) -> Kind {
        Kind::from_parts(t.is_symlink(), t.is_dir(), t.is_file())
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::File => "file",
            Kind::Dir => "dir",
            Kind::Symlink => "symlink",
            Kind::Other => "other",
        }
    }
}

/// What [`ReadFs::meta`] reports (never following a symlink at the path itself).
#[derive(Clone, Debug)]
pub struct Meta {
    pub kind: Kind,
    pub len: u64,
    /// Modification time in ms since the Unix epoch, where the platform reports one.
    pub modified_ms: Option<u64>,
    pub permissions: Option<Permissions>,
}

/// One entry of a folder listing.
#[derive(Clone, Debug)]
pub struct Listed {
    pub name: OsString,
    pub kind: Kind,
    /// Bytes for a file, the target's length for a symlink, 0 for a folder.
    pub len: u64,
    pub modified_ms: Option<u64>,
}

/// The read operations hashing, walking and reading are written against.
pub trait ReadFs {
    fn meta(&self, path: &Path) -> io::Result<Meta>;
    /// The entries of a folder, sorted by the bytes of their names.
    fn list(&self, path: &Path) -> io::Result<Vec<Listed>>;
    fn open(&self, path: &Path) -> io::Result<fs::File>;
    fn read_link(&self, path: &Path) -> io::Result<PathBuf>;
}

/// Opening for reading never waits: a named pipe (FIFO) where a file was expected would block
/// `open` until some writer came — forever, for a tool that was only asked to read a document.
#[cfg(unix)]
const NONBLOCK: i32 = rustix::fs::OFlags::NONBLOCK.bits() as i32;

/// `file`, if it is a regular file; otherwise an error naming what it is. Everything SMART reads
/// goes through here: a named pipe, a socket or a device is never read (it could block or never
/// end), and the file is blocking again for the reads that follow.
fn only_regular(file: fs::File, path: &Path) -> io::Result<fs::File> {
    let t = file.metadata()?.file_type();
    if !t.is_file() {
        let what = special_kind(&t);
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is {what}, not a regular file; SMART reads only regular files", path.display()),
        ));
    }
    #[cfg(unix)]
    {
        use rustix::fs::{OFlags, fcntl_getfl, fcntl_setfl};
        let flags = fcntl_getfl(&file)?;
        fcntl_setfl(&file, flags - OFlags::NONBLOCK)?;
    }
    Ok(file)
}

fn special_kind(t: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a named pipe";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    if t.is_dir() { "a folder" } else { "not a file" }
}

/// Whether an error means "nothing is there".
pub fn is_missing(e: &io::Error) -> bool {
    matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory)
}

/// The plain filesystem, for the kernel's `World` (hashes only; it never returns content).
#[derive(Copy, Clone, Debug, Default)]
pub struct Ambient;

impl ReadFs for Ambient {
    fn meta(&self, path: &Path) -> io::Result<Meta> {
        let m = fs::symlink_metadata(path)?;
        Ok(Meta {
            kind: Kind::of_std(m.file_type()),
            len: m.len(),
            modified_ms: m.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map(millis),
            permissions: Some(Permissions::from_std(m.permissions())),
        })
    }

    fn list(&self, path: &Path) -> io::Result<Vec<Listed>> {
        let mut out = Vec::new();
        for item in fs::read_dir(path)? {
            let item = item?;
            let m = item.metadata()?;
            let kind = Kind::of_std(m.file_type());
            out.push(Listed {
                name: item.file_name(),
                kind,
                len: if kind == Kind::Dir { 0 } else { m.len() },
                modified_ms: m.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map(millis),
            });
        }
        out.sort_by(|a, b| a.name.as_encoded_bytes().cmp(b.name.as_encoded_bytes()));
        Ok(out)
    }

    fn open(&self, path: &Path) -> io::Result<fs::File> {
        let mut opts = fs::OpenOptions::new();
        opts.read(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::custom_flags(&mut opts, NONBLOCK);
        only_regular(opts.open(path)?, path)
    }

    fn read_link(&self, path: &Path) -> io::Result<PathBuf> {
        fs::read_link(path)
    }
}

fn millis(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

struct Area {
    root: PathBuf,
    dir: Dir,
}

/// The folders executors may work in, each held open.
pub struct Confined {
    areas: Vec<Area>,
    /// Where the steps of a mutation are written before they are taken (see `exec::steps`).
    steps: Option<std::sync::Mutex<crate::exec::steps::StepLog>>,
}

impl std::fmt::Debug for Confined {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.areas.iter().map(|a| &a.root)).finish()
    }
}

fn outside(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!("{} is outside every folder this tool may use", path.display()),
    )
}

impl Confined {
    /// Opens each area (absolute, canonical folders). The only use of ambient authority in the
    /// executors: after this, nothing is reached except through these handles.
    pub fn open(areas: &[PathBuf]) -> Result<Confined, String> {
        let mut out = Vec::with_capacity(areas.len());
        for root in areas {
            if !root.is_absolute() {
                return Err(format!("{} is not an absolute folder", root.display()));
            }
            let dir = match smart_index::open_canonical_dir(root) {
                Ok(d) => d,
                // A root that is gone holds nothing to confine: paths under it simply do not
                // resolve, and the other roots keep working.
                Err(e) if is_missing(&e) => continue,
                Err(e) => return Err(format!("cannot open {}: {e}", root.display())),
            };
            out.push(Area { root: root.clone(), dir });
        }
        // Longest first, so a nested area wins over the one around it.
        out.sort_by_key(|a| std::cmp::Reverse(a.root.components().count()));
        Ok(Confined { areas: out, steps: None })
    }

    /// The same, with every journal step written to `log` before it is taken.
    pub fn with_step_log(mut self, log: crate::exec::steps::StepLog) -> Confined {
        self.steps = Some(std::sync::Mutex::new(log));
        self
    }

    pub fn reader(&self) -> Reader<'_> {
        Reader(self)
    }

    pub fn writer(&self) -> Writer<'_> {
        Writer(Reader(self))
    }

    pub fn roots(&self) -> impl Iterator<Item = &Path> {
        self.areas.iter().map(|a| a.root.as_path())
    }

    /// The handle an absolute path lives under, and the path relative to it. Only plain
    /// components are accepted: the kernel hands over resolved paths, so a `..` or `.` here
    /// means something is wrong and is refused rather than interpreted.
    fn locate<'a>(&'a self, path: &Path) -> io::Result<(&'a Dir, PathBuf)> {
        for area in &self.areas {
            if let Ok(rel) = path.strip_prefix(&area.root) {
                if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        format!("{} is not a resolved path", path.display()),
                    ));
                }
                let rel = if rel.as_os_str().is_empty() { PathBuf::from(".") } else { rel.to_path_buf() };
                return Ok((&area.dir, rel));
            }
        }
        Err(outside(path))
    }
}

/// One end of a move: the folder it is in, opened beneath an area (so confined, and held open
/// for the move), its name there, and its full path (what Windows' call takes).
struct Place {
    /// On Windows only held, never read: open, it keeps the path from being renamed away.
    #[cfg_attr(windows, allow(dead_code))]
    parent: Dir,
    #[cfg_attr(windows, allow(dead_code))]
    name: OsString,
    #[cfg_attr(not(windows), allow(dead_code))]
    path: PathBuf,
}

impl Place {
    fn beneath(area: &Dir, rel: &Path, path: &Path) -> io::Result<Place> {
        let name = rel.file_name().ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no name"))?;
        let parent = rel.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        Ok(Place { parent: area.open_dir(parent)?, name: name.to_os_string(), path: path.to_path_buf() })
    }
}

/// Moves `from` to `to` unless something is at `to`, the check and the move one step of the
/// OS: Linux's `renameat2(RENAME_NOREPLACE)` and macOS's `renameatx_np(RENAME_EXCL)` by name
/// beneath the held folders, Windows' `MoveFileExW` without `MOVEFILE_REPLACE_EXISTING` by path
/// (Windows refuses to rename a folder while a handle inside it is open, so the held parents
/// pin both paths for the call, as cap-std's own Windows operations rely on). `Ok(false)`: this
/// filesystem cannot (some network and FUSE ones); the caller checks and renames instead.
/// An existing target is `AlreadyExists`.
fn atomic_move_no_replace(from: &Place, to: &Place) -> io::Result<bool> {
    #[cfg(any(target_os = "linux", target_os = "macos"))]
    {
        match rustix::fs::renameat_with(
            &from.parent,
            &from.name,
            &to.parent,
            &to.name,
            rustix::fs::RenameFlags::NOREPLACE,
        ) {
            Ok(()) => Ok(true),
            Err(e) if e == rustix::io::Errno::EXIST => Err(io::ErrorKind::AlreadyExists.into()),
            Err(e)
                if e == rustix::io::Errno::INVAL || e == rustix::io::Errno::NOSYS || e == rustix::io::Errno::NOTSUP =>
            {
                Ok(false)
            }
            Err(e) => Err(e.into()),
        }
    }
    #[cfg(windows)]
    {
        // ERROR_ALREADY_EXISTS and ERROR_FILE_EXISTS are both `AlreadyExists` to std.
        renamore::rename_exclusive(&from.path, &to.path).map(|()| true)
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
    {
        let _ = (from, to);
        Ok(false)
    }
}

/// Read access to the confined areas. Has no method that changes anything.
#[derive(Copy, Clone, Debug)]
pub struct Reader<'a>(&'a Confined);

fn cap_millis(m: &cap_std::fs::Metadata) -> Option<u64> {
    let epoch = cap_std::time::SystemTime::from_std(UNIX_EPOCH);
    m.modified().ok().and_then(|t| t.duration_since(epoch).ok()).map(millis)
}

impl ReadFs for Reader<'_> {
    fn meta(&self, path: &Path) -> io::Result<Meta> {
        let (dir, rel) = self.0.locate(path)?;
        let m = dir.symlink_metadata(&rel)?;
        Ok(Meta {
            kind: Kind::of_cap(m.file_type()),
            len: m.len(),
            modified_ms: cap_millis(&m),
            permissions: Some(m.permissions()),
        })
    }

    fn list(&self, path: &Path) -> io::Result<Vec<Listed>> {
        let (dir, rel) = self.0.locate(path)?;
        let mut out = Vec::new();
        for item in dir.read_dir(&rel)? {
            let item = item?;
            let m = item.metadata()?;
            let kind = Kind::of_cap(m.file_type());
            out.push(Listed {
                name: item.file_name(),
                kind,
                len: if kind == Kind::Dir { 0 } else { m.len() },
                modified_ms: cap_millis(&m),
            });
        }
        out.sort_by(|a, b| a.name.as_encoded_bytes().cmp(b.name.as_encoded_bytes()));
        Ok(out)
    }

    fn open(&self, path: &Path) -> io::Result<fs::File> {
        let (dir, rel) = self.0.locate(path)?;
        let mut opts = OpenOptions::new();
        opts.read(true);
        #[cfg(unix)]
        cap_std::fs::OpenOptionsExt::custom_flags(&mut opts, NONBLOCK);
        only_regular(dir.open_with(&rel, &opts)?.into_std(), path)
    }

    fn read_link(&self, path: &Path) -> io::Result<PathBuf> {
        let (dir, rel) = self.0.locate(path)?;
        dir.read_link_contents(&rel)
    }
}

impl<'a> Reader<'a> {
    /// The folders this reader can see.
    pub fn roots(&self) -> impl Iterator<Item = &'a Path> + use<'a> {
        self.0.areas.iter().map(|a| a.root.as_path())
    }

    /// Whether anything (even a dangling symlink) is at `path`.
    pub fn exists(&self, path: &Path) -> io::Result<bool> {
        match self.meta(path) {
            Ok(_) => Ok(true),
            Err(e) if is_missing(&e) => Ok(false),
            Err(e) => Err(e),
        }
    }
}

/// Read and write access to the confined areas; only mutating executors get one.
#[derive(Copy, Clone, Debug)]
pub struct Writer<'a>(Reader<'a>);

impl<'a> std::ops::Deref for Writer<'a> {
    type Target = Reader<'a>;
    fn deref(&self) -> &Reader<'a> {
        &self.0
    }
}

impl Writer<'_> {
    /// Records a step durably before the journal takes it; nothing to do without a step log.
    pub(crate) fn intend(&self, step: &crate::exec::steps::Step) -> io::Result<()> {
        match &((self.0).0).steps {
            None => Ok(()),
            Some(log) => log.lock().map_err(|_| io::Error::other("the step log's lock was poisoned"))?.intend(step),
        }
    }

    fn locate(&self, path: &Path) -> io::Result<(&Dir, PathBuf)> {
        let (dir, rel) = (self.0).0.locate(path)?;
        if rel == Path::new(".") {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!("{} is an allowed folder itself; it cannot be moved, replaced or removed", path.display()),
            ));
        }
        Ok((dir, rel))
    }

    /// Renames within or across areas, replacing whatever is at `to` (only for SMART's own
    /// temporary files; moves of the person's files use [`Writer::rename_new`]).
    pub fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        let (fd, fr) = self.locate(from)?;
        let (td, tr) = self.locate(to)?;
        fd.rename(&fr, td, &tr)
    }

    /// Renames within or across areas, failing with `AlreadyExists` if anything is at `to` —
    /// in the same step of the OS as the move where it can ([`atomic_move_no_replace`]), so a
    /// file that appears between a check and the move is never overwritten. Fails with the OS's
    /// cross-device error between filesystems (the caller copies then).
    pub fn rename_new(&self, from: &Path, to: &Path) -> io::Result<()> {
        let (fd, fr) = self.locate(from)?;
        let (td, tr) = self.locate(to)?;
        let source = Place::beneath(fd, &fr, from)?;
        let target = Place::beneath(td, &tr, to)?;
        match atomic_move_no_replace(&source, &target) {
            Ok(true) => return Ok(()),
            Ok(false) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                return Err(io::Error::new(io::ErrorKind::AlreadyExists, format!("{} exists", to.display())));
            }
            Err(e) => return Err(e),
        }
        // A filesystem without an exclusive rename: check, then rename.
        if self.exists(to)? {
            return Err(io::Error::new(io::ErrorKind::AlreadyExists, format!("{} exists", to.display())));
        }
        fd.rename(&fr, td, &tr)
    }

    pub fn create_dir(&self, path: &Path) -> io::Result<()> {
        let (dir, rel) = self.locate(path)?;
        dir.create_dir(&rel)
    }

    pub fn remove_dir(&self, path: &Path) -> io::Result<()> {
        let (dir, rel) = self.locate(path)?;
        dir.remove_dir(&rel)
    }

    pub fn remove_file(&self, path: &Path) -> io::Result<()> {
        let (dir, rel) = self.locate(path)?;
        dir.remove_file(&rel)
    }

    /// Removes a file, symlink or whole folder (only ever something this process made, or a
    /// quarantined batch being purged).
    pub fn remove_any(&self, path: &Path) -> io::Result<()> {
        let (dir, rel) = self.locate(path)?;
        if dir.symlink_metadata(&rel)?.is_dir() { dir.remove_dir_all(&rel) } else { dir.remove_file(&rel) }
    }

    /// Creates a file that must not exist yet and writes `bytes` to it, durably.
    pub fn write_new(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        let mut f = self.create_new(path)?;
        f.write_all(bytes)?;
        f.sync_all()
    }

    /// A new file, opened for writing; fails if anything is there.
    pub fn create_new(&self, path: &Path) -> io::Result<fs::File> {
        let (dir, rel) = self.locate(path)?;
        let mut opts = OpenOptions::new();
        opts.write(true).create_new(true);
        Ok(dir.open_with(&rel, &opts)?.into_std())
    }

    /// Replaces a file's content atomically: a sibling temporary file is written and synced,
    /// then renamed over the original, so a crash leaves either the old or the new content,
    /// never half of each. The original's permissions are kept.
    pub fn replace(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        let name = path
            .file_name()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, format!("{} has no name", path.display())))?;
        // A free sibling name: never one that exists, so nothing of the person's is touched.
        let mut tmp = None;
        for n in 0..100u32 {
            let mut tmp_name = OsString::from(".");
            tmp_name.push(name);
            tmp_name.push(if n == 0 { ".smart-tmp".to_string() } else { format!(".smart-tmp-{n}") });
            let candidate = path.with_file_name(tmp_name);
            if !self.exists(&candidate)? {
                tmp = Some(candidate);
                break;
            }
        }
        let tmp = tmp.ok_or_else(|| {
            io::Error::new(io::ErrorKind::AlreadyExists, format!("no free temporary name beside {}", path.display()))
        })?;
        let perms = self.meta(path).ok().and_then(|m| m.permissions);
        let written = self.write_new(&tmp, bytes).and_then(|()| match perms {
            Some(p) => self.set_permissions(&tmp, p),
            None => Ok(()),
        });
        if let Err(e) = written.and_then(|()| self.rename(&tmp, path)) {
            let _ = self.remove_file(&tmp);
            return Err(e);
        }
        Ok(())
    }

    pub fn set_permissions(&self, path: &Path, perms: Permissions) -> io::Result<()> {
        let (dir, rel) = self.locate(path)?;
        dir.set_permissions(&rel, perms)
    }

    /// Recreates a symlink with the same target text (copying a tree across filesystems).
    #[cfg(unix)]
    pub fn symlink(&self, target: &Path, at: &Path) -> io::Result<()> {
        let (dir, rel) = self.locate(at)?;
        dir.symlink_contents(target, &rel)
    }

    #[cfg(windows)]
    pub fn symlink(&self, target: &Path, at: &Path) -> io::Result<()> {
        let (dir, rel) = self.locate(at)?;
        let resolved = at.parent().map(|p| p.join(target)).unwrap_or_else(|| target.to_path_buf());
        if self.meta(&resolved).map(|m| m.kind == Kind::Dir).unwrap_or(false) {
            dir.symlink_dir(target, &rel)
        } else {
            dir.symlink_file(target, &rel)
        }
    }

    #[cfg(not(any(unix, windows)))]
    pub fn symlink(&self, _target: &Path, at: &Path) -> io::Result<()> {
        Err(io::Error::new(io::ErrorKind::Unsupported, format!("{}: this platform has no symlinks", at.display())))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    fn area() -> (tempfile::TempDir, PathBuf) {
        let t = tempfile::tempdir().unwrap();
        let r = dunce::canonicalize(t.path()).unwrap();
        (t, r)
    }

    #[test]
    fn paths_outside_every_area_and_unresolved_paths_are_refused() {
        let (_t, r) = area();
        let c = Confined::open(std::slice::from_ref(&r)).unwrap();
        let err = c.reader().meta(Path::new("/etc/passwd")).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::PermissionDenied, "{err}");
        let err = c.reader().meta(&r.join("a/../b")).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{err}");
        let err = c.writer().remove_dir(&r).unwrap_err();
        assert!(err.to_string().contains("allowed folder itself"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn a_folder_swapped_for_a_symlink_after_the_check_cannot_be_written_through() {
        let (_t, r) = area();
        let (_o, outside) = area();
        fs::create_dir(r.join("docs")).unwrap();
        fs::write(r.join("docs/a.txt"), b"a").unwrap();
        let c = Confined::open(std::slice::from_ref(&r)).unwrap();
        // The kernel checked r/docs/a.txt; now the folder becomes a link to elsewhere.
        fs::rename(r.join("docs"), r.join("docs.old")).unwrap();
        std::os::unix::fs::symlink(&outside, r.join("docs")).unwrap();
        fs::write(outside.join("a.txt"), b"outside").unwrap();
        let w = c.writer();
        assert!(w.replace(&r.join("docs/a.txt"), b"pwned").is_err());
        assert!(w.write_new(&r.join("docs/new.txt"), b"pwned").is_err());
        assert!(w.rename(&r.join("docs/a.txt"), &r.join("stolen.txt")).is_err());
        assert!(c.reader().open(&r.join("docs/a.txt")).is_err(), "reading through the swap is refused too");
        assert_eq!(fs::read(outside.join("a.txt")).unwrap(), b"outside");
        assert!(!outside.join("new.txt").exists());
        assert!(!r.join("stolen.txt").exists());
    }

    #[test]
    fn a_missing_root_is_skipped_and_the_others_still_work() {
        let (_t, r) = area();
        let (_g, elsewhere) = area();
        let gone = elsewhere.join("gone");
        fs::write(r.join("a"), b"a").unwrap();
        let c = Confined::open(&[gone.clone(), r.clone()]).unwrap();
        assert!(c.reader().exists(&r.join("a")).unwrap());
        assert!(c.reader().meta(&gone.join("x")).is_err(), "nothing under a missing root is reachable");
    }

    #[test]
    fn replace_never_touches_a_file_named_like_its_temporary() {
        let (_t, r) = area();
        fs::write(r.join("f.txt"), b"old").unwrap();
        fs::write(r.join(".f.txt.smart-tmp"), b"the person's").unwrap();
        let c = Confined::open(std::slice::from_ref(&r)).unwrap();
        c.writer().replace(&r.join("f.txt"), b"new").unwrap();
        assert_eq!(fs::read(r.join("f.txt")).unwrap(), b"new");
        assert_eq!(fs::read(r.join(".f.txt.smart-tmp")).unwrap(), b"the person's");
    }

    #[test]
    fn a_move_never_overwrites_even_a_file_that_appeared_after_the_check() {
        let (_t, r) = area();
        fs::write(r.join("a"), b"mine").unwrap();
        fs::write(r.join("b"), b"precious").unwrap();
        fs::create_dir(r.join("sub")).unwrap();
        let c = Confined::open(std::slice::from_ref(&r)).unwrap();
        let err = c.writer().rename_new(&r.join("a"), &r.join("b")).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists, "{err}");
        assert_eq!(fs::read(r.join("b")).unwrap(), b"precious");
        c.writer().rename_new(&r.join("a"), &r.join("sub/a")).unwrap();
        assert_eq!(fs::read(r.join("sub/a")).unwrap(), b"mine");
    }

    /// The OS itself refuses the existing target: no check comes before this call, so a
    /// check-then-rename here would overwrite "precious".
    #[test]
    fn atomic_move_no_replace_refuses_an_existing_target_in_the_same_step() {
        let (_t, r) = area();
        fs::write(r.join("a"), b"mine").unwrap();
        fs::write(r.join("b"), b"precious").unwrap();
        fs::create_dir_all(r.join("sub/inner")).unwrap();
        fs::create_dir(r.join("other")).unwrap();
        let dir = smart_index::open_canonical_dir(&r).unwrap();
        let place = |rel: &str| Place::beneath(&dir, Path::new(rel), &r.join(rel)).unwrap();
        let err = atomic_move_no_replace(&place("a"), &place("b")).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists, "{err}");
        assert_eq!(
            (fs::read(r.join("a")).unwrap(), fs::read(r.join("b")).unwrap()),
            (b"mine".to_vec(), b"precious".to_vec())
        );
        // A folder onto an existing folder is refused too; into a free name it moves.
        let err = atomic_move_no_replace(&place("sub/inner"), &place("other")).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists, "{err}");
        assert!(atomic_move_no_replace(&place("a"), &place("sub/a")).unwrap());
        assert!(atomic_move_no_replace(&place("sub/inner"), &place("moved")).unwrap());
        assert_eq!(fs::read(r.join("sub/a")).unwrap(), b"mine");
        assert!(r.join("moved").is_dir() && !r.join("sub/inner").exists());
    }

    #[test]
    fn replace_is_atomic_and_keeps_nothing_behind() {
        let (_t, r) = area();
        fs::write(r.join("f.txt"), b"old").unwrap();
        let c = Confined::open(std::slice::from_ref(&r)).unwrap();
        c.writer().replace(&r.join("f.txt"), b"new").unwrap();
        assert_eq!(fs::read(r.join("f.txt")).unwrap(), b"new");
        let names: Vec<_> = fs::read_dir(&r).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }
}
