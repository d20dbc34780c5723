//! The device key: what turns a person's click into something the kernel will believe.
//!
//! Approvals must be unforgeable by the model's process, by tool output carrying a prompt
//! injection, and by anyone who can edit the ledger file. So the secret lives where none of
//! them look: the OS keyring (macOS Keychain, Windows Credential Manager, the Secret Service or
//! kernel keyutils on Linux). Where there is no keyring — a headless Linux box, CI — it falls
//! back to a key file readable only by its owner (0600 on Unix; on Windows, the profile's access
//! list: [`KEY_FILE_PROTECTION`]), and `smart doctor` says so.
//!
//! Which store holds the key is recorded in `keystore.json` next to the ledger, so a later run
//! looks in the same place instead of silently making a new key (which would orphan every
//! existing approval).

mod key;
mod store;

pub use key::{DeviceKey, new_nonce};
pub use store::{KEY_FILE_PROTECTION, KeyStoreKind, SignalsError, create_device_key, load_device_key, store_info};
