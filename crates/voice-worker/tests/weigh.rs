//! `Stt::weigh`, through the worker's `--score`: how likely whisper finds each of several texts
//! as one utterance, from one encoder pass (the wake word's acoustic check).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Command;

/// Each text's log-probability as `--score` prints it (`"text" logp/tokens | …`), the free
/// transcript's last.
fn scores(wav: &std::path::Path, texts: &[&str]) -> Vec<(f32, usize)> {
    let out = Command::new(env!("CARGO_BIN_EXE_smart-voice-worker"))
        .arg("--score")
        .arg(common::model("ggml-tiny.en.bin"))
        .arg(wav)
        .args(texts)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let line = String::from_utf8(out.stdout).unwrap();
    let parsed: Vec<(f32, usize)> = line
        .split(" | ")
        .filter_map(|part| {
            let (logp, tokens) = part.rsplit_once(' ')?.1.split_once('/')?;
            Some((logp.parse().ok()?, tokens.trim().parse().ok()?))
        })
        .collect();
    assert_eq!(parsed.len(), texts.len() + 1, "one score per text and the free transcript: {line}");
    assert!(line.contains("weighed in"), "{line}");
    parsed
}

#[test]
fn what_was_said_weighs_more_than_what_was_not_and_a_text_weighs_the_same_after_another() {
    let dir = tempfile::tempdir().unwrap();
    let wav = common::speak(dir.path(), "said", "hey smart, scan the music folder", "en-us", 140, 0.4, 1.0);
    let said = " Hey Smart, scan the music folder.";
    let s = scores(&wav, &[said, " Please read the old log file.", said, " Hey Smart."]);
    assert!(s.iter().all(|(l, n)| l.is_finite() && *l < 0.0 && *n > 0), "{s:?}");
    assert!(s[0].0 > s[1].0 + 10.0, "what was said is far likelier than another sentence: {s:?}");
    // The decoder's cache is rewound to where texts part: the same text weighs the same.
    assert!((s[0].0 - s[2].0).abs() < 0.01, "{s:?}");
    // A text that shares only a beginning with what was said (the phrase alone) is less likely
    // than all of it, and counts its own tokens.
    assert!(s[3].0 < s[0].0 && s[3].1 < s[0].1, "{s:?}");
}
