//! Signing with the device key.

use ed25519_dalek::{Signer, SigningKey};
use smart_kernel::{Decision, Hash, Millis, UserSignal};

use crate::store::SignalsError;

/// The domain of the seal's MAC key (part of every seal ever written: never change it).
const SEAL_CONTEXT: &str = "smart ledger event seal v1";

pub struct DeviceKey {
    signing: SigningKey,
    /// The seal's MAC key, derived from the secret once (deriving it is most of what a seal
    /// costs, and verify checks one per event).
    seal: [u8; 32],
}

impl Drop for DeviceKey {
    /// The seal key is as secret as the signing key (which wipes itself): wiped too.
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.seal);
    }
}

impl std::fmt::Debug for DeviceKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeviceKey({}…)", &self.public_hex()[..12])
    }
}

impl DeviceKey {
    pub(crate) fn from_secret(bytes: [u8; 32]) -> DeviceKey {
        DeviceKey { signing: SigningKey::from_bytes(&bytes), seal: blake3::derive_key(SEAL_CONTEXT, &bytes) }
    }

    pub(crate) fn generate() -> Result<DeviceKey, SignalsError> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(|e| SignalsError::Random(e.to_string()))?;
        Ok(DeviceKey::from_secret(bytes))
    }

    pub(crate) fn secret_hex(&self) -> String {
        hex::encode(self.signing.to_bytes())
    }

    pub fn public_hex(&self) -> String {
        hex::encode(self.signing.verifying_key().to_bytes())
    }

    /// Hex Ed25519 signature over `msg`.
    pub fn sign_hex(&self, msg: &[u8]) -> String {
        hex::encode(self.signing.sign(msg).to_bytes())
    }

    /// Hex keyed blake3 MAC of a ledger event hash. The MAC key is derived from the device
    /// secret (never stored), so only this device can seal an event, and checking a seal costs
    /// about a microsecond instead of a signature verification.
    pub fn seal_hex(&self, hash: &[u8; 32]) -> String {
        blake3::keyed_hash(&self.seal, hash).to_hex().to_string()
    }

    /// [`DeviceKey::sign_hex`] for one message, as something another thread may own (the
    /// ledger signs its head on a thread of its own while SQLite inserts). It holds a copy of
    /// the signing key, which wipes itself when dropped, as the key does.
    pub fn detached_signer(&self) -> impl FnOnce(&[u8]) -> String + Send + 'static {
        let signing = self.signing.clone();
        move |msg: &[u8]| hex::encode(signing.sign(msg).to_bytes())
    }

    /// Whether `stored` is [`DeviceKey::seal_hex`] of `hash`, worked out on the stack. The stored
    /// text is read as the MAC it spells and compared in constant time (`blake3::Hash`'s `==`),
    /// not written out as text per row; it must still be exactly what `seal_hex` writes —
    /// lowercase — so that a seal is never accepted in a form this device never stored.
    pub fn seal_matches(&self, hash: &[u8; 32], stored: &str) -> bool {
        !stored.bytes().any(|b| b.is_ascii_uppercase())
            && blake3::Hash::from_hex(stored).is_ok_and(|s| s == blake3::keyed_hash(&self.seal, hash))
    }

    /// A signed user signal: the person's decision on `pending_id` (bound to `call_hash`),
    /// valid from `now` for `ttl_ms`, with a fresh nonce.
    pub fn sign_signal(
        &self,
        pending_id: &str,
        call_hash: Option<Hash>,
        decision: Decision,
        now: Millis,
        ttl_ms: u64,
    ) -> Result<UserSignal, SignalsError> {
        let mut signal = UserSignal {
            pending_id: pending_id.to_string(),
            call_hash,
            nonce: new_nonce()?,
            issued_at: now,
            expires_at: now.plus(ttl_ms),
            decision,
            public_key: self.public_hex(),
            signature: None,
        };
        let msg = signal.signing_bytes().map_err(|e| SignalsError::Encoding(e.to_string()))?;
        signal.signature = Some(self.sign_hex(&msg));
        Ok(signal)
    }
}

/// 128 random bits, hex.
pub fn new_nonce() -> Result<String, SignalsError> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).map_err(|e| SignalsError::Random(e.to_string()))?;
    Ok(hex::encode(b))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_seal_matches_only_as_seal_hex_writes_it() {
        let key = DeviceKey::from_secret([7; 32]);
        let other = DeviceKey::from_secret([8; 32]);
        let (hash, next) = ([1u8; 32], [2u8; 32]);
        let seal = key.seal_hex(&hash);
        assert!(key.seal_matches(&hash, &seal));
        assert!(!key.seal_matches(&next, &seal), "another event's hash");
        assert!(!other.seal_matches(&hash, &seal), "another device's key");
        for bad in [seal.to_uppercase(), seal[..62].to_string(), format!("{seal}00"), String::new(), "zz".repeat(32)] {
            assert!(!key.seal_matches(&hash, &bad), "{bad:?}");
        }
    }
}
