//! Spoken replies and earcons — optional, and silent rather than broken without a speaker.
//!
//! The kernel's answer is always shown as text; speech is a convenience on top. So the output is
//! opened once, at load, and whatever is missing (no audio device, no speech service) is
//! reported in the `loaded` event and then quietly skipped: a reply that cannot be spoken is
//! still on the screen. Earcons are short tone patterns generated here (no sound files to
//! ship): rising for listening, a single high tone for accepted, falling for refused, two
//! pulses for needs-approval.

use rodio::Source;
use smart_voice::protocol::{DeviceStatus, Earcon};
use std::time::Duration;

pub struct Output {
    stream: Option<rodio::OutputStream>,
    tts: Option<tts::Tts>,
    pub status: DeviceStatus,
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
        Output { stream: None, tts: None, status: DeviceStatus::Off }
    }

    pub fn open() -> Output {
        let stream = rodio::OutputStreamBuilder::open_default_stream();
        let tts = tts::Tts::default();
        let status = match (&stream, &tts) {
            (Ok(_), Ok(_)) => DeviceStatus::Available { name: "default output, platform speech".into() },
            (Ok(_), Err(e)) => {
                DeviceStatus::Available { name: format!("default output (earcons only: no speech service: {e})") }
            }
            (Err(e), _) => {
                DeviceStatus::Unavailable { reason: format!("no audio output: {e}; replies are shown as text only") }
            }
        };
        Output {
            stream: stream.ok(),
            tts: if matches!(status, DeviceStatus::Available { .. }) { tts.ok() } else { None },
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
        match &mut self.tts {
            Some(t) => t.speak(text, true).is_ok(),
            None => false,
        }
    }
}
