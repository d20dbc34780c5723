//! A go-ahead ("bet", "alright go") right after a plan was drafted carries out that plan, read
//! from the real ledger: what the newest committed call prepared. Said after anything else it is
//! left to the model (whose factory here fails, so asking it is an error the test sees).
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use serde_json::json;
use smart_kernel::{CallSource, GateAct, Horizon, Policy};
use smart_runtime::assistant::AssistantError;
use smart_runtime::{Assistant, CallOutcome, SayReport};
use std::path::PathBuf;

struct Setup {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    a: Assistant,
}

fn setup() -> Setup {
    let tmp = tempfile::tempdir().unwrap();
    let root = dunce::canonicalize(tmp.path()).unwrap().join("root");
    std::fs::create_dir_all(root.join("docs")).unwrap();
    std::fs::write(root.join("a.txt"), "a").unwrap();
    let mut policy = Policy::default();
    policy.gates.after_l1_ms = 0;
    policy.gates.after_l2_ms = 0;
    let mut e = common::engine(&tmp.path().join("data"), &root, Some(policy));
    let draft = smart_kernel::lease::LeaseDraft {
        frame: "tidy up".into(),
        horizon: Horizon::Short,
        duration_ms: 3_600_000,
        success_criteria: vec![],
        non_goals: vec![],
        renewal_prompt: String::new(),
    };
    e.draft_lease(draft).unwrap();
    e.gates(&[GateAct::Commitment]).unwrap();
    // Drafting a plan is L2: an L1 call first.
    let r = e.call("cluster.duplicates", json!({ "path": root }), CallSource::Model).unwrap();
    assert_eq!(r.outcome, CallOutcome::Committed, "{r:?}");
    Setup { _tmp: tmp, root, a: common::without_model(e) }
}

fn say(s: &mut Setup, text: &str) -> Result<SayReport, AssistantError> {
    common::say(&mut s.a, &s.root, text)
}

fn commit(s: &mut Setup, tool: &str, args: serde_json::Value) -> Option<String> {
    let r = s.a.engine().call(tool, args, CallSource::Model).unwrap();
    assert_eq!(r.outcome, CallOutcome::Committed, "{r:?}");
    r.artifact
}

#[test]
fn a_go_ahead_right_after_a_plan_carries_it_out() {
    let mut s = setup();
    let (from, to) = (s.root.join("a.txt"), s.root.join("docs/a.txt"));
    let plan = commit(&mut s, "propose.move", json!({"moves": [{"from": from, "to": to}]})).unwrap();
    for said in ["bet", "aight go", "looks good, send it"] {
        let r = say(&mut s, said).unwrap();
        let step = r.steps.first().unwrap_or_else(|| panic!("{said:?}: no call: {r:?}"));
        assert_eq!((step.proposal.tool.as_str(), &step.proposal.args), ("apply.move", &json!({"proposal": plan})));
    }
}

#[test]
fn a_go_ahead_after_something_else_is_left_to_the_model() {
    let mut s = setup();
    let (from, to) = (s.root.join("a.txt"), s.root.join("docs/a.txt"));
    commit(&mut s, "propose.move", json!({"moves": [{"from": from, "to": to}]})).unwrap();
    // A listing since: "bet" is no longer about the plan.
    let docs = s.root.join("docs");
    commit(&mut s, "fs.scan", json!({ "path": docs }));
    assert!(say(&mut s, "bet").is_err(), "the model was not asked");
}
