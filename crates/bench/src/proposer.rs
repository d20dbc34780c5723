//! Proposal latency: what one utterance costs in the model worker, split into prompt evaluation
//! (with and without the cached static prefix) and generation, next to the same prompt through
//! llama.cpp with nothing of ours around it.
//!
//! The point of the prefix cache is that the static part of every prompt (instructions and the
//! visible tools' declarations, hundreds of tokens) is evaluated once per scope, so a new
//! utterance pays only for its own few tokens. The cold run (`no_cache`) and the warm runs show
//! what that saves; the raw run shows what our protocol, grammar and parsing add on top of
//! llama.cpp itself (the worker's `--raw-bench` mode: tokenize, decode the prompt, greedy-sample
//! with no grammar, no cache, no protocol).

use crate::Summary;
use anyhow::{Context, Result, anyhow, bail};
use smart_models::{ModelStatus, Models};
use smart_proposer::protocol::{LoadRequest, ProposeRequest, Turn};
use smart_runtime::worker::{Supervisor, WorkerSpec, locate_worker};
use std::time::Instant;

/// Milliseconds (or rates) and their percentiles.
#[derive(Default)]
struct Dist(Vec<f64>);

impl Dist {
    fn push(&mut self, v: f64) {
        self.0.push(v);
    }

    fn p(&self, q: f64) -> f64 {
        let mut v = self.0.clone();
        v.sort_by(f64::total_cmp);
        if v.is_empty() {
            return 0.0;
        }
        v[((v.len() - 1) as f64 * q).round() as usize]
    }
}

fn ms(v: f64) -> String {
    format!("{v:.0} ms")
}

const UTTERANCES: &[&str] = &[
    "list the files in /home/ana/Downloads",
    "are there duplicate files in /home/ana/Pictures",
    "compute the hash of /home/ana/notes.txt",
    "move /home/ana/a.txt into /home/ana/archive",
    "delete /home/ana/old.log",
    "what is in /home/ana/Music",
];

fn request(text: &str, no_cache: bool) -> ProposeRequest {
    ProposeRequest {
        tools: smart_runtime::assistant::declarations(&smart_tools::specs(), text, None),
        context: "Allowed folders: /home/ana. The working folder is /home/ana.".into(),
        turns: vec![Turn::User { text: text.into() }],
        max_tokens: 192,
        no_cache,
    }
}

pub fn run(quick: bool, s: &mut Summary) -> Result<()> {
    let models = Models::open_default()?;
    let Some(m) = models.catalog().default_for("proposer") else { bail!("the catalog has no default proposer") };
    if models.status(m) == ModelStatus::Missing {
        println!("\n== proposer: skipped — {} is not downloaded (smart models fetch)", m.name);
        s.add("proposer", format!("skipped: {} not downloaded", m.name));
        return Ok(());
    }
    let path = models.verified_path(m)?;
    let program = locate_worker()?;
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2).saturating_sub(1).max(1);
    println!("\n== proposer: {} through smart-proposer-worker, {threads} thread(s)", m.name);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let mut sup = Supervisor::new(WorkerSpec {
        program: program.clone(),
        args: vec![],
        load: LoadRequest {
            path: path.to_string_lossy().into_owned(),
            n_ctx: 4096,
            threads: None,
            gpu_layers: 0,
            format: None,
            cache_dir: None,
        },
    });
    let t0 = Instant::now();
    let info = rt.block_on(sup.ensure_started()).map_err(|e| anyhow!("{e}"))?.clone();
    let spawn_load_ms = t0.elapsed().as_secs_f64() * 1000.0;
    println!("loaded in {} ms (spawn + load {spawn_load_ms:.0} ms); prompt format {:?}", info.load_ms, info.format);

    let rounds = if quick { 1 } else { 3 };
    let (mut cold_prompt, mut warm_prompt, mut gen_rate, mut total) =
        (Dist::default(), Dist::default(), Dist::default(), Dist::default());
    let (mut cold_tokens, mut warm_tokens, mut cached) = (0u32, 0u32, 0u32);
    let mut cold_request = None;
    for round in 0..rounds {
        for (i, text) in UTTERANCES.iter().enumerate() {
            // The first utterance of each round runs without the cache: a cold prefix.
            let cold = i == 0;
            let req = request(text, cold);
            let t = Instant::now();
            let p = rt.block_on(sup.propose(&req)).map_err(|e| anyhow!("{text:?}: {e}"))?;
            total.push(t.elapsed().as_secs_f64() * 1000.0);
            let evaluated = p.timings.prompt_tokens - p.timings.cached_tokens;
            if cold {
                cold_prompt.push(p.timings.prompt_ms);
                cold_tokens = evaluated;
                cold_request.get_or_insert(req);
            } else {
                warm_prompt.push(p.timings.prompt_ms);
                warm_tokens = evaluated;
                cached = p.timings.cached_tokens;
            }
            if p.timings.generated_tokens > 0 {
                gen_rate.push(p.timings.generated_tokens as f64 * 1000.0 / p.timings.generation_ms.max(0.001));
            }
            if round == 0 {
                println!(
                    "  {text:?} → {} [{} prompt tokens, {} cached, {:.0} ms; {} generated, {:.0} ms]",
                    match &p.output {
                        smart_proposer::ModelOutput::Call { tool, .. } => tool.clone(),
                        smart_proposer::ModelOutput::NoCall { .. } => "no call".into(),
                    },
                    p.timings.prompt_tokens,
                    p.timings.cached_tokens,
                    p.timings.prompt_ms,
                    p.timings.generated_tokens,
                    p.timings.generation_ms
                );
            }
        }
    }
    rt.block_on(sup.shutdown());

    // The same cold prompt through llama.cpp alone.
    let req = cold_request.context("no cold run")?;
    let prompt = info.format.render(&req);
    let dir = tempfile::tempdir()?;
    let prompt_file = dir.path().join("prompt.txt");
    std::fs::write(&prompt_file, &prompt)?;
    let out = std::process::Command::new(&program)
        .arg("--raw-bench")
        .arg(&path)
        .arg(&prompt_file)
        .arg("32")
        .output()
        .context("running the worker's --raw-bench")?;
    if !out.status.success() {
        bail!("--raw-bench failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let raw: serde_json::Value = serde_json::from_slice(&out.stdout).context("--raw-bench output")?;
    let f = |k: &str| raw[k].as_f64().unwrap_or(0.0);

    println!(
        "prompt, cold prefix: {} tokens in {} (p50) = {:.0} tok/s",
        cold_tokens,
        ms(cold_prompt.p(0.5)),
        cold_tokens as f64 * 1000.0 / cold_prompt.p(0.5).max(0.001)
    );
    println!(
        "prompt, cached prefix: {} new tokens ({} from cache) in {} (p50)",
        warm_tokens,
        cached,
        ms(warm_prompt.p(0.5))
    );
    println!("generation: {:.1} tok/s (p50), grammar-constrained, greedy-first", gen_rate.p(0.5));
    println!("whole proposal: p50 {} p90 {}", ms(total.p(0.5)), ms(total.p(0.9)));
    println!(
        "llama.cpp alone, same cold prompt: {} tokens in {:.0} ms = {:.0} tok/s; {} tokens generated (greedy, no grammar) at {:.1} tok/s",
        f("prompt_tokens"),
        f("prompt_ms"),
        f("prompt_tokens") * 1000.0 / f("prompt_ms").max(0.001),
        f("generated_tokens"),
        f("generated_tokens") * 1000.0 / f("generation_ms").max(0.001)
    );
    s.add("proposer model", format!("{} ({threads} thread(s), load {} ms)", m.name, info.load_ms));
    s.add("prompt eval, cold prefix (p50)", format!("{} for {cold_tokens} tokens", ms(cold_prompt.p(0.5))));
    s.add("prompt eval, cached prefix (p50)", format!("{} for {warm_tokens} new tokens", ms(warm_prompt.p(0.5))));
    s.add("generation (p50)", format!("{:.1} tok/s", gen_rate.p(0.5)));
    s.add("whole proposal p50 / p90", format!("{} / {}", ms(total.p(0.5)), ms(total.p(0.9))));
    s.add(
        "llama.cpp alone: prompt / generation",
        format!(
            "{:.0} tok/s / {:.1} tok/s",
            f("prompt_tokens") * 1000.0 / f("prompt_ms").max(0.001),
            f("generated_tokens") * 1000.0 / f("generation_ms").max(0.001)
        ),
    );
    Ok(())
}
