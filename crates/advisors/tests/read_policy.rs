//! The read policy over a real kernel state built through kernel decisions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use smart_advisors::read_policy::{ORDER, Source, infer};
use smart_kernel::lease::LeaseDraft;
use smart_kernel::memory::*;
use smart_kernel::orbit::ScopeRequest;
use smart_kernel::*;

fn kernel() -> Kernel {
    Kernel::new(Policy { roots: vec!["/r".into()], ..Policy::default() }, Registry::new(vec![]).unwrap())
}

fn apply(state: &mut KernelState, d: smart_kernel::kernel::Decision, at: Millis) {
    assert!(!matches!(d.outcome, Outcome::Refused(_)), "{:?}", d.outcome);
    for e in d.events {
        state.apply(&e, at).unwrap();
    }
}

fn question_marks(s: &str) -> usize {
    s.matches('?').count()
}

#[test]
fn with_nothing_known_it_says_so_and_asks_one_question() {
    let k = kernel();
    let mut s = KernelState::default();
    apply(
        &mut s,
        smart_kernel::kernel::Decision { events: vec![k.genesis("00").unwrap()], outcome: Outcome::Done },
        Millis(1),
    );
    let i = infer(&s, "what about the budget? and the plan?");
    assert_eq!(i.consulted.iter().map(|c| c.source).collect::<Vec<_>>(), ORDER);
    assert!(i.consulted.iter().all(|c| c.found.is_none()));
    assert_eq!(question_marks(&i.reply()), 1, "{}", i.reply());
}

#[test]
fn it_consults_lease_decisions_artifacts_progress_signals_in_order_and_asks_once() {
    let k = kernel();
    let t = Millis(1_000);
    let mut s = KernelState::default();
    apply(&mut s, smart_kernel::kernel::Decision { events: vec![k.genesis("00").unwrap()], outcome: Outcome::Done }, t);
    let d = k.issue_scope(&s, &ScopeRequest::default(), t).unwrap();
    apply(&mut s, d, t);
    let art = |name: &str| ArtifactDraft {
        name: name.into(),
        kind: ArtifactKind::Doc,
        pointer: format!("/r/{name}"),
        dependencies: vec![],
    };
    let d = k.register_artifact(&s, art("budget?.xlsx"), None, t).unwrap();
    apply(&mut s, d, t);
    let d = k.register_artifact(&s, art("holiday notes"), None, t).unwrap();
    apply(&mut s, d, t);
    let dec = |text: &str| DecisionDraft {
        decision: text.into(),
        rationale: vec!["r".into()],
        tradeoffs: String::new(),
        confidence: Confidence::High,
        revisit_triggers: vec![],
        supersedes: None,
    };
    let frame = SlowWrite::FrameDecision { decision: dec("Keep the budget in one spreadsheet?") };
    let d = k.pass_gate(&s, GateAct::Framing, vec![frame], t).unwrap();
    apply(&mut s, d, t);
    let draft = LeaseDraft {
        frame: "sort out the household budget".into(),
        horizon: Horizon::Short,
        duration_ms: 3_600_000,
        success_criteria: vec![],
        non_goals: vec![],
        renewal_prompt: String::new(),
    };
    let d = k.draft_lease(&s, draft, t).unwrap();
    apply(&mut s, d, t);
    let init = ProgressInit {
        current_stage: "collecting receipts".into(),
        next_actions: vec!["scan the receipts folder".into()],
        staleness_ms: 3_600_000,
    };
    let d = k.pass_gate(&s, GateAct::Commitment, vec![SlowWrite::ProgressInit { progress: init }], t).unwrap();
    apply(&mut s, d, t);

    let i = infer(&s, "where is the budget file");
    let found: Vec<(Source, Option<&str>)> = i.consulted.iter().map(|c| (c.source, c.found.as_deref())).collect();
    assert_eq!(
        found,
        [
            (Source::Lease, Some("sort out the household budget")),
            (Source::Decisions, Some("Keep the budget in one spreadsheet")),
            (Source::Artifacts, Some("budget .xlsx")),
            (Source::Progress, Some("collecting receipts")),
            (Source::Signals, None),
        ]
    );
    assert!(i.provisional.starts_with("As I understand it, we're working on sort out the household budget"));
    assert_eq!(i.question, "Shall I go on with scan the receipts folder?");
    assert_eq!(question_marks(&i.reply()), 1, "{}", i.reply());

    // A preference for brevity shortens the understanding; the question stays one.
    let d = k.note_signal(&s, SignalKind::Preference, "brevity", t).unwrap();
    apply(&mut s, d, t);
    let brief = infer(&s, "where is the budget file");
    assert_eq!(brief.consulted[4].found.as_deref(), Some("brevity"));
    assert!(brief.provisional.len() < i.provisional.len());
    assert_eq!(question_marks(&brief.reply()), 1);
}
