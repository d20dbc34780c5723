//! The script a stand-in follows: which steps answer a request, and what each step does.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::send;

pub enum Flow {
    Next,
    Exit(u8),
}

pub fn read_script(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("the stand-in's script {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("the stand-in's script {} is not JSON: {e}", path.display()))
}

/// What the real worker says after loading a model.
pub fn loaded(path: &Path) -> Value {
    json!({"kind": "loaded", "path": path.display().to_string(), "architecture": "qwen2", "name": "stand-in",
           "format": "chat_ml", "n_params": 1, "n_ctx": 4096, "threads": 1, "load_ms": 1})
}

/// The steps for `op`: the script's `first` ones if no stand-in of this script has been asked
/// `op` before (and from now on it has), else its `each` ones; `None` when it names neither.
pub fn steps_for(path: &Path, script: &Value, op: &str) -> Option<Vec<Value>> {
    let list = |part: &str| script.get(part).and_then(|p| p.get(op)).and_then(Value::as_array).cloned();
    if let Some(first) = list("first") {
        let marker = PathBuf::from(format!("{}.{op}.asked", path.display()));
        if !marker.exists() && std::fs::write(&marker, b"").is_ok() {
            return Some(first);
        }
    }
    list("each")
}

pub fn run(step: &Value, id: &Value, request: &Value, out: &mut std::io::Stdout) -> Flow {
    let sent = if let Some(body) = step.get("ok") {
        send(out, &json!({"v": 1, "id": id, "ok": body}).to_string())
    } else if let Some([first, rest]) = step.get("ranked_leaning").and_then(Value::as_array).map(Vec::as_slice) {
        let n = request.get("candidates").and_then(Value::as_array).map_or(0, Vec::len);
        let scores: Vec<Value> = (0..n).map(|i| if i == 0 { first.clone() } else { rest.clone() }).collect();
        let body = json!({"kind": "ranked", "scores": scores, "first": scores, "tokens": [1],
            "timings": {"prompt_tokens": 1, "cached_tokens": 0, "prompt_ms": 1, "generated_tokens": 1,
                        "generation_ms": 1, "grammar_fallbacks": 0}});
        send(out, &json!({"v": 1, "id": id, "ok": body}).to_string())
    } else if let Some(text) = step.get("stdout").and_then(Value::as_str) {
        send(out, text)
    } else if let Some(text) = step.get("stderr").and_then(Value::as_str) {
        eprintln!("{text}");
        true
    } else if let Some(code) = step.get("exit").and_then(Value::as_u64) {
        return Flow::Exit(u8::try_from(code).unwrap_or(u8::MAX));
    } else if let Some(seconds) = step.get("hang_s").and_then(Value::as_u64) {
        std::thread::sleep(Duration::from_secs(seconds));
        true
    } else {
        eprintln!("the stand-in's script has a step it does not know: {step}");
        return Flow::Exit(2);
    };
    if sent { Flow::Next } else { Flow::Exit(0) }
}
