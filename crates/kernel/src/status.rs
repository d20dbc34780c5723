//! The status view: what governs the agent right now, as the HUD and `smart status` show it.
//!
//! The JSON shape is a contract shared with the UI (ui/src/status.ts) and scripts:
//! `stance`, `lease`, `frontier`, `gates`, `budget`, `pending`, `scope`, `now_ms`.

use crate::layer::Layer;
use crate::lease::LeaseState;
use crate::policy::Policy;
use crate::state::KernelState;
use crate::time::Millis;
use crate::time_gate;
use serde_json::{Value, json};

/// The lease as the status shows it (`null` without one); `smart memory` shows the same.
pub fn lease(state: &KernelState, now: Millis) -> Value {
    let lease = state.lease.as_ref().map(|l| {
        let st = match l.state {
            LeaseState::Active if !l.is_active_at(now) => "expired",
            LeaseState::Active => "active",
            LeaseState::Drafted => "drafted",
            LeaseState::Expired => "expired",
        };
        json!({
            "id": l.id.short(),
            "frame": l.draft.frame,
            "horizon": l.draft.horizon,
            "state": st,
            "duration_ms": l.draft.duration_ms,
            "expires_at_ms": l.expires_at.map(|e| e.0),
            "success_criteria": l.draft.success_criteria,
            "non_goals": l.draft.non_goals,
        })
    });
    json!(lease)
}

pub fn status(state: &KernelState, policy: &Policy, now: Millis) -> Value {
    let lease = lease(state, now);
    let gates: Vec<Value> = Layer::ALL[1..]
        .iter()
        .map(|&layer| {
            let below = layer.below().unwrap_or(Layer::L0);
            json!({
                "layer": layer.index(),
                "gate_ms": policy.gates.after(below),
                "remaining_ms": time_gate::remaining(layer, &state.last_commit, &policy.gates, now),
            })
        })
        .collect();
    let pending: Vec<Value> = state
        .pending
        .values()
        .map(|p| {
            json!({
                "id": p.id,
                "tool": p.call.tool,
                "layer": p.call.layer.index(),
                "tier": p.tier,
                "why": p.why,
                "call_hash": p.call.hash.to_hex(),
                "args": p.call.args,
                "expires_at_ms": p.expires_at.0,
                "admissible_at_ms": p.admissible_at.0,
            })
        })
        .collect();
    let scope = state.scope.as_ref().map(|t| {
        json!({
            "id": t.id.to_hex(),
            "context": t.context,
            "mutation": t.mutation,
            "revoked": t.revoked,
            "expires_at_ms": t.expires_at.0,
            "tools": t.tools,
        })
    });
    json!({
        "now_ms": now.0,
        "stance": state.stance,
        "lease": lease,
        "frontier": state.frontier.index(),
        "gates": gates,
        "budget": { "used": state.budget_used, "limit": policy.budget.per_lease },
        "steps": { "used": state.steps, "limit": policy.monotone.max_steps },
        "pending": pending,
        "scope": scope,
        "roots": policy.roots,
        "events": state.seq,
    })
}
