//! The slow loop through the kernel: write policy, decay with injected time, the gate
//! controller's reads, the emergency cooldown, work orders and bootstrap — each ending with a
//! replay of everything recorded to the same state hash.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::*;
use serde_json::json;
use smart_kernel::bootstrap::{BootstrapInput as B, Consent, LadderPosition, Stage};
use smart_kernel::gate_controller::{Effect, VerdictKind};
use smart_kernel::memory::*;
use smart_kernel::*;

fn decision(text: &str) -> DecisionDraft {
    DecisionDraft {
        decision: text.into(),
        rationale: vec!["because".into()],
        tradeoffs: String::new(),
        confidence: Confidence::Med,
        revisit_triggers: vec![],
        supersedes: None,
    }
}

fn init() -> ProgressInit {
    ProgressInit { current_stage: "sorting".into(), next_actions: vec!["scan".into()], staleness_ms: 600_000 }
}

fn lease_draft(h: &mut Harness) {
    assert!(matches!(h.draft_lease(), Outcome::Done));
}

fn pass(h: &mut Harness, act: GateAct, writes: Vec<SlowWrite>) -> Outcome {
    let d = h.kernel.pass_gate(&h.state, act, writes, h.now).unwrap();
    h.apply(d)
}

/// One example of every kind of write, valid in a state where decision 1 and artifact "a" exist.
fn write_of(kind: WriteKind) -> SlowWrite {
    match kind {
        WriteKind::FrameDecision => SlowWrite::FrameDecision { decision: decision("frame") },
        WriteKind::BindingDecision => SlowWrite::BindingDecision { decision: decision("bind") },
        WriteKind::Supersede => {
            SlowWrite::Supersede { decision: DecisionDraft { supersedes: Some(1), ..decision("instead") } }
        }
        WriteKind::Principle => SlowWrite::Principle {
            name: "no deletes".into(),
            kind: PrincipleKind::NonNegotiable,
            text: "never delete".into(),
        },
        WriteKind::RetirePrinciple => SlowWrite::RetirePrinciple { name: "weekly".into() },
        WriteKind::NorthStar => SlowWrite::NorthStar { name: "calm".into(), text: "a calm inbox".into() },
        WriteKind::ProgressInit => SlowWrite::ProgressInit { progress: init() },
        WriteKind::ProgressReset => SlowWrite::ProgressReset { progress: init() },
        WriteKind::ArtifactStatus => SlowWrite::ArtifactStatus { pointer: "a".into(), status: ArtifactStatus::Final },
    }
}

/// A harness standing just before `act` can be passed, with decision 1, principle "weekly" and
/// artifact "a" in memory.
fn before(act: GateAct) -> Harness {
    let mut h = Harness::new();
    let art = ArtifactDraft { name: "a".into(), kind: ArtifactKind::Doc, pointer: "a".into(), dependencies: vec![] };
    let d = h.kernel.register_artifact(&h.state, art, None, h.now).unwrap();
    assert!(matches!(h.apply(d), Outcome::Done));
    assert!(matches!(pass(&mut h, GateAct::Framing, vec![write_of(WriteKind::FrameDecision)]), Outcome::Done));
    lease_draft(&mut h);
    assert!(matches!(pass(&mut h, GateAct::Commitment, vec![]), Outcome::Done));
    let weekly = SlowWrite::Principle {
        name: "weekly".into(),
        kind: PrincipleKind::ReviewCadence,
        text: "review weekly".into(),
    };
    assert!(matches!(pass(&mut h, GateAct::Evaluate, vec![weekly]), Outcome::Done), "{:?}", h.state.memory);
    match act {
        GateAct::Renew | GateAct::Revise | GateAct::Release => {}
        GateAct::Evaluate => assert!(matches!(h.gate(GateAct::Renew), Outcome::Done)),
        GateAct::Framing | GateAct::Commitment => {
            assert!(matches!(h.gate(GateAct::Release), Outcome::Done));
            if act == GateAct::Commitment {
                lease_draft(&mut h);
            }
        }
        _ => unreachable!(),
    }
    h
}

#[test]
fn every_write_policy_rule_is_a_refused_gate_or_a_recorded_write() {
    let acts =
        [GateAct::Framing, GateAct::Commitment, GateAct::Evaluate, GateAct::Renew, GateAct::Revise, GateAct::Release];
    let mut checked = 0;
    for act in acts {
        for kind in WriteKind::ALL {
            let mut h = before(act);
            let memory_before = h.state.memory.clone();
            let stance_before = h.state.stance;
            let d = h.kernel.pass_gate(&h.state, act, vec![write_of(kind)], h.now).unwrap();
            let kinds: Vec<&str> = d.events.iter().map(KernelEvent::kind).collect();
            let outcome = h.apply(d);
            if write_policy::allowed(act, kind) {
                assert!(matches!(outcome, Outcome::Done), "{act} + {kind}: {outcome:?}");
                assert_ne!(h.state.memory, memory_before, "{act} + {kind} wrote nothing");
                assert!(kinds.contains(&"stance_changed"));
            } else {
                assert_eq!(refused(&outcome), RefusalCode::WriteForbidden, "{act} + {kind}");
                assert_eq!(kinds, ["gate_refused"], "{act} + {kind}: only the refusal is recorded");
                assert_eq!(h.state.memory, memory_before, "{act} + {kind} changed memory");
                assert_eq!(h.state.stance, stance_before, "{act} + {kind} moved the stance");
            }
            assert_eq!(h.replayed_hash(), h.state.hash().unwrap());
            checked += 1;
        }
    }
    assert_eq!(checked, 6 * WriteKind::ALL.len());
}

#[test]
fn a_smuggled_write_in_an_edited_ledger_does_not_replay() {
    let mut h = before(GateAct::Framing);
    // A binding decision at the framing gate, written straight into the log as if recorded.
    let forged = KernelEvent::StanceChanged {
        from: Stance::Sensemaking,
        to: Stance::Discovery,
        act: GateAct::Framing,
        writes: vec![write_of(WriteKind::BindingDecision)],
    };
    let err = h.state.apply(&forged, h.now).unwrap_err();
    assert!(err.to_string().contains("binding_decision"), "{err}");
    // Fast-memory events cannot carry slow writes at all: a progress note needs a progress state.
    h.state = KernelState::default();
    assert!(h.state.apply(&KernelEvent::ProgressNoted { update: ProgressUpdate::default() }, h.now).is_err());
}

#[test]
fn decisions_are_superseded_never_deleted() {
    let mut h = before(GateAct::Evaluate);
    h.gate(GateAct::Evaluate);
    let sup = SlowWrite::Supersede { decision: DecisionDraft { supersedes: Some(1), ..decision("instead") } };
    assert!(matches!(pass(&mut h, GateAct::Renew, vec![sup.clone()]), Outcome::Done));
    let log = h.state.memory.decisions();
    assert_eq!(log.all().len(), 2);
    assert_eq!(log.get(1).unwrap().superseded_by, Some(2));
    assert_eq!(log.current().map(|d| d.id).collect::<Vec<_>>(), vec![2]);
    // The same decision cannot be superseded twice, and a missing one not at all.
    h.gate(GateAct::Evaluate);
    assert_eq!(refused(&pass(&mut h, GateAct::Renew, vec![sup])), RefusalCode::WriteForbidden);
    let missing = SlowWrite::Supersede { decision: DecisionDraft { supersedes: Some(9), ..decision("x") } };
    assert_eq!(refused(&pass(&mut h, GateAct::Renew, vec![missing])), RefusalCode::WriteForbidden);
    assert_eq!(h.state.memory.decisions().all().len(), 2);
    assert_eq!(h.replayed_hash(), h.state.hash().unwrap());
}

fn tick(h: &mut Harness) -> Vec<String> {
    let d = h.kernel.tick(&h.state, h.now).unwrap();
    let kinds = d.events.iter().map(|e| e.kind().to_string()).collect();
    h.apply(d);
    kinds
}

#[test]
fn lease_expiry_is_a_decay_proposal_the_controller_accepts_at_the_gateway_pass() {
    let mut h = Harness::new();
    h.commit_lease();
    h.advance(3_600_000 - 1);
    assert!(tick(&mut h).is_empty(), "nothing is due a millisecond early");
    h.advance(1);
    let kinds = tick(&mut h);
    assert_eq!(
        kinds,
        ["lease_expired", "gate_proposed", "scope_issued", "proposals_read", "stance_changed", "scope_issued"]
    );
    let read = h.log.iter().rev().find_map(|(e, _)| match e {
        KernelEvent::ProposalsRead { trigger, verdicts } => Some((*trigger, verdicts.clone())),
        _ => None,
    });
    let (trigger, verdicts) = read.unwrap();
    assert_eq!(trigger, ReadTrigger::GatewayPass);
    assert_eq!(verdicts.len(), 1);
    let p = &verdicts[0].proposal;
    assert_eq!(
        (p.suggested_gate, p.severity, p.source),
        (SuggestedGate::Evaluation, Severity::High, GateSource::DecayManager)
    );
    assert_eq!(verdicts[0].effect, Some(Effect::Gate(GateAct::LeaseExpiry)));
    assert_eq!(h.state.stance, Stance::Evaluation);
    assert!(h.state.memory.proposals().is_empty(), "the buffer is cleared after the read");
    assert!(tick(&mut h).is_empty(), "an expired lease proposes once");
    assert_eq!(h.replayed_hash(), h.state.hash().unwrap());
}

#[test]
fn progress_goes_stale_on_its_clock_and_is_kept() {
    let mut h = Harness::new();
    lease_draft(&mut h);
    assert!(matches!(pass(&mut h, GateAct::Commitment, vec![write_of(WriteKind::ProgressInit)]), Outcome::Done));
    let upd = ProgressUpdate { win: Some("scanned".into()), ..ProgressUpdate::default() };
    h.advance(599_999);
    assert!(tick(&mut h).is_empty());
    h.advance(1);
    assert_eq!(tick(&mut h), ["progress_staled"]);
    let p = h.state.memory.progress().unwrap();
    assert!(p.stale);
    assert_eq!(p.current_stage, "sorting", "stale, not deleted");
    // An update makes it fresh and restarts the clock.
    let d = h.kernel.note_progress(&h.state, upd, h.now).unwrap();
    assert!(matches!(h.apply(d), Outcome::Done));
    let p = h.state.memory.progress().unwrap();
    assert!(!p.stale);
    assert_eq!(p.recent_wins, ["scanned"]);
    assert_eq!(p.stale_at, h.now.plus(600_000));
    // A bad update is refused and records nothing.
    let seq = h.state.seq;
    let d = h.kernel.note_progress(&h.state, ProgressUpdate::default(), h.now).unwrap();
    assert_eq!(refused(&h.apply(d)), RefusalCode::MemoryInvalid);
    assert_eq!(h.state.seq, seq);
    assert_eq!(h.replayed_hash(), h.state.hash().unwrap());
}

#[test]
fn progress_needs_the_commitment_gate_first() {
    let mut h = Harness::new();
    let d = h
        .kernel
        .note_progress(&h.state, ProgressUpdate { win: Some("x".into()), ..Default::default() }, h.now)
        .unwrap();
    let o = h.apply(d);
    assert_eq!(refused(&o), RefusalCode::MemoryInvalid);
    assert!(matches!(&o, Outcome::Refused(r) if r.reason.contains("commitment gate")));
}

#[test]
fn artifacts_decay_current_stale_review_needed_and_touching_resets() {
    use smart_kernel::memory::artifact_index::{REVIEW_AFTER_MS, STALE_AFTER_MS};
    let mut h = Harness::new();
    let reg = |h: &mut Harness, p: &str| {
        let art = ArtifactDraft { name: p.into(), kind: ArtifactKind::Spec, pointer: p.into(), dependencies: vec![] };
        let d = h.kernel.register_artifact(&h.state, art, None, h.now).unwrap();
        assert!(matches!(h.apply(d), Outcome::Done));
    };
    reg(&mut h, "spec.md");
    reg(&mut h, "old.md");
    h.commit_lease();
    h.gate(GateAct::Evaluate);
    let dep = SlowWrite::ArtifactStatus { pointer: "old.md".into(), status: ArtifactStatus::Deprecated };
    assert!(matches!(pass(&mut h, GateAct::Release, vec![dep]), Outcome::Done));
    let fresh = |h: &Harness, p: &str| h.state.memory.artifacts().get(p).unwrap().freshness;
    h.advance(STALE_AFTER_MS - 1);
    assert!(tick(&mut h).is_empty());
    h.advance(1);
    assert_eq!(tick(&mut h), ["artifact_decayed"]);
    assert_eq!(fresh(&h, "spec.md"), Freshness::Stale);
    assert_eq!(fresh(&h, "old.md"), Freshness::Current, "deprecated entries do not decay");
    h.advance(REVIEW_AFTER_MS - STALE_AFTER_MS);
    assert_eq!(tick(&mut h), ["artifact_decayed"]);
    assert_eq!(fresh(&h, "spec.md"), Freshness::ReviewNeeded);
    reg(&mut h, "spec.md");
    let e = h.state.memory.artifacts().get("spec.md").unwrap();
    assert_eq!((e.freshness, e.version), (Freshness::Current, 2));
    assert_eq!(h.replayed_hash(), h.state.hash().unwrap());
}

#[test]
fn the_emergency_cooldown_counts_turns() {
    // (turns proposed after the first stop, whether a second stop is admitted)
    for (turns, admitted) in [(0, false), (1, false), (2, false), (3, true), (4, true)] {
        let mut h = Harness::new();
        h.commit_lease();
        let s = h.signal("", None, STOP);
        let d = h.kernel.emergency(&h.state, s, "stop", h.now).unwrap();
        assert!(matches!(h.apply(d), Outcome::Done));
        for _ in 0..turns {
            h.advance(1);
            h.run("t.l0");
        }
        h.advance(1);
        let s = h.signal("", None, STOP);
        let d = h.kernel.emergency(&h.state, s, "again", h.now).unwrap();
        match h.apply(d) {
            Outcome::Done => assert!(admitted, "turn {turns}"),
            o => {
                assert!(!admitted, "turn {turns}");
                assert_eq!(refused(&o), RefusalCode::EmergencyCooldown);
            }
        }
        assert_eq!(h.replayed_hash(), h.state.hash().unwrap());
    }
}

#[test]
fn the_emergency_gate_logs_its_decision() {
    let mut h = Harness::new();
    h.commit_lease();
    let s = h.signal("", None, STOP);
    let d = h.kernel.emergency(&h.state, s, "user said wrong", h.now).unwrap();
    h.apply(d);
    let log = h.state.memory.decisions();
    let d = log.all().last().unwrap();
    assert_eq!((d.kind, d.gate), (DecisionKind::Emergency, GateAct::Emergency));
    assert!(d.draft.decision.contains("user said wrong"));
    assert_eq!(h.replayed_hash(), h.state.hash().unwrap());
}

fn propose(h: &mut Harness, p: GateProposal) -> Outcome {
    let d = h.kernel.propose_gate(&h.state, p, h.now).unwrap();
    h.apply(d)
}

#[test]
fn the_controller_reads_in_merge_order_and_judges_each_against_the_last() {
    let mut h = Harness::new();
    h.commit_lease();
    let at = Millis(0);
    // Arrival order: task agent first, then two evaluators, then the person.
    propose(&mut h, GateProposal::new(GateSource::TaskAgent, SuggestedGate::Evaluation, Severity::High, "agent", at));
    propose(
        &mut h,
        GateProposal::new(GateSource::ContinuousEval, SuggestedGate::Evaluation, Severity::Medium, "drift", at),
    );
    propose(&mut h, GateProposal::new(GateSource::UserSignal, SuggestedGate::Evaluation, Severity::Low, "person", at));
    assert_eq!(h.state.memory.proposals().len(), 3);
    assert_eq!(h.state.stance, Stance::Execution, "proposals act only when read");
    let d = h.kernel.read_proposals(&h.state, ReadTrigger::EndOfTurn, h.now).unwrap();
    h.apply(d);
    let verdicts = h.log.iter().rev().find_map(|(e, _)| match e {
        KernelEvent::ProposalsRead { verdicts, .. } => Some(verdicts.clone()),
        _ => None,
    });
    let got: Vec<(&str, VerdictKind)> =
        verdicts.as_ref().unwrap().iter().map(|v| (v.proposal.reason.as_str(), v.verdict)).collect();
    assert_eq!(
        got,
        [("person", VerdictKind::Accepted), ("drift", VerdictKind::Rejected), ("agent", VerdictKind::Rejected)],
        "the person's proposal wins; the rest find the evaluation gate already open"
    );
    assert_eq!(h.state.stance, Stance::Evaluation);
    assert!(h.state.memory.proposals().is_empty());
    // The proposal's time is the kernel's, not the proposer's.
    assert!(verdicts.unwrap().iter().all(|v| v.proposal.at == h.now));
    assert_eq!(h.replayed_hash(), h.state.hash().unwrap());
}

#[test]
fn bad_proposals_are_refused_and_record_nothing() {
    let mut h = Harness::new();
    let seq = h.state.seq;
    let empty = GateProposal::new(GateSource::Perception, SuggestedGate::Framing, Severity::High, "  ", Millis(0));
    assert_eq!(refused(&propose(&mut h, empty)), RefusalCode::ProposalInvalid);
    let long =
        GateProposal::new(GateSource::Perception, SuggestedGate::Framing, Severity::High, "x".repeat(501), Millis(0));
    assert_eq!(refused(&propose(&mut h, long)), RefusalCode::ProposalInvalid);
    let forged = GateProposal::new(GateSource::TaskAgent, SuggestedGate::Framing, Severity::High, "r", Millis(0))
        .with_origin("wo-deadbeef");
    assert_eq!(refused(&propose(&mut h, forged)), RefusalCode::ProposalInvalid);
    assert_eq!(h.state.seq, seq);
}

#[test]
fn a_work_order_executes_within_its_inherited_scope_and_ends_with_the_lease() {
    let mut h = Harness::new();
    let open = |h: &mut Harness, tools: &[&str]| {
        let tools: Vec<String> = tools.iter().map(|t| t.to_string()).collect();
        let d = h.kernel.open_work_order(&h.state, "read the docs", &tools, h.now).unwrap();
        h.apply(d)
    };
    assert_eq!(refused(&open(&mut h, &["t.l0"])), RefusalCode::WorkOrderInvalid, "no commitment, no order");
    h.commit_lease();
    assert_eq!(refused(&open(&mut h, &["t.nope"])), RefusalCode::WorkOrderInvalid);
    assert!(matches!(open(&mut h, &["t.l0", "t.l1", "t.l2"]), Outcome::Done));
    let id = h.state.work_orders.keys().next().unwrap().clone();
    let order_call = |h: &Harness, tool: &str| ProposedCall {
        work_order: Some(id.clone()),
        ..h.call(tool, json!({"path": abs("/r/a.txt")}))
    };
    assert!(matches!(h.propose(order_call(&h, "t.l0")), Outcome::Admitted(_)));
    assert!(matches!(h.propose(order_call(&h, "t.l1")), Outcome::Admitted(_)));
    h.advance(2_000);
    // Its L2 proposals are registered in the artifact index as its own.
    let c = order_call(&h, "t.l2");
    let d = h.kernel.propose(&h.state, c, h.now, &h.world).unwrap();
    let Outcome::Admitted(a) = h.apply(d) else { panic!() };
    let artifact = Artifact { kind: "plan".into(), body: json!({"plan": 1}), inputs: Default::default() };
    h.commit(&a, smart_kernel::kernel::ToolOutput { artifact: Some(artifact), ..Default::default() });
    let owners: Vec<&str> = h.state.memory.artifacts().entries().values().map(|e| e.owner.as_str()).collect();
    assert_eq!(owners, [id.as_str()]);
    // Outside its tools: refused, though the lease's scope has it.
    h.advance(5_000);
    assert_eq!(refused(&h.propose(order_call(&h, "t.l3"))), RefusalCode::WorkOrderInvalid);
    // It may propose a gate, as a task agent, under its own id.
    let p = GateProposal::new(GateSource::TaskAgent, SuggestedGate::Evaluation, Severity::Medium, "done", Millis(0))
        .with_origin(id.clone());
    assert!(matches!(propose(&mut h, p), Outcome::Done));
    // The lease ends: so does the order, and its calls are refused.
    h.gate(GateAct::Evaluate);
    h.gate(GateAct::Release);
    assert!(h.state.work_orders.is_empty());
    assert_eq!(refused(&h.propose(order_call(&h, "t.l0"))), RefusalCode::WorkOrderInvalid);
    assert_eq!(h.replayed_hash(), h.state.hash().unwrap());
}

fn boot(h: &mut Harness, input: B) -> Outcome {
    let d = h.kernel.bootstrap(&h.state, input, h.now).unwrap();
    h.apply(d)
}

fn answer(t: &str) -> B {
    B::Answer { text: t.into() }
}

fn stage(h: &Harness) -> Stage {
    h.state.bootstrap.as_ref().unwrap().stage
}

fn waiting_actions(h: &Harness) -> Vec<ProposedAction> {
    h.state.memory.proposals().peek().iter().filter_map(|p| p.action).collect()
}

#[test]
fn bootstrap_four_stages_then_permission_with_the_snapshot_and_the_transition_proposal() {
    let mut h = Harness::new();
    assert_eq!(refused(&boot(&mut h, answer("hi"))), RefusalCode::BootstrapInvalid, "not started");
    assert!(matches!(boot(&mut h, B::Start), Outcome::Done));
    assert_eq!(stage(&h), Stage::Ladder);
    // Propose-only while it listens: no lease, nothing above L2.
    lease_draft_refused(&mut h);
    for (text, next) in [
        ("somewhere in the middle, maybe a 5", Stage::Anchor),
        ("my morning walks", Stage::Gap),
        ("less time hunting for files", Stage::Microstep),
        ("a tidy downloads folder", Stage::Permission),
    ] {
        assert!(matches!(boot(&mut h, answer(text)), Outcome::Done));
        assert_eq!(stage(&h), next, "after {text:?}");
    }
    let b = h.state.bootstrap.clone().unwrap();
    assert_eq!(b.snapshot.ladder_position, Some(LadderPosition::Middle));
    assert_eq!(b.snapshot.ladder_number, Some(5));
    assert_eq!(b.snapshot.stabilizers, "my morning walks");
    assert_eq!(b.snapshot.derived_north_star_candidates, ["less time hunting for files"]);
    assert!(b.snapshot.user_state_summary.contains("middle"));
    assert!(smart_kernel::bootstrap::prompt(&b).unwrap().starts_with("Would you like me to keep listening"));
    assert!(waiting_actions(&h).is_empty(), "no recommendation before the person answers");
    assert!(matches!(boot(&mut h, B::Consent { consent: Consent::ProposeStructure }), Outcome::Done));
    assert_eq!(stage(&h), Stage::Done);
    assert_eq!(waiting_actions(&h), [ProposedAction::OfferStructure]);
    // Propose-structure keeps propose-only after bootstrap: the commitment still waits.
    assert!(h.state.bootstrap_restricts());
    lease_draft_refused(&mut h);
    assert!(matches!(boot(&mut h, B::Consent { consent: Consent::ReadyForCommitment }), Outcome::Done));
    assert!(!h.state.bootstrap_restricts());
    h.commit_lease();
    // The recommendations were referred to the person, and changed nothing.
    let d = h.kernel.read_proposals(&h.state, ReadTrigger::Request, h.now).unwrap();
    h.apply(d);
    assert_eq!(h.state.stance, Stance::Execution);
    assert_eq!(h.replayed_hash(), h.state.hash().unwrap());
}

fn lease_draft_refused(h: &mut Harness) {
    assert_eq!(refused(&h.draft_lease()), RefusalCode::BootstrapMode);
}

#[test]
fn bootstrap_fast_exit_on_explicit_intent() {
    let mut h = Harness::new();
    boot(&mut h, B::Start);
    boot(&mut h, answer("near the top"));
    let intent = smart_kernel::bootstrap::interpret(Stage::Anchor, "I need help planning my week");
    assert_eq!(intent, B::Intent { text: "I need help planning my week".into() });
    boot(&mut h, intent);
    assert_eq!(stage(&h), Stage::ConfirmIntent);
    let p = smart_kernel::bootstrap::prompt(h.state.bootstrap.as_ref().unwrap()).unwrap();
    assert!(p.starts_with("Got it - you want help with \"planning my week\""), "{p}");
    // "Understand me first" goes back to where the intent interrupted.
    boot(&mut h, smart_kernel::bootstrap::interpret(Stage::ConfirmIntent, "understand where I'm at first"));
    assert_eq!(stage(&h), Stage::Anchor);
    boot(&mut h, B::Intent { text: "plan my week".into() });
    boot(&mut h, smart_kernel::bootstrap::interpret(Stage::ConfirmIntent, "yes, dive in"));
    assert_eq!(stage(&h), Stage::Done);
    assert!(!h.state.bootstrap_restricts());
    // Planning was asked for: the recommendation is to formalize North Stars (the deferral rule).
    assert_eq!(waiting_actions(&h), [ProposedAction::OfferNorthStars]);
    assert_eq!(h.replayed_hash(), h.state.hash().unwrap());
}

#[test]
fn bootstrap_listen_only_re_offers_permission_after_ten_quiet_turns() {
    let mut h = Harness::new();
    boot(&mut h, B::Start);
    for t in ["bottom", "my sister", "sleeping", "quiet"] {
        boot(&mut h, answer(t));
    }
    boot(&mut h, smart_kernel::bootstrap::interpret(Stage::Permission, "just keep listening please"));
    assert_eq!(stage(&h), Stage::Listening);
    assert_eq!(waiting_actions(&h), [ProposedAction::RemainListening]);
    for i in 1..10 {
        boot(&mut h, answer("it was a long day"));
        assert_eq!(stage(&h), Stage::Listening, "turn {i}");
    }
    boot(&mut h, answer("it was a long day"));
    assert_eq!(stage(&h), Stage::Permission, "the tenth quiet turn re-offers the permission prompt");
    assert_eq!(h.state.bootstrap.as_ref().unwrap().quiet_turns, 0);
    assert_eq!(h.replayed_hash(), h.state.hash().unwrap());
}

#[test]
fn bootstrap_resumes_across_sessions_from_its_snapshot() {
    let mut h = Harness::new();
    boot(&mut h, B::Start);
    boot(&mut h, answer("middle"));
    // The session ends; a new one rebuilds the state from the ledger alone.
    let mut resumed = KernelState::default();
    for (ev, at) in &h.log {
        resumed.apply(ev, *at).unwrap();
    }
    h.state = resumed;
    boot(&mut h, B::Resume);
    let b = h.state.bootstrap.clone().unwrap();
    assert_eq!((b.stage, b.sessions), (Stage::Anchor, 2));
    assert!(smart_kernel::bootstrap::prompt(&b).unwrap().starts_with("Welcome back. What's currently happening"));
    // Consent "propose structure" resumes in propose-only mode, not in bootstrap.
    boot(&mut h, B::Skip);
    boot(&mut h, B::Consent { consent: Consent::ProposeStructure });
    boot(&mut h, B::Resume);
    assert_eq!(stage(&h), Stage::Done);
    assert!(h.state.bootstrap_restricts());
    // Consent "listen only" resumes in bootstrap.
    boot(&mut h, B::Consent { consent: Consent::ListenOnly });
    boot(&mut h, B::Resume);
    assert_eq!(stage(&h), Stage::Listening);
    assert_eq!(h.replayed_hash(), h.state.hash().unwrap());
}

#[test]
fn bootstrap_is_a_light_check_in_for_existing_users() {
    let mut h = Harness::new();
    h.commit_lease();
    h.gate(GateAct::Evaluate);
    h.gate(GateAct::Release);
    boot(&mut h, B::Start);
    let b = h.state.bootstrap.clone().unwrap();
    assert!(b.abbreviated);
    assert_eq!(b.stage, Stage::CheckIn);
    assert!(smart_kernel::bootstrap::prompt(&b).unwrap().starts_with("I have context from before."));
    assert!(!h.state.bootstrap_restricts(), "a check-in does not hold a returning user back");
    boot(&mut h, answer("still on track"));
    assert_eq!(stage(&h), Stage::Done);
    assert_eq!(refused(&boot(&mut h, B::Start)), RefusalCode::BootstrapInvalid, "first contact happens once");
}

#[test]
fn bootstrap_re_entry_pauses_the_commitment_without_invalidating_it() {
    let mut h = Harness::new();
    boot(&mut h, B::Start);
    boot(&mut h, B::Skip);
    h.commit_lease();
    h.climb_to_l3();
    let lease = h.state.lease.clone();
    let p = GateProposal::new(
        GateSource::Perception,
        SuggestedGate::Framing,
        Severity::High,
        "ladder bottom, trust eroding",
        Millis(0),
    )
    .with_action(ProposedAction::BootstrapReentry);
    propose(&mut h, p);
    assert_eq!(refused(&boot(&mut h, B::Reenter)), RefusalCode::BootstrapInvalid, "only the controller re-enters");
    assert_eq!(tick(&mut h), ["proposals_read", "bootstrap_stepped"]);
    assert_eq!(stage(&h), Stage::Listening);
    assert_eq!(h.state.lease, lease, "the lease is kept");
    assert_eq!(refused(&h.run("t.l3")), RefusalCode::BootstrapMode, "but paused: propose-only");
    boot(&mut h, B::Consent { consent: Consent::ReadyForCommitment });
    assert!(matches!(h.run("t.l3"), Outcome::Admitted(_)));
    assert_eq!(h.replayed_hash(), h.state.hash().unwrap());
}

#[test]
fn the_identity_hook_reflects_only_the_persons_words() {
    let mut h = Harness::new();
    boot(&mut h, B::Start);
    boot(&mut h, answer("pretty low, a 2"));
    boot(&mut h, answer("my dog"));
    let b = h.state.bootstrap.clone().unwrap();
    let hook = smart_kernel::bootstrap::hook(&b).unwrap();
    assert!(hook.contains("my dog") && hook.contains("right now"));
    let lower = hook.to_lowercase();
    for banned in ["always", "never", "should", "try ", "than", "others", "must", "need to"] {
        assert!(!lower.contains(banned), "{banned:?} in {hook:?}");
    }
    assert!(smart_kernel::bootstrap::prompt(&b).unwrap().starts_with(&hook));
}

#[test]
fn a_full_buffer_cannot_swallow_the_lease_expiry() {
    let mut h = Harness::new();
    h.commit_lease();
    for i in 0..smart_kernel::gate_proposal::MAX_BUFFERED {
        let p = GateProposal::new(
            GateSource::UserSignal,
            SuggestedGate::Commitment,
            Severity::Emergency,
            format!("p{i}"),
            Millis(0),
        );
        assert!(matches!(propose(&mut h, p), Outcome::Done));
    }
    // One more of lower rank is refused, and records nothing.
    let seq = h.state.seq;
    let low = GateProposal::new(GateSource::TaskAgent, SuggestedGate::Framing, Severity::Low, "late", Millis(0));
    assert_eq!(refused(&propose(&mut h, low)), RefusalCode::ProposalInvalid);
    assert_eq!(h.state.seq, seq);
    h.advance(3_600_000);
    let kinds = tick(&mut h);
    assert_eq!(kinds.iter().filter(|k| *k == "proposals_read").count(), 2, "{kinds:?}");
    assert_eq!(h.state.stance, Stance::Evaluation, "the expiry was still decided");
    assert!(h.state.memory.proposals().is_empty());
    assert_eq!(h.replayed_hash(), h.state.hash().unwrap());
}

#[test]
fn the_memory_digest_follows_every_write_and_a_copys_writes_stay_its_own() {
    let mut h = Harness::new();
    let empty = h.state.hash().unwrap();
    let d = h.kernel.note_signal(&h.state, SignalKind::Preference, "brevity", h.now).unwrap();
    h.apply(d);
    let one = h.state.hash().unwrap();
    assert_ne!(one, empty);
    // A decision's scratch copy shares memory until it writes; its write is its own.
    let mut copy = h.state.clone();
    let ev = KernelEvent::SignalNoted { signal: SignalKind::Avoidance, text: "jargon".into() };
    copy.apply(&ev, h.now).unwrap();
    assert_eq!(h.state.hash().unwrap(), one, "the original's cached digest still holds");
    assert_ne!(copy.hash().unwrap(), one);
    // A state read back from its snapshot (no cache) hashes the same as the live one.
    let back: KernelState = serde_json::from_str(&serde_json::to_string(&copy).unwrap()).unwrap();
    assert_eq!(back.hash().unwrap(), copy.hash().unwrap());
    assert_eq!(back, copy);
}
