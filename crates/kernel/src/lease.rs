//! The commitment lease (seed 001): the one problem the agent is committed to, for how long.
//!
//! A lease is drafted at the framing gate, activated at the commitment gate (its clock starts
//! then), renewed/revised/released at the evaluation gate, and it expires unless renewed. Only
//! an active, unexpired lease lets calls above L1 through.

use crate::canonical::Hash;
use crate::time::Millis;
use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Horizon {
    Short,
    Mid,
    Long,
}

impl std::str::FromStr for Horizon {
    type Err = String;
    fn from_str(s: &str) -> Result<Horizon, String> {
        match s {
            "short" => Ok(Horizon::Short),
            "mid" => Ok(Horizon::Mid),
            "long" => Ok(Horizon::Long),
            _ => Err(format!("horizon {s:?} must be short, mid or long")),
        }
    }
}

impl fmt::Display for Horizon {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Horizon::Short => "short",
            Horizon::Mid => "mid",
            Horizon::Long => "long",
        })
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LeaseState {
    Drafted,
    Active,
    Expired,
}

/// What a person (or the framing gate) drafts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaseDraft {
    pub frame: String,
    pub horizon: Horizon,
    pub duration_ms: u64,
    #[serde(default)]
    pub success_criteria: Vec<String>,
    #[serde(default)]
    pub non_goals: Vec<String>,
    #[serde(default)]
    pub renewal_prompt: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lease {
    pub id: Hash,
    #[serde(flatten)]
    pub draft: LeaseDraft,
    pub state: LeaseState,
    pub drafted_at: Millis,
    /// Set when the commitment gate activates the lease.
    pub expires_at: Option<Millis>,
}

impl Lease {
    pub fn is_active_at(&self, now: Millis) -> bool {
        self.state == LeaseState::Active && self.expires_at.is_some_and(|e| now < e)
    }
}
