//! What the assistant's turn tests share: a real engine over a real root, an assistant whose
//! model factory fails (every sentence these tests say is one the model-free reading answers,
//! so being asked for the model is an error the test sees), and one way to type or hear a
//! sentence against it.
//!
//! Each test file builds its own folder tree; only the plumbing around a turn lives here, so a
//! change to how a turn is run (its options, how a heard transcript is made) is made once.

#![allow(dead_code, clippy::unwrap_used, clippy::panic)]

use smart_kernel::Policy;
use smart_runtime::assistant::{AssistantError, Heard};
use smart_runtime::rehearing::Rehear;
use smart_runtime::{Assistant, Bus, Engine, FixedClock, InitOptions, SayOptions, SayReport, TurnId};
use smart_signals::KeyStoreKind;
use smart_voice::protocol::Transcript;
use std::path::Path;

/// The fixed time every engine here reads.
pub const NOW_MS: u64 = 1_800_000_000_000;

/// A real engine whose data lives in `data` and whose one allowed folder is `root`.
pub fn engine(data: &Path, root: &Path, policy: Option<Policy>) -> Engine {
    let opts = InitOptions { roots: vec![root.to_path_buf()], policy, key_store: Some(KeyStoreKind::File) };
    let (engine, _) = Engine::init(data, opts, Box::new(FixedClock(NOW_MS))).unwrap();
    engine
}

/// An assistant over `engine` that has no model: asking for one fails.
pub fn without_model(engine: Engine) -> Assistant {
    Assistant::new(engine, Bus::default(), Box::new(|| Err(AssistantError::NothingToPerceive)))
}

/// Turn options that only propose, with paths read against `root`.
pub fn propose_only(root: &Path) -> SayOptions {
    SayOptions { propose_only: true, no_templates: false, base: Some(root.to_path_buf()) }
}

/// What whisper would hand over for `text`, heard from `start_ms` for two seconds.
pub fn transcript(text: &str, start_ms: u64) -> Transcript {
    Transcript {
        text: text.into(),
        confidence: 0.5,
        no_speech: 0.0,
        language: "en".into(),
        start_ms,
        end_ms: start_ms + 2_000,
        timings: Default::default(),
    }
}

/// `text` typed: the turn's report, or the error the turn ended with.
pub fn say(a: &mut Assistant, root: &Path, text: &str) -> Result<SayReport, AssistantError> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(a.say(text, &propose_only(root)))
}

/// `t` heard: the turn it became (a test that gets anything else fails).
pub fn hear(a: &mut Assistant, root: &Path, t: &Transcript, again: Option<&mut dyn Rehear>) -> SayReport {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    match rt.block_on(a.hear_with(&TurnId::new(), t, &propose_only(root), again)).unwrap() {
        Heard::Turn(r) => r,
        other => panic!("not a turn: {other:?}"),
    }
}
