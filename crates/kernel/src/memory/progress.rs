//! Progress state (seed 001, fast memory): where the work stands, and when that stops being true.
//!
//! The fast loop updates it as it goes — it is non-authoritative and nothing is admitted or
//! refused because of it. It is *initialized* at the commitment gate and *reset* at the
//! evaluation gate (seed 001's gate tables), so it always belongs to a commitment. Its staleness
//! clock is the anti-creep rule: when nobody has touched it for `staleness_ms`, the decay pass
//! marks it stale — never deletes it — and the next update makes it fresh again.

use crate::time::Millis;
use serde::{Deserialize, Serialize};

pub const MAX_NEXT_ACTIONS: usize = 5;
pub const MAX_BLOCKERS: usize = 3;
pub const MAX_WINS: usize = 3;
pub const MAX_ITEM_CHARS: usize = 200;
/// A staleness clock shorter than a minute would mark everything stale between two turns;
/// longer than thirty days would never mark anything.
pub const MIN_STALENESS_MS: u64 = 60_000;
pub const MAX_STALENESS_MS: u64 = 30 * 24 * 3_600_000;
pub const DEFAULT_STALENESS_MS: u64 = 2 * 3_600_000;

/// What the commitment gate initializes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgressInit {
    pub current_stage: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub next_actions: Vec<String>,
    #[serde(default = "default_staleness")]
    pub staleness_ms: u64,
}

fn default_staleness() -> u64 {
    DEFAULT_STALENESS_MS
}

/// A fast-loop update; absent fields stay as they are.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgressUpdate {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_stage: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_actions: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blockers: Option<Vec<String>>,
    /// A completed item; the last three are kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub win: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Progress {
    pub current_stage: String,
    pub next_actions: Vec<String>,
    pub blockers: Vec<String>,
    pub recent_wins: Vec<String>,
    pub staleness_ms: u64,
    pub updated_at: Millis,
    /// The staleness clock: when this should be reconsidered.
    pub stale_at: Millis,
    pub stale: bool,
}

fn check_items(what: &str, items: &[String], max: usize) -> Result<(), String> {
    if items.len() > max {
        return Err(format!("progress keeps at most {max} {what}"));
    }
    if items.iter().any(|i| i.trim().is_empty() || i.chars().count() > MAX_ITEM_CHARS) {
        return Err(format!("each of the {what} is 1 to {MAX_ITEM_CHARS} characters"));
    }
    Ok(())
}

fn check_stage(stage: &str) -> Result<(), String> {
    if stage.trim().is_empty() || stage.chars().count() > MAX_ITEM_CHARS {
        return Err(format!("the current stage is 1 to {MAX_ITEM_CHARS} characters"));
    }
    Ok(())
}

impl ProgressInit {
    pub fn check(&self) -> Result<(), String> {
        check_stage(&self.current_stage)?;
        check_items("next actions", &self.next_actions, MAX_NEXT_ACTIONS)?;
        if !(MIN_STALENESS_MS..=MAX_STALENESS_MS).contains(&self.staleness_ms) {
            return Err("the staleness clock runs between one minute and thirty days".into());
        }
        Ok(())
    }
}

impl ProgressUpdate {
    pub fn check(&self) -> Result<(), String> {
        if self.current_stage.is_none() && self.next_actions.is_none() && self.blockers.is_none() && self.win.is_none()
        {
            return Err("a progress update changes at least one of stage, next actions, blockers, win".into());
        }
        if let Some(s) = &self.current_stage {
            check_stage(s)?;
        }
        if let Some(n) = &self.next_actions {
            check_items("next actions", n, MAX_NEXT_ACTIONS)?;
        }
        if let Some(b) = &self.blockers {
            check_items("blockers", b, MAX_BLOCKERS)?;
        }
        if let Some(w) = &self.win {
            check_items("wins", std::slice::from_ref(w), 1)?;
        }
        Ok(())
    }
}

impl Progress {
    pub(crate) fn init(init: &ProgressInit, at: Millis) -> Progress {
        Progress {
            current_stage: init.current_stage.trim().to_string(),
            next_actions: init.next_actions.clone(),
            blockers: Vec::new(),
            recent_wins: Vec::new(),
            staleness_ms: init.staleness_ms,
            updated_at: at,
            stale_at: at.plus(init.staleness_ms),
            stale: false,
        }
    }

    /// Any update restarts the staleness clock.
    pub(crate) fn update(&mut self, u: &ProgressUpdate, at: Millis) {
        if let Some(s) = &u.current_stage {
            self.current_stage = s.trim().to_string();
        }
        if let Some(n) = &u.next_actions {
            self.next_actions = n.clone();
        }
        if let Some(b) = &u.blockers {
            self.blockers = b.clone();
        }
        if let Some(w) = &u.win {
            self.recent_wins.push(w.clone());
            let extra = self.recent_wins.len().saturating_sub(MAX_WINS);
            self.recent_wins.drain(..extra);
        }
        self.updated_at = at;
        self.stale_at = at.plus(self.staleness_ms);
        self.stale = false;
    }

    /// Whether the decay pass should mark it stale at `now`.
    pub fn due_stale(&self, now: Millis) -> bool {
        !self.stale && now >= self.stale_at
    }
}
