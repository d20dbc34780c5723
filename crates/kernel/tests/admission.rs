//! Every admission check, each made to fail on its own, plus properties of the plus-one rule,
//! the time gates and the stance/lease ceiling under random call sequences.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use proptest::prelude::*;
use serde_json::json;
use smart_kernel::orbit::ScopeRequest;
use smart_kernel::*;

#[test]
fn unknown_tool_is_refused_and_counts_nothing() {
    let mut h = Harness::new();
    let o = h.propose(h.call("fs.format_disk", json!({"path": abs("/r")})));
    assert_eq!(refused(&o), RefusalCode::UnknownTool);
    assert_eq!((h.state.steps, h.state.budget_used), (0, 0));
    assert_eq!(h.log.last().unwrap().0.kind(), "refused");
}

#[test]
fn malformed_arguments_are_schema_invalid() {
    let mut h = Harness::new();
    for args in [json!({}), json!({"path": 7}), json!({"path": abs("/r/a"), "extra": 1}), json!("nope")] {
        let o = h.propose(h.call("t.l0", args.clone()));
        assert_eq!(refused(&o), RefusalCode::SchemaInvalid, "{args}");
    }
}

#[test]
fn dot_dot_escapes_are_outside_the_roots() {
    let mut h = Harness::new();
    let o = h.propose(h.call("t.l0", json!({"path": abs("/r/docs/../../etc/passwd")})));
    assert_eq!(refused(&o), RefusalCode::PathOutsideRoots);
    // `..` that stays inside is fine.
    let o = h.propose(h.call("t.l0", json!({"path": abs("/r/docs/../a.txt")})));
    assert!(matches!(o, Outcome::Admitted(_)));
}

#[test]
fn a_symlink_out_of_the_root_is_outside_the_roots() {
    let mut h = Harness::new();
    h.world.links.insert(abs("/r/innocent"), abs("/etc"));
    let o = h.propose(h.call("t.l0", json!({"path": abs("/r/innocent/shadow")})));
    match &o {
        Outcome::Refused(r) => {
            assert_eq!(r.code, RefusalCode::PathOutsideRoots);
            assert!(r.reason.contains(&abs("/etc/shadow")), "{}", r.reason);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_root_prefix_is_not_a_root() {
    // "/rx" starts with the string "/r" but is not inside the folder /r.
    let mut h = Harness::new();
    let o = h.propose(h.call("t.l0", json!({"path": abs("/rx/secret")})));
    assert_eq!(refused(&o), RefusalCode::PathOutsideRoots);
}

#[test]
fn absurd_relative_and_nul_paths_are_invalid() {
    let mut h = Harness::new();
    let long = abs(&format!("/r/{}", "a/".repeat(5000)));
    let nul = abs("/r/a\0b");
    for raw in [long.as_str(), "docs/a.txt", nul.as_str(), ""] {
        let o = h.propose(h.call("t.l0", json!({"path": raw})));
        assert_eq!(refused(&o), RefusalCode::PathInvalid, "{:?}", raw.get(..20));
    }
}

#[test]
fn scope_must_be_current_unrevoked_unexpired_and_cover_the_tool() {
    let mut h = Harness::new();
    let mut c = h.call("t.l0", json!({"path": abs("/r/a.txt")}));
    c.scope_id = "0".repeat(64);
    assert_eq!(refused(&h.propose(c)), RefusalCode::ScopeInvalid);

    // A tool whose capability the context does not grant.
    assert_eq!(refused(&h.run("net.get")), RefusalCode::ScopeInvalid);

    // Expired.
    h.advance(h.kernel.policy().scope.ttl_without_lease_ms);
    assert_eq!(refused(&h.run("t.l0")), RefusalCode::ScopeInvalid);

    // Revoked: and a lease change does not silently replace a revoked token.
    let mut h = Harness::new();
    let d = h.kernel.revoke_scope(&h.state, "test", h.now).unwrap();
    h.apply(d);
    assert_eq!(refused(&h.run("t.l0")), RefusalCode::ScopeInvalid);
    h.commit_lease();
    assert!(h.state.scope.as_ref().unwrap().revoked);
    let d = h.kernel.issue_scope(&h.state, &ScopeRequest::default(), h.now).unwrap();
    h.apply(d);
    assert!(matches!(h.run("t.l0"), Outcome::Admitted(_)));
}

#[test]
fn above_l1_needs_an_active_lease() {
    let mut h = Harness::new();
    assert!(matches!(h.run("t.l0"), Outcome::Admitted(_)));
    assert!(matches!(h.run("t.l1"), Outcome::Admitted(_)));
    h.advance(2_000);
    assert_eq!(refused(&h.run("t.l2")), RefusalCode::NoLease);
}

#[test]
fn stance_ceilings_bound_the_layers() {
    let mut h = Harness::new();
    h.commit_lease();
    assert!(matches!(h.run("t.l0"), Outcome::Admitted(_)));
    assert!(matches!(h.run("t.l1"), Outcome::Admitted(_)));
    // Evaluation: L0–L1 only.
    h.gate(GateAct::Evaluate);
    h.advance(2_000);
    assert_eq!(refused(&h.run("t.l2")), RefusalCode::StanceCeiling);
    assert!(matches!(h.run("t.l1"), Outcome::Admitted(_)));
}

#[test]
fn plus_one_rule_refuses_skipping_a_layer() {
    let mut h = Harness::new();
    h.commit_lease();
    assert_eq!(refused(&h.run("t.l2")), RefusalCode::LayerNotReached);
    assert!(matches!(h.run("t.l0"), Outcome::Admitted(_)));
    assert_eq!(refused(&h.run("t.l2")), RefusalCode::LayerNotReached);
    assert_eq!(refused(&h.run("t.l3")), RefusalCode::LayerNotReached);
    assert!(matches!(h.run("t.l1"), Outcome::Admitted(_)));
    assert_eq!(h.state.frontier, Layer::L1);
}

#[test]
fn time_gate_holds_the_next_layer_until_the_delay_has_passed() {
    let mut h = Harness::new();
    h.commit_lease();
    h.run("t.l0");
    h.run("t.l1");
    h.advance(1_999);
    match h.run("t.l2") {
        Outcome::Refused(r) => {
            assert_eq!(r.code, RefusalCode::TimeGate);
            assert!(r.reason.contains("1s"), "{}", r.reason);
        }
        other => panic!("{other:?}"),
    }
    h.advance(1);
    assert!(matches!(h.run("t.l2"), Outcome::Admitted(_)));
    h.advance(4_999);
    assert_eq!(refused(&h.run("t.l3")), RefusalCode::TimeGate);
    h.advance(1);
    assert!(matches!(h.run("t.l3"), Outcome::Admitted(_)));
}

#[test]
fn budget_is_charged_per_lease_and_refuses_past_the_limit() {
    let mut p = policy();
    p.budget.per_lease = 2;
    let mut h = Harness::with(p);
    h.run("t.l0");
    let c = h.call("t.l0", json!({"path": abs("/r/b")}));
    assert!(matches!(h.propose(c), Outcome::Admitted(_)));
    assert_eq!(refused(&h.run("t.l1")), RefusalCode::BudgetExhausted);
    // A new lease is a new budget.
    h.commit_lease();
    assert!(matches!(h.run("t.l0"), Outcome::Admitted(_)));
}

#[test]
fn identical_calls_and_steps_are_bounded() {
    let mut h = Harness::new();
    for _ in 0..3 {
        assert!(matches!(h.run("t.l0"), Outcome::Admitted(_)));
    }
    assert_eq!(refused(&h.run("t.l0")), RefusalCode::MonotoneBound);

    let mut p = policy();
    p.monotone.max_steps = 2;
    let mut h = Harness::with(p);
    h.run("t.l0");
    h.propose(h.call("t.l0", json!({"path": abs("/r/b")})));
    let o = h.propose(h.call("t.l0", json!({"path": abs("/r/c")})));
    assert_eq!(refused(&o), RefusalCode::MonotoneBound);
}

#[test]
fn a_read_only_scope_refuses_mutation() {
    let mut h = Harness::new();
    h.commit_lease();
    let req = ScopeRequest { read_only: true, ..ScopeRequest::default() };
    let d = h.kernel.issue_scope(&h.state, &req, h.now).unwrap();
    h.apply(d);
    for (tool, wait) in [("t.l0", 0), ("t.l1", 0), ("t.l2", 2_000)] {
        h.advance(wait);
        assert!(matches!(h.run(tool), Outcome::Admitted(_)), "{tool}");
    }
    h.advance(5_000);
    assert_eq!(refused(&h.run("t.l3")), RefusalCode::MutationNotPermitted);
}

#[test]
fn a_snapshot_the_proposer_saw_must_still_hold() {
    let mut h = Harness::new();
    let mut c = h.call("t.l0", json!({"path": abs("/r/a.txt")}));
    c.snapshot = Some([(abs("/r/a.txt"), Hash::of_bytes(b"old"))].into());
    assert_eq!(refused(&h.propose(c.clone())), RefusalCode::SnapshotStale);
    c.snapshot = Some([(abs("/r/a.txt"), Hash::of_bytes(b"a"))].into());
    assert!(matches!(h.propose(c), Outcome::Admitted(_)));
}

fn make_plan(h: &mut Harness) -> Hash {
    let artifact = Artifact {
        kind: "move_plan".into(),
        body: json!({"moves": [{"from": abs("/r/a.txt"), "to": abs("/r/b.txt")}]}),
        inputs: [(abs("/r/a.txt"), Hash::of_bytes(b"a"))].into(),
    };
    let hash = hash_of(&artifact).unwrap();
    h.world.artifacts.insert(hash, artifact.clone());
    let d = h.kernel.propose(&h.state, h.call("t.l2", json!({"path": abs("/r/a.txt")})), h.now, &h.world).unwrap();
    match h.apply(d) {
        Outcome::Admitted(a) => h.commit(&a, kernel::ToolOutput { artifact: Some(artifact), ..Default::default() }),
        other => panic!("{other:?}"),
    }
    hash
}

#[test]
fn an_artifact_applies_once_only_while_its_inputs_are_unchanged() {
    let mut h = Harness::new();
    h.commit_lease();
    h.run("t.l0");
    h.run("t.l1");
    h.advance(2_000);
    let plan = make_plan(&mut h);
    h.advance(5_000);

    let apply = |h: &Harness| h.call("t.apply_plan", json!({"proposal": plan.to_hex()}));
    // Unknown hash.
    let o = h.propose(h.call("t.apply_plan", json!({"proposal": Hash::of_bytes(b"x").to_hex()})));
    assert_eq!(refused(&o), RefusalCode::ArtifactUnknown);
    // The file changed since the plan was made.
    h.world.files.insert(abs("/r/a.txt"), Hash::of_bytes(b"edited"));
    assert_eq!(refused(&h.propose(apply(&h))), RefusalCode::SnapshotStale);
    // A tampered artifact body no longer matches its hash.
    h.world.files.insert(abs("/r/a.txt"), Hash::of_bytes(b"a"));
    let mut forged = h.world.artifacts[&plan].clone();
    forged.body = json!({"moves": [{"from": abs("/r/a.txt"), "to": abs("/etc/cron.d/x")}]});
    let saved = h.world.artifacts.insert(plan, forged).unwrap();
    assert_eq!(refused(&h.propose(apply(&h))), RefusalCode::ArtifactUnknown);
    h.world.artifacts.insert(plan, saved);
    // Fresh: admitted, once.
    assert!(matches!(h.propose(apply(&h)), Outcome::Admitted(_)));
    assert_eq!(refused(&h.propose(apply(&h))), RefusalCode::ArtifactUnknown);
}

#[test]
fn a_destination_swapped_for_a_symlink_after_the_plan_is_refused() {
    // The plan was made when /r/b.txt was inside the root; then /r became... no: a folder on the
    // destination's path is replaced by a link out of the root before the plan is applied.
    let mut h = Harness::new();
    h.commit_lease();
    h.run("t.l0");
    h.run("t.l1");
    h.advance(2_000);
    let artifact = Artifact {
        kind: "move_plan".into(),
        body: json!({"moves": [{"from": abs("/r/a.txt"), "to": abs("/r/dups/a.txt")}]}),
        inputs: [(abs("/r/a.txt"), Hash::of_bytes(b"a"))].into(),
    };
    let plan = hash_of(&artifact).unwrap();
    h.world.artifacts.insert(plan, artifact.clone());
    let d = h.kernel.propose(&h.state, h.call("t.l2", json!({"path": abs("/r/a.txt")})), h.now, &h.world).unwrap();
    let Outcome::Admitted(a) = h.apply(d) else { panic!() };
    h.commit(&a, kernel::ToolOutput { artifact: Some(artifact), ..Default::default() });
    h.advance(5_000);
    h.world.links.insert(abs("/r/dups"), abs("/etc"));
    let o = h.propose(h.call("t.apply_plan", json!({"proposal": plan.to_hex()})));
    assert_eq!(refused(&o), RefusalCode::PathOutsideRoots);
    // Swapped for a link that stays inside the root: the plan no longer means what was proposed.
    h.world.links.insert(abs("/r/dups"), abs("/r/elsewhere"));
    let o = h.propose(h.call("t.apply_plan", json!({"proposal": plan.to_hex()})));
    assert_eq!(refused(&o), RefusalCode::SnapshotStale);
    h.world.links.clear();
    assert!(matches!(h.propose(h.call("t.apply_plan", json!({"proposal": plan.to_hex()}))), Outcome::Admitted(_)));
}

#[test]
fn checks_run_in_the_documented_order() {
    // A call failing scope, ceiling and plus-one at once is refused for scope (check 3).
    let mut h = Harness::new();
    let mut c = h.call("t.l3", json!({"path": abs("/r/a.txt")}));
    c.scope_id = "bad".into();
    assert_eq!(refused(&h.propose(c)), RefusalCode::ScopeInvalid);
    // Failing ceiling and plus-one: ceiling (check 4) wins.
    assert_eq!(refused(&h.run("t.l3")), RefusalCode::NoLease);
    // Bad schema and a path outside: schema first.
    let o = h.propose(h.call("t.l0", json!({"path": abs("/etc"), "x": 1})));
    assert_eq!(refused(&o), RefusalCode::SchemaInvalid);
}

#[derive(Debug, Clone)]
enum Step {
    Call(u8),
    Wait(u64),
    Evaluate,
    Renew,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0u8..5).prop_map(Step::Call),
        3 => prop_oneof![Just(0u64), Just(1_000), Just(2_000), Just(5_000), Just(15_000), Just(31_000)].prop_map(Step::Wait),
        1 => Just(Step::Evaluate),
        1 => Just(Step::Renew),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Whatever the sequence, every admitted call satisfied plus-one, its time gate and the
    /// ceiling against the state it was judged in; and replay reproduces the state hash.
    #[test]
    fn admitted_calls_always_respect_plus_one_gates_and_ceiling(steps in proptest::collection::vec(step(), 1..40), lease in any::<bool>()) {
        let mut h = Harness::new();
        if lease { h.commit_lease(); }
        let mut n = 0;
        for s in steps {
            match s {
                Step::Wait(ms) => h.advance(ms),
                Step::Evaluate => { h.gate(GateAct::Evaluate); }
                Step::Renew => { h.gate(GateAct::Renew); }
                Step::Call(layer) => {
                    n += 1;
                    let before = h.state.clone();
                    let c = h.call(&format!("t.l{layer}"), json!({"path": abs(&format!("/r/f{n}"))}));
                    let d = h.kernel.propose(&h.state, c, h.now, &h.world).unwrap();
                    let outcome = h.apply(d);
                    let layer = Layer::try_from(layer).unwrap();
                    let admitted = matches!(outcome, Outcome::Admitted(_) | Outcome::Pending { .. });
                    if admitted {
                        prop_assert!(layer.index() <= before.frontier.index() + 1, "plus-one broken");
                        if layer > Layer::L1 {
                            prop_assert!(before.active_lease(h.now).is_some(), "no lease");
                            prop_assert!(before.stance != Stance::Evaluation, "ceiling broken");
                        }
                    }
                    if let Outcome::Admitted(a) = outcome {
                        let gate = smart_kernel::time_gate::remaining(layer, &before.last_commit, &h.kernel.policy().gates, h.now);
                        prop_assert_eq!(gate, 0, "time gate broken");
                        h.commit(&a, kernel::ToolOutput::default());
                    }
                }
            }
            let t = h.kernel.tick(&h.state, h.now).unwrap();
            h.apply(t);
        }
        prop_assert_eq!(h.replayed_hash(), h.state.hash().unwrap());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Whatever mix of `..`, `.`, symlinks in and out, and ordinary names a path is made of, an
    /// admitted call's resolved path is inside the root, and a refused one names the escape.
    #[test]
    fn no_path_escapes_the_roots(parts in proptest::collection::vec(prop_oneof![
        Just(".."), Just("."), Just("a"), Just("b"), Just("out"), Just("in"), Just("r"), Just("etc"),
    ], 0..10)) {
        let mut h = Harness::new();
        h.world.links.insert(abs("/r/out"), abs("/etc"));
        h.world.links.insert(abs("/r/a/out"), abs("/"));
        h.world.links.insert(abs("/r/in"), abs("/r/a"));
        let raw = abs(&format!("/r/{}", parts.join("/")));
        let resolved = h.world.resolve(&raw).unwrap();
        let inside = resolved.starts_with(abs("/r"));
        let c = h.call("t.l0", json!({"path": raw}));
        let d = h.kernel.propose(&h.state, c, h.now, &h.world).unwrap();
        let ev = d.events.clone();
        match h.apply(d) {
            Outcome::Admitted(a) => {
                let path = a.args()["path"].as_str().unwrap().to_string();
                prop_assert!(std::path::Path::new(&path).starts_with(abs("/r")), "admitted {raw} as {path}");
                prop_assert!(inside);
            }
            Outcome::Refused(r) => {
                // Only the monotone bound may refuse a path that is inside (a repeated path).
                if inside {
                    prop_assert_eq!(r.code, RefusalCode::MonotoneBound, "{}: {:?}", raw, ev);
                } else {
                    prop_assert_eq!(r.code, RefusalCode::PathOutsideRoots);
                }
            }
            other => prop_assert!(false, "{other:?}"),
        }
    }
}
