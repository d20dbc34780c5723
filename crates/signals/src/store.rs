//! Where the device key lives, and finding it again.

use crate::key::DeviceKey;
use serde::{Deserialize, Serialize};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum SignalsError {
    #[error("no device key for {0}: this data dir was not initialised here, or its key was removed")]
    NoKey(PathBuf),
    #[error("the device key file {path} is readable by others (mode {mode:o}); run `chmod 600 {path}`")]
    LooseFile { path: PathBuf, mode: u32 },
    #[error("the device key in {where_} is damaged: {reason}")]
    Damaged { where_: String, reason: String },
    #[error("OS keyring: {0}")]
    Keyring(String),
    #[error("cannot read or write {path}: {reason}")]
    Io { path: PathBuf, reason: String },
    #[error("no randomness available: {0}")]
    Random(String),
    #[error("cannot encode: {0}")]
    Encoding(String),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyStoreKind {
    Keyring,
    File,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Record {
    store: KeyStoreKind,
    /// The keyring entry's user name (keyring only).
    #[serde(default)]
    account: String,
    public_key: String,
}

const SERVICE: &str = "dev.smart.assistant";
const RECORD: &str = "keystore.json";
const KEY_FILE: &str = "device.key";

fn io(path: &Path, e: impl std::fmt::Display) -> SignalsError {
    SignalsError::Io { path: path.to_path_buf(), reason: e.to_string() }
}

/// Which store holds this data dir's key, and its public key, if initialised.
pub fn store_info(data_dir: &Path) -> Option<(KeyStoreKind, String)> {
    let text = fs::read_to_string(data_dir.join(RECORD)).ok()?;
    let r: Record = serde_json::from_str(&text).ok()?;
    Some((r.store, r.public_key))
}

/// Creates the device key for a data dir. `preference`: `Some(kind)` forces a store; `None`
/// tries the keyring and falls back to the file. Returns the key and a warning for the person
/// when it had to fall back.
pub fn create_device_key(
    data_dir: &Path,
    preference: Option<KeyStoreKind>,
) -> Result<(DeviceKey, Option<String>), SignalsError> {
    let key = DeviceKey::generate()?;
    let account = format!("device-key:{}", data_dir.display());
    let mut warning = None;
    let store = match preference {
        Some(KeyStoreKind::File) => KeyStoreKind::File,
        Some(KeyStoreKind::Keyring) => {
            keyring_put(&account, &key)?;
            KeyStoreKind::Keyring
        }
        None => match keyring_put(&account, &key) {
            Ok(()) => KeyStoreKind::Keyring,
            Err(e) => {
                warning =
                    Some(format!("no usable OS keyring ({e}); the device key is in {} instead", KEY_FILE_PROTECTION));
                KeyStoreKind::File
            }
        },
    };
    if store == KeyStoreKind::File {
        write_key_file(&data_dir.join(KEY_FILE), &key)?;
    }
    let record = Record {
        store,
        account: if store == KeyStoreKind::Keyring { account } else { String::new() },
        public_key: key.public_hex(),
    };
    let text = serde_json::to_string_pretty(&record).map_err(|e| SignalsError::Encoding(e.to_string()))?;
    let path = data_dir.join(RECORD);
    fs::write(&path, text).map_err(|e| io(&path, e))?;
    Ok((key, warning))
}

/// Loads this data dir's key from wherever it was created, and checks it is the recorded one.
pub fn load_device_key(data_dir: &Path) -> Result<DeviceKey, SignalsError> {
    let path = data_dir.join(RECORD);
    let text = fs::read_to_string(&path).map_err(|_| SignalsError::NoKey(data_dir.to_path_buf()))?;
    let record: Record = serde_json::from_str(&text)
        .map_err(|e| SignalsError::Damaged { where_: path.display().to_string(), reason: e.to_string() })?;
    let key = match record.store {
        KeyStoreKind::File => read_key_file(&data_dir.join(KEY_FILE))?,
        KeyStoreKind::Keyring => keyring_get(&record.account)?,
    };
    if key.public_hex() != record.public_key {
        return Err(SignalsError::Damaged {
            where_: format!("{:?} store", record.store),
            reason: "the stored key is not the one recorded at init".into(),
        });
    }
    Ok(key)
}

fn parse_secret(text: &str, where_: &str) -> Result<DeviceKey, SignalsError> {
    let bytes: [u8; 32] = hex::decode(text.trim())
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| SignalsError::Damaged { where_: where_.to_string(), reason: "not 32 bytes of hex".into() })?;
    Ok(DeviceKey::from_secret(bytes))
}

fn keyring_put(account: &str, key: &DeviceKey) -> Result<(), SignalsError> {
    let entry = keyring::Entry::new(SERVICE, account).map_err(|e| SignalsError::Keyring(e.to_string()))?;
    entry.set_password(&key.secret_hex()).map_err(|e| SignalsError::Keyring(e.to_string()))?;
    // Some backends accept a write they cannot read back (keyutils outside a session keyring):
    // only a round trip proves the store works.
    let back =
        entry.get_password().map_err(|e| SignalsError::Keyring(format!("written but not readable back: {e}")))?;
    if back != key.secret_hex() {
        return Err(SignalsError::Keyring("read back a different value".into()));
    }
    Ok(())
}

fn keyring_get(account: &str) -> Result<DeviceKey, SignalsError> {
    let entry = keyring::Entry::new(SERVICE, account).map_err(|e| SignalsError::Keyring(e.to_string()))?;
    let secret = entry
        .get_password()
        .map_err(|e| SignalsError::Keyring(format!("cannot read the device key ({e}); is the keyring unlocked?")))?;
    parse_secret(&secret, "the OS keyring")
}

/// What protects the key file, in the words a warning uses. Unix: the file's mode. Windows has
/// no mode bits; a new file takes its folder's access list, and the data dir is in the person's
/// profile (`%APPDATA%`), which Windows opens only to that account, SYSTEM and administrators —
/// the same people who could read a 0600 file on Unix (root). A data dir moved elsewhere with
/// `SMART_DATA_DIR` gets that folder's list.
#[cfg(unix)]
pub const KEY_FILE_PROTECTION: &str = "a file in the data dir that only you can read (mode 0600)";
#[cfg(windows)]
pub const KEY_FILE_PROTECTION: &str =
    "a file in the data dir, which Windows lets only your account and administrators read (your profile's access list)";
#[cfg(not(any(unix, windows)))]
pub const KEY_FILE_PROTECTION: &str = "a file in the data dir";

fn write_key_file(path: &Path, key: &DeviceKey) -> Result<(), SignalsError> {
    let mut opts = fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut f = opts.open(path).map_err(|e| io(path, e))?;
    f.write_all(key.secret_hex().as_bytes()).map_err(|e| io(path, e))?;
    f.sync_all().map_err(|e| io(path, e))
}

fn read_key_file(path: &Path) -> Result<DeviceKey, SignalsError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let meta = fs::metadata(path).map_err(|_| SignalsError::NoKey(path.to_path_buf()))?;
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(SignalsError::LooseFile { path: path.to_path_buf(), mode });
        }
    }
    let text = fs::read_to_string(path).map_err(|_| SignalsError::NoKey(path.to_path_buf()))?;
    parse_secret(&text, &path.display().to_string())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use crate::new_nonce;
    use smart_kernel::{Decision, Hash, Millis};

    /// Regression (issue 19): the fallback's warning said "0600" on Windows, which has no modes.
    #[test]
    fn the_key_file_warning_names_this_system_s_protection() {
        #[cfg(unix)]
        assert!(KEY_FILE_PROTECTION.contains("0600"), "{KEY_FILE_PROTECTION}");
        #[cfg(windows)]
        assert!(
            !KEY_FILE_PROTECTION.contains("0600") && KEY_FILE_PROTECTION.contains("administrators"),
            "{KEY_FILE_PROTECTION}"
        );
    }

    #[test]
    fn a_file_key_round_trips_and_signs_verifiable_signals() {
        let dir = tempfile::tempdir().unwrap();
        let (key, warning) = create_device_key(dir.path(), Some(KeyStoreKind::File)).unwrap();
        assert!(warning.is_none());
        let again = load_device_key(dir.path()).unwrap();
        assert_eq!(key.public_hex(), again.public_hex());
        let s = again.sign_signal("p1", Some(Hash::of_bytes(b"c")), Decision::Approve, Millis(10), 1000).unwrap();
        assert!(s.verify_signature(&key.public_hex()).is_ok());
        assert_eq!(store_info(dir.path()).unwrap().0, KeyStoreKind::File);
    }

    #[cfg(unix)]
    #[test]
    fn the_key_file_is_0600_and_a_loosened_one_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        create_device_key(dir.path(), Some(KeyStoreKind::File)).unwrap();
        let path = dir.path().join(KEY_FILE);
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        assert!(matches!(load_device_key(dir.path()), Err(SignalsError::LooseFile { .. })));
    }

    #[test]
    fn a_swapped_key_file_is_detected() {
        let dir = tempfile::tempdir().unwrap();
        create_device_key(dir.path(), Some(KeyStoreKind::File)).unwrap();
        let path = dir.path().join(KEY_FILE);
        let other = DeviceKey::generate().unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        }
        fs::write(&path, other.secret_hex()).unwrap();
        assert!(matches!(load_device_key(dir.path()), Err(SignalsError::Damaged { .. })));
    }

    #[test]
    fn a_data_dir_without_a_key_says_so() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(load_device_key(dir.path()), Err(SignalsError::NoKey(_))));
    }

    #[test]
    fn nonces_are_unique() {
        let a = new_nonce().unwrap();
        let b = new_nonce().unwrap();
        assert_ne!(a, b);
        assert_eq!(a.len(), 32);
    }
}
