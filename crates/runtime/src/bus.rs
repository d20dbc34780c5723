//! The event bus: typed messages between the parts of one interaction, each with the
//! correlation id that also lands in the ledger.
//!
//! Nothing on the bus has authority. It reports what happened — a transcript, a proposal, the
//! kernel's outcome, a worker fault — so the CLI can print each step, the desktop HUD can show
//! it, and a test can assert the order. Decisions go through the kernel and the ledger, never
//! through a bus message. A broadcast channel fits: any number of listeners, none of which can
//! hold up the pipeline (a slow listener loses old messages, not the interaction).

use crate::interaction::{State, Trigger};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::broadcast;

/// Who proposed a call: the phrase templates or the model.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProposalSource {
    Template,
    Model,
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum BusEvent {
    StateChanged {
        from: State,
        to: State,
        trigger: Trigger,
    },
    IllegalTransition {
        from: State,
        trigger: Trigger,
    },
    Utterance {
        text: String,
    },
    Proposal {
        source: ProposalSource,
        tool: String,
        args: Value,
    },
    /// The proposer answered without a call.
    Reply {
        text: String,
    },
    /// What the kernel made of a proposal (`smart call`'s report).
    Outcome {
        tool: String,
        report: Value,
    },
    /// A worker is being started and its model loaded (the first use, or after a fault).
    WorkerStarting,
    WorkerReady {
        model: String,
        format: String,
        load_ms: u64,
    },
    WorkerFault {
        reason: String,
        restart_in_ms: u64,
    },
    /// Understanding is getting ready: the ranking prompt's static part is being evaluated
    /// (at start and after a scope change), and a proposal waits for it.
    Preparing,
    /// Ready: a proposal now pays only for its own words.
    Prepared {
        tokens: u32,
        ms: u64,
    },
    /// The microphone's loudness (for the HUD's meter).
    Level {
        rms_dbfs: f32,
    },
    SpeechStart {
        at_ms: u64,
    },
    SpeechEnd {
        at_ms: u64,
    },
    Wake {
        phrase: String,
    },
    /// Speech that did not begin with the wake phrase: not addressed to SMART, ignored.
    WakeRejected {
        heard: String,
    },
    /// What has been heard so far while the person is still talking.
    Partial {
        text: String,
    },
    /// What whisper heard, before anything is made of it.
    Heard {
        text: String,
        confidence: f32,
        stt_ms: u64,
    },
    /// An emergency word stopped everything.
    Emergency {
        word: String,
    },
    /// What SMART said aloud at the end of a spoken turn (the overlay shows the same words).
    Spoken {
        text: String,
    },
}

/// Which bus event a message is: the `event` tag it is serialised with, as its own type, so the
/// HUD's TypeScript compares it against the generated union instead of free text.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum BusEventKind {
    StateChanged,
    IllegalTransition,
    Utterance,
    Proposal,
    Reply,
    Outcome,
    WorkerStarting,
    WorkerReady,
    WorkerFault,
    Preparing,
    Prepared,
    Level,
    SpeechStart,
    SpeechEnd,
    Wake,
    WakeRejected,
    Partial,
    Heard,
    Emergency,
    Spoken,
}

impl BusEvent {
    /// The event's kind (the same word as its serialised `event` tag; tested).
    pub fn kind(&self) -> BusEventKind {
        use BusEventKind as K;
        match self {
            BusEvent::StateChanged { .. } => K::StateChanged,
            BusEvent::IllegalTransition { .. } => K::IllegalTransition,
            BusEvent::Utterance { .. } => K::Utterance,
            BusEvent::Proposal { .. } => K::Proposal,
            BusEvent::Reply { .. } => K::Reply,
            BusEvent::Outcome { .. } => K::Outcome,
            BusEvent::WorkerStarting => K::WorkerStarting,
            BusEvent::WorkerReady { .. } => K::WorkerReady,
            BusEvent::WorkerFault { .. } => K::WorkerFault,
            BusEvent::Preparing => K::Preparing,
            BusEvent::Prepared { .. } => K::Prepared,
            BusEvent::Level { .. } => K::Level,
            BusEvent::SpeechStart { .. } => K::SpeechStart,
            BusEvent::SpeechEnd { .. } => K::SpeechEnd,
            BusEvent::Wake { .. } => K::Wake,
            BusEvent::WakeRejected { .. } => K::WakeRejected,
            BusEvent::Partial { .. } => K::Partial,
            BusEvent::Heard { .. } => K::Heard,
            BusEvent::Emergency { .. } => K::Emergency,
            BusEvent::Spoken { .. } => K::Spoken,
        }
    }

    /// The voice worker's events that the HUD shows.
    pub fn from_voice(e: &smart_voice::protocol::Event) -> Option<BusEvent> {
        use smart_voice::protocol::Event as V;
        Some(match e {
            V::Level { rms_dbfs, .. } => BusEvent::Level { rms_dbfs: *rms_dbfs },
            V::SpeechStart { at_ms } => BusEvent::SpeechStart { at_ms: *at_ms },
            V::SpeechEnd { at_ms, .. } => BusEvent::SpeechEnd { at_ms: *at_ms },
            V::Wake { phrase, .. } => BusEvent::Wake { phrase: phrase.clone() },
            V::WakeRejected { heard, .. } => BusEvent::WakeRejected { heard: heard.clone() },
            V::Partial { text } => BusEvent::Partial { text: text.clone() },
            V::Transcript(t) => {
                BusEvent::Heard { text: t.text.clone(), confidence: t.confidence, stt_ms: t.timings.stt_ms }
            }
            _ => return None,
        })
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Envelope {
    pub corr: String,
    #[serde(flatten)]
    pub event: BusEvent,
}

#[derive(Clone)]
pub struct Bus {
    tx: broadcast::Sender<Envelope>,
}

impl Default for Bus {
    fn default() -> Self {
        Bus::new(256)
    }
}

impl Bus {
    pub fn new(capacity: usize) -> Bus {
        let (tx, _) = broadcast::channel(capacity.max(1));
        Bus { tx }
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Envelope> {
        self.tx.subscribe()
    }

    /// Sends to whoever listens; nobody listening is fine.
    pub fn emit(&self, corr: &str, event: BusEvent) {
        tracing::debug!(corr, ?event, "bus");
        let _ = self.tx.send(Envelope { corr: corr.to_string(), event });
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// Every event's kind is the word its message carries in `event` (what the HUD reads).
    #[test]
    fn each_kind_is_the_events_own_tag() {
        let state = crate::interaction::State::Idle;
        let trigger = crate::interaction::Trigger::TextSubmitted;
        let text = || "x".to_string();
        let events = [
            BusEvent::StateChanged { from: state, to: state, trigger },
            BusEvent::IllegalTransition { from: state, trigger },
            BusEvent::Utterance { text: text() },
            BusEvent::Proposal { source: ProposalSource::Model, tool: text(), args: Value::Null },
            BusEvent::Reply { text: text() },
            BusEvent::Outcome { tool: text(), report: Value::Null },
            BusEvent::WorkerStarting,
            BusEvent::WorkerReady { model: text(), format: text(), load_ms: 1 },
            BusEvent::WorkerFault { reason: text(), restart_in_ms: 1 },
            BusEvent::Preparing,
            BusEvent::Prepared { tokens: 1, ms: 1 },
            BusEvent::Level { rms_dbfs: -1.0 },
            BusEvent::SpeechStart { at_ms: 1 },
            BusEvent::SpeechEnd { at_ms: 1 },
            BusEvent::Wake { phrase: text() },
            BusEvent::WakeRejected { heard: text() },
            BusEvent::Partial { text: text() },
            BusEvent::Heard { text: text(), confidence: 0.5, stt_ms: 1 },
            BusEvent::Emergency { word: text() },
            BusEvent::Spoken { text: text() },
        ];
        let mut seen = std::collections::BTreeSet::new();
        for e in &events {
            let tag = serde_json::to_value(e).unwrap()["event"].clone();
            assert_eq!(serde_json::to_value(e.kind()).unwrap(), tag, "{e:?}");
            seen.insert(tag.as_str().unwrap().to_string());
        }
        assert_eq!(seen.len(), events.len(), "one event of each kind");
    }
}
