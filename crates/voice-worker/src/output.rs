//! Spoken replies and earcons — optional, and silent rather than broken without a speaker.
//!
//! The kernel's answer is always shown as text; speech is a convenience on top. So the output is
//! opened once, at load, and whatever is missing (no audio device, no speech service) is
//! reported in the `loaded` event and then quietly skipped: a reply that cannot be spoken is
//! still on the screen. Earcons are short tone patterns generated here (no sound files to
//! ship): rising for listening, a single high tone for accepted, falling for refused, two
//! pulses for needs-approval.
//!
//! Speech uses the platform's service (`tts`: speech-dispatcher on Linux, SAPI on Windows) when
//! there is one. A Linux desktop often has none running, while espeak-ng — which SMART's setup
//! installs anyway, for its spoken tests — is there: then the reply is synthesised by espeak-ng
//! into a WAV file and played through the same output stream as the earcons, so a reply is
//! heard wherever an earcon is. macOS's service (AVFoundation) speaks only from a thread that
//! runs an event loop, which this worker (a pipe-driven console program) does not: there the
//! reply is synthesised the same way by `say`, which is part of macOS.

use rodio::Source;
use smart_voice::protocol::{DeviceStatus, Earcon};
use std::time::Duration;

pub struct Output {
    stream: Option<rodio::OutputStream>,
    tts: Option<tts::Tts>,
    /// Playing synthesised speech (without a platform service): a reply replaces the last.
    synth: Option<rodio::Sink>,
    pub status: DeviceStatus,
}

/// A program that writes speech to a WAV file, for systems or desktops without a usable
/// platform service.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Synth {
    Espeak,
    MacSay,
}

/// This system's synthesiser.
const SYNTH: Synth = if cfg!(target_os = "macos") { Synth::MacSay } else { Synth::Espeak };

/// Whether the platform's speech service is tried at all (not on macOS: see the module essay).
const PLATFORM_SPEECH: bool = !cfg!(target_os = "macos");

impl Synth {
    fn name(self) -> &'static str {
        match self {
            Synth::Espeak => "espeak-ng",
            Synth::MacSay => "macOS say",
        }
    }

    fn program(self) -> &'static str {
        match self {
            Synth::Espeak => "espeak-ng",
            Synth::MacSay => "/usr/bin/say",
        }
    }

    /// Arguments that answer quickly when the program works.
    fn probe(self) -> &'static [&'static str] {
        match self {
            Synth::Espeak => &["--version"],
            Synth::MacSay => &["-v", "?"],
        }
    }

    /// Arguments that write speech to `wav`: espeak-ng takes the text after `--` (so a reply
    /// that begins with "-" is text, not an option); `say` reads it from standard input (`-f -`).
    fn args(self, text: &str, wav: &std::path::Path) -> Vec<std::ffi::OsString> {
        let wav = wav.as_os_str().to_os_string();
        match self {
            Synth::Espeak => {
                vec!["-v".into(), "en-us".into(), "-s".into(), "165".into(), "-w".into(), wav, "--".into(), text.into()]
            }
            Synth::MacSay => vec![
                "--file-format=WAVE".into(),
                "--data-format=LEI16@16000".into(),
                "-o".into(),
                wav,
                "-f".into(),
                "-".into(),
            ],
        }
    }

    /// Whether the text goes to standard input rather than the arguments.
    fn reads_stdin(self) -> bool {
        self == Synth::MacSay
    }

    fn available(self) -> bool {
        std::process::Command::new(self.program())
            .args(self.probe())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    /// `text` said, as 16 kHz mono samples.
    fn say(self, text: &str) -> Result<Vec<f32>, String> {
        use std::io::Write;
        let wav = std::env::temp_dir().join(format!("smart-voice-reply-{}.wav", std::process::id()));
        let mut child = std::process::Command::new(self.program())
            .args(self.args(text, &wav))
            .stdin(if self.reads_stdin() { std::process::Stdio::piped() } else { std::process::Stdio::null() })
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| format!("{}: {e}", self.name()))?;
        if let Some(mut stdin) = child.stdin.take() {
            stdin.write_all(text.as_bytes()).map_err(|e| format!("{}: {e}", self.name()))?;
        }
        let status = child.wait().map_err(|e| format!("{}: {e}", self.name()))?;
        if !status.success() {
            return Err(format!("{} exited with {status}", self.name()));
        }
        let samples = crate::audio::read_wav(&wav.to_string_lossy());
        let _ = std::fs::remove_file(&wav);
        samples
    }
}

/// (frequency Hz, milliseconds) steps; 0 Hz is a pause.
pub fn pattern(kind: Earcon) -> &'static [(f32, u64)] {
    match kind {
        Earcon::Listening => &[(660.0, 70), (880.0, 90)],
        Earcon::Accepted => &[(990.0, 110)],
        Earcon::Refused => &[(520.0, 90), (390.0, 140)],
        Earcon::NeedsApproval => &[(740.0, 80), (0.0, 60), (740.0, 80)],
    }
}

impl Output {
    pub fn off() -> Output {
        Output { stream: None, tts: None, synth: None, status: DeviceStatus::Off }
    }

    pub fn open() -> Output {
        let stream = rodio::OutputStreamBuilder::open_default_stream();
        let tts: Result<tts::Tts, String> = if PLATFORM_SPEECH {
            tts::Tts::default().map_err(|e| e.to_string())
        } else {
            Err("the platform's speech needs an event loop this worker does not run".into())
        };
        // Looked for once, and only when there is no platform speech.
        let synth_only = tts.is_err() && SYNTH.available();
        let status = match (&stream, &tts) {
            (Ok(_), Ok(_)) => DeviceStatus::Available { name: "default output, platform speech".into() },
            (Ok(_), Err(_)) if synth_only => {
                DeviceStatus::Available { name: format!("default output, speech by {}", SYNTH.name()) }
            }
            (Ok(_), Err(e)) => DeviceStatus::Available {
                name: format!("default output ({}: no speech service: {e})", smart_voice::protocol::EARCONS_ONLY),
            },
            (Err(e), _) => {
                DeviceStatus::Unavailable { reason: format!("no audio output: {e}; replies are shown as text only") }
            }
        };
        let synth = match (&stream, &tts) {
            (Ok(s), Err(_)) if synth_only => Some(rodio::Sink::connect_new(s.mixer())),
            _ => None,
        };
        Output {
            stream: stream.ok(),
            tts: if matches!(status, DeviceStatus::Available { .. }) { tts.ok() } else { None },
            synth,
            status,
        }
    }

    pub fn earcon(&self, kind: Earcon) {
        let Some(stream) = &self.stream else { return };
        let mut at = Duration::ZERO;
        for (hz, ms) in pattern(kind) {
            let d = Duration::from_millis(*ms);
            if *hz > 0.0 {
                let tone = rodio::source::SineWave::new(*hz).take_duration(d).amplify(0.15).delay(at);
                stream.mixer().add(tone);
            }
            at += d;
        }
    }

    /// Speaks `text` (interrupting a reply still being spoken). Nothing happens without speech.
    pub fn speak(&mut self, text: &str) -> bool {
        if let Some(t) = &mut self.tts {
            return t.speak(text, true).is_ok();
        }
        let Some(sink) = &self.synth else { return false };
        match SYNTH.say(text) {
            Ok(samples) => {
                if !sink.empty() {
                    sink.stop();
                }
                sink.append(rodio::buffer::SamplesBuffer::new(1, 16_000, samples));
                sink.play();
                true
            }
            Err(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (issue 19): macOS's platform speech was tried from a worker without an event
    /// loop, where it never speaks; there `say` writes the WAV instead.
    #[test]
    fn each_system_synthesises_with_a_program_it_has() {
        assert_eq!(SYNTH == Synth::MacSay, cfg!(target_os = "macos"));
        assert_eq!(PLATFORM_SPEECH, !cfg!(target_os = "macos"));
        let wav = std::path::Path::new("/tmp/r.wav");
        let say = Synth::MacSay.args("-rf everything", wav);
        assert!(say.iter().any(|a| a == "--data-format=LEI16@16000") && say.iter().any(|a| a == "/tmp/r.wav"));
        assert!(Synth::MacSay.reads_stdin() && !say.iter().any(|a| a == "-rf everything"), "the text goes to stdin");
        let espeak = Synth::Espeak.args("-rf everything", wav);
        assert_eq!(&espeak[espeak.len() - 2..], ["--", "-rf everything"], "after --, text is never an option");
    }
}
