//! The continuous evaluator (seed 001, "Continuous Evaluation Boundaries"): quality only, no
//! authority.
//!
//! It watches the last few turns and notices what a good colleague would: the plan is drifting
//! (proposals refused again and again, the same call proposed over and over), the person is
//! correcting the assistant, the person is getting impatient, or the assistant keeps failing to
//! propose anything. Each finding is a gate proposal and/or an interaction signal for the fast
//! loop to note. It *cannot* change the commitment or the stance, write slow memory, accept or
//! reject proposals, or trigger a gate — it returns data.
//!
//! Findings are edge-triggered: a rule fires on the turn its condition first holds (the third
//! refusal in a row), not on every turn after, so a stuck conversation produces one proposal,
//! not a flood. Seed 001's third emergency trigger — repeated drift plus user frustration —
//! raises a drift proposal to emergency severity; the gate controller then pauses execution
//! and tells the person, and only the person's signed stop fires the emergency gate.

use serde::{Deserialize, Serialize};
use smart_kernel::memory::SignalKind;
use smart_kernel::{GateProposal, GateSource, Millis, Severity, SuggestedGate};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum TurnOutcome {
    Committed,
    Refused {
        code: String,
    },
    Pending,
    Denied,
    Failed,
    /// No call was proposed: the assistant answered or asked instead.
    NoCall,
}

impl TurnOutcome {
    /// The outcome's name, as serialized.
    pub fn name(&self) -> &'static str {
        match self {
            TurnOutcome::Committed => "committed",
            TurnOutcome::Refused { .. } => "refused",
            TurnOutcome::Pending => "pending",
            TurnOutcome::Denied => "denied",
            TurnOutcome::Failed => "failed",
            TurnOutcome::NoCall => "no_call",
        }
    }
}

/// One turn as the evaluator sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnRecord {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub utterance: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_hash: Option<String>,
    #[serde(flatten)]
    pub outcome: TurnOutcome,
    pub at: Millis,
}

/// What the evaluator noticed: a proposal for the buffer, a signal for fast memory, or both.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub rule: &'static str,
    pub proposal: Option<GateProposal>,
    pub signal: Option<(SignalKind, String)>,
}

/// How many turns the evaluator looks back over; the runtime keeps at least this many.
pub const WINDOW: usize = 6;
pub const REFUSALS_FOR_DRIFT: usize = 3;
pub const REPEATS_FOR_DRIFT: usize = 3;
pub const CORRECTIONS_FOR_REFRAME: usize = 2;
pub const SILENT_TURNS_FOR_CONFUSION: usize = 2;

const CORRECTIONS: &[&str] = &[
    "no ",
    "no,",
    "nope",
    "not that",
    "that's wrong",
    "that is wrong",
    "wrong",
    "i said",
    "i meant",
    "that's not what",
    "that is not what",
    "not what i",
    "i didn't ask",
    "i did not ask",
];
const IMPATIENCE: &[&str] =
    &["just do it", "hurry", "come on", "faster", "already", "again?", "how many times", "seriously"];

fn padded(text: &str) -> String {
    format!(" {} ", text.to_lowercase().trim())
}

pub fn is_correction(utterance: &str) -> bool {
    let t = padded(utterance);
    let start = t.trim_start();
    CORRECTIONS.iter().any(|c| start.starts_with(c) || (c.len() > 5 && t.contains(c)))
}

pub fn is_impatient(utterance: &str) -> bool {
    let t = padded(utterance);
    IMPATIENCE.iter().any(|c| t.contains(c))
}

fn trailing<T>(turns: &[T], pred: impl Fn(&T) -> bool) -> usize {
    turns.iter().rev().take_while(|t| pred(t)).count()
}

fn refused(t: &TurnRecord) -> bool {
    matches!(t.outcome, TurnOutcome::Refused { .. })
}

fn corrections_in(turns: &[TurnRecord], last: usize) -> usize {
    turns.iter().rev().take(last).filter(|t| t.utterance.as_deref().is_some_and(is_correction)).count()
}

fn frustrated(turns: &[TurnRecord]) -> bool {
    turns.iter().rev().take(3).any(|t| t.utterance.as_deref().is_some_and(|u| is_correction(u) || is_impatient(u)))
}

fn proposal(gate: SuggestedGate, severity: Severity, rule: &str, reason: String, now: Millis) -> GateProposal {
    GateProposal::new(GateSource::ContinuousEval, gate, severity, reason, now).with_origin(format!("evaluator:{rule}"))
}

/// Findings for the newest turn of `turns` (oldest first).
pub fn evaluate(turns: &[TurnRecord], now: Millis) -> Vec<Finding> {
    let turns = &turns[turns.len().saturating_sub(WINDOW)..];
    let Some(newest) = turns.last() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let drift_severity = if frustrated(turns) { Severity::Emergency } else { Severity::High };

    // Drift: the same refusal pattern — exactly N refusals in a row as of this turn.
    if trailing(turns, refused) == REFUSALS_FOR_DRIFT {
        let codes: Vec<&str> = turns
            .iter()
            .rev()
            .take(REFUSALS_FOR_DRIFT)
            .filter_map(|t| match &t.outcome {
                TurnOutcome::Refused { code } => Some(code.as_str()),
                _ => None,
            })
            .collect();
        let reason = format!(
            "plan drift: the last {REFUSALS_FOR_DRIFT} proposals were refused ({})",
            codes.iter().rev().cloned().collect::<Vec<_>>().join(", ")
        );
        out.push(Finding {
            rule: "repeated_refusals",
            proposal: Some(proposal(SuggestedGate::Evaluation, drift_severity, "repeated_refusals", reason, now)),
            signal: None,
        });
    }

    // Drift: the same call proposed again and again (within the window).
    if let Some(hash) = &newest.call_hash {
        let same = |t: &TurnRecord| t.call_hash.as_ref() == Some(hash);
        let count = turns.iter().filter(|t| same(t)).count();
        if count == REPEATS_FOR_DRIFT {
            let reason = format!(
                "plan drift: the same {} call was proposed {REPEATS_FOR_DRIFT} times in {} turns",
                newest.tool.as_deref().unwrap_or("tool"),
                turns.len()
            );
            out.push(Finding {
                rule: "repeated_proposal",
                proposal: Some(proposal(SuggestedGate::Evaluation, drift_severity, "repeated_proposal", reason, now)),
                signal: None,
            });
        }
    }

    // The person is correcting the assistant: the frame may be wrong.
    if newest.utterance.as_deref().is_some_and(is_correction) && corrections_in(turns, 4) == CORRECTIONS_FOR_REFRAME {
        out.push(Finding {
            rule: "user_corrections",
            proposal: Some(proposal(
                SuggestedGate::Framing,
                Severity::Medium,
                "user_corrections",
                format!("the person corrected the assistant {CORRECTIONS_FOR_REFRAME} times in the last 4 turns"),
                now,
            )),
            signal: Some((SignalKind::Friction, "corrections".into())),
        });
    }

    // Friction: impatience, or the same words said again.
    // The same words as the turn before, but not as the two before (edge-triggered).
    let said = |back: usize| turns.len().checked_sub(back + 1).and_then(|i| turns[i].utterance.as_deref()).map(padded);
    let repeated_words = newest.utterance.is_some() && said(1) == said(0) && said(2) != said(0);
    if newest.utterance.as_deref().is_some_and(is_impatient) || repeated_words {
        let what = if repeated_words { "the person repeated their request" } else { "the person sounds impatient" };
        out.push(Finding {
            rule: "friction",
            proposal: Some(proposal(
                SuggestedGate::Evaluation,
                Severity::Low,
                "friction",
                format!("friction: {what}"),
                now,
            )),
            signal: Some((SignalKind::Friction, if repeated_words { "repeated request" } else { "impatience" }.into())),
        });
    }

    // Confusion: the assistant proposed nothing, turn after turn.
    if trailing(turns, |t| t.outcome == TurnOutcome::NoCall) == SILENT_TURNS_FOR_CONFUSION {
        out.push(Finding {
            rule: "confusion",
            proposal: Some(proposal(
                SuggestedGate::Framing,
                Severity::Medium,
                "confusion",
                format!("confusion: {SILENT_TURNS_FOR_CONFUSION} turns in a row without a proposal"),
                now,
            )),
            signal: None,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    fn turn(utterance: &str, outcome: TurnOutcome, hash: Option<&str>) -> TurnRecord {
        TurnRecord {
            utterance: Some(utterance.into()),
            tool: hash.map(|_| "fs.scan".into()),
            call_hash: hash.map(str::to_string),
            outcome,
            at: Millis(0),
        }
    }

    fn refusal() -> TurnOutcome {
        TurnOutcome::Refused { code: "no_lease".into() }
    }

    fn rules(turns: &[TurnRecord]) -> Vec<(&'static str, Option<Severity>)> {
        evaluate(turns, Millis(5)).iter().map(|f| (f.rule, f.proposal.as_ref().map(|p| p.severity))).collect()
    }

    #[test]
    fn each_rule_fires_once_on_the_turn_its_condition_first_holds() {
        let r = |n: usize| (0..n).map(|i| turn(&format!("move file {i}"), refusal(), None)).collect::<Vec<_>>();
        assert_eq!(rules(&r(2)), []);
        assert_eq!(rules(&r(3)), [("repeated_refusals", Some(Severity::High))]);
        assert_eq!(rules(&r(4)), [], "edge-triggered: the fourth refusal adds nothing");

        let same = |n: usize| {
            (0..n).map(|i| turn(&format!("scan {i}"), TurnOutcome::Committed, Some("h"))).collect::<Vec<_>>()
        };
        assert_eq!(rules(&same(2)), []);
        assert_eq!(rules(&same(3)), [("repeated_proposal", Some(Severity::High))]);
        assert_eq!(rules(&same(4)), []);

        let c = vec![
            turn("show the reports", TurnOutcome::Committed, Some("a")),
            turn("no, the reports folder", TurnOutcome::Committed, Some("b")),
            turn("read notes", TurnOutcome::Committed, Some("c")),
            turn("that's wrong, I said notes.txt", TurnOutcome::Committed, Some("d")),
        ];
        assert_eq!(rules(&c[..2]), []);
        assert_eq!(rules(&c), [("user_corrections", Some(Severity::Medium))]);

        let silent = vec![turn("hm", TurnOutcome::NoCall, None), turn("hmm", TurnOutcome::NoCall, None)];
        assert_eq!(rules(&silent[..1]), []);
        assert_eq!(rules(&silent), [("confusion", Some(Severity::Medium))]);
    }

    #[test]
    fn drift_with_frustration_is_an_emergency_proposal() {
        let turns = vec![
            turn("move the logs", refusal(), None),
            turn("come on, just do it", refusal(), None),
            turn("move the logs", refusal(), None),
        ];
        let f = evaluate(&turns, Millis(5));
        let drift = f.iter().find(|f| f.rule == "repeated_refusals").unwrap();
        assert_eq!(drift.proposal.as_ref().unwrap().severity, Severity::Emergency);
        // Every finding is a proposal from the evaluator, or a fast-memory signal — nothing else.
        for x in &f {
            if let Some(p) = &x.proposal {
                assert_eq!(p.source, GateSource::ContinuousEval);
            }
        }
    }

    #[test]
    fn friction_notes_a_signal() {
        let turns = vec![
            turn("find my notes", TurnOutcome::NoCall, None),
            turn("Find my notes", TurnOutcome::Committed, Some("x")),
        ];
        let f = evaluate(&turns, Millis(1));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].signal, Some((SignalKind::Friction, "repeated request".into())));
        assert_eq!(f[0].proposal.as_ref().unwrap().severity, Severity::Low);
        let mut three = turns.clone();
        three.push(turn("find my notes", TurnOutcome::Committed, Some("x")));
        assert!(evaluate(&three, Millis(1)).iter().all(|f| f.rule != "friction"), "a third time adds nothing");
        let f = evaluate(&[turn("hurry up please", TurnOutcome::Committed, Some("y"))], Millis(1));
        assert_eq!(f[0].signal, Some((SignalKind::Friction, "impatience".into())));
    }

    #[test]
    fn an_outcomes_name_is_its_serialized_tag() {
        let all = [
            TurnOutcome::Committed,
            refusal(),
            TurnOutcome::Pending,
            TurnOutcome::Denied,
            TurnOutcome::Failed,
            TurnOutcome::NoCall,
        ];
        for o in all {
            assert_eq!(serde_json::to_value(&o).unwrap()["outcome"], o.name());
        }
    }

    #[test]
    fn corrections_are_recognised_and_ordinary_requests_are_not() {
        for t in ["no, the other one", "No. I meant the reports", "that's wrong", "Not that folder", "I said notes.txt"]
        {
            assert!(is_correction(t), "{t}");
        }
        for t in ["show me notes", "now move it", "nothing else?", "know what is in reports"] {
            assert!(!is_correction(t), "{t}");
        }
    }
}
