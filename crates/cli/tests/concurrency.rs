//! The app and `smart` commands share one data dir; scripts run several at once. The attack run
//! found receipts lost that way: eight concurrent `smart call fs.hash` lost one to three receipts
//! per round (a receipt was appended against the sequence read before the call ran), and a
//! `smart status` run while another process was executing an approved call recorded that call as
//! `failed: interrupted` (every open took any call without a receipt for a crashed one) — after
//! which its real receipt could not be appended and it could not be undone.
//!
//! Here: N processes × M calls at once, some of them the same call, and `status` run again and
//! again during a call that takes seconds. Every admitted call must end with exactly one receipt,
//! none of them "interrupted", and the ledger must verify.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use serde_json::Value;
use std::collections::BTreeMap;

const POLICY: &str = "[gates]\nafter_l1_ms = 0\nafter_l2_ms = 0\nafter_l3_ms = 0\nl4_cooldown_ms = 0\n[monotone]\nmax_identical = 100\nmax_steps = 10000\n";

/// Every admitted call hash with how many receipts (committed or failed) follow it, and every
/// failure's error.
fn receipts(s: &Smart) -> (BTreeMap<String, (u32, u32)>, Vec<String>) {
    let (c, v) = s.json(&["ledger", "show", "--limit", "100000"]);
    assert_eq!(c, 0, "{v}");
    let mut calls: BTreeMap<String, (u32, u32)> = BTreeMap::new();
    let mut failures = Vec::new();
    for e in v["events"].as_array().unwrap() {
        let p = &e["payload"];
        match e["kind"].as_str().unwrap() {
            "admitted" => calls.entry(p["call"]["hash"].as_str().unwrap().to_string()).or_default().0 += 1,
            "committed" | "failed" => {
                calls.entry(p["call_hash"].as_str().unwrap().to_string()).or_default().1 += 1;
                if let Some(err) = p["error"].as_str() {
                    failures.push(err.to_string());
                }
            }
            _ => {}
        }
    }
    (calls, failures)
}

fn spawn_calls(s: &Smart, calls: Vec<(String, String)>) -> std::thread::JoinHandle<Vec<(i32, Value)>> {
    let (bin, data, now, root) = (bin().to_string(), s.data.clone(), s.now, s.root.clone());
    std::thread::spawn(move || {
        calls
            .into_iter()
            .map(|(tool, args)| {
                let out = output(
                    std::process::Command::new(&bin)
                        .env("SMART_DATA_DIR", &data)
                        .env("SMART_KEY_STORE", "file")
                        .env("SMART_NOW_MS", now.to_string())
                        .current_dir(&root)
                        .args(["--json", "call", &tool, "--args", &args]),
                );
                let text = String::from_utf8_lossy(&out.stdout).to_string();
                let v = serde_json::from_str(text.trim())
                    .unwrap_or_else(|_| Value::String(format!("{text} / {}", String::from_utf8_lossy(&out.stderr))));
                (out.status.code().unwrap_or(-1), v)
            })
            .collect()
    })
}

#[test]
fn eight_processes_calling_at_once_lose_no_receipt() {
    let s = Smart::init(Some(POLICY));
    s.commit_lease();
    for p in 0..8 {
        for m in 0..4 {
            s.write(&format!("docs/p{p}/f{m}.txt"), &format!("{p}-{m}"));
        }
    }
    s.write("docs/shared.txt", "everyone hashes this one");
    for round in 0..2 {
        let workers: Vec<_> = (0..8)
            .map(|p| {
                let mut calls: Vec<(String, String)> =
                    (0..4).map(|m| ("fs.hash".to_string(), format!(r#"{{"path": "docs/p{p}/f{m}.txt"}}"#))).collect();
                // The same call from every process at once: one runs, the others wait their turn
                // or are told it is running.
                calls.insert(p % 3, ("fs.hash".to_string(), r#"{"path": "docs/shared.txt"}"#.to_string()));
                spawn_calls(&s, calls)
            })
            .collect();
        for w in workers {
            for (code, v) in w.join().unwrap() {
                let running_now = code == 3 && v["reason"].as_str().is_some_and(|r| r.contains("running now"));
                assert!(
                    code == 0 || running_now,
                    "round {round}: a call neither committed nor was told its twin is running: {code} {v}"
                );
            }
        }
    }
    let (calls, failures) = receipts(&s);
    assert!(calls.len() >= 8 * 4, "{} distinct calls admitted", calls.len());
    for (hash, (admitted, settled)) in &calls {
        assert_eq!(admitted, settled, "call {hash}: admitted {admitted} times, {settled} receipts");
    }
    assert_eq!(failures, Vec::<String>::new(), "no call may fail or be marked interrupted");
    assert_eq!(s.json(&["ledger", "verify"]).0, 0);
}

#[test]
fn status_during_a_long_call_does_not_mark_it_interrupted() {
    let s = Smart::init(Some(POLICY));
    s.commit_lease();
    // A sparse file big enough that hashing it takes seconds, and nothing on disk.
    let big = s.root.join("big.bin");
    std::fs::create_dir_all(big.parent().unwrap()).unwrap();
    std::fs::File::create(&big).unwrap().set_len(3 << 30).unwrap();
    let before = receipts(&s).0.len();
    let worker = spawn_calls(&s, vec![("fs.hash".into(), r#"{"path": "big.bin"}"#.into())]);
    // Wait until the call is admitted (its hold is taken before that), then look at the data dir
    // from other processes, again and again, while it runs.
    let started = std::time::Instant::now();
    while receipts(&s).0.len() == before {
        assert!(started.elapsed().as_secs() < 60, "the call was never admitted");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let mut looked = 0;
    while !worker.is_finished() {
        let (c, v) = s.json(&["status"]);
        assert_eq!(c, 0, "{v}");
        looked += 1;
    }
    let results = worker.join().unwrap();
    assert_eq!(results[0].0, 0, "the long call: {:?}", results[0].1);
    assert_eq!(results[0].1["outcome"], "committed");
    assert!(looked >= 2, "status ran only {looked} times while the call ran: make the file bigger");
    let (calls, failures) = receipts(&s);
    assert!(calls.values().all(|(a, r)| a == r), "{calls:?}");
    assert_eq!(failures, Vec::<String>::new());
    assert_eq!(s.json(&["ledger", "verify"]).0, 0);
}

/// The attack run's case exactly: an approved `apply.move` of many files, `smart status` run
/// again and again while it moves them. The move must commit (not "interrupted") and then be
/// undone, every file back where it was.
#[test]
fn an_approved_move_during_status_commits_and_can_be_undone() {
    let mut s = Smart::init(Some(POLICY));
    s.climb_to_l3();
    const FILES: usize = 1500;
    let moves: Vec<String> = (0..FILES)
        .map(|i| {
            s.write(&format!("inbox/f{i:04}.txt"), &format!("file {i}"));
            // Relative (to the root, the commands' folder): one argument holds them all.
            format!(r#"{{"from": "inbox/f{i:04}.txt", "to": "sorted/f{i:04}.txt"}}"#)
        })
        .collect();
    assert_eq!(s.call("fs.scan", r#"{"path": "inbox"}"#).0, 0);
    s.advance(10);
    let (c, v) = s.call("propose.move", &format!(r#"{{"moves": [{}]}}"#, moves.join(",")));
    assert_eq!(c, 0, "{v}");
    s.advance(10);
    let (c, v) = s.call("apply.move", &format!(r#"{{"proposal": "{}"}}"#, v["artifact"].as_str().unwrap()));
    assert_eq!(c, 4, "{FILES} files wait for approval: {v}");
    let id = v["pending_id"].as_str().unwrap().to_string();
    // Its report lists every file: into a file, not a pipe nobody reads until it exits.
    let report = s.tmp.path().join("approve.json");
    let mut approve =
        s.cmd().args(["--json", "approve", &id]).stdout(std::fs::File::create(&report).unwrap()).spawn().unwrap();
    let mut looked = 0;
    while approve.try_wait().unwrap().is_none() {
        let (c, v) = s.json(&["status"]);
        assert_eq!(c, 0, "{v}");
        looked += 1;
    }
    let v: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(v["outcome"], "committed", "the move, with {looked} status runs beside it: {v}");
    assert!(looked >= 1, "status never ran beside the move");
    let (_, failures) = receipts(&s);
    assert_eq!(failures, Vec::<String>::new(), "nothing marked interrupted");
    assert_eq!(std::fs::read_dir(s.root.join("sorted")).unwrap().count(), FILES);
    s.advance(10);
    let (c, v) = s.json(&["undo", &v["seq"].as_u64().unwrap().to_string()]);
    assert_eq!(c, 0, "the move can be undone: {v}");
    assert_eq!(std::fs::read_dir(s.root.join("inbox")).unwrap().count(), FILES, "every file is back");
    assert_eq!(s.json(&["ledger", "verify"]).0, 0);
    eprintln!("{FILES} files moved with {looked} status runs beside the move, then undone");
}
