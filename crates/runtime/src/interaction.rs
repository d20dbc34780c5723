//! The interaction state machine of seed 003 §2.3: where one utterance is, from the wake word to
//! the memory update.
//!
//! It is a table, not a tangle of `if`s, so that what may follow what can be read in one place
//! and checked exhaustively: the test below walks every (state, trigger) pair and compares it
//! with the table. A trigger the table does not allow in the current state is not guessed at —
//! it is an [`IllegalTransition`], the machine resets to `Idle` (fail closed: the default state
//! is "do nothing") and the caller logs it.
//!
//! Two additions to the seed's diagram, both explicit rows: typed text enters at `Reasoning`
//! (the `smart say` path skips listening and transcription), and a committed step in a
//! multi-step turn goes back to `Reasoning` with the tool's response. `Cancel` (the emergency
//! stop, a closed window) and `Fault` (a timeout or crashed worker) lead from any state to
//! `Idle`.

use serde::Serialize;

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum State {
    Idle,
    Listening,
    Transcribing,
    Reasoning,
    Planning,
    RiskClassifying,
    AwaitingConfirm,
    Executing,
    Responding,
    MemoryUpdate,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Trigger {
    WakeWord,
    PushToTalk,
    /// Speech found by the VAD alone (a recording listened to, no key and no wake phrase).
    VoiceActivity,
    /// Typed text: straight to reasoning.
    TextSubmitted,
    EndOfSpeech,
    TranscriptReady,
    /// Nothing intelligible was heard.
    EmptyTranscript,
    ToolCallsGenerated,
    /// The proposer answered without a call.
    NoCall,
    SelfCritiqueFail,
    PlanApproved,
    /// Propose-only: the plan is shown, not submitted.
    PlanDeferred,
    Tier1,
    Tier2,
    Tier3,
    /// The kernel refused the call.
    Refused,
    Confirmed,
    Denied,
    /// The confirmation was not given in time, or left for later (`smart approve`).
    ConfirmTimeout,
    ExecutionComplete,
    /// The call committed and the proposer may propose the next one.
    StepCommitted,
    ResponseDelivered,
    MemoryUpdated,
    Cancel,
    Fault,
}

use State::*;
use Trigger::*;

pub const STATES: [State; 10] = [
    Idle,
    Listening,
    Transcribing,
    Reasoning,
    Planning,
    RiskClassifying,
    AwaitingConfirm,
    Executing,
    Responding,
    MemoryUpdate,
];

pub const TRIGGERS: [Trigger; 25] = [
    WakeWord,
    PushToTalk,
    VoiceActivity,
    TextSubmitted,
    EndOfSpeech,
    TranscriptReady,
    EmptyTranscript,
    ToolCallsGenerated,
    NoCall,
    SelfCritiqueFail,
    PlanApproved,
    PlanDeferred,
    Tier1,
    Tier2,
    Tier3,
    Refused,
    Confirmed,
    Denied,
    ConfirmTimeout,
    ExecutionComplete,
    StepCommitted,
    ResponseDelivered,
    MemoryUpdated,
    Cancel,
    Fault,
];

/// Every allowed transition except `Cancel` and `Fault`, which are allowed from every state
/// other than `Idle` and lead to `Idle`.
pub const TABLE: &[(State, Trigger, State)] = &[
    (Idle, WakeWord, Listening),
    (Idle, PushToTalk, Listening),
    (Idle, VoiceActivity, Listening),
    (Idle, TextSubmitted, Reasoning),
    (Listening, EndOfSpeech, Transcribing),
    (Transcribing, TranscriptReady, Reasoning),
    (Transcribing, EmptyTranscript, Idle),
    (Reasoning, ToolCallsGenerated, Planning),
    (Reasoning, NoCall, Responding),
    (Planning, SelfCritiqueFail, Reasoning),
    (Planning, PlanApproved, RiskClassifying),
    (Planning, PlanDeferred, Responding),
    (RiskClassifying, Tier1, Executing),
    (RiskClassifying, Tier2, Executing),
    (RiskClassifying, Tier3, AwaitingConfirm),
    (RiskClassifying, Refused, Responding),
    (AwaitingConfirm, Confirmed, Executing),
    (AwaitingConfirm, Denied, Responding),
    (AwaitingConfirm, ConfirmTimeout, Responding),
    (Executing, ExecutionComplete, Responding),
    (Executing, StepCommitted, Reasoning),
    (Responding, ResponseDelivered, MemoryUpdate),
    (MemoryUpdate, MemoryUpdated, Idle),
];

/// The state `trigger` leads to from `from`, or `None` when the table forbids it.
pub fn next(from: State, trigger: Trigger) -> Option<State> {
    if matches!(trigger, Cancel | Fault) {
        return (from != Idle).then_some(Idle);
    }
    TABLE.iter().find(|(f, t, _)| *f == from && *t == trigger).map(|(_, _, to)| *to)
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{trigger:?} is not allowed in state {from:?}; the interaction was reset to IDLE")]
pub struct IllegalTransition {
    pub from: State,
    pub trigger: Trigger,
}

/// One interaction's current state.
#[derive(Clone, Debug)]
pub struct Interaction {
    state: State,
}

impl Default for Interaction {
    fn default() -> Self {
        Interaction { state: Idle }
    }
}

impl Interaction {
    pub fn state(&self) -> State {
        self.state
    }

    /// Moves on `trigger`. An illegal trigger resets to `Idle` and is returned as an error.
    pub fn fire(&mut self, trigger: Trigger) -> Result<(State, State), IllegalTransition> {
        let from = self.state;
        match next(from, trigger) {
            Some(to) => {
                self.state = to;
                Ok((from, to))
            }
            None => {
                self.state = Idle;
                tracing::warn!(?from, ?trigger, "illegal interaction transition; reset to IDLE");
                Err(IllegalTransition { from, trigger })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn every_pair_is_either_a_row_of_the_table_or_illegal() {
        let mut allowed = 0;
        for from in STATES {
            for trigger in TRIGGERS {
                let row = TABLE.iter().find(|(f, t, _)| *f == from && *t == trigger);
                let expected = match trigger {
                    Cancel | Fault => (from != Idle).then_some(Idle),
                    _ => row.map(|(_, _, to)| *to),
                };
                assert_eq!(next(from, trigger), expected, "{from:?} --{trigger:?}-->");
                let mut m = Interaction { state: from };
                match (m.fire(trigger), expected) {
                    (Ok((f, to)), Some(want)) => {
                        assert_eq!((f, to, m.state()), (from, want, want));
                        allowed += 1;
                    }
                    (Err(e), None) => {
                        assert_eq!(e, IllegalTransition { from, trigger });
                        assert_eq!(m.state(), Idle, "an illegal trigger must reset to IDLE");
                    }
                    (got, want) => panic!("{from:?} --{trigger:?}--> got {got:?}, want {want:?}"),
                }
            }
        }
        assert_eq!(allowed, TABLE.len() + 2 * (STATES.len() - 1));
    }

    #[test]
    fn the_table_has_no_duplicate_rows_and_every_state_is_reachable_and_left() {
        let pairs: BTreeSet<(State, Trigger)> = TABLE.iter().map(|(f, t, _)| (*f, *t)).collect();
        assert_eq!(pairs.len(), TABLE.len(), "a (state, trigger) pair has two rows");
        for s in STATES {
            assert!(s == Idle || TABLE.iter().any(|(_, _, to)| *to == s), "{s:?} cannot be reached");
            assert!(TABLE.iter().any(|(f, _, _)| *f == s), "{s:?} has no way out but Cancel/Fault");
        }
        for t in TRIGGERS {
            assert!(matches!(t, Cancel | Fault) || TABLE.iter().any(|(_, tt, _)| *tt == t), "{t:?} is never used");
        }
    }

    #[test]
    fn a_spoken_turn_and_a_typed_multi_step_turn_walk_the_seed_diagram() {
        let mut m = Interaction::default();
        for t in [WakeWord, EndOfSpeech, TranscriptReady, ToolCallsGenerated, PlanApproved, Tier3, Confirmed] {
            m.fire(t).unwrap();
        }
        assert_eq!(m.state(), Executing);
        for t in [ExecutionComplete, ResponseDelivered, MemoryUpdated] {
            m.fire(t).unwrap();
        }
        assert_eq!(m.state(), Idle);

        for t in [TextSubmitted, ToolCallsGenerated, PlanApproved, Tier1, StepCommitted, NoCall] {
            m.fire(t).unwrap();
        }
        assert_eq!(m.state(), Responding);
    }

    #[test]
    fn executing_without_passing_the_risk_classifier_is_illegal() {
        // The regression this machine exists for: a proposal must never jump to execution.
        let mut m = Interaction::default();
        m.fire(TextSubmitted).unwrap();
        m.fire(ToolCallsGenerated).unwrap();
        assert!(m.fire(Confirmed).is_err());
        assert_eq!(m.state(), Idle);
        assert!(m.fire(ExecutionComplete).is_err());
    }
}
