//! What the desktop timeline and confirmation dialog read from the runtime, over a real ledger:
//! filtered newest-first pages, counts and activity that agree with each other, per-event
//! integrity checks, the plan behind an `apply.move`, and a decision that signs only the call
//! hash the person was shown.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::json;
use smart_kernel::{CallSource, GateAct, Horizon, Policy};
use smart_ledger::EventFilter;
use smart_runtime::{CallOutcome, Engine, FixedClock, InitOptions, RuntimeError};
use smart_signals::KeyStoreKind;

const T0: u64 = 1_800_000_000_000;

struct Setup {
    _tmp: tempfile::TempDir,
    engine: Engine,
    plan: String,
    pending: String,
}

/// A data dir with a refusal, a committed scan, a move plan applied, and one quarantine pending.
fn setup() -> Setup {
    let tmp = tempfile::tempdir().unwrap();
    let root = dunce::canonicalize(tmp.path()).unwrap().join("root");
    let docs = root.join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(docs.join("old.txt"), "old").unwrap();
    std::fs::write(docs.join("a.txt"), "a").unwrap();
    let mut policy = Policy::default();
    policy.gates.after_l1_ms = 0;
    policy.gates.after_l2_ms = 0;
    policy.gates.after_l3_ms = 0;
    let (mut e, _) = Engine::init(
        &tmp.path().join("data"),
        InitOptions { roots: vec![root.clone()], policy: Some(policy), key_store: Some(KeyStoreKind::File) },
        Box::new(FixedClock(T0)),
    )
    .unwrap();
    let draft = smart_kernel::lease::LeaseDraft {
        frame: "tidy docs".into(),
        horizon: Horizon::Short,
        duration_ms: 3_600_000,
        success_criteria: vec![],
        non_goals: vec![],
        renewal_prompt: String::new(),
    };
    e.draft_lease(draft).unwrap();
    e.gates(&[GateAct::Commitment]).unwrap();
    assert_eq!(e.call("no.such.tool", json!({}), CallSource::Model).unwrap().outcome, CallOutcome::Refused);
    for tool in ["fs.scan", "cluster.duplicates"] {
        assert_eq!(e.call(tool, json!({"path": docs}), CallSource::Model).unwrap().outcome, CallOutcome::Committed);
    }
    let r = e
        .call(
            "propose.move",
            json!({"moves": [{"from": docs.join("a.txt"), "to": docs.join("new.txt")}]}),
            CallSource::Model,
        )
        .unwrap();
    let plan = r.artifact.unwrap();
    // Quarantine is L4: an L3 commit (applying the plan) must come first.
    assert_eq!(
        e.call("apply.move", json!({"proposal": plan}), CallSource::Model).unwrap().outcome,
        CallOutcome::Committed
    );
    let r = e.call("fs.quarantine", json!({"paths": [docs.join("old.txt")]}), CallSource::Model).unwrap();
    assert_eq!(r.outcome, CallOutcome::Pending, "{r:?}");
    Setup { _tmp: tmp, engine: e, plan, pending: r.pending_id.unwrap() }
}

#[test]
fn pages_are_newest_first_and_agree_with_the_count() {
    let s = setup();
    let l = s.engine.ledger();
    let all = EventFilter::default();
    let total = l.count(&all).unwrap();
    assert_eq!(total, s.engine.state().seq);
    let first = l.page(&all, 0, 3).unwrap();
    assert_eq!(first.iter().map(|r| r.seq).collect::<Vec<_>>(), vec![total, total - 1, total - 2]);
    let rest = l.page(&all, 3, 1_000).unwrap();
    assert_eq!(rest.len() as u64, total - 3);
    assert_eq!(rest.last().unwrap().seq, 1, "the last page ends at genesis");
    assert!(l.page(&all, total, 10).unwrap().is_empty());
}

#[test]
fn filters_by_kind_tool_correlation_and_time() {
    let s = setup();
    let l = s.engine.ledger();
    let committed = EventFilter { kinds: vec!["committed".into()], ..Default::default() };
    let rows = l.page(&committed, 0, 100).unwrap();
    assert_eq!(rows.len(), 4, "scan, duplicates, plan, apply");
    assert!(rows.iter().all(|r| r.kind == "committed"));

    // The tool lives in a different place for each kind; the filter finds all of them.
    let scan = EventFilter { tool: Some("fs.scan".into()), ..Default::default() };
    let kinds: Vec<String> = l.page(&scan, 0, 100).unwrap().into_iter().map(|r| r.kind).collect();
    assert_eq!(kinds, ["committed", "admitted", "proposed"]);
    let quarantine = EventFilter { tool: Some("fs.quarantine".into()), ..Default::default() };
    assert!(l.page(&quarantine, 0, 100).unwrap().iter().any(|r| r.kind == "pending"));
    assert_eq!(l.count(&EventFilter { tool: Some("no.such.tool".into()), ..Default::default() }).unwrap(), 2);

    // A correlation prefix selects one interaction.
    let corr = rows[0].corr.clone();
    let by_corr = EventFilter { corr: Some(corr[..8].to_string()), ..Default::default() };
    assert!(l.page(&by_corr, 0, 100).unwrap().iter().all(|r| r.corr == corr));
    assert!(l.count(&by_corr).unwrap() >= 3);

    // Wall-clock windows: everything happened just now.
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;
    let recent =
        EventFilter { from_wall_ms: Some(now - 600_000), to_wall_ms: Some(now + 600_000), ..Default::default() };
    assert_eq!(l.count(&recent).unwrap(), l.count(&EventFilter::default()).unwrap());
    assert_eq!(l.count(&EventFilter { to_wall_ms: Some(now - 600_000), ..Default::default() }).unwrap(), 0);
}

#[test]
fn filter_text_is_data_not_sql() {
    let s = setup();
    let l = s.engine.ledger();
    for hostile in ["x' OR 1=1 --", "%", "_", "fs.scan\") OR 1=1 --"] {
        assert_eq!(l.count(&EventFilter { tool: Some(hostile.into()), ..Default::default() }).unwrap(), 0, "{hostile}");
        assert_eq!(l.count(&EventFilter { corr: Some(hostile.into()), ..Default::default() }).unwrap(), 0, "{hostile}");
    }
    assert_eq!(l.count(&EventFilter { kinds: vec!["committed' OR '1'='1".into()], ..Default::default() }).unwrap(), 0);
}

#[test]
fn activity_buckets_add_up_to_the_count_and_name_refusals() {
    let s = setup();
    let l = s.engine.ledger();
    let buckets = l.activity(&EventFilter::default(), 60_000).unwrap();
    assert_eq!(buckets.iter().map(|b| b.events).sum::<u64>(), l.count(&EventFilter::default()).unwrap());
    assert_eq!(buckets.iter().map(|b| b.refusals).sum::<u64>(), 1, "the unknown tool");
    assert!(buckets.windows(2).all(|w| w[0].start_wall_ms < w[1].start_wall_ms));
    assert!(buckets.iter().all(|b| b.start_wall_ms % 60_000 == 0));
    assert!(l.tools().unwrap().contains(&"fs.quarantine".to_string()));
}

#[test]
fn every_event_checks_out_and_an_approval_s_signature_is_valid() {
    let mut s = setup();
    let hash = s.engine.state().pending.get(&s.pending).unwrap().call.hash.to_hex();
    let r = s.engine.decide_shown(&s.pending, &hash, true).unwrap();
    assert_eq!(r.outcome, CallOutcome::Committed, "{r:?}");
    let e = &s.engine;
    for seq in 1..=e.state().seq {
        let c = e.inspect(seq).unwrap().unwrap();
        assert!(c.hash_ok && c.link_ok && c.seal_ok == Some(true), "event {seq}: {c:?}");
        let kind = e.ledger().get(seq).unwrap().unwrap().kind;
        assert_eq!(c.signature_ok.is_some(), kind == "approved", "event {seq} ({kind}): {c:?}");
        if kind == "approved" {
            assert_eq!(c.signature_ok, Some(true));
        }
    }
    assert!(e.inspect(e.state().seq + 1).unwrap().is_none());
}

#[test]
fn a_decision_on_a_call_hash_the_person_was_not_shown_signs_nothing() {
    let mut s = setup();
    let before = s.engine.state().seq;
    let other = "ab".repeat(32);
    let err = s.engine.decide_shown(&s.pending, &other, true).unwrap_err();
    assert!(matches!(&err, RuntimeError::BadInput(m) if m.contains("nothing was signed")), "{err}");
    let err = s.engine.decide_shown("000000000000", &other, true).unwrap_err();
    assert!(err.to_string().contains("no pending call"), "{err}");
    assert_eq!(s.engine.state().seq, before, "a refused decision wrote to the ledger");
    assert!(s.engine.state().pending.contains_key(&s.pending));
    let report = s.engine.verify_ledger().unwrap();
    assert!(report.ok && report.events == before, "{report:?}");
}

#[test]
fn the_plan_behind_an_apply_is_found_by_its_hash() {
    let s = setup();
    let hash = smart_kernel::Hash::from_hex(&s.plan).unwrap();
    let plan = s.engine.artifact(&hash).unwrap().unwrap();
    let moves = plan.body["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 1);
    assert!(std::path::Path::new(moves[0]["to"].as_str().unwrap()).ends_with("docs/new.txt"), "{plan:?}");
    assert!(s.engine.artifact(&smart_kernel::Hash::of_bytes(b"nothing")).unwrap().is_none());
}

#[test]
fn the_tool_filter_in_sql_and_tool_of_on_a_payload_agree() {
    let s = setup();
    let l = s.engine.ledger();
    let all = l.page(&EventFilter::default(), 0, 1_000).unwrap();
    let tools = l.tools().unwrap();
    assert!(tools.len() >= 5, "{tools:?}");
    for tool in tools {
        let by_sql = l.page(&EventFilter { tool: Some(tool.clone()), ..Default::default() }, 0, 1_000).unwrap();
        let by_payload: Vec<u64> = all
            .iter()
            .filter(|r| {
                let v: serde_json::Value = serde_json::from_str(&r.payload).unwrap();
                smart_ledger::tool_of(&v) == Some(tool.as_str())
            })
            .map(|r| r.seq)
            .collect();
        assert_eq!(by_sql.iter().map(|r| r.seq).collect::<Vec<_>>(), by_payload, "{tool}");
    }
}

/// Inside `Engine::in_turn` every operation is ledgered under the turn's id; outside one, each
/// operation is a request of its own; a nested turn is the innermost id, and the outer one is
/// back after it. (Before turn ids, every operation made its own id.)
#[test]
fn operations_inside_a_turn_share_its_id_and_outside_each_has_its_own() {
    use smart_runtime::TurnId;
    let mut s = setup();
    let e = &mut s.engine;
    let docs = e.roots()[0].clone() + "/docs";
    let corrs_after = |e: &Engine, seq: u64| -> Vec<String> {
        let mut out = vec![];
        e.ledger()
            .for_each_from(seq + 1, |row| {
                out.push(row.corr);
                true
            })
            .unwrap();
        out.dedup();
        out
    };
    // Each call ledgers events whatever the kernel decides (the same scan is refused once the
    // lease's repeat bound is reached); the ids are what is checked.
    let scan = |e: &mut Engine| {
        let r = e.call("fs.scan", json!({"path": docs}), CallSource::Model).unwrap();
        assert!(r.seq.is_some(), "{r:?}");
    };
    // Outside a turn: two calls, two ids.
    let before = e.state().seq;
    scan(e);
    scan(e);
    assert_eq!(corrs_after(e, before).len(), 2, "two requests");

    // Inside one: two calls, the turn's id; a nested turn in between, its own; then the outer again.
    let (outer, inner) = (TurnId::new(), TurnId::new());
    let before = e.state().seq;
    e.in_turn(&outer, |e| {
        scan(e);
        e.in_turn(&inner, |e| scan(e));
        scan(e);
    });
    assert_eq!(corrs_after(e, before), vec![outer.to_string(), inner.to_string(), outer.to_string()]);

    // After it, a request of its own again.
    let before = e.state().seq;
    scan(e);
    let after = corrs_after(e, before);
    assert_eq!(after.len(), 1);
    assert!(after[0] != outer.to_string() && after[0] != inner.to_string(), "the turn was left open: {after:?}");
}
