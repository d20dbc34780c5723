//! The decision log (seed 001, slow memory): what was chosen, why, and what would reopen it.
//!
//! It exists so that a choice made at a gate is not relitigated every turn: the assistant can
//! point at the decision and its rationale instead of asking again. It is append-only — a
//! decision is never edited or deleted; a later one *supersedes* it, and both stay readable —
//! and it is written only by gate events (see `write_policy`), never by the fast loop.

use crate::stance::GateAct;
use crate::time::Millis;
use serde::{Deserialize, Serialize};

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Confidence {
    Low,
    Med,
    High,
}

impl std::str::FromStr for Confidence {
    type Err = String;
    fn from_str(s: &str) -> Result<Confidence, String> {
        match s {
            "low" => Ok(Confidence::Low),
            "med" | "medium" => Ok(Confidence::Med),
            "high" => Ok(Confidence::High),
            _ => Err(format!("confidence {s:?} must be low, med or high")),
        }
    }
}

/// Which gate wrote a decision, by what it does (seed 001's gate descriptions).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum DecisionKind {
    /// Framing gate: a decision that locks the frame.
    Frame,
    /// Commitment gate: a binding decision to move forward.
    Binding,
    /// Evaluation gate: a decision that supersedes an earlier one.
    Supersession,
    /// The emergency gate's own record (seed 001: "logs emergency decision").
    Emergency,
}

/// What a gate is asked to record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct DecisionDraft {
    pub decision: String,
    pub rationale: Vec<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tradeoffs: String,
    pub confidence: Confidence,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub revisit_triggers: Vec<String>,
    /// The id of the decision this one replaces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supersedes: Option<u64>,
}

/// A decision as recorded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct DecisionRecord {
    /// 1-based position in the log; stable forever because nothing is removed.
    pub id: u64,
    pub kind: DecisionKind,
    #[serde(flatten)]
    pub draft: DecisionDraft,
    pub gate: GateAct,
    pub at: Millis,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<u64>,
}

pub const MAX_DECISION_CHARS: usize = 300;
pub const MAX_BULLET_CHARS: usize = 200;

/// The whole log, oldest first.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionLog {
    entries: Vec<DecisionRecord>,
}

impl DecisionLog {
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn all(&self) -> &[DecisionRecord] {
        &self.entries
    }

    /// Decisions nothing has superseded, oldest first.
    pub fn current(&self) -> impl Iterator<Item = &DecisionRecord> {
        self.entries.iter().filter(|d| d.superseded_by.is_none())
    }

    pub fn get(&self, id: u64) -> Option<&DecisionRecord> {
        id.checked_sub(1).and_then(|i| self.entries.get(usize::try_from(i).ok()?))
    }

    /// Whether `draft` could be appended as `kind`; the sentence says why not.
    pub fn check(&self, kind: DecisionKind, draft: &DecisionDraft) -> Result<(), String> {
        let decision = draft.decision.trim();
        if decision.is_empty() {
            return Err("a decision needs a text: what was chosen".into());
        }
        if decision.chars().count() > MAX_DECISION_CHARS {
            return Err(format!("a decision is at most {MAX_DECISION_CHARS} characters"));
        }
        if draft.rationale.is_empty() || draft.rationale.len() > 3 {
            return Err("a decision has 1 to 3 rationale bullets".into());
        }
        if draft.revisit_triggers.len() > 3 {
            return Err("a decision has at most 3 revisit triggers".into());
        }
        let bullets = draft.rationale.iter().chain(&draft.revisit_triggers).chain(std::iter::once(&draft.tradeoffs));
        for b in bullets {
            if b.chars().count() > MAX_BULLET_CHARS {
                return Err(format!(
                    "rationale, trade-offs and triggers are at most {MAX_BULLET_CHARS} characters each"
                ));
            }
        }
        if draft.rationale.iter().any(|r| r.trim().is_empty()) {
            return Err("an empty rationale bullet says nothing".into());
        }
        match (kind, draft.supersedes) {
            (DecisionKind::Supersession, None) => {
                Err("a supersession names the decision it replaces (`supersedes`)".into())
            }
            (DecisionKind::Supersession, Some(id)) => match self.get(id) {
                None => Err(format!("decision {id} does not exist")),
                Some(d) if d.superseded_by.is_some() => Err(format!(
                    "decision {id} was already superseded by decision {}",
                    d.superseded_by.unwrap_or_default()
                )),
                Some(_) => Ok(()),
            },
            (_, Some(_)) => Err("only the evaluation gate supersedes decisions".into()),
            _ => Ok(()),
        }
    }

    /// Appends a decision (the caller has checked it) and marks what it supersedes.
    pub(crate) fn append(&mut self, kind: DecisionKind, draft: DecisionDraft, gate: GateAct, at: Millis) -> u64 {
        let id = self.entries.len() as u64 + 1;
        if let Some(old) = draft.supersedes
            && let Some(i) = old.checked_sub(1).and_then(|i| usize::try_from(i).ok())
            && let Some(prev) = self.entries.get_mut(i)
        {
            prev.superseded_by = Some(id);
        }
        self.entries.push(DecisionRecord { id, kind, draft, gate, at, superseded_by: None });
        id
    }
}
