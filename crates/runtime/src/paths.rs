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

/// The person's home folder, for `~` in what they type: `$HOME` where it is set (Unix, and the
/// Windows shells that set it), else the system's own answer (the profile folder on Windows,
/// through `directories`). Windows has no `HOME` of its own: reading only that left `~`
/// unexpanded there.
pub fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(|| directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf()))
}

/// `~` and `~/x` (and `~\x` where `\` is a separator) under `home`; `None` for anything else
/// (`~bob/x` is another person's home, which SMART does not guess).
pub fn expand_tilde(raw: &str, home: &Path) -> Option<PathBuf> {
    let rest = raw.strip_prefix('~')?;
    if rest.is_empty() {
        return Some(home.to_path_buf());
    }
    let rest = rest.strip_prefix('/').or_else(|| rest.strip_prefix(std::path::MAIN_SEPARATOR))?;
    Some(home.join(rest))
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
                let expanded = match home.and_then(|h| expand_tilde(s, h)) {
                    Some(p) => Some(p),
                    None if !Path::new(s).is_absolute() => Some(base.join(s)),
                    None => None,
                };
                if let Some(p) = expanded {
                    *v = serde_json::Value::String(p.to_string_lossy().into_owned());
                }
            }
            Ok(())
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tilde_is_the_persons_own_home_and_nothing_else() {
        let home = Path::new("/home/ann");
        assert_eq!(expand_tilde("~", home), Some(home.to_path_buf()));
        assert_eq!(expand_tilde("~/notes/a.txt", home), Some(home.join("notes/a.txt")));
        assert_eq!(expand_tilde("~bob/x", home), None, "another person's home is not guessed");
        assert_eq!(expand_tilde("notes/~", home), None);
        let backslash = expand_tilde("~\\notes", home);
        if cfg!(windows) {
            assert_eq!(backslash, Some(home.join("notes")));
        } else {
            assert_eq!(backslash, None, "a backslash is part of a name on Unix");
        }
    }

    #[test]
    fn the_home_folder_is_home_where_it_is_set() {
        match std::env::var_os("HOME").filter(|h| !h.is_empty()) {
            Some(h) => assert_eq!(home_dir(), Some(PathBuf::from(h))),
            None => assert!(home_dir().is_some(), "the system knows a home folder without HOME"),
        }
    }

    #[test]
    fn path_arguments_are_made_absolute_under_home_or_the_working_folder() {
        let (base, home) = (std::env::temp_dir().join("work"), std::env::temp_dir().join("ann"));
        let absolute = base.join("kept.txt").to_string_lossy().into_owned();
        for (given, want) in [
            ("~/a.txt".to_string(), home.join("a.txt")),
            ("b.txt".to_string(), base.join("b.txt")),
            (absolute.clone(), PathBuf::from(&absolute)),
        ] {
            let mut args = serde_json::json!({ "path": given });
            absolutize_args("fs.read", &mut args, &base, Some(&home));
            assert_eq!(args["path"], serde_json::json!(want.to_string_lossy()), "{given}");
        }
    }
}
