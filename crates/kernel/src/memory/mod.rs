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

use crate::canonical::{Hash, hash_of};
use crate::gate_proposal::ProposalBuffer;
use crate::stance::GateAct;
use crate::time::Millis;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, OnceLock};

/// Memory's contents. Reached for reading through [`Memory`]'s getters and for writing only
/// through `Memory::edit`, which is what keeps the cached digest honest.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryParts {
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

/// The memory, shared copy-on-write and hashed once per change.
///
/// Every kernel event is followed by a hash of the whole state, and a decision works on a copy
/// of it; with the artifact index and the decision log in the state, both would grow with
/// memory (a state of 2,000 artifacts is half a megabyte of canonical JSON). So the parts sit
/// behind an `Arc` (a copy of the state shares them until one side writes) and their digest is
/// cached until the next write. The state hash covers memory through that digest — see
/// `KernelState::hash`.
#[derive(Clone, Debug, Default)]
pub struct Memory {
    parts: Arc<MemoryParts>,
    digest: OnceLock<Hash>,
}

impl PartialEq for Memory {
    fn eq(&self, other: &Memory) -> bool {
        self.parts == other.parts
    }
}

impl Eq for Memory {}

impl Serialize for Memory {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.parts.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Memory {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Memory, D::Error> {
        Ok(Memory { parts: Arc::new(MemoryParts::deserialize(d)?), digest: OnceLock::new() })
    }
}

impl Memory {
    pub fn is_empty(&self) -> bool {
        *self.parts == MemoryParts::default()
    }

    /// The only way to change memory: the digest is forgotten, and the parts are copied first if
    /// another state still shares them.
    pub(crate) fn edit(&mut self) -> &mut MemoryParts {
        self.digest = OnceLock::new();
        Arc::make_mut(&mut self.parts)
    }

    /// blake3 of the canonical JSON of the parts, computed once per change.
    pub fn digest(&self) -> Result<Hash, serde_json::Error> {
        if let Some(h) = self.digest.get() {
            return Ok(*h);
        }
        let h = hash_of(&*self.parts)?;
        // A concurrent reader may have set it first; it computed the same value.
        let _ = self.digest.set(h);
        Ok(h)
    }

    pub fn proposals(&self) -> &ProposalBuffer {
        &self.parts.proposals
    }

    pub fn decisions(&self) -> &DecisionLog {
        &self.parts.decisions
    }

    pub fn principles(&self) -> &Principles {
        &self.parts.principles
    }

    pub fn progress(&self) -> Option<&Progress> {
        self.parts.progress.as_ref()
    }

    pub fn signals(&self) -> &InteractionSignals {
        &self.parts.signals
    }

    pub fn artifacts(&self) -> &ArtifactIndex {
        &self.parts.artifacts
    }

    /// Whether `write` may be applied at gate `act` now: the table, then the write's content.
    pub fn check_write(&self, act: GateAct, write: &SlowWrite) -> Result<(), String> {
        let kind = write.kind();
        if !write_policy::allowed(act, kind) {
            return Err(write_policy::forbidden_reason(act, kind));
        }
        let m = &*self.parts;
        match write {
            SlowWrite::FrameDecision { decision } => m.decisions.check(DecisionKind::Frame, decision),
            SlowWrite::BindingDecision { decision } => m.decisions.check(DecisionKind::Binding, decision),
            SlowWrite::Supersede { decision } => m.decisions.check(DecisionKind::Supersession, decision),
            SlowWrite::Principle { name, text, .. } => m.principles.check_principle(name, text),
            SlowWrite::RetirePrinciple { name } => {
                if m.principles.principles().contains_key(name.trim()) {
                    Ok(())
                } else {
                    Err(format!("there is no principle named {name:?}"))
                }
            }
            SlowWrite::NorthStar { name, text } => m.principles.check_north_star(name, text),
            SlowWrite::ProgressInit { progress } | SlowWrite::ProgressReset { progress } => progress.check(),
            SlowWrite::ArtifactStatus { pointer, .. } => {
                if m.artifacts.get(pointer).is_some() {
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
            let m = self.edit();
            match w {
                SlowWrite::FrameDecision { decision } => {
                    m.decisions.append(DecisionKind::Frame, decision.clone(), act, at);
                }
                SlowWrite::BindingDecision { decision } => {
                    m.decisions.append(DecisionKind::Binding, decision.clone(), act, at);
                }
                SlowWrite::Supersede { decision } => {
                    m.decisions.append(DecisionKind::Supersession, decision.clone(), act, at);
                }
                SlowWrite::Principle { name, kind, text } => m.principles.set_principle(name, *kind, text, at),
                SlowWrite::RetirePrinciple { name } => {
                    m.principles.retire_principle(name);
                }
                SlowWrite::NorthStar { name, text } => {
                    m.principles.ratify_north_star(name, text, at);
                }
                SlowWrite::ProgressInit { progress } | SlowWrite::ProgressReset { progress } => {
                    m.progress = Some(Progress::init(progress, at));
                }
                SlowWrite::ArtifactStatus { pointer, status } => {
                    m.artifacts.set_status(pointer, *status, at);
                }
            }
        }
        Ok(())
    }

    /// The emergency gate's own decision record (seed 001: "logs emergency decision").
    pub(crate) fn log_emergency(&mut self, decision: DecisionDraft, at: Millis) {
        self.edit().decisions.append(DecisionKind::Emergency, decision, GateAct::Emergency, at);
    }
}
