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

    /// What running calls leave while they run: a lock per call held by the process running it,
    /// and the step log of a batch (see `crate::in_flight`, `smart_tools::exec::steps`).
    pub fn in_flight(&self) -> PathBuf {
        self.root.join("in-flight")
    }

    /// The record store `db.upsert` writes.
    pub fn records(&self) -> PathBuf {
        self.root.join("records.db")
    }

    /// The library index (RAG++).
    pub fn index(&self) -> PathBuf {
        self.root.join("index.db")
    }

    /// Where executors work: the allowed roots and SMART's own places in this data dir.
    pub fn places(&self, roots: Vec<PathBuf>) -> smart_tools::Places {
        smart_tools::Places {
            roots,
            quarantine: self.quarantine(),
            index: self.index(),
            records: self.records(),
            steps: Some(self.in_flight()),
        }
    }

    /// A readable copy of the policy in force (the authoritative one is in the genesis event).
    pub fn policy_copy(&self) -> PathBuf {
        self.root.join("policy.toml")
    }

    /// The continuous evaluator's window of recent turns (fast, non-authoritative; what it
    /// concludes is ledgered as proposals, so losing this file loses only a few turns of context).
    pub fn recent_turns(&self) -> PathBuf {
        self.root.join("recent_turns.json")
    }

    pub fn path(&self) -> &Path {
        &self.root
    }
}

/// The platform's data dir for SMART (`~/.local/share/smart` on Linux).
pub fn default_data_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("dev", "smart", "smart").map(|d| d.data_dir().to_path_buf())
}

/// Makes the path arguments of a call absolute: `~/x` under `home`, relative names under `base`.
/// The kernel accepts only absolute paths (and then resolves and confines them itself); this is
/// only the person's — or a proposer's — shorthand, expanded lexically before anything sees it.
pub fn absolutize_args(tool: &str, args: &mut serde_json::Value, base: &Path, home: Option<&Path>) {
    let Some(spec) = smart_tools::specs().into_iter().find(|s| s.name == tool) else { return };
    for pattern in &spec.path_args {
        let _ = smart_kernel::tool::visit_pattern::<()>(args, pattern, &mut |v| {
            if let Some(s) = v.as_str()
                && !s.is_empty()
            {
                let tilde = s.strip_prefix("~/").or(if s == "~" { Some("") } else { None });
                let expanded = match (tilde, home) {
                    (Some(rest), Some(h)) => Some(h.join(rest)),
                    _ if !Path::new(s).is_absolute() => Some(base.join(s)),
                    _ => None,
                };
                if let Some(p) = expanded {
                    *v = serde_json::Value::String(p.to_string_lossy().into_owned());
                }
            }
            Ok(())
        });
    }
}
