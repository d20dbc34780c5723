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
    run().0
}

/// [`states`], and every event of the run.
fn run() -> (Vec<KernelState>, Vec<KernelEvent>) {
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
    (out, h.log.into_iter().map(|(e, _)| e).collect())
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

/// Canonical bytes are written straight from the values now; every state and every event of a
/// real run, and every part of each state, gives the bytes the `Value` path gave — the bytes every
/// recorded hash was made of.
#[test]
fn canonical_bytes_are_what_the_value_path_wrote_for_every_real_state_and_event() {
    fn by_value<T: serde::Serialize>(v: &T) -> Vec<u8> {
        let mut out = vec![];
        canonical::write_value(&serde_json::to_value(v).unwrap(), &mut out).unwrap();
        out
    }
    let (states, events) = run();
    assert!(events.len() > 10, "{}", events.len());
    for e in &events {
        assert_eq!(canonical_bytes(e).unwrap(), by_value(e), "{}", e.kind());
    }
    for s in &states {
        assert_eq!(canonical_bytes(s).unwrap(), by_value(s));
        macro_rules! part {
            ($($f:ident),*) => {$(
                assert_eq!(canonical_bytes(&s.$f).unwrap(), by_value(&s.$f), "{}", stringify!($f));
            )*};
        }
        each_field!(part);
    }
}
