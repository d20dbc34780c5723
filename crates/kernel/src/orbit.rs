//! Orbit, the governor: it grants scope and decides which tools a context shows (seed 000 §3.1).
//!
//! Orbit cannot admit or run anything. It turns (context, lease, stance, roots) into a
//! [`ScopeToken`]; the kernel then refuses whatever lies outside it. It is a pure function, so
//! the tokens it issued can be recomputed from the ledger like everything else.

use crate::canonical::hash_of;
use crate::capability::Capability;
use crate::scope::ScopeToken;
use crate::stance::Stance;
use crate::state::KernelState;
use crate::time::Millis;
use crate::tool::Registry;
use std::collections::BTreeSet;

/// What the host asks Orbit for.
#[derive(Clone, Debug)]
pub struct ScopeRequest {
    pub context: String,
    pub session: String,
    /// A person can ask for a token that never permits mutation.
    pub read_only: bool,
}

impl Default for ScopeRequest {
    fn default() -> Self {
        ScopeRequest { context: "files".into(), session: "default".into(), read_only: false }
    }
}

/// The contexts Orbit knows and the capability domains each one exposes.
/// `files` is the person's everyday work: their files, plans over them, the library index of
/// them, SMART's own situation and its small record store.
pub const CONTEXTS: &[(&str, &[&str])] = &[("files", &["fs", "plan", "rag", "orbit", "db"])];

/// Issues a token for the request against the state as it is now.
pub fn issue(
    state: &KernelState,
    registry: &Registry,
    roots: &[String],
    req: &ScopeRequest,
    ttl_without_lease_ms: u64,
    now: Millis,
) -> Result<ScopeToken, String> {
    let Some((_, domains)) = CONTEXTS.iter().find(|(name, _)| *name == req.context) else {
        let known: Vec<&str> = CONTEXTS.iter().map(|(n, _)| *n).collect();
        return Err(format!("unknown context {:?}; known contexts: {}", req.context, known.join(", ")));
    };
    let tools: BTreeSet<String> = registry
        .specs()
        .filter(|s| s.capabilities.iter().all(|c| domains.contains(&c.domain.as_str())))
        .map(|s| s.name.clone())
        .collect();
    let capabilities: Vec<Capability> = domains
        .iter()
        .map(|d| Capability { domain: (*d).to_string(), action: "*".into(), scope: "*".into() })
        .collect();
    let lease = state.active_lease(now);
    let expires_at = match lease.and_then(|l| l.expires_at) {
        Some(e) => e,
        None => now.plus(ttl_without_lease_ms),
    };
    let mutation = !req.read_only && lease.is_some() && state.stance == Stance::Execution;
    let mut token = ScopeToken {
        id: crate::canonical::Hash::ZERO,
        context: req.context.clone(),
        session: req.session.clone(),
        roots: roots.to_vec(),
        tools,
        capabilities,
        mutation,
        read_only: req.read_only,
        lease_id: lease.map(|l| l.id),
        issued_at: now,
        expires_at,
        revoked: false,
    };
    // The id binds every field and the point in the ledger it was issued at.
    token.id = hash_of(&(&token, state.seq)).map_err(|e| e.to_string())?;
    Ok(token)
}
