//! The new surfaces through the real binary: the library index (`smart index`, `rag.search`),
//! the quarantine (`smart quarantine list|restore|purge`), records (`db.upsert`, `smart record`)
//! and "undo that" — each over a real data dir and real files.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use serde_json::Value;

fn json_lines(s: &Smart, args: &[&str]) -> Vec<Value> {
    let out = output(s.cmd().arg("--json").args(args));
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::Deserializer::from_str(&text).into_iter::<Value>().map(Result::unwrap).collect()
}

#[test]
fn the_index_is_built_searched_and_refuses_searches_outside_the_roots() {
    let s = Smart::init(None);
    s.write("notes/budget.md", "# Budget\nThe Q3 budget review moved to Friday.\n");
    s.write("notes/garden.md", "Tomatoes need water.\n");
    let (c, v) = s.json(&["index", "update"]);
    assert_eq!(c, 0, "{v}");
    assert_eq!(v["mode"], "full");
    assert!(v["added"].as_u64().unwrap() >= 2, "{v}");
    let (c, v) = s.json(&["index", "status"]);
    assert_eq!((c, &v["built"]), (0, &Value::Bool(true)), "{v}");

    let (c, v) = s.call("rag.search", r#"{"query": "budget review"}"#);
    assert_eq!(c, 0, "{v}");
    let results = v["output"]["results"].as_array().unwrap();
    assert_eq!(std::path::Path::new(results[0]["id"].as_str().unwrap()), s.root.join("notes/budget.md"), "{v}");
    assert!(results[0]["why"]["bm25"].is_number() && results[0]["why"]["recency"].is_number());
    assert!(results.iter().all(|r| !r["id"].as_str().unwrap().ends_with("garden.md")));

    // The same through the phrase templates.
    let (c, v) = s.json(&["say", "find the notes about the budget"]);
    assert_eq!(c, 0, "{v}");
    assert_eq!(v["proposal"]["tool"], "rag.search");

    // A path filter outside the roots is the kernel's to refuse.
    let (c, v) = s.call("rag.search", r#"{"query": "budget", "path_prefix": "/etc"}"#);
    assert_ne!(c, 0);
    assert_eq!(v["code"], "path_outside_roots", "{v}");

    // An edit is picked up by the next update, and validate_applicability sees it at once.
    s.write("notes/budget.md", "# Budget\nCancelled.\n");
    let id = s.root.join("notes/budget.md").display().to_string();
    let (c, v) = s.call("rag.validate_applicability", &format!(r#"{{"ids": [{}]}}"#, js(&id)));
    assert_eq!(c, 0, "{v}");
    assert_eq!(v["output"]["results"][0]["status"], "changed", "{v}");
    let (_, v) = s.json(&["index", "update"]);
    assert_eq!(v["updated"], 1, "{v}");
    let (_, v) = s.call("rag.validate_applicability", &format!(r#"{{"ids": [{}]}}"#, js(&id)));
    assert_eq!(v["output"]["all_applicable"], true, "{v}");
}

#[test]
fn quarantine_list_restore_and_purge_through_the_cli() {
    let mut s = Smart::init(None);
    s.write("junk/a.tmp", "a");
    s.write("junk/b.tmp", "bb");
    s.climb_to_l3();
    let junk = s.root.join("junk").display().to_string();
    let (c, v) = s.call("fs.quarantine", &format!(r#"{{"paths": [{}]}}"#, js(&junk)));
    assert_eq!((c, v["outcome"].as_str()), (4, Some("pending")), "{v}");
    s.advance(30_000);
    let (c, v) = s.json(&["approve", v["pending_id"].as_str().unwrap()]);
    assert_eq!(c, 0, "{v}");
    let batch = v["output"]["batch"].as_str().unwrap().to_string();
    assert!(!s.root.join("junk").exists());

    let (c, list) = s.json(&["quarantine", "list"]);
    assert_eq!(c, 0);
    let b = &list["batches"][0];
    assert_eq!(
        (b["batch"].as_str(), b["items"].as_u64(), b["bytes"].as_u64()),
        (Some(batch.as_str()), Some(1), Some(3))
    );
    assert_eq!(b["tool"], "fs.quarantine");
    assert_eq!(b["originals"][0], junk);

    let (c, v) = s.json(&["quarantine", "restore", &batch]);
    assert_eq!(c, 0, "{v}");
    assert_eq!(std::fs::read_to_string(s.root.join("junk/b.tmp")).unwrap(), "bb");
    let (_, list) = s.json(&["quarantine", "list"]);
    assert_eq!(list["batches"], serde_json::json!([]), "the emptied batch folder is gone");

    // Quarantine again, then purge: an irreversible L4 call that waits for approval.
    s.advance(30_000);
    let (_, v) = s.call("fs.quarantine", &format!(r#"{{"paths": [{}]}}"#, js(&junk)));
    s.advance(30_000);
    let (_, v) = s.json(&["approve", v["pending_id"].as_str().unwrap()]);
    let batch = v["output"]["batch"].as_str().unwrap().to_string();
    s.advance(30_000);
    let out = json_lines(&s, &["quarantine", "purge", &batch]);
    assert_eq!(out[0]["outcome"], "pending", "{out:?}");
    s.advance(30_000);
    let (c, v) = s.json(&["approve", out[0]["pending_id"].as_str().unwrap()]);
    assert_eq!(c, 0, "{v}");
    let (_, list) = s.json(&["quarantine", "list"]);
    assert_eq!(list["batches"], serde_json::json!([]));
    let (c, v) = s.json(&["quarantine", "restore", &batch]);
    assert_ne!(c, 0, "a purged batch cannot be restored: {v}");
}

#[test]
fn a_record_is_stored_read_back_and_undone_by_saying_undo_that() {
    let mut s = Smart::init(None);
    s.commit_lease();
    s.write("climb/x.txt", "x");
    let x = s.root.join("climb/x.txt").display().to_string();
    assert_eq!(s.call("fs.read", &format!(r#"{{"path": {}}}"#, js(&x))).0, 0);
    s.advance(2_000);
    assert_eq!(s.call("infer.superseded_docs", &format!(r#"{{"path": {}}}"#, js(s.root.display()))).0, 0);
    s.advance(5_000);
    let (c, v) = s.call("propose.patch", &format!(r#"{{"path": {}, "find": "x", "replace": "y"}}"#, js(&x)));
    assert_eq!(c, 0, "{v}");
    s.advance(15_000);
    let (c, v) = s.call("db.upsert", r#"{"collection": "notes", "key": "review", "value": {"day": "friday"}}"#);
    assert_eq!(c, 0, "{v}");
    let (c, v) = s.json(&["record", "notes", "review"]);
    assert_eq!((c, &v["value"]["day"]), (0, &Value::String("friday".into())), "{v}");
    let (c, v) = s.json(&["say", "undo that"]);
    assert_eq!(c, 0, "{v}");
    assert_eq!(v["proposal"]["tool"], "undo", "{v}");
    let out = s.run(&["record", "notes", "review"]);
    assert_eq!(out.status.code(), Some(1), "the record is gone again");
    let (c, v) = s.json(&["say", "undo that"]);
    assert_ne!(c, 0, "nothing left to undo: {v}");
    assert_eq!(v["code"], "not_reversible", "{v}");
}

#[test]
fn rebuild_index_waits_for_approval_and_replaces_the_index_with_a_complete_one() {
    let mut s = Smart::init(None);
    s.write("notes/a.md", "alpha words");
    s.climb_to_l3();
    let (c, v) = s.call("rebuild.index", "{}");
    assert_eq!((c, v["outcome"].as_str()), (4, Some("pending")), "an L4 call always waits: {v}");
    assert!(!s.data.join("index.db").exists(), "nothing was built before approval");
    s.advance(30_000);
    let (c, v) = s.json(&["approve", v["pending_id"].as_str().unwrap()]);
    assert_eq!(c, 0, "{v}");
    assert!(v["output"]["added"].as_u64().unwrap() >= 1, "{v}");
    let (c, v) = s.call("rag.search", r#"{"query": "alpha"}"#);
    assert_eq!(c, 0, "{v}");
    assert_eq!(
        std::path::Path::new(v["output"]["results"][0]["id"].as_str().unwrap()),
        s.root.join("notes/a.md"),
        "{v}"
    );
}

#[test]
fn orbit_get_context_reports_the_kernels_view() {
    let s = Smart::init(None);
    let (c, v) = s.call("orbit.get_context", "{}");
    assert_eq!(c, 0, "{v}");
    let ctx = &v["output"]["context"];
    assert_eq!(ctx["stance"], "sensemaking", "{v}");
    assert!(ctx["visible_tools"].as_array().unwrap().iter().any(|t| t == "rag.search"), "{v}");
    let roots = ctx["roots"].as_array().unwrap();
    assert!(roots.iter().any(|r| r.as_str().map(std::path::Path::new) == Some(s.root.as_path())), "{v}");
}
