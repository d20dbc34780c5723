//! The decay manager (seed 001, "Decay Rules (Anti-Creep)"): what time does to memory.
//!
//! | object | rule | event |
//! |---|---|---|
//! | pending call | expires after its time to live | `pending_expired` |
//! | commitment lease | expires unless renewed; expiry emits `GateProposal(evaluation, high)` | `lease_expired` + `gate_proposed` |
//! | progress state | staleness clock: marked stale, not deleted | `progress_staled` |
//! | artifact index | freshness current → stale → review-needed | `artifact_decayed` |
//! | decisions | never deleted; only superseded (no event: nothing decays) | — |
//! | principles | change only at the evaluation gate (no event) | — |
//!
//! [`due`] is pure: given the state and the time it returns the events that are due, in a fixed
//! order, and the kernel's gateway pass appends them. Like every kernel input, time is an
//! argument, so each rule is tested by stepping an injected clock.
//!
//! The decay manager proposes; it does not move the stance. Whether an expired lease takes
//! Execution to Evaluation is the gate controller's verdict on its proposal.

use crate::event::KernelEvent;
use crate::gate_proposal::{GateProposal, GateSource, Severity, SuggestedGate};
use crate::lease::LeaseState;
use crate::state::KernelState;
use crate::time::Millis;

pub fn due(state: &KernelState, now: Millis) -> Vec<KernelEvent> {
    let mut events: Vec<KernelEvent> = state
        .pending
        .values()
        .filter(|p| now >= p.expires_at)
        .map(|p| KernelEvent::PendingExpired { pending_id: p.id.clone() })
        .collect();
    if let Some(lease) =
        state.lease.as_ref().filter(|l| l.state == LeaseState::Active && l.expires_at.is_some_and(|e| now >= e))
    {
        events.push(KernelEvent::LeaseExpired { id: lease.id });
        let reason =
            format!("the lease \"{}\" expired without renewal", crate::bootstrap::cut(&lease.draft.frame, 120));
        events.push(KernelEvent::GateProposed {
            proposal: GateProposal::new(
                GateSource::DecayManager,
                SuggestedGate::Evaluation,
                Severity::High,
                reason,
                now,
            )
            .with_origin("lease_expiry"),
        });
    }
    if state.memory.progress().is_some_and(|p| p.due_stale(now)) {
        events.push(KernelEvent::ProgressStaled {});
    }
    for (pointer, freshness) in state.memory.artifacts().due(now) {
        events.push(KernelEvent::ArtifactDecayed { pointer, freshness });
    }
    events
}
