//! The whole life of a tidy-up through the real CLI, on real files, at the seed's real gate
//! times (the clock is pinned with SMART_NOW_MS, so nothing sleeps):
//! scan → duplicates → propose.move → apply.move → quarantine (pending) → approve → committed
//! → undo → `ledger verify` ok → `ledger replay` ok.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;

#[test]
fn scan_to_undo_through_the_cli_with_seed_gate_times() {
    let mut s = Smart::init(None);
    s.write("docs/report.txt", "quarterly numbers");
    s.write("docs/report copy.txt", "quarterly numbers");
    s.write("docs/old-draft.txt", "superseded");
    let before = snapshot(&s.root);
    s.commit_lease();

    let (c, v) = s.call("fs.scan", r#"{"path": "docs"}"#);
    assert_eq!((c, v["outcome"].as_str()), (0, Some("committed")), "{v}");
    assert_eq!(v["output"]["files"], 3);

    let (c, v) = s.call("cluster.duplicates", r#"{"path": "docs"}"#);
    assert_eq!(c, 0, "{v}");
    let group = &v["output"]["groups"][0]["paths"];
    assert_eq!(group.as_array().unwrap().len(), 2, "{v}");

    // L2 right after L1: the 2 s gate is still shut.
    let moves = r#"{"moves": [{"from": "docs/report copy.txt", "to": "dups/report copy.txt"}]}"#;
    let (c, v) = s.call("propose.move", moves);
    assert_eq!((c, v["code"].as_str()), (3, Some("time_gate")), "{v}");
    s.advance(2_000);
    let (c, v) = s.call("propose.move", moves);
    assert_eq!(c, 0, "{v}");
    let artifact = v["artifact"].as_str().unwrap().to_string();
    assert!(s.root.join("docs/report copy.txt").exists(), "a proposal touches nothing");

    let apply = format!(r#"{{"proposal": "{artifact}"}}"#);
    s.advance(4_999);
    let (c, v) = s.call("apply.move", &apply);
    assert_eq!((c, v["code"].as_str()), (3, Some("time_gate")), "{v}");
    s.advance(1);
    let (c, v) = s.call("apply.move", &apply);
    assert_eq!((c, v["tier"].as_u64(), v["notify"].as_bool()), (0, Some(2), Some(true)), "{v}");
    let apply_seq = v["seq"].as_u64().unwrap();
    assert!(s.root.join("dups/report copy.txt").exists());
    assert!(!s.root.join("docs/report copy.txt").exists());

    // L4: always the person's call. The dialog counts down the 15 s L3 gate.
    let (c, v) = s.call("fs.quarantine", r#"{"paths": ["docs/old-draft.txt"]}"#);
    assert_eq!(c, 4, "{v}");
    assert_eq!(v["outcome"], "pending");
    assert_eq!(v["admissible_in_ms"], 15_000);
    let id = v["pending_id"].as_str().unwrap().to_string();
    let (_, p) = s.json(&["pending"]);
    assert_eq!(p["pending"][0]["id"], id.as_str());
    assert_eq!(p["pending"][0]["tool"], "fs.quarantine");

    // Approving before the gate opens is refused and the call stays pending.
    let (c, v) = s.json(&["approve", &id]);
    assert_eq!((c, v["code"].as_str()), (3, Some("time_gate")), "{v}");
    assert!(s.root.join("docs/old-draft.txt").exists());
    s.advance(15_000);
    let (c, v) = s.json(&["approve", &id]);
    assert_eq!((c, v["outcome"].as_str()), (0, Some("committed")), "{v}");
    let q_seq = v["seq"].as_u64().unwrap();
    assert!(!s.root.join("docs/old-draft.txt").exists());
    let stored = v["output"]["items"][0]["stored"].as_str().unwrap();
    assert_eq!(std::fs::read_to_string(stored).unwrap(), "superseded");

    let (_, st) = s.json(&["status"]);
    for key in ["stance", "lease", "frontier", "gates", "budget", "pending"] {
        assert!(st.get(key).is_some(), "status lacks {key}: {st}");
    }
    assert_eq!(st["stance"], "execution");
    assert_eq!(st["frontier"], 4);

    // Undo both, newest first; the tree is back to what it was, byte for byte.
    let (c, v) = s.json(&["undo", &q_seq.to_string()]);
    assert_eq!(c, 0, "{v}");
    let (c, v) = s.json(&["undo", &apply_seq.to_string()]);
    assert_eq!(c, 0, "{v}");
    assert_eq!(snapshot(&s.root), before);
    // An undo happens once.
    let (c, v) = s.json(&["undo", &apply_seq.to_string()]);
    assert_eq!((c, v["code"].as_str()), (3, Some("not_reversible")), "{v}");

    let out = s.run(&["ledger", "verify"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.starts_with("ok: ") && text.contains(" events, head "), "{text}");
    let (c, v) = s.json(&["ledger", "verify"]);
    assert_eq!((c, &v["ok"], &v["first_bad_seq"]), (0, &serde_json::json!(true), &serde_json::Value::Null));
    let (c, v) = s.json(&["ledger", "replay", "--from-genesis"]);
    assert_eq!((c, &v["ok"]), (0, &serde_json::json!(true)), "{v}");
}

#[test]
fn deny_runs_nothing_and_stop_resets_the_stance() {
    let mut s = Smart::init(Some("[gates]\nafter_l1_ms = 0\nafter_l2_ms = 0\nafter_l3_ms = 0\n"));
    s.write("a.txt", "keep me");
    s.commit_lease();
    let (c, v) = s.call("fs.quarantine", r#"{"paths": ["a.txt"]}"#);
    assert_eq!((c, v["code"].as_str()), (3, Some("layer_not_reached")), "{v}");
    for (tool, args) in [("fs.scan", r#"{"path": "."}"#), ("cluster.duplicates", r#"{"path": "."}"#)] {
        assert_eq!(s.call(tool, args).0, 0);
    }
    let (c, v) = s.call("propose.move", r#"{"moves": [{"from": "a.txt", "to": "b.txt"}]}"#);
    assert_eq!(c, 0, "{v}");
    let apply = format!(r#"{{"proposal": "{}"}}"#, v["artifact"].as_str().unwrap());
    assert_eq!(s.call("apply.move", &apply).0, 0);
    let (c, v) = s.call("fs.quarantine", r#"{"paths": ["b.txt"]}"#);
    assert_eq!(c, 4, "{v}");
    let id = v["pending_id"].as_str().unwrap().to_string();
    let (c, v) = s.json(&["deny", &id]);
    assert_eq!((c, v["outcome"].as_str()), (0, Some("denied")), "{v}");
    assert_eq!(std::fs::read_to_string(s.root.join("b.txt")).unwrap(), "keep me");

    // A second one, then the emergency stop cancels it.
    s.advance(1);
    let (c, v) = s.call("fs.quarantine", r#"{"paths": ["b.txt"]}"#);
    assert_eq!(c, 4, "{v}");
    let id = v["pending_id"].as_str().unwrap().to_string();
    let (c, _) = s.json(&["stop"]);
    assert_eq!(c, 0);
    let (_, st) = s.json(&["status"]);
    assert_eq!(st["stance"], "sensemaking");
    assert_eq!(st["lease"], serde_json::Value::Null);
    assert_eq!(st["pending"].as_array().unwrap().len(), 0);
    let (c, v) = s.json(&["approve", &id]);
    assert_eq!((c, v["code"].as_str()), (3, Some("pending_unknown")), "{v}");
    assert!(s.root.join("b.txt").exists());
    assert_eq!(s.json(&["ledger", "verify"]).0, 0);
}
