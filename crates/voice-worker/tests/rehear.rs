//! `rehear`: the worker hears a kept utterance again with whisper's whole window, when the
//! runtime could not understand the first hearing (`smart_runtime::rehearing`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::transcripts;
use smart_voice::protocol::{Event, Request, Transcript, VoiceErrorCode};
use std::time::Duration;

fn rehear(w: &mut common::Worker, t: &Transcript) -> Event {
    w.request(Request::Rehear { start_ms: t.start_ms, end_ms: t.end_ms }, Duration::from_secs(120))
}

fn not_kept(event: Event) {
    match event {
        Event::Error(e) => {
            assert_eq!(e.code, VoiceErrorCode::NotKept, "{e:?}");
            assert!(e.message.contains("is not kept"), "{}", e.message);
        }
        other => panic!("an utterance that is not kept was answered {other:?}"),
    }
}

#[test]
fn each_kept_utterance_is_heard_again_with_the_whole_window_until_a_new_recording_starts() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = common::worker_without_sound(dir.path());
    w.load(common::load_request());
    // Nothing has been heard yet.
    not_kept(w.request(Request::Rehear { start_ms: 0, end_ms: 2_000 }, Duration::from_secs(30)));

    let scan = common::speak(dir.path(), "scan", "scan the music folder", "en-us", 140, 0.5, 1.5);
    let hash = common::speak(dir.path(), "hash", "please hash the notes file", "en-us", 140, 0.5, 1.0);
    let both = common::concat(dir.path(), "both", &[&scan, &hash]);
    let events = w.transcribe_file(&both);
    let first: Vec<Transcript> = transcripts(&events).into_iter().cloned().collect();
    assert_eq!(first.len(), 2, "{events:?}");
    for (t, word) in first.iter().zip(["scan", "hash"]) {
        let Event::Transcript(again) = rehear(&mut w, t) else { panic!("no second hearing of {t:?}") };
        assert_eq!((again.start_ms, again.end_ms), (t.start_ms, t.end_ms), "the same utterance");
        assert!(t.timings.audio_ctx < 1_500, "the first hearing's window is cut to the utterance: {t:?}");
        assert_eq!(again.timings.audio_ctx, 1_500, "the second hearing has whisper's whole window: {again:?}");
        assert!(again.text.to_lowercase().contains(word), "{again:?}");
    }
    // A span that was never an utterance is not one.
    not_kept(rehear(&mut w, &Transcript { end_ms: first[0].end_ms + 1, ..first[0].clone() }));

    // A new recording starts a new audio clock: the earlier utterances are gone.
    let events = w.transcribe_file(&scan);
    assert_eq!(transcripts(&events).len(), 1);
    not_kept(rehear(&mut w, &first[1]));
}

fn weigh(w: &mut common::Worker, t: &Transcript, texts: &[&str]) -> Event {
    let texts = texts.iter().map(|s| s.to_string()).collect();
    w.request(Request::Weigh { start_ms: t.start_ms, end_ms: t.end_ms, texts }, Duration::from_secs(120))
}

#[test]
fn a_kept_utterance_is_weighed_and_the_name_said_is_likelier_than_a_near_miss() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = common::worker_without_sound(dir.path());
    w.load(common::load_request());
    let said = common::speak(dir.path(), "news", "delete newsletter dot json", "en-us", 140, 0.5, 1.0);
    let events = w.transcribe_file(&said);
    let heard: Vec<Transcript> = transcripts(&events).into_iter().cloned().collect();
    assert_eq!(heard.len(), 1, "{events:?}");
    let t = &heard[0];
    let Event::Weighed { logp, tokens } =
        weigh(&mut w, t, &["Delete newsletter.json.", "Delete tools letter.json.", "Scan the music folder."])
    else {
        panic!("no weighing of {t:?}")
    };
    assert_eq!(logp.len(), 3, "{logp:?}");
    assert!(tokens.len() == 3 && tokens.iter().all(|t| (3..20).contains(t)), "tokens: {tokens:?}");
    assert!(logp.iter().all(|l| l.is_finite() && *l < 0.0), "log-likelihoods: {logp:?}");
    assert!(logp[0] > logp[1] && logp[1] > logp[2], "what was said is likeliest, a near miss next: {logp:?}");
    // Weighed again (on the state that heard it, which the first weighing decoded on too):
    // the same figures.
    let Event::Weighed { logp: again, .. } =
        weigh(&mut w, t, &["Delete tools letter.json.", "Delete newsletter.json."])
    else {
        panic!("no second weighing of {t:?}")
    };
    assert!((again[0] - logp[1]).abs() < 0.01 && (again[1] - logp[0]).abs() < 0.01, "{logp:?} then {again:?}");

    // Nothing to weigh, or too much, is refused as a bad request; an utterance not kept, as not kept.
    for texts in [vec![], vec!["scan"; smart_voice::protocol::MAX_WEIGHED + 1]] {
        match weigh(&mut w, t, &texts) {
            Event::Error(e) => assert_eq!(e.code, VoiceErrorCode::BadRequest, "{e:?}"),
            other => panic!("{} texts were weighed: {other:?}", texts.len()),
        }
    }
    not_kept(weigh(&mut w, &Transcript { end_ms: t.end_ms + 1, ..t.clone() }, &["Delete newsletter.json."]));
}
