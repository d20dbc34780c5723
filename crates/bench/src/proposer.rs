//! Proposal latency: what choosing a call for one utterance costs in the model worker — the
//! static prompt evaluated once (cold) and, per utterance, its own tokens plus the scoring of
//! every visible tool in one batch — next to plain llama.cpp evaluating the same prompt.
//!
//! Understanding ranks candidate answers instead of generating one (see
//! `smart_proposer::understand::rank`), so a proposal's cost is prompt evaluation of the
//! utterance (tens of tokens over the cached prefix) and one batch of candidate tokens; nothing
//! is generated. The cold run shows what the prefix cache saves (and what the app prepares in
//! the background at start); the raw run shows what our protocol and scoring add on top of
//! llama.cpp itself (the worker's `--raw-bench` mode: tokenize, decode the prompt, greedy-sample
//! with no grammar, no cache, no protocol).

use crate::Summary;
use anyhow::{Context, Result, anyhow, bail};
use smart_models::{ModelStatus, Models};
use smart_proposer::protocol::LoadRequest;
use smart_proposer::understand::Style;
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

/// Sentences in the shape people say them, none of whose names the prompt contains.
const UTTERANCES: &[&str] = &[
    "list the files in Garden Plans",
    "are there duplicate files in my mixtapes folder",
    "what is the checksum of packing list dot pdf",
    "move wishlist.docx into Receipts",
    "um delete old receipts slash march dot pdf",
    "what's the weather like tomorrow",
    "rebuild the search index",
    "find my notes about sourdough",
];

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
    // SMART_THREADS, as for the app and `smart say`; otherwise the worker's own choice.
    let chosen: Option<u32> = std::env::var("SMART_THREADS").ok().and_then(|t| t.parse().ok());
    println!("\n== proposer: {} through smart-proposer-worker", m.name);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let mut sup = Supervisor::new(WorkerSpec {
        program: program.clone(),
        args: vec![],
        load: LoadRequest {
            path: path.to_string_lossy().into_owned(),
            n_ctx: 4096,
            threads: chosen,
            gpu_layers: 0,
            format: None,
            // Quick mode (CI) only checks that the code runs: it loads the static prompt from
            // where the app keeps it once one run has evaluated it, rather than spend half a
            // minute on it every time. The full bench always measures it cold.
            cache_dir: quick.then(|| models.prefix_cache_dir().to_string_lossy().into_owned()),
        },
    });
    let t0 = Instant::now();
    let info = rt.block_on(sup.ensure_started()).map_err(|e| anyhow!("{e}"))?.clone();
    let spawn_load_ms = t0.elapsed().as_secs_f64() * 1000.0;
    println!(
        "loaded in {} ms (spawn + load {spawn_load_ms:.0} ms); prompt format {:?}; {} thread(s)",
        info.load_ms, info.format, info.threads
    );

    let tools = smart_runtime::understanding::rank_tools(&smart_tools::specs());
    let style = Style::default();
    // Cold: the static prompt evaluated from nothing (what the app does once, in the background);
    // in quick mode, from the disk cache when a run before left it there.
    let cold = rt
        .block_on(smart_runtime::understanding::prepare(&mut sup, info.format, &tools, style))
        .map_err(|e| anyhow!("{e}"))?;
    let rounds = if quick { 1 } else { 5 };
    let (mut prompt_ms, mut score_ms, mut total) = (Dist::default(), Dist::default(), Dist::default());
    let (mut rest_tokens, mut cand_tokens) = (Dist::default(), Dist::default());
    for round in 0..rounds {
        for text in UTTERANCES {
            let t = Instant::now();
            let (ranking, timings) = rt
                .block_on(smart_runtime::understanding::rank(&mut sup, info.format, &tools, text, style))
                .map_err(|e| anyhow!("{text:?}: {e}"))?;
            total.push(t.elapsed().as_secs_f64() * 1000.0);
            prompt_ms.push(timings.prompt_ms);
            score_ms.push(timings.generation_ms);
            rest_tokens.push(f64::from(timings.prompt_tokens - timings.cached_tokens));
            cand_tokens.push(f64::from(timings.generated_tokens));
            if round == 0 {
                println!(
                    "  {text:?} → {} (p {:.2}; call {:.2}) [{} new prompt tokens and {} candidate tokens in one batch: {:.0} ms to prepare, {:.0} ms to score]",
                    ranking.best().unwrap_or("?"),
                    ranking.tools.first().map_or(0.0, |(_, lp)| lp.exp()),
                    ranking.p_call,
                    timings.prompt_tokens - timings.cached_tokens,
                    timings.generated_tokens,
                    timings.prompt_ms,
                    timings.generation_ms
                );
            }
        }
    }
    rt.block_on(sup.shutdown());

    // The same cold prompt through llama.cpp alone. Quick mode (CI) gives it only the
    // utterance's part: the code path runs, without a second cold prompt of most of a minute.
    let prompt = smart_proposer::understand::rank::prompt(info.format, &tools, UTTERANCES[0], style);
    let dir = tempfile::tempdir()?;
    let prompt_file = dir.path().join("prompt.txt");
    let raw_prompt = if quick { prompt.rest.clone() } else { format!("{}{}", prompt.prefix, prompt.rest) };
    std::fs::write(&prompt_file, raw_prompt)?;
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

    let static_label =
        if cold.prefix_from_disk > 0 { "static prompt, from the disk cache" } else { "static prompt, cold" };
    if cold.prefix_from_disk > 0 {
        // Restored, not evaluated: a rate in tokens per second would be the disk's, not the model's.
        println!("{static_label}: {} tokens restored in {}", cold.prompt_tokens, ms(cold.prompt_ms));
    } else {
        println!(
            "{static_label}: {} tokens in {} = {:.0} tok/s",
            cold.prompt_tokens,
            ms(cold.prompt_ms),
            f64::from(cold.prompt_tokens) * 1000.0 / cold.prompt_ms.max(0.001)
        );
    }
    println!(
        "per utterance (p50): {:.0} new prompt tokens, {} to restore the cached prompt and build the batch; {:.0} candidate tokens, {} for the one batch that scores them with the prompt",
        rest_tokens.p(0.5),
        ms(prompt_ms.p(0.5)),
        cand_tokens.p(0.5),
        ms(score_ms.p(0.5))
    );
    println!("model proposal (rank request, round trip): p50 {} p90 {}", ms(total.p(0.5)), ms(total.p(0.9)));
    println!(
        "llama.cpp alone, {} cold prompt: {} tokens in {:.0} ms = {:.0} tok/s; {} tokens generated (greedy, no grammar) at {:.1} tok/s",
        if quick { "the utterance's part of the" } else { "the same" },
        f("prompt_tokens"),
        f("prompt_ms"),
        f("prompt_tokens") * 1000.0 / f("prompt_ms").max(0.001),
        f("generated_tokens"),
        f("generated_tokens") * 1000.0 / f("generation_ms").max(0.001)
    );
    s.add("proposer model", format!("{} ({} thread(s), load {} ms)", m.name, info.threads, info.load_ms));
    s.add(static_label, format!("{} for {} tokens", ms(cold.prompt_ms), cold.prompt_tokens));
    s.add("utterance prompt (p50)", format!("{} for {:.0} tokens", ms(prompt_ms.p(0.5)), rest_tokens.p(0.5)));
    s.add("candidate scoring (p50)", format!("{} for {:.0} tokens", ms(score_ms.p(0.5)), cand_tokens.p(0.5)));
    s.add("model proposal p50 / p90", format!("{} / {}", ms(total.p(0.5)), ms(total.p(0.9))));
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
