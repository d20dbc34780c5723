//! The wire protocol between the runtime and the voice worker: one JSON object per line on the
//! worker's stdin and stdout.
//!
//! The voice worker is a separate process for the same reasons as the proposer worker
//! (whisper.cpp and llama.cpp each bundle a ggml and cannot share a binary; a native crash must
//! not take the kernel with it), with one difference in shape: a microphone produces things
//! nobody asked for. So requests are answered with `ok`/`error` lines carrying their id, while
//! what the audio produces — levels, speech start and end, a wake word, a transcript — arrives
//! as events with `id: 0` whenever it happens. Times inside events are on the *audio* clock
//! (milliseconds of audio since capture began), which makes a file's run reproducible and lets
//! the runtime compute latencies without trusting two processes' wall clocks to agree.
//!
//! Nothing the worker sends has authority: a transcript is text for the proposer, an emergency
//! word is recognised by the runtime from the transcript (see [`crate::emergency`]), and the
//! kernel judges whatever comes of it.

use serde::{Deserialize, Serialize};

/// Bumped whenever a message changes shape.
pub const PROTOCOL_VERSION: u32 = 1;

/// `{"v":1,"id":3,"op":"transcribe_file","path":"..."}`
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RequestLine {
    pub v: u32,
    pub id: u64,
    #[serde(flatten)]
    pub request: Request,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// Load the models and open the output. Answered by [`Event::Loaded`]. Boxed: it is by far
    /// the largest request, and the others are sent many times a second.
    Load(Box<LoadVoice>),
    /// Run the whole listening path over a WAV file as if it were the microphone (without
    /// waiting in real time): VAD → end of speech → transcript, one transcript per utterance,
    /// then [`Event::Done`]. With `wake`, as the wake-word mode would: only speech that
    /// begins with the wake phrase (or follows it) is transcribed as a command.
    TranscribeFile {
        path: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        wake: bool,
        /// Feed the file at the pace a microphone delivers it (real time), so what happens
        /// while a live utterance ends — transcribing ahead — happens here too, and each
        /// transcript says how long after the end of speech it was ready
        /// ([`SttTimings::after_end_ms`]). Otherwise the file goes through as fast as it can.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        paced: bool,
    },
    /// Open the microphone and listen. In push-to-talk mode audio is only kept between
    /// `push_to_talk {down: true}` and `{down: false}` (plus the pre-roll before the press); in
    /// wake-word mode an utterance starts at the wake phrase.
    StartCapture {
        mode: CaptureMode,
    },
    PushToTalk {
        down: bool,
    },
    /// Close the microphone. An utterance in progress is dropped, not transcribed.
    StopCapture,
    /// Hear an utterance again — the one whose transcript lay from `start_ms` to `end_ms` —
    /// with whisper's whole 30-second window instead of one cut to the utterance: slower
    /// (about a second more on a short command with tiny.en), but it hears the ends of
    /// sentences the cut window loses. The runtime asks for it only when the first hearing
    /// was read as a question. The worker keeps the latest utterances of the current capture
    /// or file, up to [`KEPT_AUDIO_MS`] of audio in all. Answered by [`Event::Transcript`]
    /// with this request's id, or a `not_kept` error when that utterance is not kept (any
    /// more), or when the wake phrase it began with is not heard in it the second time.
    Rehear {
        start_ms: u64,
        end_ms: u64,
    },
    /// How likely whisper finds each of `texts` as the transcript of the kept utterance from
    /// `start_ms` to `end_ms`: the transcript it wrote and the ways it may have been meant
    /// ([`crate::weighed_names`]). At most [`MAX_WEIGHED`] texts of at most
    /// [`MAX_WEIGHED_CHARS`] characters. Answered by [`Event::Weighed`] with this request's id,
    /// or a `not_kept` error as for [`Request::Rehear`].
    Weigh {
        start_ms: u64,
        end_ms: u64,
        texts: Vec<String>,
    },
    /// Say a reply with the platform's speech synthesiser, if there is an output.
    Speak {
        text: String,
    },
    /// Play a short cue.
    Earcon {
        kind: Earcon,
    },
    Health,
    Shutdown,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoadVoice {
    /// A whisper.cpp ggml model.
    pub whisper: String,
    /// whisper.cpp's Silero VAD model (ggml).
    pub vad: String,
    /// `None` lets a multilingual model detect the language; English-only models ignore it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<u32>,
    /// Words whisper should expect (the commands, the folder names): given to it as the
    /// previous text, which biases recognition towards them. Small models need it — tiny.en
    /// hears "scan the Downloads folder" as "Can the town vote for older?" without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// What whisper should expect while it decodes ([`crate::bias`]): the command words and
    /// the names under the allowed folders. `None`: open transcription only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
    /// The wake word's phrase and engine; `None` means push-to-talk only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wake: Option<WakeConfig>,
    #[serde(default)]
    pub endpoint: crate::endpoint::EndpointConfig,
    /// Spoken replies and earcons. Off means the worker never opens an output device.
    #[serde(default)]
    pub speak: bool,
    /// Milliseconds of audio kept from before speech (or the key press) begins.
    #[serde(default = "default_preroll")]
    pub preroll_ms: u32,
    /// While someone is still talking, transcribe what was said so far every this many
    /// milliseconds of speech (`partial` events, for the HUD). Off when absent: on two cores
    /// each partial costs a whisper run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial_every_ms: Option<u32>,
    /// Transcribe an utterance while the silence that may end it is still being waited for
    /// (audio that comes at the microphone's pace only): its window is known once the silence
    /// reaches the end padding, so the transcript is ready when the end is decided instead of
    /// whisper's time after it. Speech that resumes discards the early transcript.
    #[serde(default = "yes")]
    pub transcribe_ahead: bool,
}

fn default_preroll() -> u32 {
    500
}

fn yes() -> bool {
    true
}

/// Phrases whisper should prefer, and by how much.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Expect {
    /// Words and names as written ("rebuild", "Payslips", "guest_list.zip"); the worker adds
    /// the ways they are said ([`crate::bias::surface_forms`]).
    pub phrases: Vec<String>,
    #[serde(default)]
    pub boost: crate::bias::Boost,
}

/// How much audio the voice worker keeps for [`Request::Rehear`]: the latest utterances of
/// the current capture or file, up to two minutes (under 8 MB of samples) in all.
pub const KEPT_AUDIO_MS: u64 = 120_000;

/// At most this many texts are weighed at once ([`Request::Weigh`]), each at most this long:
/// every one is a pass of whisper's decoder.
pub const MAX_WEIGHED: usize = 16;
pub const MAX_WEIGHED_CHARS: usize = 400;

/// Why `texts` cannot be weighed in one [`Request::Weigh`], if they cannot.
pub fn weighable(texts: &[String]) -> Result<(), String> {
    if texts.is_empty() || texts.len() > MAX_WEIGHED {
        return Err(format!("{} texts to weigh; 1 to {MAX_WEIGHED}", texts.len()));
    }
    if let Some(t) = texts.iter().find(|t| t.chars().count() > MAX_WEIGHED_CHARS) {
        let head: String = t.chars().take(40).collect();
        return Err(format!("the text \"{head}…\" is longer than {MAX_WEIGHED_CHARS} characters"));
    }
    Ok(())
}

/// At most this many phrases, each at most [`MAX_PHRASE_CHARS`] long: the worker tokenizes
/// every written form of each at load, and a trie over them is walked at every decoding step.
pub const MAX_PHRASES: usize = 10_000;
pub const MAX_PHRASE_CHARS: usize = 200;
/// A bonus above this many logits would stop being a preference and overrule what was heard.
pub const MAX_BOOST: f32 = 10.0;

impl Expect {
    /// Why this cannot be expected, if it cannot.
    pub fn validate(&self) -> Result<(), String> {
        if self.phrases.len() > MAX_PHRASES {
            return Err(format!("{} phrases to expect; at most {MAX_PHRASES}", self.phrases.len()));
        }
        if let Some(p) = self.phrases.iter().find(|p| p.chars().count() > MAX_PHRASE_CHARS) {
            let head: String = p.chars().take(40).collect();
            return Err(format!("the phrase \"{head}…\" is longer than {MAX_PHRASE_CHARS} characters"));
        }
        for (what, b) in [("start", self.boost.start), ("follow", self.boost.follow)] {
            if !(0.0..=MAX_BOOST).contains(&b) {
                return Err(format!("the {what} boost {b} is outside 0..={MAX_BOOST} logits"));
            }
        }
        Ok(())
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WakeConfig {
    /// A vosk model directory; `None`: whisper listens for the phrase
    /// ([`crate::wake_phrase`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub phrase: String,
}

/// What hears the wake phrase.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WakeEngine {
    /// The loaded whisper model, on the first seconds of each stretch of speech.
    #[default]
    Whisper,
    /// A vosk model restricted to the phrase.
    Vosk,
}

impl WakeEngine {
    /// The engine's name as a person reads it.
    pub fn name(self) -> &'static str {
        match self {
            WakeEngine::Whisper => "whisper",
            WakeEngine::Vosk => "vosk",
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CaptureMode {
    PushToTalk,
    WakeWord,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Earcon {
    Listening,
    Accepted,
    Refused,
    NeedsApproval,
}

/// `{"v":1,"id":0,"event":"speech_end","at_ms":2140,...}`
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EventLine {
    pub v: u32,
    /// The request this answers; 0 for what the audio produced on its own.
    pub id: u64,
    #[serde(flatten)]
    pub event: Event,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    Loaded(Loaded),
    Ok,
    Error(VoiceError),
    /// The input's loudness, a few times a second while capturing (for the HUD's meter).
    Level {
        at_ms: u64,
        rms_dbfs: f32,
    },
    SpeechStart {
        at_ms: u64,
    },
    /// The speech ended at `at_ms`; it was known at `decided_ms` — the difference is the
    /// silence the VAD waited for, part of the latency. With push-to-talk, `decided_ms` is the
    /// release, and `at_ms` the release too unless the VAD heard the speech end before it.
    SpeechEnd {
        at_ms: u64,
        decided_ms: u64,
        speech_ms: u64,
    },
    Wake {
        at_ms: u64,
        phrase: String,
    },
    /// What the wake recogniser heard that was not the phrase (for diagnostics).
    WakeRejected {
        at_ms: u64,
        heard: String,
    },
    Partial {
        text: String,
    },
    Transcript(Transcript),
    /// The answer to [`Request::Weigh`]: whisper's log-likelihood of each text, in order (the
    /// sum over its tokens and its end, given the audio alone), and how many tokens each is.
    Weighed {
        logp: Vec<f32>,
        tokens: Vec<u32>,
    },
    /// A file has been listened to the end.
    Done {
        audio_ms: u64,
    },
    /// The input device went away or could not be opened; listening stopped.
    InputLost {
        reason: String,
    },
}

/// How an output that plays earcons but cannot speak names itself (`Loaded::speaks`).
pub const EARCONS_ONLY: &str = "earcons only";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Loaded {
    pub whisper: String,
    pub multilingual: bool,
    pub wake: WakeStatus,
    pub input: DeviceStatus,
    pub output: DeviceStatus,
    pub load_ms: u64,
    pub whisper_cpp: String,
    /// How many written forms of the expected phrases whisper prefers while decoding (0: open
    /// transcription only).
    #[serde(default)]
    pub expected_forms: usize,
}

impl Loaded {
    /// Whether a reply is said aloud, not only shown (an output that can speak).
    pub fn speaks(&self) -> bool {
        matches!(&self.output, DeviceStatus::Available { name } if !name.contains(EARCONS_ONLY))
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum WakeStatus {
    Ready {
        phrase: String,
        #[serde(default)]
        engine: WakeEngine,
    },
    /// No wake model configured, or it failed to load: push-to-talk still works.
    Unavailable { reason: String },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum DeviceStatus {
    Available {
        name: String,
    },
    Unavailable {
        reason: String,
    },
    /// Not asked for (spoken replies off).
    Off,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Transcript {
    pub text: String,
    /// Mean probability of the text's tokens, 0..1.
    pub confidence: f32,
    /// whisper's own estimate that the segment held no speech.
    pub no_speech: f32,
    pub language: String,
    /// Where the utterance lies on the audio clock.
    pub start_ms: u64,
    pub end_ms: u64,
    pub timings: SttTimings,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SttTimings {
    /// Audio handed to whisper (the utterance with its pre-roll and padding).
    pub audio_ms: u64,
    /// The encoder window actually used (`audio_ctx`, in 20 ms frames).
    pub audio_ctx: u32,
    /// Wall time whisper took on this utterance: after the end of speech was known, or, when
    /// `ahead`, before.
    pub stt_ms: u64,
    /// Wall time the VAD spent on this utterance's audio.
    pub vad_ms: u64,
    /// Transcribed ahead, while the silence that ended the speech was still being waited for.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ahead: bool,
    /// Audio at the microphone's pace only (a paced file): wall time from the end of speech, on
    /// the audio clock, to this transcript being ready — the VAD's wait and whisper together,
    /// measured rather than added up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_end_ms: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("{message}")]
pub struct VoiceError {
    pub code: VoiceErrorCode,
    pub message: String,
}

impl VoiceError {
    pub fn new(code: VoiceErrorCode, message: impl Into<String>) -> VoiceError {
        VoiceError { code, message: message.into() }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VoiceErrorCode {
    BadRequest,
    VersionMismatch,
    NotLoaded,
    ModelLoad,
    BadAudio,
    NoInputDevice,
    WakeUnavailable,
    Busy,
    Stt,
    Internal,
    /// `rehear` named an utterance the worker no longer keeps (or never heard).
    NotKept,
}

pub fn encode_request(id: u64, request: Request) -> Result<String, serde_json::Error> {
    serde_json::to_string(&RequestLine { v: PROTOCOL_VERSION, id, request })
}

/// Parses a request line; on failure, the id to answer (0 if unreadable) and why.
pub fn decode_request(line: &str) -> Result<RequestLine, (u64, VoiceError)> {
    let value: serde_json::Value = serde_json::from_str(line.trim())
        .map_err(|e| (0, VoiceError::new(VoiceErrorCode::BadRequest, format!("not JSON: {e}"))))?;
    let id = value.get("id").and_then(serde_json::Value::as_u64).unwrap_or(0);
    match value.get("v").and_then(serde_json::Value::as_u64) {
        Some(v) if v == u64::from(PROTOCOL_VERSION) => {}
        other => {
            return Err((
                id,
                VoiceError::new(
                    VoiceErrorCode::VersionMismatch,
                    format!("protocol version {other:?}, this worker speaks {PROTOCOL_VERSION}"),
                ),
            ));
        }
    }
    serde_json::from_value(value).map_err(|e| (id, VoiceError::new(VoiceErrorCode::BadRequest, e.to_string())))
}

pub fn decode_event(line: &str) -> Result<EventLine, String> {
    let line: EventLine = serde_json::from_str(line.trim()).map_err(|e| format!("not an event line: {e}"))?;
    if line.v != PROTOCOL_VERSION {
        return Err(format!("voice worker speaks protocol {}, the runtime {PROTOCOL_VERSION}", line.v));
    }
    Ok(line)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    #[test]
    fn only_an_output_with_speech_says_a_reply_aloud() {
        let with = |output| Loaded {
            whisper: "tiny.en".into(),
            multilingual: false,
            wake: WakeStatus::Unavailable { reason: "off".into() },
            input: DeviceStatus::Off,
            output,
            load_ms: 0,
            whisper_cpp: String::new(),
            expected_forms: 0,
        };
        assert!(with(DeviceStatus::Available { name: "default output, speech by espeak-ng".into() }).speaks());
        let earcons = format!("default output ({EARCONS_ONLY}: no speech service: none)");
        assert!(!with(DeviceStatus::Available { name: earcons }).speaks());
        assert!(!with(DeviceStatus::Unavailable { reason: "no audio output".into() }).speaks());
        assert!(!with(DeviceStatus::Off).speaks());
    }

    #[test]
    fn requests_and_events_survive_the_wire() {
        let line = encode_request(4, Request::PushToTalk { down: true }).unwrap();
        assert_eq!(line, r#"{"v":1,"id":4,"op":"push_to_talk","down":true}"#);
        assert_eq!(decode_request(&line).unwrap().request, Request::PushToTalk { down: true });
        let ev = EventLine { v: 1, id: 0, event: Event::SpeechEnd { at_ms: 2140, decided_ms: 2620, speech_ms: 1800 } };
        let text = serde_json::to_string(&ev).unwrap();
        assert_eq!(decode_event(&text).unwrap(), ev);
    }

    #[test]
    fn a_line_from_another_protocol_version_is_refused_with_its_id() {
        let (id, err) = decode_request(r#"{"v":9,"id":12,"op":"health"}"#).unwrap_err();
        assert_eq!((id, err.code), (12, VoiceErrorCode::VersionMismatch));
        let (_, err) = decode_request(r#"{"v":1,"id":2,"op":"fly"}"#).unwrap_err();
        assert_eq!(err.code, VoiceErrorCode::BadRequest);
        assert!(decode_event(r#"{"v":2,"id":0,"event":"ok"}"#).is_err());
    }

    #[test]
    fn an_expectation_too_large_or_too_strong_is_refused_with_the_reason() {
        let ok = Expect { phrases: vec!["Payslips".into()], boost: Default::default() };
        assert_eq!(ok.validate(), Ok(()));
        let many = Expect { phrases: vec!["a".into(); MAX_PHRASES + 1], ..ok.clone() };
        assert!(many.validate().unwrap_err().contains("at most 10000"));
        let long = Expect { phrases: vec!["x".repeat(MAX_PHRASE_CHARS + 1)], ..ok.clone() };
        assert!(long.validate().unwrap_err().contains("longer than 200"));
        for b in [-1.0, 11.0, f32::NAN, f32::INFINITY] {
            let strong = Expect { boost: crate::bias::Boost { start: 0.0, follow: b }, ..ok.clone() };
            assert!(strong.validate().unwrap_err().contains("follow boost"), "{b}");
        }
        // Older clients send no boost: the measured default applies.
        let e: Expect = serde_json::from_str(r#"{"phrases":["x"]}"#).unwrap();
        assert_eq!(e.boost, crate::bias::Boost::default());
    }
}
