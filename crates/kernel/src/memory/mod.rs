//! The agent's memory (seed 001): durable state that stabilizes past choices and never
//! initiates anything.
//!
//! | tier | what | written by | module |
//! |---|---|---|---|
//! | slow | commitment lease (in `KernelState::lease`), decision log, principles, North Stars | gate events only | [`decision_log`], [`principles`] |
//! | fast | progress state, interaction signals | the fast loop, continuously; decays | [`progress`], [`signals`] |
//! | bridge | artifact index (pointers, not content) | registered agents; status at the evaluation gate | [`artifact_index`] |
//! | history | sessions, gate transitions | — it is the ledger itself | — |
//!
//! [`write_policy`] is the table that says which gate may write what. The proposal buffer lives
//! here too: it is where everything that may not write memory leaves its suggestions.
//!
//! Everything is part of [`crate::KernelState`] and so of its hash; every field is left out of
//! the canonical JSON while empty, so ledgers recorded before memory existed replay to the same
//! hashes.

pub mod artifact_index;
pub mod decision_log;
pub mod principles;
pub mod progress;
pub mod signals;
pub mod write_policy;

pub use artifact_index::{ArtifactDraft, ArtifactEntry, ArtifactIndex, ArtifactKind, ArtifactStatus, Freshness};
pub use decision_log::{Confidence, DecisionDraft, DecisionKind, DecisionLog, DecisionRecord};
pub use principles::{NorthStar, Principle, PrincipleKind, Principles};
pub use progress::{Progress, ProgressInit, ProgressUpdate};
pub use signals::{InteractionSignals, SignalKind};
pub use write_policy::{SlowWrite, WriteKind};

use crate::gate_proposal::ProposalBuffer;
use crate::stance::GateAct;
use crate::time::Millis;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Memory {
    #[serde(default, skip_serializing_if = "ProposalBuffer::is_empty")]
    pub(crate) proposals: ProposalBuffer,
    #[serde(default, skip_serializing_if = "DecisionLog::is_empty")]
    pub(crate) decisions: DecisionLog,
    #[serde(default, skip_serializing_if = "Principles::is_empty")]
    pub(crate) principles: Principles,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) progress: Option<Progress>,
    #[serde(default, skip_serializing_if = "InteractionSignals::is_empty")]
    pub(crate) signals: InteractionSignals,
    #[serde(default, skip_serializing_if = "ArtifactIndex::is_empty")]
    pub(crate) artifacts: ArtifactIndex,
}

impl Memory {
    pub fn is_empty(&self) -> bool {
        *self == Memory::default()
    }

    pub fn proposals(&self) -> &ProposalBuffer {
        &self.proposals
    }

    pub fn decisions(&self) -> &DecisionLog {
        &self.decisions
    }

    pub fn principles(&self) -> &Principles {
        &self.principles
    }

    pub fn progress(&self) -> Option<&Progress> {
        self.progress.as_ref()
    }

    pub fn signals(&self) -> &InteractionSignals {
        &self.signals
    }

    pub fn artifacts(&self) -> &ArtifactIndex {
        &self.artifacts
    }

    /// Whether `write` may be applied at gate `act` now: the table, then the write's content.
    pub fn check_write(&self, act: GateAct, write: &SlowWrite) -> Result<(), String> {
        let kind = write.kind();
        if !write_policy::allowed(act, kind) {
            return Err(write_policy::forbidden_reason(act, kind));
        }
        match write {
            SlowWrite::FrameDecision { decision } => self.decisions.check(DecisionKind::Frame, decision),
            SlowWrite::BindingDecision { decision } => self.decisions.check(DecisionKind::Binding, decision),
            SlowWrite::Supersede { decision } => self.decisions.check(DecisionKind::Supersession, decision),
            SlowWrite::Principle { name, text, .. } => self.principles.check_principle(name, text),
            SlowWrite::RetirePrinciple { name } => {
                if self.principles.principles().contains_key(name.trim()) {
                    Ok(())
                } else {
                    Err(format!("there is no principle named {name:?}"))
                }
            }
            SlowWrite::NorthStar { name, text } => self.principles.check_north_star(name, text),
            SlowWrite::ProgressInit { progress } | SlowWrite::ProgressReset { progress } => progress.check(),
            SlowWrite::ArtifactStatus { pointer, .. } => {
                if self.artifacts.get(pointer).is_some() {
                    Ok(())
                } else {
                    Err(format!("no artifact {pointer:?} is registered"))
                }
            }
        }
    }

    /// Applies writes one after the other, each checked against what the previous left (two
    /// supersessions of the same decision in one gate pass: the second is refused).
    pub(crate) fn write(&mut self, act: GateAct, writes: &[SlowWrite], at: Millis) -> Result<(), String> {
        for w in writes {
            self.check_write(act, w)?;
            match w {
                SlowWrite::FrameDecision { decision } => {
                    self.decisions.append(DecisionKind::Frame, decision.clone(), act, at);
                }
                SlowWrite::BindingDecision { decision } => {
                    self.decisions.append(DecisionKind::Binding, decision.clone(), act, at);
                }
                SlowWrite::Supersede { decision } => {
                    self.decisions.append(DecisionKind::Supersession, decision.clone(), act, at);
                }
                SlowWrite::Principle { name, kind, text } => self.principles.set_principle(name, *kind, text, at),
                SlowWrite::RetirePrinciple { name } => {
                    self.principles.retire_principle(name);
                }
                SlowWrite::NorthStar { name, text } => {
                    self.principles.ratify_north_star(name, text, at);
                }
                SlowWrite::ProgressInit { progress } | SlowWrite::ProgressReset { progress } => {
                    self.progress = Some(Progress::init(progress, at));
                }
                SlowWrite::ArtifactStatus { pointer, status } => {
                    self.artifacts.set_status(pointer, *status, at);
                }
            }
        }
        Ok(())
    }

    /// The emergency gate's own decision record (seed 001: "logs emergency decision").
    pub(crate) fn log_emergency(&mut self, decision: DecisionDraft, at: Millis) {
        self.decisions.append(DecisionKind::Emergency, decision, GateAct::Emergency, at);
    }
}
