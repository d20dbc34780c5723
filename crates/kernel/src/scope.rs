//! Scope tokens: what Orbit granted for this context (seed 000 §3.1).
//!
//! A token names the context it was issued for, the tools visible there, the capabilities and
//! roots it covers, whether it permits mutation, and when it expires (never after the lease).
//! There is exactly one current token in kernel state; revoking it leaves none, and every call
//! is refused until Orbit issues another.

use crate::canonical::Hash;
use crate::capability::Capability;
use crate::time::Millis;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScopeToken {
    pub id: Hash,
    pub context: String,
    pub session: String,
    pub roots: Vec<String>,
    pub tools: BTreeSet<String>,
    pub capabilities: Vec<Capability>,
    pub mutation: bool,
    /// Asked for read-only by the person: Orbit keeps it so when it re-issues.
    #[serde(default)]
    pub read_only: bool,
    pub lease_id: Option<Hash>,
    pub issued_at: Millis,
    pub expires_at: Millis,
    #[serde(default)]
    pub revoked: bool,
}

impl ScopeToken {
    pub fn grants(&self, required: &Capability) -> bool {
        self.capabilities.iter().any(|c| c.grants(required))
    }

    pub fn covers_path(&self, path: &str) -> bool {
        let p = std::path::Path::new(path);
        self.roots.iter().any(|r| p.starts_with(r))
    }
}
