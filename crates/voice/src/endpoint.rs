//! Where an utterance starts and ends, decided from the VAD's per-frame speech probabilities.
//!
//! A VAD model says, every 32 ms, how likely that frame is speech. That is not yet an
//! utterance: a cough is a few voiced frames, a breath between words a few silent ones. This
//! module turns the frame stream into `speech start` and `speech end` with the usual
//! hysteresis — speech must last `min_speech_ms` to count, silence must last `min_silence_ms`
//! to end it, and probabilities between the two thresholds keep whatever state we are in — and
//! with a hard ceiling (`max_speech_ms`) so a stuck-open microphone cannot grow one utterance
//! without end.
//!
//! It is a transition table over (state, input), like the interaction state machine, so the
//! test can walk every pair. Time is the frame index on the audio clock, never the wall clock:
//! the same audio gives the same boundaries, from a file or a microphone.

use serde::{Deserialize, Serialize};

/// Samples per VAD frame at 16 kHz (Silero's window): 32 ms.
pub const FRAME_SAMPLES: usize = 512;
pub const SAMPLE_RATE: u32 = 16_000;
pub const FRAME_MS: u64 = (FRAME_SAMPLES as u64 * 1000) / SAMPLE_RATE as u64;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EndpointConfig {
    /// A frame at or above this probability is voiced.
    pub threshold: f32,
    /// A frame below this is silent; between the two a frame keeps the current state.
    pub silence_threshold: f32,
    /// Voiced time needed before an onset counts as speech (coughs, clicks).
    pub min_speech_ms: u64,
    /// Silence needed to end an utterance: the main term of end-of-speech latency.
    pub min_silence_ms: u64,
    /// An utterance longer than this is ended where it is.
    pub max_speech_ms: u64,
}

impl Default for EndpointConfig {
    fn default() -> Self {
        EndpointConfig {
            threshold: 0.5,
            silence_threshold: 0.35,
            min_speech_ms: 160,
            min_silence_ms: 400,
            max_speech_ms: 15_000,
        }
    }
}

impl EndpointConfig {
    /// A clear error for settings that would make the detector meaningless.
    pub fn validate(&self) -> Result<(), String> {
        let unit = |x: f32| (0.0..=1.0).contains(&x);
        if !unit(self.threshold) || !unit(self.silence_threshold) {
            return Err("VAD thresholds must be between 0 and 1".into());
        }
        if self.silence_threshold > self.threshold {
            return Err(format!(
                "the silence threshold ({}) must not exceed the speech threshold ({})",
                self.silence_threshold, self.threshold
            ));
        }
        if self.min_silence_ms < FRAME_MS || self.max_speech_ms < 1000 {
            return Err(format!("min_silence_ms must be at least {FRAME_MS} and max_speech_ms at least 1000"));
        }
        Ok(())
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    Silence,
    /// Voiced frames, not yet long enough to be speech.
    Onset,
    Speech,
    /// Silent frames after speech, not yet long enough to end it.
    Trailing,
}

/// A frame, classified against the thresholds and the state's timers.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Input {
    Voiced,
    /// A voiced frame that brings an onset to `min_speech_ms`.
    VoicedEnough,
    Unvoiced,
    /// A silent frame that brings trailing silence to `min_silence_ms`.
    UnvoicedEnough,
    Ambiguous,
    /// The utterance reached `max_speech_ms`.
    TooLong,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Action {
    None,
    /// Remember this frame as where an onset or a silence began.
    Mark,
    StartSpeech,
    EndSpeech,
    ForceEnd,
}

use Action as A;
use Input::*;
use State::*;

pub const STATES: [State; 4] = [Silence, Onset, Speech, Trailing];
pub const INPUTS: [Input; 6] = [Voiced, VoicedEnough, Unvoiced, UnvoicedEnough, Ambiguous, TooLong];

/// Every (state, input) pair the classifier can produce, and what follows. Pairs that cannot
/// occur (a `TooLong` in silence) are absent and [`Endpointer::classify`] never yields them.
const TABLE: &[(State, Input, State, Action)] = &[
    (Silence, Voiced, Onset, A::Mark),
    (Silence, VoicedEnough, Speech, A::StartSpeech),
    (Silence, Unvoiced, Silence, A::None),
    (Silence, Ambiguous, Silence, A::None),
    (Onset, Voiced, Onset, A::None),
    (Onset, VoicedEnough, Speech, A::StartSpeech),
    (Onset, Unvoiced, Silence, A::None),
    (Onset, Ambiguous, Onset, A::None),
    (Speech, Voiced, Speech, A::None),
    (Speech, Ambiguous, Speech, A::None),
    (Speech, Unvoiced, Trailing, A::Mark),
    (Speech, UnvoicedEnough, Silence, A::EndSpeech),
    (Speech, TooLong, Silence, A::ForceEnd),
    (Trailing, Voiced, Speech, A::None),
    (Trailing, Ambiguous, Trailing, A::None),
    (Trailing, Unvoiced, Trailing, A::None),
    (Trailing, UnvoicedEnough, Silence, A::EndSpeech),
    (Trailing, TooLong, Silence, A::ForceEnd),
];

fn lookup(state: State, input: Input) -> Option<(State, Action)> {
    TABLE.iter().find(|(s, i, _, _)| *s == state && *i == input).map(|(_, _, n, a)| (*n, *a))
}

/// A boundary found in the frame stream, on the audio clock.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Boundary {
    /// Speech began at `at_ms` (the first voiced frame of the onset).
    Start { at_ms: u64 },
    /// Speech ended at `at_ms` (the first silent frame after it), decided `decided_ms` — the
    /// difference is the detector's hangover, part of end-of-speech latency.
    End { at_ms: u64, decided_ms: u64, forced: bool },
}

#[derive(Clone, Debug)]
pub struct Endpointer {
    config: EndpointConfig,
    state: State,
    /// Frames seen so far.
    frame: u64,
    /// Frame where the current onset or trailing silence began.
    mark: u64,
    /// Frame where the current utterance began.
    start: u64,
}

impl Endpointer {
    pub fn new(config: EndpointConfig) -> Endpointer {
        Endpointer { config, state: Silence, frame: 0, mark: 0, start: 0 }
    }

    pub fn state(&self) -> State {
        self.state
    }

    pub fn config(&self) -> &EndpointConfig {
        &self.config
    }

    /// Milliseconds of audio seen.
    pub fn now_ms(&self) -> u64 {
        self.frame * FRAME_MS
    }

    fn ms_since(&self, frame: u64) -> u64 {
        (self.frame + 1).saturating_sub(frame) * FRAME_MS
    }

    fn classify(&self, p: f32) -> Input {
        let c = &self.config;
        let in_speech = matches!(self.state, Speech | Trailing);
        if in_speech && self.ms_since(self.start) >= c.max_speech_ms {
            return TooLong;
        }
        if p >= c.threshold {
            let onset_from = if self.state == Onset { self.mark } else { self.frame };
            if !in_speech && self.ms_since(onset_from) >= c.min_speech_ms {
                return VoicedEnough;
            }
            Voiced
        } else if p < c.silence_threshold {
            let silent_from = if self.state == Trailing { self.mark } else { self.frame };
            if in_speech && self.ms_since(silent_from) >= c.min_silence_ms {
                return UnvoicedEnough;
            }
            Unvoiced
        } else {
            Ambiguous
        }
    }

    /// Feeds one frame's speech probability.
    pub fn push(&mut self, p: f32) -> Option<Boundary> {
        let input = self.classify(p);
        // Every pair `classify` yields is in the table (tested); were one missing, staying put
        // is the safe reading — it neither invents nor ends speech.
        let (next, action) = lookup(self.state, input).unwrap_or((self.state, A::None));
        let boundary = match action {
            A::None => None,
            A::Mark => {
                self.mark = self.frame;
                None
            }
            A::StartSpeech => {
                self.start = if self.state == Onset { self.mark } else { self.frame };
                Some(Boundary::Start { at_ms: self.start * FRAME_MS })
            }
            A::EndSpeech => {
                let at = if self.state == Trailing { self.mark } else { self.frame };
                Some(Boundary::End { at_ms: at * FRAME_MS, decided_ms: (self.frame + 1) * FRAME_MS, forced: false })
            }
            A::ForceEnd => Some(Boundary::End {
                at_ms: (self.frame + 1) * FRAME_MS,
                decided_ms: (self.frame + 1) * FRAME_MS,
                forced: true,
            }),
        };
        self.state = next;
        self.frame += 1;
        boundary
    }

    /// Ends an utterance in progress (the key was released, the file ended).
    pub fn flush(&mut self) -> Option<Boundary> {
        let b = match self.state {
            Speech | Trailing => {
                let at = if self.state == Trailing { self.mark } else { self.frame };
                Some(Boundary::End { at_ms: at * FRAME_MS, decided_ms: self.frame * FRAME_MS, forced: true })
            }
            Silence | Onset => None,
        };
        self.state = Silence;
        b
    }

    /// While speech trails off: where the silence began, on the audio clock — the `at_ms` the
    /// [`Boundary::End`] will carry if the silence lasts. `None` in any other state.
    pub fn trailing_since_ms(&self) -> Option<u64> {
        (self.state == Trailing).then_some(self.mark * FRAME_MS)
    }

    /// Whether any frame so far reached speech: a push-to-talk clip with none is not sent to
    /// whisper (which would otherwise invent words for silence).
    pub fn in_speech(&self) -> bool {
        matches!(self.state, Speech | Trailing)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    fn run(probs: &[f32]) -> Vec<Boundary> {
        let mut e = Endpointer::new(EndpointConfig::default());
        let mut out: Vec<Boundary> = probs.iter().filter_map(|p| e.push(*p)).collect();
        out.extend(e.flush());
        out
    }

    fn frames(p: f32, ms: u64) -> Vec<f32> {
        vec![p; (ms / FRAME_MS) as usize]
    }

    #[test]
    fn every_state_input_pair_is_in_the_table_once_except_the_impossible_ones() {
        let impossible = [
            (Silence, UnvoicedEnough),
            (Silence, TooLong),
            (Onset, UnvoicedEnough),
            (Onset, TooLong),
            (Speech, VoicedEnough),
            (Trailing, VoicedEnough),
        ];
        for s in STATES {
            for i in INPUTS {
                let n = TABLE.iter().filter(|(ts, ti, _, _)| *ts == s && *ti == i).count();
                let expected = usize::from(!impossible.contains(&(s, i)));
                assert_eq!(n, expected, "({s:?}, {i:?})");
            }
        }
    }

    #[test]
    fn the_classifier_never_yields_an_impossible_pair() {
        // Random-ish probability streams through the machine; every step must hit the table.
        let mut e = Endpointer::new(EndpointConfig { max_speech_ms: 1000, ..Default::default() });
        let mut x: u32 = 7;
        for _ in 0..20_000 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let p = ((x >> 16) % 100) as f32 / 100.0;
            let input = e.classify(p);
            assert!(lookup(e.state, input).is_some(), "{:?} {input:?}", e.state);
            e.push(p);
        }
    }

    #[test]
    fn an_utterance_starts_at_its_first_voiced_frame_and_ends_at_its_first_silent_one() {
        let mut p = frames(0.05, 320);
        p.extend(frames(0.9, 1600));
        p.extend(frames(0.05, 1000));
        let b = run(&p);
        assert_eq!(b.len(), 2, "{b:?}");
        assert_eq!(b[0], Boundary::Start { at_ms: 320 });
        let Boundary::End { at_ms, decided_ms, forced } = b[1] else { panic!() };
        assert_eq!(at_ms, 320 + 1600);
        assert!(!forced);
        let hangover = decided_ms - at_ms;
        assert!((400..400 + FRAME_MS).contains(&hangover), "{hangover}");
    }

    #[test]
    fn while_speech_trails_off_the_silence_start_is_the_end_the_boundary_will_carry() {
        // What the listener transcribes ahead on must be exactly the audio the end will cut.
        let mut e = Endpointer::new(EndpointConfig::default());
        let mut p = frames(0.05, 320);
        p.extend(frames(0.9, 1600));
        let mut trailing = vec![];
        let mut end = None;
        for prob in p.into_iter().chain(frames(0.05, 1000)) {
            if let Some(b @ Boundary::End { .. }) = e.push(prob) {
                end = Some(b);
            }
            trailing.push(e.trailing_since_ms());
        }
        let Some(Boundary::End { at_ms, .. }) = end else { panic!("no end: {trailing:?}") };
        let seen: Vec<u64> = trailing.iter().flatten().copied().collect();
        assert!(!seen.is_empty(), "never trailing");
        assert!(seen.iter().all(|t| *t == at_ms), "{seen:?} vs {at_ms}");
        assert_eq!(e.trailing_since_ms(), None, "after the end, nothing trails");
        // Speech that resumes is no longer trailing.
        let mut e = Endpointer::new(EndpointConfig::default());
        for prob in frames(0.9, 640).into_iter().chain(frames(0.05, 160)) {
            e.push(prob);
        }
        assert_eq!(e.trailing_since_ms(), Some(640));
        e.push(0.9);
        assert_eq!(e.trailing_since_ms(), None);
    }

    #[test]
    fn a_cough_shorter_than_min_speech_is_not_an_utterance() {
        let mut p = frames(0.05, 320);
        p.extend(frames(0.95, 96));
        p.extend(frames(0.05, 1000));
        assert!(run(&p).is_empty());
    }

    #[test]
    fn a_pause_between_words_shorter_than_min_silence_keeps_one_utterance() {
        let mut p = frames(0.9, 800);
        p.extend(frames(0.1, 320));
        p.extend(frames(0.9, 800));
        p.extend(frames(0.1, 800));
        let b = run(&p);
        assert_eq!(b.len(), 2, "{b:?}");
        assert!(matches!(b[1], Boundary::End { at_ms: 1920, forced: false, .. }), "{b:?}");
    }

    #[test]
    fn ambiguous_frames_keep_the_current_state() {
        let mut p = frames(0.9, 640);
        p.extend(frames(0.4, 1984)); // between the thresholds: still speech
        p.extend(frames(0.0, 640));
        let b = run(&p);
        assert!(matches!(b[1], Boundary::End { at_ms: 2624, .. }), "{b:?}");
        // ...and in silence they never start one.
        assert!(run(&frames(0.45, 3000)).is_empty());
    }

    #[test]
    fn a_microphone_stuck_open_is_cut_at_max_speech() {
        let b = run(&frames(0.99, 40_000));
        let ends: Vec<_> = b.iter().filter(|b| matches!(b, Boundary::End { .. })).collect();
        assert!(ends.len() >= 2, "{b:?}");
        assert!(matches!(ends[0], Boundary::End { forced: true, at_ms, .. } if (15_000..15_100).contains(at_ms)));
    }

    #[test]
    fn flush_ends_speech_in_progress_and_nothing_else() {
        let mut e = Endpointer::new(EndpointConfig::default());
        for p in frames(0.9, 640) {
            e.push(p);
        }
        assert!(matches!(e.flush(), Some(Boundary::End { forced: true, .. })));
        assert_eq!(e.flush(), None);
    }

    #[test]
    fn nonsense_settings_are_refused_with_a_reason() {
        let bad = EndpointConfig { silence_threshold: 0.8, ..Default::default() };
        assert!(bad.validate().unwrap_err().contains("must not exceed"));
        assert!(EndpointConfig { threshold: 1.5, ..Default::default() }.validate().is_err());
        assert!(EndpointConfig::default().validate().is_ok());
    }
}
