//! Kernel state and the one function that changes it.
//!
//! State is a fold over the ledger: `apply` takes an event, the time it was decided at, and
//! returns the next state or says the event cannot happen here. It has no other inputs, reads no
//! clock, and iterates only `BTreeMap`s, so applying the same events gives the same state — and
//! the same [`KernelState::hash`] — on every machine. The ledger stores that hash before and
//! after every event; replay recomputes it and names the first sequence where they differ.

use crate::bootstrap::Bootstrap;
use crate::canonical::{Hash, hash_of};
use crate::error::KernelError;
use crate::event::{KernelEvent, PendingCall};
use crate::hashed_map::HashedMap;
use crate::layer::Layer;
use crate::lease::{Lease, LeaseState};
use crate::memory::artifact_index::freshness_at;
use crate::memory::{ArtifactDraft, ArtifactKind, DecisionKind, Memory};
use crate::scope::ScopeToken;
use crate::stance::Stance;
use crate::tier::Tier;
use crate::time::Millis;
use crate::work_order::WorkOrder;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The owner of artifacts the person registers (work orders register under their id).
pub const REGISTRANT_PERSON: &str = "person";

/// An admitted call whose receipt has not been written yet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InFlight {
    pub tool: String,
    pub layer: Layer,
    pub tier: Tier,
    pub artifact: Option<Hash>,
    /// The committed call this one undoes, if it is an undo.
    pub undoes: Option<u64>,
    /// The work order that proposed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work_order: Option<String>,
}

/// A proposal artifact produced by a committed L2 call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArtifactMeta {
    /// The sequence of the `committed` event holding its body.
    pub seq: u64,
    pub consumed: bool,
}

/// A committed reversible call, for undo.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReversibleMeta {
    pub tool: String,
    pub layer: Layer,
    /// Hash of the rollback data stored in the committed event.
    pub rollback_hash: Hash,
    pub undone: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KernelState {
    /// Events applied so far; the next event gets sequence `seq + 1`.
    pub seq: u64,
    pub device_key: String,
    pub policy_hash: Hash,
    /// The latest decision time seen; time never runs backwards inside the kernel.
    pub last_at: Millis,
    /// Proposals seen: the unit the emergency cooldown counts in.
    pub turn: u64,
    pub stance: Stance,
    pub lease: Option<Lease>,
    /// Bumped whenever the lease changes; frontier, gates, budget and steps belong to an epoch.
    pub epoch: u64,
    pub frontier: Layer,
    pub last_commit: BTreeMap<Layer, Millis>,
    pub budget_used: u64,
    pub steps: u32,
    pub repeats: HashedMap<Hash, u32>,
    pub scope: Option<ScopeToken>,
    pub pending: HashedMap<String, PendingCall>,
    /// Nonces of user signals acted on, with their expiry (kept until then).
    pub nonces: HashedMap<String, Millis>,
    pub artifacts: HashedMap<Hash, ArtifactMeta>,
    pub reversible: HashedMap<u64, ReversibleMeta>,
    pub inflight: HashedMap<Hash, InFlight>,
    pub last_emergency_turn: Option<u64>,
    /// The slow loop's memory and proposal buffer (left out of the hash while empty, like the
    /// next two, so ledgers older than them keep their hashes).
    #[serde(default, skip_serializing_if = "Memory::is_empty")]
    pub memory: Memory,
    #[serde(default, skip_serializing_if = "HashedMap::is_empty")]
    pub work_orders: HashedMap<String, WorkOrder>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bootstrap: Option<Bootstrap>,
    /// How [`KernelState::hash`] is computed (see [`crate::state_hash`]). Set by genesis or by a
    /// ledgered `hash_scheme_adopted` event; absent from the state's JSON under the first scheme,
    /// which it did not exist in.
    #[serde(default = "crate::state_hash::first", skip_serializing_if = "crate::state_hash::is_first")]
    pub hash_scheme: u32,
    /// Not state: the last hash of the parts that rarely change (see `state_hash::ObjectsCache`).
    #[serde(skip)]
    pub objects_cache: crate::state_hash::ObjectsCache,
}

impl Default for KernelState {
    fn default() -> Self {
        KernelState {
            seq: 0,
            device_key: String::new(),
            policy_hash: Hash::ZERO,
            last_at: Millis(0),
            turn: 0,
            stance: Stance::Sensemaking,
            lease: None,
            epoch: 0,
            frontier: Layer::L0,
            last_commit: BTreeMap::new(),
            budget_used: 0,
            steps: 0,
            repeats: HashedMap::new(),
            scope: None,
            pending: HashedMap::new(),
            nonces: HashedMap::new(),
            artifacts: HashedMap::new(),
            reversible: HashedMap::new(),
            inflight: HashedMap::new(),
            last_emergency_turn: None,
            memory: Memory::default(),
            work_orders: HashedMap::new(),
            bootstrap: None,
            // The empty state before genesis hashes as it always has; genesis sets the scheme.
            hash_scheme: crate::state_hash::first(),
            objects_cache: crate::state_hash::ObjectsCache::default(),
        }
    }
}

impl KernelState {
    /// The state hash the ledger records before and after every event, by the state's
    /// [`hash_scheme`](Self::hash_scheme): see [`crate::state_hash`].
    pub fn hash(&self) -> Result<Hash, KernelError> {
        crate::state_hash::hash(self)
    }

    /// How many entries the state's growing maps hold together: what its size grows with.
    pub fn entries(&self) -> usize {
        self.repeats.len()
            + self.pending.len()
            + self.nonces.len()
            + self.artifacts.len()
            + self.reversible.len()
            + self.inflight.len()
            + self.work_orders.len()
    }

    /// The lease, if it is active at `now`.
    pub fn active_lease(&self, now: Millis) -> Option<&Lease> {
        self.lease.as_ref().filter(|l| l.is_active_at(now))
    }

    /// Whether there is context from before: bootstrap is then the light check-in.
    pub fn existing_user(&self) -> bool {
        self.epoch > 0 || !self.memory.decisions().is_empty() || !self.memory.principles().is_empty()
    }

    /// Whether bootstrap holds the agent to propose-only.
    pub fn bootstrap_restricts(&self) -> bool {
        self.bootstrap.as_ref().is_some_and(Bootstrap::restricts)
    }

    /// Starts a new epoch: the frontier, gates, budget and step counts belong to one lease, and
    /// so do the work orders that inherited its scope.
    fn new_epoch(&mut self) {
        self.work_orders.clear();
        self.epoch += 1;
        self.frontier = Layer::L0;
        self.last_commit.clear();
        self.budget_used = 0;
        self.steps = 0;
        self.repeats.clear();
    }

    /// Applies one event decided at `at`. On error the state is unchanged.
    pub fn apply(&mut self, event: &KernelEvent, at: Millis) -> Result<(), KernelError> {
        let mut next = self.clone();
        next.apply_mut(event, at)?;
        *self = next;
        Ok(())
    }

    /// [`apply`](Self::apply) without the copy that makes it atomic: on error the state may be
    /// half-updated. For scratch copies that are discarded on error (decision builders, the
    /// runtime's commit, replay), where the extra clone per event would be pure cost.
    pub fn apply_mut(&mut self, event: &KernelEvent, at: Millis) -> Result<(), KernelError> {
        let seq = self.seq + 1;
        let fail = |reason: String| KernelError::Inapplicable { seq, reason };
        if self.seq == 0 && !matches!(event, KernelEvent::Genesis { .. }) {
            return Err(fail(format!("the first event must be genesis, not {}", event.kind())));
        }
        if at < self.last_at {
            return Err(fail(format!("time runs backwards: {at} after {}", self.last_at)));
        }
        self.seq = seq;
        self.last_at = at;
        // Expired nonces can go: a signal past its window is refused as expired anyway.
        self.nonces.retain(|_, exp| *exp > at)?;

        match event {
            KernelEvent::Genesis { device_key, policy_hash, hash_scheme, .. } => {
                if seq != 1 {
                    return Err(fail("genesis can only be the first event".into()));
                }
                crate::state_hash::check_known(*hash_scheme).map_err(fail)?;
                self.device_key = device_key.clone();
                self.policy_hash = *policy_hash;
                self.hash_scheme = *hash_scheme;
            }
            KernelEvent::HashSchemeAdopted { scheme } => {
                crate::state_hash::check_known(*scheme).map_err(fail)?;
                if *scheme <= self.hash_scheme {
                    return Err(fail(format!("the state is hashed by scheme {} already", self.hash_scheme)));
                }
                self.hash_scheme = *scheme;
            }
            KernelEvent::ScopeIssued { token } => self.scope = Some(token.clone()),
            KernelEvent::ScopeRevoked { id, .. } => match &mut self.scope {
                Some(t) if t.id == *id => t.revoked = true,
                _ => return Err(fail(format!("scope {} is not the current token", id.short()))),
            },
            KernelEvent::Proposed { .. } => self.turn += 1,
            KernelEvent::SignalRefused { signal, spent: true, .. } => {
                self.nonces.insert(signal.nonce.clone(), signal.expires_at)?;
            }
            KernelEvent::Refused { .. } | KernelEvent::GateRefused { .. } | KernelEvent::SignalRefused { .. } => {}
            KernelEvent::Pending { pending } => {
                self.pending.insert(pending.id.clone(), pending.clone())?;
            }
            KernelEvent::Admitted { call, tier, work_order, .. } => {
                if let Some(id) = work_order
                    && !self.work_orders.contains_key(id)
                {
                    return Err(fail(format!("work order {id} is not open")));
                }
                self.steps += 1;
                let seen = self.repeats.get(&call.hash).copied().unwrap_or(0);
                self.repeats.insert(call.hash, seen.saturating_add(1))?;
                self.budget_used = self.budget_used.saturating_add(call.cost);
                self.inflight.insert(
                    call.hash,
                    InFlight {
                        tool: call.tool.clone(),
                        layer: call.layer,
                        tier: *tier,
                        artifact: call.artifact,
                        undoes: None,
                        work_order: work_order.clone(),
                    },
                )?;
            }
            KernelEvent::UndoRequested { .. } | KernelEvent::Fault { .. } => {}
            KernelEvent::UndoAdmitted { target_seq, call } => {
                if self.reversible.get(target_seq).is_none_or(|r| r.undone) {
                    return Err(fail(format!("event {target_seq} is not an undoable commit")));
                }
                self.inflight.insert(
                    call.hash,
                    InFlight {
                        tool: call.tool.clone(),
                        layer: call.layer,
                        tier: Tier::One,
                        artifact: None,
                        undoes: Some(*target_seq),
                        work_order: None,
                    },
                )?;
            }
            KernelEvent::Committed { call_hash, tool, layer, artifact, rollback, .. } => {
                let Some(flight) = self.inflight.remove(call_hash)? else {
                    return Err(fail(format!("receipt for {tool} {} that was never admitted", call_hash.short())));
                };
                if let Some(target) = flight.undoes {
                    self.reversible.update(&target, |r| r.undone = true)?;
                } else {
                    self.frontier = self.frontier.max(*layer);
                    self.last_commit.insert(*layer, at);
                    if let Some(consumed) = flight.artifact {
                        self.artifacts.update(&consumed, |meta| meta.consumed = true)?;
                    }
                    if let Some(a) = artifact {
                        let hash = hash_of(a)?;
                        self.artifacts.insert(hash, ArtifactMeta { seq, consumed: false })?;
                        // A work order's proposals are registered in the artifact index as its own.
                        if let Some(order) = &flight.work_order {
                            let draft = ArtifactDraft {
                                name: format!("{tool} proposal {}", hash.short()),
                                kind: ArtifactKind::Plan,
                                pointer: format!("artifact:{}", hash.to_hex()),
                                dependencies: Vec::new(),
                            };
                            if self.memory.artifacts().check_register(&draft).is_ok() {
                                self.memory.edit().artifacts.register(draft, order, at);
                            }
                        }
                    }
                    if let Some(rb) = rollback {
                        self.reversible.insert(
                            seq,
                            ReversibleMeta {
                                tool: tool.clone(),
                                layer: *layer,
                                rollback_hash: hash_of(rb)?,
                                undone: false,
                            },
                        )?;
                    }
                }
            }
            KernelEvent::Failed { call_hash, tool, .. } => {
                if self.inflight.remove(call_hash)?.is_none() {
                    return Err(fail(format!("failure of {tool} {} that was never admitted", call_hash.short())));
                }
            }
            KernelEvent::Approved { pending_id, signal } | KernelEvent::Denied { pending_id, signal } => {
                if self.pending.remove(pending_id)?.is_none() {
                    return Err(fail(format!("pending call {pending_id} does not exist")));
                }
                self.nonces.insert(signal.nonce.clone(), signal.expires_at)?;
            }
            KernelEvent::PendingExpired { pending_id } => {
                if self.pending.remove(pending_id)?.is_none() {
                    return Err(fail(format!("pending call {pending_id} does not exist")));
                }
            }
            KernelEvent::LeaseDrafted { lease } => {
                if self.lease.as_ref().is_some_and(|l| l.state == LeaseState::Active) {
                    return Err(fail("a lease cannot be drafted over an active one".into()));
                }
                self.lease = Some(lease.clone());
            }
            KernelEvent::LeaseActivated { id, expires_at } => {
                let lease = self.lease_mut(id, seq)?;
                lease.state = LeaseState::Active;
                lease.expires_at = Some(*expires_at);
                self.new_epoch();
            }
            KernelEvent::LeaseRenewed { id, expires_at } => {
                let lease = self.lease_mut(id, seq)?;
                lease.state = LeaseState::Active;
                lease.expires_at = Some(*expires_at);
            }
            KernelEvent::LeaseRevised { id } => {
                let lease = self.lease_mut(id, seq)?;
                lease.state = LeaseState::Drafted;
                lease.expires_at = None;
                self.new_epoch();
            }
            KernelEvent::LeaseReleased { id } => {
                self.lease_mut(id, seq)?;
                self.lease = None;
                self.new_epoch();
            }
            KernelEvent::LeaseExpired { id } => {
                self.lease_mut(id, seq)?.state = LeaseState::Expired;
                self.new_epoch();
            }
            KernelEvent::StanceChanged { from, to, act, writes } => {
                if *from != self.stance {
                    return Err(fail(format!("stance change from {from} but the stance is {}", self.stance)));
                }
                if crate::stance::next(*from, *act) != Some(*to) {
                    return Err(fail(format!("{from} --{act}--> {to} is not in the transition table")));
                }
                self.memory.write(*act, writes, at).map_err(fail)?;
                self.stance = *to;
            }
            KernelEvent::Emergency { signal, decision, .. } => {
                if let Some(d) = decision {
                    self.memory.decisions().check(DecisionKind::Emergency, d).map_err(fail)?;
                    self.memory.log_emergency(d.clone(), at);
                }
                self.lease = None;
                self.pending.clear();
                self.nonces.insert(signal.nonce.clone(), signal.expires_at)?;
                self.last_emergency_turn = Some(self.turn);
                self.new_epoch();
            }
            KernelEvent::GateProposed { proposal } => {
                self.memory.edit().proposals.push(proposal.clone()).map_err(|e| fail(e.to_string()))?;
            }
            KernelEvent::ProposalsRead { verdicts, .. } => {
                let waiting = self.memory.edit().proposals.read();
                if waiting.len() != verdicts.len() || waiting.iter().zip(verdicts).any(|(w, v)| *w != v.proposal) {
                    return Err(fail("the verdicts do not list the buffer's proposals in merge order".into()));
                }
            }
            KernelEvent::ProgressNoted { update } => {
                update.check().map_err(fail)?;
                match &mut self.memory.edit().progress {
                    Some(p) => p.update(update, at),
                    None => return Err(fail("there is no progress state: it starts at the commitment gate".into())),
                }
            }
            KernelEvent::ProgressStaled {} => match &mut self.memory.edit().progress {
                Some(p) if p.due_stale(at) => p.stale = true,
                _ => return Err(fail("progress is not due to go stale".into())),
            },
            KernelEvent::SignalNoted { signal, text } => {
                crate::memory::signals::check_signal(text).map_err(fail)?;
                self.memory.edit().signals.note(*signal, text);
            }
            KernelEvent::ArtifactRegistered { artifact, owner } => {
                if owner != REGISTRANT_PERSON && !self.work_orders.contains_key(owner) {
                    return Err(fail(format!("{owner} is not a registered agent (the person or an open work order)")));
                }
                self.memory.artifacts().check_register(artifact).map_err(fail)?;
                self.memory.edit().artifacts.register(artifact.clone(), owner, at);
            }
            KernelEvent::ArtifactDecayed { pointer, freshness } => {
                let due = self.memory.artifacts().get(pointer).is_some_and(|e| {
                    freshness_at(e.status, e.updated_at, at) >= *freshness && *freshness > e.freshness
                });
                if !due || !self.memory.edit().artifacts.decay(pointer, *freshness) {
                    return Err(fail(format!("artifact {pointer} is not due to decay to {freshness:?}")));
                }
            }
            KernelEvent::WorkOrderOpened { order } => {
                let lease_ok = self.active_lease(at).is_some_and(|l| l.id == order.lease);
                if !lease_ok || order.epoch != self.epoch {
                    return Err(fail("a work order inherits the active lease of its epoch".into()));
                }
                if self.work_orders.len() >= crate::work_order::MAX_OPEN || self.work_orders.contains_key(&order.id) {
                    return Err(fail(format!("work order {} cannot be opened", order.id)));
                }
                crate::work_order::check_brief(&order.brief).map_err(fail)?;
                self.work_orders.insert(order.id.clone(), order.clone())?;
            }
            KernelEvent::WorkOrderClosed { id, .. } => {
                if self.work_orders.remove(id)?.is_none() {
                    return Err(fail(format!("work order {id} is not open")));
                }
            }
            KernelEvent::BootstrapStepped { input } => {
                let existing = self.existing_user();
                let next = crate::bootstrap::step(self.bootstrap.as_ref(), input, existing, at).map_err(fail)?;
                self.bootstrap = Some(next);
            }
        }
        Ok(())
    }

    fn lease_mut(&mut self, id: &Hash, seq: u64) -> Result<&mut Lease, KernelError> {
        match &mut self.lease {
            Some(l) if l.id == *id => Ok(l),
            _ => {
                Err(KernelError::Inapplicable { seq, reason: format!("lease {} is not the current lease", id.short()) })
            }
        }
    }
}
