//! The microphone, through cpal, as 16 kHz mono chunks on a channel.
//!
//! cpal calls back on its own audio thread with whatever format the device has; that callback
//! only converts to f32, downmixes and sends — no allocation-heavy work, no locks the main loop
//! holds — and the main loop resamples. A device that fails (unplugged, taken away by the
//! system) sends an error instead, which the worker reports as `input_lost`.

use crate::audio::downmix;
use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
use cpal::{SampleFormat, Stream};
use std::sync::mpsc::Sender;

pub enum Captured {
    /// Mono samples at `rate`.
    Samples {
        rate: u32,
        samples: Vec<f32>,
    },
    Failed(String),
}

pub struct Capture {
    _stream: Stream,
    pub rate: u32,
}

/// The default input device's name, or why there is none.
pub fn probe() -> Result<String, String> {
    let host = cpal::default_host();
    let device = host.default_input_device().ok_or("no microphone: the system has no default input device")?;
    device
        .default_input_config()
        .map_err(|e| format!("no microphone: the default input device cannot be used ({e})"))?;
    Ok(device.name().unwrap_or_else(|_| "default input".into()))
}

pub fn open(tx: Sender<crate::Msg>) -> Result<Capture, String> {
    let host = cpal::default_host();
    let device = host.default_input_device().ok_or("no microphone: the system has no default input device")?;
    let config = device
        .default_input_config()
        .map_err(|e| format!("no microphone: the default input device cannot be used ({e})"))?;
    let name = device.name().unwrap_or_else(|_| "default input".into());
    let rate = config.sample_rate().0;
    let channels = usize::from(config.channels());
    let err_tx = tx.clone();
    let on_error = move |e: cpal::StreamError| {
        let _ = err_tx.send(crate::Msg::Audio(Captured::Failed(e.to_string())));
    };
    let stream_config = config.config();
    macro_rules! build {
        ($t:ty, $conv:expr) => {{
            let tx = tx.clone();
            device.build_input_stream(
                &stream_config,
                move |data: &[$t], _: &cpal::InputCallbackInfo| {
                    let f: Vec<f32> = data.iter().map($conv).collect();
                    let _ = tx.send(crate::Msg::Audio(Captured::Samples { rate, samples: downmix(&f, channels) }));
                },
                on_error,
                None,
            )
        }};
    }
    let stream = match config.sample_format() {
        SampleFormat::F32 => build!(f32, |s: &f32| *s),
        SampleFormat::I16 => build!(i16, |s: &i16| f32::from(*s) / 32768.0),
        SampleFormat::U16 => build!(u16, |s: &u16| (f32::from(*s) - 32768.0) / 32768.0),
        SampleFormat::I32 => build!(i32, |s: &i32| *s as f32 / 2_147_483_648.0),
        other => return Err(format!("the microphone's sample format {other} is not supported")),
    }
    .map_err(|e| format!("cannot open the microphone {name}: {e}"))?;
    stream.play().map_err(|e| format!("cannot start the microphone {name}: {e}"))?;
    Ok(Capture { _stream: stream, rate })
}
