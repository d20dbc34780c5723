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
mod wake;

use listener::{Listener, Mode, Out};
use smart_voice::protocol::{
    CaptureMode, DeviceStatus, Event, EventLine, LoadVoice, Loaded, PROTOCOL_VERSION, Request, Transcript, VoiceError,
    VoiceErrorCode, WakeStatus,
};
use std::io::{BufRead, Write};
use std::process::ExitCode;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Instant;

pub enum Msg {
    Line(String),
    StdinClosed,
    Audio(capture::Captured),
}

struct Models {
    stt: stt::Stt,
    vad: vad::Vad,
    wake: Option<wake::Wake>,
    config: LoadVoice,
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
            Request::TranscribeFile { path } => {
                self.transcribe_file(id, &path)?;
                Ok(true)
            }
            Request::StartCapture { mode } => {
                self.start_capture(mode)?;
                Ok(self.send(id, Event::Ok))
            }
            Request::PushToTalk { down } => {
                let live = self.live.as_mut().ok_or_else(|| {
                    err(VoiceErrorCode::BadRequest, "push-to-talk without an open microphone (start_capture first)")
                })?;
                let outs = if down {
                    live.listener.press();
                    vec![]
                } else {
                    live.listener.release()
                };
                let alive = self.send(id, Event::Ok);
                Ok(alive && self.deliver(0, outs))
            }
            Request::StopCapture => {
                self.live = None;
                Ok(self.send(id, Event::Ok))
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
        let expected_forms = stt.expect(cfg.expect.as_ref()).map_err(|e| err(VoiceErrorCode::BadRequest, e))?;
        let vad = vad::Vad::load(&cfg.vad, 1).map_err(|e| err(VoiceErrorCode::ModelLoad, e))?;
        let (wake, wake_status) = match &cfg.wake {
            None => {
                (None, WakeStatus::Unavailable { reason: "no wake-word model is configured; use push-to-talk".into() })
            }
            Some(w) => match wake::Wake::load(&w.model, &w.phrase) {
                Ok(engine) => {
                    let phrase = engine.phrase.clone();
                    (Some(engine), WakeStatus::Ready { phrase })
                }
                Err(reason) => (None, WakeStatus::Unavailable { reason: format!("{reason}; use push-to-talk") }),
            },
        };
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
        self.models = Some(Models { stt, vad, wake, config: cfg });
        Ok(loaded)
    }

    fn transcribe_file(&mut self, id: u64, path: &str) -> Result<(), VoiceError> {
        let models =
            self.models.as_mut().ok_or_else(|| err(VoiceErrorCode::NotLoaded, "no voice models are loaded"))?;
        let audio = audio::read_wav(path).map_err(|e| err(VoiceErrorCode::BadAudio, e))?;
        models.vad.reset();
        let mut listener = Listener::new(Mode::Vad, models.config.endpoint.clone(), models.config.preroll_ms, None)
            .with_partials(models.config.partial_every_ms);
        // A file is fed in the steps a microphone would deliver, so both take the same path.
        for chunk in audio.chunks(1600) {
            let models =
                self.models.as_mut().ok_or_else(|| err(VoiceErrorCode::NotLoaded, "no voice models are loaded"))?;
            let outs = listener.push(chunk, &mut models.vad, None).map_err(|e| err(VoiceErrorCode::Internal, e))?;
            if !self.deliver(id, outs) {
                return Ok(());
            }
        }
        let outs = listener.finish(None);
        self.deliver(id, outs);
        let audio_ms = audio.len() as u64 * 1000 / 16_000;
        self.send(id, Event::Done { audio_ms });
        Ok(())
    }

    /// Sends the listener's events, transcribing utterances on the way. `false` when the
    /// runtime is gone.
    fn deliver(&mut self, id: u64, outs: Vec<Out>) -> bool {
        for o in outs {
            let event = match o {
                Out::Event(e) => e,
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
                Out::Utterance { audio, start_ms, end_ms, strip } => {
                    let Some(models) = self.models.as_mut() else { continue };
                    let vad_ms = models.vad.take_time().as_millis() as u64;
                    match models.stt.transcribe(&audio, true) {
                        Ok(heard) => {
                            let text = match &strip {
                                Some(phrase) => strip_phrase(&heard.text, phrase),
                                None => heard.text,
                            };
                            Event::Transcript(Transcript {
                                text,
                                confidence: heard.confidence,
                                no_speech: heard.no_speech,
                                language: heard.language,
                                start_ms,
                                end_ms,
                                timings: smart_voice::protocol::SttTimings { vad_ms, ..heard.timings },
                            })
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

    fn start_capture(&mut self, mode: CaptureMode) -> Result<(), VoiceError> {
        let models =
            self.models.as_mut().ok_or_else(|| err(VoiceErrorCode::NotLoaded, "no voice models are loaded"))?;
        let wake_phrase = match mode {
            CaptureMode::PushToTalk => None,
            CaptureMode::WakeWord => Some(models.wake.as_ref().map(|w| w.phrase.clone()).ok_or_else(|| {
                err(VoiceErrorCode::WakeUnavailable, "the wake word is not available; use push-to-talk")
            })?),
        };
        let capture = capture::open(self.tx.clone()).map_err(|e| err(VoiceErrorCode::NoInputDevice, e))?;
        let resample = audio::To16k::new(capture.rate).map_err(|e| err(VoiceErrorCode::NoInputDevice, e))?;
        models.vad.reset();
        let listen_mode = if wake_phrase.is_some() { Mode::WakeWord } else { Mode::PushToTalk };
        let listener =
            Listener::new(listen_mode, models.config.endpoint.clone(), models.config.preroll_ms, wake_phrase);
        let rate = capture.rate;
        self.live = Some(Live { _capture: capture, listener, resample, rate });
        Ok(())
    }

    fn on_audio(&mut self, captured: capture::Captured) -> bool {
        let (Some(live), Some(models)) = (self.live.as_mut(), self.models.as_mut()) else { return true };
        match captured {
            capture::Captured::Failed(reason) => {
                self.live = None;
                self.send(0, Event::InputLost { reason })
            }
            capture::Captured::Samples { rate, samples } => {
                if rate != live.rate {
                    return true;
                }
                let chunk = live.resample.push(&samples);
                if chunk.is_empty() {
                    return true;
                }
                match live.listener.push(&chunk, &mut models.vad, models.wake.as_mut()) {
                    Ok(outs) => self.deliver(0, outs),
                    Err(e) => self.send(0, Event::Error(err(VoiceErrorCode::Internal, e))),
                }
            }
        }
    }
}

/// The transcript without the wake phrase it may begin with.
fn strip_phrase(text: &str, phrase: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let n = phrase.split_whitespace().count();
    let norm = |w: &str| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
    let head: Vec<String> = words.iter().take(n).map(|w| norm(w)).collect();
    if head.len() == n && head.join(" ") == phrase {
        words[n..].join(" ").trim_start_matches([',', '.', ' ']).to_string()
    } else {
        text.to_string()
    }
}

fn run(rx: Receiver<Msg>, tx: Sender<Msg>) {
    let mut worker =
        Worker { out: std::io::stdout().lock(), models: None, output: output::Output::off(), live: None, tx };
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wake_phrase_is_stripped_only_from_the_front() {
        assert_eq!(strip_phrase("Hey Smart, scan the folder.", "hey smart"), "scan the folder.");
        assert_eq!(strip_phrase("scan the folder", "hey smart"), "scan the folder");
        assert_eq!(strip_phrase("scan hey smart", "hey smart"), "scan hey smart");
    }
}
