//! The id of one request, from where it enters to the last event it causes.
//!
//! A person who watched a turn on the HUD (its live line shows the id's first characters) should
//! find that same turn in the ledger — every event of it, and nothing else. Seed 003 records
//! every step of a request under one correlation id; before this type existed each engine call
//! made its own, so the timeline's filter found nothing for the id the person had been shown.
//!
//! So an id is made once, where the request enters: the typed sentence (`Assistant::say`), the
//! start of speech (the voice front ends, which pass it to `Assistant::hear_with`), an undo or a
//! gate the person asked for. It then travels with the request: the bus messages, the engine's
//! ledger events (`Engine::in_turn` / `Engine::enter_turn`), the executor's receipt, the
//! evaluator's findings at the end of the turn, and the report the CLI and the app show. A
//! decision on a pending call joins the turn that made the call wait (`Engine::decide`): the
//! approval is a step of that request, not a request of its own.
//!
//! Events nobody asked for — a lease or a pending call running out while a turn happens to be
//! open, a worker's fault recorded between turns — keep ids of their own.
//!
//! Architecture Invariant: this is a label for people and filters, never an input to a
//! decision. The kernel does not see it, the state hash does not cover it, and replay ignores it.

use serde::{Deserialize, Serialize};

/// One request's correlation id: 16 lowercase hex digits (64 random bits).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TurnId(String);

impl TurnId {
    /// A fresh id. The random source failing (it does not, on any supported OS) gives the
    /// all-zero id rather than no turn: a label is never worth refusing a request over.
    pub fn new() -> TurnId {
        TurnId(smart_signals::new_nonce().map(|n| n[..16].to_string()).unwrap_or_else(|_| "0".repeat(16)))
    }

    /// The id as the ledger and the bus store it.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// An id read back from the ledger or given by a caller (a dialog that shows which turn
    /// it decides for). Refused unless it looks like one this type makes, so a filter or a
    /// label never carries arbitrary text.
    pub fn parse(text: &str) -> Result<TurnId, String> {
        let t = text.trim();
        if t.len() == 16 && t.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
            Ok(TurnId(t.to_string()))
        } else {
            Err(format!("{text:?} is not a turn id (16 lowercase hex digits)"))
        }
    }
}

impl Default for TurnId {
    fn default() -> Self {
        TurnId::new()
    }
}

impl std::fmt::Display for TurnId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for TurnId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_ids_differ_and_read_back_as_themselves() {
        let a = TurnId::new();
        let b = TurnId::new();
        assert_ne!(a, b);
        assert_eq!(TurnId::parse(a.as_str()), Ok(a.clone()));
        assert_eq!(serde_json::to_string(&a).ok(), Some(format!("\"{a}\"")));
    }

    #[test]
    fn text_that_is_not_an_id_is_refused() {
        for bad in ["", "abc", "0123456789ABCDEF", "0123456789abcdeg", "0123456789abcdef0", "' OR 1=1 --"] {
            assert!(TurnId::parse(bad).is_err(), "{bad:?} was taken as a turn id");
        }
    }
}
