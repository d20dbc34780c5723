//! GateProposals and the buffer they wait in (seed 001, "GateProposal (Formalized)").
//!
//! Many parts of SMART notice things that should change the agent's direction — the lease ran
//! out, the person keeps correcting it, a perception report says trust is eroding — but none of
//! them may act on it. They *propose* a gate instead: a [`GateProposal`] goes into the
//! [`ProposalBuffer`], and only the gate controller, reading the buffer at a gateway pass, at the
//! end of a turn or when asked, decides. This module is the data and the one rule that must be
//! the same everywhere: the order in which proposals are considered when several arrive
//! together.
//!
//! The order (seed 001, resolved answer 3): emergency severity first; then by source,
//! `user_signal > decay_manager > perception > continuous_eval > task_agent`; ties by timestamp,
//! earlier first. Two proposals equal on all three are ordered by gate, severity and reason, so
//! the merge is a total order and replay gives the same sequence every time.
//!
//! The buffer is bounded: a runaway evaluator cannot grow the state without limit. A full
//! buffer refuses the newcomer unless it outranks the lowest proposal held, which it then
//! replaces — an emergency is never the one dropped.

use crate::time::Millis;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

/// How urgent a proposal is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Low,
    Medium,
    High,
    Emergency,
}

/// The gate a proposal suggests.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum SuggestedGate {
    Framing,
    Commitment,
    Evaluation,
}

impl std::str::FromStr for Severity {
    type Err = String;
    fn from_str(s: &str) -> Result<Severity, String> {
        match s {
            "low" => Ok(Severity::Low),
            "medium" => Ok(Severity::Medium),
            "high" => Ok(Severity::High),
            "emergency" => Ok(Severity::Emergency),
            other => Err(format!("severity {other:?} must be low, medium, high or emergency")),
        }
    }
}

impl std::str::FromStr for SuggestedGate {
    type Err = String;
    fn from_str(s: &str) -> Result<SuggestedGate, String> {
        match s {
            "framing" => Ok(SuggestedGate::Framing),
            "commitment" => Ok(SuggestedGate::Commitment),
            "evaluation" => Ok(SuggestedGate::Evaluation),
            other => Err(format!("gate {other:?} must be framing, commitment or evaluation")),
        }
    }
}

/// Who proposed it, declared in priority order (highest first).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum GateSource {
    UserSignal,
    DecayManager,
    Perception,
    ContinuousEval,
    TaskAgent,
}

impl GateSource {
    /// Every source, highest priority first.
    pub const ALL: [GateSource; 5] = [
        GateSource::UserSignal,
        GateSource::DecayManager,
        GateSource::Perception,
        GateSource::ContinuousEval,
        GateSource::TaskAgent,
    ];
}

/// When the slow loop reads the buffer.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ReadTrigger {
    GatewayPass,
    EndOfTurn,
    Request,
}

/// Something more specific than a gate that a proposal may suggest: bootstrap's re-entry and
/// its transition recommendations.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ProposedAction {
    /// Perception saw severe degradation: pause the commitment and listen again.
    BootstrapReentry,
    RemainListening,
    OfferStructure,
    OfferWorkOrder,
    OfferNorthStars,
}

/// A proposal to pass a gate. It carries no authority: it is a reason for the gate controller
/// to look.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct GateProposal {
    pub reason: String,
    pub severity: Severity,
    pub suggested_gate: SuggestedGate,
    pub source: GateSource,
    pub at: Millis,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<ProposedAction>,
    /// Which evaluator, report or work order it came from, for the person's account.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
}

impl GateProposal {
    pub fn new(
        source: GateSource,
        suggested_gate: SuggestedGate,
        severity: Severity,
        reason: impl Into<String>,
        at: Millis,
    ) -> GateProposal {
        GateProposal { reason: reason.into(), severity, suggested_gate, source, at, action: None, origin: None }
    }

    pub fn with_origin(mut self, origin: impl Into<String>) -> GateProposal {
        self.origin = Some(origin.into());
        self
    }

    pub fn with_action(mut self, action: ProposedAction) -> GateProposal {
        self.action = Some(action);
        self
    }

    /// The checks every proposal must pass before it may wait in the buffer.
    pub fn check(&self) -> Result<(), BufferError> {
        let reason = self.reason.trim();
        if reason.is_empty() {
            return Err(BufferError::NoReason);
        }
        if reason.chars().count() > MAX_REASON_CHARS {
            return Err(BufferError::ReasonTooLong);
        }
        if self.origin.as_ref().is_some_and(|o| o.chars().count() > 80) {
            return Err(BufferError::OriginTooLong);
        }
        Ok(())
    }
}

/// The longest reason kept, in characters.
pub const MAX_REASON_CHARS: usize = 500;

/// The most proposals the buffer holds between reads.
pub const MAX_BUFFERED: usize = 64;

/// The merge order: `Less` means `a` is considered before `b`.
pub fn merge_order(a: &GateProposal, b: &GateProposal) -> Ordering {
    let emergency = |p: &GateProposal| p.severity != Severity::Emergency;
    emergency(a)
        .cmp(&emergency(b))
        .then(a.source.cmp(&b.source))
        .then(a.at.cmp(&b.at))
        .then(a.suggested_gate.cmp(&b.suggested_gate))
        .then(b.severity.cmp(&a.severity))
        .then(a.reason.cmp(&b.reason))
        .then(a.action.cmp(&b.action))
        .then(a.origin.cmp(&b.origin))
}

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum BufferError {
    #[error("a gate proposal needs a reason")]
    NoReason,
    #[error("a gate proposal's reason is longer than {MAX_REASON_CHARS} characters")]
    ReasonTooLong,
    #[error("a gate proposal's origin is longer than 80 characters")]
    OriginTooLong,
    #[error("the proposal buffer is full ({MAX_BUFFERED}) and this proposal ranks below all of them")]
    Full,
}

/// Proposals waiting for the gate controller, in arrival order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposalBuffer {
    waiting: Vec<GateProposal>,
}

impl ProposalBuffer {
    /// Adds a proposal. When full, the lowest-ranked proposal held makes room for a higher one;
    /// returns the one dropped, if any.
    pub fn push(&mut self, p: GateProposal) -> Result<Option<GateProposal>, BufferError> {
        let dropped = self.make_room_for(&p)?.map(|i| self.waiting.remove(i));
        self.waiting.push(p);
        Ok(dropped)
    }

    /// Whether `push` would take `p`, changing nothing — what the kernel asks before it records
    /// a proposal, so a refused one leaves no event.
    pub fn would_accept(&self, p: &GateProposal) -> Result<(), BufferError> {
        self.make_room_for(p).map(|_| ())
    }

    /// The checks of `push`: `Ok(None)` when there is room, `Ok(Some(i))` when the proposal at
    /// `i` (the lowest-ranked) must make room, or why `p` is refused.
    fn make_room_for(&self, p: &GateProposal) -> Result<Option<usize>, BufferError> {
        p.check()?;
        if self.waiting.len() < MAX_BUFFERED {
            return Ok(None);
        }
        let lowest = self
            .waiting
            .iter()
            .enumerate()
            .max_by(|(_, a), (_, b)| merge_order(a, b))
            .map(|(i, _)| i)
            .ok_or(BufferError::Full)?;
        if merge_order(p, &self.waiting[lowest]) == Ordering::Less { Ok(Some(lowest)) } else { Err(BufferError::Full) }
    }

    /// Everything waiting, in merge order; the buffer is empty afterwards (seed 001: "buffer
    /// cleared after read").
    pub fn read(&mut self) -> Vec<GateProposal> {
        let mut out = std::mem::take(&mut self.waiting);
        out.sort_by(merge_order);
        out
    }

    pub fn len(&self) -> usize {
        self.waiting.len()
    }

    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    /// What is waiting, in merge order, without reading it.
    pub fn peek(&self) -> Vec<&GateProposal> {
        let mut v: Vec<&GateProposal> = self.waiting.iter().collect();
        v.sort_by(|a, b| merge_order(a, b));
        v
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use GateSource::*;
    use Severity::*;

    fn p(source: GateSource, severity: Severity, at: u64, reason: &str) -> GateProposal {
        GateProposal {
            reason: reason.into(),
            severity,
            suggested_gate: SuggestedGate::Evaluation,
            source,
            at: Millis(at),
            action: None,
            origin: None,
        }
    }

    /// (proposals in arrival order, the reasons in the order the controller must see them)
    #[test]
    fn the_merge_order_follows_the_seed_table() {
        let cases: &[(&[GateProposal], &[&str])] = &[
            // Emergency first, whatever its source and time.
            (
                &[p(UserSignal, High, 1, "user"), p(TaskAgent, Emergency, 9, "agent-emergency")],
                &["agent-emergency", "user"],
            ),
            // Then by source priority.
            (
                &[
                    p(TaskAgent, High, 1, "task"),
                    p(ContinuousEval, High, 1, "eval"),
                    p(Perception, High, 1, "perception"),
                    p(DecayManager, High, 1, "decay"),
                    p(UserSignal, Low, 1, "user"),
                ],
                &["user", "decay", "perception", "eval", "task"],
            ),
            // Severity below emergency does not beat source priority.
            (&[p(TaskAgent, High, 1, "task-high"), p(DecayManager, Low, 1, "decay-low")], &["decay-low", "task-high"]),
            // Ties by timestamp, earlier first.
            (&[p(ContinuousEval, High, 7, "later"), p(ContinuousEval, High, 3, "earlier")], &["earlier", "later"]),
            // Two emergencies: by source, then time.
            (
                &[
                    p(TaskAgent, Emergency, 1, "task-e"),
                    p(UserSignal, Emergency, 5, "user-e"),
                    p(UserSignal, Emergency, 2, "user-e-first"),
                ],
                &["user-e-first", "user-e", "task-e"],
            ),
        ];
        for (input, expected) in cases {
            let mut b = ProposalBuffer::default();
            for x in *input {
                b.push(x.clone()).unwrap();
            }
            let got: Vec<String> = b.read().into_iter().map(|x| x.reason).collect();
            assert_eq!(got, *expected, "{input:?}");
            assert!(b.is_empty(), "read clears the buffer");
        }
    }

    #[test]
    fn every_pair_of_sources_is_ordered_as_the_seed_lists_them() {
        for (i, a) in GateSource::ALL.iter().enumerate() {
            for (j, b) in GateSource::ALL.iter().enumerate() {
                let (x, y) = (p(*a, Medium, 5, "same"), p(*b, Medium, 5, "same"));
                assert_eq!(merge_order(&x, &y) == Ordering::Less, i < j, "{a:?} vs {b:?}");
            }
        }
    }

    #[test]
    fn the_merge_is_a_total_order_so_arrival_order_does_not_matter() {
        let all = vec![
            p(TaskAgent, Low, 3, "a"),
            p(Perception, Emergency, 8, "b"),
            p(UserSignal, Medium, 8, "c"),
            p(UserSignal, Medium, 8, "d"),
            p(DecayManager, High, 1, "e"),
            p(ContinuousEval, Low, 2, "f"),
        ];
        let mut forward = ProposalBuffer::default();
        let mut backward = ProposalBuffer::default();
        for x in &all {
            forward.push(x.clone()).unwrap();
        }
        for x in all.iter().rev() {
            backward.push(x.clone()).unwrap();
        }
        assert_eq!(forward.read(), backward.read());
    }

    #[test]
    fn bad_proposals_are_refused_and_a_full_buffer_keeps_the_highest() {
        let mut b = ProposalBuffer::default();
        assert_eq!(b.push(p(TaskAgent, Low, 1, "  ")), Err(BufferError::NoReason));
        assert_eq!(b.push(p(TaskAgent, Low, 1, &"x".repeat(MAX_REASON_CHARS + 1))), Err(BufferError::ReasonTooLong));
        for i in 0..MAX_BUFFERED as u64 {
            b.push(p(TaskAgent, Low, 10 + i, "noise")).unwrap();
        }
        assert_eq!(b.push(p(TaskAgent, Low, 999, "later noise")), Err(BufferError::Full));
        let dropped = b.push(p(DecayManager, High, 1000, "lease expired")).unwrap().unwrap();
        assert_eq!(dropped.at, Millis(10 + MAX_BUFFERED as u64 - 1), "the latest task-agent proposal made room");
        assert_eq!(b.len(), MAX_BUFFERED);
        assert_eq!(b.peek()[0].reason, "lease expired");
        let mut full_of_emergencies = ProposalBuffer::default();
        for i in 0..MAX_BUFFERED as u64 {
            full_of_emergencies.push(p(UserSignal, Emergency, i, "stop")).unwrap();
        }
        assert_eq!(full_of_emergencies.push(p(TaskAgent, Emergency, 0, "stop too")), Err(BufferError::Full));
    }
}
