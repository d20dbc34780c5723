//! The wake word in English, heard by whisper (tiny.en, the default) — no vosk model needed.
//!
//! The suite the wake word is held to, on espeak-ng speech and sox noise, through the worker's
//! real path (`transcribe_file` in wake mode feeds a file as the microphone would, VAD and
//! all, without waiting in real time):
//! - **false rejects**: the phrase said by five voices at three speeds, clean and over pink
//!   noise, alone before a pause or in one breath with the command;
//! - **false accepts**: conversation that is not addressed to SMART (near misses like "he's
//!   smart" and "hey Mark" among it), commands said without the phrase, and noise alone;
//! - one run on the real-time virtual microphone: the phrase wakes the worker, the command
//!   that follows is the only transcript, and the time from the end of the phrase to the wake
//!   and the worker's CPU while idle and while other speech plays are printed.
//!
//! The figures (rates, per hour of audio, CPU) are printed for the issue's note. The
//! assertions: false rejects under 10 % as a regression bar (the goal is 5 %; measured 1.7 and
//! 3.3 % in two runs here, the misses fast en-gb-x-rp speech heard "Case mod, undo that"), each
//! woken clip gives exactly one
//! transcript, no false accept from ordinary conversation, commands without the phrase or
//! noise, and at most two among the deliberate near misses ("hey, small question" is heard
//! "Hey Smart, question" by tiny.en, clean and noisy, with or without the phrase expected).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Worker, transcripts};
use smart_voice::protocol::{Event, LoadVoice, WakeConfig, WakeEngine, WakeStatus};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const PHRASE: &str = "hey smart";

fn with_whisper_wake() -> LoadVoice {
    LoadVoice { wake: Some(WakeConfig { model: None, phrase: PHRASE.to_string() }), ..common::load_request() }
}

fn ready_worker(env: &[(String, String)]) -> Worker {
    let mut w = Worker::spawn(env);
    let loaded = w.load(with_whisper_wake());
    assert_eq!(loaded.wake, WakeStatus::Ready { phrase: PHRASE.into(), engine: WakeEngine::Whisper }, "{loaded:?}");
    w
}

/// `clean` with pink noise under it, `snr_db` below the speech's level.
fn noisy(dir: &Path, clean: &Path, snr_db: f32) -> PathBuf {
    let secs = audio_secs(clean);
    let noise = dir.join(format!("{}.noise.wav", clean.file_stem().unwrap().to_string_lossy()));
    common::run(Command::new("sox").args(["-n", "-r", "16000", "-c", "1", "-b", "16"]).arg(&noise).args([
        "synth",
        &format!("{secs}"),
        "pinknoise",
        "vol",
        &format!("{}dB", -20.0 - snr_db),
    ]));
    let out = dir.join(format!("{}.noisy.wav", clean.file_stem().unwrap().to_string_lossy()));
    common::run(Command::new("sox").args(["-m"]).arg(clean).arg(&noise).arg(&out));
    out
}

fn audio_secs(wav: &Path) -> f32 {
    let out = Command::new("soxi").arg("-D").arg(wav).output().expect("soxi (sox) is missing");
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

fn wakes(events: &[Event]) -> usize {
    events.iter().filter(|e| matches!(e, Event::Wake { .. })).count()
}

const VOICES: &[&str] = &["en-us", "en-gb", "en-us+f3", "en-gb-scotland", "en-gb-x-rp"];
const SPEEDS: &[u32] = &[130, 165, 200];
const COMMANDS: &[&str] = &[
    "list the downloads folder",
    "scan my documents",
    "find duplicate files in pictures",
    "undo that",
    "what is the status",
];

#[test]
fn the_wake_phrase_is_heard_by_whisper_and_what_follows_it_is_the_command() {
    let _serial = common::serial();
    let started = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let mut w = ready_worker(&[]);
    let (mut clips, mut missed, mut wrong_command, mut audio, mut wers) = (0, vec![], vec![], 0.0, vec![]);
    let mut i = 0;
    for voice in VOICES {
        for &wpm in SPEEDS {
            for one_breath in [true, false] {
                let command = COMMANDS[i % COMMANDS.len()];
                i += 1;
                let clip = if one_breath {
                    common::speak(dir.path(), &format!("c{i}"), &format!("{PHRASE}, {command}"), voice, wpm, 0.5, 1.0)
                } else {
                    let phrase = common::speak(dir.path(), &format!("p{i}"), PHRASE, voice, wpm, 0.5, 1.2);
                    let said = common::speak(dir.path(), &format!("s{i}"), command, voice, wpm, 0.0, 1.0);
                    common::concat(dir.path(), &format!("c{i}"), &[&phrase, &said])
                };
                for clip in [clip.clone(), noisy(dir.path(), &clip, 15.0)] {
                    clips += 1;
                    audio += audio_secs(&clip);
                    let events = w.transcribe_file_waking(&clip);
                    let label = format!(
                        "{voice} {wpm} wpm {} {:?}",
                        if one_breath { "one breath" } else { "pause" },
                        clip.file_name().unwrap()
                    );
                    if wakes(&events) == 0 {
                        missed.push(format!(
                            "{label}: {:?}",
                            events.iter().filter(|e| matches!(e, Event::WakeRejected { .. })).collect::<Vec<_>>()
                        ));
                        continue;
                    }
                    let ts = transcripts(&events);
                    let heard = ts.iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join(" | ");
                    let wer = smart_voice::word_error_rate(command, &heard);
                    wers.push(wer);
                    if ts.len() != 1 {
                        wrong_command.push(format!("{label}: {command:?} heard {heard:?}"));
                    }
                }
            }
        }
    }
    let fr = missed.len() as f32 / clips as f32;
    eprintln!(
        "whisper wake word: {} of {clips} phrases missed (false rejects {:.1} %), {} woken clips without one transcript, command WER {:.3} mean, over {audio:.0} s of audio; {:.0} s",
        missed.len(),
        fr * 100.0,
        wrong_command.len(),
        wers.iter().sum::<f64>() / wers.len().max(1) as f64,
        started.elapsed().as_secs_f32()
    );
    for m in &missed {
        eprintln!("  missed: {m}");
    }
    for m in &wrong_command {
        eprintln!("  command: {m}");
    }
    assert!(fr < 0.10, "false rejects {:.1} % (goal under 5 %): {missed:#?}", fr * 100.0);
    // What followed the phrase is one transcript, the command's.
    assert!(wrong_command.is_empty(), "{wrong_command:#?}");
}

/// Near misses: sentences that begin with sounds close to the phrase.
const NEAR_MISSES: usize = 12;

/// Sentences said in a room that are not for SMART: first the near misses, then the rest.
const CONVERSATION: &[&str] = &[
    "he's smart, isn't he",
    "hey mark, did you see the game last night",
    "a smart move would be to wait",
    "hey, start the car",
    "hey, small question for you",
    "hey sam, are you there",
    "hey, stop that",
    "they smashed it",
    "hay is for horses",
    "hey man, what's up",
    "hey mom, I'm home",
    "hey there, how are you doing",
    "could you pass me the salt please",
    "the smart thing is to leave early",
    "say something smart",
    "okay so what do we do now",
    "I think she is very smart",
    "smart phones are everywhere these days",
    "it's a smart watch",
    "what time is it in tokyo",
    // Commands, but not addressed to SMART.
    "scan the downloads folder",
    "quarantine old dot log",
    "move notes dot txt into archive",
];

#[test]
fn speech_without_the_wake_phrase_and_noise_never_wake_whisper() {
    let _serial = common::serial();
    let started = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let mut w = ready_worker(&[]);
    let mut parts = vec![];
    for (i, text) in CONVERSATION.iter().enumerate() {
        let voice = VOICES[i % VOICES.len()];
        let wpm = SPEEDS[i % SPEEDS.len()];
        parts.push(common::speak(dir.path(), &format!("t{i}"), text, voice, wpm, 0.3, 0.8));
    }
    // Noise alone: steady pink and brown noise, white-noise bursts, a tone sweep.
    for (i, synth) in [
        vec!["8", "pinknoise", "vol", "-12dB"],
        vec!["8", "brownnoise", "vol", "-6dB"],
        vec!["0.4", "whitenoise", "vol", "-10dB", "pad", "0", "0.6", "repeat", "7"],
        vec!["6", "sine", "200-2000", "vol", "-12dB"],
    ]
    .iter()
    .enumerate()
    {
        let out = dir.path().join(format!("noise{i}.wav"));
        common::run(
            Command::new("sox").args(["-n", "-r", "16000", "-c", "1", "-b", "16"]).arg(&out).arg("synth").args(synth),
        );
        parts.push(out);
    }
    let mut all_events = vec![];
    let mut near_miss_wakes = vec![];
    let mut audio = 0.0;
    // The near misses one by one (to know which woke), the rest in groups, as a room's speech
    // would come: several stretches of speech in one file.
    let (near, rest) = parts.split_at(NEAR_MISSES);
    let mut clips: Vec<(bool, PathBuf)> = near.iter().map(|p| (true, p.clone())).collect();
    for (g, group) in rest.chunks(6).enumerate() {
        let refs: Vec<&Path> = group.iter().map(PathBuf::as_path).collect();
        clips.push((false, common::concat(dir.path(), &format!("room{g}"), &refs)));
    }
    for (near_miss, clip) in clips {
        let noisy_clip = noisy(dir.path(), &clip, 20.0);
        for c in [clip, noisy_clip] {
            audio += audio_secs(&c);
            let events = w.transcribe_file_waking(&c);
            if near_miss && wakes(&events) > 0 {
                near_miss_wakes.push(events.clone());
            } else {
                all_events.extend(events);
            }
        }
    }
    let rejected: Vec<&str> = all_events
        .iter()
        .filter_map(|e| match e {
            Event::WakeRejected { heard, .. } => Some(heard.as_str()),
            _ => None,
        })
        .collect();
    let woke: Vec<&Event> =
        all_events.iter().filter(|e| matches!(e, Event::Wake { .. } | Event::Transcript(_))).collect();
    eprintln!(
        "whisper wake word: {} false accepts in {audio:.0} s of other speech and noise ({:.1} per hour; {} of them near misses), {} stretches of speech rejected; {:.0} s",
        wakes(&all_events) + near_miss_wakes.len(),
        (wakes(&all_events) + near_miss_wakes.len()) as f32 * 3600.0 / audio,
        near_miss_wakes.len(),
        rejected.len(),
        started.elapsed().as_secs_f32()
    );
    for r in &rejected {
        eprintln!("  rejected: {r:?}");
    }
    for events in &near_miss_wakes {
        let said: Vec<&str> = transcripts(events).iter().map(|t| t.text.as_str()).collect();
        eprintln!("  near miss woke: then {said:?}");
    }
    assert!(woke.is_empty(), "woke on speech that was not addressed to SMART: {woke:#?}");
    assert!(near_miss_wakes.len() <= 2, "woke on near misses: {near_miss_wakes:#?}");
    // The conversation was heard and turned away, not missed by the VAD.
    assert!(rejected.len() >= CONVERSATION.len() * 2 * 8 / 10, "only {} rejections: {rejected:#?}", rejected.len());
}

/// Regression: "hey Mark" said alone woke SMART every time in a long run of other speech (5 of
/// 5), "a smart hat" 9 of 14. A stretch as short as the phrase was taken by its sound code, and
/// whisper hears espeak-ng's "hey smart" alone as "case marked", so text could not tell them
/// apart; whisper now also scores the phrase itself against the audio.
#[test]
fn a_short_phrase_that_only_sounds_like_the_wake_phrase_does_not_wake_it() {
    let _serial = common::serial();
    let dir = tempfile::tempdir().unwrap();
    let mut w = ready_worker(&[]);
    let mut woke = vec![];
    let mut i = 0;
    for text in ["hey mark", "a smart hat", "face mask on", "hey stewart", "hey sam, smart thinking"] {
        for voice in ["en-us", "en-gb+f3", "en-029"] {
            i += 1;
            let clip = common::speak(dir.path(), &format!("alike{i}"), text, voice, 175, 0.3, 0.8);
            let events = w.transcribe_file_waking(&clip);
            if wakes(&events) > 0 {
                woke.push(format!("{text:?} ({voice})"));
            }
        }
    }
    eprintln!("sound-alikes said alone: {} of {i} woke it: {woke:?}", woke.len());
    assert!(woke.is_empty(), "woke on a phrase that only sounds like the wake phrase: {woke:?}");
}

#[test]
fn in_wake_mode_a_file_without_a_wake_engine_is_refused_not_taken_as_commands() {
    let _serial = common::serial();
    let dir = tempfile::tempdir().unwrap();
    let mut w = Worker::spawn(&[]);
    w.load(common::load_request());
    let clip = common::speak(dir.path(), "cmd", "scan the downloads folder", "en-us", 160, 0.3, 0.8);
    let events = w.transcribe_file_waking(&clip);
    match events.as_slice() {
        [Event::Error(e)] => {
            assert_eq!(e.code, smart_voice::protocol::VoiceErrorCode::WakeUnavailable, "{e:?}");
            assert!(e.message.contains("nothing in the file is a command"), "{e:?}");
        }
        other => panic!("wake mode without a wake word answered {other:?}"),
    }
}

#[test]
fn on_the_microphone_the_phrase_wakes_whisper_and_the_command_after_it_is_the_only_transcript() {
    let _serial = common::serial();
    let dir = tempfile::tempdir().unwrap();
    let mic = common::VirtualMic::start();
    let mut w = ready_worker(&mic.env());
    w.ok(smart_voice::protocol::Request::StartCapture { mode: smart_voice::protocol::CaptureMode::WakeWord });
    // Idle: a quiet room (after the capture has settled in).
    std::thread::sleep(Duration::from_secs(3));
    let cpu0 = w.cpu_time();
    let quiet = Instant::now();
    std::thread::sleep(Duration::from_secs(5));
    let idle = w.cpu_time().saturating_sub(cpu0).as_secs_f32() / quiet.elapsed().as_secs_f32();
    // Other speech playing (ordinary conversation; the near misses are the file suite's).
    let talk: Vec<PathBuf> = CONVERSATION[NEAR_MISSES..NEAR_MISSES + 6]
        .iter()
        .enumerate()
        .map(|(i, t)| common::speak(dir.path(), &format!("o{i}"), t, VOICES[i % VOICES.len()], 165, 0.2, 0.6))
        .collect();
    let refs: Vec<&Path> = talk.iter().map(PathBuf::as_path).collect();
    let room = common::concat(dir.path(), "room", &refs);
    let cpu1 = w.cpu_time();
    let playing = Instant::now();
    common::finish(mic.play(&room));
    std::thread::sleep(Duration::from_secs(2));
    let talking = w.cpu_time().saturating_sub(cpu1).as_secs_f32() / playing.elapsed().as_secs_f32();
    let mut before = vec![];
    while let Some(e) = w.next_event(Duration::from_millis(100)) {
        before.push(e);
    }
    assert_eq!(wakes(&before), 0, "{before:?}");
    assert!(transcripts(&before).is_empty(), "{before:?}");
    // The phrase, a pause, the command.
    let phrase = common::speak(dir.path(), "phrase", PHRASE, "en-us", 160, 0.3, 1.2);
    let command = "list the downloads folder";
    let said = common::speak(dir.path(), "command", command, "en-us", 160, 0.0, 1.0);
    let clip = common::concat(dir.path(), "wake_then_command", &[&phrase, &said]);
    let player = mic.play(&clip);
    let mut phrase_end = None;
    let mut wake_after = None;
    let events = w.until("the command's transcript", Duration::from_secs(60), |e| {
        match e {
            Event::SpeechEnd { .. } if phrase_end.is_none() => phrase_end = Some(Instant::now()),
            Event::Wake { .. } => wake_after = phrase_end.map(|t| t.elapsed()),
            _ => {}
        }
        matches!(e, Event::Transcript(_))
    });
    common::finish(player);
    let heard = transcripts(&events);
    eprintln!(
        "whisper wake word on the microphone: CPU {:.0} % of a core idle, {:.0} % while other speech plays; end of the phrase → wake {:?}; heard {:?}",
        idle * 100.0,
        talking * 100.0,
        wake_after,
        heard.iter().map(|t| &t.text).collect::<Vec<_>>()
    );
    assert_eq!(wakes(&events), 1, "{events:?}");
    assert_eq!(heard.len(), 1, "{events:?}");
    assert!(smart_voice::word_error_rate(command, &heard[0].text) <= 0.5, "{:?}", heard[0].text);
}
