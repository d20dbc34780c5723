//! What the app's commands report back of a turn or a call: the kernel's outcome of one call
//! (`Outcome`), one proposal of a turn (`StepView`), and a whole typed or spoken turn
//! (`SayResult`). Several command modules return them (the HUD's, the slow-loop panel's), so they
//! live here, beside none of them: a command module depends on this one and on the session, never
//! on another command module.

use serde::Serialize;
use serde_json::Value;
use smart_runtime::{CallOutcome, CallReport, SayReport, TurnEnd};

/// What the kernel made of one call or decision.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Outcome {
    pub outcome: CallOutcome,
    /// The stable refusal code (`time_gate`, `layer_not_reached`, …).
    pub code: Option<String>,
    pub reason: Option<String>,
    pub pending_id: Option<String>,
    pub seq: Option<u64>,
    pub tier: Option<u8>,
    pub admissible_in_ms: Option<u64>,
    /// Tier 2: the person is told.
    pub notify: bool,
}

impl From<&CallReport> for Outcome {
    fn from(r: &CallReport) -> Outcome {
        Outcome {
            outcome: r.outcome,
            code: r.code.clone(),
            reason: r.reason.clone(),
            pending_id: r.pending_id.clone(),
            seq: r.seq,
            tier: r.tier,
            admissible_in_ms: r.admissible_in_ms,
            notify: r.notify,
        }
    }
}

/// One proposal of a turn.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct StepView {
    /// template | model
    pub source: String,
    pub tool: String,
    #[cfg_attr(test, ts(type = "unknown"))]
    pub args: Value,
    /// `None` when only proposed.
    pub outcome: Option<Outcome>,
}

/// A typed or spoken utterance's whole turn.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SayResult {
    pub corr: String,
    pub utterance: String,
    pub steps: Vec<StepView>,
    /// The assistant's words when it made no call.
    pub reply: Option<String>,
    pub ended: TurnEnd,
    pub model: Option<String>,
}

impl From<&SayReport> for SayResult {
    fn from(r: &SayReport) -> SayResult {
        SayResult {
            corr: r.corr.to_string(),
            utterance: r.utterance.clone(),
            steps: r
                .steps
                .iter()
                .map(|s| StepView {
                    source: serde_json::to_value(s.source)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default(),
                    tool: s.proposal.tool.clone(),
                    args: s.proposal.args.clone(),
                    outcome: s.report.as_ref().map(Outcome::from),
                })
                .collect(),
            reply: r.reply.clone(),
            ended: r.ended,
            model: r.model.clone(),
        }
    }
}
