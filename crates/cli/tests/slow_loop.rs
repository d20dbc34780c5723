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
    let (c, v) = s.json(&["ledger", "replay", "--from-genesis"]);
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
    // The turn's findings were read together, at its end, in one merge.
    assert_eq!(v["reads"][0]["trigger"], "end_of_turn", "{v}");
    assert!(sources.len() >= 2, "both drift findings in one read: {v}");
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
    let scan = format!(r#"{{"path": {}}}"#, js(&docs));
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

/// Copies a recorded data dir into a fresh temp dir (the fixture itself is never written).
fn fixture(name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    for entry in std::fs::read_dir(&src).unwrap() {
        let p = entry.unwrap().path();
        std::fs::copy(&p, data.join(p.file_name().unwrap())).unwrap();
    }
    // git keeps no permission bits but the executable one; a key file must be private.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(data.join("device.key"), std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    (tmp, data)
}

/// Runs `smart --json ARGS` on the data dir `data` at the pinned time `now_ms`, with the file key
/// store: (exit code, the JSON it printed or null, the text it printed).
fn run_at(data: &std::path::Path, now_ms: u64, args: &[&str]) -> (i32, Value, String) {
    let out = output(
        std::process::Command::new(bin())
            .env("SMART_DATA_DIR", data)
            .env("SMART_KEY_STORE", "file")
            .env("SMART_NOW_MS", now_ms.to_string())
            .arg("--json")
            .args(args),
    );
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    (out.status.code().unwrap_or(-1), serde_json::from_str::<Value>(text.trim()).unwrap_or(Value::Null), text)
}

#[test]
fn a_ledger_recorded_before_the_slow_loop_replays_to_the_same_hashes() {
    let (_tmp, data) = fixture("ledger-before-slow-loop");
    let run = |args: &[&str]| run_at(&data, 1800000700000, args);
    // A ledger from before anchoring gets its anchor from its own signed head when first opened…
    assert!(!data.join("ledger.anchor").exists());
    let (c, v, t) = run(&["ledger", "replay", "--from-genesis"]);
    assert_eq!(c, 0, "{t}");
    assert_eq!(v["events"], 42);
    let anchor = smart_ledger::anchor::read(&data.join("ledger.db")).unwrap().unwrap();
    assert_eq!(anchor.seq, 42, "{anchor:?}");
    // …and from then on, going back behind it is refused like any ledger's.
    let old_copy = std::fs::read(data.join("ledger.db")).unwrap();
    assert_eq!(v["state_hash"], "56a27023a0cb03cc3895f31b6e29bf7437d9253efff5460d7a00b5d3554f89c3", "{t}");
    let (c, _, t) = run(&["ledger", "verify"]);
    assert_eq!(c, 0, "{t}");
    // Its history reads as sessions that together hold every event, oldest starting at genesis.
    let (c, v, t) = run(&["sessions", "--limit", "1000"]);
    assert_eq!(c, 0, "{t}");
    let list = v["sessions"].as_array().unwrap();
    assert_eq!(list.iter().map(|x| x["events"].as_u64().unwrap()).sum::<u64>(), 42, "{t}");
    assert_eq!(list.last().unwrap()["first_seq"], 1, "{t}");
    // Today's slow loop carries on from the old events: a returning user gets the check-in,
    // a decision is recorded at a gate, and the whole ledger still replays.
    let (c, v, t) = run(&["bootstrap", "start"]);
    assert_eq!((c, v["stage"].as_str()), (0, Some("check_in")), "{t}");
    let (c, _, t) = run(&["gate", "evaluation", "--release"]);
    assert_eq!(c, 0, "{t}");
    let (c, _, t) = run(&["gate", "framing", "--decision", "one folder at a time", "--north-star", "calm=a calm desk"]);
    assert_eq!(c, 0, "{t}");
    let (c, v, t) = run(&["ledger", "replay", "--from-genesis"]);
    assert_eq!(c, 0, "{t}");
    assert!(v["events"].as_u64().unwrap() > 42);
    let (c, _, t) = run(&["ledger", "verify"]);
    assert_eq!(c, 0, "{t}");
    for f in ["ledger.db-wal", "ledger.db-shm"] {
        let _ = std::fs::remove_file(data.join(f));
    }
    std::fs::write(data.join("ledger.db"), old_copy).unwrap();
    let (c, _, t) = run(&["status"]);
    assert_eq!(c, 6, "{t}");
}

/// Recorded by the binary of the day the state was last hashed without its objects' encodings
/// kept apart (scheme 2 throughout): every event replays to the state hash that binary recorded,
/// it verifies, and today's code carries on from it without moving to another scheme.
#[test]
fn a_ledger_hashed_by_change_replays_to_the_hashes_it_recorded() {
    let (_tmp, data) = fixture("ledger-hashed-by-change");
    let run = |args: &[&str]| run_at(&data, 1800005000000, args);
    let (c, v, t) = run(&["ledger", "replay", "--from-genesis"]);
    assert_eq!(c, 0, "{t}");
    assert_eq!(v["events"], 59, "{t}");
    assert_eq!(v["state_hash"], "477d2a0d60812e870cb3b27bbca9f1cc46f36d3e6553d756dfc8d3af5832f6e7", "{t}");
    let (c, v, t) = run(&["ledger", "verify"]);
    assert_eq!((c, v["ok"].as_bool()), (0, Some(true)), "{t}");
    let (c, _, t) = run(&["lease", "draft", "--frame", "the photos", "--horizon", "short", "--expires-in", "1h"]);
    assert_eq!(c, 0, "{t}");
    let (c, v, t) = run(&["ledger", "replay", "--from-genesis"]);
    assert_eq!((c, v["ok"].as_bool()), (0, Some(true)), "{t}");
    assert!(v["events"].as_u64() > Some(59), "{t}");
    let (c, v, t) = run(&["ledger", "show", "--kind", "hash_scheme_adopted"]);
    assert_eq!((c, v["events"].as_array().map(Vec::len)), (0, Some(0)), "{t}");
    // Its rows keep the chain scheme they were hashed under (the canonical JSON); the rows
    // written since are hashed from their raw fields, and the whole chain verifies.
    let (c, v, t) = run(&["ledger", "verify"]);
    assert_eq!((c, v["ok"].as_bool()), (0, Some(true)), "{t}");
    let db = rusqlite::Connection::open(data.join("ledger.db")).unwrap();
    let schemes: Vec<(i64, i64, i64)> = db
        .prepare("SELECT chain, min(seq), max(seq) FROM events GROUP BY chain ORDER BY chain")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(schemes.len(), 2, "{schemes:?}");
    assert_eq!((schemes[0].0, schemes[0].1, schemes[0].2), (1, 1, 59), "{schemes:?}");
    assert_eq!((schemes[1].0, schemes[1].1), (2, 60), "{schemes:?}");
}

/// Recorded by the binary of the day before the state was hashed by change (and before the
/// anchor was kept in slots): every event replays to the state hash it recorded, it verifies, and
/// today's code carries on from it.
#[test]
fn a_ledger_recorded_before_hashing_by_change_replays_to_its_hashes() {
    let (_tmp, data) = fixture("ledger-before-hash-by-change");
    let run = |args: &[&str]| run_at(&data, 1800005000000, args);
    let (c, v, t) = run(&["ledger", "replay", "--from-genesis"]);
    assert_eq!(c, 0, "{t}");
    assert_eq!(v["events"], 60);
    assert_eq!(v["state_hash"], "5966fd6d354b32c59323fe9d836c4728d549564a60677589b4fa32b1f8fc0a13", "{t}");
    let (c, v, t) = run(&["ledger", "verify"]);
    assert_eq!((c, v["ok"].as_bool()), (0, Some(true)), "{t}");
    // The old anchor is read, and moved on by the next command.
    let (c, _, t) = run(&["lease", "draft", "--frame", "the downloads", "--horizon", "short", "--expires-in", "1h"]);
    assert_eq!(c, 0, "{t}");
    let anchor = smart_ledger::anchor::read(&data.join("ledger.db")).unwrap().unwrap();
    assert!(anchor.seq > 60, "{anchor:?}");
    let (c, v, t) = run(&["ledger", "replay", "--from-genesis"]);
    assert_eq!(c, 0, "{t}");
    assert_eq!(v["events"].as_u64(), Some(anchor.seq), "{t}");
    let (c, _, t) = run(&["ledger", "verify"]);
    assert_eq!(c, 0, "{t}");
    // The first write moved the ledger to hashing by change, as event 61 of the same
    // transaction: recorded against the old scheme's hash, and everything after it under the new.
    let (c, v, t) = run(&["ledger", "show", "--since", "60", "--limit", "5"]);
    assert_eq!(c, 0, "{t}");
    let events = v["events"].as_array().unwrap();
    assert_eq!(events[0]["state_after"], "5966fd6d354b32c59323fe9d836c4728d549564a60677589b4fa32b1f8fc0a13", "{t}");
    assert_eq!((events[1]["seq"].as_u64(), events[1]["kind"].as_str()), (Some(61), Some("hash_scheme_adopted")), "{t}");
    assert_eq!(events[1]["payload"]["scheme"], smart_kernel::state_hash::CURRENT, "{t}");
    assert_eq!(events[1]["state_before"], events[0]["state_after"], "{t}");
    assert_eq!(events[1]["corr"], events[2]["corr"], "one transaction with the decision it came with: {t}");
    // Opening again (from the snapshot the last command left) migrates nothing twice.
    let (c, _, t) = run(&["lease", "draft", "--frame", "the desk", "--horizon", "short", "--expires-in", "1h"]);
    assert_eq!(c, 0, "{t}");
    let (c, v, t) = run(&["ledger", "show", "--kind", "hash_scheme_adopted"]);
    assert_eq!((c, v["events"].as_array().map(Vec::len)), (0, Some(1)), "{t}");
    let (c, whole, t) = run(&["ledger", "replay", "--from-genesis"]);
    assert_eq!((c, whole["from_seq"].as_u64()), (0, Some(0)), "{t}");
    // By default replay starts from the snapshot the last command left, and ends in the same state.
    let (c, tail, t) = run(&["ledger", "replay"]);
    assert_eq!(c, 0, "{t}");
    assert!(tail["from_seq"].as_u64().is_some_and(|s| s > 60), "{t}");
    assert_eq!((&tail["events"], &tail["state_hash"]), (&whole["events"], &whole["state_hash"]), "{t}");
}

/// A stand-in proposer worker that ranks every candidate the same, so no tool stands out and
/// understanding makes no call: the model's ranking is not what this test is about, what the
/// assistant does when it has nothing to propose is.
fn asking_worker(dir: &std::path::Path) -> std::path::PathBuf {
    let script = r#"#!/usr/bin/env python3
import json, sys
for line in sys.stdin:
    req = json.loads(line)
    op, rid = req.get("op"), req.get("id")
    if op == "load":
        ok = {"kind": "loaded", "path": "m.gguf", "architecture": "qwen2", "name": "fake", "format": "chat_ml",
              "n_params": 1, "n_ctx": 4096, "threads": 1, "load_ms": 1}
    elif op == "rank":
        n = len(req["candidates"])
        ok = {"kind": "ranked", "scores": [-3.0] * n, "first": [-3.0] * n, "tokens": [1] * n,
              "timings": {"prompt_tokens": 1, "cached_tokens": 0, "prompt_ms": 1.0, "generated_tokens": 1,
                          "generation_ms": 1.0, "grammar_fallbacks": 0}}
    else:
        sys.exit(0)
    print(json.dumps({"v": 1, "id": rid, "ok": ok}), flush=True)
"#;
    let path = dir.join("asking-worker.sh");
    std::fs::write(&path, script).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    path
}

#[test]
fn the_assistant_says_what_it_knows_before_it_asks() {
    let s = Smart::init(None);
    let (c, v) = s.json(&["models", "verify", "qwen2.5-coder-0.5b"]);
    assert_eq!(c, 0, "the default proposer model is needed to build the worker spec: {v}");
    let (c, _) =
        s.json(&["lease", "draft", "--frame", "tidy the docs folder", "--horizon", "short", "--expires-in", "1h"]);
    assert_eq!(c, 0);
    let (c, v) = s.json(&["gate", "commitment", "--stage", "sorting", "--next", "scan the docs folder"]);
    assert_eq!(c, 0, "{v}");
    let (c, v) =
        s.json(&["artifact", "register", "--name", "docs plan", "--type", "plan", "--pointer", "plans/docs.md"]);
    assert_eq!(c, 0, "{v}");
    let worker = asking_worker(s.root.parent().unwrap());
    let out = output(s.cmd().env("SMART_PROPOSER_WORKER", &worker).args([
        "--json",
        "say",
        "--no-templates",
        "sort that out",
    ]));
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(text.trim())
        .unwrap_or_else(|e| panic!("{e}: {text} {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(v["outcome"], "no_call", "{v}");
    let reply = v["reply"].as_str().unwrap();
    assert!(reply.starts_with("As I understand it, we're working on tidy the docs folder"), "{reply}");
    assert!(reply.contains("the latest artifact is docs plan") && reply.contains("we're at sorting"), "{reply}");
    assert!(reply.ends_with("Shall I go on with scan the docs folder?"), "{reply}");
    assert_eq!(reply.matches('?').count(), 1, "one confirmation question: {reply}");
    let order: Vec<&str> =
        v["understanding"]["consulted"].as_array().unwrap().iter().map(|c| c["source"].as_str().unwrap()).collect();
    assert_eq!(order, ["lease", "decisions", "artifacts", "progress", "signals"]);
}

#[test]
fn perception_reads_the_recent_turns_with_the_real_model_and_only_proposes() {
    let s = Smart::init(None);
    let (c, v) = s.json(&["models", "verify", "qwen2.5-coder-0.5b"]);
    assert_eq!(c, 0, "the default proposer model is needed: {v}");
    let perceive = || {
        let out = output(s.cmd().env("SMART_PROPOSER_WORKER", worker_bin()).args(["--json", "perceive"]));
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        (out.status.code().unwrap_or(-1), text, String::from_utf8_lossy(&out.stderr).to_string())
    };
    let (c, _, err) = perceive();
    assert_eq!(c, 1, "nothing said yet");
    assert!(err.contains("no conversation to perceive"), "{err}");
    s.write("docs/a.txt", "a");
    let docs = format!("compress {}/docs", s.root.display());
    for _ in 0..2 {
        s.json(&["say", &docs]);
    }
    let before = s.events();
    let (c, text, err) = perceive();
    assert_eq!(c, 0, "{text} {err}");
    let v: Value = serde_json::from_str(text.trim()).unwrap();
    let p = &v["reports"]["perception"];
    for key in ["elevation_level", "trajectory", "sentiment", "ladder_estimate", "recommended_stance"] {
        assert!(!p[key].is_null(), "{key} missing: {v}");
    }
    assert!(!v["reports"]["contrast"]["gap_type"].is_null(), "{v}");
    eprintln!(
        "perception took {:.0} ms: findings {}",
        v["generation_ms"].as_f64().unwrap() + v["prompt_ms"].as_f64().unwrap(),
        v["findings"]
    );
    // Whatever it found went to the buffer as perception's proposals (or signals); it moved nothing
    // by itself: nothing is executing, so no verdict can have accepted a stance change.
    let (_, h) = s.json(&["proposals"]);
    for read in h["reads"].as_array().unwrap() {
        for x in read["verdicts"].as_array().unwrap() {
            if x["proposal"]["origin"] == "perception" {
                assert_eq!(x["proposal"]["source"], "perception");
                if x["verdict"] == "accepted" {
                    let e = &x["effect"];
                    let lowering = *e == "bootstrap_reentry" || e["gate"] == "evaluate" || e["gate"] == "framing";
                    assert!(lowering, "an accepted perception proposal may only pause or listen: {x}");
                }
            }
        }
    }
    assert!(s.events() >= before);
    assert_eq!(stance(&s), "sensemaking", "no lease: perception cannot have raised anything");
    replays(&s);
}

#[test]
fn a_returning_persons_request_as_check_in_answer_is_carried_out() {
    let s = Smart::init(None);
    s.write("docs/a.txt", "a");
    s.commit_lease();
    let (c, v) = s.json(&["bootstrap", "start"]);
    assert_eq!((c, v["stage"].as_str()), (0, Some("check_in")), "{v}");
    let (c, v) = s.json(&["say", &format!("show me what is in {}/docs", s.root.display())]);
    assert_eq!(c, 0, "{v}");
    assert_eq!(v["bootstrap"]["stage"], "done", "{v}");
    assert_eq!((v["proposal"]["tool"].as_str(), v["outcome"].as_str()), (Some("fs.scan"), Some("committed")), "{v}");
    replays(&s);
}

#[test]
fn sessions_are_cut_from_the_ledger_at_quiet_gaps() {
    let mut s = Smart::init(None);
    let docs = s.write("docs/a.txt", "a").parent().unwrap().display().to_string();
    // Morning: a lease, a scan and a refusal, minutes apart.
    s.commit_lease();
    s.advance(10 * 60_000);
    let (c, v) = s.call("fs.scan", &format!(r#"{{"path": {}}}"#, js(&docs)));
    assert_eq!(c, 0, "{v}");
    s.advance(10 * 60_000);
    let (c, v) = s.call("no.such.tool", "{}");
    assert_eq!(c, 3, "{v}");
    let morning_end = s.events();
    // Three hours later: the lease expired meanwhile, which the first operation's gateway pass
    // records (a gate transition to evaluation); a scan (L0 needs no lease) and a refusal.
    s.advance(3 * 3_600_000);
    let (c, v) = s.call("fs.scan", &format!(r#"{{"path": {}}}"#, js(&docs)));
    assert_eq!(c, 0, "{v}");
    let (c, v) = s.call("no.such.tool", "{}");
    assert_eq!(c, 3, "{v}");

    let (c, v) = s.json(&["sessions"]);
    assert_eq!(c, 0, "{v}");
    let list = v["sessions"].as_array().unwrap();
    assert_eq!(list.len(), 2, "{v}");
    let (later, morning) = (&list[0], &list[1]);
    assert_eq!(morning["first_seq"], 1, "the first session starts at genesis: {v}");
    assert_eq!(morning["last_seq"], morning_end, "{v}");
    assert_eq!(later["first_seq"], morning_end + 1, "{v}");
    assert_eq!(later["last_seq"], s.events(), "{v}");
    assert_eq!(morning["start_ms"], T0);
    assert_eq!(morning["end_ms"], T0 + 20 * 60_000);
    assert_eq!((morning["committed"].as_u64(), morning["refused"].as_u64()), (Some(1), Some(1)), "{v}");
    assert_eq!((later["committed"].as_u64(), later["refused"].as_u64()), (Some(1), Some(1)), "{v}");
    assert!(later["gates"].as_u64().unwrap() >= 1, "the lease expiry's transition: {v}");

    // A wider gap joins them; a quiet stretch exactly as long as the gap does not split one,
    // a minute longer does (the morning's steps are 10 minutes apart); a limit keeps the newest.
    let count = |gap: &str| s.json(&["sessions", "--gap", gap]).1["sessions"].as_array().unwrap().len();
    assert_eq!((count("4h"), count("10m"), count("9m")), (1, 2, 4));
    let (_, v) = s.json(&["sessions", "--limit", "1"]);
    assert_eq!(v["sessions"][0]["first_seq"], morning_end + 1, "{v}");

    // In words: calendar minutes in UTC (T0 is 2027-01-15 08:00 UTC) and what was done.
    let out = s.run(&["sessions"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[1].starts_with("2027-01-15 08:00 UTC → 2027-01-15 08:20 UTC (20m 00s), events 1–"), "{text}");
    assert!(lines[1].ends_with("1 committed, 1 refused, 2 gate transitions"), "{text}");
    assert!(lines[0].ends_with("1 committed, 1 refused, 1 gate transition"), "{text}");
    assert!(lines[0].starts_with("2027-01-15 11:20 UTC → 2027-01-15 11:20 UTC"), "{text}");

    // Bad input says what is wrong and writes nothing.
    let before = s.events();
    for (gap, says) in [("0", "longer than 0"), ("soon", "--gap")] {
        let out = s.run(&["sessions", "--gap", gap]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(says), "--gap {gap}: {err}");
    }
    assert_eq!(s.events(), before);
    replays(&s);
}
