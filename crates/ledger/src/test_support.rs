//! What the ledger's unit tests build their ledgers from: a genesis, a filler event that applies
//! to any state after it, and a way to open the rows to the SQL edits an attacker would make.
//! Test-only; nothing here is compiled into SMART.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::store::Ledger;
use smart_kernel::{GateAct, Hash, KernelEvent, Policy, RefusalCode};

/// A genesis event naming `device_key`, under the default policy and the current hash scheme.
pub fn genesis(device_key: String) -> KernelEvent {
    KernelEvent::Genesis {
        device_key,
        policy: Policy::default(),
        policy_hash: Policy::default().hash().unwrap(),
        registry_hash: Hash::ZERO,
        hash_scheme: smart_kernel::state_hash::CURRENT,
    }
}

/// An event that changes nothing but the sequence: a refused gate act.
pub fn refusal() -> KernelEvent {
    KernelEvent::GateRefused { act: GateAct::Framing, code: RefusalCode::GateForbidden, reason: "test".into() }
}

/// Drops the triggers that keep rows append-only, so a test can edit or delete them in SQL.
pub fn open_to_edits(ledger: &Ledger) {
    ledger
        .connection()
        .execute_batch("DROP TRIGGER events_append_only_update; DROP TRIGGER events_append_only_delete;")
        .unwrap();
}
