//! Bad input gets a clear, specific error and changes nothing: no file touched, no budget or
//! frontier moved, the ledger still verifying. (A refusal is itself recorded — that is the
//! audit trail — but it changes no authority.)
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use serde_json::Value;

fn authority(s: &Smart) -> (Value, Value, Value) {
    let (_, st) = s.json(&["status"]);
    (st["frontier"].clone(), st["budget"].clone(), st["steps"].clone())
}

fn assert_refused_changing_nothing(s: &Smart, tool: &str, args: &str, code: &str) -> String {
    let files = snapshot(&s.root);
    let auth = authority(s);
    let (c, v) = s.call(tool, args);
    assert_eq!((c, v["code"].as_str()), (3, Some(code)), "{tool} {args}: {v}");
    assert_eq!(snapshot(&s.root), files);
    assert_eq!(authority(s), auth);
    assert_eq!(s.json(&["ledger", "verify"]).0, 0);
    v["reason"].as_str().unwrap().to_string()
}

#[test]
fn malformed_json_is_rejected_before_the_kernel_and_records_nothing() {
    let s = Smart::init(None);
    let n = s.events();
    let out = s.run(&["call", "fs.scan", "--args", "{path: nope"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not valid JSON"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(s.events(), n);
}

/// `--args -` reads the JSON from standard input (for argument lists longer than a Windows
/// command line); malformed JSON there is refused the same way.
#[test]
fn malformed_json_on_standard_input_is_rejected_and_records_nothing() {
    let s = Smart::init(None);
    let n = s.events();
    let mut child = s
        .cmd()
        .args(["call", "fs.scan", "--args", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), b"{path: nope").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not valid JSON") && err.contains("nothing was proposed"), "{err}");
    assert_eq!(s.events(), n);
}

#[test]
fn unknown_tools_are_refused_by_name() {
    let s = Smart::init(None);
    let why = assert_refused_changing_nothing(&s, "fs.delete_everything", r#"{"path": "."}"#, "unknown_tool");
    assert!(why.contains("fs.delete_everything") && why.contains("fs.scan"), "{why}");
}

#[test]
fn schema_violations_name_the_field() {
    let s = Smart::init(None);
    let why = assert_refused_changing_nothing(&s, "fs.scan", r#"{"path": 42}"#, "schema_invalid");
    assert!(why.contains("path"), "{why}");
    assert_refused_changing_nothing(&s, "fs.scan", r#"{"path": ".", "recursive": true}"#, "schema_invalid");
    assert_refused_changing_nothing(&s, "apply.move", r#"{"proposal": "not-a-hash"}"#, "schema_invalid");
}

#[test]
fn dot_dot_out_of_the_root_is_refused() {
    let s = Smart::init(None);
    let why = assert_refused_changing_nothing(&s, "fs.hash", r#"{"path": "../data/device.key"}"#, "path_outside_roots");
    assert!(why.contains("outside the allowed roots"), "{why}");
}

#[test]
fn a_symlink_out_of_the_root_is_refused() {
    let s = Smart::init(None);
    let outside = s.tmp.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "s3cret").unwrap();
    symlink_dir(&outside, &s.root.join("innocent"));
    assert_refused_changing_nothing(&s, "fs.hash", r#"{"path": "innocent/secret.txt"}"#, "path_outside_roots");
    assert_refused_changing_nothing(&s, "fs.scan", r#"{"path": "innocent"}"#, "path_outside_roots");
}

#[test]
fn absurdly_long_paths_are_refused() {
    let s = Smart::init(None);
    let long = format!("{{\"path\": \"{}\"}}", "x/".repeat(3000));
    assert_refused_changing_nothing(&s, "fs.scan", &long, "path_invalid");
}

#[test]
fn a_missing_data_dir_is_an_error_and_is_not_created() {
    let s = Smart::new();
    let missing = s.tmp.path().join("nope").join("deeper");
    for args in [
        vec!["status"],
        vec!["call", "fs.scan", "--args", r#"{"path": "."}"#],
        vec!["ledger", "verify"],
        vec!["approve", "x"],
    ] {
        let out = output(s.cmd().env("SMART_DATA_DIR", &missing).args(&args));
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("smart init"),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(!missing.exists());
}

#[test]
fn a_corrupt_database_is_reported_and_left_untouched() {
    let s = Smart::init(None);
    let garbage = b"this is not an SQLite database, it is a shopping list\n".repeat(100);
    std::fs::write(s.ledger(), &garbage).unwrap();
    for args in [vec!["status"], vec!["ledger", "verify"], vec!["call", "fs.scan", "--args", r#"{"path": "."}"#]] {
        let out = s.run(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("not a usable SQLite ledger") || err.contains("not a database"), "{args:?}: {err}");
    }
    assert_eq!(std::fs::read(s.ledger()).unwrap(), garbage);
}

#[test]
fn init_refuses_bad_roots_and_leaves_nothing_behind() {
    let s = Smart::new();
    let missing = s.tmp.path().join("no-such-folder");
    let out = s.run(&["init", "--root", missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!s.data.exists(), "a failed init leaves no data dir");
    // The data dir inside a root would let the tools move the ledger.
    let out = output(s.cmd().env("SMART_DATA_DIR", s.root.join("smart-data")).args([
        "init",
        "--root",
        s.root.to_str().unwrap(),
    ]));
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("inside root"));
    assert!(!s.root.join("smart-data").exists());
    // And a root inside the data dir would let them change the ledger and the key.
    let inbox = s.data.join("inbox");
    std::fs::create_dir_all(&inbox).unwrap();
    let out = s.run(&["init", "--root", inbox.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("inside the data dir"), "{out:?}");
    assert!(!s.ledger().exists(), "nothing was set up");
    std::fs::remove_dir_all(&s.data).unwrap();
    // A bad policy file.
    let p = s.tmp.path().join("p.toml");
    std::fs::write(&p, "[gates]\nafter_l1 = 5\n").unwrap();
    let out = s.run(&["init", "--root", s.root.to_str().unwrap(), "--policy", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("after_l1"));
    assert!(!s.data.exists());
}

#[test]
fn init_twice_is_refused() {
    let s = Smart::init(None);
    let out = s.run(&["init", "--root", s.root.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already initialised"));
}

#[test]
fn undo_of_something_that_is_not_a_reversible_commit_is_refused() {
    let s = Smart::init(None);
    assert_eq!(s.call("fs.scan", r#"{"path": "."}"#).0, 0);
    for seq in ["1", "4", "999"] {
        let (c, v) = s.json(&["undo", seq]);
        assert_eq!((c, v["code"].as_str()), (3, Some("not_reversible")), "{seq}: {v}");
    }
}

#[test]
fn refusal_codes_are_listed_exactly_as_the_kernel_defines_them() {
    let s = Smart::new();
    let (c, v) = s.json(&["refusals"]);
    assert_eq!(c, 0);
    let listed: Vec<(String, String)> = v["refusals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (x["code"].as_str().unwrap().to_string(), x["meaning"].as_str().unwrap().to_string()))
        .collect();
    let defined: Vec<(String, String)> =
        smart_kernel::RefusalCode::ALL.iter().map(|c| (c.as_str().to_string(), c.meaning().to_string())).collect();
    assert_eq!(listed, defined);
}

#[test]
fn signals_from_outside_are_verified_like_any_other() {
    let s = Smart::init(None);
    // Garbage is not submitted at all.
    let out = s
        .cmd()
        .args(["signal", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(b"{\"decision\": \"approve\"}")?;
            c.wait_with_output()
        });
    let out = out.unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a user signal"));
    // A well-formed but unsigned stop is refused and recorded.
    let stop = serde_json::json!({
        "pending_id": "", "call_hash": null, "nonce": "00112233445566778899aabbccddeeff",
        "issued_at": T0, "expires_at": T0 + 60_000, "decision": "emergency",
        "public_key": "00".repeat(32), "signature": null
    });
    let f = s.tmp.path().join("stop.json");
    std::fs::write(&f, stop.to_string()).unwrap();
    let (c, v) = s.json(&["signal", f.to_str().unwrap()]);
    assert_eq!((c, v["code"].as_str()), (3, Some("signature_invalid")), "{v}");
    assert_eq!(s.json(&["ledger", "verify"]).0, 0);
}

#[test]
fn json_mode_reports_errors_as_json() {
    let s = Smart::new();
    let (c, v) = s.json(&["status"]);
    assert_eq!(c, 1);
    assert_eq!(v["ok"], false);
    assert!(v["error"].as_str().unwrap().contains("smart init"));
}

#[test]
fn output_into_a_closed_pipe_does_not_panic() {
    // `smart ledger show | head -1` used to panic on the broken pipe.
    let s = Smart::init(None);
    for args in [vec!["ledger", "show"], vec!["status"], vec!["--json", "status"]] {
        // The reader is gone before the child starts: its first write meets a broken pipe.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = output(s.cmd().args(&args).stdout(writer).stderr(std::process::Stdio::piped()));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(out.status.code(), Some(141), "{args:?}: {err}");
    }
}

#[test]
fn a_plan_whose_destination_became_a_symlink_out_of_the_root_is_refused() {
    // Between propose.move and apply.move (5 s of gate at least) the destination folder is
    // replaced by a link to somewhere outside the roots. Applying must not follow it.
    let s = Smart::init(Some("[gates]\nafter_l1_ms = 0\nafter_l2_ms = 0\n"));
    s.write("docs/a.txt", "mine");
    std::fs::create_dir_all(s.root.join("dups")).unwrap();
    s.commit_lease();
    assert_eq!(s.call("fs.scan", r#"{"path": "docs"}"#).0, 0);
    assert_eq!(s.call("cluster.duplicates", r#"{"path": "docs"}"#).0, 0);
    let (c, v) = s.call("propose.move", r#"{"moves": [{"from": "docs/a.txt", "to": "dups/a.txt"}]}"#);
    assert_eq!(c, 0, "{v}");
    let outside = s.tmp.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::remove_dir(s.root.join("dups")).unwrap();
    symlink_dir(&outside, &s.root.join("dups"));
    let apply = format!(r#"{{"proposal": "{}"}}"#, v["artifact"].as_str().unwrap());
    assert_refused_changing_nothing(&s, "apply.move", &apply, "path_outside_roots");
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0, "nothing landed outside the root");
    assert_eq!(std::fs::read_to_string(s.root.join("docs/a.txt")).unwrap(), "mine");
}
