//! The microphone path in real time: cpal capturing a PulseAudio null sink's monitor while
//! `paplay` plays espeak-ng speech into the sink (see `common/mod.rs` for the recipe), with
//! whisper tiny.en and Silero loaded as the runtime loads them (the vocabulary prompt included).
//!
//! Push-to-talk is checked the way people use it: the key pressed as speech starts, and pressed
//! after speech has already begun — the worker has reported speech-loud levels before the press
//! reaches it — which only the pre-roll can save. Whichever way the key went down, the utterance
//! must begin in the silence before the speech. Each utterance's WER is printed and bounded, and
//! the transcript's first word must be the first word said in all but a whisper slip or two
//! (see the test). Level events, and a press over
//! silence (an empty transcript, whisper never run), are checked on the same live path.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{SILENCE_DBFS, SPEECH_DBFS, VirtualMic, Worker, first_word, level, transcripts};
use smart_voice::protocol::{CaptureMode, DeviceStatus, Event, Request, Transcript};
use std::path::Path;
use std::time::{Duration, Instant};

/// A fricative and a plosive onset: the first sounds a late start cuts ("can the Downloads
/// folder", "warantine"). "quarantine old dot log" is not used: tiny.en hears espeak-ng's
/// version as "War routine old.log" / "Warmting old.log" in most live runs with the onset
/// plainly in the audio, and at 150 wpm from the WAV file itself.
const COMMANDS: [&str; 2] = ["scan the Downloads folder", "quarantine the Music folder"];
/// espeak-ng's default speed.
const WPM: u32 = 175;

/// tiny.en on espeak-ng through a resampled live stream: a word in two wrong is already poor.
const MAX_WER: f64 = 0.5;
/// Measured 0.13–0.17 ("download" for "Downloads" is the usual error).
const MEAN_WER: f64 = 0.3;

/// Silence at the head of each clip. PulseAudio's new playback stream glitches in its first
/// ~100 ms (20 ms of zeros, seen with `arecord` alone, no worker involved); a clip that speaks
/// from its first sample then loses its first consonant before any microphone hears it.
const LEAD_S: f32 = 0.3;

#[derive(Copy, Clone, Debug)]
enum Press {
    /// `paplay` is launched and the key pressed at once.
    WithPlayback,
    /// The key is pressed 50 ms after `paplay` is launched. (The clip's speech still reaches
    /// the worker after the press: `LEAD_S` and paplay's start-up come first.)
    After50Ms,
    /// The key is pressed only once the worker has reported a speech-loud level: speech is
    /// already under way on the worker's own clock when the press reaches it.
    AfterSpeechHeard,
}

fn start(mic: &VirtualMic) -> Worker {
    let mut w = Worker::spawn(&mic.env());
    let loaded = w.load(common::load_request());
    assert!(
        matches!(loaded.input, DeviceStatus::Available { .. }),
        "the virtual microphone is not seen as an input: {:?}",
        loaded.input
    );
    w.ok(Request::StartCapture { mode: CaptureMode::PushToTalk });
    w
}

/// Levels until `n` in a row read as silence: audio is flowing and the line is quiet.
fn settle(w: &mut Worker, n: usize) -> Vec<(u64, f32)> {
    let mut quiet = vec![];
    w.until("silent level events", Duration::from_secs(20), |e| {
        if let Some((_, db)) = level(e) {
            if db <= SILENCE_DBFS { quiet.push(db) } else { quiet.clear() }
        }
        quiet.len() >= n
    })
    .iter()
    .filter_map(level)
    .collect()
}

struct Heard {
    transcript: Transcript,
    /// The last silent level before the first speech-loud one, and that loud one (audio clock).
    quiet_before_ms: u64,
    first_loud_ms: u64,
    /// The release's speech end: where the utterance was cut, and when the key came up.
    cut_ms: u64,
    released_ms: u64,
    /// Wall time from sending the release to the transcript (shown, never asserted).
    release_to_transcript: Duration,
}

fn push_to_talk(w: &mut Worker, mic: &VirtualMic, wav: &Path, press: Press) -> Heard {
    push_to_talk_releasing_after(w, mic, wav, press, 3)
}

/// [`push_to_talk`], the key released after `quiet_levels` silent levels (100 ms each) follow
/// the speech.
fn push_to_talk_releasing_after(
    w: &mut Worker,
    mic: &VirtualMic,
    wav: &Path,
    press: Press,
    quiet_levels: usize,
) -> Heard {
    settle(w, 3);
    // Requests and audio are handled in arrival order: once `health` is answered, the audio
    // that queued up while whisper worked has been listened to, and the worker is live again.
    w.ok(Request::Health);
    let player = mic.play(wav);
    let down = Request::PushToTalk { down: true };
    match press {
        Press::WithPlayback => w.ok(down.clone()),
        Press::After50Ms => {
            std::thread::sleep(Duration::from_millis(50));
            w.ok(down.clone());
        }
        Press::AfterSpeechHeard => {}
    }
    let mut quiet_before_ms = 0;
    let events = w.until("a speech-loud level", Duration::from_secs(20), |e| {
        let Some((at, db)) = level(e) else { return false };
        if db <= SILENCE_DBFS {
            quiet_before_ms = at;
        }
        db >= SPEECH_DBFS
    });
    let first_loud_ms = events.iter().rev().find_map(level).unwrap().0;
    if let Press::AfterSpeechHeard = press {
        w.ok(down);
    }
    // The speech to its end, then (at least 300 ms of) silence on the worker's clock: all of it is in.
    let mut quiet_after = 0;
    let events = w.until("silence after the speech", Duration::from_secs(30), |e| {
        let Some((_, db)) = level(e) else { return false };
        quiet_after = if db <= SILENCE_DBFS { quiet_after + 1 } else { 0 };
        quiet_after >= quiet_levels
    });
    assert!(events.iter().all(|e| !matches!(e, Event::Transcript(_))), "a transcript before the release: {events:?}");
    common::finish(player);
    release(w, quiet_before_ms, first_loud_ms)
}

fn release(w: &mut Worker, quiet_before_ms: u64, first_loud_ms: u64) -> Heard {
    let released = Instant::now();
    w.ok(Request::PushToTalk { down: false });
    let events = w.until("a transcript", Duration::from_secs(120), |e| matches!(e, Event::Transcript(_)));
    let release_to_transcript = released.elapsed();
    let Some((cut_ms, released_ms)) = events.iter().find_map(|e| match e {
        Event::SpeechEnd { at_ms, decided_ms, .. } => Some((*at_ms, *decided_ms)),
        _ => None,
    }) else {
        panic!("no speech_end before the transcript: {events:?}")
    };
    let transcript = transcripts(&events)[0].clone();
    Heard { transcript, quiet_before_ms, first_loud_ms, cut_ms, released_ms, release_to_transcript }
}

#[test]
fn a_key_released_well_after_the_speech_ended_cuts_at_the_speech_and_finds_it_transcribed_ahead() {
    let _serial = common::serial();
    let dir = tempfile::tempdir().unwrap();
    let mic = VirtualMic::start();
    let mut w = start(&mic);
    let said = COMMANDS[1];
    let wav = common::speak(dir.path(), "cmd", said, "en-us", WPM, LEAD_S, 0.2);
    // Whether the early window is the one the end cuts depends on the live audio: a click or
    // a dropout in the playback just after the last word (the suite runs on two busy cores)
    // moves where the silence begins, and the utterance is then transcribed at the release —
    // slower, never other words. So the early transcript must be found in one of a few tries;
    // every try must cut at the speech and hear the words. (The listener's decisions
    // themselves are held exactly by its unit tests, over a stand-in VAD.)
    let mut timings = vec![];
    for _ in 0..3 {
        // A second of silence after the speech before the key comes up: the VAD has called the
        // speech ended long before.
        let heard = push_to_talk_releasing_after(&mut w, &mic, &wav, Press::WithPlayback, 10);
        let t = &heard.transcript;
        eprintln!(
            "heard {:?}, cut at {} ms, released at {} ms: {:?}",
            t.text, heard.cut_ms, heard.released_ms, t.timings
        );
        assert!(
            heard.cut_ms + 500 <= heard.released_ms,
            "cut at the release, not at the speech: {} vs {}",
            heard.cut_ms,
            heard.released_ms
        );
        assert_eq!(t.end_ms, heard.cut_ms);
        let wer = smart_voice::word_error_rate(said, &t.text);
        assert!(wer <= MAX_WER, "{said:?} heard as {:?}: WER {wer:.2}", t.text);
        if t.timings.ahead {
            return;
        }
        timings.push(t.timings.clone());
    }
    panic!("whisper was not at work before the release in any of three tries: {timings:?}");
}

#[test]
fn push_to_talk_transcribes_live_speech_with_its_first_word_whenever_the_key_is_pressed() {
    let _serial = common::serial();
    let started = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let mic = VirtualMic::start();
    let mut w = start(&mic);
    let mut report = vec![];
    for (i, said) in COMMANDS.iter().enumerate() {
        let wav = common::speak(dir.path(), &format!("cmd{i}"), said, "en-us", WPM, LEAD_S, 0.2);
        for press in [Press::WithPlayback, Press::After50Ms, Press::AfterSpeechHeard] {
            let heard = push_to_talk(&mut w, &mic, &wav, press);
            let t = &heard.transcript;
            let wer = smart_voice::word_error_rate(said, &t.text);
            let kept = first_word(&t.text) == first_word(said);
            eprintln!(
                "push-to-talk {press:?}: said {said:?}, heard {:?}: WER {wer:.2}, first word kept: {kept}, \
                 utterance {}..{} ms (released at {} ms), speech heard from {} ms, whisper {} ms{}, \
                 release to transcript {:?}",
                t.text,
                t.start_ms,
                t.end_ms,
                heard.released_ms,
                heard.first_loud_ms,
                t.timings.stt_ms,
                if t.timings.ahead { ", ahead" } else { "" },
                heard.release_to_transcript
            );
            if let Press::AfterSpeechHeard = press {
                // The press reached the worker after it had heard speech: only the pre-roll
                // can reach back to the onset.
                assert!(
                    t.start_ms + 500 >= heard.first_loud_ms,
                    "the press ({} ms) came before any speech was heard ({} ms): the variant tests nothing",
                    t.start_ms + 500,
                    heard.first_loud_ms
                );
            }
            // Whenever the key went down, the utterance begins in the silence before the speech:
            // the onset is in the audio whisper is given. This, not the transcript's first word,
            // is what fails when a press or the pre-roll loses the start.
            assert!(
                t.start_ms <= heard.quiet_before_ms,
                "{press:?}: the utterance starts at {} ms, after the last silence before speech ({} ms): the \
                 start of the speech is not in it",
                t.start_ms,
                heard.quiet_before_ms
            );
            report.push((said, press, t.text.clone(), wer, kept));
        }
    }
    // tiny.en itself hears the live "scan" as "can" now and then with the onset plainly in the
    // utterance (asserted above): "scan" pressed 50 ms into playback came out "Can" in 3 of 5
    // local runs, and a CI run had it twice (50 ms, and after speech was heard) — while the
    // same clip from the WAV file is "Scan" with any lead of silence from 0 to 1.2 s. So the
    // first word is a bound on whisper, not the pre-roll's check: two slips in six are
    // tolerated, a command whose first word is never heard is not.
    let lost: Vec<_> = report.iter().filter(|r| !r.4).collect();
    assert!(lost.len() <= 2, "first words lost: {lost:?}");
    for said in COMMANDS {
        assert!(report.iter().any(|r| *r.0 == said && r.4), "{said:?}: its first word was never heard: {report:?}");
    }
    for (said, press, text, wer, _) in &report {
        assert!(*wer <= MAX_WER, "{press:?}: {said:?} heard as {text:?}: WER {wer:.2} over {MAX_WER}");
    }
    let mean = report.iter().map(|r| r.3).sum::<f64>() / report.len() as f64;
    eprintln!("push-to-talk: mean WER {mean:.3}, first words lost {}", lost.len());
    assert!(mean <= MEAN_WER, "mean WER {mean:.3} over {MEAN_WER}: {report:?}");
    eprintln!("push-to-talk, {} utterances: {:.1} s", report.len(), started.elapsed().as_secs_f32());
}

#[test]
fn levels_arrive_while_capturing_and_read_louder_for_speech_than_for_silence() {
    let _serial = common::serial();
    let started = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let mic = VirtualMic::start();
    let mut w = start(&mic);
    let silence: Vec<f32> = settle(&mut w, 10).iter().rev().take(10).map(|l| l.1).collect();
    let wav = common::speak(dir.path(), "speech", COMMANDS[0], "en-us", WPM, 0.2, 0.2);
    let player = mic.play(&wav);
    let mut quiet_after = 0;
    let mut loud_seen = false;
    let events = w.until("speech, then silence", Duration::from_secs(30), |e| {
        let Some((_, db)) = level(e) else { return false };
        loud_seen |= db >= SPEECH_DBFS;
        quiet_after = if db <= SILENCE_DBFS { quiet_after + 1 } else { 0 };
        loud_seen && quiet_after >= 3
    });
    common::finish(player);
    let levels: Vec<(u64, f32)> = events.iter().filter_map(level).collect();
    // About every 100 ms of audio, in order.
    for pair in levels.windows(2) {
        let step = pair[1].0 - pair[0].0;
        assert!((90..=200).contains(&step), "levels {} ms apart on the audio clock: {levels:?}", step);
    }
    // Never pressed: nothing is transcribed or ended.
    assert!(
        events.iter().all(|e| level(e).is_some()),
        "push-to-talk without a press produced {:?}",
        events.iter().filter(|e| level(e).is_none()).collect::<Vec<_>>()
    );
    let loud: Vec<f32> = levels.iter().map(|l| l.1).filter(|db| *db > SILENCE_DBFS).collect();
    let mut sorted = loud.clone();
    sorted.sort_by(f32::total_cmp);
    let median_speech = sorted[sorted.len() / 2];
    let loudest_silence = silence.iter().copied().fold(f32::MIN, f32::max);
    eprintln!(
        "levels: silence {silence:?} dBFS; speech ({} levels) median {median_speech:.1}, loudest {:.1} dBFS; {:.1} s",
        loud.len(),
        sorted.last().unwrap(),
        started.elapsed().as_secs_f32()
    );
    assert!(loudest_silence <= SILENCE_DBFS, "silence read {loudest_silence} dBFS");
    assert!(loud.len() >= 10, "only {} levels during ~2 s of speech: {levels:?}", loud.len());
    assert!(
        median_speech >= loudest_silence + 30.0,
        "speech (median {median_speech} dBFS) is not clearly louder than silence ({loudest_silence} dBFS)"
    );
}

#[test]
fn a_press_over_silence_gives_an_empty_transcript_without_running_whisper() {
    let _serial = common::serial();
    let started = Instant::now();
    let mic = VirtualMic::start();
    let mut w = start(&mic);
    settle(&mut w, 3);
    w.ok(Request::PushToTalk { down: true });
    // A second and a half of silence on the worker's own clock.
    let first = w.until("a level", Duration::from_secs(10), |e| level(e).is_some()).last().and_then(level).unwrap();
    w.until("1.5 s of audio", Duration::from_secs(20), |e| level(e).is_some_and(|(at, _)| at >= first.0 + 1500));
    w.ok(Request::PushToTalk { down: false });
    let events = w.until("a transcript", Duration::from_secs(30), |e| matches!(e, Event::Transcript(_)));
    assert!(events.iter().any(|e| matches!(e, Event::SpeechEnd { .. })), "no speech_end: {events:?}");
    let t = transcripts(&events)[0];
    eprintln!("silent press: {t:?}; {:.1} s", started.elapsed().as_secs_f32());
    assert_eq!(t.text, "", "whisper's words for silence reached the transcript");
    assert!(t.end_ms >= t.start_ms + 1500, "the press lasted {}..{} ms", t.start_ms, t.end_ms);
    // whisper was not run: no audio handed to it, no encoder window, no time.
    assert_eq!((t.timings.audio_ms, t.timings.audio_ctx, t.timings.stt_ms), (0, 0, 0), "{t:?}");
    assert_eq!(t.no_speech, 1.0);
}
