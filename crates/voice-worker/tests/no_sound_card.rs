//! The voice worker on a machine with no sound card and no sound server — this one: no
//! /dev/snd, and PULSE_SERVER pointing at a socket that does not exist (HOME a fresh temp dir, so
//! no user configuration routes ALSA anywhere either). The microphone is reported unavailable
//! with a reason, capture is refused with `no_input_device`, and a WAV file is still
//! transcribed: the voice path without a microphone.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{first_word, transcripts};
use smart_voice::protocol::{CaptureMode, DeviceStatus, Event, Request, VoiceErrorCode};
use std::time::{Duration, Instant};

#[test]
fn without_a_sound_card_capture_is_refused_with_a_reason_and_files_are_still_transcribed() {
    let started = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let mut w = common::worker_without_sound(dir.path());
    let loaded = w.load(common::load_request());
    let DeviceStatus::Unavailable { reason } = &loaded.input else {
        panic!("an input without a sound card or server: {:?}", loaded.input)
    };
    eprintln!("no sound card: input unavailable: {reason}");
    assert!(reason.contains("microphone"), "the reason should say what is missing: {reason}");
    assert_eq!(loaded.output, DeviceStatus::Off, "spoken replies were not asked for");

    for mode in [CaptureMode::PushToTalk, CaptureMode::WakeWord] {
        match w.request(Request::StartCapture { mode }, Duration::from_secs(30)) {
            Event::Error(e) if mode == CaptureMode::PushToTalk => {
                eprintln!("start_capture {mode:?}: {e:?}");
                assert_eq!(e.code, VoiceErrorCode::NoInputDevice, "{e:?}");
                assert!(e.message.contains("microphone"), "{e:?}");
            }
            // No wake model is loaded: that is said first, whatever the microphone.
            Event::Error(e) => assert_eq!(e.code, VoiceErrorCode::WakeUnavailable, "{e:?}"),
            other => panic!("start_capture {mode:?} without a microphone was answered {other:?}"),
        }
    }
    match w.request(Request::PushToTalk { down: true }, Duration::from_secs(30)) {
        Event::Error(e) => assert_eq!(e.code, VoiceErrorCode::BadRequest, "{e:?}"),
        other => panic!("push_to_talk with no open microphone was answered {other:?}"),
    }

    // The file path needs no device.
    let said = "scan the Downloads folder";
    let wav = common::speak(dir.path(), "file", said, "en-us", 175, 0.5, 1.0);
    let events = w.transcribe_file(&wav);
    assert!(matches!(events.last(), Some(Event::Done { .. })), "transcribe_file did not finish: {events:?}");
    let ts = transcripts(&events);
    assert_eq!(ts.len(), 1, "one utterance in the file: {events:?}");
    let wer = smart_voice::word_error_rate(said, &ts[0].text);
    eprintln!("no sound card: file {said:?} heard {:?}, WER {wer:.2}", ts[0].text);
    assert_eq!(first_word(&ts[0].text), first_word(said), "{:?}", ts[0]);
    assert!(wer <= 0.5, "{said:?} heard as {:?}: WER {wer:.2}", ts[0].text);
    eprintln!("no sound card: {:.1} s", started.elapsed().as_secs_f32());
}
