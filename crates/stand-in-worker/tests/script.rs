//! The stand-in does what its script says, and only that: the fault-boundary tests of the
//! runtime and the CLI rely on it answering exactly this.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Runs the stand-in with `lines` on its input; its exit code and output lines.
fn talk(lines: &[Value]) -> (Option<i32>, Vec<String>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_smart-stand-in-worker"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    for line in lines {
        // A script may end the stand-in before it has read every line (that is what some of
        // these tests check); whether the next write then finds the pipe closed is a race
        // (Windows lost it in CI), so a closed pipe ends the writing, not the test.
        match writeln!(input, "{line}") {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => break,
            Err(e) => panic!("writing to the stand-in: {e}"),
        }
    }
    drop(input);
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap().lines().map(str::to_owned).collect();
    (out.status.code(), stdout, String::from_utf8_lossy(&out.stderr).into_owned())
}

fn load(id: u64, script: &Path) -> Value {
    json!({"v": 1, "id": id, "op": "load", "path": script.display().to_string()})
}

fn json_line(line: &str) -> Value {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
}

#[test]
fn it_loads_its_script_then_ranks_leaning_to_the_first_candidate() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("lean.json");
    std::fs::write(&script, json!({"each": {"rank": [{"ranked_leaning": [-0.01, -1.5]}]}}).to_string()).unwrap();
    let rank = json!({"v": 1, "id": 8, "op": "rank", "candidates": [{"name": "a"}, {"name": "b"}, {"name": "c"}]});
    let (code, lines, _) = talk(&[load(7, &script), rank]);
    assert_eq!(code, Some(0));
    assert_eq!(lines.len(), 2, "{lines:?}");
    let loaded = json_line(&lines[0]);
    assert_eq!((loaded["id"].clone(), loaded["ok"]["kind"].clone()), (json!(7), json!("loaded")));
    let ranked = json_line(&lines[1]);
    assert_eq!(ranked["id"], 8);
    assert_eq!(ranked["ok"]["scores"], json!([-0.01, -1.5, -1.5]));
    assert_eq!(ranked["ok"]["first"], ranked["ok"]["scores"]);
}

#[test]
fn the_first_steps_run_once_for_the_script_even_across_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("once.json");
    let body = json!({"kind": "proposal", "n": 1});
    std::fs::write(
        &script,
        json!({"first": {"propose": [{"stderr": "first time"}, {"exit": 3}]}, "each": {"propose": [{"ok": body}]}})
            .to_string(),
    )
    .unwrap();
    let propose = json!({"v": 1, "id": 2, "op": "propose"});
    let (code, lines, err) = talk(&[load(1, &script), propose.clone()]);
    assert_eq!(code, Some(3), "{lines:?}");
    assert!(err.contains("first time"), "{err}");
    // A new process with the same script: the first steps have been taken.
    let (code, lines, _) = talk(&[load(1, &script), propose.clone(), propose]);
    assert_eq!(code, Some(0));
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(json_line(&lines[2])["ok"], body);
}

#[test]
fn raw_lines_go_out_as_they_are_and_an_op_the_script_does_not_name_ends_it() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("garbage.json");
    std::fs::write(&script, json!({"each": {"rank": [{"stdout": "ggml_init: not a protocol line"}]}}).to_string())
        .unwrap();
    let (code, lines, _) = talk(&[
        load(1, &script),
        json!({"v": 1, "id": 2, "op": "rank"}),
        json!({"v": 1, "id": 3, "op": "propose"}),
        json!({"v": 1, "id": 4, "op": "rank"}),
    ]);
    assert_eq!(code, Some(0));
    assert_eq!(lines[1], "ggml_init: not a protocol line");
    assert_eq!(lines.len(), 2, "the op it does not name must end it: {lines:?}");
}

#[test]
fn a_script_it_cannot_read_is_answered_as_a_missing_model() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.json");
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{ not json").unwrap();
    for (path, says) in [(&missing, "nope.json"), (&bad, "is not JSON")] {
        let (_, lines, _) = talk(&[load(5, path)]);
        let answer = json_line(&lines[0]);
        assert_eq!(answer["err"]["code"], "model_missing", "{answer}");
        assert!(answer["err"]["message"].as_str().unwrap().contains(says), "{answer}");
    }
}

#[test]
fn a_step_it_does_not_know_stops_it_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("typo.json");
    std::fs::write(&script, json!({"each": {"rank": [{"okay": {}}]}}).to_string()).unwrap();
    let (code, lines, err) = talk(&[load(1, &script), json!({"v": 1, "id": 2, "op": "rank"})]);
    assert_eq!(code, Some(2));
    assert_eq!(lines.len(), 1);
    assert!(err.contains("does not know") && err.contains("okay"), "{err}");
}
