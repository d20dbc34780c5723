//! One request, one id: the id `smart say --json` shows a person finds every ledger event of that
//! request with `smart ledger show --corr`, and nothing else. Before, each engine call made its
//! own id, so the id `--json` (and the bus, which feeds the HUD) showed found nothing in the
//! ledger. (The spoken turn is in `listen.rs`, beside its recordings; the engine's turns in
//! `crates/runtime/tests/timeline.rs`.)

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Smart, output};
use serde_json::Value;

/// The events appended after `seq`, oldest first.
fn events_after(s: &Smart, seq: u64) -> Vec<Value> {
    let (code, v) = s.json(&["ledger", "show", "--since", &(seq + 1).to_string()]);
    assert_eq!(code, 0, "{v}");
    v["events"].as_array().cloned().unwrap_or_default()
}

/// What `smart ledger show --corr ID` returns.
fn by_corr(s: &Smart, corr: &str) -> Vec<Value> {
    let (code, v) = s.json(&["ledger", "show", "--corr", corr]);
    assert_eq!(code, 0, "{v}");
    v["events"].as_array().cloned().unwrap_or_default()
}

fn seqs(events: &[Value]) -> Vec<u64> {
    events.iter().map(|e| e["seq"].as_u64().unwrap()).collect()
}

fn kinds(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["kind"].as_str().unwrap()).collect()
}

fn say(s: &Smart, text: &str) -> Value {
    let out = output(s.cmd().env("SMART_PROPOSER_WORKER", "/nonexistent/worker").args(["--json", "say", text]));
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}); stderr {}", String::from_utf8_lossy(&out.stderr)))
}

#[test]
fn a_typed_turn_is_found_in_the_ledger_by_the_id_it_showed() {
    let s = Smart::init(None);
    s.write("inbox/a.txt", "a");
    let before = s.events();
    let v = say(&s, "scan inbox");
    assert_eq!(v["outcome"], "committed", "{v}");
    let corr = v["corr"].as_str().unwrap();
    let turn = events_after(&s, before);
    let found = by_corr(&s, corr);
    // Every event the turn wrote, and only those: the proposal, its admission, the receipt.
    assert_eq!(seqs(&found), seqs(&turn), "by id: {found:?}\nwritten: {turn:?}");
    assert!(turn.iter().all(|e| e["corr"] == corr), "{turn:?}");
    let k = kinds(&found);
    assert!(k.contains(&"admitted") && k.contains(&"committed"), "{k:?}");
    // The HUD's live line shows the id's first eight characters; they find the same turn.
    assert_eq!(seqs(&by_corr(&s, &corr[..8])), seqs(&turn));
    // A second request is a second id.
    let again = say(&s, "scan inbox");
    assert_ne!(again["corr"], v["corr"]);
    assert_eq!(seqs(&by_corr(&s, corr)), seqs(&turn), "the first id now finds the second turn too");
}

#[test]
fn a_decision_on_a_pending_call_joins_the_turn_that_made_it_wait() {
    let mut s = Smart::init(None);
    s.climb_to_l3();
    s.write("old.log", "old");
    let v = say(&s, "quarantine old.log");
    assert_eq!(v["outcome"], "pending", "{v}");
    let corr = v["corr"].as_str().unwrap().to_string();
    let pending_id = v["pending_id"].as_str().unwrap().to_string();
    let asked = s.events();
    let (code, r) = s.json(&["approve", &pending_id]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["outcome"], "committed", "{r}");
    let decided = events_after(&s, asked);
    assert!(!decided.is_empty());
    assert!(decided.iter().all(|e| e["corr"] == corr.as_str()), "the approval is a step of the request: {decided:?}");
    let turn = by_corr(&s, &corr);
    let k = kinds(&turn);
    for kind in ["pending", "approved", "committed"] {
        assert!(k.contains(&kind), "{kind} missing from the turn: {k:?}");
    }
}

#[test]
fn a_corr_that_is_not_hex_is_refused_clearly() {
    let s = Smart::init(None);
    let out = output(s.cmd().args(["ledger", "show", "--corr", "x' OR 1=1"]));
    assert_ne!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--corr") && err.contains("hex"), "{err}");
}
