//! The slow loop as the person and the assistant reach it: proposals into the buffer, the gate
//! controller's reads, memory notes, work orders and bootstrap — each one kernel decision,
//! ledgered like any call — plus the views `smart memory`, `smart decisions`, `smart proposals`
//! and the HUD read, and the history views (gate transitions, sessions) computed from the ledger.
//!
//! It also keeps the continuous evaluator's window of recent turns in the data dir, so that the
//! evaluator sees the same last few turns whether they were typed into one `smart say` after
//! another or spoken into the app. The window is fast memory in the plainest sense: a cache the
//! evaluator reads; what it concludes is ledgered as proposals.

use crate::engine::{CallReport, Engine};
use crate::error::RuntimeError;
use serde::Serialize;
use serde_json::json;
use smart_advisors::{Finding, TurnRecord};
use smart_kernel::bootstrap::{self, BootstrapInput, Snapshot, Stage};
use smart_kernel::gate_controller::Verdict;
use smart_kernel::memory::{
    ArtifactDraft, ArtifactEntry, DecisionRecord, InteractionSignals, NorthStar, Principle, Progress, ProgressUpdate,
    SignalKind,
};
use smart_kernel::status::LeaseView;
use smart_kernel::work_order::WorkOrder;
use smart_kernel::{GateAct, GateProposal, KernelEvent, ReadTrigger, Stance};
use smart_ledger::SessionSummary;
use std::collections::BTreeMap;
use std::path::Path;

/// A bootstrap step as the person sees it: what happened and what SMART says next.
#[derive(Debug, Serialize)]
pub struct BootstrapReply {
    pub report: CallReport,
    pub stage: Option<Stage>,
    /// The next question, if bootstrap asks one.
    pub prompt: Option<String>,
    /// The explicit request to carry out now that the person said "dive in".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proceed_with: Option<String>,
    pub propose_only: bool,
}

/// What SMART remembers: slow memory (the lease, decisions, principles and North Stars, changed
/// only at gates), fast memory (progress, interaction signals), the bridge between them (the
/// artifact index), what waits for the gate controller, the open work orders and bootstrap.
/// `smart memory --json` prints it and the HUD's panel shows it; the UI's type is generated
/// from this one.
#[derive(Clone, Debug, PartialEq, Serialize, ts_rs::TS)]
pub struct MemoryView {
    pub stance: Stance,
    pub slow: SlowMemory,
    pub fast: FastMemory,
    pub bridge: Bridge,
    pub proposals_waiting: Vec<GateProposal>,
    pub work_orders: Vec<WorkOrder>,
    pub bootstrap: Option<BootstrapView>,
}

#[derive(Clone, Debug, PartialEq, Serialize, ts_rs::TS)]
pub struct SlowMemory {
    pub lease: Option<LeaseView>,
    pub decisions: Vec<DecisionRecord>,
    pub principles: BTreeMap<String, Principle>,
    pub north_stars: BTreeMap<String, NorthStar>,
}

#[derive(Clone, Debug, PartialEq, Serialize, ts_rs::TS)]
pub struct FastMemory {
    pub progress: Option<Progress>,
    pub signals: InteractionSignals,
}

#[derive(Clone, Debug, PartialEq, Serialize, ts_rs::TS)]
pub struct Bridge {
    pub artifacts: Vec<ArtifactEntry>,
}

/// Bootstrap while it runs (or once it has): where it stands and what it gathered.
#[derive(Clone, Debug, PartialEq, Serialize, ts_rs::TS)]
pub struct BootstrapView {
    pub stage: Stage,
    /// The next question, if bootstrap asks one.
    pub prompt: Option<String>,
    pub propose_only: bool,
    pub snapshot: Snapshot,
    pub sessions: u32,
    pub abbreviated: bool,
    pub reentered: bool,
}

/// One read of the proposal buffer by the gate controller, from the ledger.
#[derive(Clone, Debug, PartialEq, Serialize, ts_rs::TS)]
pub struct ProposalRead {
    pub seq: u64,
    pub at_ms: u64,
    pub trigger: ReadTrigger,
    /// Every proposal read, with its verdict, in the controller's order.
    pub verdicts: Vec<Verdict>,
}

/// One stance change, from the ledger.
#[derive(Clone, Debug, PartialEq, Serialize, ts_rs::TS)]
pub struct GateTransition {
    pub seq: u64,
    pub at_ms: u64,
    pub from: Stance,
    pub to: Stance,
    pub act: GateAct,
    /// How many slow-memory writes the gate made.
    pub writes: usize,
}

impl Engine {
    /// A gate proposal for the buffer (the kernel stamps its time).
    pub fn propose_gate(&mut self, proposal: GateProposal) -> Result<CallReport, RuntimeError> {
        self.tick()?;
        self.push_proposal(proposal)
    }

    /// Into the buffer without a gateway pass first: the findings of one turn must wait
    /// together, so the controller reads them in one merge.
    fn push_proposal(&mut self, proposal: GateProposal) -> Result<CallReport, RuntimeError> {
        self.refresh()?;
        let now = self.now();
        let d = self.kernel().propose_gate(self.state(), proposal, now)?;
        self.settle(&self.turn_id(), d, now)
    }

    /// The gate controller reads the buffer (end of turn, or the person asked).
    pub fn read_proposals(&mut self, trigger: ReadTrigger) -> Result<CallReport, RuntimeError> {
        self.refresh()?;
        let now = self.now();
        let d = self.kernel().read_proposals(self.state(), trigger, now)?;
        self.settle(&self.turn_id(), d, now)
    }

    pub fn note_progress(&mut self, update: ProgressUpdate) -> Result<CallReport, RuntimeError> {
        self.tick()?;
        let now = self.now();
        let d = self.kernel().note_progress(self.state(), update, now)?;
        self.settle(&self.turn_id(), d, now)
    }

    pub fn note_signal(&mut self, kind: SignalKind, text: &str) -> Result<CallReport, RuntimeError> {
        self.tick()?;
        self.push_signal(kind, text)
    }

    fn push_signal(&mut self, kind: SignalKind, text: &str) -> Result<CallReport, RuntimeError> {
        self.refresh()?;
        let now = self.now();
        let d = self.kernel().note_signal(self.state(), kind, text, now)?;
        self.settle(&self.turn_id(), d, now)
    }

    pub fn register_artifact(
        &mut self,
        artifact: ArtifactDraft,
        work_order: Option<&str>,
    ) -> Result<CallReport, RuntimeError> {
        self.tick()?;
        let now = self.now();
        let d = self.kernel().register_artifact(self.state(), artifact, work_order, now)?;
        self.settle(&self.turn_id(), d, now)
    }

    /// Opens a scoped work order; its id is in the report's `output`.
    pub fn open_work_order(&mut self, brief: &str, tools: &[String]) -> Result<CallReport, RuntimeError> {
        self.tick()?;
        let now = self.now();
        let d = self.kernel().open_work_order(self.state(), brief, tools, now)?;
        let id = d.events.iter().find_map(|e| match e {
            KernelEvent::WorkOrderOpened { order } => Some(order.id.clone()),
            _ => None,
        });
        let mut r = self.settle(&self.turn_id(), d, now)?;
        if let Some(id) = id {
            r.output = Some(json!({ "work_order": id }));
        }
        Ok(r)
    }

    pub fn close_work_order(&mut self, id: &str, reason: &str) -> Result<CallReport, RuntimeError> {
        self.tick()?;
        let now = self.now();
        let d = self.kernel().close_work_order(self.state(), id, reason, now)?;
        self.settle(&self.turn_id(), d, now)
    }

    /// One bootstrap input.
    pub fn bootstrap_step(&mut self, input: BootstrapInput) -> Result<BootstrapReply, RuntimeError> {
        self.tick()?;
        self.step_bootstrap(input)
    }

    /// One input, after the gateway pass the caller made.
    fn step_bootstrap(&mut self, input: BootstrapInput) -> Result<BootstrapReply, RuntimeError> {
        let now = self.now();
        // The request to carry out once bootstrap lets go: the one the person dived into, or
        // a returning person's request given as their check-in answer.
        let checking_in = self.state().bootstrap.as_ref().is_some_and(|b| b.stage == bootstrap::Stage::CheckIn);
        let request = match &input {
            BootstrapInput::DiveIn => self.state().bootstrap.as_ref().and_then(|b| b.intent.clone()),
            BootstrapInput::Intent { text } if checking_in => Some(text.clone()),
            _ => None,
        };
        let d = self.kernel().bootstrap(self.state(), input, now)?;
        let report = self.settle(&self.turn_id(), d, now)?;
        let proceed_with = request.filter(|_| report.outcome != crate::CallOutcome::Refused);
        Ok(self.bootstrap_reply(report, proceed_with))
    }

    /// What the person said while bootstrap listens, read as an input (see
    /// `smart_kernel::bootstrap::interpret`).
    pub fn bootstrap_say(&mut self, text: &str) -> Result<BootstrapReply, RuntimeError> {
        self.tick()?;
        let stage = self.state().bootstrap.as_ref().map(|b| b.stage);
        let input = match stage {
            Some(s) => bootstrap::interpret(s, text),
            None => return Err(RuntimeError::BadInput("bootstrap has not started (`smart bootstrap start`)".into())),
        };
        self.step_bootstrap(input)
    }

    pub fn bootstrap_reply(&self, report: CallReport, proceed_with: Option<String>) -> BootstrapReply {
        let b = self.state().bootstrap.as_ref();
        BootstrapReply {
            report,
            stage: b.map(|b| b.stage),
            prompt: b.and_then(bootstrap::prompt),
            proceed_with,
            propose_only: self.state().bootstrap_restricts(),
        }
    }

    /// Bootstrap at a front end's first opening of a data dir (the app's, once per run): a fresh
    /// ledger (no bootstrap, nothing from before) begins first contact; an unfinished bootstrap
    /// records that a new session picked it up. Anyone else — a returning person, a finished
    /// bootstrap — is left alone (the app's panel offers them the check-in). Returns the input
    /// recorded, if any.
    pub fn greet(&mut self) -> Result<Option<BootstrapInput>, RuntimeError> {
        self.refresh()?;
        let s = self.state();
        let input = match &s.bootstrap {
            None if !s.existing_user() => BootstrapInput::Start,
            Some(b) if b.active() => BootstrapInput::Resume,
            _ => return Ok(None),
        };
        let reply = self.bootstrap_step(input.clone())?;
        if reply.report.outcome == crate::CallOutcome::Refused {
            return Err(RuntimeError::BadInput(reply.report.reason.unwrap_or_else(|| "bootstrap refused".into())));
        }
        Ok(Some(input))
    }

    /// Whether an utterance belongs to bootstrap rather than to a proposer: bootstrap is under
    /// way (the returning user's check-in included).
    pub fn bootstrap_listening(&self) -> bool {
        self.state().bootstrap.as_ref().is_some_and(|b| b.active())
    }

    /// The findings of an advisor handed to the kernel: proposals into the buffer, signals into
    /// fast memory. Returns what was recorded; refusals (a full buffer) are reported, not raised.
    /// One gateway pass first; then every proposal goes in without another, so the gate
    /// controller's next read sees them together, in merge order.
    pub fn apply_findings(&mut self, findings: &[Finding]) -> Result<Vec<CallReport>, RuntimeError> {
        self.tick()?;
        let mut out = Vec::new();
        for f in findings {
            if let Some(p) = &f.proposal {
                out.push(self.push_proposal(p.clone())?);
            }
            if let Some((kind, text)) = &f.signal {
                out.push(self.push_signal(*kind, text)?);
            }
        }
        Ok(out)
    }

    /// What SMART remembers, as `smart memory --json` prints it and the HUD's panel shows it.
    pub fn memory_view(&mut self) -> Result<MemoryView, RuntimeError> {
        self.tick()?;
        let s = self.state();
        let m = &s.memory;
        Ok(MemoryView {
            stance: s.stance,
            slow: SlowMemory {
                lease: smart_kernel::status::lease(s, self.now()),
                decisions: m.decisions().all().to_vec(),
                principles: m.principles().principles().clone(),
                north_stars: m.principles().north_stars().clone(),
            },
            fast: FastMemory { progress: m.progress().cloned(), signals: m.signals().clone() },
            bridge: Bridge { artifacts: m.artifacts().entries().values().cloned().collect() },
            proposals_waiting: m.proposals().peek().into_iter().cloned().collect(),
            work_orders: s.work_orders.values().cloned().collect(),
            bootstrap: s.bootstrap.as_ref().map(|b| BootstrapView {
                stage: b.stage,
                prompt: bootstrap::prompt(b),
                propose_only: b.restricts(),
                snapshot: b.snapshot.clone(),
                sessions: b.sessions,
                abbreviated: b.abbreviated,
                reentered: b.reentered,
            }),
        })
    }

    /// The gate controller's most recent reads, newest first: every proposal with its verdict.
    pub fn proposal_history(&self, limit: usize) -> Result<Vec<ProposalRead>, RuntimeError> {
        Ok(self
            .newest("proposals_read", limit)?
            .iter()
            .filter_map(|row| match row.event() {
                Ok(KernelEvent::ProposalsRead { trigger, verdicts }) => {
                    Some(ProposalRead { seq: row.seq, at_ms: row.at_ms, trigger, verdicts })
                }
                _ => None,
            })
            .collect())
    }

    /// The newest `limit` events of one kind, newest first (the timeline's query).
    fn newest(&self, kind: &str, limit: usize) -> Result<Vec<smart_ledger::StoredEvent>, RuntimeError> {
        let filter = smart_ledger::EventFilter { kinds: vec![kind.to_string()], ..Default::default() };
        Ok(self.ledger().page(&filter, 0, limit)?)
    }

    /// Gate transitions, newest first — seed 001's `gates.json`, read from the ledger (history is
    /// audit only, never state).
    pub fn gate_history(&self, limit: usize) -> Result<Vec<GateTransition>, RuntimeError> {
        Ok(self
            .newest("stance_changed", limit)?
            .iter()
            .filter_map(|row| match row.event() {
                Ok(KernelEvent::StanceChanged { from, to, act, writes }) => {
                    Some(GateTransition { seq: row.seq, at_ms: row.at_ms, from, to, act, writes: writes.len() })
                }
                _ => None,
            })
            .collect())
    }

    /// Sessions, newest first — seed 001's `sessions.json`, computed from the ledger (history is
    /// audit only, never state). `quiet_gap_ms` without an event ends one.
    pub fn session_history(&self, quiet_gap_ms: u64, limit: usize) -> Result<Vec<SessionSummary>, RuntimeError> {
        Ok(self.ledger().sessions(quiet_gap_ms, limit)?)
    }
}

/// Half an hour without an event ends a session: long enough that reading a file or taking a
/// call does not split one, short enough that a morning and an afternoon are two.
pub const SESSION_QUIET_GAP_MS: u64 = 30 * 60 * 1000;

/// The continuous evaluator's window, kept in the data dir.
pub struct TurnWindow {
    turns: Vec<TurnRecord>,
}

impl TurnWindow {
    /// Loads the window; a missing or unreadable file is an empty window (it is a cache).
    pub fn load(path: &Path) -> TurnWindow {
        let turns = std::fs::read_to_string(path)
            .ok()
            .and_then(|t| serde_json::from_str::<Vec<TurnRecord>>(&t).ok())
            .unwrap_or_default();
        TurnWindow { turns }
    }

    pub fn turns(&self) -> &[TurnRecord] {
        &self.turns
    }

    pub fn push(&mut self, turn: TurnRecord) {
        self.turns.push(turn);
        let extra = self.turns.len().saturating_sub(smart_advisors::evaluator::WINDOW);
        self.turns.drain(..extra);
    }

    /// Writes the window beside itself and renames it in, so a crash leaves the old one.
    pub fn save(&self, path: &Path) -> Result<(), RuntimeError> {
        let tmp = path.with_extension("json.tmp");
        let text = serde_json::to_string(&self.turns).map_err(|e| RuntimeError::BadInput(e.to_string()))?;
        std::fs::write(&tmp, text).map_err(|e| RuntimeError::Io { path: tmp.clone(), reason: e.to_string() })?;
        std::fs::rename(&tmp, path).map_err(|e| RuntimeError::Io { path: path.to_path_buf(), reason: e.to_string() })
    }
}
