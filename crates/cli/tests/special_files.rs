//! A named pipe where a file was. The attack run put a FIFO in place of an indexed file and
//! `rag.validate_applicability`, `rag.assemble_context` and `propose.patch` never returned:
//! opening a FIFO for reading waits for a writer. Every tool must come back, with a reason that
//! names what it found, and the ledger must record the outcome.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use std::time::{Duration, Instant};

/// Runs `smart --json call tool --args args`, killing it if it has not returned in 30 s.
fn call_or_hang(s: &Smart, tool: &str, args: &str) -> (i32, String) {
    let mut child = s
        .cmd()
        .args(["--json", "call", tool, "--args", args])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            let out = child.wait_with_output().unwrap();
            let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
            return (out.status.code().unwrap_or(-1), text);
        }
        if started.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("{tool} {args} did not return in 30 s: it is waiting on the named pipe");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_named_pipe_where_an_indexed_file_was_never_hangs_a_tool() {
    let mut s = Smart::init(Some("[gates]\nafter_l1_ms = 0\nafter_l2_ms = 0\nafter_l3_ms = 0\nl4_cooldown_ms = 0\n"));
    s.write("notes/plan.md", "# Plan\nShip on Friday.\n");
    s.write("notes/other.md", "Something else.\n");
    assert_eq!(s.json(&["index", "update"]).0, 0);
    s.commit_lease();
    let plan = s.root.join("notes/plan.md");
    std::fs::remove_file(&plan).unwrap();
    let made = std::process::Command::new("mkfifo").arg(&plan).status().unwrap();
    assert!(made.success(), "mkfifo failed");
    let id = plan.display().to_string();

    let (c, out) = call_or_hang(&s, "rag.validate_applicability", &format!(r#"{{"ids": ["{id}"]}}"#));
    assert_eq!(c, 0, "{out}");
    assert!(out.contains(r#""applicable":false"#) || out.contains(r#""applicable": false"#), "{out}");
    s.advance(10);
    let (c, out) = call_or_hang(&s, "rag.assemble_context", &format!(r#"{{"ids": ["{id}"], "budget_tokens": 100}}"#));
    assert_eq!(c, 0, "{out}");
    assert!(out.contains("changed since it was indexed"), "the pipe's text was not passed on as the document's: {out}");
    for (tool, args) in [
        ("fs.read", format!(r#"{{"path": "{id}"}}"#)),
        ("fs.hash", format!(r#"{{"path": "{id}"}}"#)),
        ("propose.patch", format!(r#"{{"path": "{id}", "find": "Friday", "replace": "Monday"}}"#)),
    ] {
        s.advance(10);
        let (c, out) = call_or_hang(&s, tool, &args);
        assert!(c == 3 || c == 5, "{tool}: neither refused nor failed: {out}");
        assert!(out.contains("named pipe"), "{tool}: the reason does not say what is there: {out}");
    }
    // The index's own update passes the pipe by, too.
    s.advance(10);
    let (c, v) = s.json(&["index", "update"]);
    assert_eq!(c, 0, "{v}");
    assert_eq!(s.json(&["ledger", "verify"]).0, 0);
}
