//! Signed user signals: the only way a person's "yes" reaches the kernel (design.md §7).
//!
//! A click in the confirmation dialog (or `smart approve`) becomes a [`UserSignal`]: the pending
//! call's id and hash, a single-use nonce, a validity window and the decision, signed with the
//! device's Ed25519 key. The key never enters the database or the model's process, so neither a
//! prompt-injected model nor someone editing the ledger can mint an approval. The kernel checks
//! the signature against the device key recorded at genesis; it does not sign anything itself.

use crate::canonical::{Hash, canonical_bytes};
use crate::refusal::{Refusal, RefusalCode};
use crate::time::Millis;
use ed25519_dalek::{Signature, Verifier, VerifyingKey};
use serde::{Deserialize, Serialize};

/// Domain separation: a signature over these bytes can never be mistaken for one over
/// anything else this key signs.
pub const SIGNAL_DOMAIN: &str = "smart.user_signal.v1";

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Approve,
    Deny,
    Emergency,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserSignal {
    /// The pending call decided on; empty for an emergency stop.
    pub pending_id: String,
    /// The hash of the call shown to the person; `None` for an emergency stop.
    pub call_hash: Option<Hash>,
    /// 128 random bits, hex. Single use.
    pub nonce: String,
    pub issued_at: Millis,
    pub expires_at: Millis,
    pub decision: Decision,
    /// The signer's Ed25519 public key, hex.
    pub public_key: String,
    /// Ed25519 signature over [`UserSignal::signing_bytes`], hex. `None` means unsigned.
    #[serde(default)]
    pub signature: Option<String>,
}

impl UserSignal {
    /// The exact bytes that are signed: canonical JSON of every field but the key and signature,
    /// with the domain tag.
    pub fn signing_bytes(&self) -> Result<Vec<u8>, serde_json::Error> {
        canonical_bytes(&serde_json::json!({
            "domain": SIGNAL_DOMAIN,
            "pending_id": self.pending_id,
            "call_hash": self.call_hash,
            "nonce": self.nonce,
            "issued_at": self.issued_at,
            "expires_at": self.expires_at,
            "decision": self.decision,
        }))
    }

    /// Checks that the signal is signed, by `device_key` (hex), over exactly these fields.
    pub fn verify_signature(&self, device_key: &str) -> Result<(), Refusal> {
        let bad = |why: String| Refusal::new(RefusalCode::SignatureInvalid, why);
        let Some(sig_hex) = &self.signature else {
            return Err(bad("the signal is unsigned".into()));
        };
        if !self.public_key.eq_ignore_ascii_case(device_key) {
            return Err(bad(format!(
                "the signal is signed by key {}…, not by this device's key {}…",
                self.public_key.get(..12).unwrap_or(&self.public_key),
                device_key.get(..12).unwrap_or(device_key)
            )));
        }
        let key_bytes: [u8; 32] = hex::decode(device_key)
            .ok()
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| bad("the device key recorded at genesis is malformed".into()))?;
        let key = VerifyingKey::from_bytes(&key_bytes).map_err(|e| bad(format!("device key unusable: {e}")))?;
        let sig_bytes: [u8; 64] = hex::decode(sig_hex)
            .ok()
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| bad("the signature is not 64 bytes of hex".into()))?;
        let sig = Signature::from_bytes(&sig_bytes);
        let msg = self.signing_bytes().map_err(|e| bad(format!("signal cannot be encoded: {e}")))?;
        key.verify(&msg, &sig).map_err(|_| bad("the signature does not match the signal's contents".into()))
    }

    /// Whether `now` lies inside the validity window, within the policy's limits.
    pub fn check_window(&self, now: Millis, max_ttl_ms: u64, max_skew_ms: u64) -> Result<(), Refusal> {
        let expired = |why: String| Refusal::new(RefusalCode::ApprovalExpired, why);
        if self.expires_at <= self.issued_at {
            return Err(expired("the signal's window is empty".into()));
        }
        if self.expires_at.since(self.issued_at) > max_ttl_ms {
            return Err(expired(format!(
                "the signal claims a validity of {} ms, more than the {} ms allowed",
                self.expires_at.since(self.issued_at),
                max_ttl_ms
            )));
        }
        if self.issued_at > now.plus(max_skew_ms) {
            return Err(expired("the signal is issued in the future".into()));
        }
        if now >= self.expires_at {
            return Err(expired(format!("the signal expired {} ms ago", now.since(self.expires_at))));
        }
        Ok(())
    }
}
