//! A heard search's topic is put right against the words the library index holds
//! (`smart_voice::heard_topics`), and only a heard one: what was typed is what was meant.
//!
//! Real engine, real ledger, a real index built from real files; the readings are ones the
//! phrase templates answer, so no model is needed (the model factory fails if asked).

#![allow(clippy::unwrap_used, clippy::panic)]

use smart_runtime::assistant::{AssistantError, Heard};
use smart_runtime::{Assistant, Bus, Engine, FixedClock, InitOptions, SayOptions, SayReport};
use smart_signals::KeyStoreKind;
use smart_voice::protocol::Transcript;
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
    let opts = InitOptions { roots: vec![root.clone()], policy: None, key_store: Some(KeyStoreKind::File) };
    let (engine, _) = Engine::init(&tmp.path().join("data"), opts, Box::new(FixedClock(1_800_000_000_000))).unwrap();
    if index {
        engine.index_update(None, &mut |_, _| {}).unwrap();
    }
    let no_model = Box::new(|| Err(AssistantError::NothingToPerceive));
    Setup { _tmp: tmp, root, a: Assistant::new(engine, Bus::default(), no_model) }
}

fn opts(s: &Setup) -> SayOptions {
    SayOptions { propose_only: true, no_templates: false, base: Some(s.root.clone()) }
}

fn query(r: &SayReport) -> &str {
    let step = r.steps.first().unwrap_or_else(|| panic!("no call: {r:?}"));
    assert_eq!(step.proposal.tool, "rag.search");
    step.proposal.args["query"].as_str().unwrap()
}

fn hear(s: &mut Setup, text: &str) -> SayReport {
    let t = Transcript {
        text: text.into(),
        confidence: 0.5,
        no_speech: 0.0,
        language: "en".into(),
        start_ms: 0,
        end_ms: 2_000,
        timings: Default::default(),
    };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let o = opts(s);
    match rt.block_on(s.a.hear_with(&smart_runtime::TurnId::new(), &t, &o, None)).unwrap() {
        Heard::Turn(r) => r,
        other => panic!("not a turn: {other:?}"),
    }
}

fn say(s: &mut Setup, text: &str) -> SayReport {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let o = opts(s);
    rt.block_on(s.a.say(text, &o)).unwrap()
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
