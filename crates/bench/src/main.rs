//! `smart-bench`: what SMART's guarantees cost, in numbers.
//!
//! SMART puts a deterministic kernel in front of every tool call and writes every decision to an
//! append-only, hash-chained, signed SQLite ledger before anything runs. Those two choices are
//! the product's trust story, and they are also the two places where it could be slow. This
//! binary measures them, so that claims in notes and issues ("admission is negligible next to a
//! model's latency", "the ledger is as fast as the disk lets it be", "verify of a year of use
//! takes seconds") rest on figures taken on a named machine rather than on intuition:
//!
//! 1. **Admission.** Every call, from the model or the person, passes `Kernel::propose`: schema
//!    validation against the real tool registry, path resolution and root confinement, scope,
//!    stance, plus-one, time gate, budget and monotone checks, then the events are applied to
//!    state. Its latency bounds how chatty an agent can be and tells us whether the kernel can
//!    ever be the bottleneck (a model turn takes hundreds of milliseconds). The refusal path is
//!    measured too: refusals must stay cheap, since an adversarial or confused proposer produces
//!    them in bulk. Because the kernel state is cloned and hashed whole, we also show how the cost
//!    grows with the work admitted in one lease epoch.
//! 2. **Durable append.** An append is one transaction with `synchronous=FULL`, so its floor is
//!    the disk's fsync. Comparing `Ledger::append` with bare SQLite inserts of the same rows into
//!    the same schema, on the same disk, in the same run, separates what durability costs (the
//!    disk's, unavoidable) from what the chain costs (canonical JSON, blake3 chain hash, seal,
//!    Ed25519 head signature, tail check — ours, and worth knowing).
//! 3. **Verify and replay.** `smart ledger verify` re-walks the whole chain and `replay` rebuilds
//!    kernel state from events alone, recomputing every state hash. Their throughput on a
//!    million-event ledger says how long an audit takes as history accumulates, and whether
//!    opening a ledger without a snapshot stays tolerable.
//! 4. **Proposal latency.** One utterance through the model worker: prompt evaluation with a cold
//!    and with a cached static prefix, grammar-constrained generation, and the same prompt
//!    through llama.cpp alone for comparison (needs the default model in the models folder).
//! 5. **The index (RAG++).** A generated home folder (50,000 files by default) indexed whole,
//!    re-synced with and without changes, and queried: files/s, index size, query percentiles
//!    (`index.rs`).
//!
//! Nothing here asserts a speed; the figures are measurements, printed with the machine they were
//! taken on. What is asserted (as errors, not panics) is correctness: every planned call is
//! admitted, every refusal is the expected one, and the generated ledger verifies and replays to
//! the state the kernel ended in. `--quick` shrinks every count so the whole run takes seconds;
//! CI runs it to keep this code compiling and working, not for its numbers.

mod admit;
mod append;
mod chain;
mod index;
mod proposer;
mod sim;
mod slow;
mod stats;
mod voice;

use anyhow::{Context, Result, bail};
use stats::int;
use std::path::{Path, PathBuf};
use std::time::Instant;

const USAGE: &str = "usage: smart-bench [--quick] [--events N] [--admissions N] [--appends N] [--probe N] [--epoch K] [--index-files N] [--dir PATH] [--only admit,append,chain,proposer,voice,index,slow]

  --quick          small counts everywhere (2,000 admissions, 200 appends, 20,000 ledger events); seconds
  --events N       events in the verify/replay ledger (default 1,000,000)
  --admissions N   calls in the admission latency runs (default 100,000)
  --appends N      events appended one per transaction (default 2,000; the batched run uses 10x)
  --probe N        calls in the one-epoch growth probe (default 20,000)
  --epoch K        fs.hash calls per lease epoch (default 200, the default policy's max_steps; 0 = never rotate)
  --index-files N  files in the generated tree the index section indexes (default 50,000; 2,000 with --quick)
  --dir PATH       where the temporary SQLite files go (default: the system temp dir)
  --only LIST      run only these sections (admit, append, chain, proposer, voice, index, slow)";

/// The rows of the final markdown table.
#[derive(Default)]
pub struct Summary {
    rows: Vec<(String, String)>,
}

impl Summary {
    pub fn add(&mut self, metric: &str, value: String) {
        self.rows.push((metric.to_string(), value));
    }
}

struct Args {
    quick: bool,
    events: Option<u64>,
    admissions: Option<u64>,
    appends: Option<u64>,
    probe: Option<u64>,
    epoch: u64,
    index_files: Option<u64>,
    dir: Option<PathBuf>,
    only: Option<Vec<String>>,
}

fn parse_args() -> Result<Option<Args>> {
    let mut a = Args {
        quick: false,
        events: None,
        admissions: None,
        appends: None,
        probe: None,
        epoch: 200,
        index_files: None,
        dir: None,
        only: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().with_context(|| format!("{flag} needs a value\n{USAGE}"));
        let mut number = || -> Result<u64> {
            let v = value()?;
            v.replace(['_', ','], "").parse::<u64>().with_context(|| format!("{flag}: {v:?} is not a whole number"))
        };
        match flag.as_str() {
            "--quick" => a.quick = true,
            "--events" => a.events = Some(number()?),
            "--admissions" => a.admissions = Some(number()?),
            "--appends" => a.appends = Some(number()?),
            "--probe" => a.probe = Some(number()?),
            "--epoch" => a.epoch = number()?,
            "--index-files" => a.index_files = Some(number()?),
            "--dir" => a.dir = Some(PathBuf::from(value()?)),
            "--only" => a.only = Some(value()?.split(',').map(|s| s.trim().to_string()).collect()),
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(None);
            }
            other => bail!("unknown argument {other:?}\n{USAGE}"),
        }
    }
    if let Some(only) = &a.only
        && let Some(bad) = only
            .iter()
            .find(|s| !matches!(s.as_str(), "admit" | "append" | "chain" | "proposer" | "voice" | "index" | "slow"))
    {
        bail!("--only: unknown section {bad:?} (admit, append, chain, proposer, voice, index, slow)");
    }
    Ok(Some(a))
}

/// The CPU model, from /proc/cpuinfo where there is one.
fn cpu() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|t| {
        t.lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split_once(':'))
            .map(|(_, m)| m.trim().to_string())
    });
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    format!("{}, {cores} cores", model.unwrap_or_else(|| std::env::consts::ARCH.to_string()))
}

/// The filesystem `dir` lives on, from /proc/mounts (longest matching mount point).
fn filesystem(dir: &Path) -> String {
    let Ok(mounts) = std::fs::read_to_string("/proc/mounts") else {
        return "unknown filesystem".into();
    };
    let dir = dunce::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    mounts
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let (dev, mnt, fs) = (f.next()?, f.next()?, f.next()?);
            dir.starts_with(mnt).then(|| (mnt.len(), format!("{fs} ({dev} on {mnt})")))
        })
        .max_by_key(|(len, _)| *len)
        .map(|(_, s)| s)
        .unwrap_or_else(|| "unknown filesystem".into())
}

fn main() -> Result<()> {
    let Some(args) = parse_args()? else {
        return Ok(());
    };
    let quick = args.quick;
    let events = args.events.unwrap_or(if quick { 20_000 } else { 1_000_000 });
    let admissions = args.admissions.unwrap_or(if quick { 2_000 } else { 100_000 });
    let appends = args.appends.unwrap_or(if quick { 200 } else { 2_000 });
    let batched = (appends * 10).max(100);
    let probe = args.probe.unwrap_or(if quick { 1_000 } else { 20_000 });
    let run = |s: &str| args.only.as_ref().is_none_or(|o| o.iter().any(|x| x == s));

    let base = args.dir.clone().unwrap_or_else(std::env::temp_dir);
    let tmp = tempfile::Builder::new()
        .prefix("smart-bench-")
        .tempdir_in(&base)
        .with_context(|| format!("a temp dir in {}", base.display()))?;
    let machine = cpu();
    let fs = filesystem(tmp.path());
    println!("smart-bench{}: {machine}; files on {fs}", if quick { " --quick" } else { "" });
    println!(
        "counts: {} admissions, {} appends (+{} batched), {} ledger events, {} growth-probe calls; lease epoch {}",
        int(admissions),
        int(appends),
        int(batched),
        int(events),
        int(probe),
        if args.epoch == 0 { "unbounded".to_string() } else { format!("{} calls", args.epoch) }
    );

    let started = Instant::now();
    let mut s = Summary::default();
    if run("admit") {
        admit::admitted(admissions, args.epoch, &mut s)?;
        admit::refused(admissions, &mut s)?;
        admit::growth(probe, &mut s)?;
    }
    if run("append") {
        append::run(appends, batched, args.epoch, tmp.path(), &mut s)?;
    }
    if run("chain") {
        chain::run(events, args.epoch, tmp.path(), &mut s)?;
    }
    if run("proposer") {
        proposer::run(quick, &mut s)?;
    }
    if run("voice") {
        voice::run(quick, &mut s)?;
    }
    if run("index") {
        let files = args.index_files.unwrap_or(if quick { 2_000 } else { 50_000 });
        index::run(files, quick, tmp.path(), &mut s)?;
    }

    if run("slow") {
        slow::run(quick, &mut s)?;
    }

    println!("\n== summary ==\n");
    println!(
        "smart-bench{} — {machine}; SQLite files on {fs}; lease epoch {} calls; total run {:.1} s\n",
        if quick { " --quick" } else { "" },
        args.epoch,
        started.elapsed().as_secs_f64()
    );
    println!("| metric | value |");
    println!("|---|---|");
    for (m, v) in &s.rows {
        println!("| {m} | {v} |");
    }
    Ok(())
}
