//! The person's settings for the app: push-to-talk hotkey, wake word, voice output, overlay.
//!
//! They live in `<data dir>/settings.toml`, beside the ledger, so one data dir is one person's
//! whole setup. None of them is authority: the kernel's policy (roots, gates, budgets) is fixed
//! in the ledger's genesis and is not edited here; the model choice is `models.toml`
//! (`smart models use`). A settings file that does not parse is reported, never overwritten
//! with defaults behind the person's back.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const DEFAULT_HOTKEY: &str = "CommandOrControl+Shift+Space";

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// The global push-to-talk shortcut, in Tauri's accelerator syntax.
    pub hotkey: String,
    /// Listen for the wake phrase (needs the voice worker).
    pub wake_word: bool,
    pub wake_phrase: String,
    /// Speak replies aloud (needs the voice worker).
    pub voice_output: bool,
    /// Where the overlay shows a spoken turn (`overlay.rs`), or off.
    pub overlay: OverlayPlace,
}

/// The screen edge the overlay appears at.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum OverlayPlace {
    Off,
    Top,
    #[default]
    Bottom,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            hotkey: DEFAULT_HOTKEY.into(),
            wake_word: false,
            wake_phrase: "hey smart".into(),
            voice_output: false,
            overlay: OverlayPlace::Bottom,
        }
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SettingsError {
    #[error("{path} is not a valid settings file ({reason}); fix or delete it")]
    Unreadable { path: String, reason: String },
    #[error("cannot save the settings to {path}: {reason}")]
    Unwritable { path: String, reason: String },
    #[error("the wake phrase must be 2 to 40 characters of letters and spaces, got {0:?}")]
    WakePhrase(String),
    #[error("{0:?} is not a shortcut: use keys joined with +, e.g. CommandOrControl+Shift+Space")]
    Hotkey(String),
}

fn path(data_dir: &Path) -> PathBuf {
    data_dir.join("settings.toml")
}

/// The saved settings; defaults when there is no file yet.
pub fn load(data_dir: &Path) -> Result<Settings, SettingsError> {
    let p = path(data_dir);
    match std::fs::read_to_string(&p) {
        Ok(text) => toml::from_str(&text)
            .map_err(|e| SettingsError::Unreadable { path: p.display().to_string(), reason: e.to_string() }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Settings::default()),
        Err(e) => Err(SettingsError::Unreadable { path: p.display().to_string(), reason: e.to_string() }),
    }
}

/// Checks `s`; `hotkey_ok` says whether the platform's shortcut parser accepts the hotkey.
pub fn validate(s: &Settings, hotkey_ok: impl Fn(&str) -> bool) -> Result<(), SettingsError> {
    let phrase = s.wake_phrase.trim();
    let len = phrase.chars().count();
    if !(2..=40).contains(&len) || !phrase.chars().all(|c| c.is_alphabetic() || c == ' ') {
        return Err(SettingsError::WakePhrase(s.wake_phrase.clone()));
    }
    if s.hotkey.trim().is_empty() || !hotkey_ok(s.hotkey.trim()) {
        return Err(SettingsError::Hotkey(s.hotkey.clone()));
    }
    Ok(())
}

/// Saves `s` atomically (write a temp file, then rename), so a crash leaves the old file or the
/// new one, never half of one.
pub fn save(data_dir: &Path, s: &Settings) -> Result<(), SettingsError> {
    let p = path(data_dir);
    let fail = |e: String| SettingsError::Unwritable { path: p.display().to_string(), reason: e };
    let text = toml::to_string_pretty(s).map_err(|e| fail(e.to_string()))?;
    let tmp = data_dir.join(".settings.toml.tmp");
    std::fs::write(&tmp, text).map_err(|e| fail(e.to_string()))?;
    std::fs::rename(&tmp, &p).map_err(|e| fail(e.to_string()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn no_file_means_defaults_and_a_saved_file_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(load(dir.path()).unwrap(), Settings::default());
        let s = Settings {
            hotkey: "Alt+F9".into(),
            wake_word: true,
            wake_phrase: "hello computer".into(),
            voice_output: true,
            overlay: OverlayPlace::Top,
        };
        save(dir.path(), &s).unwrap();
        assert_eq!(load(dir.path()).unwrap(), s);
        // A file written before the overlay setting existed still reads, with the default.
        std::fs::write(dir.path().join("settings.toml"), "hotkey = \"Alt+F9\"\nwake_word = true\n").unwrap();
        assert_eq!(load(dir.path()).unwrap().overlay, OverlayPlace::Bottom);
        assert!(!dir.path().join(".settings.toml.tmp").exists());
    }

    #[test]
    fn a_broken_file_is_reported_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("settings.toml"), "hotkey = [").unwrap();
        assert!(matches!(load(dir.path()), Err(SettingsError::Unreadable { .. })));
        std::fs::write(dir.path().join("settings.toml"), "volume = 11\n").unwrap();
        let e = load(dir.path()).unwrap_err().to_string();
        assert!(e.contains("volume"), "{e}");
        assert_eq!(std::fs::read_to_string(dir.path().join("settings.toml")).unwrap(), "volume = 11\n");
    }

    #[test]
    fn bad_values_are_refused_with_the_reason() {
        let ok = |_: &str| true;
        let mut s = Settings::default();
        assert_eq!(validate(&s, ok), Ok(()));
        s.wake_phrase = "x".into();
        assert!(matches!(validate(&s, ok), Err(SettingsError::WakePhrase(_))));
        s.wake_phrase = "rm -rf /".into();
        assert!(matches!(validate(&s, ok), Err(SettingsError::WakePhrase(_))));
        s.wake_phrase = "hey smart".into();
        assert!(matches!(validate(&s, |_| false), Err(SettingsError::Hotkey(_))));
        s.hotkey = "  ".into();
        assert!(matches!(validate(&s, ok), Err(SettingsError::Hotkey(_))));
    }
}
