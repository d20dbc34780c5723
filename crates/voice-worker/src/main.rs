//! `smart-voice-worker`: the microphone, the VAD, the wake word and whisper behind a pipe.
//!
//! The runtime spawns this binary and talks to it in the line protocol of
//! `smart_voice::protocol`. It owns every native audio and speech library SMART uses, so that
//! none of them shares a process with the kernel (and whisper.cpp's ggml never meets
//! llama.cpp's). What it can do to the world is print events on stdout: a transcript is only
//! text, which the runtime hands to the proposer and the kernel judges.
//!
//! One thread reads stdin, cpal's thread delivers audio; both feed one channel, and the main
//! loop handles messages in order — so a transcription in progress delays the next request
//! instead of racing it, and audio that arrives meanwhile waits in the channel, never lost.
//!
//! stdout carries protocol lines only; whisper.cpp's and vosk's logs are silenced unless
//! `SMART_WORKER_LOG=1`.

mod audio;
mod capture;
mod expect;
mod listener;
mod output;
mod stt;
mod vad;
#[cfg(test)]
#[path = "../vosk_link.rs"]
mod vosk_link;
mod wake;

use listener::{Listener, Mode, Out};
use smart_voice::protocol::{
    CaptureMode, DeviceStatus, Event, EventLine, KEPT_AUDIO_MS, LoadVoice, Loaded, PROTOCOL_VERSION, Request,
    Transcript, VoiceError, VoiceErrorCode, WakeEngine, WakeStatus,
};
use smart_voice::wake_phrase::Addressed;
use std::io::{BufRead, Write};
use std::process::ExitCode;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Instant;

/// Samples a file is fed in at a time: 100 ms.
const FILE_STEP: usize = 1600;
/// Samples a paced file is fed in at a time: 20 ms, about what a microphone delivers at once,
/// so the measured latency is not the file's steps.
const PACED_STEP: usize = 320;

pub enum Msg {
    Line(String),
    StdinClosed,
    Audio(capture::Captured),
}

struct Models {
    stt: stt::Stt,
    vad: vad::Vad,
    wake: Option<WakeWord>,
    config: LoadVoice,
}

/// What listens for the wake phrase.
enum WakeWord {
    /// A vosk model restricted to the phrase, fed the speech as it comes.
    Vosk(wake::Wake),
    /// The loaded whisper model, on the first seconds of each stretch of speech
    /// (`smart_voice::wake_phrase`).
    Whisper { phrase: String },
}

impl WakeWord {
    fn phrase(&self) -> &str {
        match self {
            WakeWord::Vosk(w) => &w.phrase,
            WakeWord::Whisper { phrase } => phrase,
        }
    }

    fn engine(&self) -> WakeEngine {
        match self {
            WakeWord::Vosk(_) => WakeEngine::Vosk,
            WakeWord::Whisper { .. } => WakeEngine::Whisper,
        }
    }

    fn vosk(&mut self) -> Option<&mut wake::Wake> {
        match self {
            WakeWord::Vosk(w) => Some(w),
            WakeWord::Whisper { .. } => None,
        }
    }

    /// A listener for this engine in wake mode.
    fn listener(&self, config: &LoadVoice) -> Listener {
        let l = Listener::new(Mode::WakeWord, config.endpoint.clone(), config.preroll_ms, Some(self.phrase().into()));
        match self {
            WakeWord::Vosk(_) => l,
            WakeWord::Whisper { .. } => l.spotting(),
        }
    }
}

struct Live {
    _capture: capture::Capture,
    listener: Listener,
    resample: audio::To16k,
    rate: u32,
}

struct Worker<W: Write> {
    out: W,
    models: Option<Models>,
    output: output::Output,
    live: Option<Live>,
    tx: Sender<Msg>,
    /// The latest utterances transcribed as commands, newest last, up to
    /// [`KEPT_AUDIO_MS`] of audio, for [`Request::Rehear`]; emptied when a new audio clock
    /// starts (a file, a capture). By audio, not by count: the runtime asks about the one it
    /// is reading, and a file's later utterances (or a person's) may have come since.
    kept: std::collections::VecDeque<Kept>,
    /// What whisper heard in the audio the listener handed out ahead of an utterance's end
    /// ([`Out::Ahead`]), kept until the utterance comes: used if its audio is the same.
    ahead: Option<Ahead>,
    /// A paced file: when its first sample would have reached the microphone, so a
    /// transcript can say how long after the end of speech it was ready.
    paced_from: Option<Instant>,
}

/// An utterance's audio and where it lies, as whisper was given it; `strip`: the wake phrase
/// it began with, taken off what is heard.
struct Kept {
    audio: Vec<f32>,
    start_ms: u64,
    end_ms: u64,
    strip: Option<String>,
    /// whisper's state after hearing it, kept for the newest utterance only (the one the
    /// runtime weighs, if any): weighing then needs no encoder pass of its own.
    encoded: Option<stt::Encoded>,
}

/// An utterance's audio as the listener handed it out ahead of its end, and what whisper heard.
struct Ahead {
    audio: Vec<f32>,
    start_ms: u64,
    end_ms: u64,
    heard: stt::Heard,
}

fn err(code: VoiceErrorCode, message: impl Into<String>) -> VoiceError {
    VoiceError::new(code, message)
}

impl<W: Write> Worker<W> {
    /// Writes one line; `false` when the runtime is gone.
    fn send(&mut self, id: u64, event: Event) -> bool {
        let line = EventLine { v: PROTOCOL_VERSION, id, event };
        match serde_json::to_string(&line) {
            Ok(text) => writeln!(self.out, "{text}").and_then(|_| self.out.flush()).is_ok(),
            Err(e) => {
                eprintln!("smart-voice-worker: cannot encode an event: {e}");
                true
            }
        }
    }

    fn handle(&mut self, id: u64, request: Request) -> Result<bool, VoiceError> {
        match request {
            Request::Load(cfg) => {
                let loaded = self.load(*cfg)?;
                Ok(self.send(id, Event::Loaded(loaded)))
            }
            Request::TranscribeFile { path, wake, paced } => {
                self.transcribe_file(id, &path, wake, paced)?;
                Ok(true)
            }
            Request::StartCapture { mode } => {
                self.start_capture(mode)?;
                Ok(self.send(id, Event::Ok))
            }
            Request::PushToTalk { down } => {
                let (Some(live), Some(models)) = (self.live.as_mut(), self.models.as_mut()) else {
                    return Err(err(
                        VoiceErrorCode::BadRequest,
                        "push-to-talk without an open microphone (start_capture first)",
                    ));
                };
                let outs = if down {
                    live.listener.press();
                    vec![]
                } else {
                    live.listener.release(&mut models.vad).map_err(|e| err(VoiceErrorCode::Internal, e))?
                };
                let alive = self.send(id, Event::Ok);
                Ok(alive && self.deliver(0, outs, None))
            }
            Request::StopCapture => {
                self.live = None;
                Ok(self.send(id, Event::Ok))
            }
            Request::Rehear { start_ms, end_ms } => {
                let t = self.rehear(start_ms, end_ms)?;
                Ok(self.send(id, Event::Transcript(t)))
            }
            Request::Weigh { start_ms, end_ms, texts } => {
                let (logp, tokens) = self.weigh(start_ms, end_ms, &texts)?.into_iter().unzip();
                Ok(self.send(id, Event::Weighed { logp, tokens }))
            }
            Request::Speak { text } => {
                self.output.speak(&text);
                Ok(self.send(id, Event::Ok))
            }
            Request::Earcon { kind } => {
                self.output.earcon(kind);
                Ok(self.send(id, Event::Ok))
            }
            Request::Health => Ok(self.send(id, Event::Ok)),
            Request::Shutdown => {
                self.send(id, Event::Ok);
                Ok(false)
            }
        }
    }

    fn load(&mut self, cfg: LoadVoice) -> Result<Loaded, VoiceError> {
        cfg.endpoint.validate().map_err(|e| err(VoiceErrorCode::BadRequest, e))?;
        if let Some(e) = &cfg.expect {
            e.validate().map_err(|e| err(VoiceErrorCode::BadRequest, e))?;
        }
        let started = Instant::now();
        let threads = cfg
            .threads
            .map_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get() as i32), |t| t.max(1) as i32);
        let mut stt = stt::Stt::load(&cfg.whisper, threads, cfg.language.clone(), cfg.prompt.clone())
            .map_err(|e| err(VoiceErrorCode::ModelLoad, e))?;
        let (wake, wake_status) = match &cfg.wake {
            None => (None, WakeStatus::Unavailable { reason: "no wake word is configured; use push-to-talk".into() }),
            Some(w) => {
                let engine = match &w.model {
                    Some(model) => wake::Wake::load(model, &w.phrase).map(WakeWord::Vosk),
                    None => wake::check_phrase(&w.phrase).map(|phrase| WakeWord::Whisper { phrase }),
                };
                match engine {
                    Ok(engine) => {
                        let status = WakeStatus::Ready { phrase: engine.phrase().to_string(), engine: engine.engine() };
                        (Some(engine), status)
                    }
                    Err(reason) => (None, WakeStatus::Unavailable { reason: format!("{reason}; use push-to-talk") }),
                }
            }
        };
        // whisper listening for the phrase expects it, as it expects the command words.
        let mut expect = cfg.expect.clone();
        if let Some(WakeWord::Whisper { phrase }) = &wake {
            let e = expect
                .get_or_insert_with(|| smart_voice::protocol::Expect { phrases: vec![], boost: Default::default() });
            e.phrases.push(phrase.clone());
        }
        let expected_forms = stt.expect(expect.as_ref()).map_err(|e| err(VoiceErrorCode::BadRequest, e))?;
        let vad = vad::Vad::load(&cfg.vad, 1).map_err(|e| err(VoiceErrorCode::ModelLoad, e))?;
        let input = match capture::probe() {
            Ok(name) => DeviceStatus::Available { name },
            Err(reason) => DeviceStatus::Unavailable { reason },
        };
        self.output = if cfg.speak { output::Output::open() } else { output::Output::off() };
        let loaded = Loaded {
            whisper: stt.name.clone(),
            multilingual: stt.multilingual,
            wake: wake_status,
            input,
            output: self.output.status.clone(),
            load_ms: started.elapsed().as_millis() as u64,
            whisper_cpp: whisper_rs::WHISPER_CPP_VERSION.to_string(),
            expected_forms,
        };
        self.live = None;
        // Heard with the models replaced: not what these would hear.
        self.ahead = None;
        self.models = Some(Models { stt, vad, wake, config: cfg });
        Ok(loaded)
    }

    fn transcribe_file(&mut self, id: u64, path: &str, wake: bool, paced: bool) -> Result<(), VoiceError> {
        let models =
            self.models.as_mut().ok_or_else(|| err(VoiceErrorCode::NotLoaded, "no voice models are loaded"))?;
        let listener = if wake {
            let w = models.wake.as_ref().ok_or_else(|| {
                err(
                    VoiceErrorCode::WakeUnavailable,
                    "the wake word is not available, so nothing in the file is a command",
                )
            })?;
            w.listener(&models.config)
        } else {
            Listener::new(Mode::Vad, models.config.endpoint.clone(), models.config.preroll_ms, None)
        };
        let mut listener = listener
            .with_partials(models.config.partial_every_ms)
            .transcribing_ahead(paced && models.config.transcribe_ahead);
        let audio = audio::read_wav(path).map_err(|e| err(VoiceErrorCode::BadAudio, e))?;
        models.vad.reset();
        self.kept.clear();
        self.ahead = None;
        if let Some(w) = models.wake.as_mut().and_then(WakeWord::vosk) {
            w.reset();
        }
        let started = Instant::now();
        self.paced_from = paced.then_some(started);
        // A file is fed in the steps a microphone would deliver, so both take the same path;
        // paced, each step when a microphone would have delivered its last sample (or at once,
        // when the worker is behind, as a microphone's buffered audio is).
        // (The wake recogniser is fed the steps a file always gets: what it makes of a file must
        // not depend on the pace.)
        let step = if paced && !wake { PACED_STEP } else { FILE_STEP };
        for (i, chunk) in audio.chunks(step).enumerate() {
            if paced {
                let due = started + std::time::Duration::from_micros(((i * step + chunk.len()) as u64 * 1000) / 16);
                std::thread::sleep(due.saturating_duration_since(Instant::now()));
            }
            let models =
                self.models.as_mut().ok_or_else(|| err(VoiceErrorCode::NotLoaded, "no voice models are loaded"))?;
            // A listener in VAD mode never feeds the wake recogniser, so it can always be given.
            let vosk = models.wake.as_mut().and_then(WakeWord::vosk);
            let outs = listener.push(chunk, &mut models.vad, vosk).map_err(|e| err(VoiceErrorCode::Internal, e))?;
            if !self.deliver(id, outs, Some(&mut listener)) {
                return Ok(());
            }
        }
        if let Some(Models { vad, wake, .. }) = self.models.as_mut() {
            let outs = listener.finish(vad, wake.as_mut().and_then(WakeWord::vosk));
            let outs = outs.map_err(|e| err(VoiceErrorCode::Internal, e))?;
            self.deliver(id, outs, Some(&mut listener));
        }
        self.paced_from = None;
        let audio_ms = audio.len() as u64 * 1000 / 16_000;
        self.send(id, Event::Done { audio_ms });
        Ok(())
    }

    /// Sends the listener's events, transcribing utterances on the way and telling the
    /// `listener` whether whisper heard the wake phrase. `false` when the runtime is gone.
    fn deliver(&mut self, id: u64, outs: Vec<Out>, mut listener: Option<&mut Listener>) -> bool {
        for o in outs {
            let event = match o {
                Out::Event(e) => e,
                Out::Spot { audio, start_ms, end_ms, live } => {
                    let Some(listener) = listener.as_deref_mut() else { continue };
                    for e in self.spot(listener, &audio, start_ms, end_ms, live).unwrap_or_default() {
                        if !self.send(id, e) {
                            return false;
                        }
                    }
                    continue;
                }
                Out::Partial { audio } => {
                    let Some(models) = self.models.as_mut() else { continue };
                    match models.stt.transcribe(&audio, true) {
                        Ok(heard) if !heard.text.is_empty() => Event::Partial { text: heard.text },
                        _ => continue,
                    }
                }
                Out::Nothing { start_ms, end_ms } => Event::Transcript(Transcript {
                    text: String::new(),
                    confidence: 0.0,
                    no_speech: 1.0,
                    language: String::new(),
                    start_ms,
                    end_ms,
                    timings: Default::default(),
                }),
                Out::Ahead { audio, start_ms, end_ms } => {
                    let Some(models) = self.models.as_mut() else { continue };
                    // A failure here is only a lost head start: the utterance is transcribed
                    // when it comes, and reports its own error.
                    self.ahead =
                        models.stt.transcribe(&audio, true).ok().map(|heard| Ahead { audio, start_ms, end_ms, heard });
                    continue;
                }
                Out::Utterance { audio, start_ms, end_ms, strip } => {
                    let Some(models) = self.models.as_mut() else { continue };
                    let vad_ms = models.vad.take_time().as_millis() as u64;
                    let heard = match self.ahead.take() {
                        Some(mut a) if (a.start_ms, a.end_ms) == (start_ms, end_ms) && a.audio == audio => {
                            a.heard.timings.ahead = true;
                            Ok(a.heard)
                        }
                        _ => models.stt.transcribe(&audio, true),
                    };
                    match heard {
                        Ok(mut heard) => {
                            if let Some(from) = self.paced_from {
                                let end = from + std::time::Duration::from_millis(end_ms);
                                heard.timings.after_end_ms =
                                    Some(Instant::now().saturating_duration_since(end).as_millis() as u64);
                            }
                            let text = match &strip {
                                Some(phrase) => smart_voice::wake_phrase::strip(&heard.text, phrase),
                                None => heard.text.clone(),
                            };
                            let encoded = heard.encoded.take();
                            self.keep(Kept { audio, start_ms, end_ms, strip, encoded });
                            Event::Transcript(transcript(text, heard, start_ms, end_ms, vad_ms))
                        }
                        Err(e) => Event::Error(err(VoiceErrorCode::Stt, e)),
                    }
                }
            };
            if !self.send(id, event) {
                return false;
            }
        }
        true
    }

    /// Whether whisper hears the wake phrase at the start of `audio`, and what follows: the
    /// events to send (the wake, what came after it as a transcript, or the rejection), the
    /// listener told either way. `None`: nothing to decide any more.
    fn spot(
        &mut self,
        listener: &mut Listener,
        audio: &[f32],
        start_ms: u64,
        end_ms: u64,
        live: bool,
    ) -> Option<Vec<Event>> {
        if live && !listener.awaiting_spot() {
            return None;
        }
        let models = self.models.as_mut()?;
        let Some(WakeWord::Whisper { phrase }) = &models.wake else { return None };
        let phrase = phrase.clone();
        let vad_ms = models.vad.take_time().as_millis() as u64;
        let heard = match models.stt.transcribe(audio, true) {
            Ok(heard) => heard,
            Err(e) => {
                listener.not_woken();
                return Some(vec![Event::Error(err(VoiceErrorCode::Stt, e))]);
            }
        };
        let addressed = match smart_voice::wake_phrase::addressed(&heard.text, &phrase) {
            Addressed::Maybe => match models.stt.transcribe_after(audio, true, Some(&wake_lead(&phrase))) {
                Ok(again) if smart_voice::wake_phrase::alone_when_expected(&again.text, &phrase) => {
                    Addressed::Yes(String::new())
                }
                _ => Addressed::No,
            },
            other => other,
        };
        // Taken by its sound, not its letters: whisper must also find the phrase itself about as
        // likely for this audio as what it heard ("Hey Mark" is not "hey smart" said badly).
        let addressed = match addressed {
            Addressed::Yes(rest)
                if rest.trim().is_empty() && smart_voice::wake_phrase::after_phrase(&heard.text, &phrase).is_none() =>
            {
                if phrase_is_likely(&models.stt, audio, &phrase, &heard.text) {
                    Addressed::Yes(rest)
                } else {
                    Addressed::No
                }
            }
            other => other,
        };
        let at_ms = listener.now_ms();
        let Addressed::Yes(rest) = addressed else {
            listener.not_woken();
            return Some(vec![Event::WakeRejected { at_ms, heard: heard.text }]);
        };
        let mut events = vec![Event::Wake { at_ms, phrase: phrase.clone() }];
        if live || rest.split_whitespace().next().is_none() {
            // Live: the command is transcribed whole when the speech ends. The phrase alone:
            // the command is the next utterance.
            listener.woke(live);
        } else {
            // The speech was the phrase and the command, and it has been transcribed.
            events.push(Event::Transcript(transcript(rest, heard, start_ms, end_ms, vad_ms)));
            self.keep(Kept { audio: audio.to_vec(), start_ms, end_ms, strip: Some(phrase), encoded: None });
        }
        Some(events)
    }

    fn keep(&mut self, utterance: Kept) {
        let ms = |k: &Kept| k.audio.len() as u64 * 1000 / u64::from(smart_voice::endpoint::SAMPLE_RATE);
        let mut total = ms(&utterance) + self.kept.iter().map(ms).sum::<u64>();
        while total > KEPT_AUDIO_MS
            && let Some(oldest) = self.kept.pop_front()
        {
            total -= ms(&oldest);
        }
        if total <= KEPT_AUDIO_MS {
            self.kept.iter_mut().for_each(|k| k.encoded = None);
            self.kept.push_back(utterance);
        }
    }

    /// Where in [`Worker::kept`] the utterance from `start_ms` to `end_ms` is.
    fn kept_at(&self, start_ms: u64, end_ms: u64) -> Result<usize, VoiceError> {
        self.kept.iter().rposition(|k| k.start_ms == start_ms && k.end_ms == end_ms).ok_or_else(|| {
            err(
                VoiceErrorCode::NotKept,
                format!(
                    "the utterance from {start_ms} to {end_ms} ms is not kept (the latest {} s of this capture or file are)",
                    KEPT_AUDIO_MS / 1000
                ),
            )
        })
    }

    /// How likely whisper finds each of `texts` for a kept utterance ([`Request::Weigh`]). An
    /// utterance that began with the wake phrase is weighed with it: each text is the phrase
    /// and then the text, so the texts differ only where they differ.
    fn weigh(&mut self, start_ms: u64, end_ms: u64, texts: &[String]) -> Result<Vec<(f32, u32)>, VoiceError> {
        smart_voice::protocol::weighable(texts).map_err(|e| err(VoiceErrorCode::BadRequest, e))?;
        let at = self.kept_at(start_ms, end_ms)?;
        let models =
            self.models.as_ref().ok_or_else(|| err(VoiceErrorCode::NotLoaded, "no voice models are loaded"))?;
        let last = &mut self.kept[at];
        let texts: Vec<String> = texts
            .iter()
            .map(|t| match &last.strip {
                Some(phrase) => format!(" {phrase}, {}", t.trim()),
                None => format!(" {}", t.trim()),
            })
            .collect();
        let scores =
            models.stt.weigh(&last.audio, &texts, last.encoded.as_mut()).map_err(|e| err(VoiceErrorCode::Stt, e))?;
        Ok(scores.into_iter().map(|s| (s.logp, u32::try_from(s.tokens).unwrap_or(u32::MAX))).collect())
    }

    /// A kept utterance heard again with whisper's whole window ([`Request::Rehear`]).
    fn rehear(&mut self, start_ms: u64, end_ms: u64) -> Result<Transcript, VoiceError> {
        let models =
            self.models.as_ref().ok_or_else(|| err(VoiceErrorCode::NotLoaded, "no voice models are loaded"))?;
        let last = &self.kept[self.kept_at(start_ms, end_ms)?];
        let heard = models.stt.transcribe(&last.audio, false).map_err(|e| err(VoiceErrorCode::Stt, e))?;
        // The wake phrase must be heard again too: left in, it would be read as the request.
        let text = match &last.strip {
            Some(phrase) => smart_voice::wake_phrase::after_phrase(&heard.text, phrase).ok_or_else(|| {
                err(
                    VoiceErrorCode::NotKept,
                    format!("the second hearing did not begin with \"{phrase}\": {:?}", heard.text),
                )
            })?,
            None => heard.text.clone(),
        };
        Ok(transcript(text, heard, last.start_ms, last.end_ms, 0))
    }

    fn start_capture(&mut self, mode: CaptureMode) -> Result<(), VoiceError> {
        let models =
            self.models.as_mut().ok_or_else(|| err(VoiceErrorCode::NotLoaded, "no voice models are loaded"))?;
        let listener = match mode {
            CaptureMode::PushToTalk => {
                Listener::new(Mode::PushToTalk, models.config.endpoint.clone(), models.config.preroll_ms, None)
            }
            CaptureMode::WakeWord => models
                .wake
                .as_ref()
                .ok_or_else(|| {
                    err(VoiceErrorCode::WakeUnavailable, "the wake word is not available; use push-to-talk")
                })?
                .listener(&models.config),
        };
        let capture = capture::open(self.tx.clone()).map_err(|e| err(VoiceErrorCode::NoInputDevice, e))?;
        let resample = audio::To16k::new(capture.rate).map_err(|e| err(VoiceErrorCode::NoInputDevice, e))?;
        models.vad.reset();
        self.kept.clear();
        self.ahead = None;
        self.paced_from = None;
        let listener = listener.transcribing_ahead(models.config.transcribe_ahead);
        let rate = capture.rate;
        self.live = Some(Live { _capture: capture, listener, resample, rate });
        Ok(())
    }

    fn on_audio(&mut self, captured: capture::Captured) -> bool {
        let (Some(mut live), Some(models)) = (self.live.take(), self.models.as_mut()) else { return true };
        match captured {
            capture::Captured::Failed(reason) => self.send(0, Event::InputLost { reason }),
            capture::Captured::Samples { rate, samples } => {
                if rate != live.rate {
                    self.live = Some(live);
                    return true;
                }
                let chunk = live.resample.push(&samples);
                if chunk.is_empty() {
                    self.live = Some(live);
                    return true;
                }
                let vosk = models.wake.as_mut().and_then(WakeWord::vosk);
                let alive = match live.listener.push(&chunk, &mut models.vad, vosk) {
                    Ok(outs) => self.deliver(0, outs, Some(&mut live.listener)),
                    Err(e) => self.send(0, Event::Error(err(VoiceErrorCode::Internal, e))),
                };
                self.live = Some(live);
                alive
            }
        }
    }
}

/// What was said (`text`: what whisper heard, perhaps without the wake phrase) as a transcript
/// of the audio from `start_ms` to `end_ms`.
fn transcript(text: String, heard: stt::Heard, start_ms: u64, end_ms: u64, vad_ms: u64) -> Transcript {
    Transcript {
        text,
        confidence: heard.confidence,
        no_speech: heard.no_speech,
        language: heard.language,
        start_ms,
        end_ms,
        timings: smart_voice::protocol::SttTimings { vad_ms, ..heard.timings },
    }
}

/// What whisper is told was said before speech that may address SMART: a request made with
/// the phrase, so the phrase is the text it expects to continue with.
fn wake_lead(phrase: &str) -> String {
    let mut c = phrase.chars();
    let cap: String = c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default();
    format!("{cap}, list my files.")
}

fn run(rx: Receiver<Msg>, tx: Sender<Msg>) {
    let mut worker = Worker {
        out: std::io::stdout().lock(),
        models: None,
        output: output::Output::off(),
        live: None,
        tx,
        kept: Default::default(),
        ahead: None,
        paced_from: None,
    };
    while let Ok(msg) = rx.recv() {
        let alive = match msg {
            Msg::StdinClosed => false,
            Msg::Audio(a) => worker.on_audio(a),
            Msg::Line(line) => match smart_voice::protocol::decode_request(&line) {
                Err((id, e)) => worker.send(id, Event::Error(e)),
                Ok(req) => match worker.handle(req.id, req.request) {
                    Ok(alive) => alive,
                    Err(e) => worker.send(req.id, Event::Error(e)),
                },
            },
        };
        if !alive {
            return;
        }
    }
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().collect();
    if argv.iter().any(|a| a == "--version") {
        println!(
            "smart-voice-worker {} (protocol {PROTOCOL_VERSION}, whisper.cpp {}, wake word {})",
            env!("CARGO_PKG_VERSION"),
            whisper_rs::WHISPER_CPP_VERSION,
            if cfg!(has_vosk) { "vosk" } else { "unavailable" }
        );
        return ExitCode::SUCCESS;
    }
    if std::env::var_os("SMART_WORKER_LOG").is_none_or(|v| v != "1") {
        // Without a logging backend the hooks swallow whisper.cpp's and ggml's output.
        whisper_rs::install_logging_hooks();
    }
    if argv.get(1).map(String::as_str) == Some("--stt-bench") {
        return bench(&argv[2..]);
    }
    if argv.get(1).map(String::as_str) == Some("--score") {
        return score_texts(&argv[2..]);
    }
    let (tx, rx) = channel();
    let reader_tx = tx.clone();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            match line {
                Ok(l) if l.trim().is_empty() => continue,
                Ok(l) => {
                    if reader_tx.send(Msg::Line(l)).is_err() {
                        return;
                    }
                }
                Err(_) => break,
            }
        }
        let _ = reader_tx.send(Msg::StdinClosed);
    });
    run(rx, tx);
    ExitCode::SUCCESS
}

/// Whether whisper, made to write the wake phrase for `audio`, finds it about as likely as
/// `heard` (what it wrote freely) — `smart_voice::wake_phrase::sounds_like_phrase` decides on
/// the scores. A failure to score is a no: a wake must be sure.
fn phrase_is_likely(stt: &stt::Stt, audio: &[f32], phrase: &str, heard: &str) -> bool {
    let mut texts = smart_voice::wake_phrase::written_forms(phrase);
    texts.push(format!(" {}", heard.trim()));
    let Ok(mut scores) = stt.weigh(audio, &texts, None) else { return false };
    let Some(heard) = scores.pop() else { return false };
    let best = scores.into_iter().max_by(|a, b| a.per_token().total_cmp(&b.per_token()));
    best.is_some_and(|p| smart_voice::wake_phrase::sounds_like_phrase(&p, &heard))
}

/// How likely whisper finds each text for one file, and what it hears freely (the wake word's
/// acoustic check, by hand): `--score MODEL WAV TEXT...` prints one line, `"text" logp/tokens`
/// for each, the free transcript last, and how long weighing them all took.
fn score_texts(args: &[String]) -> ExitCode {
    let (Some(model), Some(wav)) = (args.first(), args.get(1)) else {
        eprintln!("usage: smart-voice-worker --score MODEL WAV [TEXT...]");
        return ExitCode::from(2);
    };
    let run = || -> Result<String, String> {
        let stt = stt::Stt::load(model, 2, None, None)?;
        let audio = audio::read_wav(wav)?;
        let heard = stt.transcribe(&audio, true)?;
        let mut texts: Vec<String> = args[2..].to_vec();
        texts.push(format!(" {}", heard.text));
        let started = Instant::now();
        let scores = stt.weigh(&audio, &texts, None)?;
        let ms = started.elapsed().as_millis();
        let mut line: Vec<String> =
            texts.iter().zip(scores).map(|(t, s)| format!("{t:?} {:.2}/{}", s.logp, s.tokens)).collect();
        line.push(format!("weighed in {ms} ms"));
        Ok(line.join(" | "))
    };
    match run() {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("smart-voice-worker: {e}");
            ExitCode::FAILURE
        }
    }
}

/// whisper.cpp with our trimmed window and with its 30 s default, on one file, for
/// `smart-bench`'s comparison: `--stt-bench MODEL WAV [THREADS] [PROMPT]` prints one JSON object.
fn bench(args: &[String]) -> ExitCode {
    let (Some(model), Some(wav)) = (args.first(), args.get(1)) else {
        eprintln!("usage: smart-voice-worker --stt-bench MODEL WAV [THREADS] [PROMPT]");
        return ExitCode::from(2);
    };
    let threads = args.get(2).and_then(|t| t.parse().ok()).unwrap_or(2);
    let prompt = args.get(3).cloned();
    let run = || -> Result<serde_json::Value, String> {
        let stt = stt::Stt::load(model, threads, None, prompt)?;
        let audio = audio::read_wav(wav)?;
        stt.transcribe(&audio, true)?; // warm-up
        let trimmed = stt.transcribe(&audio, true)?;
        let full = stt.transcribe(&audio, false)?;
        Ok(serde_json::json!({
            "audio_ms": trimmed.timings.audio_ms,
            "trimmed": {"ms": trimmed.timings.stt_ms, "audio_ctx": trimmed.timings.audio_ctx, "text": trimmed.text},
            "full_window": {"ms": full.timings.stt_ms, "audio_ctx": full.timings.audio_ctx, "text": full.text},
        }))
    };
    match run() {
        Ok(v) => {
            println!("{v}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("smart-voice-worker: {e}");
            ExitCode::FAILURE
        }
    }
}
