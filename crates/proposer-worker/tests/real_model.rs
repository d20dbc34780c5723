//! The real worker binary with the real default model: the runtime's assistant drives it over
//! its pipe, the kernel decides, and the worker is killed mid-session to check that the next
//! utterance still works and the fault is in the ledger. Also: every prompt format's grammar is
//! accepted by llama.cpp and yields a schema-valid call, and a perception report is written in
//! a fresh context that leaves the proposer's cached prefix as it was.
//!
//! Needs the default proposer model in the models folder (`SMART_MODELS_DIR`); it fails, with
//! the command that fetches it, when the model is missing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use smart_models::Models;
use smart_proposer::PromptFormat;
use smart_proposer::protocol::{LoadRequest, PerceiveRequest, ProposeRequest, Speaker, TranscriptLine, Turn};
use smart_proposer::{ToolDecl, perception};
use smart_runtime::bus::BusEvent;
use smart_runtime::interaction::State;
use smart_runtime::worker::{Supervisor, WorkerSpec};
use smart_runtime::{Assistant, Bus, Engine, InitOptions, SayOptions, SystemClock};
use smart_signals::KeyStoreKind;
use std::path::{Path, PathBuf};

fn model() -> PathBuf {
    let models = Models::open_default().unwrap();
    let m = models.catalog().default_for("proposer").unwrap();
    models
        .verified_path(m)
        .unwrap_or_else(|e| panic!("{e}\nfetch it with `smart models fetch --source pip` (scripts/test.sh does)"))
}

fn spec(format: Option<PromptFormat>) -> WorkerSpec {
    WorkerSpec {
        program: PathBuf::from(env!("CARGO_BIN_EXE_smart-proposer-worker")),
        args: vec![],
        load: LoadRequest {
            path: model().to_string_lossy().into_owned(),
            n_ctx: 4096,
            threads: None,
            gpu_layers: 0,
            format,
            cache_dir: None,
        },
    }
}

fn setup() -> (tempfile::TempDir, PathBuf, Engine) {
    let tmp = tempfile::Builder::new().prefix("smart-worker-test-").tempdir().unwrap();
    let root = tmp.path().join("home");
    std::fs::create_dir_all(root.join("inbox")).unwrap();
    std::fs::write(root.join("inbox/a.txt"), "same").unwrap();
    std::fs::write(root.join("inbox/b.txt"), "same").unwrap();
    let root = std::fs::canonicalize(root).unwrap();
    let opts = InitOptions { roots: vec![root.clone()], policy: None, key_store: Some(KeyStoreKind::File) };
    let (engine, _) = Engine::init(&tmp.path().join("data"), opts, Box::new(SystemClock)).unwrap();
    (tmp, root, engine)
}

fn opts(root: &Path) -> SayOptions {
    SayOptions { propose_only: false, no_templates: true, base: Some(root.to_path_buf()) }
}

#[test]
fn a_killed_worker_is_restarted_and_the_next_utterance_works() {
    let (_tmp, root, engine) = setup();
    let bus = Bus::default();
    let mut rx = bus.subscribe();
    let s = spec(None);
    let mut a = Assistant::new(engine, bus, Box::new(move || Ok(s.clone())));
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let first = a.say("list the files in the inbox folder", &opts(&root)).await.unwrap();
        let step = first.steps.first().unwrap_or_else(|| panic!("no proposal: {first:?}"));
        assert_eq!(step.proposal.tool, "fs.scan", "{first:?}");
        assert_eq!(step.report.as_ref().unwrap().outcome, "committed");

        // The interaction walked the table from IDLE back to IDLE, through the kernel.
        let mut states = vec![];
        while let Ok(env) = rx.try_recv() {
            if let BusEvent::StateChanged { to, .. } = env.event {
                states.push(to);
            }
        }
        assert_eq!(states.first(), Some(&State::Reasoning));
        assert!(states.contains(&State::RiskClassifying) && states.contains(&State::Executing), "{states:?}");
        assert_eq!(states.last(), Some(&State::Idle), "{states:?}");

        let pid = a.supervisor().unwrap().pid().unwrap();
        let killed = std::process::Command::new("kill").args(["-9", &pid.to_string()]).status().unwrap();
        assert!(killed.success());
        std::thread::sleep(std::time::Duration::from_millis(200));

        let second = a.say("are there duplicate files in inbox", &opts(&root)).await;
        let second = second.unwrap_or_else(|e| panic!("the utterance after the kill failed: {e}"));
        assert!(!second.steps.is_empty() || second.reply.is_some(), "{second:?}");
        let sup = a.supervisor().unwrap();
        assert_eq!(sup.starts(), 2, "the worker was not restarted");
        assert_ne!(sup.pid(), Some(pid));
        let mut fault = false;
        while let Ok(env) = rx.try_recv() {
            fault |= matches!(env.event, BusEvent::WorkerFault { .. });
        }
        assert!(fault, "the fault was not announced");
    });
    let engine = rt.block_on(a.into_engine());
    let faults = engine.ledger().list(1, Some("fault"), 10).unwrap();
    assert_eq!(faults.len(), 1, "the fault was not ledgered");
    assert!(faults[0].payload.contains("proposer-worker"));
}

#[test]
fn every_prompt_format_yields_a_grammar_valid_call_through_llama_cpp() {
    // The same model driven in each format: the control tokens mean nothing to it outside its
    // own, but the grammar must still hold it to a well-formed call of a visible tool.
    for format in [PromptFormat::FunctionGemma, PromptFormat::ChatMl, PromptFormat::Completion] {
        let (_tmp, root, engine) = setup();
        let s = spec(Some(format));
        let mut a = Assistant::new(engine, Bus::default(), Box::new(move || Ok(s.clone())));
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let propose_only = SayOptions { propose_only: true, ..opts(&root) };
        let r = rt
            .block_on(a.say("list the files in the inbox folder", &propose_only))
            .unwrap_or_else(|e| panic!("{format:?}: {e}"));
        if let Some(step) = r.steps.first() {
            let registry = smart_kernel::Registry::new(smart_tools::specs()).unwrap();
            registry.validate_args(&step.proposal.tool, &step.proposal.args).unwrap_or_else(|e| {
                panic!("{format:?}: {} {} is not schema-valid: {e}", step.proposal.tool, step.proposal.args)
            });
        } else {
            assert!(r.reply.as_deref().is_some_and(|t| !t.is_empty()), "{format:?}: neither a call nor a reply");
        }
        rt.block_on(a.into_engine());
    }
}

#[test]
fn a_perception_report_comes_from_a_fresh_context_and_leaves_the_prefix_cache_alone() {
    let scan = ToolDecl {
        name: "fs.scan".into(),
        description: "List the files in a folder.".into(),
        parameters: serde_json::json!({"type": "object", "properties": {"path": {"type": "string", "minLength": 1}}, "required": ["path"]}),
    };
    let propose = ProposeRequest {
        tools: vec![scan],
        context: "Allowed folders: /home/ana\nWorking folder: /home/ana".into(),
        turns: vec![Turn::User { text: "list the files in the reports folder".into() }],
        max_tokens: 64,
        no_cache: false,
    };
    let line = |speaker, text: &str| TranscriptLine { speaker, text: text.into() };
    let perceive = PerceiveRequest {
        transcript: vec![
            line(Speaker::Person, "move last month's invoices into the reports folder"),
            line(Speaker::Assistant, "I moved 4 files into Downloads."),
            line(Speaker::Person, "no, that's wrong again"),
            line(Speaker::Assistant, "Sorry. I moved them into Downloads/invoices."),
            line(Speaker::Person, "I said the reports folder, not downloads"),
        ],
        context: "Working folder: /home/ana. Active stance: execution.".into(),
        max_tokens: 320,
    };
    let mut sup = Supervisor::new(spec(None));
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        sup.propose(&propose).await.unwrap_or_else(|e| panic!("first proposal: {e}"));
        let before = sup.propose(&propose).await.unwrap_or_else(|e| panic!("second proposal: {e}"));
        assert!(before.timings.cached_tokens > 0, "the repeated prompt was not cached: {:?}", before.timings);

        let started = std::time::Instant::now();
        let perceived = sup.perceive(&perceive).await.unwrap_or_else(|e| panic!("perceive: {e}"));
        let wall = started.elapsed();
        let t = &perceived.timings;
        eprintln!(
            "perceive: {} ms wall; {} prompt tokens in {:.0} ms, {} generated in {:.0} ms, {} grammar fallbacks\n{}",
            wall.as_millis(),
            t.prompt_tokens,
            t.prompt_ms,
            t.generated_tokens,
            t.generation_ms,
            t.grammar_fallbacks,
            perceived.raw
        );
        assert_eq!(t.cached_tokens, 0, "a fresh context has nothing cached");
        let reparsed: serde_json::Value = serde_json::from_str(&perceived.raw).unwrap();
        assert_eq!(reparsed, perceived.report);
        perception::validate(&perceived.report).unwrap_or_else(|e| panic!("{e}: {}", perceived.raw));
        // `validate` checks every key and value; these say so in the words of the report.
        let r = &perceived.report;
        let legal = |v: &serde_json::Value, allowed: &[&str]| v.as_str().is_some_and(|s| allowed.contains(&s));
        assert!(legal(&r["perception"]["elevation_level"], &["L1", "L2", "L3", "L4"]));
        assert!(r["perception"]["elevation_mismatch"].is_boolean());
        assert!(legal(&r["perception"]["sentiment"]["state"], &["positive", "neutral", "frustrated", "distressed"]));
        assert!(legal(&r["perception"]["sentiment"]["trust"], &["building", "steady", "eroding"]));
        assert!(legal(
            &r["contrast"]["gap_type"],
            &["none", "altitude", "pacing", "stance", "verbosity", "tangentiality"]
        ));
        assert!(legal(&r["contrast"]["severity"], &["low", "medium", "high"]));
        let keys: Vec<&str> = ["{\"perception\": {\"elevation_level\": ", "\"recommended_stance\": ", "\"contrast\": "]
            .into_iter()
            .filter(|k| !perceived.raw.contains(k))
            .collect();
        assert!(keys.is_empty(), "the raw text is not in the grammar's layout: {keys:?}");

        let after = sup.propose(&propose).await.unwrap_or_else(|e| panic!("the proposal after perceive: {e}"));
        assert_eq!(
            after.timings.cached_tokens, before.timings.cached_tokens,
            "perceive disturbed the proposer's cached prefix"
        );
        assert_eq!(after.raw, before.raw, "the cached state no longer answers as it did");
        assert_eq!(sup.starts(), 1, "the worker was restarted: {:?}", sup.take_faults());
        sup.shutdown().await;
    });
}
