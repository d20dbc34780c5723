//! Why the kernel said no, as a stable code and a sentence.
//!
//! The code is for programs (the CLI's `--json`, the UI, tests, scripts): it never changes
//! meaning once released. The sentence is for the person: it names the specific thing that
//! failed and, where there is one, what to do about it.

use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! codes {
    ($($variant:ident = $code:literal : $doc:literal,)*) => {
        /// Every refusal the kernel can give. `smart refusals` prints this table.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum RefusalCode {
            $(#[doc = $doc] $variant,)*
        }

        impl RefusalCode {
            pub const ALL: &'static [RefusalCode] = &[$(RefusalCode::$variant,)*];

            pub fn as_str(self) -> &'static str {
                match self { $(RefusalCode::$variant => $code,)* }
            }

            /// One line on what the code means.
            pub fn meaning(self) -> &'static str {
                match self { $(RefusalCode::$variant => $doc,)* }
            }
        }
    };
}

codes! {
    UnknownTool = "unknown_tool": "The tool is not in the kernel's registry.",
    SchemaInvalid = "schema_invalid": "The arguments do not match the tool's JSON schema.",
    PathInvalid = "path_invalid": "A path argument cannot be resolved (too long, unreadable, or malformed).",
    PathOutsideRoots = "path_outside_roots": "A path resolves (after `..` and symlinks) outside the allowed roots.",
    ScopeInvalid = "scope_invalid": "No valid scope token: missing, revoked, expired, or it does not cover the tool, capability or path.",
    NoLease = "no_lease": "The call's layer needs an active commitment lease (without one only L0-L1 are admissible).",
    StanceCeiling = "stance_ceiling": "The current stance does not allow this layer (Sensemaking/Discovery: up to L2; Evaluation: L1 and rollback).",
    LayerNotReached = "layer_not_reached": "Plus-one rule: a call at layer k needs the frontier at k-1 or above.",
    TimeGate = "time_gate": "The maturation delay after the layer below last committed has not elapsed.",
    BudgetExhausted = "budget_exhausted": "The call's cost exceeds what is left of the lease's budget.",
    MonotoneBound = "monotone_bound": "The same call was repeated past its bound or while it is still running, or the lease's step limit is reached.",
    MutationNotPermitted = "mutation_not_permitted": "The scope token does not permit mutation.",
    SnapshotStale = "snapshot_stale": "A file changed since the call or its proposal was computed against it.",
    ArtifactUnknown = "artifact_unknown": "The proposal artifact named is unknown, already applied, or its content does not match its hash.",
    PendingUnknown = "pending_unknown": "No pending call has that id (it may have been decided or expired).",
    SignatureInvalid = "signature_invalid": "The user signal is unsigned, or not signed by this device's key.",
    ApprovalMismatch = "approval_mismatch": "The signal is bound to a different call than the one pending.",
    ApprovalExpired = "approval_expired": "The signal's validity window does not contain the current time.",
    ApprovalReplayed = "approval_replayed": "The signal's nonce was already used.",
    NotReversible = "not_reversible": "The event named is not a committed reversible call, or was already undone.",
    GateForbidden = "gate_forbidden": "The stance transition is not in the transition table (e.g. Execution to Discovery).",
    NoDraft = "no_draft": "The commitment gate needs a drafted lease.",
    LeaseInvalid = "lease_invalid": "The lease draft is malformed or asks for more time than its horizon allows.",
    EmergencyCooldown = "emergency_cooldown": "An emergency stop was used less than the cooldown's number of turns ago.",
    WriteForbidden = "write_forbidden": "The gate does not allow that memory write (seed 001's write policy), or the write is malformed.",
    MemoryInvalid = "memory_invalid": "A fast- or bridge-memory update is malformed, or has nothing to update.",
    ProposalInvalid = "proposal_invalid": "A gate proposal is malformed, or the proposal buffer is full of higher-ranked ones.",
    WorkOrderInvalid = "work_order_invalid": "The work order is not open, belongs to another lease, or does not cover the tool.",
    BootstrapMode = "bootstrap_mode": "Bootstrap is propose-only until the person consents (no call above L2, no lease).",
    BootstrapInvalid = "bootstrap_invalid": "Bootstrap cannot take that step in its current stage.",
}

impl RefusalCode {
    /// The refusal said aloud, short enough for a spoken reply ("Refused: …"); the full
    /// sentence stays on screen. Exhaustive, so a new code cannot be left unspoken.
    pub fn spoken(self) -> &'static str {
        use RefusalCode::*;
        match self {
            UnknownTool => "there is no such tool",
            SchemaInvalid => "the request was malformed",
            PathInvalid => "a path could not be read",
            PathOutsideRoots => "that is outside the folders you allowed",
            ScopeInvalid => "the scope does not cover it",
            NoLease => "it needs a commitment lease first",
            StanceCeiling => "the current stance does not allow it",
            LayerNotReached => "it needs the smaller steps first",
            TimeGate => "it is too soon after the last step",
            BudgetExhausted => "the lease's budget is used up",
            MonotoneBound => "it was repeated too often",
            MutationNotPermitted => "the scope does not allow changes",
            SnapshotStale => "a file changed since it was planned",
            ArtifactUnknown => "there is no such plan to apply",
            PendingUnknown => "nothing is waiting with that id",
            SignatureInvalid => "the approval was not signed by this device",
            ApprovalMismatch => "the approval was for another call",
            ApprovalExpired => "the approval has expired",
            ApprovalReplayed => "that approval was already used",
            NotReversible => "that cannot be undone",
            GateForbidden => "that change of stance is not allowed",
            NoDraft => "there is no lease draft",
            LeaseInvalid => "the lease draft is not valid",
            EmergencyCooldown => "the emergency stop was used too recently",
            WriteForbidden => "that memory write is not allowed",
            MemoryInvalid => "the memory update was malformed",
            ProposalInvalid => "the proposal was not accepted",
            WorkOrderInvalid => "the work order does not cover it",
            BootstrapMode => "setup is not finished",
            BootstrapInvalid => "setup cannot take that step now",
        }
    }
}

impl fmt::Display for RefusalCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A refusal: the code and the sentence for this particular call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    pub code: RefusalCode,
    pub reason: String,
}

impl Refusal {
    pub fn new(code: RefusalCode, reason: impl Into<String>) -> Refusal {
        Refusal { code, reason: reason.into() }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.reason)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_can_be_said_in_a_short_phrase() {
        for code in RefusalCode::ALL {
            let words = code.spoken().split_whitespace().count();
            assert!((3..=9).contains(&words), "{code}: {:?} is not a short spoken phrase", code.spoken());
            assert!(!code.spoken().contains(['_', '.', '(', '`']), "{code}: {:?} reads badly aloud", code.spoken());
        }
    }

    #[test]
    fn codes_serialise_as_their_documented_strings() {
        for code in RefusalCode::ALL {
            let json = serde_json::to_string(code).unwrap();
            assert_eq!(json, format!("\"{}\"", code.as_str()));
            assert!(!code.meaning().is_empty());
        }
    }

    #[test]
    fn the_issue_s_required_codes_exist() {
        let names: Vec<&str> = RefusalCode::ALL.iter().map(|c| c.as_str()).collect();
        for required in [
            "unknown_tool",
            "schema_invalid",
            "path_outside_roots",
            "scope_invalid",
            "no_lease",
            "stance_ceiling",
            "layer_not_reached",
            "time_gate",
            "budget_exhausted",
            "monotone_bound",
            "mutation_not_permitted",
            "snapshot_stale",
            "signature_invalid",
            "approval_expired",
            "approval_replayed",
        ] {
            assert!(names.contains(&required), "missing {required}");
        }
    }
}
