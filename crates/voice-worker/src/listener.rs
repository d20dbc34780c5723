//! From a stream of 16 kHz samples to utterances: the part of listening that decides *what* to
//! transcribe.
//!
//! Three ways an utterance is bounded, one code path for all of them:
//! - **VAD** (a file, or the wake word's command): speech start and end come from the
//!   endpointer over Silero's per-frame probabilities;
//! - **push-to-talk**: the key bounds it, the VAD only says whether anything was said at all
//!   (whisper invents words for silence, so a silent press is reported as empty, not
//!   transcribed);
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

use crate::vad::Vad;
use crate::wake::{Wake, heard_phrase};
use smart_voice::PreRoll;
use smart_voice::endpoint::{Boundary, EndpointConfig, Endpointer, SAMPLE_RATE};
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

    pub fn push(&mut self, chunk: &[f32], vad: &mut Vad, wake: Option<&mut Wake>) -> Result<Vec<Out>, String> {
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
            let Some(b) = self.endpointer.push(p) else { continue };
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
                (_, Boundary::Start { at_ms }) => self.on_speech_start(at_ms, wake.as_deref_mut(), &mut out),
                (_, Boundary::End { at_ms, decided_ms, .. }) => {
                    self.on_speech_end(at_ms, decided_ms, wake.as_deref_mut(), &mut out)
                }
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
            out.extend(self.release());
        }
        Ok(out)
    }

    /// The utterance's audio as its end will cut it, once the silence going on has reached
    /// the end pad — handed out once per silence. Only for utterances the VAD ends (not a
    /// held key's, not speech still to be checked for the wake phrase), and not for the tail
    /// of a wake phrase that [`Listener::on_speech_end`] would drop.
    fn ahead_window(&mut self) -> Option<Out> {
        if !self.ahead || (self.mode == Mode::PushToTalk && !self.held) {
            return None;
        }
        let at_ms = self.endpointer.trailing_since_ms()?;
        let clock = self.clock;
        let u = self.utterance.as_mut()?;
        if u.candidate || u.ahead_at == Some(at_ms) || (u.after_wake && at_ms < ms(u.start) + MIN_COMMAND_MS) {
            return None;
        }
        let end = samples(at_ms + END_PAD_MS);
        if clock < end {
            return None;
        }
        let audio = u.audio.get(..end.checked_sub(u.start)? as usize)?.to_vec();
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
        self.speech_in_hold = self.endpointer.in_speech();
        let (start, audio) = self.since(self.clock.saturating_sub(samples(self.preroll_ms)));
        self.utterance = Some(Utterance::new(start, audio));
    }

    /// Where a held key's utterance ends: [`END_PAD_MS`] after the speech, when the VAD heard
    /// the speech end (or trail off for at least the pad) since it last began; `None`: at the
    /// release.
    fn held_end(&self, u: &Utterance) -> Option<u64> {
        let at_ms = match self.endpointer.trailing_since_ms() {
            Some(at_ms) => at_ms,
            None if !self.endpointer.in_speech() => self.held_speech_end?,
            None => return None,
        };
        let end = samples(at_ms + END_PAD_MS);
        (end <= self.clock && end > u.start).then_some(at_ms)
    }

    /// Push-to-talk released: the utterance ends now — or where the speech ended, see
    /// [`Listener::held_end`].
    pub fn release(&mut self) -> Vec<Out> {
        if !self.held {
            return vec![];
        }
        self.held = false;
        let Some(mut u) = self.utterance.take() else { return vec![] };
        let spoken_end = self.held_end(&u);
        self.held_speech_end = None;
        let (start_ms, released_ms) = (ms(u.start), self.now_ms());
        let end_ms = spoken_end.unwrap_or(released_ms);
        if let Some(at_ms) = spoken_end {
            u.audio.truncate((samples(at_ms + END_PAD_MS) - u.start) as usize);
        }
        let mut out = vec![Out::Event(Event::SpeechEnd {
            at_ms: end_ms,
            decided_ms: released_ms,
            speech_ms: end_ms.saturating_sub(start_ms),
        })];
        if self.speech_in_hold {
            out.push(Out::Utterance { audio: u.audio, start_ms, end_ms, strip: None });
        } else {
            out.push(Out::Nothing { start_ms, end_ms });
        }
        self.speech_in_hold = false;
        out
    }

    /// The input ended (a file's last sample): an utterance in progress ends here.
    pub fn finish(&mut self, wake: Option<&mut Wake>) -> Vec<Out> {
        let mut out = vec![];
        if self.held {
            return self.release();
        }
        if let Some(Boundary::End { at_ms, decided_ms, .. }) = self.endpointer.flush() {
            self.on_speech_end(at_ms, decided_ms, wake, &mut out);
        }
        out
    }
}
