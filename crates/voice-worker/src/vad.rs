//! Silero VAD through whisper.cpp, fed as a stream.
//!
//! whisper.cpp's VAD runs over a buffer and resets the model's recurrent state at the start of
//! each call, which suits files, not a microphone. So the stream is fed in small steps, each
//! call seeing the new frames behind a short stretch of the audio before them (`CONTEXT`
//! frames) so the model is warmed up when it reaches them; only the new frames' probabilities
//! are kept. That costs a few times the model's real-time work (Silero is tiny: well under a
//! millisecond a frame) and gives every frame a probability computed with context, from a file
//! or a microphone alike.

use smart_voice::endpoint::FRAME_SAMPLES;
use std::time::{Duration, Instant};
use whisper_rs::{WhisperVadContext, WhisperVadContextParams};

/// Frames of earlier audio in front of each step.
const CONTEXT: usize = 16;
/// New frames per model call (96 ms): small enough for a prompt speech start.
const STEP: usize = 3;

/// Speech probabilities per frame from a stream of samples: what the listener needs of a VAD
/// (and what its tests give it without the model).
pub trait Scores {
    /// Probabilities for the frames this audio completes; a model that works in steps may keep
    /// some for later.
    fn push(&mut self, samples: &[f32]) -> Result<Vec<f32>, String>;
    /// Probabilities for every complete frame still kept for later: a decision is due now
    /// (a key came up) and nothing more will come before it.
    fn catch_up(&mut self) -> Result<Vec<f32>, String>;
}

pub struct Vad {
    ctx: WhisperVadContext,
    /// The last `CONTEXT` frames already scored, then the new ones not yet scored.
    window: Vec<f32>,
    scored: usize,
    /// Time spent in the model, reset by [`Vad::take_time`].
    spent: Duration,
}

impl Vad {
    pub fn load(path: &str, threads: i32) -> Result<Vad, String> {
        if !std::path::Path::new(path).is_file() || path.contains('\0') {
            return Err(format!("the VAD model {path} does not exist (fetch it with `smart models fetch silero-vad`)"));
        }
        let mut params = WhisperVadContextParams::new();
        params.set_n_threads(threads.max(1));
        params.set_use_gpu(false);
        let ctx = WhisperVadContext::new(path, params)
            .map_err(|e| format!("the VAD could not load {path}: {e:?} (is it whisper.cpp's ggml Silero file?)"))?;
        Ok(Vad { ctx, window: vec![], scored: 0, spent: Duration::ZERO })
    }

    /// Speech probabilities for every [`STEP`] of complete frames of new audio.
    pub fn push(&mut self, samples: &[f32]) -> Result<Vec<f32>, String> {
        self.window.extend_from_slice(samples);
        let mut out = vec![];
        while self.window.len() / FRAME_SAMPLES - self.scored >= STEP {
            self.score(STEP, &mut out)?;
        }
        Ok(out)
    }

    /// Probabilities for the complete frames [`Vad::push`] keeps until a step is full.
    pub fn catch_up(&mut self) -> Result<Vec<f32>, String> {
        let mut out = vec![];
        let unscored = self.window.len() / FRAME_SAMPLES - self.scored;
        if unscored > 0 {
            self.score(unscored, &mut out)?;
        }
        Ok(out)
    }

    /// Scores the next `frames` frames behind the context before them.
    fn score(&mut self, frames: usize, out: &mut Vec<f32>) -> Result<(), String> {
        let end = (self.scored + frames) * FRAME_SAMPLES;
        let started = Instant::now();
        self.ctx.detect_speech(&self.window[..end]).map_err(|e| format!("VAD failed: {e:?}"))?;
        self.spent += started.elapsed();
        let probs = self.ctx.probabilities();
        out.extend_from_slice(&probs[probs.len().saturating_sub(frames)..]);
        self.scored += frames;
        // Keep CONTEXT scored frames in front of whatever comes next.
        let drop = self.scored.saturating_sub(CONTEXT);
        self.window.drain(..drop * FRAME_SAMPLES);
        self.scored -= drop;
        Ok(())
    }

    /// Time spent in the model since the last call.
    pub fn take_time(&mut self) -> Duration {
        std::mem::take(&mut self.spent)
    }

    pub fn reset(&mut self) {
        self.window.clear();
        self.scored = 0;
    }
}

impl Scores for Vad {
    fn push(&mut self, samples: &[f32]) -> Result<Vec<f32>, String> {
        Vad::push(self, samples)
    }
    fn catch_up(&mut self) -> Result<Vec<f32>, String> {
        Vad::catch_up(self)
    }
}
