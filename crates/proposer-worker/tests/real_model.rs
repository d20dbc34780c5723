//! The real worker binary with the real default model: the runtime's assistant drives it over
//! its pipe, the kernel decides, and the worker is killed mid-session to check that the next
//! utterance still works and the fault is in the ledger. Also: every prompt format's grammar is
//! accepted by llama.cpp and yields a schema-valid call.
//!
//! Needs the default proposer model in the models folder (`SMART_MODELS_DIR`); it fails, with
//! the command that fetches it, when the model is missing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use smart_models::Models;
use smart_proposer::PromptFormat;
use smart_proposer::protocol::LoadRequest;
use smart_runtime::bus::BusEvent;
use smart_runtime::interaction::State;
use smart_runtime::worker::WorkerSpec;
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
