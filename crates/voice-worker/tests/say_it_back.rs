//! Say it back: the earcons and the spoken reply go through the real output path and are heard.
//!
//! This machine has no sound card, so the worker plays to a private PulseAudio server's null
//! sink (the virtual microphone's, `common::VirtualMic`), and `parec` records that sink's
//! monitor — what a loudspeaker would have played. For the three ways a turn ends (committed,
//! refused, waiting for approval) the worker plays the turn's earcon and says a reply; the
//! recording must hold each: a short tone, then speech of about the sentence's length.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{VirtualMic, Worker};
use smart_voice::protocol::{DeviceStatus, Earcon, LoadVoice, Request};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// Records the null sink's monitor into `wav` until [`stop`].
fn record(mic: &VirtualMic, wav: &Path) -> Child {
    Command::new("parec")
        .args(["--device=vsink.monitor", "--rate=16000", "--channels=1", "--format=s16le", "--file-format=wav"])
        .arg(wav)
        .envs(mic.env())
        .stdout(Stdio::null())
        .spawn()
        .expect("parec (pulseaudio-utils) is missing: scripts/setup.sh installs it")
}

/// Stops `parec` the way Ctrl-C would, so it finishes the WAV header.
fn stop(mut rec: Child) {
    let _ = Command::new("kill").args(["-INT", &rec.id().to_string()]).status();
    let _ = rec.wait();
}

/// Stretches of sound in `samples` (16 kHz): (start, length) in ms, louder than -45 dBFS in
/// 20 ms frames, with gaps under 250 ms bridged.
fn stretches(samples: &[f32]) -> Vec<(u64, u64)> {
    let frame = 320;
    let loud: Vec<bool> = samples
        .chunks(frame)
        .map(|c| {
            let rms = (c.iter().map(|s| s * s).sum::<f32>() / c.len() as f32).sqrt();
            20.0 * rms.max(1e-9).log10() > -45.0
        })
        .collect();
    let mut out: Vec<(u64, u64)> = vec![];
    for (i, l) in loud.iter().enumerate() {
        if !l {
            continue;
        }
        let at = i as u64 * 20;
        match out.last_mut() {
            Some((start, len)) if at <= *start + *len + 250 => *len = at + 20 - *start,
            _ => out.push((at, 20)),
        }
    }
    out
}

#[test]
fn each_turn_s_earcon_and_reply_are_played_to_the_output() {
    let _serial = common::serial();
    let dir = tempfile::tempdir().unwrap();
    let mic = VirtualMic::start();
    let mut w = Worker::spawn(&mic.env());
    let loaded = w.load(LoadVoice { speak: true, ..common::load_request() });
    let DeviceStatus::Available { name } = &loaded.output else { panic!("no output on the null sink: {loaded:?}") };
    assert!(name.contains("speech") && !name.contains("earcons only"), "the output has no speech: {name}");
    let wav = dir.path().join("played.wav");
    let rec = record(&mic, &wav);
    std::thread::sleep(Duration::from_millis(500));
    let turns = [
        (Earcon::Accepted, "Done. I moved two files into Archive."),
        (Earcon::Refused, "I can't do that: the folder is outside the ones you allowed."),
        (Earcon::NeedsApproval, "This needs your approval in SMART."),
    ];
    for (earcon, reply) in turns {
        w.ok(Request::Earcon { kind: earcon });
        // Long enough after the tone that the two are told apart.
        std::thread::sleep(Duration::from_millis(1_100));
        w.ok(Request::Speak { text: reply.to_string() });
        std::thread::sleep(Duration::from_millis(5_000));
    }
    stop(rec);
    let samples = {
        let mut r = hound::WavReader::open(&wav).expect("parec wrote no WAV");
        r.samples::<i16>().map(|s| f32::from(s.unwrap()) / 32768.0).collect::<Vec<f32>>()
    };
    let found = stretches(&samples);
    eprintln!("played ({} ms recorded): {found:?} (start ms, length ms)", samples.len() / 16);
    // Each turn: a tone of a few hundred ms, then the reply (a sentence may pause at a colon,
    // so its stretches are added up until the next tone).
    let mut heard: Vec<(u64, u64)> = vec![]; // (tone ms, speech ms) per turn
    for &(_, len) in &found {
        match heard.last_mut() {
            _ if len <= 500 => heard.push((len, 0)),
            Some((_, speech)) => *speech += len,
            None => panic!("speech before any earcon: {found:?}"),
        }
    }
    assert_eq!(heard.len(), 3, "three earcons, each followed by its reply: {found:?}");
    for ((tone, speech), (_, reply)) in heard.iter().zip(turns) {
        assert!(*tone >= 60, "{reply:?}: its earcon lasted {tone} ms");
        let words = reply.split_whitespace().count() as u64;
        // espeak-ng at 165 words a minute: about 360 ms a word; allow half to twice that.
        assert!((words * 180..=words * 730).contains(speech), "{reply:?} lasted {speech} ms: {found:?}");
    }
}
