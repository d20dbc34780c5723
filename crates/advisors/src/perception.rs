//! Perception and Contrast (seed 001, "Perception & Contrast (Sensing Layer)"): a sensor, not an
//! agent.
//!
//! One fresh-context call of the model worker reads the recent conversation and fills two
//! reports — where the conversation is (elevation, trajectory, sentiment, ...) and the gap
//! between what the person seems to need and what the assistant is doing. This module is the
//! other half: it reads the worker's JSON strictly (every field, every enum value; anything
//! else is an error, not a guess) and turns the reports into gate proposals and signal
//! suggestions. It cannot decide, write slow memory, alter the commitment, trigger a gate or
//! act on the fast loop; the gate controller may accept, refer or ignore what it proposes.

use crate::evaluator::Finding;
use serde::{Deserialize, Serialize};
use smart_kernel::memory::SignalKind;
use smart_kernel::{GateProposal, GateSource, Millis, ProposedAction, Severity, SuggestedGate};

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Elevation {
    L1,
    L2,
    L3,
    L4,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Trajectory {
    Converging,
    Drifting,
    Stuck,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mood {
    Positive,
    Neutral,
    Frustrated,
    Distressed,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Trust {
    Building,
    Steady,
    Eroding,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sentiment {
    pub state: Mood,
    pub trust: Trust,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LadderEstimate {
    Top,
    Middle,
    Bottom,
    Unknown,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NorthStarConnection {
    Aligned,
    Unclear,
    Misaligned,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecommendedStance {
    Support,
    Challenge,
    Redirect,
    Elevate,
    Ground,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerceptionReport {
    pub elevation_level: Elevation,
    pub elevation_mismatch: bool,
    pub trajectory: Trajectory,
    pub topic_saturation: Vec<String>,
    pub sentiment: Sentiment,
    pub ladder_estimate: LadderEstimate,
    pub north_star_connection: NorthStarConnection,
    pub recommended_stance: RecommendedStance,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GapType {
    None,
    Altitude,
    Pacing,
    Stance,
    Verbosity,
    Tangentiality,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    Low,
    Medium,
    High,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContrastReport {
    pub inferred_user_need: String,
    pub observed_assistant_mode: String,
    pub gap_type: GapType,
    pub severity: Level,
    pub confidence: Level,
    pub recommended_correction: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reports {
    pub perception: PerceptionReport,
    pub contrast: ContrastReport,
}

/// Reads the worker's JSON: every field present, every value legal, free text bounded.
pub fn parse(value: &serde_json::Value) -> Result<Reports, String> {
    let r: Reports = serde_json::from_value(value.clone()).map_err(|e| format!("not a perception report: {e}"))?;
    if r.perception.topic_saturation.len() > 3 || r.perception.topic_saturation.iter().any(|t| t.chars().count() > 60) {
        return Err("topic_saturation lists at most 3 topics of at most 60 characters".into());
    }
    for (name, text, max) in [
        ("inferred_user_need", &r.contrast.inferred_user_need, 120),
        ("observed_assistant_mode", &r.contrast.observed_assistant_mode, 120),
        ("recommended_correction", &r.contrast.recommended_correction, 160),
    ] {
        if text.chars().count() > max {
            return Err(format!("{name} is longer than {max} characters"));
        }
    }
    Ok(r)
}

fn proposal(gate: SuggestedGate, severity: Severity, reason: String, now: Millis) -> GateProposal {
    GateProposal::new(GateSource::Perception, gate, severity, reason, now).with_origin("perception")
}

/// What the reports suggest, as findings for the runtime to hand to the kernel.
pub fn findings(r: &Reports, now: Millis) -> Vec<Finding> {
    let p = &r.perception;
    let c = &r.contrast;
    let mut out = Vec::new();
    let push = |out: &mut Vec<Finding>, rule, proposal, signal| out.push(Finding { rule, proposal, signal });
    // Seed 001's re-entry condition: ladder at the bottom and trust eroding.
    if p.ladder_estimate == LadderEstimate::Bottom && p.sentiment.trust == Trust::Eroding {
        let reason =
            "perception: the person seems to be at the bottom of the ladder and trust is eroding; pause and listen"
                .to_string();
        push(
            &mut out,
            "bootstrap_reentry",
            Some(
                proposal(SuggestedGate::Framing, Severity::High, reason, now)
                    .with_action(ProposedAction::BootstrapReentry),
            ),
            None,
        );
    }
    match p.trajectory {
        Trajectory::Stuck => push(
            &mut out,
            "stuck",
            Some(proposal(
                SuggestedGate::Evaluation,
                Severity::High,
                "perception: the conversation is stuck".into(),
                now,
            )),
            None,
        ),
        Trajectory::Drifting => push(
            &mut out,
            "drifting",
            Some(proposal(
                SuggestedGate::Evaluation,
                Severity::Medium,
                "perception: the conversation is drifting".into(),
                now,
            )),
            None,
        ),
        Trajectory::Converging => {}
    }
    if p.elevation_mismatch {
        let reason =
            format!("perception: the conversation is at the wrong level ({:?}) for its topic", p.elevation_level);
        push(&mut out, "elevation_mismatch", Some(proposal(SuggestedGate::Framing, Severity::Low, reason, now)), None);
    }
    if c.gap_type != GapType::None && c.severity == Level::High && c.confidence >= Level::Medium {
        let mut reason =
            format!("contrast: a {:?} gap — the person seems to need {}", c.gap_type, c.inferred_user_need);
        if !c.recommended_correction.is_empty() {
            reason.push_str(&format!("; suggested: {}", c.recommended_correction));
        }
        let reason: String = reason.chars().take(480).collect();
        push(&mut out, "contrast_gap", Some(proposal(SuggestedGate::Framing, Severity::Medium, reason, now)), None);
    }
    if matches!(p.sentiment.state, Mood::Frustrated | Mood::Distressed) {
        push(
            &mut out,
            "sentiment",
            None,
            Some((SignalKind::Friction, format!("{:?} (perception)", p.sentiment.state).to_lowercase())),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use serde_json::json;

    fn report() -> serde_json::Value {
        json!({
            "perception": {
                "elevation_level": "L2", "elevation_mismatch": false, "trajectory": "converging",
                "topic_saturation": [], "sentiment": {"state": "neutral", "trust": "steady"},
                "ladder_estimate": "unknown", "north_star_connection": "unclear", "recommended_stance": "support"
            },
            "contrast": {
                "inferred_user_need": "find a file", "observed_assistant_mode": "listing folders",
                "gap_type": "none", "severity": "low", "confidence": "medium", "recommended_correction": ""
            }
        })
    }

    #[test]
    fn a_calm_report_proposes_nothing() {
        let r = parse(&report()).unwrap();
        assert!(findings(&r, Millis(1)).is_empty());
    }

    #[test]
    fn malformed_reports_are_errors_not_guesses() {
        let mut bad = report();
        bad["perception"]["trajectory"] = json!("sideways");
        assert!(parse(&bad).is_err());
        let mut extra = report();
        extra["perception"]["decide"] = json!("release the lease");
        assert!(parse(&extra).is_err(), "unknown fields are refused");
        let mut missing = report();
        missing["contrast"].as_object_mut().unwrap().remove("severity");
        assert!(parse(&missing).is_err());
        let mut long = report();
        long["contrast"]["inferred_user_need"] = json!("x".repeat(121));
        assert!(parse(&long).is_err());
    }

    #[test]
    fn each_signal_maps_to_its_proposal() {
        let mut v = report();
        v["perception"]["trajectory"] = json!("stuck");
        v["perception"]["ladder_estimate"] = json!("bottom");
        v["perception"]["sentiment"] = json!({"state": "distressed", "trust": "eroding"});
        v["perception"]["elevation_mismatch"] = json!(true);
        v["contrast"]["gap_type"] = json!("pacing");
        v["contrast"]["severity"] = json!("high");
        v["contrast"]["recommended_correction"] = json!("slow down");
        let f = findings(&parse(&v).unwrap(), Millis(9));
        let rules: Vec<&str> = f.iter().map(|f| f.rule).collect();
        assert_eq!(rules, ["bootstrap_reentry", "stuck", "elevation_mismatch", "contrast_gap", "sentiment"]);
        assert_eq!(f[0].proposal.as_ref().unwrap().action, Some(ProposedAction::BootstrapReentry));
        for p in f.iter().filter_map(|f| f.proposal.as_ref()) {
            assert_eq!(p.source, GateSource::Perception);
            assert!(p.check().is_ok());
        }
    }
}
