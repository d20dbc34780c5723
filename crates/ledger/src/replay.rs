//! `ledger replay`: rebuild kernel state from the events alone and compare state hashes.
//!
//! Each event is applied to the state the previous ones produced; the recorded `state_before`
//! and `state_after` must equal the recomputed hashes. The first sequence where they differ is
//! the divergence — the point where the ledger and the kernel's rules stop telling the same story.

use crate::store::{Ledger, LedgerError};
use serde::Serialize;
use smart_kernel::{KernelState, Millis};

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReplayReport {
    pub ok: bool,
    pub events: u64,
    pub state_hash: Option<String>,
    pub first_divergent_seq: Option<u64>,
    pub reason: Option<String>,
}

/// Replays every event. Returns the rebuilt state (up to the divergence, if any) and the report.
pub fn replay(ledger: &Ledger) -> Result<(KernelState, ReplayReport), LedgerError> {
    let mut state = KernelState::default();
    let mut current = state.hash().map_err(|e| LedgerError::Encoding(e.to_string()))?.to_hex();
    let mut bad: Option<(u64, String)> = None;
    ledger.for_each(|row| {
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
            state_hash: Some(current),
            first_divergent_seq: None,
            reason: None,
        },
        Some((seq, reason)) => ReplayReport {
            ok: false,
            events: state.seq,
            state_hash: None,
            first_divergent_seq: Some(seq),
            reason: Some(reason),
        },
    };
    Ok((state, report))
}
