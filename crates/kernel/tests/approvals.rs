//! Tier 3 calls wait for a signed approval; forged, mismatched, expired and replayed signals are
//! refused and ledgered, and the pending call survives them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use ed25519_dalek::SigningKey;
use serde_json::json;
use smart_kernel::*;

fn pending_l4(h: &mut Harness) -> String {
    h.commit_lease();
    h.climb_to_l3();
    match h.run("t.l4") {
        Outcome::Pending { id, .. } => id,
        other => panic!("expected pending, got {other:?}"),
    }
}

fn decide(h: &mut Harness, s: UserSignal) -> Outcome {
    let d = h.kernel.signal(&h.state, s, h.now, &h.world).unwrap();
    let o = h.apply(d);
    if let Outcome::Admitted(a) = &o {
        h.commit(a, kernel::ToolOutput { rollback: Some(json!({"inputs": {}})), ..Default::default() });
    }
    o
}

#[test]
fn every_l4_call_waits_and_a_valid_approval_commits_it() {
    let mut h = Harness::new();
    let id = pending_l4(&mut h);
    assert_eq!(h.state.frontier, Layer::L3);
    let s = h.signal(&id, Some(h.pending_hash(&id)), APPROVE);
    assert!(matches!(decide(&mut h, s), Outcome::Admitted(_)));
    assert_eq!(h.state.frontier, Layer::L4);
    assert!(h.state.pending.is_empty());
    let kinds: Vec<&str> = h.log.iter().rev().take(3).map(|(e, _)| e.kind()).collect();
    assert_eq!(kinds, ["committed", "admitted", "approved"]);
}

fn assert_refused_and_still_pending(h: &mut Harness, id: &str, s: UserSignal, code: RefusalCode) {
    let before = h.state.pending.clone();
    let o = decide(h, s);
    assert_eq!(refused(&o), code);
    assert_eq!(h.state.pending, before, "a refused signal must not touch the pending call");
    assert_eq!(h.log.last().unwrap().0.kind(), "signal_refused");
    assert!(h.state.pending.contains_key(id));
}

#[test]
fn unsigned_signals_are_refused() {
    let mut h = Harness::new();
    let id = pending_l4(&mut h);
    let mut s = h.signal(&id, Some(h.pending_hash(&id)), APPROVE);
    let genuine = s.clone();
    s.signature = None;
    assert_refused_and_still_pending(&mut h, &id, s, RefusalCode::SignatureInvalid);
    // A forgery spends no nonce: else anyone could burn the person's next approval.
    assert!(matches!(decide(&mut h, genuine), Outcome::Admitted(_)));
}

#[test]
fn signals_from_another_key_are_refused_even_if_they_claim_the_device_key() {
    let mut h = Harness::new();
    let id = pending_l4(&mut h);
    let other = SigningKey::from_bytes(&[9u8; 32]);
    // Honest about its key.
    let mut s = h.signal(&id, Some(h.pending_hash(&id)), APPROVE);
    s.public_key = hex::encode(other.verifying_key().to_bytes());
    sign(&mut s, &other);
    assert_refused_and_still_pending(&mut h, &id, s, RefusalCode::SignatureInvalid);
    // Claims the device key, signed by another.
    let mut s = h.signal(&id, Some(h.pending_hash(&id)), APPROVE);
    sign(&mut s, &other);
    assert_refused_and_still_pending(&mut h, &id, s, RefusalCode::SignatureInvalid);
}

#[test]
fn a_signature_over_other_contents_is_refused() {
    let mut h = Harness::new();
    let id = pending_l4(&mut h);
    // A valid deny, edited into an approve after signing.
    let mut s = h.signal(&id, Some(h.pending_hash(&id)), DENY);
    s.decision = Decision::Approve;
    assert_refused_and_still_pending(&mut h, &id, s, RefusalCode::SignatureInvalid);
    // A stretched validity window.
    let mut s = h.signal(&id, Some(h.pending_hash(&id)), APPROVE);
    s.expires_at = s.expires_at.plus(1);
    assert_refused_and_still_pending(&mut h, &id, s, RefusalCode::SignatureInvalid);
}

#[test]
fn an_approval_for_another_call_is_refused() {
    let mut h = Harness::new();
    let id = pending_l4(&mut h);
    let s = h.signal(&id, Some(Hash::of_bytes(b"some other call")), APPROVE);
    assert_refused_and_still_pending(&mut h, &id, s, RefusalCode::ApprovalMismatch);
}

#[test]
fn expired_and_over_long_approvals_are_refused() {
    let mut h = Harness::new();
    let id = pending_l4(&mut h);
    let s = h.signal(&id, Some(h.pending_hash(&id)), APPROVE);
    h.advance(60_000);
    assert_refused_and_still_pending(&mut h, &id, s, RefusalCode::ApprovalExpired);
    let mut s = h.signal(&id, Some(h.pending_hash(&id)), APPROVE);
    s.expires_at = s.issued_at.plus(h.kernel.policy().approvals.max_signal_ttl_ms + 1);
    sign(&mut s, &h.key.clone());
    assert_refused_and_still_pending(&mut h, &id, s, RefusalCode::ApprovalExpired);
}

#[test]
fn a_replayed_approval_is_refused_as_replayed() {
    let mut h = Harness::new();
    let id = pending_l4(&mut h);
    let s = h.signal(&id, Some(h.pending_hash(&id)), APPROVE);
    assert!(matches!(decide(&mut h, s.clone()), Outcome::Admitted(_)));
    let o = decide(&mut h, s);
    assert_eq!(refused(&o), RefusalCode::ApprovalReplayed);
    assert_eq!(h.log.last().unwrap().0.kind(), "signal_refused");
}

#[test]
fn deny_drops_the_call_and_nothing_runs() {
    let mut h = Harness::new();
    let id = pending_l4(&mut h);
    let s = h.signal(&id, Some(h.pending_hash(&id)), DENY);
    assert!(matches!(decide(&mut h, s), Outcome::Done));
    assert!(h.state.pending.is_empty());
    assert_eq!(h.state.frontier, Layer::L3);
}

#[test]
fn an_approval_before_the_gate_opens_is_refused_and_the_call_stays_pending() {
    let mut h = Harness::new();
    h.commit_lease();
    h.climb_to_l3();
    h.advance(0);
    // Commit another L3 so L4's gate is shut again for 15 s.
    let c = h.call("t.l3", json!({"path": abs("/r/z")}));
    assert!(matches!(h.propose(c), Outcome::Admitted(_)));
    let id = match h.run("t.l4") {
        Outcome::Pending { id, admissible_at } => {
            assert_eq!(admissible_at, h.now.plus(15_000), "the dialog counts down to the gate");
            id
        }
        other => panic!("{other:?}"),
    };
    let s = h.signal(&id, Some(h.pending_hash(&id)), APPROVE);
    assert_refused_and_still_pending(&mut h, &id, s.clone(), RefusalCode::TimeGate);
    h.advance(15_000);
    // The refused approval was spent: handed in again once the gate is open, it is a replay
    // (the attack run committed a call this way, long after the person's click was refused).
    assert!(s.expires_at > h.now, "still inside its window, so only the nonce can stop it");
    assert_refused_and_still_pending(&mut h, &id, s, RefusalCode::ApprovalReplayed);
    let s = h.signal(&id, Some(h.pending_hash(&id)), APPROVE);
    assert!(matches!(decide(&mut h, s), Outcome::Admitted(_)));
}

#[test]
fn files_changed_after_the_dialog_opened_void_the_approval() {
    let mut h = Harness::new();
    let id = pending_l4(&mut h);
    h.world.files.insert(abs("/r/a.txt"), Hash::of_bytes(b"swapped"));
    let s = h.signal(&id, Some(h.pending_hash(&id)), APPROVE);
    assert_refused_and_still_pending(&mut h, &id, s, RefusalCode::SnapshotStale);
}

#[test]
fn pending_calls_expire_and_the_expiry_is_an_event() {
    let mut h = Harness::new();
    let id = pending_l4(&mut h);
    h.advance(h.kernel.policy().approvals.pending_ttl_ms);
    let d = h.kernel.tick(&h.state, h.now).unwrap();
    h.apply(d);
    assert!(h.state.pending.is_empty());
    assert!(h.log.iter().any(|(e, _)| matches!(e, KernelEvent::PendingExpired { pending_id } if *pending_id == id)));
}

#[test]
fn a_signal_for_an_unknown_pending_call_is_refused() {
    let mut h = Harness::new();
    let s = h.signal("nope", Some(Hash::of_bytes(b"x")), APPROVE);
    assert_eq!(refused(&decide(&mut h, s)), RefusalCode::PendingUnknown);
}

#[test]
fn a_model_s_risk_opinion_can_make_a_call_wait() {
    let mut h = Harness::new();
    let mut c = h.call("t.l0", json!({"path": abs("/r/a.txt")}));
    c.risk_hint = Some(3);
    assert!(matches!(h.propose(c), Outcome::Pending { .. }));
    let mut c = h.call("t.l4", json!({"path": abs("/r/a.txt")}));
    c.risk_hint = Some(1);
    // Cannot lower: (refused here for the lease, but never admitted as Tier 1)
    assert!(!matches!(h.propose(c), Outcome::Admitted(_)));
}
