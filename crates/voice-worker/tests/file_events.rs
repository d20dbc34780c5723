//! The listening path on a recording, for what only files show reproducibly: partial
//! transcripts while a long utterance goes on, and spoken output that degrades to nothing when
//! there is no audio output (this machine has no sound card) instead of failing the request.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::transcripts;
use smart_voice::protocol::{DeviceStatus, Earcon, Event, Request};

#[test]
fn a_long_utterance_gets_partial_transcripts_before_the_final_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = common::worker_without_sound(dir.path());
    let mut load = common::load_request();
    load.partial_every_ms = Some(1_000);
    w.load(load);
    let said = "please list every file in the Downloads folder and then show me what is in the Music folder";
    let wav = common::speak(dir.path(), "long", said, "en-us", 140, 0.5, 1.0);
    let events = w.transcribe_file(&wav);
    let partials: Vec<&String> =
        events.iter().filter_map(|e| if let Event::Partial { text } = e { Some(text) } else { None }).collect();
    let finals = transcripts(&events);
    eprintln!("partials: {partials:?}\nfinal: {:?}", finals.iter().map(|t| &t.text).collect::<Vec<_>>());
    assert!(partials.len() >= 2, "a ~5 s utterance with partials every second: {partials:?}");
    let first_final = events.iter().position(|e| matches!(e, Event::Transcript(_))).unwrap();
    let last_partial = events.iter().rposition(|e| matches!(e, Event::Partial { .. })).unwrap();
    assert!(last_partial < first_final, "partials come while the speech goes on, before its transcript");
    // Each partial covers more of the speech than the one before.
    assert!(
        partials.windows(2).all(|p| p[1].split_whitespace().count() >= p[0].split_whitespace().count()),
        "{partials:?}"
    );
    assert!(!finals.is_empty());
}

#[test]
fn without_partials_asked_for_none_are_sent() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = common::worker_without_sound(dir.path());
    w.load(common::load_request());
    let wav =
        common::speak(dir.path(), "long", "please list every file in the Downloads folder", "en-us", 140, 0.5, 1.0);
    let events = w.transcribe_file(&wav);
    assert!(!events.iter().any(|e| matches!(e, Event::Partial { .. })), "{events:?}");
    assert_eq!(transcripts(&events).len(), 1);
}

#[test]
fn speech_output_without_a_sound_card_is_reported_and_requests_still_succeed() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = common::worker_without_sound(dir.path());
    let mut load = common::load_request();
    load.speak = true;
    let loaded = w.load(load);
    let DeviceStatus::Unavailable { reason } = &loaded.output else {
        panic!("no sound card, yet the output is {:?}", loaded.output)
    };
    assert!(reason.contains("text only"), "{reason}");
    // Replies degrade silently: the request is answered, nothing is played, nothing breaks.
    w.ok(Request::Speak { text: "Done.".into() });
    for kind in [Earcon::Listening, Earcon::Accepted, Earcon::Refused, Earcon::NeedsApproval] {
        w.ok(Request::Earcon { kind });
    }
    w.ok(Request::Health);
}
