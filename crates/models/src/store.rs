//! The models folder: which catalog files are present, whether they are the real ones, and which
//! model a data dir has chosen.
//!
//! Hashing a 500 MB file takes a second or two, too long to repeat before every utterance, so a
//! verified file gets a small stamp beside it (`<file>.verified`: size, modification time and
//! the checksum). A file whose size or time differs from its stamp is hashed again before use.
//! The stamp only saves time; it never makes an unverified file trusted, because it records the
//! catalog's checksum only after the bytes were hashed and matched.

use crate::catalog::{Catalog, CatalogError, Model};
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
    #[error("cannot read {path}: {source}")]
    Io { path: String, source: std::io::Error },
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
        if path.is_file() {
            if self.stamp_matches(m, &path) { ModelStatus::Verified } else { ModelStatus::Unverified }
        } else {
            match std::fs::metadata(self.part_path(m)) {
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

    /// Hashes the file and compares it with the catalog, whatever the stamp says.
    pub fn verify(&self, m: &Model) -> Result<(), StoreError> {
        let path = self.path(m);
        check_file(m, &path)?;
        self.stamp(m, &path);
        Ok(())
    }

    /// Records that `path` was hashed and matched. A stamp that cannot be written only costs a
    /// re-hash next time.
    pub(crate) fn stamp(&self, m: &Model, path: &Path) {
        if let Some(desc) = describe(path) {
            let _ = std::fs::write(self.stamp_path(m), format!("{desc} {}\n", m.sha256));
        }
    }

    fn stamp_matches(&self, m: &Model, path: &Path) -> bool {
        match (describe(path), std::fs::read_to_string(self.stamp_path(m))) {
            (Some(desc), Ok(stamp)) => stamp.trim() == format!("{desc} {}", m.sha256),
            _ => false,
        }
    }
}

/// Size and modification time, as the stamp records them.
fn describe(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    let mtime = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
    Some(format!("{} {}.{:09}", meta.len(), mtime.as_secs(), mtime.subsec_nanos()))
}

/// Size first (instant), then the sha256.
pub(crate) fn check_file(m: &Model, path: &Path) -> Result<(), StoreError> {
    let shown = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => StoreError::Missing { name: m.name.clone(), path: shown.clone() },
        _ => StoreError::Io { path: shown.clone(), source: e },
    })?;
    if meta.len() != m.bytes {
        return Err(StoreError::WrongSize { name: m.name.clone(), path: shown, expected: m.bytes, actual: meta.len() });
    }
    let actual = sha256_file(path).map_err(|e| StoreError::Io { path: shown.clone(), source: e })?;
    if actual != m.sha256 {
        return Err(StoreError::Mismatch { name: m.name.clone(), path: shown, expected: m.sha256.clone(), actual });
    }
    Ok(())
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
    use crate::catalog::Source;

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
            sources: vec![Source::Http { url: "http://127.0.0.1:9/x".into() }],
        }
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
