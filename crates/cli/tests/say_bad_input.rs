//! `smart say` with bad models and bad workers: each is a clear error and nothing runs.
//!
//! The workers here are stand-ins (shell scripts speaking, or breaking, the line protocol):
//! these tests are about the boundary between the runtime and a worker it cannot trust.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Smart, choose_file, output, stand_in};
use serde_json::{Value, json};
use std::path::Path;

/// Runs `say --no-templates` and returns (exit code, stderr). Asserts nothing was proposed to
/// the kernel and no file changed.
fn say_fails(s: &Smart, worker: &Path, text: &str) -> (i32, String) {
    let before_files = common::snapshot(&s.root);
    let (_, before) = s.json(&["ledger", "show", "--kind", "proposed"]);
    let out = output(s.cmd().env("SMART_PROPOSER_WORKER", worker).args(["say", "--no-templates", text]));
    let (_, after) = s.json(&["ledger", "show", "--kind", "proposed"]);
    assert_eq!(before, after, "a proposal reached the kernel");
    assert_eq!(common::snapshot(&s.root), before_files, "files changed");
    let (c, _) = s.json(&["ledger", "verify"]);
    assert_eq!(c, 0);
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A GGUF header naming `arch`, with no tensors.
fn gguf_header(arch: &str) -> Vec<u8> {
    let mut f = b"GGUF".to_vec();
    f.extend(3u32.to_le_bytes());
    f.extend(0u64.to_le_bytes());
    f.extend(1u64.to_le_bytes());
    let key = "general.architecture";
    f.extend((key.len() as u64).to_le_bytes());
    f.extend(key.as_bytes());
    f.extend(8u32.to_le_bytes());
    f.extend((arch.len() as u64).to_le_bytes());
    f.extend(arch.as_bytes());
    f
}

#[test]
fn a_model_file_that_is_not_a_gguf_is_refused_by_name() {
    let s = Smart::init(None);
    let bad = s.tmp.path().join("model.gguf");
    std::fs::write(&bad, b"<html>404 Not Found</html>").unwrap();
    choose_file(&s, &bad);
    let (code, err) = say_fails(&s, &common::worker_bin(), "list the files");
    assert_eq!(code, 1);
    assert!(err.contains("not a usable model") && err.contains("not a GGUF file"), "{err}");
    // `models use` refuses it up front too.
    let out = s.run(&["models", "use", bad.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a GGUF file"));
}

#[test]
fn a_truncated_gguf_is_refused() {
    let s = Smart::init(None);
    let bad = s.tmp.path().join("cut.gguf");
    let mut bytes = gguf_header("qwen2");
    bytes.truncate(bytes.len() - 3);
    std::fs::write(&bad, bytes).unwrap();
    choose_file(&s, &bad);
    let (code, err) = say_fails(&s, &common::worker_bin(), "list the files");
    assert_eq!(code, 1);
    assert!(err.contains("truncated"), "{err}");
}

#[test]
fn a_gguf_of_an_architecture_that_cannot_write_is_refused() {
    let s = Smart::init(None);
    let bert = s.tmp.path().join("embedder.gguf");
    std::fs::write(&bert, gguf_header("bert")).unwrap();
    choose_file(&s, &bert);
    let (code, err) = say_fails(&s, &common::worker_bin(), "list the files");
    assert_eq!(code, 1);
    assert!(err.contains("bert model, which encodes text but cannot write a tool call"), "{err}");
}

#[test]
fn a_missing_model_file_is_a_clear_error() {
    let s = Smart::init(None);
    choose_file(&s, Path::new("/nonexistent/model.gguf"));
    let (code, err) = say_fails(&s, &common::worker_bin(), "list the files");
    assert_eq!(code, 1);
    assert!(err.contains("/nonexistent/model.gguf") && err.contains("does not exist"), "{err}");
    let out = s.run(&["models", "use", "/nonexistent/model.gguf"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("neither a catalog model"));
}

#[test]
fn a_worker_that_prints_garbage_is_a_fault_and_nothing_runs() {
    let s = Smart::init(None);
    let w = stand_in(&s, json!({"each": {"rank": [{"stdout": "ggml_cuda_init: found 0 CUDA devices"}]}}));
    let (code, err) = say_fails(&s, &w, "list the files");
    assert_eq!(code, 1);
    assert!(err.contains("broke the protocol") && err.contains("nothing was submitted"), "{err}");
    // The fault is ledgered.
    let (_, v) = s.json(&["ledger", "show", "--kind", "fault"]);
    let faults = v["events"].as_array().unwrap();
    assert_eq!(faults.len(), 1, "{v}");
    assert_eq!(faults[0]["payload"]["component"], "proposer-worker");
}

/// A worker answering every ranking with these scores (the same for `first`).
fn ranked_reply(scores: Value) -> Value {
    let timings = json!({"prompt_tokens": 1, "cached_tokens": 0, "prompt_ms": 1, "generated_tokens": 1,
                         "generation_ms": 1, "grammar_fallbacks": 0});
    let body = json!({"kind": "ranked", "scores": scores, "first": scores, "tokens": [1], "timings": timings});
    json!({"each": {"rank": [{"ok": body}]}})
}

#[test]
fn a_ranking_that_does_not_score_every_candidate_is_a_fault_and_nothing_runs() {
    let s = Smart::init(None);
    // Well-formed, but one score for the twenty-odd candidates (every visible tool and "no call").
    let w = stand_in(&s, ranked_reply(json!([-0.01])));
    let (code, err) = say_fails(&s, &w, "delete everything");
    assert_eq!(code, 1);
    assert!(err.contains("broke the protocol") && err.contains("a ranking of"), "{err}");
}

#[test]
fn a_ranking_surer_than_certain_is_not_believed() {
    let s = Smart::init(None);
    // A log-probability above zero is a probability above one: no model says that, a forged or
    // broken worker might, to push one tool past every threshold.
    let w = stand_in(&s, ranked_reply(json!(vec![5.0; 64])));
    let (code, err) = say_fails(&s, &w, "scan the root");
    assert_eq!(code, 1);
    assert!(err.contains("broke the protocol"), "{err}");
}

#[test]
fn a_worker_that_answers_a_ranking_with_its_own_call_is_not_believed() {
    let s = Smart::init(None);
    // Asked to score the candidates, it proposes a call of its own, to a tool never shown.
    let call = json!({"kind": "proposal", "output": {"kind": "call", "tool": "fs.delete", "args": {"path": "/"}},
                      "raw": "", "timings": {"prompt_tokens": 1, "cached_tokens": 0, "prompt_ms": 1,
                      "generated_tokens": 1, "generation_ms": 1, "grammar_fallbacks": 0}});
    let w = stand_in(&s, json!({"each": {"rank": [{"ok": call}]}}));
    let (code, err) = say_fails(&s, &w, "delete everything");
    assert_eq!(code, 1);
    assert!(err.contains("broke the protocol"), "{err}");
}

#[test]
fn with_the_scope_revoked_nothing_is_shown_to_a_proposer() {
    let s = Smart::init(None);
    let (c, _) = s.json(&["scope", "revoke"]);
    assert_eq!(c, 0);
    let (code, err) = say_fails(&s, &common::worker_bin(), "scan inbox");
    assert_eq!(code, 1);
    assert!(err.contains("no tools are visible") && err.contains("smart scope issue"), "{err}");
}

#[test]
fn an_empty_utterance_is_refused() {
    let s = Smart::init(None);
    let (code, err) = say_fails(&s, &common::worker_bin(), "   ");
    assert_eq!(code, 1);
    assert!(err.contains("empty"), "{err}");
}
