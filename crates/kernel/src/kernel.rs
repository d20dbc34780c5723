//! The kernel's decisions.
//!
//! Each public method takes the current state, the input and the time, and returns a
//! [`Decision`]: the events to append (in order) and the outcome for the caller. Nothing is
//! mutated here — the caller appends the events to the ledger and applies them to its state in
//! the same transaction, so a decision is either wholly recorded or not at all.
//!
//! Multi-step decisions (the commitment gate passes through Discovery; an emergency changes the
//! stance and re-issues scope) are built on a scratch copy of the state, so each step is judged
//! against the state the previous step left.
//!
//! The decisions are split by concern, one `impl Kernel` per file: calls, approvals, undo and
//! receipts (`kernel/calls.rs`); stance gates, the lease, scope, the emergency stop and the
//! gateway pass (`kernel/gates.rs`); the slow loop's proposals, memory notes, work orders and
//! bootstrap (`kernel/slow_loop.rs`). This file holds what they share: the decision's types and
//! the scratch state a multi-step decision is built on.

use crate::call::AdmittedCall;
use crate::error::KernelError;
use crate::event::KernelEvent;
use crate::policy::Policy;
use crate::refusal::Refusal;
use crate::state::KernelState;
use crate::time::Millis;
use crate::tool::Registry;
use crate::world::Artifact;
use serde_json::Value;

mod calls;
mod gates;
mod slow_loop;

pub use slow_loop::WORK_ORDER_PREFIX;

pub struct Kernel {
    policy: Policy,
    registry: Registry,
}

/// What a decision means for the caller.
#[derive(Debug)]
pub enum Outcome {
    Refused(Refusal),
    /// Held for the person's signed approval.
    Pending {
        id: String,
        admissible_at: Millis,
    },
    /// Run it, then hand the result to [`Kernel::receipt`].
    Admitted(Box<AdmittedCall>),
    /// A gate, lease, scope or signal decision that was recorded.
    Done,
}

#[derive(Debug)]
pub struct Decision {
    pub events: Vec<KernelEvent>,
    pub outcome: Outcome,
}

/// What an executor reports back.
#[derive(Clone, Debug, Default)]
pub struct ToolOutput {
    pub output: Value,
    pub artifact: Option<Artifact>,
    /// For reversible calls: what undo needs. Must hold an `inputs` map (path → hash or null)
    /// of what the files look like right after the call, so undo can check nothing moved since.
    pub rollback: Option<Value>,
    pub duration_ms: u64,
}

/// A scratch copy of the state and the events applied to it so far.
struct Builder {
    state: KernelState,
    events: Vec<KernelEvent>,
    at: Millis,
}

impl Builder {
    fn new(state: &KernelState, at: Millis) -> Builder {
        Builder { state: state.clone(), events: Vec::new(), at: at.max(state.last_at) }
    }

    fn push(&mut self, ev: KernelEvent) -> Result<(), KernelError> {
        // The scratch state is thrown away if any step fails, so it needs no atomic apply.
        self.state.apply_mut(&ev, self.at)?;
        self.events.push(ev);
        Ok(())
    }

    fn finish(self, outcome: Outcome) -> Decision {
        Decision { events: self.events, outcome }
    }
}
impl Kernel {
    pub fn new(policy: Policy, registry: Registry) -> Kernel {
        Kernel { policy, registry }
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The first event of a ledger.
    pub fn genesis(&self, device_key: &str) -> Result<KernelEvent, KernelError> {
        Ok(KernelEvent::Genesis {
            device_key: device_key.to_string(),
            policy: self.policy.clone(),
            policy_hash: self.policy.hash()?,
            registry_hash: self.registry.hash()?,
            hash_scheme: crate::state_hash::CURRENT,
        })
    }

    /// The event that moves a ledger begun under an older state hash scheme to today's, if
    /// `state` needs it: the host commits it in front of the next decision.
    pub fn hash_scheme_migration(&self, state: &KernelState) -> Option<KernelEvent> {
        (state.seq > 0 && state.hash_scheme < crate::state_hash::CURRENT)
            .then_some(KernelEvent::HashSchemeAdopted { scheme: crate::state_hash::CURRENT })
    }
}
