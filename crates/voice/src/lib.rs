//! The voice path's pure parts: what the runtime and the voice worker agree on, and the
//! decisions about audio that must be the same from a file, a microphone or a test.
//!
//! The native engines (whisper.cpp, Silero through whisper.cpp, vosk, cpal) live in the
//! `smart-voice-worker` binary. This crate has none of them, so the runtime, the CLI and the
//! desktop app depend on it without building a speech engine, and everything here is tested
//! without audio hardware:
//!
//! - [`protocol`]: the JSON-lines messages between the runtime and the worker.
//! - [`endpoint`]: speech start/end from per-frame VAD probabilities (a transition table).
//! - [`preroll`]: the ring buffer that keeps the audio from just before speech or the key press.
//! - [`command_words`]: the words people use to tell SMART what to do.
//! - [`bias`]: whisper told which words and names to expect while it decodes.
//! - [`emergency`]: "stop", "abort", "wrong", "reset" said on their own go to the emergency gate.
//! - [`phonetic`]: how a phrase sounds, to compare what was heard with what exists.
//! - [`heard_names`]: misheard file and folder names put right, against the names that exist.
//! - [`heard_edit`]: a heard edit's old words put right against the file's, its new words in their case.
//! - [`heard_index`]: a request to rebuild the search index, as whisper writes it, heard as one.
//! - [`heard_paths`]: a spoken path whose parts mostly exist put right as a whole.
//! - [`run_together`]: words whisper ran together ("Hashnet file", "contact.docxinto") written apart.
//! - [`spoken`]: file names said aloud ("old dot log") written back for the proposers.
//! - [`weighed_names`]: names that sound loosely like what was heard, for whisper to weigh.
//! - [`weighed_openings`]: the words a request opens with, likewise weighed.
//! - [`wake_phrase`]: whether whisper's transcript begins with the wake phrase, and the rest.
//! - [`wer`]: word error rate, for the tests and the benchmark.

pub mod bias;
pub mod command_words;
pub mod emergency;
pub mod endpoint;
pub mod heard_edit;
pub mod heard_index;
pub mod heard_names;
pub mod heard_paths;
pub mod heard_put;
pub mod heard_topics;
pub mod phonetic;
pub mod preroll;
pub mod protocol;
pub mod run_together;
pub mod spoken;
pub mod wake_phrase;
pub mod weighed_names;
pub mod weighed_openings;
pub mod wer;

pub use emergency::emergency_word;
pub use endpoint::{Boundary, EndpointConfig, Endpointer};
pub use preroll::PreRoll;
pub use wer::word_error_rate;
