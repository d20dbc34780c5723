//! One ledger row and how its hash is made.
//!
//! `hash = blake3(prev_hash ‖ canonical JSON of every other column)`. The payload enters as the
//! exact text stored, so a single flipped byte anywhere in a row changes its hash, and the
//! sequence number is inside the hash, so rows cannot trade places.

use serde::Serialize;
use smart_kernel::{Hash, KernelEvent, Millis, canonical_bytes};

/// An event on its way in.
pub struct NewEvent<'a> {
    pub corr: &'a str,
    pub event: &'a KernelEvent,
    pub at: Millis,
    pub wall_ms: u64,
    pub state_before: Hash,
    pub state_after: Hash,
}

/// A row as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StoredEvent {
    pub seq: u64,
    pub corr: String,
    pub kind: String,
    pub payload: String,
    pub at_ms: u64,
    pub wall_ms: u64,
    pub state_before: String,
    pub state_after: String,
    pub prev_hash: String,
    pub hash: String,
    /// Keyed MAC of `hash` with the device's seal key: only the device can make one.
    pub seal: String,
}

impl StoredEvent {
    /// The hash this row should carry, given its own `prev_hash`.
    pub fn compute_hash(&self) -> Result<Hash, String> {
        let prev = Hash::from_hex(&self.prev_hash).map_err(|e| format!("prev_hash: {e}"))?;
        Ok(chain_hash(
            &prev,
            self.seq,
            &self.corr,
            &self.kind,
            &self.payload,
            self.at_ms,
            self.wall_ms,
            &self.state_before,
            &self.state_after,
        ))
    }

    pub fn event(&self) -> Result<KernelEvent, String> {
        serde_json::from_str(&self.payload).map_err(|e| format!("payload is not a kernel event: {e}"))
    }
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn chain_hash(
    prev: &Hash,
    seq: u64,
    corr: &str,
    kind: &str,
    payload: &str,
    at_ms: u64,
    wall_ms: u64,
    before: &str,
    after: &str,
) -> Hash {
    let body = serde_json::json!({
        "seq": seq, "corr": corr, "kind": kind, "payload": payload,
        "at_ms": at_ms, "wall_ms": wall_ms, "state_before": before, "state_after": after,
    });
    let mut hasher = blake3::Hasher::new();
    hasher.update(&prev.0);
    // Canonical bytes of a map of strings and integers cannot fail; an empty fallback would
    // still produce a hash that verify then refuses.
    hasher.update(&canonical_bytes(&body).unwrap_or_default());
    Hash(*hasher.finalize().as_bytes())
}

/// The message the device key signs to vouch for the ledger's head.
pub fn head_message(seq: u64, hash: &str) -> Vec<u8> {
    canonical_bytes(&serde_json::json!({"domain": "smart.ledger_head.v1", "seq": seq, "hash": hash}))
        .unwrap_or_default()
}
