//! The status view: what governs the agent right now, as the HUD and `smart status` show it.
//!
//! The shape is a contract with the UI and with scripts (`smart status --json`). It is typed
//! here, once: the UI's TypeScript is generated from these structs with the app's command types
//! (`src-tauri/src/bindings.rs`), so a field renamed here fails the UI's type check instead of
//! reading as `undefined` on screen (a hand-written mirror in `ui/src/status.ts` had already
//! drifted: it held a lease's expiry as always present, which a drafted lease does not have).

use crate::layer::Layer;
use crate::lease::{Horizon, LeaseState};
use crate::policy::Policy;
use crate::stance::Stance;
use crate::state::KernelState;
use crate::time::Millis;
use crate::time_gate;
use serde::Serialize;
use serde_json::Value;

/// Everything that governs the agent now.
#[derive(Clone, Debug, PartialEq, Serialize, ts_rs::TS)]
pub struct StatusView {
    /// The kernel's clock: countdowns are computed against it, not the screen's.
    pub now_ms: u64,
    pub stance: Stance,
    pub lease: Option<LeaseView>,
    /// Highest layer committed in this lease, 0..4.
    pub frontier: u8,
    /// One per layer 1..4: the time gate before its first call.
    pub gates: Vec<GateView>,
    /// Budget units spent in this lease, of the policy's limit.
    pub budget: Usage,
    /// Steps taken in this lease, of the policy's limit.
    pub steps: Usage,
    pub pending: Vec<PendingSummary>,
    pub scope: Option<ScopeView>,
    /// The folders SMART may work in.
    pub roots: Vec<String>,
    /// Events in the ledger: the slow-loop panel re-reads when it grows.
    pub events: u64,
}

/// The commitment lease (`smart memory` shows the same).
#[derive(Clone, Debug, PartialEq, Serialize, ts_rs::TS)]
pub struct LeaseView {
    /// The lease id's short form.
    pub id: String,
    pub frame: String,
    pub horizon: Horizon,
    pub state: LeaseViewState,
    pub duration_ms: u64,
    /// `None` until the commitment gate activates it.
    pub expires_at_ms: Option<u64>,
    /// What "done" means for this lease, in the person's words.
    pub success_criteria: Vec<String>,
    pub non_goals: Vec<String>,
}

/// A lease's state as shown: an active lease past its expiry is shown expired before the decay
/// manager records it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum LeaseViewState {
    Drafted,
    Active,
    Expired,
}

#[derive(Clone, Debug, PartialEq, Serialize, ts_rs::TS)]
pub struct GateView {
    pub layer: u8,
    pub gate_ms: u64,
    pub remaining_ms: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, ts_rs::TS)]
pub struct Usage {
    pub used: u64,
    pub limit: u64,
}

/// A call waiting for the person, as the status lists it (the dialog reads more: the app's
/// `PendingView`).
#[derive(Clone, Debug, PartialEq, Serialize, ts_rs::TS)]
pub struct PendingSummary {
    pub id: String,
    pub tool: String,
    pub layer: u8,
    pub tier: u8,
    pub why: String,
    pub call_hash: String,
    #[ts(type = "unknown")]
    pub args: Value,
    pub expires_at_ms: u64,
    pub admissible_at_ms: u64,
}

/// Orbit's live scope token.
#[derive(Clone, Debug, PartialEq, Serialize, ts_rs::TS)]
pub struct ScopeView {
    pub id: String,
    pub context: String,
    pub mutation: bool,
    pub revoked: bool,
    pub expires_at_ms: u64,
    pub tools: Vec<String>,
}

/// The lease as the status shows it (`None` without one).
pub fn lease(state: &KernelState, now: Millis) -> Option<LeaseView> {
    state.lease.as_ref().map(|l| LeaseView {
        id: l.id.short(),
        frame: l.draft.frame.clone(),
        horizon: l.draft.horizon,
        state: match l.state {
            LeaseState::Active if !l.is_active_at(now) => LeaseViewState::Expired,
            LeaseState::Active => LeaseViewState::Active,
            LeaseState::Drafted => LeaseViewState::Drafted,
            LeaseState::Expired => LeaseViewState::Expired,
        },
        duration_ms: l.draft.duration_ms,
        expires_at_ms: l.expires_at.map(|e| e.0),
        success_criteria: l.draft.success_criteria.clone(),
        non_goals: l.draft.non_goals.clone(),
    })
}

pub fn status(state: &KernelState, policy: &Policy, now: Millis) -> StatusView {
    let gates = Layer::ALL[1..]
        .iter()
        .map(|&layer| {
            let below = layer.below().unwrap_or(Layer::L0);
            GateView {
                layer: layer.index(),
                gate_ms: policy.gates.after(below),
                remaining_ms: time_gate::remaining(layer, &state.last_commit, &policy.gates, now),
            }
        })
        .collect();
    let pending = state
        .pending
        .values()
        .map(|p| PendingSummary {
            id: p.id.clone(),
            tool: p.call.tool.clone(),
            layer: p.call.layer.index(),
            tier: u8::from(p.tier),
            why: p.why.clone(),
            call_hash: p.call.hash.to_hex(),
            args: p.call.args.clone(),
            expires_at_ms: p.expires_at.0,
            admissible_at_ms: p.admissible_at.0,
        })
        .collect();
    let scope = state.scope.as_ref().map(|t| ScopeView {
        id: t.id.to_hex(),
        context: t.context.clone(),
        mutation: t.mutation,
        revoked: t.revoked,
        expires_at_ms: t.expires_at.0,
        tools: t.tools.iter().cloned().collect(),
    });
    StatusView {
        now_ms: now.0,
        stance: state.stance,
        lease: lease(state, now),
        frontier: state.frontier.index(),
        gates,
        budget: Usage { used: state.budget_used, limit: policy.budget.per_lease },
        steps: Usage { used: u64::from(state.steps), limit: u64::from(policy.monotone.max_steps) },
        pending,
        scope,
        roots: policy.roots.clone(),
        events: state.seq,
    }
}
