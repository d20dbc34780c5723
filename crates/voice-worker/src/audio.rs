//! Audio in whatever shape it arrives, brought to what the models expect: 16 kHz mono f32.
//!
//! Microphones give 44.1 or 48 kHz, often stereo, as i16, u16 or f32; WAV files anything.
//! whisper and Silero want 16 kHz mono. Resampling is done with rubato (a maintained FFT
//! resampler) rather than by dropping samples, which aliases and measurably hurts recognition.

use rubato::{FftFixedIn, Resampler};
use smart_voice::endpoint::SAMPLE_RATE;

/// Turns a stream at `rate` Hz into 16 kHz, chunk by chunk.
pub struct To16k {
    inner: Option<FftFixedIn<f32>>,
    pending: Vec<f32>,
    /// Output samples still to drop: the resampler's delay, so sample 0 out is sample 0 in.
    skip: usize,
    rate: u32,
    taken: u64,
    given: u64,
}

const CHUNK: usize = 1024;

impl To16k {
    pub fn new(rate: u32) -> Result<To16k, String> {
        if rate == 0 {
            return Err("a sample rate of 0 Hz".into());
        }
        if rate == SAMPLE_RATE {
            return Ok(To16k { inner: None, pending: vec![], skip: 0, rate, taken: 0, given: 0 });
        }
        let r = FftFixedIn::<f32>::new(rate as usize, SAMPLE_RATE as usize, CHUNK, 2, 1)
            .map_err(|e| format!("cannot resample {rate} Hz to {SAMPLE_RATE} Hz: {e}"))?;
        let skip = r.output_delay();
        Ok(To16k { inner: Some(r), pending: vec![], skip, rate, taken: 0, given: 0 })
    }

    pub fn push(&mut self, samples: &[f32]) -> Vec<f32> {
        let Some(r) = &mut self.inner else { return samples.to_vec() };
        self.taken += samples.len() as u64;
        self.pending.extend_from_slice(samples);
        let mut out = vec![];
        while self.pending.len() >= r.input_frames_next() {
            let n = r.input_frames_next();
            match r.process(&[&self.pending[..n]], None) {
                Ok(mut o) => out.append(&mut o[0]),
                Err(e) => eprintln!("smart-voice-worker: resampler: {e}"),
            }
            self.pending.drain(..n);
        }
        self.drop_delay(out)
    }

    /// The rest: the tail and the resampler's delay flushed through, cut so the whole output
    /// is exactly as long as the input at 16 kHz.
    pub fn finish(&mut self) -> Vec<f32> {
        let Some(r) = &mut self.inner else { return vec![] };
        let mut out = vec![];
        let tail = std::mem::take(&mut self.pending);
        if let Ok(mut o) = r.process_partial(Some(&[tail.as_slice()]), None) {
            out.append(&mut o[0]);
        }
        for _ in 0..2 {
            if let Ok(mut o) = r.process_partial::<&[f32]>(None, None) {
                out.append(&mut o[0]);
            }
        }
        let before = self.given;
        let mut out = self.drop_delay(out);
        let want = self.taken * u64::from(SAMPLE_RATE) / u64::from(self.rate);
        out.truncate(want.saturating_sub(before) as usize);
        self.given = before + out.len() as u64;
        out
    }

    fn drop_delay(&mut self, mut out: Vec<f32>) -> Vec<f32> {
        let n = self.skip.min(out.len());
        self.skip -= n;
        out.drain(..n);
        self.given += out.len() as u64;
        out
    }
}

/// Interleaved frames of `channels` to mono by averaging.
pub fn downmix(interleaved: &[f32], channels: usize) -> Vec<f32> {
    if channels <= 1 {
        return interleaved.to_vec();
    }
    interleaved.chunks(channels).map(|f| f.iter().sum::<f32>() / f.len() as f32).collect()
}

/// A WAV file as 16 kHz mono.
pub fn read_wav(path: &str) -> Result<Vec<f32>, String> {
    let mut reader = hound::WavReader::open(path).map_err(|e| format!("cannot read {path} as WAV: {e}"))?;
    let spec = reader.spec();
    let samples: Vec<f32> = match spec.sample_format {
        hound::SampleFormat::Float => {
            reader.samples::<f32>().collect::<Result<_, _>>().map_err(|e| format!("{path}: {e}"))?
        }
        hound::SampleFormat::Int => {
            let scale = 1.0 / (1u64 << (spec.bits_per_sample.clamp(1, 32) - 1)) as f32;
            reader
                .samples::<i32>()
                .map(|s| s.map(|s| s as f32 * scale))
                .collect::<Result<_, _>>()
                .map_err(|e| format!("{path}: {e}"))?
        }
    };
    if spec.channels == 0 {
        return Err(format!("{path}: a WAV file with no channels"));
    }
    let mono = downmix(&samples, usize::from(spec.channels));
    let mut r = To16k::new(spec.sample_rate).map_err(|e| format!("{path}: {e}"))?;
    let mut out = r.push(&mono);
    out.extend(r.finish());
    Ok(out)
}

/// Loudness in dBFS (0 = full scale), for the level meter.
pub fn rms_dbfs(samples: &[f32]) -> f32 {
    if samples.is_empty() {
        return -120.0;
    }
    let ms = samples.iter().map(|s| s * s).sum::<f32>() / samples.len() as f32;
    (10.0 * ms.max(1e-12).log10()).max(-120.0)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn tone(rate: u32, secs: f32, hz: f32) -> Vec<f32> {
        (0..(rate as f32 * secs) as usize)
            .map(|i| (i as f32 * hz * std::f32::consts::TAU / rate as f32).sin() * 0.5)
            .collect()
    }

    #[test]
    fn resampling_48k_keeps_duration_and_pitch() {
        let input = tone(48_000, 1.0, 440.0);
        let mut r = To16k::new(48_000).unwrap();
        let mut out = vec![];
        for chunk in input.chunks(777) {
            out.extend(r.push(chunk));
        }
        out.extend(r.finish());
        assert!((out.len() as i64 - 16_000).abs() < 40, "{}", out.len());
        // Zero crossings of a 440 Hz tone over one second: ~880.
        let crossings = out.windows(2).filter(|w| (w[0] < 0.0) != (w[1] < 0.0)).count();
        assert!((860..900).contains(&crossings), "{crossings}");
    }

    #[test]
    fn levels_read_in_dbfs() {
        assert!((rms_dbfs(&vec![1.0; 100]) - 0.0).abs() < 0.01);
        assert!((rms_dbfs(&tone(16_000, 0.1, 100.0)) + 9.03).abs() < 0.2);
        assert_eq!(rms_dbfs(&[]), -120.0);
    }
}
