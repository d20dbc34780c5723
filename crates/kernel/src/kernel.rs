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

use crate::admission::{self, Checked, Mode};
use crate::approval::{Decision as SignalDecision, UserSignal};
use crate::bootstrap::{BootstrapInput, Recommendation};
use crate::call::{AdmittedCall, ProposedCall, ResolvedCall};
use crate::canonical::{Hash, hash_of};
use crate::decay;
use crate::error::KernelError;
use crate::event::{KernelEvent, PendingCall};
use crate::gate_controller::{self, Effect, LeaseView, Situation, VerdictKind};
use crate::gate_proposal::{GateProposal, GateSource, ProposedAction, ReadTrigger, Severity, SuggestedGate};
use crate::layer::Layer;
use crate::lease::{Lease, LeaseDraft, LeaseState};
use crate::memory::{ArtifactDraft, Confidence, DecisionDraft, ProgressUpdate, SignalKind, SlowWrite};
use crate::orbit::{self, ScopeRequest};
use crate::policy::Policy;
use crate::refusal::{Refusal, RefusalCode as C};
use crate::stance::{self, GateAct, Stance};
use crate::state::KernelState;
use crate::state::REGISTRANT_PERSON;
use crate::tier::{Tier, is_sensitive};
use crate::time::Millis;
use crate::tool::{Registry, Reversibility};
use crate::work_order::WorkOrder;
use crate::world::{Artifact, World};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

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

    /// Admits, holds or refuses a proposed call.
    pub fn propose(
        &self,
        state: &KernelState,
        call: ProposedCall,
        now: Millis,
        world: &dyn World,
    ) -> Result<Decision, KernelError> {
        let mut b = Builder::new(state, now);
        let now = b.at;
        // Out of bounds: kept with its arguments elided, so the ledger stays readable (see
        // `input_bounds`), and refused before any other check.
        if let Some(why) = crate::input_bounds::check(&call) {
            let kept = crate::input_bounds::elided(&call, &why);
            let tool = kept.tool.clone();
            b.push(KernelEvent::Proposed { call: kept })?;
            let r = Refusal::new(C::SchemaInvalid, format!("the proposal is out of bounds: {why}"));
            b.push(KernelEvent::Refused { tool, call_hash: None, code: r.code, reason: r.reason.clone() })?;
            return Ok(b.finish(Outcome::Refused(r)));
        }
        let tool = call.tool.clone();
        b.push(KernelEvent::Proposed { call: call.clone() })?;
        let checked = match admission::check(self, &b.state, &call, now, world, Mode::Propose) {
            Ok(c) => c,
            Err(r) => {
                b.push(KernelEvent::Refused { tool, call_hash: None, code: r.code, reason: r.reason.clone() })?;
                return Ok(b.finish(Outcome::Refused(r)));
            }
        };
        if checked.tier == Tier::Three {
            let id = hash_of(&(checked.call.hash, now, b.state.seq))?.short();
            let pending = PendingCall {
                id: id.clone(),
                why: self.why_tier_three(&checked.call, checked.sensitive_inside.as_deref()),
                proposed: call,
                tier: checked.tier,
                created_at: now,
                expires_at: now.plus(self.policy.approvals.pending_ttl_ms),
                admissible_at: checked.admissible_at.max(now),
                inputs: checked.inputs,
                call: checked.call,
            };
            let admissible_at = pending.admissible_at;
            b.push(KernelEvent::Pending { pending })?;
            return Ok(b.finish(Outcome::Pending { id, admissible_at }));
        }
        admit(b, checked, None)
    }

    fn why_tier_three(&self, call: &ResolvedCall, sensitive_inside: Option<&str>) -> String {
        if call.layer == Layer::L4 {
            format!("{} is an L4 (transform) call; every L4 call waits for you", call.tool)
        } else if call.reversibility == Reversibility::Irreversible {
            format!("{} cannot be undone", call.tool)
        } else if let Some(p) = call.paths.iter().find(|p| is_sensitive(p, &self.policy.risk)) {
            format!("{} touches a sensitive path: {p}", call.tool)
        } else if let Some(p) = sensitive_inside {
            format!("{} changes a folder that holds something sensitive: {p}", call.tool)
        } else if call.reversibility.mutates() && call.paths.len() > self.policy.risk.bulk_paths {
            format!("{} touches {} paths", call.tool, call.paths.len())
        } else {
            format!("a risk assessment raised {} to Tier 3", call.tool)
        }
    }

    /// Verifies what every user signal must satisfy: signed by this device, nonce unused, inside
    /// its window.
    fn verify_signal(&self, state: &KernelState, signal: &UserSignal, now: Millis) -> Result<(), Refusal> {
        signal.verify_signature(&state.device_key)?;
        if state.nonces.contains_key(&signal.nonce) {
            return Err(Refusal::new(C::ApprovalReplayed, format!("nonce {} was already used", signal.nonce)));
        }
        signal.check_window(now, self.policy.approvals.max_signal_ttl_ms, self.policy.approvals.max_clock_skew_ms)
    }

    /// The person's approve or deny for a pending call.
    pub fn signal(
        &self,
        state: &KernelState,
        signal: UserSignal,
        now: Millis,
        world: &dyn World,
    ) -> Result<Decision, KernelError> {
        let mut b = Builder::new(state, now);
        let now = b.at;
        let refuse = |mut b: Builder, signal: UserSignal, r: Refusal| -> Result<Decision, KernelError> {
            let spent = spends(&b.state, &signal);
            b.push(KernelEvent::SignalRefused { signal, code: r.code, reason: r.reason.clone(), spent })?;
            Ok(b.finish(Outcome::Refused(r)))
        };
        if let Some(why) = crate::input_bounds::check_signal(&signal) {
            let kept = crate::input_bounds::elided_signal(&signal);
            return refuse(b, kept, Refusal::new(C::SchemaInvalid, format!("the signal is out of bounds: {why}")));
        }
        if signal.decision == SignalDecision::Emergency {
            return refuse(
                b,
                signal,
                Refusal::new(C::ApprovalMismatch, "an emergency signal cannot decide a pending call"),
            );
        }
        if let Err(r) = self.verify_signal(&b.state, &signal, now) {
            // Order matters: a forged signal must not learn whether its pending id exists.
            if r.code != C::ApprovalExpired {
                return refuse(b, signal, r);
            }
            if let Some(p) = b.state.pending.get(&signal.pending_id)
                && signal.call_hash == Some(p.call.hash)
            {
                return refuse(b, signal, r);
            }
        }
        let Some(pending) = b.state.pending.get(&signal.pending_id).cloned() else {
            let r = Refusal::new(
                C::PendingUnknown,
                format!("no call {:?} is pending; it may have been decided or expired", signal.pending_id),
            );
            return refuse(b, signal, r);
        };
        if signal.call_hash != Some(pending.call.hash) {
            let r = Refusal::new(
                C::ApprovalMismatch,
                format!(
                    "the signal is for call {} but {} is pending as call {}",
                    signal.call_hash.map(|h| h.short()).unwrap_or_default(),
                    pending.id,
                    pending.call.hash.short()
                ),
            );
            return refuse(b, signal, r);
        }
        if let Err(r) =
            signal.check_window(now, self.policy.approvals.max_signal_ttl_ms, self.policy.approvals.max_clock_skew_ms)
        {
            return refuse(b, signal, r);
        }
        if now >= pending.expires_at {
            return refuse(b, signal, Refusal::new(C::ApprovalExpired, format!("pending call {} expired", pending.id)));
        }
        if signal.decision == SignalDecision::Deny {
            b.push(KernelEvent::Denied { pending_id: pending.id.clone(), signal })?;
            return Ok(b.finish(Outcome::Done));
        }
        // Approval: every check again, now, against the present world.
        let mut proposed = pending.proposed.clone();
        if let Some(t) = &b.state.scope {
            proposed.scope_id = t.id.to_hex();
        }
        let checked = match admission::check(self, &b.state, &proposed, now, world, Mode::Approve) {
            Ok(c) => c,
            Err(r) => {
                let reason = format!(
                    "approval valid, but the call is not admissible now ({}: {}); it stays pending",
                    r.code, r.reason
                );
                return refuse(b, signal, Refusal::new(r.code, reason));
            }
        };
        if checked.call.hash != pending.call.hash {
            return refuse(
                b,
                signal,
                Refusal::new(C::SnapshotStale, "the call's paths now resolve differently from what you were shown"),
            );
        }
        if checked.inputs != pending.inputs {
            let changed = checked
                .inputs
                .iter()
                .find(|(k, v)| pending.inputs.get(*k) != Some(*v))
                .map(|(k, _)| k.clone())
                .unwrap_or_default();
            return refuse(
                b,
                signal,
                Refusal::new(C::SnapshotStale, format!("{changed} changed since you were asked to approve")),
            );
        }
        b.push(KernelEvent::Approved { pending_id: pending.id.clone(), signal })?;
        admit(b, checked, Some(pending.id))
    }

    /// The emergency gate: a signed stop from the person.
    pub fn emergency(
        &self,
        state: &KernelState,
        signal: UserSignal,
        reason: &str,
        now: Millis,
    ) -> Result<Decision, KernelError> {
        let mut b = Builder::new(state, now);
        let now = b.at;
        let reason = crate::input_bounds::reason(reason);
        let reason = reason.as_str();
        let (signal, verified) = if let Some(why) = crate::input_bounds::check_signal(&signal) {
            let kept = crate::input_bounds::elided_signal(&signal);
            (kept, Err(Refusal::new(C::SchemaInvalid, format!("the signal is out of bounds: {why}"))))
        } else if signal.decision != SignalDecision::Emergency {
            (signal, Err(Refusal::new(C::ApprovalMismatch, "only an emergency signal can stop the agent")))
        } else {
            let verified = self.verify_signal(&b.state, &signal, now);
            (signal, verified)
        };
        if let Err(r) = verified {
            let spent = spends(&b.state, &signal);
            b.push(KernelEvent::SignalRefused { signal, code: r.code, reason: r.reason.clone(), spent })?;
            return Ok(b.finish(Outcome::Refused(r)));
        }
        let cooldown = self.policy.lease.emergency_cooldown_turns;
        if let Some(last) = b.state.last_emergency_turn
            && b.state.turn < last + cooldown
        {
            let r = Refusal::new(
                C::EmergencyCooldown,
                format!(
                    "an emergency stop was used {} turn(s) ago; the cooldown is {cooldown} turns (the agent is already in Sensemaking with no lease)",
                    b.state.turn - last
                ),
            );
            b.push(KernelEvent::GateRefused { act: GateAct::Emergency, code: r.code, reason: r.reason.clone() })?;
            return Ok(b.finish(Outcome::Refused(r)));
        }
        let cancelled: Vec<String> = b.state.pending.keys().cloned().collect();
        let from = b.state.stance;
        let why = if reason.trim().is_empty() { "the person stopped the agent" } else { reason.trim() };
        let decision = DecisionDraft {
            decision: format!("Emergency stop: {}", crate::bootstrap::cut(why, 250)),
            rationale: vec![crate::bootstrap::cut(why, 190)],
            tradeoffs: format!(
                "the lease was invalidated and {} pending call(s) cancelled; the frontier starts again at L0",
                cancelled.len()
            ),
            confidence: Confidence::High,
            revisit_triggers: vec![],
            supersedes: None,
        };
        b.push(KernelEvent::Emergency { signal, reason: reason.to_string(), cancelled, decision: Some(decision) })?;
        b.push(KernelEvent::StanceChanged { from, to: Stance::Sensemaking, act: GateAct::Emergency, writes: vec![] })?;
        self.reissue_scope(&mut b)?;
        Ok(b.finish(Outcome::Done))
    }

    /// The gateway pass that opens every kernel operation (seed 001's invariant flow, step 1:
    /// "check commitment"): the decay manager's due events, then, if anything waits in the
    /// proposal buffer, the gate controller's read.
    pub fn tick(&self, state: &KernelState, now: Millis) -> Result<Decision, KernelError> {
        let mut b = Builder::new(state, now);
        let now = b.at;
        let mut lapsed = false;
        for ev in decay::due(&b.state, now) {
            lapsed |= matches!(ev, KernelEvent::LeaseExpired { .. });
            // The decay manager's proposal must not be lost to a buffer full of higher-ranked
            // ones: the controller reads those first, then the proposal has room.
            if let KernelEvent::GateProposed { proposal } = &ev
                && b.state.memory.proposals().would_accept(proposal).is_err()
            {
                self.read_buffer(&mut b, ReadTrigger::GatewayPass)?;
            }
            b.push(ev)?;
        }
        if lapsed {
            self.reissue_scope(&mut b)?;
        }
        self.read_buffer(&mut b, ReadTrigger::GatewayPass)?;
        Ok(b.finish(Outcome::Done))
    }

    /// The gate controller reads the buffer at the end of a turn or on request.
    pub fn read_proposals(
        &self,
        state: &KernelState,
        trigger: ReadTrigger,
        now: Millis,
    ) -> Result<Decision, KernelError> {
        let mut b = Builder::new(state, now);
        self.read_buffer(&mut b, trigger)?;
        Ok(b.finish(Outcome::Done))
    }

    /// Gives every waiting proposal its verdict (in merge order, each judged against the stance
    /// the accepted ones before it left), records them, then takes the accepted acts.
    fn read_buffer(&self, b: &mut Builder, trigger: ReadTrigger) -> Result<(), KernelError> {
        if b.state.memory.proposals().is_empty() {
            return Ok(());
        }
        let waiting: Vec<GateProposal> = b.state.memory.proposals().peek().into_iter().cloned().collect();
        let mut sit = situation(&b.state, b.at);
        let mut verdicts = Vec::with_capacity(waiting.len());
        let mut effects = Vec::new();
        for p in &waiting {
            let mut v = gate_controller::decide(p, sit);
            match v.effect {
                Some(Effect::Gate(act)) => match stance::next(sit.stance, act) {
                    Some(to) => {
                        sit.stance = to;
                        effects.push(Effect::Gate(act));
                    }
                    None => {
                        v.verdict = VerdictKind::Rejected;
                        v.effect = None;
                        v.reason = forbidden_reason(sit.stance, act);
                    }
                },
                Some(Effect::BootstrapReentry) => {
                    sit.bootstrap_active = true;
                    effects.push(Effect::BootstrapReentry);
                }
                None => {}
            }
            verdicts.push(v);
        }
        b.push(KernelEvent::ProposalsRead { trigger, verdicts })?;
        let mut moved = false;
        for e in effects {
            match e {
                Effect::Gate(act) => {
                    let from = b.state.stance;
                    let Some(to) = stance::next(from, act) else { continue };
                    b.push(KernelEvent::StanceChanged { from, to, act, writes: vec![] })?;
                    moved = true;
                }
                Effect::BootstrapReentry => b.push(KernelEvent::BootstrapStepped { input: BootstrapInput::Reenter })?,
            }
        }
        if moved {
            self.reissue_scope(b)?;
        }
        Ok(())
    }

    /// A proposal for the buffer. Its time is the kernel's, not the proposer's: no source can
    /// claim an earlier timestamp to win a tie.
    pub fn propose_gate(
        &self,
        state: &KernelState,
        mut proposal: GateProposal,
        now: Millis,
    ) -> Result<Decision, KernelError> {
        let mut b = Builder::new(state, now);
        proposal.at = b.at;
        proposal.reason = proposal.reason.trim().to_string();
        let refuse = |b: Builder, why: String| Ok(b.finish(Outcome::Refused(Refusal::new(C::ProposalInvalid, why))));
        if let Some(origin) = proposal.origin.as_deref().filter(|o| o.starts_with(WORK_ORDER_PREFIX))
            && (proposal.source != GateSource::TaskAgent || !b.state.work_orders.contains_key(origin))
        {
            return refuse(b, format!("{origin} is not an open work order proposing as a task agent"));
        }
        if let Err(e) = b.state.memory.proposals().would_accept(&proposal) {
            return refuse(b, e.to_string());
        }
        b.push(KernelEvent::GateProposed { proposal })?;
        Ok(b.finish(Outcome::Done))
    }

    /// Fast memory: a progress update from the fast loop.
    pub fn note_progress(
        &self,
        state: &KernelState,
        update: ProgressUpdate,
        now: Millis,
    ) -> Result<Decision, KernelError> {
        let b = Builder::new(state, now);
        let problem = match (update.check(), b.state.memory.progress()) {
            (Err(e), _) => Some(e),
            (Ok(()), None) => Some("there is no progress state yet: it starts at the commitment gate (`smart gate commitment --stage ...`)".to_string()),
            (Ok(()), Some(_)) => None,
        };
        self.memory_event(b, problem, KernelEvent::ProgressNoted { update })
    }

    /// Fast memory: an interaction signal.
    pub fn note_signal(
        &self,
        state: &KernelState,
        signal: SignalKind,
        text: &str,
        now: Millis,
    ) -> Result<Decision, KernelError> {
        let b = Builder::new(state, now);
        let problem = crate::memory::signals::check_signal(text).err();
        self.memory_event(b, problem, KernelEvent::SignalNoted { signal, text: text.trim().to_string() })
    }

    /// Bridge memory: the person (no work order) or an open work order registers an artifact.
    pub fn register_artifact(
        &self,
        state: &KernelState,
        artifact: ArtifactDraft,
        work_order: Option<&str>,
        now: Millis,
    ) -> Result<Decision, KernelError> {
        let b = Builder::new(state, now);
        let owner = work_order.unwrap_or(REGISTRANT_PERSON).to_string();
        let problem = if work_order.is_some() && !b.state.work_orders.contains_key(&owner) {
            Some(format!("work order {owner} is not open"))
        } else {
            b.state.memory.artifacts().check_register(&artifact).err()
        };
        self.memory_event(b, problem, KernelEvent::ArtifactRegistered { artifact, owner })
    }

    fn memory_event(&self, mut b: Builder, problem: Option<String>, ev: KernelEvent) -> Result<Decision, KernelError> {
        if let Some(why) = problem {
            return Ok(b.finish(Outcome::Refused(Refusal::new(C::MemoryInvalid, why))));
        }
        b.push(ev)?;
        Ok(b.finish(Outcome::Done))
    }

    /// A scoped work order under the active lease, with a subset of the live scope's tools.
    pub fn open_work_order(
        &self,
        state: &KernelState,
        brief: &str,
        tools: &[String],
        now: Millis,
    ) -> Result<Decision, KernelError> {
        let mut b = Builder::new(state, now);
        let now = b.at;
        let refuse = |b: Builder, why: String| Ok(b.finish(Outcome::Refused(Refusal::new(C::WorkOrderInvalid, why))));
        let Some(lease) = b.state.active_lease(now).filter(|_| b.state.stance == Stance::Execution).cloned() else {
            return refuse(
                b,
                "a work order inherits the scope of an active commitment: pass the commitment gate first".into(),
            );
        };
        if let Err(e) = crate::work_order::check_brief(brief) {
            return refuse(b, e);
        }
        let Some(token) = b.state.scope.as_ref().filter(|t| !t.revoked && now < t.expires_at) else {
            return refuse(
                b,
                "there is no live scope token to inherit; ask Orbit for one (`smart scope issue`)".into(),
            );
        };
        if tools.is_empty() {
            return refuse(b, "a work order names the tools it may use".into());
        }
        if let Some(t) = tools.iter().find(|t| !token.tools.contains(*t)) {
            return refuse(b, format!("{t} is not in the live scope, so a work order cannot inherit it"));
        }
        if b.state.work_orders.len() >= crate::work_order::MAX_OPEN {
            return refuse(b, format!("{} work orders are already open", crate::work_order::MAX_OPEN));
        }
        let id = format!("{WORK_ORDER_PREFIX}{}", &hash_of(&(brief, now, b.state.seq))?.to_hex()[..8]);
        let order = WorkOrder {
            id,
            brief: brief.trim().to_string(),
            lease: lease.id,
            epoch: b.state.epoch,
            tools: tools.iter().cloned().collect(),
            opened_at: now,
        };
        b.push(KernelEvent::WorkOrderOpened { order })?;
        Ok(b.finish(Outcome::Done))
    }

    pub fn close_work_order(
        &self,
        state: &KernelState,
        id: &str,
        reason: &str,
        now: Millis,
    ) -> Result<Decision, KernelError> {
        let mut b = Builder::new(state, now);
        if !b.state.work_orders.contains_key(id) {
            let r = Refusal::new(C::WorkOrderInvalid, format!("work order {id} is not open"));
            return Ok(b.finish(Outcome::Refused(r)));
        }
        b.push(KernelEvent::WorkOrderClosed { id: id.to_string(), reason: reason.to_string() })?;
        Ok(b.finish(Outcome::Done))
    }

    /// One step of the first-contact protocol; when the person has just said how to go on, the
    /// transition proposal follows into the buffer.
    pub fn bootstrap(&self, state: &KernelState, input: BootstrapInput, now: Millis) -> Result<Decision, KernelError> {
        let mut b = Builder::new(state, now);
        let now = b.at;
        if input == BootstrapInput::Reenter {
            let r = Refusal::new(
                C::BootstrapInvalid,
                "re-entry is the gate controller's verdict on a proposal, not an input",
            );
            return Ok(b.finish(Outcome::Refused(r)));
        }
        let before = b.state.bootstrap.clone();
        let after = match crate::bootstrap::step(before.as_ref(), &input, b.state.existing_user(), now) {
            Ok(a) => a,
            Err(why) => return Ok(b.finish(Outcome::Refused(Refusal::new(C::BootstrapInvalid, why)))),
        };
        b.push(KernelEvent::BootstrapStepped { input })?;
        if let Some(before) = before
            && crate::bootstrap::proposes_transition(&before, &after)
        {
            let rec = crate::bootstrap::recommendation(&after);
            let (gate, action) = match rec {
                Recommendation::RemainListening => (SuggestedGate::Framing, ProposedAction::RemainListening),
                Recommendation::OfferStructure => (SuggestedGate::Framing, ProposedAction::OfferStructure),
                Recommendation::OfferWorkOrder => (SuggestedGate::Commitment, ProposedAction::OfferWorkOrder),
                Recommendation::OfferNorthStars => (SuggestedGate::Framing, ProposedAction::OfferNorthStars),
            };
            let p = GateProposal::new(GateSource::TaskAgent, gate, Severity::Low, rec.text(), now)
                .with_action(action)
                .with_origin("bootstrap");
            if b.state.memory.proposals().would_accept(&p).is_ok() {
                b.push(KernelEvent::GateProposed { proposal: p })?;
            }
        }
        Ok(b.finish(Outcome::Done))
    }

    /// Framing-gate write: a new lease draft.
    pub fn draft_lease(&self, state: &KernelState, draft: LeaseDraft, now: Millis) -> Result<Decision, KernelError> {
        let mut b = Builder::new(state, now);
        let now = b.at;
        if let Some(id) = b.state.lease.as_ref().filter(|l| l.state == LeaseState::Active).map(|l| l.id) {
            return gate_refused(
                b,
                GateAct::Framing,
                C::GateForbidden,
                format!("lease {} is active; pass the evaluation gate before drafting another", id.short()),
            );
        }
        if b.state.bootstrap_restricts() {
            return gate_refused(
                b,
                GateAct::Framing,
                C::BootstrapMode,
                "bootstrap forms no commitments until you consent; say you are ready, or skip it (`smart bootstrap skip`)".into(),
            );
        }
        let stance = b.state.stance;
        if !matches!(stance, Stance::Sensemaking | Stance::Discovery) {
            return gate_refused(
                b,
                GateAct::Framing,
                C::GateForbidden,
                format!("drafting a lease is a framing-gate write; the {stance} stance does not allow it"),
            );
        }
        let max = match draft.horizon {
            crate::lease::Horizon::Short => self.policy.lease.max_short_ms,
            crate::lease::Horizon::Mid => self.policy.lease.max_mid_ms,
            crate::lease::Horizon::Long => self.policy.lease.max_long_ms,
        };
        let frame = draft.frame.trim();
        let problem = if frame.is_empty() {
            Some("the frame is empty: say what problem the lease commits to".to_string())
        } else if frame.chars().count() > 500 {
            Some("the frame is longer than 500 characters".to_string())
        } else if draft.duration_ms == 0 {
            Some("the lease must last longer than zero".to_string())
        } else if draft.duration_ms > max {
            Some(format!("a {} lease lasts at most {}", draft.horizon, crate::time::format_duration(max)))
        } else if draft.success_criteria.len() > 3 || draft.non_goals.len() > 3 {
            Some("a lease has at most 3 success criteria and 3 non-goals".to_string())
        } else {
            None
        };
        if let Some(why) = problem {
            return gate_refused(b, GateAct::Framing, C::LeaseInvalid, why);
        }
        let id = hash_of(&(&draft, now, b.state.seq))?;
        b.push(KernelEvent::LeaseDrafted {
            lease: Lease { id, draft, state: LeaseState::Drafted, drafted_at: now, expires_at: None },
        })?;
        Ok(b.finish(Outcome::Done))
    }

    /// A gate act asked for by the person: framing, commitment, evaluate, renew, revise, release.
    pub fn gate(&self, state: &KernelState, act: GateAct, now: Millis) -> Result<Decision, KernelError> {
        self.pass_gate(state, act, Vec::new(), now)
    }

    /// A gate act with the slow-memory writes the person makes at it. A write the gate does not
    /// allow (or a malformed one) refuses the whole pass: nothing moves, nothing is written.
    pub fn pass_gate(
        &self,
        state: &KernelState,
        act: GateAct,
        writes: Vec<SlowWrite>,
        now: Millis,
    ) -> Result<Decision, KernelError> {
        let mut b = Builder::new(state, now);
        let now = b.at;
        let from = b.state.stance;
        if !writes.is_empty() {
            // A copy-on-write copy: the parts are copied only when the probe writes.
            let mut probe = b.state.memory.clone();
            if let Err(why) = probe.write(act, &writes, now) {
                return gate_refused(b, act, C::WriteForbidden, why);
            }
        }
        if act == GateAct::Commitment && b.state.bootstrap_restricts() {
            return gate_refused(
                b,
                act,
                C::BootstrapMode,
                "bootstrap forms no commitments until you consent; say you are ready, or skip it (`smart bootstrap skip`)".into(),
            );
        }
        match act {
            GateAct::Emergency | GateAct::LeaseExpiry => {
                gate_refused(b, act, C::GateForbidden, format!("{act} is not a gate a person passes directly"))
            }
            GateAct::Framing | GateAct::Evaluate => {
                let Some(to) = stance::next(from, act) else {
                    return gate_refused(b, act, C::GateForbidden, forbidden_reason(from, act));
                };
                b.push(KernelEvent::StanceChanged { from, to, act, writes })?;
                self.reissue_scope(&mut b)?;
                Ok(b.finish(Outcome::Done))
            }
            GateAct::Commitment => {
                let Some(lease) = b.state.lease.clone().filter(|l| l.state == LeaseState::Drafted) else {
                    return gate_refused(
                        b,
                        act,
                        C::NoDraft,
                        "there is no drafted lease to commit to; draft one first (`smart lease draft`)".into(),
                    );
                };
                if from == Stance::Sensemaking {
                    b.push(KernelEvent::StanceChanged {
                        from,
                        to: Stance::Discovery,
                        act: GateAct::Framing,
                        writes: vec![],
                    })?;
                }
                let here = b.state.stance;
                if stance::next(here, act).is_none() {
                    return gate_refused(b, act, C::GateForbidden, forbidden_reason(here, act));
                }
                b.push(KernelEvent::LeaseActivated { id: lease.id, expires_at: now.plus(lease.draft.duration_ms) })?;
                b.push(KernelEvent::StanceChanged { from: here, to: Stance::Execution, act, writes })?;
                self.reissue_scope(&mut b)?;
                Ok(b.finish(Outcome::Done))
            }
            GateAct::Renew | GateAct::Revise | GateAct::Release => {
                let Some(to) = stance::next(from, act) else {
                    return gate_refused(b, act, C::GateForbidden, forbidden_reason(from, act));
                };
                let Some(lease) = b.state.lease.clone().filter(|l| l.state != LeaseState::Drafted) else {
                    return gate_refused(b, act, C::NoDraft, format!("there is no committed lease to {act}"));
                };
                let ev = match act {
                    GateAct::Renew => {
                        KernelEvent::LeaseRenewed { id: lease.id, expires_at: now.plus(lease.draft.duration_ms) }
                    }
                    GateAct::Revise => KernelEvent::LeaseRevised { id: lease.id },
                    _ => KernelEvent::LeaseReleased { id: lease.id },
                };
                b.push(ev)?;
                b.push(KernelEvent::StanceChanged { from, to, act, writes })?;
                self.reissue_scope(&mut b)?;
                Ok(b.finish(Outcome::Done))
            }
        }
    }

    /// Orbit issues a token on request.
    pub fn issue_scope(&self, state: &KernelState, req: &ScopeRequest, now: Millis) -> Result<Decision, KernelError> {
        let mut b = Builder::new(state, now);
        let now = b.at;
        match orbit::issue(
            &b.state,
            &self.registry,
            &self.policy.roots,
            req,
            self.policy.scope.ttl_without_lease_ms,
            now,
        ) {
            Ok(token) => {
                b.push(KernelEvent::ScopeIssued { token })?;
                Ok(b.finish(Outcome::Done))
            }
            Err(why) => Ok(b.finish(Outcome::Refused(Refusal::new(C::ScopeInvalid, why)))),
        }
    }

    /// Records a supervised component's fault. Nothing is refused or granted by it.
    pub fn record_fault(
        &self,
        state: &KernelState,
        component: &str,
        reason: &str,
        restart_in_ms: u64,
        now: Millis,
    ) -> Result<Decision, KernelError> {
        let mut b = Builder::new(state, now);
        b.push(KernelEvent::Fault { component: component.to_string(), reason: reason.to_string(), restart_in_ms })?;
        Ok(b.finish(Outcome::Done))
    }

    pub fn revoke_scope(&self, state: &KernelState, reason: &str, now: Millis) -> Result<Decision, KernelError> {
        let mut b = Builder::new(state, now);
        match b.state.scope.clone().filter(|t| !t.revoked) {
            Some(t) => {
                b.push(KernelEvent::ScopeRevoked { id: t.id, reason: reason.to_string() })?;
                Ok(b.finish(Outcome::Done))
            }
            None => {
                Ok(b.finish(Outcome::Refused(Refusal::new(C::ScopeInvalid, "there is no live scope token to revoke"))))
            }
        }
    }

    /// After a lease or stance change Orbit re-issues the live token for the new situation. A
    /// revoked token stays revoked: only the person's `scope issue` replaces it.
    fn reissue_scope(&self, b: &mut Builder) -> Result<(), KernelError> {
        let Some(current) = b.state.scope.clone().filter(|t| !t.revoked) else {
            return Ok(());
        };
        let req = ScopeRequest { context: current.context, session: current.session, read_only: current.read_only };
        match orbit::issue(
            &b.state,
            &self.registry,
            &self.policy.roots,
            &req,
            self.policy.scope.ttl_without_lease_ms,
            b.at,
        ) {
            Ok(token) => b.push(KernelEvent::ScopeIssued { token }),
            Err(why) => Err(KernelError::Encoding(why)),
        }
    }

    /// Undo of a committed reversible call. The committed event is read from the ledger by the
    /// caller; the kernel checks it is exactly what was committed (by its rollback hash).
    pub fn propose_undo(
        &self,
        state: &KernelState,
        target_seq: u64,
        committed: &KernelEvent,
        now: Millis,
        world: &dyn World,
    ) -> Result<Decision, KernelError> {
        let mut b = Builder::new(state, now);
        let now = b.at;
        b.push(KernelEvent::UndoRequested { target_seq })?;
        let refuse = |mut b: Builder, r: Refusal| -> Result<Decision, KernelError> {
            b.push(KernelEvent::Refused {
                tool: "undo".into(),
                call_hash: None,
                code: r.code,
                reason: r.reason.clone(),
            })?;
            Ok(b.finish(Outcome::Refused(r)))
        };
        match &b.state.scope {
            Some(t) if !t.revoked && now < t.expires_at => {}
            _ => {
                return refuse(
                    b,
                    Refusal::new(
                        C::ScopeInvalid,
                        "there is no live scope token; ask Orbit for one (`smart scope issue`)",
                    ),
                );
            }
        }
        let Some(meta) = b.state.reversible.get(&target_seq).cloned() else {
            return refuse(
                b,
                Refusal::new(C::NotReversible, format!("event {target_seq} is not a committed reversible call")),
            );
        };
        if meta.undone {
            return refuse(b, Refusal::new(C::NotReversible, format!("event {target_seq} was already undone")));
        }
        let rollback = match committed {
            KernelEvent::Committed { rollback: Some(rb), .. } if hash_of(rb).ok() == Some(meta.rollback_hash) => {
                rb.clone()
            }
            _ => {
                return refuse(
                    b,
                    Refusal::new(
                        C::NotReversible,
                        format!("the ledger's event {target_seq} does not match what was committed"),
                    ),
                );
            }
        };
        let expected: BTreeMap<String, Option<Hash>> = match rollback.get("inputs").cloned().map(serde_json::from_value)
        {
            Some(Ok(m)) => m,
            _ => {
                return refuse(
                    b,
                    Refusal::new(C::NotReversible, format!("event {target_seq} carries no usable rollback inputs")),
                );
            }
        };
        let mut inputs = BTreeMap::new();
        for (path, want) in &expected {
            // A folder on the way back swapped for a symlink would send the restore elsewhere.
            match world.resolve(path) {
                Ok(p) if p == Path::new(path) => {}
                Ok(p) => {
                    return refuse(
                        b,
                        Refusal::new(
                            C::SnapshotStale,
                            format!("{path} now resolves to {}; undo would write elsewhere", p.display()),
                        ),
                    );
                }
                Err(e) => return refuse(b, Refusal::new(C::SnapshotStale, format!("{path} cannot be resolved: {e}"))),
            }
            let have = match world.file_hash(Path::new(path)) {
                Ok(h) => h,
                Err(e) => return refuse(b, Refusal::new(C::SnapshotStale, format!("{path} cannot be read: {e}"))),
            };
            if have != *want {
                return refuse(
                    b,
                    Refusal::new(
                        C::SnapshotStale,
                        format!("{path} changed since event {target_seq}; undoing now would lose that change"),
                    ),
                );
            }
            inputs.insert(path.clone(), have);
        }
        // Records (db.upsert) are checked like files: undo runs only while the record still holds
        // exactly what the call wrote.
        let records: BTreeMap<String, Option<Hash>> = match rollback.get("records").cloned().map(serde_json::from_value)
        {
            None => BTreeMap::new(),
            Some(Ok(m)) => m,
            Some(Err(_)) => {
                return refuse(
                    b,
                    Refusal::new(
                        C::NotReversible,
                        format!("event {target_seq} carries malformed record rollback data"),
                    ),
                );
            }
        };
        for (id, want) in &records {
            match world.record_hash(id) {
                Ok(have) if have == *want => {}
                Ok(_) => {
                    return refuse(
                        b,
                        Refusal::new(
                            C::SnapshotStale,
                            format!("record {id} changed since event {target_seq}; undoing now would lose that change"),
                        ),
                    );
                }
                Err(e) => return refuse(b, Refusal::new(C::SnapshotStale, format!("record {id} cannot be read: {e}"))),
            }
        }
        let args = serde_json::json!({ "target_seq": target_seq, "tool": meta.tool, "rollback": rollback });
        let call = ResolvedCall {
            tool: "undo".into(),
            layer: meta.layer,
            reversibility: Reversibility::Reversible,
            cost: 0,
            hash: ResolvedCall::hash_parts("undo", &args)?,
            args,
            paths: expected.keys().cloned().collect(),
            artifact: None,
        };
        b.push(KernelEvent::UndoAdmitted { target_seq, call: call.clone() })?;
        Ok(b.finish(Outcome::Admitted(Box::new(AdmittedCall::new(call, Tier::One, None, inputs)))))
    }

    /// The receipt for an admitted call: committed with its output, or failed.
    pub fn receipt(&self, admitted: &AdmittedCall, result: Result<ToolOutput, String>) -> KernelEvent {
        let call = admitted.call();
        match result {
            Ok(out) => KernelEvent::Committed {
                call_hash: call.hash,
                tool: call.tool.clone(),
                layer: call.layer,
                tier: admitted.tier(),
                output: out.output,
                artifact: out.artifact,
                rollback: out.rollback,
                notify: admitted.tier() == Tier::Two,
                undoes: call.args.get("target_seq").and_then(Value::as_u64).filter(|_| call.tool == "undo"),
                duration_ms: out.duration_ms,
            },
            Err(error) => KernelEvent::Failed { call_hash: call.hash, tool: call.tool.clone(), error },
        }
    }
}

/// Records the admission and hands out the only proof of it.
fn admit(mut b: Builder, checked: Checked, pending_id: Option<String>) -> Result<Decision, KernelError> {
    b.push(KernelEvent::Admitted {
        call: checked.call.clone(),
        tier: checked.tier,
        inputs: checked.inputs.clone(),
        pending_id,
        work_order: checked.work_order.clone(),
    })?;
    Ok(b.finish(Outcome::Admitted(Box::new(AdmittedCall::new(
        checked.call,
        checked.tier,
        checked.artifact,
        checked.inputs,
    )))))
}

fn gate_refused(mut b: Builder, act: GateAct, code: C, reason: String) -> Result<Decision, KernelError> {
    let r = Refusal::new(code, reason);
    b.push(KernelEvent::GateRefused { act, code, reason: r.reason.clone() })?;
    Ok(b.finish(Outcome::Refused(r)))
}

/// Ids of work orders start with this, so a proposal's origin can be told apart from the names
/// of evaluators and reports.
pub const WORK_ORDER_PREFIX: &str = "wo-";

/// The state as the gate controller sees it.
fn situation(state: &KernelState, now: Millis) -> Situation {
    let lease = match &state.lease {
        None => LeaseView::None,
        Some(l) if l.state == LeaseState::Drafted => LeaseView::Drafted,
        Some(l) if l.is_active_at(now) => LeaseView::Active,
        Some(_) => LeaseView::Lapsed,
    };
    Situation { stance: state.stance, lease, bootstrap_active: state.bootstrap.as_ref().is_some_and(|b| b.active()) }
}

fn forbidden_reason(from: Stance, act: GateAct) -> String {
    match (from, act) {
        (Stance::Execution, GateAct::Framing) => "Execution cannot go back to Discovery directly; pass the evaluation gate first (seed 001: no direct Execution → Discovery)".into(),
        (Stance::Execution, GateAct::Commitment) => "already committed: the stance is Execution".into(),
        (_, GateAct::Renew | GateAct::Revise | GateAct::Release) => format!("{act} is an evaluation-gate decision; the stance is {from} (pass the evaluation gate first)"),
        (_, GateAct::Evaluate) => format!("the evaluation gate assesses Execution; the stance is {from}"),
        _ => format!("the {act} gate does not lead anywhere from {from}"),
    }
}

/// Whether refusing `signal` spends its nonce: only a signal this device really signed, whose
/// nonce is still unused. A forgery spends nothing (else anyone could burn nonces, or fill the
/// state with them); a genuine approval refused for any reason — the gate not open yet, the
/// files changed — cannot be handed in again later and commit without the person.
fn spends(state: &KernelState, signal: &UserSignal) -> bool {
    !state.nonces.contains_key(&signal.nonce) && signal.verify_signature(&state.device_key).is_ok()
}
