//! The data dir's layout, in one place.

use std::path::{Path, PathBuf};

pub struct DataDir {
    pub root: PathBuf,
}

impl DataDir {
    pub fn new(root: impl Into<PathBuf>) -> DataDir {
        DataDir { root: root.into() }
    }

    pub fn ledger(&self) -> PathBuf {
        self.root.join("ledger.db")
    }

    pub fn quarantine(&self) -> PathBuf {
        self.root.join("quarantine")
    }

    /// A readable copy of the policy in force (the authoritative one is in the genesis event).
    pub fn policy_copy(&self) -> PathBuf {
        self.root.join("policy.toml")
    }

    pub fn path(&self) -> &Path {
        &self.root
    }
}

/// The platform's data dir for SMART (`~/.local/share/smart` on Linux).
pub fn default_data_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("dev", "smart", "smart").map(|d| d.data_dir().to_path_buf())
}
