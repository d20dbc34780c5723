//! One event's integrity, for a person looking at it.
//!
//! `verify` walks the whole chain and stops at the first problem; the timeline's detail pane
//! wants the opposite: every check about the one row on screen, each answered separately, so it
//! can say "hash ok, link ok, seal ok, signature valid" (or which of those failed) without
//! reading a million rows. The checks are the same ones `verify` makes, row by row.

use crate::store::{HeadSigner, Ledger, LedgerError};
use serde::Serialize;
use smart_kernel::Hash;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EventCheck {
    /// The row's hash matches its content.
    pub hash_ok: bool,
    /// `prev_hash` is the previous row's hash (genesis: all zeros).
    pub link_ok: bool,
    /// The device's seal over the hash; `None` when the device key is not available here.
    pub seal_ok: Option<bool>,
    /// For events that carry a person's signed signal (approve, deny, emergency): whether its
    /// Ed25519 signature verifies against the genesis device key. `None` for other events.
    pub signature_ok: Option<bool>,
    /// Why the signature failed, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature_error: Option<String>,
}

/// The checks for event `seq`; `None` when there is no such event. `device_key` is the genesis
/// key (hex) that signed signals must verify against.
pub fn inspect(
    ledger: &Ledger,
    seq: u64,
    device_key: &str,
    sealer: Option<&dyn HeadSigner>,
) -> Result<Option<EventCheck>, LedgerError> {
    let Some(row) = ledger.get(seq)? else {
        return Ok(None);
    };
    let expected_prev = match seq {
        0 | 1 => Hash::ZERO.to_hex(),
        _ => ledger.get(seq - 1)?.map(|p| p.hash).unwrap_or_default(),
    };
    let hash_ok = matches!(row.compute_hash(), Ok(h) if h.to_hex() == row.hash);
    let seal_ok = sealer.map(|s| Hash::from_hex(&row.hash).map(|h| s.seal_matches(&h, &row.seal)).unwrap_or(false));
    let (signature_ok, signature_error) = match row.event() {
        Ok(ev) => match ev.signal() {
            Some(signal) => match signal.verify_signature(device_key) {
                Ok(()) => (Some(true), None),
                Err(r) => (Some(false), Some(r.reason)),
            },
            None => (None, None),
        },
        Err(e) => (matches!(row.kind.as_str(), "approved" | "denied" | "emergency").then_some(false), Some(e)),
    };
    Ok(Some(EventCheck { hash_ok, link_ok: row.prev_hash == expected_prev, seal_ok, signature_ok, signature_error }))
}
