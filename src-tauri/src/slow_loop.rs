//! The slow loop in the HUD: what SMART remembers and why it changed direction, the first-contact
//! conversation, and the person's own voice in the gate controller.
//!
//! The runtime already keeps all of it — decisions, principles and North Stars, progress,
//! interaction signals, the artifact index, work orders, the proposal buffer and the gate
//! controller's verdicts, bootstrap — and the CLI shows it (`smart memory`, `smart proposals`).
//! A person who only ever opens the app must see it too, and must be able to answer bootstrap's
//! questions, propose a gate and ask for a perception read without a terminal. These commands are
//! that window; like the HUD's others they decide nothing themselves. Every write is one kernel
//! decision, ledgered: an answer goes through the assistant exactly as if typed into the command
//! box (so "dive in" carries the request out in the same turn), a proposal waits for the gate
//! controller like any other (the person's carries the highest source priority, never authority
//! the controller would not grant), and a perception report only ever adds proposals.
//!
//! Bootstrap also needs the app to speak first: a fresh ledger is first contact, and an
//! unfinished bootstrap is a conversation to pick up. The runtime's `Engine::greet` does that
//! once per app run, when the session first opens the data dir.

use crate::reports::{Outcome, SayResult};
use crate::session::Session;
use serde::Serialize;
use serde_json::Value;
use smart_kernel::bootstrap::{BootstrapInput, Consent, Stage};
use smart_kernel::gate_controller::VerdictKind;
use smart_kernel::{GateProposal, GateSource, ReadTrigger, Severity, SuggestedGate};
use smart_ledger::SessionSummary;
use smart_runtime::SayOptions;
use smart_runtime::slow_loop::{BootstrapReply, GateTransition, MemoryView, ProposalRead, SESSION_QUIET_GAP_MS};
use tauri::State;

/// How many of the gate controller's reads the panel shows.
const READS_SHOWN: usize = 5;
/// How many gate transitions the panel shows.
const GATES_SHOWN: usize = 10;
/// How many past sessions the panel shows.
const SESSIONS_SHOWN: usize = 5;

/// Where bootstrap stands after a step, and what came of the step.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct BootstrapResult {
    /// The kernel's word on the step (`refused` with the reason when the machine does not take it).
    pub outcome: Outcome,
    /// Where bootstrap stands now; `None` when it has not started.
    pub stage: Option<Stage>,
    /// The next question, if bootstrap asks one.
    pub prompt: Option<String>,
    /// Whether the kernel holds the agent to propose-only.
    pub propose_only: bool,
    /// The turn that carried out the person's request once they said "dive in".
    pub turn: Option<SayResult>,
}

impl BootstrapResult {
    fn from_reply(r: &BootstrapReply, turn: Option<SayResult>) -> BootstrapResult {
        BootstrapResult {
            outcome: Outcome::from(&r.report),
            stage: r.stage,
            prompt: r.prompt.clone(),
            propose_only: r.propose_only,
            turn,
        }
    }
}

/// The person's gate proposal and the gate controller's verdict on it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ProposeResult {
    /// Whether the proposal was taken into the buffer (`refused` with the reason if not).
    pub outcome: Outcome,
    /// The controller's verdict, once it has read the proposal.
    pub verdict: Option<VerdictKind>,
    /// The controller's reason for the verdict.
    pub reason: Option<String>,
}

/// One perception read, or why there is none. Errors are part of the answer, not a failed call:
/// the HUD shows them where the report would have been.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct PerceiveResult {
    /// The two reports in a few plain sentences.
    pub summary: Option<String>,
    /// What the contrast report recommends, when it saw a gap.
    pub correction: Option<String>,
    /// The rules that fired, each ledgered as a proposal or a signal.
    pub findings: Vec<String>,
    pub took_ms: Option<f64>,
    pub error: Option<String>,
}

impl PerceiveResult {
    fn failed(error: String) -> PerceiveResult {
        PerceiveResult { summary: None, correction: None, findings: vec![], took_ms: None, error: Some(error) }
    }
}

/// Everything the panel shows, in one read: the memory view (`smart memory --json`), the gate
/// controller's latest reads, the gate transitions and the sessions, on the kernel's clock.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SlowLoopView {
    pub now_ms: u64,
    /// There is context from before (a lease, decisions, principles): the check-in applies.
    pub existing_user: bool,
    pub memory: MemoryView,
    /// The gate controller's latest reads, newest first.
    pub reads: Vec<ProposalRead>,
    /// Gate transitions, newest first.
    pub gates: Vec<GateTransition>,
    /// Sessions, newest first (cut where the ledger was quiet for `session_gap_ms`).
    pub sessions: Vec<SessionSummary>,
    pub session_gap_ms: u64,
}

#[tauri::command]
pub async fn slow_loop_view(session: State<'_, Session>) -> Result<SlowLoopView, String> {
    session
        .with_engine(|e| {
            Ok(SlowLoopView {
                memory: e.memory_view()?,
                reads: e.proposal_history(READS_SHOWN)?,
                gates: e.gate_history(GATES_SHOWN)?,
                sessions: e.session_history(SESSION_QUIET_GAP_MS, SESSIONS_SHOWN)?,
                now_ms: e.now().0,
                existing_user: e.state().existing_user(),
                session_gap_ms: SESSION_QUIET_GAP_MS,
            })
        })
        .await
}

/// Answers bootstrap's question. It goes through the assistant like typed text, which hands it
/// to bootstrap while bootstrap listens — and, after "dive in", carries the request out.
#[tauri::command]
pub async fn bootstrap_answer(session: State<'_, Session>, text: String) -> Result<BootstrapResult, String> {
    let mut a = session.open().await?;
    // Outside bootstrap the same words would be a request to act: never let an answer become one.
    if !a.engine().bootstrap_listening() {
        return Err("bootstrap is not listening: type requests in the command box".into());
    }
    let opts = SayOptions { propose_only: false, no_templates: false, base: None };
    let report = a.say(&text, &opts).await.map_err(|e| e.to_string())?;
    let Some(b) = report.bootstrap.as_deref() else {
        return Err("bootstrap did not take the answer".into());
    };
    let turn = b.proceed_with.as_ref().map(|_| SayResult::from(&report));
    let mut result = BootstrapResult::from_reply(b, turn);
    // After a carried-out request the state has moved on: show where bootstrap is now.
    let s = a.engine().state();
    result.stage = s.bootstrap.as_ref().map(|b| b.stage);
    result.prompt = s.bootstrap.as_ref().and_then(smart_kernel::bootstrap::prompt);
    result.propose_only = s.bootstrap_restricts();
    Ok(result)
}

/// Leaves bootstrap now.
#[tauri::command]
pub async fn bootstrap_skip(session: State<'_, Session>) -> Result<BootstrapResult, String> {
    session.with_engine(|e| e.bootstrap_step(BootstrapInput::Skip).map(|r| BootstrapResult::from_reply(&r, None))).await
}

/// The answer to the permission question: keep listening, offer ideas, or ready to commit.
#[tauri::command]
pub async fn bootstrap_consent(session: State<'_, Session>, consent: String) -> Result<BootstrapResult, String> {
    let consent = match consent.as_str() {
        "listen_only" => Consent::ListenOnly,
        "propose_structure" => Consent::ProposeStructure,
        "ready_for_commitment" => Consent::ReadyForCommitment,
        other => {
            return Err(format!("consent {other:?} must be listen_only, propose_structure or ready_for_commitment"));
        }
    };
    session
        .with_engine(|e| {
            e.bootstrap_step(BootstrapInput::Consent { consent }).map(|r| BootstrapResult::from_reply(&r, None))
        })
        .await
}

/// The returning person's light check-in (bootstrap's `Start` when there is context from before;
/// on a fresh ledger it is first contact). The kernel refuses it once bootstrap has run.
#[tauri::command]
pub async fn bootstrap_check_in(session: State<'_, Session>) -> Result<BootstrapResult, String> {
    session
        .with_engine(|e| e.bootstrap_step(BootstrapInput::Start).map(|r| BootstrapResult::from_reply(&r, None)))
        .await
}

/// A gate proposal from the person (source `user_signal`, origin "person"). The person asked,
/// so the gate controller reads the buffer at once and the verdict comes back with the answer.
#[tauri::command]
pub async fn propose_gate(
    session: State<'_, Session>,
    gate: String,
    severity: String,
    reason: String,
) -> Result<ProposeResult, String> {
    let gate: SuggestedGate = gate.parse()?;
    let severity: Severity = severity.parse()?;
    // The proposal and the read it asks for are one request.
    let turn = smart_runtime::TurnId::new();
    session
        .with_engine(|e| {
            e.in_turn(&turn, |e| {
                let p = GateProposal::new(GateSource::UserSignal, gate, severity, reason.clone(), e.now())
                    .with_origin("person");
                let r = e.propose_gate(p)?;
                if r.outcome == smart_runtime::CallOutcome::Refused {
                    return Ok(ProposeResult { outcome: Outcome::from(&r), verdict: None, reason: None });
                }
                e.read_proposals(ReadTrigger::Request)?;
                let read = e.proposal_history(1)?;
                let mine = read.into_iter().next().and_then(|read| {
                    read.verdicts.into_iter().rev().find(|v| {
                        v.proposal.source == GateSource::UserSignal
                            && v.proposal.origin.as_deref() == Some("person")
                            && v.proposal.reason == reason
                    })
                });
                Ok(ProposeResult {
                    outcome: Outcome::from(&r),
                    verdict: mine.as_ref().map(|v| v.verdict),
                    reason: mine.map(|v| v.reason),
                })
            })
        })
        .await
}

/// The perception and contrast reports in words (their fields are closed vocabularies).
fn summary_of(reports: &Value) -> (String, Option<String>) {
    let p = &reports["perception"];
    let c = &reports["contrast"];
    let s = |v: &Value| v.as_str().unwrap_or("?").replace('_', " ");
    let mismatch = if p["elevation_mismatch"] == true { " (not where you are)" } else { "" };
    let mut summary = format!(
        "The conversation is {} at {}{mismatch}; mood {}, trust {}. Suggested stance: {}.",
        s(&p["trajectory"]),
        s(&p["elevation_level"]),
        s(&p["sentiment"]["state"]),
        s(&p["sentiment"]["trust"]),
        s(&p["recommended_stance"]),
    );
    let gap = s(&c["gap_type"]);
    if gap == "none" {
        summary.push_str(" No gap between what you need and what SMART does.");
        (summary, None)
    } else {
        summary.push_str(&format!(
            " You seem to need {}; SMART is {}: a {gap} gap ({} severity).",
            s(&c["inferred_user_need"]),
            s(&c["observed_assistant_mode"]),
            s(&c["severity"]),
        ));
        (summary, c["recommended_correction"].as_str().map(str::to_string))
    }
}

/// One perception read of the recent conversation (a model call of ~30 s). Like `say`, it runs
/// as an async command, so the window stays live while it works.
#[tauri::command]
pub async fn perceive(session: State<'_, Session>) -> Result<PerceiveResult, String> {
    let mut a = match session.open().await {
        Ok(a) => a,
        Err(e) => return Ok(PerceiveResult::failed(e)),
    };
    Ok(match a.perceive().await {
        Ok(r) => {
            let reports = serde_json::to_value(&r.reports).unwrap_or(Value::Null);
            let (summary, correction) = summary_of(&reports);
            PerceiveResult {
                summary: Some(summary),
                correction,
                findings: r.findings.clone(),
                took_ms: Some(r.generation_ms + r.prompt_ms),
                error: None,
            }
        }
        Err(e) => PerceiveResult::failed(e.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_report_without_a_gap_reads_as_plain_sentences() {
        let r = json!({
            "perception": {"elevation_level": "L2", "elevation_mismatch": false, "trajectory": "converging",
                "topic_saturation": [], "sentiment": {"state": "neutral", "trust": "steady"},
                "ladder_estimate": "unknown", "north_star_connection": "unclear", "recommended_stance": "support"},
            "contrast": {"inferred_user_need": "", "observed_assistant_mode": "", "gap_type": "none",
                "severity": "low", "confidence": "low", "recommended_correction": ""}
        });
        let (s, c) = summary_of(&r);
        assert_eq!(
            s,
            "The conversation is converging at L2; mood neutral, trust steady. Suggested stance: support. \
             No gap between what you need and what SMART does."
        );
        assert_eq!(c, None);
    }

    #[test]
    fn a_gap_names_the_need_the_mode_and_the_correction() {
        let r = json!({
            "perception": {"elevation_level": "L3", "elevation_mismatch": true, "trajectory": "drifting",
                "sentiment": {"state": "frustrated", "trust": "eroding"}, "recommended_stance": "ground"},
            "contrast": {"inferred_user_need": "a short answer", "observed_assistant_mode": "explaining at length",
                "gap_type": "verbosity", "severity": "high", "recommended_correction": "answer in one line"}
        });
        let (s, c) = summary_of(&r);
        assert!(
            s.contains("drifting at L3 (not where you are)") && s.contains("a verbosity gap (high severity)"),
            "{s}"
        );
        assert_eq!(c.as_deref(), Some("answer in one line"));
    }

    #[test]
    fn gates_and_severities_are_read_strictly() {
        assert_eq!("evaluation".parse(), Ok(SuggestedGate::Evaluation));
        assert!("Evaluation".parse::<SuggestedGate>().is_err_and(|e| e.contains("framing, commitment or evaluation")));
        assert_eq!("emergency".parse(), Ok(Severity::Emergency));
        assert!("urgent".parse::<Severity>().is_err());
    }
}
