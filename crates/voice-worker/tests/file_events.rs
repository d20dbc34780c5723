//! The listening path on a recording, for what only files show reproducibly: partial
//! transcripts while a long utterance goes on, transcribing ahead while the end of speech is
//! waited for (a file fed at the microphone's pace), and spoken output that degrades to nothing
//! when there is no audio output (this machine has no sound card) instead of failing the request.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::transcripts;
use smart_voice::endpoint::EndpointConfig;
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

#[test]
fn a_file_at_the_microphones_pace_is_transcribed_ahead_and_heard_as_the_same_words() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = common::worker_without_sound(dir.path());
    w.load(common::load_request());
    let wav = common::speak(dir.path(), "cmd", "show me what is in the Music folder", "en-us", 140, 0.5, 1.0);
    let at_once = w.transcribe_file(&wav);
    let paced = w.transcribe_file_paced(&wav);
    let (at_once, paced) = (transcripts(&at_once), transcripts(&paced));
    assert_eq!((at_once.len(), paced.len()), (1, 1), "{at_once:?} {paced:?}");
    let (a, p) = (at_once[0], paced[0]);
    eprintln!("at once: {a:?}\npaced: {p:?}");
    // Fed as fast as it can be, there is no wait to overlap and no latency to report.
    assert!(!a.timings.ahead && a.timings.after_end_ms.is_none(), "{:?}", a.timings);
    assert!(p.timings.ahead, "a paced utterance ended by the VAD is transcribed ahead: {:?}", p.timings);
    assert!(p.timings.after_end_ms.is_some(), "{:?}", p.timings);
    // The same samples went to whisper, only sooner.
    assert_eq!(
        (&p.text, p.start_ms, p.end_ms, p.timings.audio_ms),
        (&a.text, a.start_ms, a.end_ms, a.timings.audio_ms)
    );
    assert!(p.text.to_lowercase().contains("music"), "{p:?}");
}

#[test]
fn speech_that_goes_on_after_a_pause_is_transcribed_whole_not_from_the_audio_before_the_pause() {
    let dir = tempfile::tempdir().unwrap();
    // espeak-ng pauses about 290 ms at this comma, at this speed.
    let wav = common::speak(dir.path(), "paused", "show me what is in, the Music folder", "en-us", 120, 0.5, 1.0);
    let mut w = common::worker_without_sound(dir.path());
    // The pause is long enough to reach the end padding (an endpoint that waits only that long
    // splits the speech there), so the early window was handed out in it ...
    let mut short = common::load_request();
    short.endpoint = EndpointConfig { min_silence_ms: 200, ..EndpointConfig::default() };
    w.load(short);
    let split = w.transcribe_file(&wav);
    assert_eq!(transcripts(&split).len(), 2, "the pause does not reach the end padding: {split:?}");
    // ... and too short to end it: one utterance, heard whole, at either pace.
    w.load(common::load_request());
    let at_once = w.transcribe_file(&wav);
    let paced = w.transcribe_file_paced(&wav);
    let (at_once, paced) = (transcripts(&at_once), transcripts(&paced));
    assert_eq!((at_once.len(), paced.len()), (1, 1), "{at_once:?} {paced:?}");
    eprintln!("at once: {:?}\npaced: {:?}", at_once[0], paced[0]);
    assert_eq!(paced[0].text, at_once[0].text);
    assert_eq!(paced[0].end_ms, at_once[0].end_ms);
    assert!(paced[0].text.to_lowercase().contains("music"), "{:?}", paced[0]);
    assert!(paced[0].timings.ahead, "its own end was still transcribed ahead: {:?}", paced[0].timings);

    // Regression guard: the same speech with the file ending at its last sound, so its end is
    // the file's and nothing is handed out ahead of it. The window handed out in the pause is
    // then the only early transcript there is, and it is of other audio.
    let cut = common::speak_cut(dir.path(), "paused_cut", "show me what is in, the Music folder", "en-us", 120, 0.5);
    let at_once = w.transcribe_file(&cut);
    let paced = w.transcribe_file_paced(&cut);
    let (at_once, paced) = (transcripts(&at_once), transcripts(&paced));
    assert_eq!((at_once.len(), paced.len()), (1, 1), "{at_once:?} {paced:?}");
    eprintln!("cut, at once: {:?}\ncut, paced: {:?}", at_once[0], paced[0]);
    assert_eq!(paced[0].text, at_once[0].text);
    assert!(paced[0].text.to_lowercase().contains("music"), "{:?}", paced[0]);
    assert!(!paced[0].timings.ahead, "{:?}", paced[0].timings);
}

#[test]
fn a_worker_told_not_to_transcribe_ahead_transcribes_after_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = common::worker_without_sound(dir.path());
    w.load(smart_voice::protocol::LoadVoice { transcribe_ahead: false, ..common::load_request() });
    let wav = common::speak(dir.path(), "cmd", "show me what is in the Music folder", "en-us", 140, 0.5, 1.0);
    let paced = w.transcribe_file_paced(&wav);
    let paced = transcripts(&paced);
    assert_eq!(paced.len(), 1, "{paced:?}");
    assert!(!paced[0].timings.ahead && paced[0].timings.after_end_ms.is_some(), "{:?}", paced[0].timings);
}
