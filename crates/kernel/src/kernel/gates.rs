//! The kernel's decisions about where the agent stands: the stance gates (`crate::stance`), the
//! commitment lease, Orbit's scope token, the emergency stop, a worker's fault, and the gateway
//! pass (`tick`) that opens every operation with the decay manager's due events.

use super::calls::spends;
use super::{Builder, Decision, Kernel, Outcome};
use crate::approval::{Decision as SignalDecision, UserSignal};
use crate::canonical::hash_of;
use crate::decay;
use crate::error::KernelError;
use crate::event::KernelEvent;
use crate::gate_proposal::ReadTrigger;
use crate::lease::{Lease, LeaseDraft, LeaseState};
use crate::memory::{Confidence, DecisionDraft, SlowWrite};
use crate::orbit::{self, ScopeRequest};
use crate::refusal::{Refusal, RefusalCode as C};
use crate::stance::{self, GateAct, Stance};
use crate::state::KernelState;
use crate::time::Millis;

impl Kernel {
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
    pub(super) fn reissue_scope(&self, b: &mut Builder) -> Result<(), KernelError> {
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
}

fn gate_refused(mut b: Builder, act: GateAct, code: C, reason: String) -> Result<Decision, KernelError> {
    let r = Refusal::new(code, reason);
    b.push(KernelEvent::GateRefused { act, code, reason: r.reason.clone() })?;
    Ok(b.finish(Outcome::Refused(r)))
}

pub(super) fn forbidden_reason(from: Stance, act: GateAct) -> String {
    match (from, act) {
        (Stance::Execution, GateAct::Framing) => "Execution cannot go back to Discovery directly; pass the evaluation gate first (seed 001: no direct Execution → Discovery)".into(),
        (Stance::Execution, GateAct::Commitment) => "already committed: the stance is Execution".into(),
        (_, GateAct::Renew | GateAct::Revise | GateAct::Release) => format!("{act} is an evaluation-gate decision; the stance is {from} (pass the evaluation gate first)"),
        (_, GateAct::Evaluate) => format!("the evaluation gate assesses Execution; the stance is {from}"),
        _ => format!("the {act} gate does not lead anywhere from {from}"),
    }
}
