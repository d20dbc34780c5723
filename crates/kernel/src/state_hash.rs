//! How the kernel state is hashed, scheme by scheme.
//!
//! The ledger records the state hash before and after every event, and replay recomputes it: the
//! hash is how an edited snapshot, a nondeterministic `apply` or a kernel that changed its mind
//! about history is caught at the exact event. So a hash, once recorded, must be reproducible for
//! as long as the ledger lives — which is why the way of hashing is *versioned and ledgered*, not
//! just changed:
//!
//! - **Scheme 1** (`FIRST`): blake3 over the canonical JSON of the whole state, memory standing in
//!   as its cached digest. Correct, but every event paid for the whole state — 72 µs an event at
//!   a hundred thousand events and growing with every call a lease epoch admits (27 ms for one
//!   hash after 20,000 calls).
//! - **Scheme 2** (`CURRENT`): *by change*. Each map that grows with use is a
//!   [`HashedMap`](crate::hashed_map::HashedMap) that keeps the hash of its entries up to date
//!   as they change (an [`LtHash`](crate::lthash::LtHash) sum: one entry's work per change); memory
//!   keeps its digest the same way it always has; everything else (lease, stance, frontier and
//!   gates, budget, scope, bootstrap, counters) is small and hashed as canonical JSON. The state
//!   hash is blake3 over those parts in a fixed order — it covers the same state as scheme 1, and
//!   costs the same on every event.
//!
//! A ledger begun today says `hash_scheme: 2` in its genesis event. A ledger begun under scheme 1
//! replays under scheme 1 up to a `hash_scheme_adopted` event that the engine writes in front of
//! the first decision it commits on it (its `state_before` is a scheme-1 hash, its `state_after`
//! the first scheme-2 one), and under scheme 2 after it. Replay needs no other knowledge: the
//! scheme is part of the state.
//!
//! Architecture invariant: scheme 2 names every field of `KernelState` (the destructuring in
//! [`by_change`] has no `..`), so a field added to the state cannot be left out of its hash without
//! the compiler saying so.

use crate::bootstrap::Bootstrap;
use crate::canonical::{Hash, hash_of};
use crate::error::KernelError;
use crate::layer::Layer;
use crate::lease::Lease;
use crate::memory::Memory;
use crate::scope::ScopeToken;
use crate::state::KernelState;
use crate::time::Millis;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// The scheme of ledgers begun before schemes had numbers.
pub const FIRST: u32 = 1;
/// The scheme new ledgers are begun with, and older ones move to.
pub const CURRENT: u32 = 2;

const BY_CHANGE_CONTEXT: &str = "SMART 2026-11 kernel state hash by change";

/// For serde: a missing scheme is the first.
pub fn first() -> u32 {
    FIRST
}

/// For serde: the first scheme is written as no scheme at all, so states and genesis events of
/// the first scheme serialise, and hash, as they did before schemes had numbers.
pub fn is_first(scheme: &u32) -> bool {
    *scheme == FIRST
}

/// Whether this kernel can hash by `scheme`.
pub fn check_known(scheme: u32) -> Result<(), String> {
    if (FIRST..=CURRENT).contains(&scheme) {
        Ok(())
    } else {
        Err(format!("state hash scheme {scheme} is unknown to this version of SMART (it knows {FIRST} to {CURRENT})"))
    }
}

/// The state's hash, by its own scheme.
pub fn hash(state: &KernelState) -> Result<Hash, KernelError> {
    match state.hash_scheme {
        FIRST => whole(state),
        CURRENT => by_change(state),
        other => Err(KernelError::Encoding(format!("state hash scheme {other} is unknown to this version of SMART"))),
    }
}

/// Scheme 1: the canonical JSON of the whole state — with memory, when there is any, standing in
/// as its digest. A state without memory hashes exactly as it did before memory existed.
fn whole(state: &KernelState) -> Result<Hash, KernelError> {
    if state.memory.is_empty() {
        return Ok(hash_of(state)?);
    }
    let digest = state.memory.digest()?;
    let mut rest = state.clone();
    rest.memory = Memory::default();
    let mut v = serde_json::to_value(&rest)?;
    if let Some(obj) = v.as_object_mut() {
        obj.insert("memory_digest".into(), serde_json::Value::String(digest.to_hex()));
    }
    Ok(hash_of(&v)?)
}

/// Scheme 2: the small parts as canonical JSON, the growing ones by their kept digests.
fn by_change(state: &KernelState) -> Result<Hash, KernelError> {
    let KernelState {
        seq,
        device_key,
        policy_hash,
        last_at,
        turn,
        stance,
        lease,
        epoch,
        frontier,
        last_commit,
        budget_used,
        steps,
        repeats,
        scope,
        pending,
        nonces,
        artifacts,
        reversible,
        inflight,
        last_emergency_turn,
        memory,
        work_orders,
        bootstrap,
        hash_scheme,
        objects_cache,
    } = state;
    // Tuples keep the encoding fixed by position, not by field names that a rename could change.
    // The counters move with nearly every event; the objects rarely, so their hash is kept.
    let counters =
        hash_of(&(seq, last_at, turn, stance, epoch, frontier, budget_used, steps, last_emergency_turn, hash_scheme))?;
    let objects = objects_cache.hash(&Objects { device_key, policy_hash, lease, last_commit, scope, bootstrap })?;
    let mut h = blake3::Hasher::new_derive_key(BY_CHANGE_CONTEXT);
    h.update(&counters.0);
    h.update(&objects.0);
    for part in [
        repeats.digest(),
        pending.digest(),
        nonces.digest(),
        artifacts.digest(),
        reversible.digest(),
        inflight.digest(),
        work_orders.digest(),
        memory.digest()?,
    ] {
        h.update(&part.0);
    }
    Ok(Hash(*h.finalize().as_bytes()))
}

/// The state's objects that change rarely — the genesis facts, the lease, the gates' last commits,
/// the scope token, bootstrap — and their hash, kept from the last time the state was hashed: an
/// event that leaves them as they were (most events) reuses it. Comparing them costs a few string
/// comparisons; encoding them canonically cost most of a state hash.
///
/// They are hashed as one tuple, and the canonical JSON of a tuple is its elements' canonical JSON
/// between brackets and commas — so each element's encoding is kept too, and an event that
/// changes one of them (every commit moves `last_commit`, a handful of bytes) encodes only that
/// one again; the lease and the scope token, most of the bytes, are encoded when they change.
///
/// It is a cache, not state: not serialised, equal to every other, and the hash it gives is the
/// one the objects would get without it (a test compares the two on every kind of change).
#[derive(Default)]
pub struct ObjectsCache(Mutex<Option<Cached>>);

/// An object and its canonical JSON (shared between copies of the state).
type Encoded<T> = (T, Arc<[u8]>);

/// Each object with its canonical JSON, and the hash of them all.
#[derive(Clone)]
pub struct Cached {
    device_key: Encoded<String>,
    policy_hash: Encoded<Hash>,
    lease: Encoded<Option<Lease>>,
    last_commit: Encoded<BTreeMap<Layer, Millis>>,
    scope: Encoded<Option<ScopeToken>>,
    bootstrap: Encoded<Option<Bootstrap>>,
    hash: Hash,
}

fn encoded<T: Clone + serde::Serialize>(value: &T) -> Result<Encoded<T>, serde_json::Error> {
    Ok((value.clone(), crate::canonical::canonical_bytes(value)?.into()))
}

/// `slot` made to hold `value` and its canonical JSON; says whether it had to change.
fn keep<T: PartialEq + Clone + serde::Serialize>(slot: &mut Encoded<T>, value: &T) -> Result<bool, serde_json::Error> {
    if slot.0 == *value {
        return Ok(false);
    }
    *slot = encoded(value)?;
    Ok(true)
}

/// The objects of the state being hashed.
struct Objects<'s> {
    device_key: &'s String,
    policy_hash: &'s Hash,
    lease: &'s Option<Lease>,
    last_commit: &'s BTreeMap<Layer, Millis>,
    scope: &'s Option<ScopeToken>,
    bootstrap: &'s Option<Bootstrap>,
}

impl Cached {
    fn new(o: &Objects<'_>) -> Result<Cached, serde_json::Error> {
        let mut c = Cached {
            device_key: encoded(o.device_key)?,
            policy_hash: encoded(o.policy_hash)?,
            lease: encoded(o.lease)?,
            last_commit: encoded(o.last_commit)?,
            scope: encoded(o.scope)?,
            bootstrap: encoded(o.bootstrap)?,
            hash: Hash::ZERO,
        };
        c.rehash();
        Ok(c)
    }

    /// The hash of the tuple, from its elements' kept encodings.
    fn rehash(&mut self) {
        let parts: [&[u8]; 6] = [
            &self.device_key.1,
            &self.policy_hash.1,
            &self.lease.1,
            &self.last_commit.1,
            &self.scope.1,
            &self.bootstrap.1,
        ];
        let mut text = Vec::with_capacity(parts.iter().map(|p| p.len() + 1).sum::<usize>() + 1);
        text.push(b'[');
        for (i, part) in parts.into_iter().enumerate() {
            if i > 0 {
                text.push(b',');
            }
            text.extend_from_slice(part);
        }
        text.push(b']');
        self.hash = Hash::of_bytes(&text);
    }
}

impl ObjectsCache {
    fn hash(&self, o: &Objects<'_>) -> Result<Hash, serde_json::Error> {
        let Ok(mut guard) = self.0.lock() else {
            // A poisoned cache is only a slower hash.
            return Cached::new(o).map(|c| c.hash);
        };
        match guard.as_mut() {
            Some(c) => {
                // Every element is brought up to date (no short circuit): each must hold its value.
                let changed = (|| {
                    Ok::<_, serde_json::Error>([
                        keep(&mut c.device_key, o.device_key)?,
                        keep(&mut c.policy_hash, o.policy_hash)?,
                        keep(&mut c.lease, o.lease)?,
                        keep(&mut c.last_commit, o.last_commit)?,
                        keep(&mut c.scope, o.scope)?,
                        keep(&mut c.bootstrap, o.bootstrap)?,
                    ])
                })();
                match changed {
                    Ok(changed) => {
                        if changed.contains(&true) {
                            c.rehash();
                        }
                        Ok(c.hash)
                    }
                    // Some elements moved on and the hash did not: start again next time.
                    Err(e) => {
                        *guard = None;
                        Err(e)
                    }
                }
            }
            None => {
                let c = Cached::new(o)?;
                let h = c.hash;
                *guard = Some(c);
                Ok(h)
            }
        }
    }
}

impl Clone for ObjectsCache {
    fn clone(&self) -> Self {
        ObjectsCache(Mutex::new(self.0.lock().ok().and_then(|g| g.clone())))
    }
}

impl PartialEq for ObjectsCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for ObjectsCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ObjectsCache")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_known_schemes_are_accepted() {
        assert!(check_known(FIRST).is_ok());
        assert!(check_known(CURRENT).is_ok());
        assert!(check_known(0).is_err());
        assert!(check_known(CURRENT + 1).unwrap_err().contains("unknown"));
    }

    #[test]
    fn the_first_scheme_is_left_out_of_the_states_json() {
        let s = KernelState::default();
        assert!(!serde_json::to_string(&s).unwrap().contains("hash_scheme"));
        let v2 = KernelState { hash_scheme: CURRENT, ..KernelState::default() };
        let text = serde_json::to_string(&v2).unwrap();
        assert!(text.contains("\"hash_scheme\":2"));
        let back: KernelState = serde_json::from_str(&text).unwrap();
        assert_eq!(back.hash().unwrap(), v2.hash().unwrap());
    }
}
