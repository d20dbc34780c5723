//! `ledger replay`: rebuild kernel state from the events alone and compare state hashes.
//!
//! Each event is applied to the state the previous ones produced; the recorded `state_before`
//! and `state_after` must equal the recomputed hashes. The first sequence where they differ is
//! the divergence — the point where the ledger and the kernel's rules stop telling the same story.

use crate::store::{HeadSigner, Ledger, LedgerError};
use serde::Serialize;
use smart_kernel::{KernelState, Millis};

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReplayReport {
    pub ok: bool,
    pub events: u64,
    /// Replay started after this event, from the snapshot there (0: from genesis).
    pub from_seq: u64,
    pub state_hash: Option<String>,
    pub first_divergent_seq: Option<u64>,
    pub reason: Option<String>,
}

/// Replays every event from genesis. Returns the rebuilt state (up to the divergence, if any)
/// and the report.
pub fn replay(ledger: &Ledger) -> Result<(KernelState, ReplayReport), LedgerError> {
    replay_from(ledger, KernelState::default())
}

/// Replays from the newest snapshot an authentic event vouches for — the row at its sequence
/// has its recorded hash and this device's seal, and records the snapshot's state hash as its
/// state after — and from genesis when there is none. `from_seq` in the report says which.
pub fn replay_from_snapshot(
    ledger: &Ledger,
    sealer: &dyn HeadSigner,
) -> Result<(KernelState, ReplayReport), LedgerError> {
    let vouched = vouched_snapshot(ledger, Some(sealer)).map(|(state, _)| state);
    replay_from(ledger, vouched.unwrap_or_default())
}

/// The stored snapshot, if an authentic event vouches for it: the row at its sequence has the
/// hash its content gives, this device's seal (when `sealer` is given), and records the snapshot's
/// state hash as its state after. With the hash of that row, for the chain to carry on from.
pub fn vouched_snapshot(ledger: &Ledger, sealer: Option<&dyn HeadSigner>) -> Option<(KernelState, String)> {
    let (seq, json) = ledger.load_snapshot().ok()??;
    let state = serde_json::from_str::<KernelState>(&json).ok()?;
    let row = ledger.get(seq).ok()??;
    let hash = row.compute_hash().ok()?;
    let sealed = sealer.is_none_or(|s| s.seal_hex(&hash) == row.seal);
    let vouched =
        state.seq == seq && hash.to_hex() == row.hash && sealed && state.hash().ok()?.to_hex() == row.state_after;
    vouched.then_some((state, row.hash))
}

/// Replays the events after `start`'s sequence onto it.
fn replay_from(ledger: &Ledger, start: KernelState) -> Result<(KernelState, ReplayReport), LedgerError> {
    let from_seq = start.seq;
    let mut state = start;
    let mut current = state.hash().map_err(|e| LedgerError::Encoding(e.to_string()))?.to_hex();
    let mut bad: Option<(u64, String)> = None;
    // From genesis: every stored row, one at sequence 0 included (it diverges).
    let since = if from_seq == 0 { 0 } else { from_seq + 1 };
    ledger.for_each_from(since, |row| {
        let seq = row.seq;
        bad = (|| {
            if row.state_before != current {
                return Some((seq, "the recorded state before this event is not the replayed state".to_string()));
            }
            let event = match row.event() {
                Ok(e) => e,
                Err(e) => return Some((seq, e)),
            };
            // Replay stops at the first failure, so the state needs no atomic apply.
            if let Err(e) = state.apply_mut(&event, Millis(row.at_ms)) {
                return Some((seq, e.to_string()));
            }
            if state.seq != seq {
                return Some((seq, format!("the event applies as sequence {} ", state.seq)));
            }
            match state.hash() {
                Ok(h) => current = h.to_hex(),
                Err(e) => return Some((seq, e.to_string())),
            }
            if row.state_after != current {
                return Some((
                    seq,
                    "the replayed state after this event differs from the recorded state hash".to_string(),
                ));
            }
            None
        })();
        bad.is_none()
    })?;
    let report = match bad {
        None => ReplayReport {
            ok: true,
            events: state.seq,
            from_seq,
            state_hash: Some(current),
            first_divergent_seq: None,
            reason: None,
        },
        Some((seq, reason)) => ReplayReport {
            ok: false,
            events: state.seq,
            from_seq,
            state_hash: None,
            first_divergent_seq: Some(seq),
            reason: Some(reason),
        },
    };
    Ok((state, report))
}
