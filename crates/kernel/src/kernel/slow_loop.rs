//! The kernel's decisions for the slow loop: the gate controller's read of the proposal buffer,
//! the person's and the advisors' gate proposals, the memory notes (progress, signals,
//! artifacts), scoped work orders, and bootstrap's first contact.

use super::gates::forbidden_reason;
use super::{Builder, Decision, Kernel, Outcome};
use crate::bootstrap::{BootstrapInput, Recommendation};
use crate::canonical::hash_of;
use crate::error::KernelError;
use crate::event::KernelEvent;
use crate::gate_controller::{self, Effect, LeaseView, Situation, VerdictKind};
use crate::gate_proposal::{GateProposal, GateSource, ProposedAction, ReadTrigger, Severity, SuggestedGate};
use crate::lease::LeaseState;
use crate::memory::{ArtifactDraft, ProgressUpdate, SignalKind};
use crate::refusal::{Refusal, RefusalCode as C};
use crate::stance::{self, Stance};
use crate::state::KernelState;
use crate::state::REGISTRANT_PERSON;
use crate::time::Millis;
use crate::work_order::WorkOrder;

impl Kernel {
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
    pub(super) fn read_buffer(&self, b: &mut Builder, trigger: ReadTrigger) -> Result<(), KernelError> {
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
