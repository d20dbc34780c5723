//! Where the app's data lives.
//!
//! The status view is the same JSON object `smart status --json` prints (the contract the UI's
//! `ui/src/status.ts` reads): `now_ms`, `stance`, `lease`, `frontier`, `gates`, `budget`,
//! `pending`.

use std::ffi::OsString;
use std::path::PathBuf;

/// Environment variable that overrides the data directory.
pub const DATA_DIR_ENV: &str = "SMART_DATA_DIR";

/// The data directory: `$SMART_DATA_DIR` when set and non-empty, else the platform data
/// directory (`~/.local/share/smart` on Linux, `~/Library/Application Support/dev.smart.smart`
/// on macOS, `%APPDATA%\smart\smart\data` on Windows).
pub fn data_dir() -> Result<PathBuf, String> {
    resolve_data_dir(std::env::var_os(DATA_DIR_ENV), platform_data_dir)
}

fn platform_data_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("dev", "smart", "smart").map(|d| d.data_dir().to_path_buf())
}

/// [`data_dir`] with its inputs passed in, so it can be tested without touching the environment.
fn resolve_data_dir(
    env_value: Option<OsString>,
    platform: impl FnOnce() -> Option<PathBuf>,
) -> Result<PathBuf, String> {
    match env_value {
        Some(v) if !v.is_empty() => Ok(PathBuf::from(v)),
        _ => platform().ok_or_else(|| format!("no home directory found for the data directory: set {DATA_DIR_ENV}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_value_wins_over_platform_dir() {
        let got = resolve_data_dir(Some(OsString::from("/tmp/smart-x")), || Some(PathBuf::from("/platform")));
        assert_eq!(got, Ok(PathBuf::from("/tmp/smart-x")));
    }

    #[test]
    fn empty_or_missing_env_falls_back_to_platform_dir() {
        let platform = || Some(PathBuf::from("/platform"));
        assert_eq!(resolve_data_dir(None, platform), Ok(PathBuf::from("/platform")));
        assert_eq!(resolve_data_dir(Some(OsString::new()), platform), Ok(PathBuf::from("/platform")));
    }

    #[test]
    fn no_platform_dir_is_an_error_naming_the_variable() {
        let got = resolve_data_dir(None, || None);
        assert!(matches!(&got, Err(e) if e.contains(DATA_DIR_ENV)), "{got:?}");
    }
}
