//! Hashing by change covers the same state as hashing it whole: every part of a real state, put
//! back to what another real state holds, changes the hash — and a state rebuilt from its
//! snapshot JSON hashes the same as the one the events built.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use smart_kernel::*;

/// States from one run: its start, a lease at L3 with a call waiting for the person, and after
/// an emergency stop.
fn states() -> Vec<KernelState> {
    let mut h = Harness::new();
    let mut out = vec![h.state.clone()];
    h.commit_lease();
    h.climb_to_l3();
    assert!(matches!(h.run("t.l4"), Outcome::Pending { .. }));
    out.push(h.state.clone());
    let s = h.signal("", None, STOP);
    let d = h.kernel.emergency(&h.state, s, "user said stop", h.now).unwrap();
    assert!(matches!(h.apply(d), Outcome::Done));
    out.push(h.state.clone());
    for s in &out {
        assert_eq!(s.hash_scheme, state_hash::CURRENT, "a ledger begun today hashes by change");
    }
    out
}

macro_rules! each_field {
    ($m:ident) => {
        $m!(
            seq,
            device_key,
            policy_hash,
            last_at,
            turn,
            stance,
            lease,
            epoch,
            frontier,
            last_commit,
            budget_used,
            steps,
            repeats,
            scope,
            pending,
            nonces,
            artifacts,
            reversible,
            inflight,
            last_emergency_turn,
            memory,
            work_orders,
            bootstrap
        )
    };
}

#[test]
fn every_part_of_the_state_is_in_its_hash() {
    let states = states();
    let mut covered = std::collections::BTreeSet::new();
    for a in &states {
        for b in &states {
            macro_rules! swap {
                ($($f:ident),*) => {$(
                    if a.$f != b.$f {
                        let mut x = a.clone();
                        x.$f = b.$f.clone();
                        assert_ne!(x.hash().unwrap(), a.hash().unwrap(), "{} is left out of the hash", stringify!($f));
                        covered.insert(stringify!($f));
                    }
                )*};
            }
            each_field!(swap);
        }
    }
    for f in [
        "seq",
        "last_at",
        "turn",
        "stance",
        "lease",
        "epoch",
        "frontier",
        "last_commit",
        "steps",
        "repeats",
        "scope",
        "pending",
        "nonces",
        "reversible",
        "last_emergency_turn",
        "memory",
    ] {
        assert!(covered.contains(f), "the run never changed {f}: {covered:?}");
    }
}

#[test]
fn a_state_read_back_from_its_json_hashes_the_same() {
    for s in states() {
        let back: KernelState = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back.hash().unwrap(), s.hash().unwrap());
        assert_eq!(back, s);
    }
}

#[test]
fn the_scheme_moves_forward_only_and_only_to_one_this_kernel_knows() {
    let mut h = Harness::new();
    let err = h.state.clone().apply(&KernelEvent::HashSchemeAdopted { scheme: state_hash::CURRENT }, h.now);
    assert!(err.unwrap_err().to_string().contains("already"));
    let err = h.state.clone().apply(&KernelEvent::HashSchemeAdopted { scheme: state_hash::CURRENT + 1 }, h.now);
    assert!(err.unwrap_err().to_string().contains("unknown"));
    assert!(h.kernel.hash_scheme_migration(&h.state).is_none());
    // A state of the first scheme is moved, and hashes differently after.
    h.state.hash_scheme = state_hash::FIRST;
    let before = h.state.hash().unwrap();
    let ev = h.kernel.hash_scheme_migration(&h.state).unwrap();
    h.apply_all(vec![ev]);
    assert_eq!(h.state.hash_scheme, state_hash::CURRENT);
    assert_ne!(h.state.hash().unwrap(), before);
}
