//! From a stream of 16 kHz samples to utterances: the part of listening that decides *what* to
//! transcribe.
//!
//! Three ways an utterance is bounded, one code path for all of them:
//! - **VAD** (a file, or the wake word's command): speech start and end come from the
//!   endpointer over Silero's per-frame probabilities;
//! - **push-to-talk**: the key bounds it, and the VAD says whether anything was said at all
//!   (whisper invents words for silence, so a silent press is reported as empty, not
//!   transcribed) and where the speech in it ended (see below);
//! - **wake word**: speech the VAD finds goes to the wake recogniser; once it hears the phrase,
//!   the rest of that speech, or the next utterance, is the command. With vosk the speech is
//!   fed to it as it comes; with whisper ([`Out::Spot`]) the first seconds of each stretch of
//!   speech are transcribed once — when the speech ends, or when it has gone on for
//!   [`SPOT_WINDOW_MS`] — and the worker tells the listener what it heard ([`Listener::woke`],
//!   [`Listener::not_woken`]). Speech that does not begin with the phrase is dropped whole, so a
//!   long conversation costs one short transcription per stretch of speech.
//!
//! In every mode the utterance begins with the pre-roll: audio from before the onset or the
//! press, so the first syllable is never cut. Times are samples on the audio clock.
//!
//! **Transcribing ahead.** An utterance the VAD ends is cut [`END_PAD_MS`] after its first
//! silent frame, but the end is only decided when the silence has lasted `min_silence_ms`
//! (400 ms). Between the two the audio whisper will get is already fixed, so once the silence
//! reaches the pad the listener hands that exact window out ([`Out::Ahead`]) and the worker
//! transcribes it while the VAD waits: when the end comes, the transcript is ready or nearly
//! so, whisper's ~300 ms overlapped with the wait. Speech that resumes moves the end, and the
//! early transcript, made of other audio, is not used. What is heard does not change — the same
//! samples go to whisper either way; only when they go. For audio at the microphone's pace
//! only: a file read as fast as it can be has no wait to overlap.
//!
//! A held key's utterance ends the same way when the VAD heard the speech end before the key
//! came up: [`END_PAD_MS`] after its last word, not at the release — the silence while the
//! finger finds the key is nothing whisper needs (and what it invents words for). So a person who
//! lets go a moment after they stop talking finds whisper already at work. A key released
//! mid-word, or before the silence reached the pad, cuts where it always did.

use crate::vad::Scores;
use crate::wake::{Wake, heard_phrase};
use smart_voice::PreRoll;
use smart_voice::endpoint::{Boundary, EndpointConfig, Endpointer, SAMPLE_RATE, State};
use smart_voice::protocol::Event;
use smart_voice::wake_phrase::ARMED_MS;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    Vad,
    PushToTalk,
    WakeWord,
}

/// Silence kept after the end of speech: whisper does better with a little room after the last
/// word.
const END_PAD_MS: u64 = 200;
/// Speech after the wake phrase was recognised mid-speech that is shorter than this is the
/// phrase's own last syllables (vosk's partial result names the phrase before its audio is
/// over), not a command said in the same breath.
const MIN_COMMAND_MS: u64 = 600;
/// An utterance is transcribed ahead again only for a silence this long after the one it was
/// last transcribed ahead for.
const AHEAD_AGAIN_MS: u64 = 1_000;
/// Level events while capturing.
const LEVEL_EVERY_MS: u64 = 100;
/// With whisper listening for the wake phrase: how much of a stretch of speech (pre-roll
/// included) is transcribed to find the phrase at its start while the speech goes on. The
/// phrase takes about a second; the window leaves room for a slow speaker and a filler.
pub const SPOT_WINDOW_MS: u64 = 3_000;

pub enum Out {
    Event(Event),
    /// Audio to transcribe, with where it lies on the audio clock. `strip` is a wake phrase the
    /// transcript may begin with.
    Utterance {
        audio: Vec<f32>,
        start_ms: u64,
        end_ms: u64,
        strip: Option<String>,
    },
    /// Wake mode with whisper: does this audio begin with the wake phrase? `live`: the speech
    /// is still going on, and the answer decides whether the rest of it is kept as the
    /// command; otherwise the speech has ended and the audio is all of it.
    Spot {
        audio: Vec<f32>,
        start_ms: u64,
        end_ms: u64,
        live: bool,
    },
    /// The person pressed and released the key without saying anything.
    Nothing {
        start_ms: u64,
        end_ms: u64,
    },
    /// What has been said so far, while the utterance goes on.
    Partial {
        audio: Vec<f32>,
    },
    /// The audio the utterance will be if the silence going on ends it: `end_ms` is where the
    /// silence began, and an [`Out::Utterance`] with the same audio may follow.
    Ahead {
        audio: Vec<f32>,
        start_ms: u64,
        end_ms: u64,
    },
}

struct Utterance {
    start: u64,
    audio: Vec<f32>,
    /// Begun where the wake phrase was recognised mid-speech (no pre-roll).
    after_wake: bool,
    /// Wake mode with whisper: speech not yet known to be addressed to SMART.
    candidate: bool,
    /// Its first [`SPOT_WINDOW_MS`] went to whisper while it went on.
    spot_asked: bool,
    /// Begins with the wake phrase, which the transcript drops.
    strip: bool,
    /// The silence start (ms) its audio was last handed out ahead for.
    ahead_at: Option<u64>,
}

impl Utterance {
    fn new(start: u64, audio: Vec<f32>) -> Utterance {
        Utterance { start, audio, after_wake: false, candidate: false, spot_asked: false, strip: false, ahead_at: None }
    }
}

pub struct Listener {
    mode: Mode,
    endpointer: Endpointer,
    preroll_ms: u64,
    ring: PreRoll,
    /// Samples seen.
    clock: u64,
    /// Where the VAD's current (or last) speech began.
    onset_ms: u64,
    utterance: Option<Utterance>,
    held: bool,
    speech_in_hold: bool,
    /// Wake mode: the phrase was heard; until this sample, the next speech is the command.
    armed_until: Option<u64>,
    /// Wake mode: speech is being fed to the wake recogniser.
    feeding_wake: bool,
    level: Vec<f32>,
    wake_phrase: Option<String>,
    /// Wake mode: whisper, not vosk, listens for the phrase ([`Out::Spot`]).
    spot: bool,
    /// Samples of utterance between partial transcripts; 0 for none.
    partial_every: usize,
    /// Utterance length at the last partial.
    partial_at: usize,
    /// Hand out an utterance's audio while the silence that may end it goes on ([`Out::Ahead`]).
    ahead: bool,
    /// Push-to-talk: where the VAD last ended speech while the key was held (its first silent
    /// frame, ms), until speech starts again.
    held_speech_end: Option<u64>,
    /// Push-to-talk: the sample the key last went down at.
    pressed_at: u64,
}

fn ms(samples: u64) -> u64 {
    samples * 1000 / u64::from(SAMPLE_RATE)
}

fn samples(ms: u64) -> u64 {
    ms * u64::from(SAMPLE_RATE) / 1000
}

impl Listener {
    pub fn new(mode: Mode, endpoint: EndpointConfig, preroll_ms: u32, wake_phrase: Option<String>) -> Listener {
        // The ring must reach back past the onset by the pre-roll even when speech is only
        // confirmed `min_speech_ms` and a VAD step later.
        let keep = u64::from(preroll_ms) + endpoint.min_speech_ms + 1_000;
        Listener {
            mode,
            endpointer: Endpointer::new(endpoint),
            preroll_ms: u64::from(preroll_ms),
            ring: PreRoll::new(keep as u32, SAMPLE_RATE),
            clock: 0,
            onset_ms: 0,
            utterance: None,
            held: false,
            speech_in_hold: false,
            armed_until: None,
            feeding_wake: false,
            level: vec![],
            wake_phrase,
            spot: false,
            partial_every: 0,
            partial_at: 0,
            ahead: false,
            held_speech_end: None,
            pressed_at: 0,
        }
    }

    /// Transcribing ahead (see the module's essay): for audio at the microphone's pace.
    pub fn transcribing_ahead(mut self, on: bool) -> Listener {
        self.ahead = on;
        self
    }

    /// Partial transcripts every `ms` of an utterance in progress.
    pub fn with_partials(mut self, ms: Option<u32>) -> Listener {
        self.partial_every = ms.map_or(0, |ms| samples(u64::from(ms)) as usize);
        self
    }

    /// Wake mode: whisper listens for the phrase ([`Out::Spot`]) instead of vosk.
    pub fn spotting(mut self) -> Listener {
        self.spot = true;
        self
    }

    pub fn now_ms(&self) -> u64 {
        ms(self.clock)
    }

    /// The ring's audio from sample `from` (clamped to what it still holds) to now.
    fn since(&self, from: u64) -> (u64, Vec<f32>) {
        let first = self.clock - self.ring.len() as u64;
        let from = from.max(first);
        (from, self.ring.last((self.clock - from) as usize))
    }

    pub fn push(&mut self, chunk: &[f32], vad: &mut impl Scores, wake: Option<&mut Wake>) -> Result<Vec<Out>, String> {
        let mut out = vec![];
        self.ring.push(chunk);
        self.clock += chunk.len() as u64;
        if let Some(u) = &mut self.utterance {
            u.audio.extend_from_slice(chunk);
        }
        if self.mode != Mode::Vad {
            self.level.extend_from_slice(chunk);
            if ms(self.level.len() as u64) >= LEVEL_EVERY_MS {
                let rms_dbfs = crate::audio::rms_dbfs(&self.level);
                self.level.clear();
                out.push(Out::Event(Event::Level { at_ms: self.now_ms(), rms_dbfs }));
            }
        }
        let mut wake = wake;
        if self.feeding_wake
            && let Some(w) = wake.as_deref_mut()
            && let Some(text) = w.feed(chunk)
            && self.on_wake_text(&text, true, &mut out)
        {
            w.reset();
        }
        if self.armed_until.is_some_and(|until| self.clock > until) && self.utterance.is_none() {
            self.armed_until = None;
        }
        for p in vad.push(chunk)? {
            if let Some(b) = self.endpointer.push(p) {
                self.on_boundary(b, wake.as_deref_mut(), &mut out);
            }
        }
        if self.held && self.endpointer.in_speech() {
            self.speech_in_hold = true;
        }
        if let Some(ahead) = self.ahead_window() {
            out.push(ahead);
        }
        if let Some(u) = &mut self.utterance
            && u.candidate
            && !u.spot_asked
            && ms(u.audio.len() as u64) >= SPOT_WINDOW_MS
        {
            u.spot_asked = true;
            let window = samples(SPOT_WINDOW_MS) as usize;
            let start_ms = ms(u.start);
            out.push(Out::Spot {
                audio: u.audio[..window].to_vec(),
                start_ms,
                end_ms: start_ms + SPOT_WINDOW_MS,
                live: true,
            });
        }
        if self.partial_every > 0
            && let Some(u) = &self.utterance
            && !u.candidate
            && (self.endpointer.in_speech() || self.held)
            && u.audio.len() >= self.partial_at + self.partial_every
        {
            self.partial_at = u.audio.len();
            out.push(Out::Partial { audio: u.audio.clone() });
        }
        if self.utterance.is_none() {
            self.partial_at = 0;
        }
        if self.held
            && ms(self.clock - self.utterance.as_ref().map_or(self.clock, |u| u.start))
                >= self.endpointer.config().max_speech_ms
        {
            out.extend(self.release(vad)?);
        }
        Ok(out)
    }

    fn on_boundary(&mut self, b: Boundary, wake: Option<&mut Wake>, out: &mut Vec<Out>) {
        if let Boundary::Start { at_ms } = b {
            self.onset_ms = at_ms;
        }
        match (self.mode, b) {
            (Mode::PushToTalk, Boundary::Start { .. }) => {
                self.speech_in_hold |= self.held;
                self.held_speech_end = None;
            }
            (Mode::PushToTalk, Boundary::End { at_ms, forced, .. }) => {
                // A forced end is the VAD's ceiling, not silence: the speech goes on.
                self.held_speech_end = (self.held && !forced).then_some(at_ms);
            }
            (_, Boundary::Start { at_ms }) => self.on_speech_start(at_ms, wake, out),
            (_, Boundary::End { at_ms, decided_ms, .. }) => self.on_speech_end(at_ms, decided_ms, wake, out),
        }
    }

    /// The utterance's audio as its end will cut it, once the silence going on has reached
    /// the end pad. Handed out once per silence, and not again within [`AHEAD_AGAIN_MS`] of
    /// the last (each is a whisper run: pauses in a long sentence must not queue them up).
    /// Not for speech still to be checked for the wake phrase, nor for the tail of a wake
    /// phrase that [`Listener::on_speech_end`] would drop; with a key held, only for a silence
    /// that began after the press (see [`Listener::held_end`]).
    fn ahead_window(&mut self) -> Option<Out> {
        if !self.ahead || (self.mode == Mode::PushToTalk && !self.held) {
            return None;
        }
        let at_ms = self.endpointer.trailing_since_ms()?;
        if self.mode == Mode::PushToTalk && at_ms < ms(self.pressed_at) {
            return None;
        }
        let clock = self.clock;
        let u = self.utterance.as_mut()?;
        if u.candidate
            || u.ahead_at.is_some_and(|last| at_ms < last + AHEAD_AGAIN_MS)
            || (u.after_wake && at_ms < ms(u.start) + MIN_COMMAND_MS)
        {
            return None;
        }
        let end = samples(at_ms + END_PAD_MS);
        if clock < end || end <= u.start {
            return None;
        }
        let audio = u.audio.get(..(end - u.start) as usize)?.to_vec();
        u.ahead_at = Some(at_ms);
        Some(Out::Ahead { audio, start_ms: ms(u.start), end_ms: at_ms })
    }

    fn command_mode(&self) -> bool {
        self.mode == Mode::Vad || self.armed_until.is_some()
    }

    fn on_speech_start(&mut self, at_ms: u64, wake: Option<&mut Wake>, out: &mut Vec<Out>) {
        out.push(Out::Event(Event::SpeechStart { at_ms }));
        let (start, audio) = self.since(samples(at_ms).saturating_sub(samples(self.preroll_ms)));
        if self.command_mode() {
            self.utterance = Some(Utterance::new(start, audio));
        } else if self.spot {
            self.utterance = Some(Utterance { candidate: true, ..Utterance::new(start, audio) });
        } else if let Some(w) = wake {
            self.feeding_wake = true;
            if let Some(text) = w.feed(&audio)
                && self.on_wake_text(&text, true, out)
            {
                w.reset();
            }
        }
    }

    fn on_speech_end(&mut self, at_ms: u64, decided_ms: u64, wake: Option<&mut Wake>, out: &mut Vec<Out>) {
        out.push(Out::Event(Event::SpeechEnd { at_ms, decided_ms, speech_ms: at_ms.saturating_sub(self.onset_ms) }));
        if self.feeding_wake {
            self.feeding_wake = false;
            if let Some(w) = wake {
                let text = w.finish();
                self.on_wake_text(&text, false, out);
            }
            return;
        }
        if let Some(u) = self.utterance.take() {
            let end = samples(at_ms + END_PAD_MS).min(self.clock);
            if u.candidate {
                // Whether it was addressed to SMART is decided on all of it (a window asked
                // about while it went on and not yet answered is superseded).
                let mut audio = u.audio;
                audio.truncate(end.saturating_sub(u.start) as usize);
                out.push(Out::Spot { audio, start_ms: ms(u.start), end_ms: at_ms, live: false });
                return;
            }
            if u.after_wake && at_ms < ms(u.start) + MIN_COMMAND_MS {
                // Only the phrase's tail followed it: the command is the next utterance.
                self.arm();
                return;
            }
            let keep = end.saturating_sub(u.start) as usize;
            let mut audio = u.audio;
            audio.truncate(keep);
            let armed = self.armed_until.take().is_some();
            let strip = if armed || u.strip { self.wake_phrase.clone() } else { None };
            out.push(Out::Utterance { audio, start_ms: ms(u.start), end_ms: at_ms, strip });
        }
    }

    /// What the wake recogniser made of speech. Mid-speech (`live`), hearing the phrase turns
    /// the rest of this speech into the command; at its end, the next utterance. `true` when
    /// the phrase was heard (the recogniser must then start afresh, or the next speech would
    /// begin with the phrase still in its result).
    fn on_wake_text(&mut self, text: &str, live: bool, out: &mut Vec<Out>) -> bool {
        let Some(phrase) = self.wake_phrase.clone() else { return false };
        if heard_phrase(text, &phrase) {
            out.push(Out::Event(Event::Wake { at_ms: self.now_ms(), phrase: phrase.clone() }));
            self.arm();
            if live {
                self.feeding_wake = false;
                self.utterance = Some(Utterance { after_wake: true, ..Utterance::new(self.clock, vec![]) });
            }
            true
        } else {
            if !text.trim().is_empty() && !live {
                out.push(Out::Event(Event::WakeRejected { at_ms: self.now_ms(), heard: text.to_string() }));
            }
            false
        }
    }

    /// The phrase was heard with nothing after it: the next utterance, if it starts within
    /// [`ARMED_MS`], is the command.
    fn arm(&mut self) {
        self.armed_until = Some(self.clock + samples(ARMED_MS));
    }

    /// Whisper heard the wake phrase in a [`Out::Spot`]. Live: the speech still going on is the
    /// command, phrase and all (the transcript drops the phrase). Not live: the speech was the
    /// phrase alone, and the next utterance is the command.
    pub fn woke(&mut self, live: bool) {
        if live {
            if let Some(u) = &mut self.utterance
                && u.candidate
            {
                u.candidate = false;
                u.strip = true;
            }
        } else {
            self.arm();
        }
    }

    /// Whisper did not hear the wake phrase at the start of the speech going on: the rest of
    /// it is not listened to.
    pub fn not_woken(&mut self) {
        if self.utterance.as_ref().is_some_and(|u| u.candidate) {
            self.utterance = None;
        }
    }

    /// Whether a live [`Out::Spot`] still has speech to decide about (the speech may have
    /// ended, with its own spot, before the live one was answered).
    pub fn awaiting_spot(&self) -> bool {
        self.utterance.as_ref().is_some_and(|u| u.candidate && u.spot_asked)
    }

    /// Push-to-talk pressed: the utterance starts with the pre-roll.
    pub fn press(&mut self) {
        if self.held {
            return;
        }
        self.held = true;
        self.held_speech_end = None;
        self.pressed_at = self.clock;
        self.speech_in_hold = self.endpointer.in_speech();
        let (start, audio) = self.since(self.clock.saturating_sub(samples(self.preroll_ms)));
        self.utterance = Some(Utterance::new(start, audio));
    }

    /// Where a held key's utterance ends: [`END_PAD_MS`] after the speech, when the VAD heard
    /// the speech end (or trail off for at least the pad) since it last began and after the
    /// key went down; `None`: at the release. Voice the VAD has not yet called speech (an
    /// onset) keeps the cut at the release: it may be a word begun as the key came up.
    fn held_end(&self, u: &Utterance) -> Option<u64> {
        let at_ms = match self.endpointer.state() {
            State::Trailing => self.endpointer.trailing_since_ms()?,
            State::Silence => self.held_speech_end?,
            State::Onset | State::Speech => return None,
        };
        let end = samples(at_ms + END_PAD_MS);
        (at_ms >= ms(self.pressed_at) && end <= self.clock && end > u.start).then_some(at_ms)
    }

    /// Push-to-talk released: the utterance ends now — or where the speech ended, see
    /// [`Listener::held_end`]. The VAD first scores what it kept back, so that a word begun in
    /// its last step is seen.
    pub fn release(&mut self, vad: &mut impl Scores) -> Result<Vec<Out>, String> {
        if !self.held {
            return Ok(vec![]);
        }
        let mut out = vec![];
        for p in vad.catch_up()? {
            if let Some(b) = self.endpointer.push(p) {
                self.on_boundary(b, None, &mut out);
            }
        }
        if self.endpointer.in_speech() {
            self.speech_in_hold = true;
        }
        self.held = false;
        let Some(mut u) = self.utterance.take() else { return Ok(out) };
        let spoken_end = self.held_end(&u);
        self.held_speech_end = None;
        let (start_ms, released_ms) = (ms(u.start), self.now_ms());
        let end_ms = spoken_end.unwrap_or(released_ms);
        if let Some(at_ms) = spoken_end {
            u.audio.truncate((samples(at_ms + END_PAD_MS) - u.start) as usize);
        }
        out.push(Out::Event(Event::SpeechEnd {
            at_ms: end_ms,
            decided_ms: released_ms,
            speech_ms: end_ms.saturating_sub(start_ms),
        }));
        if self.speech_in_hold {
            out.push(Out::Utterance { audio: u.audio, start_ms, end_ms, strip: None });
        } else {
            out.push(Out::Nothing { start_ms, end_ms });
        }
        self.speech_in_hold = false;
        Ok(out)
    }

    /// The input ended (a file's last sample): an utterance in progress ends here.
    pub fn finish(&mut self, vad: &mut impl Scores, wake: Option<&mut Wake>) -> Result<Vec<Out>, String> {
        let mut out = vec![];
        if self.held {
            return self.release(vad);
        }
        if let Some(Boundary::End { at_ms, decided_ms, .. }) = self.endpointer.flush() {
            self.on_speech_end(at_ms, decided_ms, wake, &mut out);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    //! The listener's decisions over a stand-in VAD (a frame is speech when it is loud), which
    //! scores in steps as Silero's does here: what is tested is where utterances are cut and
    //! what is handed out ahead, not the model.

    use super::*;
    use smart_voice::endpoint::{FRAME_MS, FRAME_SAMPLES};

    /// Scores frames in steps of three, as [`crate::vad::Vad`] does.
    #[derive(Default)]
    struct Loudness {
        window: Vec<f32>,
    }

    impl Loudness {
        fn score(&mut self, frames: usize) -> Vec<f32> {
            let scored: Vec<f32> = self.window[..frames * FRAME_SAMPLES]
                .chunks(FRAME_SAMPLES)
                .map(|f| if f.iter().map(|x| x.abs()).sum::<f32>() / f.len() as f32 > 0.05 { 0.9 } else { 0.02 })
                .collect();
            self.window.drain(..frames * FRAME_SAMPLES);
            scored
        }
    }

    impl Scores for Loudness {
        fn push(&mut self, samples: &[f32]) -> Result<Vec<f32>, String> {
            self.window.extend_from_slice(samples);
            let steps = self.window.len() / FRAME_SAMPLES / 3;
            Ok(self.score(steps * 3))
        }
        fn catch_up(&mut self) -> Result<Vec<f32>, String> {
            let frames = self.window.len() / FRAME_SAMPLES;
            Ok(self.score(frames))
        }
    }

    fn voice(ms: u64) -> Vec<f32> {
        (0..samples(ms)).map(|i| if i % 2 == 0 { 0.3 } else { -0.3 }).collect()
    }

    fn quiet(ms: u64) -> Vec<f32> {
        vec![0.0; samples(ms) as usize]
    }

    /// Feeds `audio` in 20 ms steps, as a microphone delivers it.
    fn feed(l: &mut Listener, vad: &mut Loudness, audio: &[f32]) -> Vec<Out> {
        audio.chunks(320).flat_map(|c| l.push(c, vad, None).unwrap()).collect()
    }

    fn vad_listener() -> Listener {
        Listener::new(Mode::Vad, EndpointConfig::default(), 500, None).transcribing_ahead(true)
    }

    fn ptt_listener() -> Listener {
        Listener::new(Mode::PushToTalk, EndpointConfig::default(), 500, None).transcribing_ahead(true)
    }

    /// Where a window lies and how long it is: (start_ms, end_ms, samples).
    type Window = (u64, u64, usize);

    /// Each early window and each utterance, in order.
    fn windows(outs: &[Out]) -> (Vec<Window>, Vec<Window>) {
        let (mut ahead, mut said) = (vec![], vec![]);
        for o in outs {
            match o {
                Out::Ahead { audio, start_ms, end_ms } => ahead.push((*start_ms, *end_ms, audio.len())),
                Out::Utterance { audio, start_ms, end_ms, .. } => said.push((*start_ms, *end_ms, audio.len())),
                _ => {}
            }
        }
        (ahead, said)
    }

    fn audio_of(outs: &[Out], ahead: bool) -> Vec<&Vec<f32>> {
        outs.iter()
            .filter_map(|o| match o {
                Out::Ahead { audio, .. } if ahead => Some(audio),
                Out::Utterance { audio, .. } if !ahead => Some(audio),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn the_window_handed_out_ahead_is_exactly_the_audio_the_end_cuts() {
        let (mut l, mut vad) = (vad_listener(), Loudness::default());
        let audio = [quiet(640), voice(1280), quiet(1000)].concat();
        let outs = feed(&mut l, &mut vad, &audio);
        let (ahead, said) = windows(&outs);
        assert_eq!((ahead.len(), said.len()), (1, 1), "{ahead:?} {said:?}");
        assert_eq!(ahead[0], said[0]);
        assert_eq!(audio_of(&outs, true), audio_of(&outs, false));
        // Handed out before the end was decided, not with it.
        let first_ahead = outs.iter().position(|o| matches!(o, Out::Ahead { .. })).unwrap();
        let end = outs.iter().position(|o| matches!(o, Out::Event(Event::SpeechEnd { .. }))).unwrap();
        assert!(first_ahead < end);
    }

    #[test]
    fn a_listener_not_told_to_transcribe_ahead_hands_nothing_out() {
        let mut l = Listener::new(Mode::Vad, EndpointConfig::default(), 500, None);
        let outs = feed(&mut l, &mut Loudness::default(), &[quiet(640), voice(1280), quiet(1000)].concat());
        let (ahead, said) = windows(&outs);
        assert_eq!((ahead.len(), said.len()), (0, 1));
    }

    #[test]
    fn speech_that_resumes_is_handed_out_again_only_a_second_after_the_last_early_window() {
        // A pause past the pad, then a second of speech: a new early window at its end, which
        // is the utterance.
        let (mut l, mut vad) = (vad_listener(), Loudness::default());
        let outs = feed(&mut l, &mut vad, &[quiet(640), voice(960), quiet(320), voice(1280), quiet(1000)].concat());
        let (ahead, said) = windows(&outs);
        assert_eq!((ahead.len(), said.len()), (2, 1), "{ahead:?} {said:?}");
        assert_ne!(ahead[0], said[0]);
        assert_eq!(ahead[1], said[0]);
        // Resumed for less than the gap: the utterance ends with no window of its own, and the
        // one made in the pause is of other audio.
        let (mut l, mut vad) = (vad_listener(), Loudness::default());
        let outs = feed(&mut l, &mut vad, &[quiet(640), voice(960), quiet(320), voice(320), quiet(1000)].concat());
        let (ahead, said) = windows(&outs);
        assert_eq!((ahead.len(), said.len()), (1, 1), "{ahead:?} {said:?}");
        assert!(ahead[0].2 < said[0].2 && ahead[0].1 < said[0].1, "{ahead:?} {said:?}");
    }

    #[test]
    fn a_key_released_after_the_speech_ended_cuts_at_the_speech_and_was_handed_out_ahead() {
        let (mut l, mut vad) = (ptt_listener(), Loudness::default());
        feed(&mut l, &mut vad, &quiet(640));
        l.press();
        let mut outs = feed(&mut l, &mut vad, &[quiet(320), voice(1280), quiet(800)].concat());
        outs.extend(l.release(&mut vad).unwrap());
        let (ahead, said) = windows(&outs);
        assert_eq!((ahead.len(), said.len()), (1, 1), "{ahead:?} {said:?}");
        assert_eq!(ahead[0], said[0]);
        assert_eq!(said[0].1, 640 + 320 + 1280, "cut where the speech ended");
        assert_eq!(said[0].2 as u64, samples(320 + 1280 + END_PAD_MS) + samples(500), "pre-roll, speech, pad");
        // Released at once after the last word: nothing to cut, the release is the end.
        let (mut l, mut vad) = (ptt_listener(), Loudness::default());
        feed(&mut l, &mut vad, &quiet(640));
        l.press();
        let mut outs = feed(&mut l, &mut vad, &[quiet(320), voice(1280), quiet(96)].concat());
        outs.extend(l.release(&mut vad).unwrap());
        let (ahead, said) = windows(&outs);
        assert_eq!((ahead.len(), said.len()), (0, 1), "{ahead:?} {said:?}");
        assert_eq!(said[0].1, l.now_ms());
    }

    #[test]
    fn a_key_released_as_a_new_word_begins_keeps_the_word() {
        // The VAD called the speech ended; a word begins 100 ms before the key comes up — an
        // onset, not yet speech, and partly not yet scored. What broke: the cut at the old end
        // dropped the word.
        for new_word_ms in [40, 100, 150] {
            let (mut l, mut vad) = (ptt_listener(), Loudness::default());
            feed(&mut l, &mut vad, &quiet(640));
            l.press();
            let mut outs = feed(&mut l, &mut vad, &[voice(1280), quiet(800), voice(new_word_ms)].concat());
            let released_ms = l.now_ms();
            outs.extend(l.release(&mut vad).unwrap());
            let (_, said) = windows(&outs);
            assert_eq!(said.len(), 1, "{said:?}");
            assert_eq!(said[0].1, released_ms, "{new_word_ms} ms of a new word: cut before it");
        }
    }

    #[test]
    fn a_key_pressed_in_the_silence_after_earlier_speech_is_not_cut_before_the_press() {
        let (mut l, mut vad) = (ptt_listener(), Loudness::default());
        feed(&mut l, &mut vad, &[quiet(640), voice(960), quiet(256)].concat());
        l.press();
        let mut outs = feed(&mut l, &mut vad, &quiet(600));
        outs.extend(l.release(&mut vad).unwrap());
        let (ahead, said) = windows(&outs);
        assert!(ahead.is_empty(), "an early window of the silence before the press: {ahead:?}");
        assert!(said.iter().all(|(start, end, _)| end >= start), "{said:?}");
        assert!(said.iter().all(|(_, end, _)| *end == l.now_ms()), "{said:?}");
    }

    #[test]
    fn a_hold_that_reaches_the_ceiling_ends_at_the_release_not_at_the_vads_forced_end() {
        let config = EndpointConfig { max_speech_ms: 1_000, ..EndpointConfig::default() };
        let (mut l, mut vad) =
            (Listener::new(Mode::PushToTalk, config, 500, None).transcribing_ahead(true), Loudness::default());
        l.press();
        let outs = feed(&mut l, &mut vad, &voice(2_000));
        let (_, said) = windows(&outs);
        assert_eq!(said.len(), 1, "released by the ceiling: {said:?}");
        let (start, end, len) = said[0];
        assert_eq!(len as u64, samples(end - start), "{said:?}");
        assert!(end - start >= 1_000 - FRAME_MS, "{said:?}");
    }
}
