//! The fault boundary around the model worker, against stand-in workers that misbehave on
//! purpose: `crates/stand-in-worker`, a program that speaks (or breaks) the line protocol as a
//! script tells it, so these run on Windows too. What is under test is the supervisor's side of
//! the pipe — timeouts, restarts, backoff, garbage — so the worker is the one thing replaced;
//! the real worker and model are exercised in the CLI's `say` tests.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};
use smart_proposer::protocol::{LoadRequest, PrepareRequest, ProposeRequest, RankRequest, Turn};
use smart_proposer::{ModelOutput, ToolDecl};
use smart_runtime::worker::{Backoff, Supervisor, Timeouts, WorkerError, WorkerSpec};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A stand-in worker (`crates/stand-in-worker`, built beside this test's binary) and the script
/// it follows, written into `dir`: it answers `load` like the real worker, then each request by
/// the script's steps.
struct StandIn {
    program: PathBuf,
    script: PathBuf,
}

fn stand_in(dir: &Path, script: Value) -> StandIn {
    // target/<profile>/deps/supervisor-… → target/<profile>/
    let exe = std::env::current_exe().unwrap();
    let program = exe
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .join(format!("smart-stand-in-worker{}", std::env::consts::EXE_SUFFIX));
    assert!(
        program.is_file(),
        "{} is missing: build it with `cargo build -p smart-stand-in-worker`",
        program.display()
    );
    let path = dir.join("stand-in.json");
    std::fs::write(&path, script.to_string()).unwrap();
    StandIn { program, script: path }
}

/// A well-formed proposal of `fs.scan`.
fn proposal() -> Value {
    json!({"ok": {"kind": "proposal", "output": {"kind": "call", "tool": "fs.scan", "args": {"path": "/tmp"}},
                  "raw": "<tool_call>\n{\"name\": \"fs.scan\", \"arguments\": {\"path\": \"/tmp\"}}\n</tool_call>",
                  "timings": {"prompt_tokens": 1, "cached_tokens": 0, "prompt_ms": 1.0, "generated_tokens": 1,
                              "generation_ms": 1.0, "grammar_fallbacks": 0}}})
}

/// Steps for every `propose`.
fn on_propose(steps: Value) -> Value {
    json!({"each": {"propose": steps}})
}

fn supervisor(worker: StandIn) -> Supervisor {
    supervisor_of(worker.program, worker.script)
}

fn supervisor_of(program: PathBuf, model: PathBuf) -> Supervisor {
    let mut s = Supervisor::new(WorkerSpec {
        program,
        args: vec![],
        load: LoadRequest {
            path: model.display().to_string(),
            n_ctx: 4096,
            threads: Some(1),
            gpu_layers: 0,
            format: None,
            cache_dir: None,
        },
    });
    s.timeouts = Timeouts {
        load: Duration::from_secs(10),
        propose: Duration::from_millis(800),
        prepare: Duration::from_secs(10),
    };
    s.backoff = Backoff { base: Duration::from_millis(50), max: Duration::from_millis(400) };
    s
}

fn request() -> ProposeRequest {
    ProposeRequest {
        tools: vec![ToolDecl { name: "fs.scan".into(), description: "d".into(), parameters: serde_json::json!({}) }],
        context: String::new(),
        turns: vec![Turn::User { text: "scan /tmp".into() }],
        max_tokens: 16,
        no_cache: false,
    }
}

fn rank_request(prefix: &str) -> RankRequest {
    RankRequest { prefix: prefix.into(), rest: "scan /tmp".into(), candidates: vec!["a".into(), "b".into()] }
}

/// A ranking that takes 2 s — longer than a proposal's deadline (800 ms), well inside a
/// preparation's (10 s) — and then answers.
fn slow_ranking() -> Value {
    json!([{"hang_s": 2}, {"ranked_leaning": [-0.1, -3.0]}])
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

#[test]
fn a_well_behaved_worker_proposes() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = supervisor(stand_in(dir.path(), on_propose(json!([proposal()]))));
    let p = rt().block_on(s.propose(&request())).unwrap();
    assert!(matches!(p.output, ModelOutput::Call { ref tool, .. } if tool == "fs.scan"));
    assert_eq!(s.starts(), 1);
    assert!(s.take_faults().is_empty());
}

/// Windows: tokio serves a child's pipes on its blocking pool, where a read waits for the child,
/// and a runtime dropped while the worker lived waited for that read forever. The pipes are
/// now read by threads of the worker's own; this drops the runtime first and must end.
#[test]
fn a_runtime_dropped_while_its_worker_lives_does_not_wait_for_the_worker() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = supervisor(stand_in(dir.path(), on_propose(json!([proposal()]))));
    let (done, ended) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = rt();
        let proposed = rt.block_on(s.propose(&request())).is_ok();
        drop(rt);
        // The worker must still be running here, or the drop proved nothing.
        let alive = s.pid().is_some() && !s.worker_exited();
        let _ = done.send((proposed, alive));
    });
    let (proposed, alive) = ended.recv_timeout(Duration::from_secs(20)).expect("dropping the runtime hung");
    assert!(proposed && alive, "proposed {proposed}, worker alive {alive}");
}

#[test]
fn a_hung_worker_is_killed_at_the_deadline_and_restarted_for_the_next_request() {
    let dir = tempfile::tempdir().unwrap();
    // Hangs on the first proposal, answers afterwards (the stand-in remembers the first).
    let script = json!({"first": {"propose": [{"hang_s": 600}]}, "each": {"propose": [proposal()]}});
    let mut s = supervisor(stand_in(dir.path(), script));
    let rt = rt();
    let t0 = Instant::now();
    let err = rt.block_on(s.propose(&request())).unwrap_err();
    assert!(matches!(err, WorkerError::Timeout { op: "propose", after_ms: 800 }), "{err}");
    assert!(t0.elapsed() < Duration::from_secs(5), "the deadline was not enforced");
    assert_eq!(s.pid(), None, "the hung worker must be gone");
    let faults = s.take_faults();
    assert_eq!(faults.len(), 1);
    assert!(faults[0].reason.contains("did not answer"), "{faults:?}");
    assert_eq!(faults[0].restart_in_ms, 50);

    rt.block_on(s.propose(&request())).unwrap();
    assert_eq!(s.starts(), 2);
}

#[test]
fn a_worker_killed_between_requests_is_restarted_and_the_request_still_answered() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = supervisor(stand_in(dir.path(), on_propose(json!([proposal()]))));
    let rt = rt();
    rt.block_on(s.propose(&request())).unwrap();
    let pid = s.pid().unwrap();
    #[cfg(unix)]
    let killed = std::process::Command::new("kill").args(["-9", &pid.to_string()]).status().unwrap();
    #[cfg(windows)]
    let killed = std::process::Command::new("taskkill").args(["/F", "/PID", &pid.to_string()]).status().unwrap();
    assert!(killed.success());
    std::thread::sleep(Duration::from_millis(100));
    rt.block_on(s.propose(&request())).unwrap();
    assert_eq!(s.starts(), 2);
    assert_ne!(s.pid(), Some(pid));
    let faults = s.take_faults();
    assert_eq!(faults.len(), 1, "{faults:?}");
    assert!(faults[0].reason.contains("died"), "{faults:?}");
}

#[test]
fn a_worker_that_dies_mid_request_is_retried_once_then_reported() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = supervisor(stand_in(dir.path(), on_propose(json!([{"stderr": "segfault in ggml"}, {"exit": 139}]))));
    let rt = rt();
    let t0 = Instant::now();
    let err = rt.block_on(s.propose(&request())).unwrap_err();
    assert!(matches!(err, WorkerError::Crashed { .. }), "{err}");
    assert!(err.to_string().contains("segfault in ggml"), "stderr is not in the message: {err}");
    assert_eq!(s.starts(), 2, "one retry, no more");
    let faults = s.take_faults();
    assert_eq!(faults.iter().map(|f| f.restart_in_ms).collect::<Vec<_>>(), [50, 100]);
    // The retry waited for its backoff.
    assert!(t0.elapsed() >= Duration::from_millis(50));
}

#[test]
fn garbage_on_stdout_is_a_fault_never_a_proposal() {
    let dir = tempfile::tempdir().unwrap();
    let script = on_propose(json!([{"stdout": "llama_model_load: loaded meta data with 33 key-value pairs"}]));
    let mut s = supervisor(stand_in(dir.path(), script));
    let err = rt().block_on(s.propose(&request())).unwrap_err();
    assert!(matches!(err, WorkerError::Garbage(ref m) if m.contains("not a protocol line")), "{err}");
    assert_eq!(s.take_faults().len(), 1);
    assert_eq!(s.pid(), None);
}

#[test]
fn a_missing_worker_binary_is_a_clear_error() {
    let mut s = supervisor_of(PathBuf::from("/nonexistent/smart-proposer-worker"), PathBuf::from("m.gguf"));
    let err = rt().block_on(s.propose(&request())).unwrap_err();
    assert!(matches!(err, WorkerError::Spawn { .. }), "{err}");
    assert!(err.to_string().contains("/nonexistent/smart-proposer-worker"), "{err}");
}

/// What broke: two one-shot `smart say`s on the 2-core CI machine (under Wine) each spent
/// longer than a proposal's deadline evaluating the prompt prefix of their first ranking, were
/// killed, and answered nothing. A ranking whose prefix the worker does not hold now has the
/// preparation's deadline; once the worker holds it, a ranking has a proposal's.
#[test]
fn a_ranking_that_must_evaluate_its_prefix_first_gets_the_preparations_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = supervisor(stand_in(dir.path(), json!({"each": {"rank": slow_ranking()}})));
    let rt = rt();
    // The first ranking: the worker holds no prefix yet.
    let r = rt.block_on(s.rank(&rank_request("tools A"))).unwrap();
    assert_eq!(r.scores, vec![-0.1, -3.0]);
    // Another prefix (the visible tools changed): cold again.
    rt.block_on(s.rank(&rank_request("tools B"))).unwrap();
    // The same prefix again is held, so a proposal's deadline applies, and 2 s is too long.
    let err = rt.block_on(s.rank(&rank_request("tools B"))).unwrap_err();
    assert!(matches!(err, WorkerError::Timeout { op: "rank", after_ms: 800 }), "{err}");
    assert_eq!(s.pid(), None, "the worker that missed the deadline must be gone");
    // Its successor holds nothing: B is cold for it.
    rt.block_on(s.rank(&rank_request("tools B"))).unwrap();
    assert_eq!(s.starts(), 2);
    assert_eq!(s.take_faults().len(), 1);
}

/// The app prepares the prefix at start and on a scope change; a ranking after that is warm.
#[test]
fn a_prepared_prefix_is_held_and_its_ranking_has_a_proposals_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let prepared = json!({"ok": {"kind": "prepared", "tokens": 1,
        "timings": {"prompt_tokens": 1, "cached_tokens": 0, "prompt_ms": 1.0, "generated_tokens": 0,
                    "generation_ms": 0.0, "grammar_fallbacks": 0}}});
    let script = json!({"each": {"prepare": [prepared], "rank": slow_ranking()}});
    let mut s = supervisor(stand_in(dir.path(), script));
    let rt = rt();
    rt.block_on(s.prepare(&PrepareRequest { prefix: "tools A".into() })).unwrap();
    let err = rt.block_on(s.rank(&rank_request("tools A"))).unwrap_err();
    assert!(matches!(err, WorkerError::Timeout { op: "rank", after_ms: 800 }), "{err}");
}
