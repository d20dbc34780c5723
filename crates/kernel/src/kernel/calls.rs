//! The kernel's decisions about calls: a proposal admitted, held for the person or refused; the
//! person's signed approve or deny of a held call; an undo; and the receipt that closes an
//! admitted call. Admission's checks themselves live in `crate::admission`; this file decides what
//! their answer means and which events record it.

use super::{Builder, Decision, Kernel, Outcome, ToolOutput};
use crate::admission::{self, Checked, Mode};
use crate::approval::{Decision as SignalDecision, UserSignal};
use crate::call::{AdmittedCall, ProposedCall, ResolvedCall};
use crate::canonical::{Hash, hash_of};
use crate::error::KernelError;
use crate::event::{KernelEvent, PendingCall};
use crate::layer::Layer;
use crate::refusal::{Refusal, RefusalCode as C};
use crate::state::KernelState;
use crate::tier::{Tier, is_sensitive};
use crate::time::Millis;
use crate::tool::Reversibility;
use crate::world::World;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

impl Kernel {
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
    pub(super) fn verify_signal(&self, state: &KernelState, signal: &UserSignal, now: Millis) -> Result<(), Refusal> {
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

/// Whether refusing `signal` spends its nonce: only a signal this device really signed, whose
/// nonce is still unused. A forgery spends nothing (else anyone could burn nonces, or fill the
/// state with them); a genuine approval refused for any reason — the gate not open yet, the
/// files changed — cannot be handed in again later and commit without the person.
pub(super) fn spends(state: &KernelState, signal: &UserSignal) -> bool {
    !state.nonces.contains_key(&signal.nonce) && signal.verify_signature(&state.device_key).is_ok()
}
