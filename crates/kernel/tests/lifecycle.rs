//! Lease, stance, emergency and undo through the kernel's gates, and replay of all of it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use serde_json::json;
use smart_kernel::lease::LeaseDraft;
use smart_kernel::*;

fn draft(h: &mut Harness, ms: u64) -> Outcome {
    let d = LeaseDraft {
        frame: "sort photos".into(),
        horizon: Horizon::Short,
        duration_ms: ms,
        success_criteria: vec![],
        non_goals: vec![],
        renewal_prompt: String::new(),
    };
    let dec = h.kernel.draft_lease(&h.state, d, h.now).unwrap();
    h.apply(dec)
}

#[test]
fn commitment_passes_through_discovery_with_each_step_ledgered() {
    let mut h = Harness::new();
    draft(&mut h, 60_000);
    h.gate(GateAct::Commitment);
    let changes: Vec<(Stance, Stance)> = h
        .log
        .iter()
        .filter_map(|(e, _)| match e {
            KernelEvent::StanceChanged { from, to, .. } => Some((*from, *to)),
            _ => None,
        })
        .collect();
    assert_eq!(changes, [(Stance::Sensemaking, Stance::Discovery), (Stance::Discovery, Stance::Execution)]);
    assert!(h.state.scope.as_ref().unwrap().mutation, "Orbit re-issued a mutating token for Execution");
}

#[test]
fn commitment_without_a_draft_is_refused() {
    let mut h = Harness::new();
    assert_eq!(refused(&h.gate(GateAct::Commitment)), RefusalCode::NoDraft);
    assert_eq!(h.log.last().unwrap().0.kind(), "gate_refused");
}

#[test]
fn execution_cannot_reframe_without_evaluation() {
    let mut h = Harness::new();
    h.commit_lease();
    assert_eq!(refused(&h.gate(GateAct::Framing)), RefusalCode::GateForbidden);
    assert_eq!(refused(&draft(&mut h, 1_000)), RefusalCode::GateForbidden);
    h.gate(GateAct::Evaluate);
    h.gate(GateAct::Revise);
    assert_eq!(h.state.stance, Stance::Sensemaking);
    assert_eq!(h.state.lease.as_ref().unwrap().state, LeaseState::Drafted);
}

#[test]
fn over_long_or_empty_leases_are_invalid() {
    let mut h = Harness::new();
    assert_eq!(refused(&draft(&mut h, 5 * 3_600_000)), RefusalCode::LeaseInvalid);
    assert_eq!(refused(&draft(&mut h, 0)), RefusalCode::LeaseInvalid);
    assert!(h.state.lease.is_none());
}

#[test]
fn lease_expiry_moves_execution_to_evaluation_and_resets_the_frontier() {
    let mut h = Harness::new();
    h.commit_lease();
    h.run("t.l0");
    h.run("t.l1");
    assert_eq!(h.state.frontier, Layer::L1);
    h.advance(3_600_000);
    let d = h.kernel.tick(&h.state, h.now).unwrap();
    h.apply(d);
    assert_eq!(h.state.stance, Stance::Evaluation);
    assert_eq!(h.state.frontier, Layer::L0);
    assert_eq!(h.state.lease.as_ref().unwrap().state, LeaseState::Expired);
    // Renewal restores Execution with a new expiry, frontier stays reset.
    h.gate(GateAct::Renew);
    assert_eq!(h.state.stance, Stance::Execution);
    assert!(h.state.active_lease(h.now).is_some());
}

#[test]
fn emergency_invalidates_the_lease_cancels_pending_and_has_a_cooldown() {
    let mut h = Harness::new();
    h.commit_lease();
    h.climb_to_l3();
    assert!(matches!(h.run("t.l4"), Outcome::Pending { .. }));
    let s = h.signal("", None, STOP);
    let d = h.kernel.emergency(&h.state, s, "user said stop", h.now).unwrap();
    assert!(matches!(h.apply(d), Outcome::Done));
    assert_eq!(h.state.stance, Stance::Sensemaking);
    assert!(h.state.lease.is_none());
    assert!(h.state.pending.is_empty());
    assert_eq!(h.state.frontier, Layer::L0);
    assert!(!h.state.scope.as_ref().unwrap().mutation);

    // Again within 3 turns: refused.
    h.advance(1);
    let s = h.signal("", None, STOP);
    let d = h.kernel.emergency(&h.state, s, "again", h.now).unwrap();
    assert_eq!(refused(&h.apply(d)), RefusalCode::EmergencyCooldown);
    for _ in 0..3 {
        h.propose(h.call("t.l0", json!({"path": abs("/r/x")})));
    }
    h.advance(1);
    let s = h.signal("", None, STOP);
    let d = h.kernel.emergency(&h.state, s, "again", h.now).unwrap();
    assert!(matches!(h.apply(d), Outcome::Done));
}

#[test]
fn an_unsigned_stop_is_refused() {
    let mut h = Harness::new();
    h.commit_lease();
    let mut s = h.signal("", None, STOP);
    s.signature = None;
    let d = h.kernel.emergency(&h.state, s, "forged", h.now).unwrap();
    assert_eq!(refused(&h.apply(d)), RefusalCode::SignatureInvalid);
    assert_eq!(h.state.stance, Stance::Execution);
}

#[test]
fn undo_checks_the_world_and_happens_once() {
    let mut h = Harness::new();
    h.commit_lease();
    h.climb_to_l3();
    // A reversible L3 call whose rollback expects /r/b.txt to hold "a".
    h.world.files.insert(abs("/r/b.txt"), Hash::of_bytes(b"a"));
    let c = h.call("t.l3", json!({"path": abs("/r/q")}));
    let d = h.kernel.propose(&h.state, c, h.now, &h.world).unwrap();
    let Outcome::Admitted(a) = h.apply(d) else { panic!() };
    h.commit(
        &a,
        kernel::ToolOutput {
            rollback: Some(json!({"inputs": {abs("/r/b.txt"): Hash::of_bytes(b"a")}})),
            ..Default::default()
        },
    );
    let seq = h.state.seq;
    let committed = h.log.last().unwrap().0.clone();

    // Something edited the file since: undo would lose that edit.
    h.world.files.insert(abs("/r/b.txt"), Hash::of_bytes(b"edited"));
    let d = h.kernel.propose_undo(&h.state, seq, &committed, h.now, &h.world).unwrap();
    assert_eq!(refused(&h.apply(d)), RefusalCode::SnapshotStale);

    // A forged committed event (different rollback data) is not accepted.
    h.world.files.insert(abs("/r/b.txt"), Hash::of_bytes(b"a"));
    let mut forged = committed.clone();
    if let KernelEvent::Committed { rollback, .. } = &mut forged {
        *rollback = Some(json!({"inputs": {}, "evil": true}));
    }
    let d = h.kernel.propose_undo(&h.state, seq, &forged, h.now, &h.world).unwrap();
    assert_eq!(refused(&h.apply(d)), RefusalCode::NotReversible);

    // A path on the way back now leads elsewhere (a symlink): undo would write there.
    h.world.links.insert(abs("/r/b.txt"), abs("/etc/b.txt"));
    let d = h.kernel.propose_undo(&h.state, seq, &committed, h.now, &h.world).unwrap();
    assert_eq!(refused(&h.apply(d)), RefusalCode::SnapshotStale);
    h.world.links.clear();

    let d = h.kernel.propose_undo(&h.state, seq, &committed, h.now, &h.world).unwrap();
    let Outcome::Admitted(u) = h.apply(d) else { panic!("undo not admitted") };
    assert_eq!(u.tool(), "undo");
    h.commit(&u, kernel::ToolOutput::default());
    assert!(h.state.reversible.get(&seq).unwrap().undone);
    let d = h.kernel.propose_undo(&h.state, seq, &committed, h.now, &h.world).unwrap();
    assert_eq!(refused(&h.apply(d)), RefusalCode::NotReversible);
    assert_eq!(h.replayed_hash(), h.state.hash().unwrap());
}

#[test]
fn replay_rejects_events_that_cannot_happen() {
    let mut s = KernelState::default();
    let bogus = KernelEvent::PendingExpired { pending_id: "x".into() };
    assert!(s.apply(&bogus, T0).is_err(), "first event must be genesis");
    let h = Harness::new();
    let mut s = h.state.clone();
    let before = s.hash().unwrap();
    assert!(s.apply(&bogus, h.now).is_err());
    assert_eq!(s.hash().unwrap(), before, "a failed apply changes nothing");
    assert!(
        s.apply(
            &KernelEvent::StanceChanged {
                from: Stance::Sensemaking,
                to: Stance::Execution,
                act: GateAct::Commitment,
                writes: vec![]
            },
            h.now
        )
        .is_err()
    );
    assert!(
        s.apply(&KernelEvent::ScopeIssued { token: h.state.scope.clone().unwrap() }, Millis(1)).is_err(),
        "time runs backwards"
    );
}
