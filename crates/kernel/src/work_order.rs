//! Scoped work orders (seed 001, "Multi-Agent Model"): child tasks of the one commitment.
//!
//! SMART has one lease at a time; when a piece of the work should run on its own (a batch of
//! reads, a sweep of a folder) it becomes a work order, never a second commitment. A work
//! order inherits the active lease's scope — its tools are a subset of the live scope token's,
//! it lives exactly as long as that lease's epoch — and through the kernel it can:
//! - execute calls within that scope (the same admission as any call, plus the order's checks);
//! - register artifacts (its committed proposals are indexed with the order as owner);
//! - emit gate proposals (source `task_agent`).
//!
//! It cannot alter the commitment, change the stance or write slow memory, and that is not a
//! rule it is trusted to keep: the kernel's gate, lease and memory entry points take no work
//! order, and a call carrying an order id is admitted under the order's narrower scope only.
//! When the lease changes (renewal aside), expires or an emergency fires, the epoch ends and
//! every open order with it.

use crate::canonical::Hash;
use crate::time::Millis;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct WorkOrder {
    pub id: String,
    pub brief: String,
    /// The lease whose scope it inherits, and that lease's epoch.
    #[ts(type = "string")]
    pub lease: Hash,
    pub epoch: u64,
    pub tools: BTreeSet<String>,
    pub opened_at: Millis,
}

pub const MAX_OPEN: usize = 8;
pub const MAX_BRIEF_CHARS: usize = 300;

pub fn check_brief(brief: &str) -> Result<(), String> {
    let b = brief.trim();
    if b.is_empty() || b.chars().count() > MAX_BRIEF_CHARS {
        return Err(format!("a work order's brief is 1 to {MAX_BRIEF_CHARS} characters"));
    }
    Ok(())
}
