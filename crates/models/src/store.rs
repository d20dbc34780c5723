//! The models folder: which catalog files are present, whether they are the real ones, and which
//! model a data dir has chosen.
//!
//! Hashing a 500 MB file takes a second or two, too long to repeat before every utterance, so a
//! verified file gets a small stamp beside it (`<file>.verified`: size, modification time and
//! the checksum). A file whose size or time differs from its stamp is hashed again before use.
//! The stamp only saves time; it never makes an unverified file trusted, because it records the
//! catalog's checksum only after the bytes were hashed and matched.
//!
//! A model that is a folder (Vosk's) is treated the same way through its manifest: every file's
//! relative path, size and sha256, one per line in path order, hashed as a whole. Its stamp
//! describes the folder by file count, total size and the newest modification time of anything
//! in it, so an edited, added, removed or renamed file sends it back to be hashed.

use crate::catalog::{Catalog, CatalogError, Identity, Layout, Model, UNPINNED};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum StoreError {
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    #[error("no model named {name:?} in the catalog (known: {known})")]
    Unknown { name: String, known: String },
    #[error("{name} is not downloaded yet ({path}): run `smart models fetch {name}`")]
    Missing { name: String, path: String },
    #[error(
        "{name} at {path} is {actual} bytes, but the catalog says {expected}: the file is incomplete or not this model; run `smart models fetch {name}` again"
    )]
    WrongSize { name: String, path: String, expected: u64, actual: u64 },
    #[error(
        "{name} at {path} does not match its pinned checksum (expected sha256 {expected}, the file has {actual}); it will not be used: run `smart models fetch {name}` again"
    )]
    Mismatch { name: String, path: String, expected: String, actual: String },
    #[error(
        "{name} has no pinned checksum in this catalog (sha256 {UNPINNED:?}), so SMART will not fetch, verify or use it; it is listed to say where it lives"
    )]
    Unpinned { name: String },
    #[error("cannot read {path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{path}: {detail}")]
    Folder { path: String, detail: String },
    #[error("no folder for models: set SMART_MODELS_DIR or HOME")]
    NoDir,
}

/// What is on disk for a catalog entry, without hashing it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelStatus {
    Missing,
    /// An interrupted download of this many bytes, ready to resume.
    Partial(u64),
    /// Present and verified by an earlier hash that still describes the file.
    Verified,
    /// Present, not (or no longer) known to be verified.
    Unverified,
}

pub struct Models {
    dir: PathBuf,
    catalog: Catalog,
}

/// `SMART_MODELS_DIR`, or the platform data dir's `models` (`~/.local/share/smart/models`).
/// Models live apart from any one data dir: several installations, and every test, share them.
pub fn default_models_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("SMART_MODELS_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    directories::ProjectDirs::from("dev", "smart", "smart").map(|d| d.data_dir().join("models"))
}

impl Models {
    pub fn new(dir: impl Into<PathBuf>, catalog: Catalog) -> Models {
        Models { dir: dir.into(), catalog }
    }

    /// The default folder with the built-in catalog.
    pub fn open_default() -> Result<Models, StoreError> {
        Ok(Models::new(default_models_dir().ok_or(StoreError::NoDir)?, Catalog::built_in()?))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where proposer workers keep evaluated prompt prefixes (the worker names each file by the
    /// model and the prefix's digest, so one folder serves every model and tool set). Beside the
    /// models because it is derived from them: the app, `smart say`, the eval and the bench share
    /// it, and a prefix one of them evaluated is loaded by the others.
    pub fn prefix_cache_dir(&self) -> PathBuf {
        self.dir.join("prefix-cache")
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    pub fn get(&self, name: &str) -> Result<&Model, StoreError> {
        self.catalog
            .get(name)
            .ok_or_else(|| StoreError::Unknown { name: name.to_string(), known: self.catalog.names() })
    }

    pub fn path(&self, m: &Model) -> PathBuf {
        self.dir.join(&m.file)
    }

    pub fn part_path(&self, m: &Model) -> PathBuf {
        self.dir.join(format!("{}.part", m.file))
    }

    fn stamp_path(&self, m: &Model) -> PathBuf {
        self.dir.join(format!("{}.verified", m.file))
    }

    pub fn status(&self, m: &Model) -> ModelStatus {
        let path = self.path(m);
        if present(m, &path) {
            if self.stamp_matches(m, &path) { ModelStatus::Verified } else { ModelStatus::Unverified }
        } else {
            let part = self.part_path(m);
            match std::fs::metadata(&part) {
                Ok(meta) if meta.is_dir() => ModelStatus::Partial(folder_bytes(&part)),
                Ok(meta) => ModelStatus::Partial(meta.len()),
                Err(_) => ModelStatus::Missing,
            }
        }
    }

    /// The path of `m` once its bytes are known to be the catalog's: from the stamp when it
    /// still describes the file, otherwise by hashing (and stamping) it.
    pub fn verified_path(&self, m: &Model) -> Result<PathBuf, StoreError> {
        let path = self.path(m);
        if self.stamp_matches(m, &path) {
            return Ok(path);
        }
        self.verify(m)?;
        Ok(path)
    }

    /// Hashes the file (or folder) and compares it with every rendition the catalog pins,
    /// whatever the stamp says.
    pub fn verify(&self, m: &Model) -> Result<(), StoreError> {
        let path = self.path(m);
        let sha = check(m, &path, &m.identities())?;
        self.stamp(m, &path, &sha);
        Ok(())
    }

    /// Records that `path` was hashed and matched `sha256`. A stamp that cannot be written only
    /// costs a re-hash next time.
    pub(crate) fn stamp(&self, m: &Model, path: &Path, sha256: &str) {
        if let Some(desc) = describe(m, path) {
            let _ = std::fs::write(self.stamp_path(m), format!("{desc} {sha256}\n"));
        }
    }

    fn stamp_matches(&self, m: &Model, path: &Path) -> bool {
        match (describe(m, path), std::fs::read_to_string(self.stamp_path(m))) {
            (Some(desc), Ok(stamp)) => m.identities().iter().any(|id| stamp.trim() == format!("{desc} {}", id.sha256)),
            _ => false,
        }
    }
}

fn present(m: &Model, path: &Path) -> bool {
    match m.layout {
        Layout::File => path.is_file(),
        Layout::Folder => path.is_dir(),
    }
}

fn mtime_text(meta: &std::fs::Metadata) -> Option<String> {
    let mtime = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
    Some(format!("{}.{:09}", mtime.as_secs(), mtime.subsec_nanos()))
}

/// What the stamp records: a file's size and modification time; a folder's file count, total
/// size and newest modification time of anything in it (itself included).
fn describe(m: &Model, path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    match m.layout {
        Layout::File if meta.is_file() => Some(format!("{} {}", meta.len(), mtime_text(&meta)?)),
        Layout::Folder if meta.is_dir() => {
            let (mut files, mut bytes, mut newest) = (0u64, 0u64, meta.modified().ok()?);
            let mut stack = vec![path.to_path_buf()];
            while let Some(dir) = stack.pop() {
                for entry in std::fs::read_dir(&dir).ok()? {
                    let entry = entry.ok()?;
                    let meta = entry.metadata().ok()?;
                    newest = newest.max(meta.modified().ok()?);
                    if meta.is_dir() {
                        stack.push(entry.path());
                    } else {
                        files += 1;
                        bytes += meta.len();
                    }
                }
            }
            let newest = newest.duration_since(UNIX_EPOCH).ok()?;
            Some(format!("folder {files} {bytes} {}.{:09}", newest.as_secs(), newest.subsec_nanos()))
        }
        _ => None,
    }
}

/// The total size of the files under `dir` (for a partial folder's progress).
fn folder_bytes(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            match entry.metadata() {
                Ok(meta) if meta.is_dir() => stack.push(entry.path()),
                Ok(meta) => total += meta.len(),
                Err(_) => {}
            }
        }
    }
    total
}

/// A folder model's manifest: one line per file, `sha256 size path`, sorted by path (relative,
/// `/`-separated). Its sha256 is the folder's identity.
#[derive(Clone, Debug)]
pub struct Manifest {
    pub text: String,
    pub files: usize,
    pub bytes: u64,
    pub sha256: String,
}

/// Hashes every file under `dir`. Symbolic links, special files and names that are not plain
/// UTF-8 are refused: the manifest must describe the same folder on every system.
pub fn folder_manifest(dir: &Path) -> Result<Manifest, StoreError> {
    let ferr = |p: &Path, detail: &str| StoreError::Folder { path: p.display().to_string(), detail: detail.into() };
    let ioerr = |p: &Path| {
        let path = p.display().to_string();
        move |source| StoreError::Io { path, source }
    };
    let mut files: Vec<(String, PathBuf)> = vec![];
    let mut stack = vec![(dir.to_path_buf(), String::new())];
    while let Some((abs, rel)) = stack.pop() {
        for entry in std::fs::read_dir(&abs).map_err(ioerr(&abs))? {
            let entry = entry.map_err(ioerr(&abs))?;
            let path = entry.path();
            let name =
                entry.file_name().into_string().ok().filter(|n| !n.contains(['\n', '\\'])).ok_or_else(|| {
                    ferr(&path, "a file name that is not plain UTF-8 cannot be part of a model folder")
                })?;
            let rel = if rel.is_empty() { name } else { format!("{rel}/{name}") };
            let kind = entry.file_type().map_err(ioerr(&path))?;
            if kind.is_dir() {
                stack.push((path, rel));
            } else if kind.is_file() {
                files.push((rel, path));
            } else {
                return Err(ferr(
                    &path,
                    "a model folder holds only plain files and folders (this is a link or device)",
                ));
            }
        }
    }
    files.sort();
    let (mut text, mut bytes) = (String::new(), 0u64);
    for (rel, path) in &files {
        let size = std::fs::metadata(path).map_err(ioerr(path))?.len();
        let sha = sha256_file(path).map_err(ioerr(path))?;
        text.push_str(&format!("{sha} {size} {rel}\n"));
        bytes += size;
    }
    let sha256 = hex::encode(Sha256::digest(text.as_bytes()));
    Ok(Manifest { text, files: files.len(), bytes, sha256 })
}

/// Checks `path` against `identities` (any one may match): size first (instant for a file),
/// then the sha256 (of the file, or of the folder's manifest). Returns the sha256 that matched.
pub(crate) fn check(m: &Model, path: &Path, identities: &[Identity<'_>]) -> Result<String, StoreError> {
    let Some(first) = identities.first() else {
        return Err(StoreError::Unpinned { name: m.name.clone() });
    };
    let shown = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => StoreError::Missing { name: m.name.clone(), path: shown.clone() },
        _ => StoreError::Io { path: shown.clone(), source: e },
    })?;
    if !present(m, path) {
        let want = if m.layout == Layout::Folder { "a folder" } else { "a file" };
        return Err(StoreError::Folder { path: shown, detail: format!("{} should be {want}", m.name) });
    }
    let (size, actual) = match m.layout {
        Layout::File => {
            if !identities.iter().any(|id| id.bytes == meta.len()) {
                return Err(StoreError::WrongSize {
                    name: m.name.clone(),
                    path: shown,
                    expected: first.bytes,
                    actual: meta.len(),
                });
            }
            (meta.len(), sha256_file(path).map_err(|e| StoreError::Io { path: shown.clone(), source: e })?)
        }
        Layout::Folder => {
            let manifest = folder_manifest(path)?;
            (manifest.bytes, manifest.sha256)
        }
    };
    if let Some(id) = identities.iter().find(|id| id.sha256 == actual && id.bytes == size) {
        return Ok(id.sha256.to_string());
    }
    if !identities.iter().any(|id| id.bytes == size) {
        return Err(StoreError::WrongSize { name: m.name.clone(), path: shown, expected: first.bytes, actual: size });
    }
    let expected = identities.iter().filter(|id| id.bytes == size).map(|id| id.sha256).collect::<Vec<_>>().join(" or ");
    Err(StoreError::Mismatch { name: m.name.clone(), path: shown, expected, actual })
}

pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex::encode(hasher.finalize()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use crate::catalog::{Layout, Source};

    fn model(bytes: &[u8]) -> Model {
        Model {
            name: "tiny".into(),
            file: "tiny.bin".into(),
            purpose: "proposer".into(),
            format: "gguf".into(),
            bytes: bytes.len() as u64,
            sha256: hex::encode(Sha256::digest(bytes)),
            licence: "x".into(),
            description: "x".into(),
            default: false,
            layout: Layout::File,
            sources: vec![Source::Http { url: "http://127.0.0.1:9/x".into(), bytes: None, sha256: None }],
        }
    }

    fn write_tree(root: &Path, files: &[(&str, &[u8])]) {
        for (rel, bytes) in files {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, bytes).unwrap();
        }
    }

    #[test]
    fn a_folder_manifest_lists_paths_in_order_with_size_and_hash() {
        let dir = tempfile::tempdir().unwrap();
        write_tree(dir.path(), &[("conf/model.conf", b"x=1\n"), ("am/final.mdl", b"weights"), ("README", b"")]);
        let m = folder_manifest(dir.path()).unwrap();
        let sha = |b: &[u8]| hex::encode(Sha256::digest(b));
        let expected =
            format!("{} 0 README\n{} 7 am/final.mdl\n{} 4 conf/model.conf\n", sha(b""), sha(b"weights"), sha(b"x=1\n"));
        assert_eq!(m.text, expected);
        assert_eq!((m.files, m.bytes), (3, 11));
        assert_eq!(m.sha256, sha(expected.as_bytes()));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("README", dir.path().join("link")).unwrap();
            assert!(matches!(folder_manifest(dir.path()), Err(StoreError::Folder { .. })));
        }
    }

    #[test]
    fn a_folder_model_is_verified_stamped_and_refused_when_a_file_changes() {
        let models_dir = tempfile::tempdir().unwrap();
        let files: &[(&str, &[u8])] = &[("am/final.mdl", b"acoustic"), ("graph/HCLr.fst", b"graph bytes")];
        let reference = tempfile::tempdir().unwrap();
        write_tree(reference.path(), files);
        let manifest = folder_manifest(reference.path()).unwrap();
        let mut m = model(b"");
        m.file = "vosk-model".into();
        m.layout = Layout::Folder;
        (m.bytes, m.sha256) = (manifest.bytes, manifest.sha256.clone());
        let models = Models::new(models_dir.path(), Catalog { models: vec![m.clone()] });
        assert_eq!(models.status(&m), ModelStatus::Missing);

        write_tree(&models.path(&m), files);
        assert_eq!(models.status(&m), ModelStatus::Unverified);
        models.verified_path(&m).unwrap();
        assert_eq!(models.status(&m), ModelStatus::Verified);

        // Same size, other bytes, in a nested file.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(models.path(&m).join("graph/HCLr.fst"), b"graph BYTES").unwrap();
        assert_eq!(models.status(&m), ModelStatus::Unverified);
        let err = models.verified_path(&m).unwrap_err();
        assert!(matches!(err, StoreError::Mismatch { .. }), "{err}");

        // An extra file changes the size.
        std::fs::write(models.path(&m).join("graph/HCLr.fst"), b"graph bytes").unwrap();
        std::fs::write(models.path(&m).join("extra"), b"!").unwrap();
        assert!(matches!(models.verify(&m), Err(StoreError::WrongSize { .. })));
        std::fs::remove_file(models.path(&m).join("extra")).unwrap();
        models.verify(&m).unwrap();

        // A file where a folder belongs is not the model.
        std::fs::remove_dir_all(models.path(&m)).unwrap();
        std::fs::write(models.path(&m), b"not a folder").unwrap();
        assert_eq!(models.status(&m), ModelStatus::Missing);
        assert!(matches!(models.verify(&m), Err(StoreError::Folder { .. })));
    }

    #[test]
    fn an_unpinned_model_is_never_verified() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = model(b"bytes");
        m.sha256 = crate::catalog::UNPINNED.into();
        let models = Models::new(dir.path(), Catalog { models: vec![m.clone()] });
        std::fs::write(models.path(&m), b"bytes").unwrap();
        let err = models.verify(&m).unwrap_err();
        assert!(matches!(err, StoreError::Unpinned { .. }), "{err}");
        assert_eq!(models.status(&m), ModelStatus::Unverified);
    }

    #[test]
    fn either_pinned_rendition_of_a_model_verifies() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = model(b"our conversion");
        let theirs: &[u8] = b"upstream's conversion!";
        m.sources[0] = Source::Http {
            url: "http://x".into(),
            bytes: Some(theirs.len() as u64),
            sha256: Some(hex::encode(Sha256::digest(theirs))),
        };
        let models = Models::new(dir.path(), Catalog { models: vec![m.clone()] });
        std::fs::write(models.path(&m), theirs).unwrap();
        models.verify(&m).unwrap();
        assert_eq!(models.status(&m), ModelStatus::Verified);
        std::fs::write(models.path(&m), b"our conversion").unwrap();
        models.verify(&m).unwrap();
        std::fs::write(models.path(&m), b"our c0nversion").unwrap();
        let err = models.verify(&m).unwrap_err();
        assert!(matches!(&err, StoreError::Mismatch { expected, .. } if expected == &m.sha256), "{err}");
    }

    #[test]
    fn a_swapped_file_of_the_same_size_loses_its_stamp_and_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let m = model(b"real model bytes");
        let models = Models::new(dir.path(), Catalog { models: vec![m.clone()] });
        assert_eq!(models.status(&m), ModelStatus::Missing);
        assert!(matches!(models.verified_path(&m), Err(StoreError::Missing { .. })));

        std::fs::write(models.path(&m), b"real model bytes").unwrap();
        assert_eq!(models.status(&m), ModelStatus::Unverified);
        models.verified_path(&m).unwrap();
        assert_eq!(models.status(&m), ModelStatus::Verified);

        // Same length, other bytes, and a different modification time.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(models.path(&m), b"fake model bytes").unwrap();
        assert_eq!(models.status(&m), ModelStatus::Unverified);
        assert!(matches!(models.verified_path(&m), Err(StoreError::Mismatch { .. })));

        std::fs::write(models.path(&m), b"short").unwrap();
        assert!(matches!(models.verify(&m), Err(StoreError::WrongSize { expected: 16, actual: 5, .. })));
    }
}
