//! `smart say`: the text path through the real proposers, the real kernel and a real folder.
//!
//! The model tests use the default proposer model from the models folder (`SMART_MODELS_DIR`;
//! `scripts/test.sh` fetches it) and the worker binary built beside `smart`. They fail — they do
//! not skip — when either is missing, with a message saying how to get it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Smart, output, snapshot};
use serde_json::Value;

fn say(s: &Smart, args: &[&str]) -> (i32, Value) {
    let mut c = s.cmd();
    c.env("SMART_PROPOSER_WORKER", common::worker_bin()).arg("--json").arg("say").args(args);
    let out = output(&mut c);
    let text = String::from_utf8_lossy(&out.stdout);
    let v = serde_json::from_str(text.trim())
        .unwrap_or_else(|e| panic!("not JSON ({e}): {text:?}; stderr {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap_or(-1), v)
}

/// The default model must be present and verified before a model test means anything.
fn require_model(s: &Smart) {
    let (code, v) = s.json(&["models", "verify", "qwen2.5-coder-0.5b"]);
    assert_eq!(
        code, 0,
        "the default proposer model is not available ({v}); fetch it with `smart models fetch --source pip` (scripts/test.sh does)"
    );
}

/// The ledger's events of one kind, as JSON.
fn events(s: &Smart, kind: &str) -> Vec<Value> {
    let (_, v) = s.json(&["ledger", "show", "--kind", kind]);
    v["events"].as_array().cloned().unwrap_or_default()
}

#[test]
fn a_model_proposal_over_a_real_folder_is_admitted_and_committed() {
    let s = Smart::init(None);
    require_model(&s);
    s.write("inbox/report.pdf", "%PDF");
    s.write("inbox/notes.txt", "notes");
    let inbox = s.root.join("inbox");
    // Relative names, as a person says them: `smart` runs in the root, so "inbox" is root/inbox.
    let (code, v) = say(&s, &["--no-templates", "list the files in the inbox folder"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["proposal"]["tool"], "fs.scan", "{v}");
    assert_eq!(v["proposal"]["args"]["path"].as_str().map(|p| p.trim_end_matches('/')), Some(inbox.to_str().unwrap()));
    assert_eq!(v["outcome"], "committed", "{v}");
    assert_eq!(v["steps"][0]["source"], "model");
    assert!(v["model"].as_str().unwrap().to_lowercase().contains("qwen"), "{v}");
    // The ledger says a model proposed it, and the chain still verifies.
    let proposed = events(&s, "proposed");
    assert_eq!(proposed.last().unwrap()["payload"]["call"]["source"], "model");
    let (c, _) = s.json(&["ledger", "verify"]);
    assert_eq!(c, 0);
}

#[test]
fn asking_the_model_to_delete_produces_a_pending_tier_3_call_never_an_execution() {
    let mut s = Smart::init(None);
    require_model(&s);
    s.climb_to_l3();
    let victim = s.write("old.log", "keep me until approved");
    let before = snapshot(&s.root);
    let (code, v) = say(&s, &["--no-templates", "delete the file old.log"]);
    assert_eq!(v["proposal"]["args"]["paths"][0], victim.to_str().unwrap(), "{v}");
    assert_eq!(v["proposal"]["tool"], "fs.quarantine", "{v}");
    assert_eq!(code, 4, "{v}");
    assert_eq!(v["outcome"], "pending");
    assert_eq!(v["tier"], 3);
    assert!(v["pending_id"].is_string());
    assert_eq!(snapshot(&s.root), before, "a pending call changed files");
    assert!(events(&s, "committed").iter().all(|e| e["payload"]["tool"] != "fs.quarantine"));
    let (_, p) = s.json(&["pending"]);
    assert_eq!(p["pending"].as_array().unwrap().len(), 1);
}

#[test]
fn the_phrase_templates_answer_common_commands_without_a_model() {
    let s = Smart::init(None);
    s.write("inbox/a.txt", "a");
    // No worker at all: a template answer must not need one.
    let mut c = s.cmd();
    c.env("SMART_PROPOSER_WORKER", "/nonexistent/worker").args(["--json", "say", "scan inbox"]);
    let out = output(&mut c);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{v}");
    assert_eq!(v["steps"][0]["source"], "template");
    // `/`-separated on every system (`C:/Users/…` on Windows: understanding's one spelling).
    assert_eq!(std::path::Path::new(v["proposal"]["args"]["path"].as_str().unwrap()), s.root.join("inbox"), "{v}");
    assert_eq!(v["outcome"], "committed");
}

#[test]
fn propose_only_shows_the_proposal_and_records_nothing() {
    let s = Smart::init(None);
    s.write("inbox/a.txt", "a");
    let before = s.events();
    let (code, v) = say(&s, &["--propose-only", "find duplicates in inbox"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["proposal"]["tool"], "cluster.duplicates");
    assert_eq!(v["outcome"], "proposed");
    assert_eq!(s.events(), before, "propose-only wrote to the ledger");
}

#[test]
fn the_human_output_prints_each_step() {
    let s = Smart::init(None);
    s.write("inbox/a.txt", "a");
    let out = output(s.cmd().env("SMART_PROPOSER_WORKER", "/nonexistent/worker").args(["say", "scan inbox"]));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("heard: \"scan inbox\""), "{text}");
    assert!(text.contains("proposal (phrase template): fs.scan"), "{text}");
    assert!(text.contains("committed: fs.scan"), "{text}");
}

/// A model worker sure that the answer is a call, that leans a little to the first tool it is
/// shown (0.19 of the calls) and finds the other nineteen alike (0.04 each), whatever is said.
fn leaning_worker(s: &Smart) -> std::path::PathBuf {
    common::stand_in(s, serde_json::json!({"each": {"rank": [{"ranked_leaning": [-0.01, -1.5]}]}}))
}

#[test]
fn a_cue_word_tilts_a_ranking_that_leans_elsewhere() {
    // The model leans to its first tool (0.19 against 0.04 for each other one, a call near
    // certain): the sentence's own word, eight to one, is what makes another tool the answer.
    let s = Smart::init(None);
    s.write("inbox/a.txt", "a");
    let w = leaning_worker(&s);
    let propose = |text: &str| {
        let out = output(s.cmd().env("SMART_PROPOSER_WORKER", &w).args([
            "--json",
            "say",
            "--propose-only",
            "--no-templates",
            text,
        ]));
        assert!(out.status.success(), "{text}: {}", String::from_utf8_lossy(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}); stderr {}", String::from_utf8_lossy(&out.stderr)));
        v
    };
    // (Not "the gate code is 4471": a sentence that only tells reaches no model.)
    let leaning = propose("gate code 4471")["ranking"]["best"][0][0].clone();
    assert!(leaning.is_string() && leaning != "db.upsert" && leaning != "fs.quarantine", "{leaning}");
    let v = propose("remember that the gate code is 4471");
    assert_eq!(v["proposal"]["tool"], "db.upsert", "{v}");
    // The report shows which tool was cued, and what the model itself ranked first.
    assert_eq!(v["ranking"]["cued"], serde_json::json!(["db.upsert"]), "{v}");
    assert_eq!(v["ranking"]["model_best"][0][0], leaning, "{v}");
    let v = propose("delete inbox/a.txt");
    assert_eq!(v["proposal"]["tool"], "fs.quarantine", "{v}");
    // Said as what not to do, the word is no cue: the model's own lean stands. (The ranking
    // shown still differs from the model's: the purge and the quarantine list, which these
    // sentences do not ask for in their own words, are left out.)
    for text in ["do not ever delete inbox/a.txt", "never ever delete inbox/a.txt"] {
        let v = propose(text);
        assert_eq!(v["ranking"]["best"][0][0], leaning, "{text}: {v}");
        assert!(v["ranking"].get("cued").is_none(), "{text}: {v}");
        let best = v["ranking"]["best"].as_array().cloned().unwrap_or_default();
        assert!(best.iter().all(|t| t[0] != "quarantine.purge"), "{text}: {v}");
        assert_ne!(v["proposal"]["tool"], "fs.quarantine", "{text}: {v}");
    }
    // A prohibition about one named thing, and nothing else, asks for nothing: it reaches no
    // model at all.
    let v = propose("don't delete inbox/a.txt");
    assert_eq!(v["outcome"], "no_call", "{v}");
    assert!(v["proposal"].is_null() && v["ranking"].is_null(), "{v}");
}

#[test]
fn a_sentence_that_tells_instead_of_asks_proposes_nothing() {
    // What broke: the model read each as a command, at a call near 1.0 — applying the last
    // patch, a status report. A statement needs no model: no worker is there, nothing proposed.
    let s = Smart::init(None);
    s.write("inbox/a.txt", "a");
    for text in [
        "my jeans need a patch on the knee",
        "we have to move house next month and I'm already dreading it",
        // A report of what was done tells, even naming a folder (a fifteenth author).
        "finally cleaned up inbox last night and honestly it feels great",
    ] {
        let out = output(s.cmd().env("SMART_PROPOSER_WORKER", "/nonexistent/worker").args(["--json", "say", text]));
        let v: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}); stderr {}", String::from_utf8_lossy(&out.stderr)));
        assert_eq!(out.status.code(), Some(0), "{text}: {v}");
        assert!(v["proposal"].is_null(), "{text}: {v}");
    }
    // Asked, the same words reach the model (no worker: an error, not a silent nothing).
    let out = output(s.cmd().env("SMART_PROPOSER_WORKER", "/nonexistent/worker").args([
        "--json",
        "say",
        "can you move house",
    ]));
    assert_ne!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn what_no_tool_does_and_questions_about_anything_else_propose_nothing() {
    // What broke (a seventeenth author): the status report for a general question, a search of
    // the library for "search online …", the status report for a text to someone.
    let s = Smart::init(None);
    s.write("inbox/a.txt", "a");
    require_model(&s);
    for (text, reply) in [
        ("how long should I keep old bank statements for?", None),
        ("text jake that im running late", Some("messages")),
        ("search online for a cheap school backpack and order the blue one", Some("the web")),
        ("pay the water bill from the joint account today", Some("payments")),
    ] {
        let (code, v) = say(&s, &["--propose-only", text]);
        assert_eq!(code, 0, "{text}: {v}");
        assert!(v["proposal"].is_null(), "{text}: {v}");
        if let Some(what) = reply {
            assert!(v.to_string().contains(&format!("can't help with {what}")), "{text}: {v}");
        }
    }
    // Asked about its own situation, the report stands.
    let (code, v) = say(&s, &["--propose-only", "which folders are you allowed to touch right now"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["proposal"]["tool"], "orbit.get_context", "{v}");
}

#[test]
fn a_request_taken_back_in_the_same_breath_proposes_nothing() {
    // What broke: "move … into … no wait, forget it" matched the move template, and "quarantine
    // … actually no, cancel, don't do anything" was ranked a quarantine (an L4 act) by the model.
    // Neither needs a model now: no worker is there, and nothing may be proposed or recorded.
    let s = Smart::init(None);
    s.write("inbox/a.txt", "a");
    s.write("archive/keep.txt", "k");
    let before = s.events();
    for text in [
        "move inbox/a.txt into archive... no wait, forget it, I leave it where it is",
        "please quarantine inbox/a.txt... actually no, cancel, don't do anything",
        // Typed as a text message (a fifteenth author): "nvm" is "never mind".
        "move inbox/a.txt into archive... nvm actually dont",
    ] {
        let out = output(s.cmd().env("SMART_PROPOSER_WORKER", "/nonexistent/worker").args(["--json", "say", text]));
        let v: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}); stderr {}", String::from_utf8_lossy(&out.stderr)));
        assert_eq!(out.status.code(), Some(0), "{text}: {v}");
        assert!(v["proposal"].is_null(), "{text}: {v}");
        assert!(v.to_string().contains("won't do anything"), "{text}: {v}");
    }
    assert!(s.root.join("inbox/a.txt").exists());
    // Taking back is not a request: the ledger may hold the turns, never a proposed call.
    let (_, all) = s.json(&["ledger", "show"]);
    let proposed = all["events"].as_array().cloned().unwrap_or_default();
    assert!(proposed.iter().all(|e| !e.to_string().contains("inbox/a.txt")), "{} events before, now {all}", before);
    // A new request after the taking back is a request: it goes on to the model.
    require_model(&s);
    let (code, v) = say(&s, &["--propose-only", "never mind the move, scan inbox"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["proposal"]["tool"], "fs.scan", "{v}");
}

#[test]
fn a_folder_put_right_in_the_same_breath_is_the_one_meant() {
    // What broke: "… into archive, no wait, into notes" planned both folders' worth (or the
    // first). Read as "move inbox/a.txt into notes", the move's template answers: no model.
    let s = Smart::init(None);
    s.write("inbox/a.txt", "a");
    s.write("archive/keep.txt", "k");
    s.write("notes/keep.txt", "k");
    let text = "move inbox/a.txt into archive, no wait, into notes";
    let out = output(s.cmd().env("SMART_PROPOSER_WORKER", "/nonexistent/worker").args([
        "--json",
        "say",
        "--propose-only",
        text,
    ]));
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}); stderr {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(out.status.code(), Some(0), "{text}: {v}");
    assert_eq!(v["proposal"]["tool"], "propose.move", "{v}");
    let moves = v["proposal"]["args"]["moves"].as_array().cloned().unwrap_or_default();
    assert_eq!(moves.len(), 1, "{v}");
    let to = moves[0]["to"].as_str().unwrap_or_default();
    assert!(to.ends_with("notes/a.txt"), "{v}");
}
