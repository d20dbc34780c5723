//! Who may write which memory, and when (seed 001, "Write Policy" and the three gates' tables).
//!
//! Slow memory — decisions, principles, North Stars, and the initialization/reset of progress —
//! changes only *inside a gate event*: a [`SlowWrite`] travels in the `stance_changed` event of
//! the gate that allows it, and [`allowed`] is the whole table. A write the gate does not allow
//! refuses the gate pass (`write_forbidden`) and changes nothing; replay re-checks every write,
//! so an edited ledger cannot smuggle one in either.
//!
//! The other tiers are held to their rule by the API, not by a table:
//! - fast memory (progress updates, interaction signals) has its own events, which can carry
//!   nothing slow;
//! - bridge memory (the artifact index) is written by registration, and only status changes go
//!   through the evaluation gate;
//! - history (sessions, gate transitions) is not state at all: it is read from the ledger.
//!
//! And by the type system: the memory's fields are private and its mutators `pub(crate)`, so no
//! code outside the kernel can write memory except by handing the kernel an event:
//!
//! ```compile_fail,E0624
//! # use smart_kernel::memory::DecisionLog;
//! let mut log = DecisionLog::default();
//! // error: `append` is private to the kernel — the fast loop cannot log a decision.
//! log.append(smart_kernel::memory::DecisionKind::Binding, todo!(), smart_kernel::GateAct::Commitment, smart_kernel::Millis(0));
//! ```
//!
//! ```compile_fail,E0624
//! # let mut state = smart_kernel::KernelState::default();
//! // error: `edit`, the only way to a mutable memory, is private to the kernel.
//! state.memory.edit();
//! ```
//!
//! ```compile_fail,E0616
//! # let state = smart_kernel::KernelState::default();
//! // error: memory's parts are private; outside the kernel there are only read-only getters.
//! let _ = &state.memory.parts;
//! ```

use crate::memory::artifact_index::ArtifactStatus;
use crate::memory::decision_log::DecisionDraft;
use crate::memory::principles::PrincipleKind;
use crate::memory::progress::ProgressInit;
use crate::stance::GateAct;
use serde::{Deserialize, Serialize};

/// One write to slow memory, carried by a gate event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "write", rename_all = "snake_case")]
pub enum SlowWrite {
    /// Framing gate: a decision that locks the frame.
    FrameDecision { decision: DecisionDraft },
    /// Commitment gate: a binding decision.
    BindingDecision { decision: DecisionDraft },
    /// Evaluation gate: a decision that supersedes an earlier one (`decision.supersedes`).
    Supersede { decision: DecisionDraft },
    /// Evaluation gate: a principle set or replaced.
    Principle { name: String, kind: PrincipleKind, text: String },
    /// Evaluation gate: a principle retired.
    RetirePrinciple { name: String },
    /// Framing gate ("what matters"): a North Star ratified by the person, or a new version.
    NorthStar { name: String, text: String },
    /// Commitment gate: progress state starts with the commitment.
    ProgressInit { progress: ProgressInit },
    /// Evaluation gate: progress starts over.
    ProgressReset { progress: ProgressInit },
    /// Evaluation gate: an artifact's status (draft/review/final/deprecated).
    ArtifactStatus { pointer: String, status: ArtifactStatus },
}

/// The write's kind, for the table.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WriteKind {
    FrameDecision,
    BindingDecision,
    Supersede,
    Principle,
    RetirePrinciple,
    NorthStar,
    ProgressInit,
    ProgressReset,
    ArtifactStatus,
}

impl WriteKind {
    pub const ALL: [WriteKind; 9] = [
        WriteKind::FrameDecision,
        WriteKind::BindingDecision,
        WriteKind::Supersede,
        WriteKind::Principle,
        WriteKind::RetirePrinciple,
        WriteKind::NorthStar,
        WriteKind::ProgressInit,
        WriteKind::ProgressReset,
        WriteKind::ArtifactStatus,
    ];
}

impl std::fmt::Display for WriteKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = serde_json::to_value(self).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        f.write_str(&s)
    }
}

impl SlowWrite {
    pub fn kind(&self) -> WriteKind {
        match self {
            SlowWrite::FrameDecision { .. } => WriteKind::FrameDecision,
            SlowWrite::BindingDecision { .. } => WriteKind::BindingDecision,
            SlowWrite::Supersede { .. } => WriteKind::Supersede,
            SlowWrite::Principle { .. } => WriteKind::Principle,
            SlowWrite::RetirePrinciple { .. } => WriteKind::RetirePrinciple,
            SlowWrite::NorthStar { .. } => WriteKind::NorthStar,
            SlowWrite::ProgressInit { .. } => WriteKind::ProgressInit,
            SlowWrite::ProgressReset { .. } => WriteKind::ProgressReset,
            SlowWrite::ArtifactStatus { .. } => WriteKind::ArtifactStatus,
        }
    }
}

use GateAct::*;
use WriteKind as W;

/// Every (gate, write) pair that is allowed; anything else is refused. The evaluation gate is
/// every act passed in or out of Evaluation: evaluate, renew, revise, release.
pub const ALLOWED: &[(GateAct, WriteKind)] = &[
    (Framing, W::FrameDecision),
    (Framing, W::NorthStar),
    (Commitment, W::BindingDecision),
    (Commitment, W::ProgressInit),
    (Evaluate, W::Supersede),
    (Evaluate, W::Principle),
    (Evaluate, W::RetirePrinciple),
    (Evaluate, W::ProgressReset),
    (Evaluate, W::ArtifactStatus),
    (Renew, W::Supersede),
    (Renew, W::ProgressReset),
    (Renew, W::ArtifactStatus),
    (Revise, W::Supersede),
    (Revise, W::Principle),
    (Revise, W::RetirePrinciple),
    (Revise, W::ProgressReset),
    (Revise, W::ArtifactStatus),
    (Release, W::Supersede),
    (Release, W::Principle),
    (Release, W::RetirePrinciple),
    (Release, W::ProgressReset),
    (Release, W::ArtifactStatus),
];

pub fn allowed(act: GateAct, write: WriteKind) -> bool {
    ALLOWED.iter().any(|(a, w)| *a == act && *w == write)
}

/// The refusal sentence for a write the gate does not allow.
pub fn forbidden_reason(act: GateAct, write: WriteKind) -> String {
    let gate = match act {
        Framing => "the framing gate",
        Commitment => "the commitment gate",
        Evaluate | Renew | Revise | Release => "the evaluation gate",
        LeaseExpiry => "a lease expiry",
        Emergency => "the emergency gate",
    };
    let hint = match write {
        W::FrameDecision | W::NorthStar => "it belongs to the framing gate",
        W::BindingDecision | W::ProgressInit => "it belongs to the commitment gate",
        W::Supersede | W::ProgressReset | W::ArtifactStatus => "it belongs to the evaluation gate",
        W::Principle | W::RetirePrinciple => {
            "principles change only at the evaluation gate (evaluate, revise, release)"
        }
    };
    format!("{gate} ({act}) cannot write {write}: {hint}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// seed 001's gate tables written out independently of `ALLOWED`.
    fn expected(act: GateAct, w: WriteKind) -> bool {
        match act {
            Framing => matches!(w, W::FrameDecision | W::NorthStar),
            Commitment => matches!(w, W::BindingDecision | W::ProgressInit),
            // Renewing keeps direction: no new principles on the way back into Execution.
            Renew => matches!(w, W::Supersede | W::ProgressReset | W::ArtifactStatus),
            Evaluate | Revise | Release => {
                matches!(w, W::Supersede | W::Principle | W::RetirePrinciple | W::ProgressReset | W::ArtifactStatus)
            }
            LeaseExpiry | Emergency => false,
        }
    }

    #[test]
    fn every_gate_and_write_pair_is_covered() {
        let mut allowed_n = 0;
        for act in GateAct::ALL {
            for w in WriteKind::ALL {
                assert_eq!(allowed(act, w), expected(act, w), "({act}, {w})");
                if allowed(act, w) {
                    allowed_n += 1;
                } else {
                    assert!(forbidden_reason(act, w).contains(&w.to_string()));
                }
            }
        }
        assert_eq!(allowed_n, ALLOWED.len(), "no duplicate rows");
    }

    #[test]
    fn principles_only_at_the_evaluation_gate() {
        for act in GateAct::ALL {
            if allowed(act, W::Principle) {
                assert!(matches!(act, Evaluate | Revise | Release), "{act}");
            }
        }
    }
}
