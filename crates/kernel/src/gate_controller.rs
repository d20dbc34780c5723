//! The gate controller: the only reader of the proposal buffer, and the only part of the slow
//! loop that acts on a proposal (seed 001: "Only Gate Controller has authority to act").
//!
//! It reads the buffer at a gateway pass (the commitment check that starts every kernel
//! operation), at the end of a turn, or when asked, takes the proposals in merge order and gives
//! each a verdict — accepted (with the act it takes), referred to the person, or rejected — with
//! the reason. Every verdict is recorded in one `proposals_read` event; the acts follow as
//! ordinary gate events, each judged against the stance the previous one left, so two
//! proposals for the same gate in one read give one transition and one "already done".
//!
//! What it may do on its own is deliberately one-sided: it only ever *reduces* authority or
//! keeps it level. It may pause execution for evaluation (Execution → Evaluation, which drops
//! the ceiling to L1), move Sensemaking to Discovery (both propose-only), or put bootstrap back
//! into listening. Anything that grants authority — committing a lease, renewing, revising,
//! ratifying — is the person's, so such proposals are *referred*: shown, never taken. That is
//! also why a proposal's source needs no signature: no source can make it raise anything. An
//! emergency proposal does not fire the emergency gate either (that takes the person's signed
//! stop); it pauses execution, and the person is told.
//!
//! [`decide`] is a pure function of the proposal and the [`Situation`]; its table is tested
//! row by row.

use crate::gate_proposal::{GateProposal, GateSource, ProposedAction, Severity, SuggestedGate};
use crate::stance::{GateAct, Stance};
use serde::{Deserialize, Serialize};

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum VerdictKind {
    Accepted,
    Referred,
    Rejected,
}

/// What an accepted proposal does.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    Gate(GateAct),
    BootstrapReentry,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Verdict {
    pub proposal: GateProposal,
    pub verdict: VerdictKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect: Option<Effect>,
    pub reason: String,
}

/// The lease as the controller needs to see it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LeaseView {
    None,
    Drafted,
    Active,
    /// Past its expiry (recorded or not yet).
    Lapsed,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Situation {
    pub stance: Stance,
    pub lease: LeaseView,
    pub bootstrap_active: bool,
}

/// A proposal the controller takes without the person: high or emergency severity, or from the
/// person's own signal or the decay manager (whose proposals are facts: the lease did expire).
fn strong(p: &GateProposal) -> bool {
    p.severity >= Severity::High || matches!(p.source, GateSource::UserSignal | GateSource::DecayManager)
}

fn verdict(p: &GateProposal, verdict: VerdictKind, effect: Option<Effect>, reason: String) -> Verdict {
    Verdict { proposal: p.clone(), verdict, effect, reason }
}

pub fn decide(p: &GateProposal, s: Situation) -> Verdict {
    use VerdictKind::*;
    let accept = |act: GateAct, why: String| verdict(p, Accepted, Some(Effect::Gate(act)), why);
    let refer = |why: &str| verdict(p, Referred, None, why.to_string());
    let reject = |why: &str| verdict(p, Rejected, None, why.to_string());
    if let Some(action) = p.action {
        return match action {
            ProposedAction::BootstrapReentry if s.bootstrap_active => reject("bootstrap is already listening"),
            ProposedAction::BootstrapReentry if p.severity >= Severity::High => verdict(
                p,
                Accepted,
                Some(Effect::BootstrapReentry),
                "back to listening: the commitment is paused (propose-only), not invalidated".into(),
            ),
            ProposedAction::BootstrapReentry => {
                refer("a re-entry below high severity is offered to the person, not taken")
            }
            _ => refer("a recommendation for the person; it changes nothing by itself"),
        };
    }
    if p.severity == Severity::Emergency {
        return if s.stance == Stance::Execution {
            accept(
                GateAct::Evaluate,
                "execution pauses for evaluation; only the person's signed stop fires the emergency gate".into(),
            )
        } else {
            refer("only the person's signed stop fires the emergency gate; nothing is executing to pause")
        };
    }
    match p.suggested_gate {
        SuggestedGate::Evaluation => match s.stance {
            Stance::Execution if strong(p) => {
                let act = if p.source == GateSource::DecayManager && s.lease == LeaseView::Lapsed {
                    GateAct::LeaseExpiry
                } else {
                    GateAct::Evaluate
                };
                accept(act, "execution pauses for the evaluation gate".into())
            }
            Stance::Execution => refer("below high severity: suggested to the person, execution goes on"),
            Stance::Evaluation => reject("the evaluation gate is already open"),
            Stance::Sensemaking | Stance::Discovery => reject("nothing is executing, so there is nothing to evaluate"),
        },
        SuggestedGate::Framing => match s.stance {
            Stance::Sensemaking if s.bootstrap_active => {
                refer("bootstrap is listening; framing waits for the person's consent")
            }
            Stance::Sensemaking if strong(p) => accept(GateAct::Framing, "framing begins (Discovery)".into()),
            Stance::Execution if strong(p) => accept(
                GateAct::Evaluate,
                "Execution cannot reframe directly (no Execution → Discovery); it passes the evaluation gate first"
                    .into(),
            ),
            Stance::Discovery => refer("reframing in Discovery is the person's: draft a new lease"),
            Stance::Evaluation => refer("revising the frame is the person's decision at the evaluation gate"),
            Stance::Sensemaking | Stance::Execution => refer("below high severity: suggested to the person"),
        },
        SuggestedGate::Commitment => match (s.stance, s.lease) {
            (Stance::Execution, LeaseView::Active) => reject("already committed: the stance is Execution"),
            _ => refer("committing activates a lease, which only the person can do"),
        },
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use crate::time::Millis;
    use GateSource::*;
    use Severity::*;
    use Stance::*;
    use SuggestedGate as G;

    fn p(gate: SuggestedGate, severity: Severity, source: GateSource) -> GateProposal {
        GateProposal {
            reason: "r".into(),
            severity,
            suggested_gate: gate,
            source,
            at: Millis(1),
            action: None,
            origin: None,
        }
    }

    fn sit(stance: Stance, lease: LeaseView) -> Situation {
        Situation { stance, lease, bootstrap_active: false }
    }

    fn short(v: &Verdict) -> (VerdictKind, Option<Effect>) {
        (v.verdict, v.effect)
    }

    use Effect::Gate;
    use VerdictKind::*;

    type Row = (GateProposal, Situation, (VerdictKind, Option<Effect>));

    #[test]
    fn the_verdict_table() {
        let rows: &[Row] = &[
            // Evaluation proposals pause execution when strong enough.
            (
                p(G::Evaluation, High, ContinuousEval),
                sit(Execution, LeaseView::Active),
                (Accepted, Some(Gate(GateAct::Evaluate))),
            ),
            (p(G::Evaluation, Medium, ContinuousEval), sit(Execution, LeaseView::Active), (Referred, None)),
            (
                p(G::Evaluation, Low, UserSignal),
                sit(Execution, LeaseView::Active),
                (Accepted, Some(Gate(GateAct::Evaluate))),
            ),
            (
                p(G::Evaluation, High, DecayManager),
                sit(Execution, LeaseView::Lapsed),
                (Accepted, Some(Gate(GateAct::LeaseExpiry))),
            ),
            (p(G::Evaluation, High, DecayManager), sit(Evaluation, LeaseView::Lapsed), (Rejected, None)),
            (p(G::Evaluation, High, Perception), sit(Sensemaking, LeaseView::None), (Rejected, None)),
            (p(G::Evaluation, High, TaskAgent), sit(Discovery, LeaseView::Drafted), (Rejected, None)),
            // Framing.
            (
                p(G::Framing, High, Perception),
                sit(Sensemaking, LeaseView::None),
                (Accepted, Some(Gate(GateAct::Framing))),
            ),
            (p(G::Framing, Low, Perception), sit(Sensemaking, LeaseView::None), (Referred, None)),
            (
                p(G::Framing, High, ContinuousEval),
                sit(Execution, LeaseView::Active),
                (Accepted, Some(Gate(GateAct::Evaluate))),
            ),
            (p(G::Framing, Medium, ContinuousEval), sit(Execution, LeaseView::Active), (Referred, None)),
            (p(G::Framing, High, UserSignal), sit(Discovery, LeaseView::Drafted), (Referred, None)),
            (p(G::Framing, High, UserSignal), sit(Evaluation, LeaseView::Active), (Referred, None)),
            // Commitment is always the person's.
            (p(G::Commitment, High, UserSignal), sit(Discovery, LeaseView::Drafted), (Referred, None)),
            (p(G::Commitment, Emergency, UserSignal), sit(Discovery, LeaseView::Drafted), (Referred, None)),
            (p(G::Commitment, High, TaskAgent), sit(Execution, LeaseView::Active), (Rejected, None)),
            // Emergency severity never fires the emergency gate.
            (
                p(G::Framing, Emergency, ContinuousEval),
                sit(Execution, LeaseView::Active),
                (Accepted, Some(Gate(GateAct::Evaluate))),
            ),
            (p(G::Evaluation, Emergency, Perception), sit(Sensemaking, LeaseView::None), (Referred, None)),
        ];
        for (i, (prop, s, want)) in rows.iter().enumerate() {
            let v = decide(prop, *s);
            assert_eq!(short(&v), *want, "row {i}: {prop:?} in {s:?}: {}", v.reason);
            assert!(!v.reason.is_empty());
        }
    }

    #[test]
    fn bootstrap_rows() {
        let mut re = p(G::Framing, High, Perception);
        re.action = Some(ProposedAction::BootstrapReentry);
        let listening = Situation { bootstrap_active: true, ..sit(Sensemaking, LeaseView::None) };
        assert_eq!(short(&decide(&re, sit(Execution, LeaseView::Active))), (Accepted, Some(Effect::BootstrapReentry)));
        assert_eq!(short(&decide(&re, listening)), (Rejected, None));
        re.severity = Medium;
        assert_eq!(short(&decide(&re, sit(Execution, LeaseView::Active))), (Referred, None));
        let mut offer = p(G::Commitment, Medium, TaskAgent);
        offer.action = Some(ProposedAction::OfferWorkOrder);
        assert_eq!(short(&decide(&offer, sit(Sensemaking, LeaseView::None))), (Referred, None));
        // Framing while bootstrap listens waits for consent, even when strong.
        assert_eq!(short(&decide(&p(G::Framing, High, Perception), listening)), (Referred, None));
    }

    /// The controller's one-sidedness: whatever it accepts, the stance it leads to never allows
    /// a higher layer than the stance it leaves.
    #[test]
    fn no_accepted_proposal_raises_the_ceiling() {
        use crate::admission::stance_ceiling;
        for stance in Stance::ALL {
            for lease in [LeaseView::None, LeaseView::Drafted, LeaseView::Active, LeaseView::Lapsed] {
                for gate in [G::Framing, G::Commitment, G::Evaluation] {
                    for sev in [Low, Medium, High, Emergency] {
                        for src in GateSource::ALL {
                            let v = decide(&p(gate, sev, src), sit(stance, lease));
                            if let Some(Gate(act)) = v.effect {
                                let to = crate::stance::next(stance, act).unwrap();
                                assert!(stance_ceiling(to) <= stance_ceiling(stance), "{stance} --{act}--> {to}");
                            }
                        }
                    }
                }
            }
        }
    }
}
