//! Everything that changes kernel state, as data.
//!
//! The kernel decides by returning events; the host appends them to the ledger and applies them
//! to state with [`crate::KernelState::apply`]. Replay applies the same events again. There is
//! no other way to change state, so the ledger is a complete account of why the state is what
//! it is.

use crate::approval::UserSignal;
use crate::bootstrap::BootstrapInput;
use crate::call::{ProposedCall, ResolvedCall};
use crate::canonical::Hash;
use crate::gate_controller::Verdict;
use crate::gate_proposal::{GateProposal, ReadTrigger};
use crate::layer::Layer;
use crate::lease::Lease;
use crate::memory::{ArtifactDraft, DecisionDraft, Freshness, ProgressUpdate, SignalKind, SlowWrite};
use crate::policy::Policy;
use crate::refusal::RefusalCode;
use crate::scope::ScopeToken;
use crate::stance::{GateAct, Stance};
use crate::tier::Tier;
use crate::time::Millis;
use crate::work_order::WorkOrder;
use crate::world::Artifact;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// A Tier 3 call waiting for the person.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PendingCall {
    pub id: String,
    pub proposed: ProposedCall,
    pub call: ResolvedCall,
    pub tier: Tier,
    /// Why it needs the person, in words.
    pub why: String,
    pub created_at: Millis,
    pub expires_at: Millis,
    /// When the time gate lets it through; the dialog counts down to this.
    pub admissible_at: Millis,
    /// Input file hashes when the person was asked: the approval is for these contents.
    pub inputs: BTreeMap<String, Option<Hash>>,
}

/// Declares [`KernelEvent`] and, from the same text, its twin [`ByKind`]: the same variants and
/// fields, deserialised with the kind given from outside instead of read from the payload (see
/// [`crate::event_read`]). One declaration, so the two cannot drift apart. A variant's own
/// attributes (its docs) stay on `KernelEvent` alone: a serde attribute on a variant would have
/// to be given to `ByKind` too, and `event_read`'s test of every variant says so if it is not.
macro_rules! kernel_events {
    (
        $(#[$meta:meta])*
        pub enum KernelEvent {
            $( $(#[$variant_meta:meta])* $variant:ident { $( $(#[$field_meta:meta])* $field:ident : $ty:ty ),* $(,)? } ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        pub enum KernelEvent {
            $( $(#[$variant_meta])* $variant { $( $(#[$field_meta])* $field: $ty ),* } ),*
        }

        /// [`KernelEvent`] as serde's externally tagged form, for a reader that knows the kind.
        #[derive(Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub(crate) enum ByKind {
            $( $variant { $( $(#[$field_meta])* $field: $ty ),* } ),*
        }

        /// Every variant's name, for the test that each reads by its kind.
        #[cfg(test)]
        pub(crate) const VARIANTS: &[&str] = &[$( stringify!($variant) ),*];

        impl From<ByKind> for KernelEvent {
            fn from(event: ByKind) -> KernelEvent {
                match event {
                    $( ByKind::$variant { $( $field ),* } => KernelEvent::$variant { $( $field ),* } ),*
                }
            }
        }
    };
}

kernel_events! {
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum KernelEvent {
    /// The first event: which device key approvals must be signed with, which policy governs,
    /// how the state is hashed (absent in ledgers begun before there was a choice).
    Genesis {
        device_key: String,
        policy: Policy,
        policy_hash: Hash,
        registry_hash: Hash,
        #[serde(default = "crate::state_hash::first", skip_serializing_if = "crate::state_hash::is_first")]
        hash_scheme: u32,
    },
    /// From this event on, the state is hashed by `scheme`: the migration point of a ledger begun
    /// under an older scheme (its `state_before` is the old scheme's hash, its `state_after` the
    /// new one's).
    HashSchemeAdopted {
        scheme: u32,
    },
    ScopeIssued {
        token: ScopeToken,
    },
    ScopeRevoked {
        id: Hash,
        reason: String,
    },
    /// A proposal as it arrived, before any check.
    Proposed {
        call: ProposedCall,
    },
    Refused {
        tool: String,
        call_hash: Option<Hash>,
        code: RefusalCode,
        reason: String,
    },
    Pending {
        pending: PendingCall,
    },
    Admitted {
        call: ResolvedCall,
        tier: Tier,
        inputs: BTreeMap<String, Option<Hash>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pending_id: Option<String>,
        /// The scoped work order that proposed it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        work_order: Option<String>,
    },
    /// The execution receipt of an admitted call (seed 000 §7.4).
    Committed {
        call_hash: Hash,
        tool: String,
        layer: Layer,
        tier: Tier,
        output: Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        artifact: Option<Artifact>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rollback: Option<Value>,
        /// Tier 2: the person is told.
        notify: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        undoes: Option<u64>,
        duration_ms: u64,
    },
    Failed {
        call_hash: Hash,
        tool: String,
        error: String,
    },
    Approved {
        pending_id: String,
        signal: UserSignal,
    },
    Denied {
        pending_id: String,
        signal: UserSignal,
    },
    /// A user signal the kernel refused (forged, expired, replayed, or the call is not admissible yet).
    SignalRefused {
        signal: UserSignal,
        code: RefusalCode,
        reason: String,
        /// The signal was genuinely this device's and its nonce unused: refusing it spends the
        /// nonce, so the same signed approval cannot be handed in again later and commit then
        /// (the person approves afresh). Absent — false — in events from before this was kept.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        spent: bool,
    },
    PendingExpired {
        pending_id: String,
    },
    LeaseDrafted {
        lease: Lease,
    },
    LeaseActivated {
        id: Hash,
        expires_at: Millis,
    },
    LeaseRenewed {
        id: Hash,
        expires_at: Millis,
    },
    LeaseRevised {
        id: Hash,
    },
    LeaseReleased {
        id: Hash,
    },
    LeaseExpired {
        id: Hash,
    },
    StanceChanged {
        from: Stance,
        to: Stance,
        act: GateAct,
        /// Slow-memory writes made at this gate (see `memory::write_policy`): the only way slow
        /// memory changes.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        writes: Vec<SlowWrite>,
    },
    GateRefused {
        act: GateAct,
        code: RefusalCode,
        reason: String,
    },
    /// The emergency gate: the lease is invalidated and every pending call cancelled.
    Emergency {
        signal: UserSignal,
        reason: String,
        cancelled: Vec<String>,
        /// The emergency decision it logs (absent in ledgers recorded before the decision log).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        decision: Option<DecisionDraft>,
    },
    UndoRequested {
        target_seq: u64,
    },
    UndoAdmitted {
        target_seq: u64,
        call: ResolvedCall,
    },
    /// A supervised component (the proposer worker, later the voice worker) failed and was
    /// restarted. Recorded so the person's account of a session includes what broke; it changes
    /// no authority.
    Fault {
        component: String,
        reason: String,
        restart_in_ms: u64,
    },
    /// A proposal waits in the buffer for the gate controller.
    GateProposed {
        proposal: GateProposal,
    },
    /// The gate controller read the buffer: every proposal with its verdict, in merge order.
    /// The accepted acts follow as their own events.
    ProposalsRead {
        trigger: ReadTrigger,
        verdicts: Vec<Verdict>,
    },
    /// Fast memory: the fast loop's progress update.
    ProgressNoted {
        update: ProgressUpdate,
    },
    /// The decay manager: progress passed its staleness clock.
    ProgressStaled {},
    /// Fast memory: an interaction signal.
    SignalNoted {
        signal: SignalKind,
        text: String,
    },
    /// Bridge memory: an artifact registered (or re-registered) by the person or a work order.
    ArtifactRegistered {
        artifact: ArtifactDraft,
        owner: String,
    },
    /// The decay manager: an artifact's freshness decayed.
    ArtifactDecayed {
        pointer: String,
        freshness: Freshness,
    },
    WorkOrderOpened {
        order: WorkOrder,
    },
    WorkOrderClosed {
        id: String,
        reason: String,
    },
    /// One step of the first-contact protocol.
    BootstrapStepped {
        input: BootstrapInput,
    },
}
}

impl KernelEvent {
    /// The ledger's `kind` column.
    pub fn kind(&self) -> &'static str {
        match self {
            KernelEvent::Genesis { .. } => "genesis",
            KernelEvent::HashSchemeAdopted { .. } => "hash_scheme_adopted",
            KernelEvent::ScopeIssued { .. } => "scope_issued",
            KernelEvent::ScopeRevoked { .. } => "scope_revoked",
            KernelEvent::Proposed { .. } => "proposed",
            KernelEvent::Refused { .. } => "refused",
            KernelEvent::Pending { .. } => "pending",
            KernelEvent::Admitted { .. } => "admitted",
            KernelEvent::Committed { .. } => "committed",
            KernelEvent::Failed { .. } => "failed",
            KernelEvent::Approved { .. } => "approved",
            KernelEvent::Denied { .. } => "denied",
            KernelEvent::SignalRefused { .. } => "signal_refused",
            KernelEvent::PendingExpired { .. } => "pending_expired",
            KernelEvent::LeaseDrafted { .. } => "lease_drafted",
            KernelEvent::LeaseActivated { .. } => "lease_activated",
            KernelEvent::LeaseRenewed { .. } => "lease_renewed",
            KernelEvent::LeaseRevised { .. } => "lease_revised",
            KernelEvent::LeaseReleased { .. } => "lease_released",
            KernelEvent::LeaseExpired { .. } => "lease_expired",
            KernelEvent::StanceChanged { .. } => "stance_changed",
            KernelEvent::GateRefused { .. } => "gate_refused",
            KernelEvent::Emergency { .. } => "emergency",
            KernelEvent::UndoRequested { .. } => "undo_requested",
            KernelEvent::UndoAdmitted { .. } => "undo_admitted",
            KernelEvent::Fault { .. } => "fault",
            KernelEvent::GateProposed { .. } => "gate_proposed",
            KernelEvent::ProposalsRead { .. } => "proposals_read",
            KernelEvent::ProgressNoted { .. } => "progress_noted",
            KernelEvent::ProgressStaled { .. } => "progress_staled",
            KernelEvent::SignalNoted { .. } => "signal_noted",
            KernelEvent::ArtifactRegistered { .. } => "artifact_registered",
            KernelEvent::ArtifactDecayed { .. } => "artifact_decayed",
            KernelEvent::WorkOrderOpened { .. } => "work_order_opened",
            KernelEvent::WorkOrderClosed { .. } => "work_order_closed",
            KernelEvent::BootstrapStepped { .. } => "bootstrap_stepped",
        }
    }

    /// The user signal an event carries, for `ledger verify` to check its signature.
    pub fn signal(&self) -> Option<&UserSignal> {
        match self {
            KernelEvent::Approved { signal, .. }
            | KernelEvent::Denied { signal, .. }
            | KernelEvent::Emergency { signal, .. } => Some(signal),
            _ => None,
        }
    }
}
