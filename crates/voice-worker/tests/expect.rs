//! Whisper told what to expect while it decodes (`LoadVoice::expect`, `smart_voice::bias`):
//! the worker takes the phrases at load and says how many written forms it expects, refuses an
//! expectation it cannot take with the reason (keeping what it had), and with the command words
//! and the tree's names expected writes spoken commands closer to what was said than open
//! transcription does — real whisper tiny.en, real espeak-ng speech.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::transcripts;
use smart_voice::bias::{Boost, surface_forms};
use smart_voice::protocol::{Event, Expect, LoadVoice, Request, VoiceErrorCode};
use std::time::Duration;

/// The names of the tree the commands are about.
const NAMES: &[&str] =
    &["Payslips", "Invoices", "Flyers", "summer", "playlist.txt", "scratch 2019.pdf", "guest_list.zip", "diary.csv"];

/// Commands as a person says them, and as they should be written.
const SAID: &[(&str, &str)] = &[
    ("rebuild the search index", "rebuild the search index"),
    ("quarantine diary dot csv", "quarantine diary.csv"),
    ("compress the Invoices folder", "compress the Invoices folder"),
    ("read flyers slash summer slash playlist dot txt", "read Flyers/summer/playlist.txt"),
    ("hash the payslips folder", "hash the Payslips folder"),
    ("find duplicates in flyers", "find duplicates in Flyers"),
];

fn expecting(names: &[&str], boost: Boost) -> LoadVoice {
    let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    LoadVoice { expect: Some(smart_runtime::model_choice::expected(&names, Some(boost))), ..common::load_request() }
}

fn heard(w: &mut common::Worker, wav: &std::path::Path) -> String {
    let events = w.transcribe_file(wav);
    transcripts(&events).iter().map(|t| t.text.clone()).collect::<Vec<_>>().join(" ")
}

#[test]
fn the_worker_says_how_many_forms_it_expects_and_refuses_one_it_cannot_take() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = common::worker_without_sound(dir.path());
    let load = expecting(NAMES, Boost::default());
    let phrases = load.expect.as_ref().unwrap().phrases.clone();
    assert_eq!(w.load(load).expected_forms, surface_forms(&phrases).len());
    assert_eq!(w.load(common::load_request()).expected_forms, 0, "no expectation: open transcription");

    let wav = common::speak(dir.path(), "hash", "hash the payslips folder", "en-us", 140, 0.5, 1.0);
    let before = heard(&mut w, &wav);
    for (bad, why) in [
        (Expect { phrases: vec!["x".repeat(500)], boost: Boost::default() }, "longer than"),
        (Expect { phrases: vec!["Payslips".into()], boost: Boost { start: 1.0, follow: 40.0 } }, "follow boost"),
    ] {
        let load = LoadVoice { expect: Some(bad), ..common::load_request() };
        match w.request(Request::Load(Box::new(load)), Duration::from_secs(120)) {
            Event::Error(e) => {
                assert_eq!(e.code, VoiceErrorCode::BadRequest);
                assert!(e.message.contains(why), "{}", e.message);
            }
            other => panic!("a load with a bad expectation was answered {other:?}"),
        }
    }
    // The refused loads changed nothing: the models loaded before still answer, as before.
    assert_eq!(heard(&mut w, &wav), before);
}

#[test]
fn expected_command_words_and_names_are_heard_closer_to_what_was_said_than_open_transcription() {
    let dir = tempfile::tempdir().unwrap();
    let wavs: Vec<_> = SAID
        .iter()
        .enumerate()
        .map(|(i, (said, _))| common::speak(dir.path(), &format!("c{i}"), said, "en-us", 140, 0.5, 1.0))
        .collect();
    let score = |load: LoadVoice| {
        let mut w = common::worker_without_sound(dir.path());
        w.load(load);
        let mut errors = 0.0;
        for (wav, (_, written)) in wavs.iter().zip(SAID) {
            let text = heard(&mut w, wav);
            let wer = smart_voice::word_error_rate(written, &text);
            eprintln!("{wer:.2} {text:?} (said {written:?})");
            errors += wer;
        }
        errors / SAID.len() as f64
    };
    let open = score(expecting(NAMES, Boost { start: 0.0, follow: 0.0 }));
    let biased = score(expecting(NAMES, Boost::default()));
    eprintln!("mean WER: open {open:.3}, expecting {biased:.3}");
    assert!(biased < open, "expecting the command language should lower WER: open {open:.3}, expecting {biased:.3}");
}
