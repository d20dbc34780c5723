//! The move plan: the artifact `propose.move` writes and `apply.move` and undo read.
//!
//! A plan is checked for internal consistency twice — when proposed, and again when applied —
//! because an inconsistent plan cannot be applied safely in any order: two moves to the same
//! destination, a destination inside a folder another move takes away, or a file inside a
//! folder that is also being moved would make the outcome depend on the order of the steps, and
//! undo could not reconstruct the original. Refusing these keeps every move independent of the
//! others, so each can be checked, done and undone on its own.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// The artifact kind of a move plan.
pub const MOVE_PLAN: &str = "move_plan";

/// One move, with both paths already resolved by the kernel.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Move {
    pub from: String,
    pub to: String,
}

impl Move {
    fn describe(&self, index: usize) -> String {
        format!("move {} ({} → {})", index + 1, self.from, self.to)
    }
}

/// Reads the `moves` array of a call's arguments, a plan body or a rollback value.
pub(crate) fn moves_in(value: &Value, what: &str) -> Result<Vec<Move>, String> {
    let moves = value.get("moves").cloned().ok_or_else(|| format!("{what} has no list of moves"))?;
    serde_json::from_value(moves).map_err(|e| format!("{what} has malformed moves: {e}"))
}

/// Refuses plans whose moves are not independent of each other.
pub(crate) fn check_independent(moves: &[Move]) -> Result<(), String> {
    let mut froms: BTreeMap<&str, usize> = BTreeMap::new();
    let mut tos: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, m) in moves.iter().enumerate() {
        if let Some(j) = froms.insert(m.from.as_str(), i) {
            return Err(format!("{} and {} both move {}", moves[j].describe(j), m.describe(i), m.from));
        }
        if let Some(j) = tos.insert(m.to.as_str(), i) {
            return Err(format!("{} and {} both move something to {}", moves[j].describe(j), m.describe(i), m.to));
        }
    }
    for (i, m) in moves.iter().enumerate() {
        if let Some(&j) = froms.get(m.to.as_str()) {
            return Err(format!("{}: its destination is what {} moves away", m.describe(i), moves[j].describe(j)));
        }
        for ancestor in Path::new(&m.to).ancestors().skip(1).filter_map(Path::to_str) {
            if let Some(&j) = froms.get(ancestor) {
                return Err(if i == j {
                    format!("{}: a folder cannot be moved inside itself", m.describe(i))
                } else {
                    format!(
                        "{}: its destination is inside {}, which {} moves away",
                        m.describe(i),
                        ancestor,
                        moves[j].describe(j)
                    )
                });
            }
            if let Some(&j) = tos.get(ancestor) {
                return Err(format!(
                    "{}: its destination is inside the destination of {}",
                    m.describe(i),
                    moves[j].describe(j)
                ));
            }
        }
        for ancestor in Path::new(&m.from).ancestors().skip(1).filter_map(Path::to_str) {
            if let Some(&j) = froms.get(ancestor) {
                return Err(format!(
                    "{}: {} is inside {}, which {} already moves",
                    m.describe(i),
                    m.from,
                    ancestor,
                    moves[j].describe(j)
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    fn mv(from: &str, to: &str) -> Move {
        Move { from: from.into(), to: to.into() }
    }

    #[test]
    fn dependent_plans_are_refused_with_the_moves_named() {
        let cases: &[(&[Move], &str)] = &[
            (&[mv("/r/a", "/r/x"), mv("/r/a", "/r/y")], "both move /r/a"),
            (&[mv("/r/a", "/r/x"), mv("/r/b", "/r/x")], "both move something to /r/x"),
            (&[mv("/r/a", "/r/b"), mv("/r/b", "/r/c")], "what move 2"),
            (&[mv("/r/d", "/r/d/sub")], "inside itself"),
            (&[mv("/r/d", "/r/e"), mv("/r/a", "/r/d/a")], "which move 1"),
            (&[mv("/r/a", "/r/x"), mv("/r/b", "/r/x/b")], "inside the destination of move 1"),
            (&[mv("/r/d", "/r/e"), mv("/r/d/f", "/r/g")], "already moves"),
        ];
        for (moves, expected) in cases {
            let err = check_independent(moves).unwrap_err();
            assert!(err.contains(expected), "{err} (wanted {expected:?})");
        }
        check_independent(&[mv("/r/a", "/r/s/a"), mv("/r/b", "/r/s/b"), mv("/r/dd", "/r/d")]).unwrap();
    }
}
