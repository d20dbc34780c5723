//! `smart-eval`: how well each proposer turns what people say into the call they meant.
//!
//! A proposer is only useful if its proposals are the ones a person intended — the kernel makes
//! a wrong proposal harmless, not helpful. This harness runs the public dev set
//! (`tests/eval/dev.jsonl`: utterance → expected tool and key arguments, or no call) through
//! the real pipeline in propose-only mode, against a real folder tree and a real data dir, and
//! scores:
//!
//! - **tool accuracy**: the proposed tool (or "no call") is the expected one;
//! - **argument accuracy**: of the right-tool answers, those whose key arguments match
//!   (paths compared after the same absolutisation the kernel sees);
//! - **schema-valid rate**: proposals that pass the tool's JSON schema — the grammar makes this
//!   100% by construction, and the harness checks it rather than assuming it;
//! - **latency** p50/p90 per utterance, wall clock, model loaded.
//!
//! Modes: `templates` (the phrase templates alone; no answer means "no call"), one mode per
//! model file present (the model alone), and `pipeline` (templates first, then the default
//! model — what `smart say` does).

use anyhow::{Context, Result, anyhow, bail};
use serde::Serialize;
use serde_json::{Value, json};
use smart_kernel::lease::LeaseDraft;
use smart_kernel::{CallSource, GateAct, Horizon, Registry};
use smart_models::{ModelStatus, Models};
use smart_proposer::phrases::{self, PhraseContext};
use smart_proposer::protocol::LoadRequest;
use smart_runtime::worker::{WorkerSpec, locate_worker};
use smart_runtime::{Assistant, Bus, Engine, InitOptions, ManualClock, SayOptions};
use smart_signals::KeyStoreKind;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Clone, Debug, serde::Deserialize)]
struct Case {
    text: String,
    tool: Option<String>,
    #[serde(default)]
    args: Value,
}

#[derive(Clone, Debug, Serialize)]
struct Answer {
    tool: Option<String>,
    args: Value,
    ms: f64,
    error: Option<String>,
}

#[derive(Debug, Serialize)]
struct Score {
    mode: String,
    cases: usize,
    tool_accuracy: f64,
    arg_accuracy: f64,
    schema_valid: f64,
    proposals: usize,
    no_call_accuracy: f64,
    p50_ms: f64,
    p90_ms: f64,
    errors: usize,
    by_expected_tool: Vec<(String, usize, usize)>,
}

struct Opts {
    set: PathBuf,
    models: Option<Vec<String>>,
    limit: Option<usize>,
    json: Option<PathBuf>,
    verbose: bool,
    every: usize,
    require_schema_valid: bool,
}

fn parse_args() -> Result<Opts> {
    let mut opts = Opts {
        set: PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/eval/dev.jsonl")),
        models: None,
        limit: None,
        json: None,
        verbose: false,
        every: 1,
        require_schema_valid: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().ok_or_else(|| anyhow!("{a} needs a value"));
        match a.as_str() {
            "--set" => opts.set = PathBuf::from(val()?),
            "--models" => opts.models = Some(val()?.split(',').map(str::to_string).collect()),
            "--limit" => opts.limit = Some(val()?.parse().context("--limit")?),
            "--json" => opts.json = Some(PathBuf::from(val()?)),
            "--verbose" | "-v" => opts.verbose = true,
            "--every" => opts.every = val()?.parse::<usize>().context("--every")?.max(1),
            "--require-schema-valid" => opts.require_schema_valid = true,
            "--help" | "-h" => {
                println!(
                    "smart-eval [--set FILE] [--models a,b] [--limit N] [--every K] [--json OUT] [--verbose] [--require-schema-valid]\n\
                     Scores the phrase templates, each downloaded proposer model, and the pipeline.\n\
                     --every K keeps every K-th utterance (a spread over all layers for a quick run);\n\
                     --require-schema-valid exits 1 if any proposal fails its tool's schema, or errors."
                );
                std::process::exit(0);
            }
            other => bail!("unknown argument {other:?} (see --help)"),
        }
    }
    Ok(opts)
}

/// The folder tree the dev set talks about.
fn fixture(root: &Path) -> Result<()> {
    let files: &[(&str, &[u8])] = &[
        ("Downloads/a.pdf", b"%PDF-1.4 report"),
        ("Downloads/a copy.pdf", b"%PDF-1.4 report"),
        ("Downloads/setup.exe", b"MZ installer"),
        ("Pictures/cat.jpg", b"\xff\xd8 cat"),
        ("Pictures/cat (1).jpg", b"\xff\xd8 cat"),
        ("Pictures/dog.png", b"\x89PNG dog"),
        ("Music/song.mp3", b"ID3 song"),
        ("Music/song copy.mp3", b"ID3 song"),
        ("Documents/reports/q1.txt", b"q1"),
        ("Documents/reports/q2.txt", b"q2"),
        ("notes.txt", b"notes"),
        ("todo.md", b"- [ ] todo"),
        ("old.log", b"old log"),
        ("tmp.txt", b"tmp"),
        ("draft.docx", b"PK draft"),
        ("drafts/x.txt", b"x"),
        ("archive/.keep", b""),
    ];
    for (path, body) in files {
        let p = root.join(path);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&p, body)?;
    }
    Ok(())
}

/// A data dir over `root` with a committed lease and one move plan (for "apply the plan").
fn engine(data: &Path, root: &Path) -> Result<(Engine, String)> {
    let clock = ManualClock::starting_at(1_790_000_000_000);
    let opts = InitOptions { roots: vec![root.to_path_buf()], policy: None, key_store: Some(KeyStoreKind::File) };
    let (mut e, _) = Engine::init(data, opts, Box::new(clock.clone()))?;
    let drafted = e.draft_lease(LeaseDraft {
        frame: "tidy the home folder".into(),
        horizon: Horizon::Short,
        duration_ms: 3_600_000,
        success_criteria: vec![],
        non_goals: vec![],
        renewal_prompt: String::new(),
    })?;
    let committed = e.gates(&[GateAct::Commitment])?;
    for r in [&drafted, &committed] {
        if r.outcome == "refused" {
            bail!("fixture: the lease was refused: {:?}", r.reason);
        }
    }
    let root_s = root.to_string_lossy().to_string();
    for (tool, wait) in [("fs.scan", 1_000), ("cluster.duplicates", 6_000)] {
        let r = e.call(tool, json!({ "path": root_s }), CallSource::Script)?;
        if r.outcome != "committed" {
            bail!("fixture: {tool} was {}: {:?}", r.outcome, r.reason);
        }
        clock.advance(wait);
    }
    let mv = json!({"moves": [{"from": format!("{root_s}/notes.txt"), "to": format!("{root_s}/archive/notes.txt")}]});
    let r = e.call("propose.move", mv, CallSource::Script)?;
    let plan = r.artifact.ok_or_else(|| anyhow!("fixture: propose.move made no plan ({:?})", r.reason))?;
    Ok((e, plan))
}

fn substitute(v: &Value, root: &str, plan: &str) -> Value {
    match v {
        Value::String(s) => Value::String(s.replace("$ROOT", root).replace("$PLAN", plan)),
        Value::Array(a) => Value::Array(a.iter().map(|x| substitute(x, root, plan)).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, x)| (k.clone(), substitute(x, root, plan))).collect()),
        other => other.clone(),
    }
}

/// Every key of `want` is in `got` with a matching value (paths compared without a trailing /).
fn matches(want: &Value, got: &Value) -> bool {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => w.iter().all(|(k, wv)| g.get(k).is_some_and(|gv| matches(wv, gv))),
        (Value::Array(w), Value::Array(g)) => w.len() == g.len() && w.iter().zip(g).all(|(a, b)| matches(a, b)),
        (Value::String(w), Value::String(g)) => w.trim_end_matches('/') == g.trim_end_matches('/'),
        (w, g) => w == g,
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn score(mode: &str, cases: &[Case], answers: &[Answer], registry: &Registry) -> Score {
    let mut tool_ok = 0;
    let mut arg_total = 0;
    let mut arg_ok = 0;
    let mut proposals = 0;
    let mut valid = 0;
    let mut none_total = 0;
    let mut none_ok = 0;
    let mut by: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
    for (c, a) in cases.iter().zip(answers) {
        let right_tool = c.tool == a.tool && a.error.is_none();
        let entry = by.entry(c.tool.clone().unwrap_or_else(|| "(no call)".into())).or_default();
        entry.0 += 1;
        if right_tool {
            tool_ok += 1;
            entry.1 += 1;
        }
        if c.tool.is_none() {
            none_total += 1;
            none_ok += usize::from(right_tool);
        } else if right_tool {
            arg_total += 1;
            arg_ok += usize::from(matches(&c.args, &a.args));
        }
        if let Some(t) = &a.tool {
            proposals += 1;
            valid += usize::from(registry.validate_args(t, &a.args).is_ok());
        }
    }
    let mut ms: Vec<f64> = answers.iter().map(|a| a.ms).collect();
    ms.sort_by(f64::total_cmp);
    let pct = |n: usize, d: usize| if d == 0 { 100.0 } else { n as f64 * 100.0 / d as f64 };
    Score {
        mode: mode.to_string(),
        cases: cases.len(),
        tool_accuracy: pct(tool_ok, cases.len()),
        arg_accuracy: pct(arg_ok, arg_total),
        schema_valid: pct(valid, proposals),
        proposals,
        no_call_accuracy: pct(none_ok, none_total),
        p50_ms: percentile(&ms, 0.5),
        p90_ms: percentile(&ms, 0.9),
        errors: answers.iter().filter(|a| a.error.is_some()).count(),
        by_expected_tool: by.into_iter().map(|(k, (n, ok))| (k, n, ok)).collect(),
    }
}

async fn run_model(
    engine: Engine,
    model_path: &Path,
    cases: &[Case],
    base: &Path,
) -> Result<(Engine, Vec<Answer>, String)> {
    let program = locate_worker()?;
    let load = LoadRequest {
        path: model_path.to_string_lossy().into_owned(),
        n_ctx: 4096,
        threads: None,
        gpu_layers: 0,
        format: None,
        cache_dir: None,
    };
    let spec = WorkerSpec { program, args: vec![], load };
    let mut a = Assistant::new(engine, Bus::default(), Box::new(move || Ok(spec.clone())));
    let name = a.warm_up().await.map_err(|e| anyhow!("{}: {e}", model_path.display()))?;
    let opts = SayOptions { propose_only: true, no_templates: true, base: Some(base.to_path_buf()) };
    let mut answers = vec![];
    for c in cases {
        let t0 = Instant::now();
        let r = a.say(&c.text, &opts).await;
        let ms = t0.elapsed().as_secs_f64() * 1000.0;
        answers.push(match r {
            Ok(rep) => match rep.steps.first() {
                Some(s) => {
                    Answer { tool: Some(s.proposal.tool.clone()), args: s.proposal.args.clone(), ms, error: None }
                }
                None => Answer { tool: None, args: Value::Null, ms, error: None },
            },
            Err(e) => Answer { tool: None, args: Value::Null, ms, error: Some(e.to_string()) },
        });
    }
    Ok((a.into_engine().await, answers, name))
}

fn print_score(s: &Score) {
    println!(
        "{:<22} tool {:>5.1}%  args {:>5.1}%  schema-valid {:>5.1}% ({} proposals)  no-call {:>5.1}%  p50 {:>6.0} ms  p90 {:>6.0} ms  errors {}",
        s.mode,
        s.tool_accuracy,
        s.arg_accuracy,
        s.schema_valid,
        s.proposals,
        s.no_call_accuracy,
        s.p50_ms,
        s.p90_ms,
        s.errors
    );
    let per: Vec<String> = s.by_expected_tool.iter().map(|(t, n, ok)| format!("{t} {ok}/{n}")).collect();
    println!("{:<22} {}", "", per.join(" · "));
}

fn main() -> Result<()> {
    let opts = parse_args()?;
    let text = std::fs::read_to_string(&opts.set).with_context(|| format!("cannot read {}", opts.set.display()))?;
    // No dot in the folder names: tempfile's default `.tmpXXXX` is not what a home folder
    // looks like, and it visibly confuses small models.
    let tmp = tempfile::Builder::new().prefix("smart-eval-").tempdir()?;
    let root = tmp.path().join("home");
    fixture(&root)?;
    let root = std::fs::canonicalize(&root)?;
    let root_s = root.to_string_lossy().to_string();
    let (mut engine, plan) = engine(&tmp.path().join("data"), &root)?;
    let mut cases = vec![];
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let c: Case = serde_json::from_str(line).with_context(|| format!("{}:{}", opts.set.display(), i + 1))?;
        cases.push(Case {
            text: c.text.replace("$ROOT", &root_s).replace("$PLAN", &plan),
            tool: c.tool,
            args: substitute(&c.args, &root_s, &plan),
        });
    }
    cases = cases.into_iter().enumerate().filter(|(i, _)| i % opts.every == 0).map(|(_, c)| c).collect();
    if let Some(n) = opts.limit {
        cases.truncate(n);
    }
    let registry = Registry::new(smart_tools::specs()).map_err(|e| anyhow!("{e}"))?;
    let mut scores = vec![];
    let mut all_answers: Vec<(String, Vec<Answer>)> = vec![];

    // The templates alone.
    let visible: Vec<String> = engine.visible_tools()?.into_iter().map(|s| s.name).collect();
    let ctx = PhraseContext { base: root_s.clone(), last_plan: Some(plan.clone()), plan_tool: None, visible };
    let templates: Vec<Answer> = cases
        .iter()
        .map(|c| {
            let t0 = Instant::now();
            let got = phrases::propose(&c.text, &ctx);
            let ms = t0.elapsed().as_secs_f64() * 1000.0;
            match got {
                Some((tool, args)) => Answer { tool: Some(tool), args, ms, error: None },
                None => Answer { tool: None, args: Value::Null, ms, error: None },
            }
        })
        .collect();
    scores.push(score("templates", &cases, &templates, &registry));

    // Each model present, alone.
    let models = Models::open_default()?;
    let default = models.catalog().default_for("proposer").map(|m| m.name.clone());
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let mut default_answers = None;
    for m in models.catalog().models.iter().filter(|m| m.purpose == "proposer") {
        if opts.models.as_ref().is_some_and(|list| !list.contains(&m.name)) {
            continue;
        }
        if models.status(m) == ModelStatus::Missing {
            eprintln!("{}: not downloaded, skipped (smart models fetch {})", m.name, m.name);
            continue;
        }
        let path = models.verified_path(m)?;
        eprintln!("{}: running {} utterances…", m.name, cases.len());
        let (e, answers, _) = rt.block_on(run_model(engine, &path, &cases, &root))?;
        engine = e;
        scores.push(score(&m.name, &cases, &answers, &registry));
        if Some(&m.name) == default.as_ref() {
            default_answers = Some(answers.clone());
        }
        all_answers.push((m.name.clone(), answers));
    }

    // The pipeline: a template when one matches, else the default model.
    if let Some(model) = default_answers {
        let pipeline: Vec<Answer> =
            templates.iter().zip(model).map(|(t, m)| if t.tool.is_some() { t.clone() } else { m }).collect();
        scores.push(score("pipeline", &cases, &pipeline, &registry));
        all_answers.push(("pipeline".into(), pipeline));
    }
    all_answers.insert(0, ("templates".into(), templates));

    println!("eval set: {} ({} utterances)", opts.set.display(), cases.len());
    for s in &scores {
        print_score(s);
    }
    if opts.verbose {
        for (mode, answers) in &all_answers {
            println!("\n== misses: {mode}");
            for (c, a) in cases.iter().zip(answers) {
                let ok = c.tool == a.tool && a.error.is_none() && (c.tool.is_none() || matches(&c.args, &a.args));
                if !ok {
                    let got = match (&a.tool, &a.error) {
                        (_, Some(e)) => format!("error: {e}"),
                        (Some(t), None) => format!("{t} {}", a.args),
                        (None, None) => "no call".into(),
                    };
                    let want = c.tool.as_ref().map(|t| format!("{t} {}", c.args)).unwrap_or_else(|| "no call".into());
                    println!("  {:?}\n     want {want}\n     got  {got}", c.text.replace(&root_s, "$ROOT"));
                }
            }
        }
    }
    if let Some(out) = &opts.json {
        let body = json!({ "set": opts.set, "cases": cases.len(), "scores": scores,
            "answers": all_answers.iter().map(|(m, a)| json!({"mode": m, "answers": a})).collect::<Vec<_>>() });
        std::fs::write(out, serde_json::to_string_pretty(&body)?)?;
    }
    if opts.require_schema_valid {
        for s in &scores {
            if s.schema_valid < 100.0 || s.errors > 0 {
                bail!(
                    "{}: schema-valid {:.1}%, {} errors — every proposal must be schema-valid",
                    s.mode,
                    s.schema_valid,
                    s.errors
                );
            }
        }
        if scores.len() < 2 {
            bail!("no model was evaluated: fetch one with `smart models fetch`");
        }
    }
    Ok(())
}
