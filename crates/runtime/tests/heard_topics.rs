//! A heard search's topic is put right against the words the library index holds
//! (`smart_voice::heard_topics`), and only a heard one: what was typed is what was meant. A
//! search the phrase templates answer is narrowed to a folder said as the place to look.
//!
//! Real engine, real ledger, a real index built from real files; the readings are ones the
//! phrase templates answer, so no model is needed (the model factory fails if asked).

#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::{engine, transcript, without_model};
use smart_runtime::{Assistant, SayReport};
use std::path::PathBuf;

struct Setup {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    a: Assistant,
}

fn setup(index: bool) -> Setup {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    std::fs::create_dir_all(root.join("crafts")).unwrap();
    std::fs::write(root.join("crafts/tiles.md"), "The mosaic in the hall needs grout.").unwrap();
    std::fs::write(root.join("trip.txt"), "Photos of the glacier walk.").unwrap();
    let root = dunce::canonicalize(root).unwrap();
    let engine = engine(&tmp.path().join("data"), &root, None);
    if index {
        engine.index_update(None, &mut |_, _| {}).unwrap();
    }
    Setup { _tmp: tmp, root, a: without_model(engine) }
}

fn query(r: &SayReport) -> &str {
    let step = r.steps.first().unwrap_or_else(|| panic!("no call: {r:?}"));
    assert_eq!(step.proposal.tool, "rag.search");
    step.proposal.args["query"].as_str().unwrap()
}

fn hear(s: &mut Setup, text: &str) -> SayReport {
    common::hear(&mut s.a, &s.root, &transcript(text, 0), None)
}

fn say(s: &mut Setup, text: &str) -> SayReport {
    common::say(&mut s.a, &s.root, text).unwrap()
}

#[test]
fn a_misheard_topic_that_no_document_holds_becomes_the_word_one_does() {
    let mut s = setup(true);
    // Heard so by whisper tiny.en (the spoken eval): "search my files for mosaic".
    assert_eq!(query(&hear(&mut s, "Search for mistake.")), "mosaic");
    // A topic the index holds is searched as heard.
    assert_eq!(query(&hear(&mut s, "Search for grout.")), "grout");
}

#[test]
fn typed_topics_and_topics_without_an_index_stay_as_they_are() {
    let mut s = setup(true);
    assert_eq!(query(&say(&mut s, "search for mistake")), "mistake");
    let mut s = setup(false);
    assert_eq!(query(&hear(&mut s, "Search for mistake.")), "mistake");
}

#[test]
fn a_folder_said_after_a_search_for_narrows_it_instead_of_joining_the_topic() {
    // What broke (a fifty-second author, dictating): "search for mosaic comma only in crafts"
    // searched everything for "mosaic only in crafts".
    let mut s = setup(true);
    let r = say(&mut s, "search for mosaic comma only in crafts");
    let step = r.steps.first().unwrap_or_else(|| panic!("no call: {r:?}"));
    assert_eq!(step.proposal.args["query"], "mosaic");
    assert_eq!(step.proposal.args["path_prefix"], smart_kernel::slash_path(&s.root.join("crafts")));
    // No folder said: the template's topic, as it was.
    assert_eq!(query(&say(&mut s, "search for mosaic tiles")), "mosaic tiles");
}
