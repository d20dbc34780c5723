//! The policy file: every number the kernel enforces, in one TOML document.
//!
//! Defaults are the seeds' (seed 000 §4.1 gate times; design.md §4). A policy is fixed at
//! `smart init` and recorded in the genesis event with its hash, so replay uses exactly the
//! numbers the decisions were made with and `verify` can show which policy governed a ledger.

use crate::canonical::{Hash, hash_of};
use crate::layer::Layer;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[derive(Default)]
pub struct Policy {
    /// Folders the tools may touch. Canonical absolute paths once `smart init` has resolved them.
    #[serde(default)]
    pub roots: Vec<String>,
    #[serde(default)]
    pub gates: Gates,
    #[serde(default)]
    pub budget: Budget,
    #[serde(default)]
    pub monotone: Monotone,
    #[serde(default)]
    pub approvals: Approvals,
    #[serde(default)]
    pub scope: ScopePolicy,
    #[serde(default)]
    pub lease: LeasePolicy,
    #[serde(default)]
    pub risk: RiskPolicy,
}

/// Maturation delays in milliseconds (seed 000 §4.3): after a call at layer k commits, layer k+1
/// waits `after_lk_ms`. `l4_cooldown_ms` is the minimum time between two L4 calls.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Gates {
    pub after_l0_ms: u64,
    pub after_l1_ms: u64,
    pub after_l2_ms: u64,
    pub after_l3_ms: u64,
    pub l4_cooldown_ms: u64,
}

impl Default for Gates {
    fn default() -> Self {
        Gates { after_l0_ms: 0, after_l1_ms: 2_000, after_l2_ms: 5_000, after_l3_ms: 15_000, l4_cooldown_ms: 30_000 }
    }
}

impl Gates {
    /// How long a commit at `layer` holds back the layer above it.
    pub fn after(&self, layer: Layer) -> u64 {
        match layer {
            Layer::L0 => self.after_l0_ms,
            Layer::L1 => self.after_l1_ms,
            Layer::L2 => self.after_l2_ms,
            Layer::L3 => self.after_l3_ms,
            Layer::L4 => self.l4_cooldown_ms,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Budget {
    /// Cost units available per lease (and per stretch without a lease).
    pub per_lease: u64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget { per_lease: 1_000 }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Monotone {
    /// How many times the very same call (same tool, same resolved arguments) may be admitted.
    pub max_identical: u32,
    /// How many calls may be admitted per lease.
    pub max_steps: u32,
}

impl Default for Monotone {
    fn default() -> Self {
        Monotone { max_identical: 3, max_steps: 200 }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Approvals {
    /// How long a Tier 3 call waits for the person before it expires.
    pub pending_ttl_ms: u64,
    /// The longest validity a signed approval may claim.
    pub max_signal_ttl_ms: u64,
    /// How far in the future a signal's issued-at may lie (clock skew between signer and kernel).
    pub max_clock_skew_ms: u64,
}

impl Default for Approvals {
    fn default() -> Self {
        Approvals { pending_ttl_ms: 600_000, max_signal_ttl_ms: 300_000, max_clock_skew_ms: 5_000 }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ScopePolicy {
    /// Lifetime of a scope token issued while no lease is active.
    pub ttl_without_lease_ms: u64,
}

impl Default for ScopePolicy {
    fn default() -> Self {
        ScopePolicy { ttl_without_lease_ms: 8 * 3_600_000 }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LeasePolicy {
    /// The longest lease each horizon may ask for.
    pub max_short_ms: u64,
    pub max_mid_ms: u64,
    pub max_long_ms: u64,
    /// Turns that must pass after an emergency stop before another one is accepted (seed 001).
    pub emergency_cooldown_turns: u64,
}

impl Default for LeasePolicy {
    fn default() -> Self {
        LeasePolicy {
            max_short_ms: 4 * 3_600_000,
            max_mid_ms: 7 * 86_400_000,
            max_long_ms: 90 * 86_400_000,
            emergency_cooldown_turns: 3,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RiskPolicy {
    /// Path components (or `*.ext` suffixes) that make a call touching them riskier.
    pub sensitive: Vec<String>,
    /// A mutation touching more paths than this is raised one tier.
    pub bulk_paths: usize,
}

impl Default for RiskPolicy {
    fn default() -> Self {
        RiskPolicy {
            sensitive: [
                ".ssh",
                ".gnupg",
                ".aws",
                ".kube",
                ".docker",
                ".password-store",
                ".git",
                ".env",
                "id_rsa",
                "id_ecdsa",
                "id_ed25519",
                "*.pem",
                "*.key",
                "*.kdbx",
                "Keychains",
            ]
            .iter()
            .map(|s| (*s).to_string())
            .collect(),
            bulk_paths: 20,
        }
    }
}

impl Policy {
    /// Parses a policy file. Unknown keys are errors: a misspelt gate must not silently fall
    /// back to a default.
    pub fn from_toml(text: &str) -> Result<Policy, String> {
        toml::from_str(text).map_err(|e| format!("policy file is not valid: {e}"))
    }

    pub fn to_toml(&self) -> Result<String, String> {
        toml::to_string_pretty(self).map_err(|e| format!("policy cannot be written: {e}"))
    }

    pub fn hash(&self) -> Result<Hash, serde_json::Error> {
        hash_of(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_seed_gate_times() {
        let g = Gates::default();
        assert_eq!(
            [g.after(Layer::L0), g.after(Layer::L1), g.after(Layer::L2), g.after(Layer::L3)],
            [0, 2_000, 5_000, 15_000]
        );
        assert_eq!(g.l4_cooldown_ms, 30_000);
    }

    #[test]
    fn partial_files_keep_the_other_defaults() {
        let p = Policy::from_toml("roots = [\"/tmp/x\"]\n[gates]\nafter_l1_ms = 10\n").unwrap();
        assert_eq!(p.gates.after_l1_ms, 10);
        assert_eq!(p.gates.after_l3_ms, 15_000);
        assert_eq!(p.roots, vec!["/tmp/x".to_string()]);
    }

    #[test]
    fn misspelt_keys_are_refused() {
        let err = Policy::from_toml("[gates]\nafter_l1 = 10\n").unwrap_err();
        assert!(err.contains("after_l1"), "{err}");
    }

    #[test]
    fn policy_round_trips_through_toml() {
        let p = Policy::default();
        assert_eq!(Policy::from_toml(&p.to_toml().unwrap()).unwrap(), p);
    }
}
