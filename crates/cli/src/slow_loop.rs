//! `smart decisions|memory|sessions|proposals|progress|note|artifact|work|bootstrap` and the write flags
//! of `smart gate`: the slow loop from a terminal. Each write is a kernel decision, so each
//! prints the kernel's outcome and exits 3 when it was refused.

use crate::cli::{Args, call_args, open};
use crate::output::{exit_code, pretty, print_json, print_report, wire};
use anyhow::{Result, anyhow};
use clap::{Args as ClapArgs, Subcommand};
use serde_json::json;
use smart_kernel::bootstrap::{BootstrapInput, Consent};
use smart_kernel::memory::*;
use smart_kernel::time::parse_duration;
use smart_kernel::{CallSource, GateAct, GateProposal, GateSource, ReadTrigger, Severity, SuggestedGate};
use smart_runtime::CallOutcome;

/// The slow-memory writes a gate pass can carry.
#[derive(ClapArgs, Debug, Default)]
pub struct WriteArgs {
    /// Record a decision (framing: one that locks the frame; commitment: a binding one;
    /// evaluation: it must name what it --supersedes).
    #[arg(long)]
    decision: Option<String>,
    #[arg(long = "rationale", requires = "decision")]
    rationale: Vec<String>,
    #[arg(long, requires = "decision", default_value = "")]
    tradeoffs: String,
    #[arg(long, requires = "decision", default_value = "med")]
    confidence: String,
    #[arg(long = "revisit", requires = "decision")]
    revisit: Vec<String>,
    #[arg(long, requires = "decision")]
    supersedes: Option<u64>,
    /// A principle, NAME=TEXT (evaluation gate only).
    #[arg(long)]
    principle: Option<String>,
    #[arg(long, requires = "principle", default_value = "constraint")]
    principle_kind: String,
    #[arg(long)]
    retire_principle: Option<String>,
    /// Ratify a North Star, NAME=TEXT (framing gate).
    #[arg(long)]
    north_star: Option<String>,
    /// Initialize (commitment) or reset (evaluation) the progress state at this stage.
    #[arg(long)]
    stage: Option<String>,
    #[arg(long = "next", requires = "stage")]
    next: Vec<String>,
    /// How long before progress is reconsidered, e.g. 2h.
    #[arg(long, requires = "stage")]
    staleness: Option<String>,
    /// An artifact's status, POINTER=draft|review|final|deprecated (evaluation gate; repeatable).
    #[arg(long = "artifact-status")]
    artifact_status: Vec<String>,
}

fn pair(text: &str, what: &str) -> Result<(String, String)> {
    text.split_once('=')
        .map(|(a, b)| (a.trim().to_string(), b.trim().to_string()))
        .filter(|(a, b)| !a.is_empty() && !b.is_empty())
        .ok_or_else(|| anyhow!("{what} is NAME=TEXT, got {text:?}"))
}

impl WriteArgs {
    /// The writes, shaped for the gate they go with (the kernel judges whether it allows them).
    pub fn to_writes(&self, act: GateAct) -> Result<Vec<SlowWrite>> {
        let mut out = Vec::new();
        let evaluation = matches!(act, GateAct::Evaluate | GateAct::Renew | GateAct::Revise | GateAct::Release);
        if let Some(text) = &self.decision {
            let decision = DecisionDraft {
                decision: text.clone(),
                rationale: if self.rationale.is_empty() { vec![text.clone()] } else { self.rationale.clone() },
                tradeoffs: self.tradeoffs.clone(),
                confidence: self.confidence.parse().map_err(|e: String| anyhow!("--confidence: {e}"))?,
                revisit_triggers: self.revisit.clone(),
                supersedes: self.supersedes,
            };
            out.push(match act {
                GateAct::Framing => SlowWrite::FrameDecision { decision },
                GateAct::Commitment => SlowWrite::BindingDecision { decision },
                _ => SlowWrite::Supersede { decision },
            });
        }
        if let Some(p) = &self.principle {
            let (name, text) = pair(p, "--principle")?;
            let kind = self.principle_kind.parse().map_err(|e: String| anyhow!("--principle-kind: {e}"))?;
            out.push(SlowWrite::Principle { name, kind, text });
        }
        if let Some(name) = &self.retire_principle {
            out.push(SlowWrite::RetirePrinciple { name: name.clone() });
        }
        if let Some(n) = &self.north_star {
            let (name, text) = pair(n, "--north-star")?;
            out.push(SlowWrite::NorthStar { name, text });
        }
        if let Some(stage) = &self.stage {
            let staleness_ms = match &self.staleness {
                Some(d) => parse_duration(d).map_err(|e| anyhow!("--staleness: {e}"))?,
                None => smart_kernel::memory::progress::DEFAULT_STALENESS_MS,
            };
            let progress = ProgressInit { current_stage: stage.clone(), next_actions: self.next.clone(), staleness_ms };
            out.push(if evaluation {
                SlowWrite::ProgressReset { progress }
            } else {
                SlowWrite::ProgressInit { progress }
            });
        }
        for a in &self.artifact_status {
            let (pointer, status) = pair(a, "--artifact-status")?;
            let status = status.parse().map_err(|e: String| anyhow!("--artifact-status: {e}"))?;
            out.push(SlowWrite::ArtifactStatus { pointer, status });
        }
        Ok(out)
    }
}

#[derive(Subcommand, Debug)]
pub enum ProposalsCmd {
    /// What waits for the gate controller, and its recent verdicts.
    List {
        #[arg(long, default_value_t = 10)]
        limit: usize,
    },
    /// Propose a gate as the person (source user_signal).
    Add {
        #[arg(long, value_parser = ["framing", "commitment", "evaluation"])]
        gate: String,
        #[arg(long, value_parser = ["low", "medium", "high", "emergency"], default_value = "medium")]
        severity: String,
        reason: String,
    },
    /// Ask the gate controller to read the buffer now.
    Read,
}

#[derive(Subcommand, Debug)]
pub enum ArtifactCmd {
    /// Register (or re-register: a new version) an artifact by pointer.
    Register {
        #[arg(long)]
        name: String,
        #[arg(long = "type", default_value = "doc")]
        kind: String,
        #[arg(long)]
        pointer: String,
        #[arg(long = "depends-on")]
        dependencies: Vec<String>,
        /// Register it for this open work order instead of the person.
        #[arg(long)]
        work_order: Option<String>,
    },
    List,
}

#[derive(Subcommand, Debug)]
pub enum WorkCmd {
    /// Open a work order under the active lease with some of its tools (comma-separated).
    Open {
        brief: String,
        #[arg(long, value_delimiter = ',', required = true)]
        tools: Vec<String>,
    },
    /// Propose a call as the work order.
    Call {
        id: String,
        tool: String,
        /// The arguments as JSON, or `-` to read them from standard input.
        #[arg(long)]
        args: String,
    },
    /// A gate proposal from the work order (source task_agent).
    Propose {
        id: String,
        #[arg(long, value_parser = ["framing", "commitment", "evaluation"])]
        gate: String,
        #[arg(long, value_parser = ["low", "medium", "high", "emergency"], default_value = "medium")]
        severity: String,
        reason: String,
    },
    Close {
        id: String,
        #[arg(long, default_value = "done")]
        reason: String,
    },
    List,
}

#[derive(Subcommand, Debug)]
pub enum BootstrapCmd {
    /// Where bootstrap stands and what it asks next.
    Status,
    /// Begin (first contact; a light check-in when there is context from before).
    Start,
    /// Answer bootstrap's question (read as an answer, an explicit request, or consent).
    Say { text: String },
    /// Leave bootstrap now.
    Skip,
    /// Say how to go on: listen, structure, or ready.
    Consent { consent: String },
    /// A new session picks bootstrap up where it was.
    Resume,
}

/// A gate and a severity as words (clap has already limited them to the names these read).
fn gate_and_severity(gate: &str, severity: &str) -> Result<(SuggestedGate, Severity)> {
    let g: SuggestedGate = gate.parse().map_err(|e: String| anyhow!("--gate: {e}"))?;
    let s: Severity = severity.parse().map_err(|e: String| anyhow!("--severity: {e}"))?;
    Ok((g, s))
}

pub fn decisions(args: &Args, all: bool) -> Result<i32> {
    let mut e = open(args)?;
    e.tick()?;
    let log = e.state().memory.decisions();
    let shown: Vec<&DecisionRecord> = log.all().iter().filter(|d| all || d.superseded_by.is_none()).collect();
    if args.json {
        print_json(&json!({ "decisions": shown }));
        return Ok(0);
    }
    if shown.is_empty() {
        say!("no decisions yet (they are recorded at gates: `smart gate commitment --decision ...`)");
    }
    for d in shown {
        let sup = d.superseded_by.map(|s| format!("  [superseded by {s}]")).unwrap_or_default();
        say!(
            "{:>3}. {} ({:?}, {} gate, confidence {:?}){sup}",
            d.id,
            d.draft.decision,
            d.kind,
            d.gate,
            d.draft.confidence
        );
        for r in &d.draft.rationale {
            say!("     because {r}");
        }
        if !d.draft.tradeoffs.is_empty() {
            say!("     gave up {}", d.draft.tradeoffs);
        }
        if let Some(s) = d.draft.supersedes {
            say!("     supersedes {s}");
        }
    }
    Ok(0)
}

pub fn memory(args: &Args) -> Result<i32> {
    let mut e = open(args)?;
    let v = e.memory_view()?;
    if args.json {
        print_json(&v);
        return Ok(0);
    }
    say!("stance: {}", v.stance);
    say!("slow memory (gate-written):\n{}", pretty(&v.slow));
    say!("fast memory (decays):\n{}", pretty(&v.fast));
    say!("bridge (artifact index):\n{}", pretty(&v.bridge));
    say!("proposals waiting: {}", v.proposals_waiting.len());
    say!("work orders open: {}", v.work_orders.len());
    if let Some(b) = &v.bootstrap {
        say!("bootstrap:\n{}", pretty(b));
    }
    Ok(0)
}

pub fn sessions(args: &Args, limit: usize, gap: &str) -> Result<i32> {
    let gap_ms = parse_duration(gap).map_err(|e| anyhow!("--gap: {e}"))?;
    if gap_ms == 0 {
        return Err(anyhow!("--gap must be longer than 0 (every event would be a session of its own)"));
    }
    let e = open(args)?;
    let sessions = e.session_history(gap_ms, limit)?;
    if args.json {
        print_json(&json!({ "quiet_gap_ms": gap_ms, "sessions": sessions }));
        return Ok(0);
    }
    for s in &sessions {
        let mut did = vec![format!("{} committed", s.committed), format!("{} refused", s.refused)];
        let counted = [
            (s.asked, "asked for approval"),
            (s.approved, "approved"),
            (s.denied, "denied"),
            (s.undone, "undone"),
            (s.failed, "failed"),
            (s.gates, if s.gates == 1 { "gate transition" } else { "gate transitions" }),
            (s.emergencies, if s.emergencies == 1 { "emergency stop" } else { "emergency stops" }),
        ];
        did.extend(counted.iter().filter(|(n, _)| *n > 0).map(|(n, what)| format!("{n} {what}")));
        say!(
            "{} → {} ({}), events {}–{}: {}",
            utc_minute(s.start_ms),
            utc_minute(s.end_ms),
            smart_kernel::time::format_duration(s.end_ms - s.start_ms),
            s.first_seq,
            s.last_seq,
            did.join(", ")
        );
    }
    Ok(0)
}

/// `2026-11-23 09:12 UTC`: the kernel's milliseconds as a calendar minute, without a time zone
/// database (Howard Hinnant's days-to-civil).
fn utc_minute(ms: u64) -> String {
    let days = (ms / 86_400_000) as i64;
    let minute_of_day = (ms % 86_400_000) / 60_000;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02} UTC", minute_of_day / 60, minute_of_day % 60)
}

pub fn proposals(args: &Args, cmd: Option<&ProposalsCmd>) -> Result<i32> {
    let mut e = open(args)?;
    match cmd.unwrap_or(&ProposalsCmd::List { limit: 10 }) {
        ProposalsCmd::List { limit } => {
            // Looking does not read: the gateway pass would, so this peeks without a tick.
            e.refresh()?;
            let waiting: Vec<GateProposal> = e.state().memory.proposals().peek().into_iter().cloned().collect();
            let history = e.proposal_history(*limit)?;
            if args.json {
                print_json(&json!({ "waiting": waiting, "reads": history }));
                return Ok(0);
            }
            say!("waiting: {}", waiting.len());
            for p in &waiting {
                say!("  {:?} {:?} from {:?}: {}", p.suggested_gate, p.severity, p.source, p.reason);
            }
            for read in &history {
                say!("read at event {} ({}):", read.seq, wire(&read.trigger));
                for v in &read.verdicts {
                    say!(
                        "  {:<8} {} ({} {}): {}",
                        wire(&v.verdict),
                        v.proposal.reason,
                        wire(&v.proposal.source),
                        wire(&v.proposal.severity),
                        v.reason
                    );
                }
            }
            Ok(0)
        }
        ProposalsCmd::Add { gate, severity, reason } => {
            let (g, sev) = gate_and_severity(gate, severity)?;
            let p = GateProposal::new(GateSource::UserSignal, g, sev, reason.clone(), e.now()).with_origin("person");
            let r = e.propose_gate(p)?;
            print_report(&r, "gate proposal", args.json);
            Ok(exit_code(&r))
        }
        ProposalsCmd::Read => {
            let r = e.read_proposals(ReadTrigger::Request)?;
            print_report(&r, "proposal read", args.json);
            if !args.json {
                say!("stance: {}", e.state().stance);
            }
            Ok(exit_code(&r))
        }
    }
}

pub fn progress(
    args: &Args,
    stage: &Option<String>,
    next: &[String],
    blockers: &[String],
    unblocked: bool,
    win: &Option<String>,
) -> Result<i32> {
    let update = ProgressUpdate {
        current_stage: stage.clone(),
        next_actions: (!next.is_empty()).then(|| next.to_vec()),
        blockers: if unblocked { Some(vec![]) } else { (!blockers.is_empty()).then(|| blockers.to_vec()) },
        win: win.clone(),
    };
    let mut e = open(args)?;
    let r = e.note_progress(update)?;
    print_report(&r, "progress", args.json);
    Ok(exit_code(&r))
}

pub fn note(args: &Args, kind: &str, text: &str) -> Result<i32> {
    let kind: SignalKind = kind.parse().map_err(|e: String| anyhow!("{e}"))?;
    let mut e = open(args)?;
    let r = e.note_signal(kind, text)?;
    print_report(&r, "signal", args.json);
    Ok(exit_code(&r))
}

pub fn artifact(args: &Args, cmd: &ArtifactCmd) -> Result<i32> {
    let mut e = open(args)?;
    match cmd {
        ArtifactCmd::Register { name, kind, pointer, dependencies, work_order } => {
            let draft = ArtifactDraft {
                name: name.clone(),
                kind: kind.parse().map_err(|e: String| anyhow!("--type: {e}"))?,
                pointer: pointer.clone(),
                dependencies: dependencies.clone(),
            };
            let r = e.register_artifact(draft, work_order.as_deref())?;
            print_report(&r, "artifact", args.json);
            Ok(exit_code(&r))
        }
        ArtifactCmd::List => {
            e.tick()?;
            let entries: Vec<&ArtifactEntry> = e.state().memory.artifacts().entries().values().collect();
            if args.json {
                print_json(&json!({ "artifacts": entries }));
            } else if entries.is_empty() {
                say!("the artifact index is empty");
            } else {
                for a in entries {
                    say!(
                        "{} ({:?}, {:?}, v{}, {:?}, by {}): {}",
                        a.draft.name,
                        a.draft.kind,
                        a.status,
                        a.version,
                        a.freshness,
                        a.owner,
                        a.draft.pointer
                    );
                }
            }
            Ok(0)
        }
    }
}

pub fn work(args: &Args, cmd: &WorkCmd) -> Result<i32> {
    let mut e = open(args)?;
    match cmd {
        WorkCmd::Open { brief, tools } => {
            let r = e.open_work_order(brief, tools)?;
            print_report(&r, "work order", args.json);
            Ok(exit_code(&r))
        }
        WorkCmd::Call { id, tool, args: raw } => {
            let value = call_args(raw)?;
            let r = e.call_as(tool, value, CallSource::Script, Some(id.clone()))?;
            print_report(&r, tool, args.json);
            Ok(exit_code(&r))
        }
        WorkCmd::Propose { id, gate, severity, reason } => {
            let (g, sev) = gate_and_severity(gate, severity)?;
            let p = GateProposal::new(GateSource::TaskAgent, g, sev, reason.clone(), e.now()).with_origin(id.clone());
            let r = e.propose_gate(p)?;
            print_report(&r, "gate proposal", args.json);
            Ok(exit_code(&r))
        }
        WorkCmd::Close { id, reason } => {
            let r = e.close_work_order(id, reason)?;
            print_report(&r, "work order", args.json);
            Ok(exit_code(&r))
        }
        WorkCmd::List => {
            e.tick()?;
            let orders: Vec<_> = e.state().work_orders.values().collect();
            if args.json {
                print_json(&json!({ "work_orders": orders }));
            } else if orders.is_empty() {
                say!("no work order is open");
            } else {
                for o in orders {
                    let tools: Vec<&str> = o.tools.iter().map(String::as_str).collect();
                    say!("{}: {} (tools: {})", o.id, o.brief, tools.join(", "));
                }
            }
            Ok(0)
        }
    }
}

pub fn bootstrap(args: &Args, cmd: Option<&BootstrapCmd>) -> Result<i32> {
    let mut e = open(args)?;
    let reply = match cmd.unwrap_or(&BootstrapCmd::Status) {
        BootstrapCmd::Status => {
            e.tick()?;
            let r = smart_runtime::CallReport::bare(CallOutcome::Recorded);
            e.bootstrap_reply(r, None)
        }
        BootstrapCmd::Start => e.bootstrap_step(BootstrapInput::Start)?,
        BootstrapCmd::Say { text } => e.bootstrap_say(text)?,
        BootstrapCmd::Skip => e.bootstrap_step(BootstrapInput::Skip)?,
        BootstrapCmd::Consent { consent } => {
            let consent: Consent = consent.parse().map_err(|e: String| anyhow!("{e}"))?;
            e.bootstrap_step(BootstrapInput::Consent { consent })?
        }
        BootstrapCmd::Resume => e.bootstrap_step(BootstrapInput::Resume)?,
    };
    if args.json {
        print_json(&reply);
        return Ok(exit_code(&reply.report));
    }
    if reply.report.outcome == CallOutcome::Refused {
        print_report(&reply.report, "bootstrap", false);
        return Ok(exit_code(&reply.report));
    }
    match (reply.stage, &reply.prompt) {
        (None, _) => say!("bootstrap has not started (`smart bootstrap start`)"),
        (Some(stage), Some(p)) => say!("[{}] {p}", stage.name()),
        (Some(stage), None) => say!("[{}]", stage.name()),
    }
    if let Some(i) = &reply.proceed_with {
        say!("next: carry it out with `smart say {i:?}`");
    }
    if reply.propose_only {
        say!("(propose-only until you say you are ready)");
    }
    Ok(exit_code(&reply.report))
}
