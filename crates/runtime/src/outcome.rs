//! What became of a request, as types: the kernel's answer to one call (`CallOutcome`) and how a
//! whole turn ended (`TurnEnd`).
//!
//! These words travel far: into `smart --json`, the exit code, the bus, the HUD's live line, the
//! overlay, the dialog's notices, the spoken reply. As `&'static str`s they were compared by
//! spelling in thirty places in Rust and eight in the UI, and a misspelt "commited" would have
//! compiled everywhere and matched nothing. Now each is an enum, serialised once (snake case, the
//! same words as before, so JSON consumers see no change), and generated into the UI's TypeScript
//! with the app's command types (`src-tauri/src/bindings.rs`), where a comparison with a word that
//! is not one of them fails the type check.

use serde::{Deserialize, Serialize};

/// The kernel's answer to one call, signal, gate or undo, as the engine reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum CallOutcome {
    /// Admitted, run, and its receipt recorded.
    Committed,
    /// The kernel said no; nothing ran.
    Refused,
    /// Held for the person's signed approval.
    Pending,
    /// Admitted and run, but the tool failed (its receipt says why).
    Failed,
    /// The person denied a pending call.
    Denied,
    /// A decision that runs nothing was recorded (a gate, a lease, a scope, a signal).
    Recorded,
}

impl CallOutcome {
    /// The word `smart --json` and the UI use.
    pub fn as_str(self) -> &'static str {
        match self {
            CallOutcome::Committed => "committed",
            CallOutcome::Refused => "refused",
            CallOutcome::Pending => "pending",
            CallOutcome::Failed => "failed",
            CallOutcome::Denied => "denied",
            CallOutcome::Recorded => "recorded",
        }
    }
}

impl std::fmt::Display for CallOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How one turn ended: with what the kernel made of its proposal, or before a proposal reached it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum TurnEnd {
    Committed,
    Refused,
    Pending,
    Failed,
    Denied,
    Recorded,
    /// `--propose-only`: the proposal was shown and not submitted.
    ProposeOnly,
    /// A clarifying question instead of a guess.
    Asked,
    /// No call was needed; a reply, or nothing.
    NoCall,
    /// The words were bootstrap's answer (its first-contact questions).
    Bootstrap,
}

impl From<CallOutcome> for TurnEnd {
    fn from(o: CallOutcome) -> TurnEnd {
        match o {
            CallOutcome::Committed => TurnEnd::Committed,
            CallOutcome::Refused => TurnEnd::Refused,
            CallOutcome::Pending => TurnEnd::Pending,
            CallOutcome::Failed => TurnEnd::Failed,
            CallOutcome::Denied => TurnEnd::Denied,
            CallOutcome::Recorded => TurnEnd::Recorded,
        }
    }
}

impl TurnEnd {
    pub fn as_str(self) -> &'static str {
        match self {
            TurnEnd::ProposeOnly => "propose_only",
            TurnEnd::Asked => "asked",
            TurnEnd::NoCall => "no_call",
            TurnEnd::Bootstrap => "bootstrap",
            TurnEnd::Committed => CallOutcome::Committed.as_str(),
            TurnEnd::Refused => CallOutcome::Refused.as_str(),
            TurnEnd::Pending => CallOutcome::Pending.as_str(),
            TurnEnd::Failed => CallOutcome::Failed.as_str(),
            TurnEnd::Denied => CallOutcome::Denied.as_str(),
            TurnEnd::Recorded => CallOutcome::Recorded.as_str(),
        }
    }
}

impl std::fmt::Display for TurnEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CALLS: [CallOutcome; 6] = [
        CallOutcome::Committed,
        CallOutcome::Refused,
        CallOutcome::Pending,
        CallOutcome::Failed,
        CallOutcome::Denied,
        CallOutcome::Recorded,
    ];

    /// The words on the wire are the words `as_str` gives (what the CLI prints and exit codes
    /// read), and a call's outcome ends a turn with the same word.
    #[test]
    fn each_outcome_is_one_word_everywhere() {
        for o in CALLS {
            assert_eq!(serde_json::to_value(o).ok(), Some(serde_json::json!(o.as_str())));
            assert_eq!(TurnEnd::from(o).as_str(), o.as_str());
            assert_eq!(serde_json::to_value(TurnEnd::from(o)).ok(), Some(serde_json::json!(o.as_str())));
        }
        for t in [TurnEnd::ProposeOnly, TurnEnd::Asked, TurnEnd::NoCall, TurnEnd::Bootstrap] {
            assert_eq!(serde_json::to_value(t).ok(), Some(serde_json::json!(t.as_str())));
            assert!(CALLS.iter().all(|o| o.as_str() != t.as_str()));
        }
    }
}
