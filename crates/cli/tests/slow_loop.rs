//! The slow loop through the real binary over a real data dir: decisions and memory written at
//! gates, proposals read by the gate controller, decay on an injected clock, the continuous
//! evaluator, work orders and bootstrap — and after each, `ledger verify` and `ledger replay`
//! rebuild the same state hashes from the SQLite file alone.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use serde_json::Value;

fn replays(s: &Smart) {
    let (c, v) = s.json(&["ledger", "verify"]);
    assert_eq!(c, 0, "verify: {v}");
    let (c, v) = s.json(&["ledger", "replay"]);
    assert_eq!(c, 0, "replay: {v}");
}

fn stance(s: &Smart) -> String {
    let (_, v) = s.json(&["status"]);
    v["stance"].as_str().unwrap().to_string()
}

#[test]
fn decisions_and_memory_are_written_at_gates_and_only_there() {
    let mut s = Smart::init(None);
    let (c, _) = s.json(&["lease", "draft", "--frame", "tidy the docs", "--horizon", "short", "--expires-in", "1h"]);
    assert_eq!(c, 0);
    // A principle is not the commitment gate's to write: the whole pass is refused.
    let (c, v) = s.json(&["gate", "commitment", "--principle", "safety=never delete"]);
    assert_eq!((c, v["code"].as_str()), (3, Some("write_forbidden")), "{v}");
    assert_eq!(stance(&s), "sensemaking");
    let (c, v) = s.json(&[
        "gate",
        "commitment",
        "--decision",
        "Start with docs",
        "--rationale",
        "it is the messiest",
        "--stage",
        "scanning",
        "--next",
        "scan docs",
        "--staleness",
        "10m",
    ]);
    assert_eq!(c, 0, "{v}");
    let (_, v) = s.json(&["decisions"]);
    let d = &v["decisions"][0];
    assert_eq!(
        (d["id"].as_u64(), d["kind"].as_str(), d["gate"].as_str()),
        (Some(1), Some("binding"), Some("commitment"))
    );

    // Fast memory from the fast loop, no gate needed; the staleness clock marks it, keeps it.
    let (c, v) = s.json(&["progress", "--win", "scanned docs"]);
    assert_eq!(c, 0, "{v}");
    s.advance(10 * 60_000);
    let (_, m) = s.json(&["memory"]);
    assert_eq!(m["fast"]["progress"]["stale"], true, "{m}");
    assert_eq!(m["fast"]["progress"]["recent_wins"][0], "scanned docs");
    let (c, v) = s.json(&["note", "preference", "brevity"]);
    assert_eq!(c, 0, "{v}");
    let (c, v) = s.json(&["note", "mood", "x"]);
    assert_ne!(c, 0, "an unknown kind is a usage error: {v}");

    // The evaluation gate supersedes; nothing is deleted.
    let (c, v) = s.json(&["gate", "evaluation"]);
    assert_eq!(c, 0, "{v}");
    let (c, v) =
        s.json(&["gate", "evaluation", "--renew", "--decision", "Docs first, then downloads", "--supersedes", "1"]);
    assert_eq!(c, 0, "{v}");
    let (_, v) = s.json(&["decisions"]);
    assert_eq!(v["decisions"].as_array().unwrap().len(), 1, "current only: {v}");
    let (_, v) = s.json(&["decisions", "--all"]);
    let all = v["decisions"].as_array().unwrap();
    assert_eq!(all.len(), 2);
    assert_eq!(all[0]["superseded_by"], 2);
    // Principles only at the evaluation gate proper.
    let (c, v) = s.json(&["gate", "evaluation", "--principle", "safety=never delete without asking"]);
    assert_eq!(c, 0, "{v}");
    let (_, m) = s.json(&["memory"]);
    assert_eq!(m["slow"]["principles"]["safety"]["kind"], "constraint", "{m}");
    replays(&s);
}

#[test]
fn a_persons_proposal_waits_for_the_gateway_pass_and_its_verdict_is_on_record() {
    let s = Smart::init(None);
    s.commit_lease();
    let (c, v) = s.json(&["proposals", "add", "--gate", "evaluation", "--severity", "high", "time to look back"]);
    assert_eq!(c, 0, "{v}");
    let (_, v) = s.json(&["proposals"]);
    assert_eq!(v["waiting"].as_array().unwrap().len(), 1, "listing does not read: {v}");
    assert_eq!(v["waiting"][0]["source"], "user_signal");
    let (c, v) = s.json(&["proposals", "read"]);
    assert_eq!(c, 0, "{v}");
    assert_eq!(stance(&s), "evaluation");
    let (_, v) = s.json(&["proposals"]);
    assert!(v["waiting"].as_array().unwrap().is_empty());
    let verdict = &v["reads"][0]["verdicts"][0];
    assert_eq!(
        (verdict["verdict"].as_str(), v["reads"][0]["trigger"].as_str()),
        (Some("accepted"), Some("request")),
        "{v}"
    );
    // Bad proposals change nothing.
    let (c, v) = s.json(&["proposals", "add", "--gate", "framing", " "]);
    assert_eq!((c, v["code"].as_str()), (3, Some("proposal_invalid")), "{v}");
    replays(&s);
}

#[test]
fn lease_expiry_is_proposed_by_the_decay_manager_and_accepted_at_the_next_gateway_pass() {
    let mut s = Smart::init(None);
    s.commit_lease();
    s.advance(3_600_000);
    assert_eq!(stance(&s), "evaluation");
    let (_, v) = s.json(&["proposals"]);
    let verdict = &v["reads"][0]["verdicts"][0];
    assert_eq!(verdict["proposal"]["source"], "decay_manager", "{v}");
    assert_eq!(verdict["proposal"]["severity"], "high");
    assert_eq!(verdict["effect"]["gate"], "lease_expiry", "{v}");
    replays(&s);
}

#[test]
fn the_evaluator_turns_three_refusals_into_a_drift_proposal() {
    let s = Smart::init(None);
    s.write("docs/a.txt", "a");
    let target = format!("compress {}/docs", s.root.display());
    let mut advisories = vec![];
    for _ in 0..3 {
        let (c, v) = s.json(&["say", &target]);
        assert_eq!((c, v["code"].as_str()), (3, Some("no_lease")), "{v}");
        advisories.push(v["advisories"].clone());
    }
    assert!(advisories[0].is_null(), "{advisories:?}");
    let last: Vec<&str> = advisories[2].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
    assert!(last.contains(&"repeated_refusals") && last.contains(&"repeated_proposal"), "{last:?}");
    let (_, v) = s.json(&["proposals"]);
    let sources: Vec<&str> = v["reads"][0]["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["proposal"]["source"].as_str().unwrap())
        .collect();
    assert!(sources.iter().all(|s| *s == "continuous_eval"), "{v}");
    // Nothing is executing: the controller rejects evaluation proposals, and says why.
    assert_eq!(v["reads"][0]["verdicts"][0]["verdict"], "rejected", "{v}");
    assert_eq!(stance(&s), "sensemaking");
    replays(&s);
}

#[test]
fn a_work_order_works_inside_the_lease_scope_and_proposes_as_a_task_agent() {
    let s = Smart::init(None);
    let docs = s.write("docs/a.txt", "a").parent().unwrap().display().to_string();
    let (c, v) = s.json(&["work", "open", "read the docs", "--tools", "fs.scan,fs.hash"]);
    assert_eq!((c, v["code"].as_str()), (3, Some("work_order_invalid")), "no lease, no order: {v}");
    s.commit_lease();
    let (c, v) = s.json(&["work", "open", "read the docs", "--tools", "fs.scan,fs.hash"]);
    assert_eq!(c, 0, "{v}");
    let id = v["output"]["work_order"].as_str().unwrap().to_string();
    let scan = format!(r#"{{"path": "{docs}"}}"#);
    let (c, v) = s.json(&["work", "call", &id, "fs.scan", "--args", &scan]);
    assert_eq!(c, 0, "{v}");
    let (c, v) = s.json(&["work", "call", &id, "cluster.duplicates", "--args", &scan]);
    assert_eq!((c, v["code"].as_str()), (3, Some("work_order_invalid")), "{v}");
    let (c, v) = s.json(&["work", "propose", &id, "--gate", "evaluation", "--severity", "low", "scan finished"]);
    assert_eq!(c, 0, "{v}");
    let (c, v) = s.json(&["work", "close", &id]);
    assert_eq!(c, 0, "{v}");
    let (c, v) = s.json(&["work", "call", &id, "fs.scan", "--args", &scan]);
    assert_eq!((c, v["code"].as_str()), (3, Some("work_order_invalid")), "{v}");
    replays(&s);
}

#[test]
fn bootstrap_takes_the_first_turns_and_hands_over_on_explicit_intent() {
    let s = Smart::init(None);
    s.write("reports/q3.txt", "q3");
    let (c, v) = s.json(&["bootstrap", "start"]);
    assert_eq!(c, 0, "{v}");
    assert_eq!(v["stage"], "ladder");
    assert!(v["prompt"].as_str().unwrap().contains("ladder"));
    // While it listens, `say` answers bootstrap and reaches no proposer.
    let (c, v) = s.json(&["say", "pretty good, maybe a 7"]);
    assert_eq!(c, 0, "{v}");
    assert_eq!((v["ended"].as_str(), v["outcome"].as_str()), (Some("bootstrap"), Some("bootstrap")), "{v}");
    assert!(v["steps"].as_array().unwrap().is_empty());
    assert_eq!(v["bootstrap"]["stage"], "anchor");
    // Nothing above L2 while it listens.
    let (c, v) = s.json(&["lease", "draft", "--frame", "x", "--horizon", "short", "--expires-in", "1h"]);
    assert_eq!((c, v["code"].as_str()), (3, Some("bootstrap_mode")), "{v}");
    // An explicit request: confirmed in one line, then carried out as the turn.
    let reports = format!("show me what is in {}/reports", s.root.display());
    let (_, v) = s.json(&["say", &reports]);
    assert_eq!(v["bootstrap"]["stage"], "confirm_intent", "{v}");
    assert!(v["reply"].as_str().unwrap().starts_with("Got it - you want help with"), "{v}");
    let (c, v) = s.json(&["say", "yes, dive in"]);
    assert_eq!(c, 0, "{v}");
    assert_eq!(v["bootstrap"]["stage"], "done", "{v}");
    assert_eq!(v["proposal"]["tool"], "fs.scan", "the request itself runs: {v}");
    assert_eq!(v["outcome"], "committed", "{v}");
    let (_, m) = s.json(&["memory"]);
    assert_eq!(m["bootstrap"]["snapshot"]["ladder_position"], "middle", "a 7 of 10: {m}");
    assert_eq!(m["bootstrap"]["snapshot"]["ladder_number"], 7);
    assert_eq!(m["bootstrap"]["snapshot"]["consent_state"], "ready_for_commitment");
    assert!(m["proposals_waiting"].as_array().unwrap().is_empty(), "read at the end of the turn: {m}");
    // The recommendation was referred to the person.
    let (_, v) = s.json(&["proposals"]);
    let found = v["reads"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["verdicts"].as_array().unwrap().iter())
        .any(|x| x["proposal"]["action"] == "offer_work_order" && x["verdict"] == "referred");
    assert!(found, "{v}");
    replays(&s);
}

#[test]
fn bootstrap_resumes_in_a_new_process_where_it_stopped() {
    let s = Smart::init(None);
    s.json(&["bootstrap", "start"]);
    s.json(&["bootstrap", "say", "the middle"]);
    // Another process: the state comes from the ledger.
    let (c, v) = s.json(&["bootstrap", "resume"]);
    assert_eq!(c, 0, "{v}");
    assert_eq!(v["stage"], "anchor");
    assert!(v["prompt"].as_str().unwrap().starts_with("Welcome back."), "{v}");
    let (c, v) = s.json(&["bootstrap", "skip"]);
    assert_eq!(c, 0, "{v}");
    assert_eq!((v["stage"].as_str(), v["propose_only"].as_bool()), (Some("done"), Some(false)));
    let (c, v) = s.json(&["bootstrap", "start"]);
    assert_eq!((c, v["report"]["code"].as_str()), (3, Some("bootstrap_invalid")), "{v}");
    let _: Value = v;
    replays(&s);
}
