//! Spoken replies and earcons — optional, and silent rather than broken without a speaker.
//!
//! The kernel's answer is always shown as text; speech is a convenience on top. So the output is
//! opened once, at load, and whatever is missing (no audio device, no speech service) is
//! reported in the `loaded` event and then quietly skipped: a reply that cannot be spoken is
//! still on the screen. Earcons are short tone patterns generated here (no sound files to
//! ship): rising for listening, a single high tone for accepted, falling for refused, two
//! pulses for needs-approval.
//!
//! Speech uses the platform's service (`tts`: speech-dispatcher on Linux, AVFoundation, SAPI)
//! when there is one. A Linux desktop often has none running, while espeak-ng — which SMART's
//! setup installs anyway, for its spoken tests — is there: then the reply is synthesised by
//! espeak-ng into a WAV file and played through the same output stream as the earcons, so a
//! reply is heard wherever an earcon is.

use rodio::Source;
use smart_voice::protocol::{DeviceStatus, Earcon};
use std::time::Duration;

pub struct Output {
    stream: Option<rodio::OutputStream>,
    tts: Option<tts::Tts>,
    /// Playing espeak-ng's speech (without a platform service): a reply replaces the last.
    espeak: Option<rodio::Sink>,
    pub status: DeviceStatus,
}

/// Whether espeak-ng can be run.
fn espeak_available() -> bool {
    std::process::Command::new("espeak-ng")
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// `text` said by espeak-ng, as 16 kHz mono samples.
fn espeak(text: &str) -> Result<Vec<f32>, String> {
    let wav = std::env::temp_dir().join(format!("smart-voice-reply-{}.wav", std::process::id()));
    let status = std::process::Command::new("espeak-ng")
        .args(["-v", "en-us", "-s", "165", "-w"])
        .arg(&wav)
        // After `--`, a reply that begins with "-" is text, not an option.
        .arg("--")
        .arg(text)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map_err(|e| format!("espeak-ng: {e}"))?;
    if !status.success() {
        return Err(format!("espeak-ng exited with {status}"));
    }
    let samples = crate::audio::read_wav(&wav.to_string_lossy());
    let _ = std::fs::remove_file(&wav);
    samples
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
        Output { stream: None, tts: None, espeak: None, status: DeviceStatus::Off }
    }

    pub fn open() -> Output {
        let stream = rodio::OutputStreamBuilder::open_default_stream();
        let tts = tts::Tts::default();
        // Looked for once, and only when there is no platform speech.
        let espeak_only = tts.is_err() && espeak_available();
        let status = match (&stream, &tts) {
            (Ok(_), Ok(_)) => DeviceStatus::Available { name: "default output, platform speech".into() },
            (Ok(_), Err(_)) if espeak_only => {
                DeviceStatus::Available { name: "default output, speech by espeak-ng".into() }
            }
            (Ok(_), Err(e)) => DeviceStatus::Available {
                name: format!("default output ({}: no speech service: {e})", smart_voice::protocol::EARCONS_ONLY),
            },
            (Err(e), _) => {
                DeviceStatus::Unavailable { reason: format!("no audio output: {e}; replies are shown as text only") }
            }
        };
        let espeak = match (&stream, &tts) {
            (Ok(s), Err(_)) if espeak_only => Some(rodio::Sink::connect_new(s.mixer())),
            _ => None,
        };
        Output {
            stream: stream.ok(),
            tts: if matches!(status, DeviceStatus::Available { .. }) { tts.ok() } else { None },
            espeak,
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
        let Some(sink) = &self.espeak else { return false };
        match espeak(text) {
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
