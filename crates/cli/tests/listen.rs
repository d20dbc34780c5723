//! `smart listen --wav`: real speech (espeak-ng, several voices and speeds, silence and noise
//! mixed in with sox) through the whole voice path — Silero VAD, whisper, the proposers and the
//! kernel — with the real models from the models folder.
//!
//! Every file holds several commands separated by silence, so one run also checks that the VAD
//! cuts the recording into exactly the utterances that were spoken. Word error rate is printed
//! per model and utterance; the assertions are quality bars (the right tool proposed for most
//! utterances, WER under a bound), so a worse model or a broken stage fails them.
//!
//! Needs espeak-ng and sox (scripts/setup.sh installs them) and the voice models
//! (`smart models fetch whisper-tiny.en whisper-base silero-vad`; scripts/test.sh does). They
//! fail — they do not skip — when something is missing, saying how to get it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::Smart;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What is said, the tool that should be proposed, and the name its path should end with.
const COMMANDS: [(&str, &str, &str); 6] = [
    ("scan the Downloads folder", "fs.scan", "Downloads"),
    ("find duplicates in Pictures", "cluster.duplicates", "Pictures"),
    ("hash notes dot txt", "fs.hash", "notes.txt"),
    ("quarantine old dot log", "fs.quarantine", "old.log"),
    ("list the files in Music", "fs.scan", "Music"),
    ("what is in the reports folder", "fs.scan", "reports"),
];

struct Variant {
    name: &'static str,
    voice: &'static str,
    wpm: u32,
    /// sox noise colour and amplitude (0..1), mixed under the whole recording.
    noise: Option<(&'static str, f32)>,
    /// Silence before the first command.
    lead_s: f32,
}

const VARIANTS: [Variant; 3] = [
    Variant { name: "en-us, 150 wpm, clean", voice: "en-us", wpm: 150, noise: None, lead_s: 0.5 },
    Variant {
        name: "en-gb, 130 wpm, pink noise",
        voice: "en-gb-x-rp",
        wpm: 130,
        noise: Some(("pinknoise", 0.02)),
        lead_s: 0.3,
    },
    Variant {
        name: "en, 185 wpm, brown noise, 1.5 s lead",
        voice: "en",
        wpm: 185,
        noise: Some(("brownnoise", 0.04)),
        lead_s: 1.5,
    },
];

fn run(cmd: &mut Command) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e} (scripts/setup.sh installs espeak-ng and sox)"));
    assert!(out.status.success(), "{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr));
}

/// espeak-ng says `text`; sox makes it 16 kHz mono with silence after.
fn speak(dir: &Path, name: &str, text: &str, voice: &str, wpm: u32) -> PathBuf {
    let raw = dir.join(format!("{name}.raw.wav"));
    let out = dir.join(format!("{name}.wav"));
    run(Command::new("espeak-ng").args(["-v", voice, "-s", &wpm.to_string(), "-w"]).arg(&raw).arg(text));
    run(Command::new("sox").arg(&raw).args(["-r", "16000", "-c", "1", "-b", "16"]).arg(&out).args(["pad", "0", "1.2"]));
    out
}

/// The commands of one variant in one recording, noise mixed under it if asked.
fn recording(dir: &Path, v: &Variant, texts: &[&str]) -> PathBuf {
    let parts: Vec<PathBuf> =
        texts.iter().enumerate().map(|(i, t)| speak(dir, &format!("part{i}"), t, v.voice, v.wpm)).collect();
    let lead = dir.join("lead.wav");
    run(Command::new("sox").args(["-n", "-r", "16000", "-c", "1", "-b", "16"]).arg(&lead).args([
        "trim",
        "0",
        &v.lead_s.to_string(),
    ]));
    let speech = dir.join("speech.wav");
    run(Command::new("sox").arg(&lead).args(&parts).arg(&speech));
    let Some((colour, amplitude)) = v.noise else { return speech };
    let seconds = String::from_utf8(Command::new("soxi").arg("-D").arg(&speech).output().unwrap().stdout).unwrap();
    let noise = dir.join("noise.wav");
    // -R: the same noise every run, so a result can be reproduced.
    run(Command::new("sox").args(["-R", "-n", "-r", "16000", "-c", "1", "-b", "16"]).arg(&noise).args([
        "synth",
        seconds.trim(),
        colour,
        "vol",
        &amplitude.to_string(),
    ]));
    let mixed = dir.join("mixed.wav");
    run(Command::new("sox").args(["-R", "-m"]).arg(&speech).arg(&noise).arg(&mixed));
    mixed
}

fn require_voice_models(s: &Smart) {
    let (code, v) = s.json(&["models", "verify", "whisper-tiny.en", "whisper-base", "silero-vad"]);
    assert_eq!(
        code, 0,
        "the voice models are not available ({v}); fetch them with `smart models fetch --source pip whisper-tiny.en whisper-base silero-vad` (scripts/test.sh does)"
    );
}

/// A data dir over a folder holding the names the commands mention.
fn setup() -> Smart {
    let s = Smart::init(None);
    for d in ["Downloads", "Pictures", "Music", "reports"] {
        std::fs::create_dir_all(s.root.join(d)).unwrap();
    }
    s.write("notes.txt", "notes");
    s.write("old.log", "old");
    s.write("Pictures/a.png", "png");
    require_voice_models(&s);
    s
}

/// Every JSON value `smart --json listen` printed, one per utterance.
fn listen(s: &Smart, wav: &Path, extra: &[&str]) -> (i32, Vec<Value>) {
    let mut c = s.cmd();
    c.env("SMART_PROPOSER_WORKER", common::worker_bin()).arg("--json").arg("listen").arg("--wav").arg(wav).args(extra);
    let out = c.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let values: Vec<Value> = serde_json::Deserializer::from_str(&text)
        .into_iter::<Value>()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("not JSON ({e}): {text:?}; stderr {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap_or(-1), values)
}

fn proposed_path(v: &Value) -> String {
    let args = &v["proposal"]["args"];
    args["path"].as_str().or_else(|| args["paths"][0].as_str()).unwrap_or("").to_string()
}

/// Runs every variant through one whisper model; returns (right tool, total, mean WER).
fn score(model: &str) -> (usize, usize, f64) {
    let s = setup();
    let texts: Vec<&str> = COMMANDS.iter().map(|c| c.0).collect();
    let (mut right, mut total, mut wer_sum) = (0, 0, 0.0);
    let events_before = s.events();
    for v in &VARIANTS {
        let dir = tempfile::tempdir().unwrap();
        let wav = recording(dir.path(), v, &texts);
        let (code, results) = listen(&s, &wav, &["--propose-only", "--whisper", model]);
        assert_eq!(code, 0, "{model}, {}: {results:?}", v.name);
        assert_eq!(
            results.len(),
            COMMANDS.len(),
            "{model}, {}: the VAD should cut {} utterances, got {}: {:#?}",
            v.name,
            COMMANDS.len(),
            results.len(),
            results.iter().map(|r| r["transcript"]["text"].clone()).collect::<Vec<_>>()
        );
        for ((said, tool, name), r) in COMMANDS.iter().zip(&results) {
            let heard = r["transcript"]["text"].as_str().unwrap_or("");
            let wer = smart_voice::word_error_rate(said, heard);
            let ok = r["proposal"]["tool"] == *tool && proposed_path(r).ends_with(name);
            eprintln!(
                "{model:<16} {:<38} {said:<32} → {heard:<36} WER {wer:.2}  {} {}",
                v.name,
                if ok { "ok  " } else { "MISS" },
                r["proposal"]
            );
            right += usize::from(ok);
            total += 1;
            wer_sum += wer;
            assert!(r["transcript"]["end_ms"].as_u64() > r["transcript"]["start_ms"].as_u64(), "{r}");
            assert!(r["outcome"] == "proposed" || r["outcome"] == "no_call", "propose-only submits nothing: {r}");
        }
    }
    assert_eq!(s.events(), events_before, "propose-only: nothing reached the ledger");
    let mean = wer_sum / total as f64;
    eprintln!("{model}: right tool and path {right}/{total}, mean WER {mean:.3}");
    (right, total, mean)
}

#[test]
fn spoken_commands_in_several_voices_with_noise_propose_the_right_tool_with_tiny_en() {
    // The fast default: a lower bar than base's, measured and reported in the issue note.
    let (right, total, wer) = score("whisper-tiny.en");
    assert!(right * 100 >= total * 60, "tiny.en: only {right}/{total} utterances got the right tool and path");
    assert!(wer < 0.5, "tiny.en: mean WER {wer:.3}");
}

#[test]
fn spoken_commands_in_several_voices_with_noise_propose_the_right_tool_with_base() {
    let (right, total, wer) = score("whisper-base");
    assert!(right * 100 >= total * 75, "base: only {right}/{total} utterances got the right tool and path");
    assert!(wer < 0.3, "base: mean WER {wer:.3}");
}

#[test]
fn a_recording_of_silence_and_noise_alone_is_nothing_heard() {
    let s = setup();
    let before = s.events();
    let dir = tempfile::tempdir().unwrap();
    let wav = dir.path().join("noise.wav");
    run(Command::new("sox").args(["-n", "-r", "16000", "-c", "1", "-b", "16"]).arg(&wav).args([
        "synth",
        "4",
        "pinknoise",
        "vol",
        "0.02",
    ]));
    let (code, results) = listen(&s, &wav, &[]);
    assert_eq!(code, 0);
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0]["outcome"], "nothing_heard", "{results:?}");
    assert_eq!(s.events(), before, "nothing reached the ledger");
}

#[test]
fn the_spoken_word_stop_goes_to_the_emergency_gate_not_to_the_proposer() {
    let s = setup();
    s.commit_lease();
    let dir = tempfile::tempdir().unwrap();
    let v = &VARIANTS[0];
    let wav = recording(dir.path(), v, &["stop"]);
    let (_, results) = listen(&s, &wav, &[]);
    assert_eq!(results.len(), 1, "{results:?}");
    let r = &results[0];
    assert_eq!(r["emergency_word"], "stop", "{r}");
    assert!(r["proposal"].is_null(), "no proposal for an emergency word: {r}");
    let (_, status) = s.json(&["status"]);
    assert_eq!(status["stance"], "sensemaking", "{status}");
    assert!(status["lease"].is_null(), "the lease is gone: {status}");
}

#[test]
fn a_recording_fed_at_the_microphones_pace_is_heard_as_the_same_words_and_says_its_latency() {
    let s = setup();
    let dir = tempfile::tempdir().unwrap();
    let wav = recording(dir.path(), &VARIANTS[0], &["show me what is in the Music folder"]);
    let (_, at_once) = listen(&s, &wav, &["--propose-only"]);
    let (code, paced) = listen(&s, &wav, &["--propose-only", "--paced"]);
    assert_eq!(code, 0, "{paced:?}");
    assert_eq!((at_once.len(), paced.len()), (1, 1), "{at_once:?} {paced:?}");
    let (a, p) = (&at_once[0], &paced[0]);
    assert_eq!(p["transcript"]["text"], a["transcript"]["text"], "{p}");
    assert_eq!(p["proposal"], a["proposal"], "{p}");
    assert_eq!(p["timings"]["transcribed_ahead"], true, "{p}");
    assert!(p["timings"]["end_of_speech_to_transcript_ms"].is_u64(), "{p}");
    assert!(a["timings"]["end_of_speech_to_transcript_ms"].is_null(), "read at once, no latency to report: {a}");
    // Without a file there is nothing to pace.
    let out = s.cmd().args(["listen", "--paced"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--wav"), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_missing_recording_is_refused_clearly_and_changes_nothing() {
    let s = setup();
    let before = s.events();
    let out = s.cmd().args(["listen", "--wav", "/nonexistent/speech.wav"]).output().unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("does not exist"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(s.events(), before);
}

/// A spoken turn keeps one id from the speech to the ledger: two commands in one recording are
/// two requests, and each one's id (what `--json` and the HUD show) finds exactly the events it
/// wrote. Before, the speech events, the turn and the kernel's events each had their own.
#[test]
fn each_spoken_request_is_found_in_the_ledger_by_the_id_it_showed() {
    let s = setup();
    let dir = tempfile::tempdir().unwrap();
    let wav = recording(dir.path(), &VARIANTS[0], &["scan the Downloads folder", "list the files in Music"]);
    let before = s.events();
    let (code, results) = listen(&s, &wav, &[]);
    assert_eq!(code, 0, "{results:?}");
    assert_eq!(results.len(), 2, "{results:?}");
    let (_, all) = s.json(&["ledger", "show", "--since", &(before + 1).to_string()]);
    let written: Vec<Value> = all["events"].as_array().cloned().unwrap_or_default();
    let mut found = Vec::new();
    for r in &results {
        assert_eq!(r["outcome"], "committed", "{r}");
        let corr = r["corr"].as_str().unwrap();
        let (_, mine) = s.json(&["ledger", "show", "--corr", corr]);
        let mine: Vec<Value> = mine["events"].as_array().cloned().unwrap_or_default();
        assert!(mine.iter().any(|e| e["kind"] == "committed"), "{corr}: {mine:?}");
        found.extend(mine.iter().map(|e| e["seq"].as_u64().unwrap()));
    }
    assert_ne!(results[0]["corr"], results[1]["corr"], "two utterances, two requests");
    let mut all_seqs: Vec<u64> = written.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    found.sort_unstable();
    all_seqs.sort_unstable();
    assert_eq!(found, all_seqs, "every event the recording caused belongs to one of its two requests");
}
