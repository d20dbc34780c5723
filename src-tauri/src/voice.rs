//! The voice path inside the app: one supervised voice worker, its events turned into the HUD's
//! live line, its transcripts into turns of the same `Assistant` the command box uses.
//!
//! One task owns the worker (a `VoiceSupervisor`) and does three things in turn: it forwards
//! push-to-talk presses from the hotkey or the HUD's microphone button, it passes what the worker
//! hears to the runtime (levels straight to the bus, speech boundaries to the state machine,
//! transcripts to `Assistant::hear`), and it reports what it could start in a [`VoiceStatus`].
//! Owning the worker in one task means no lock is held while waiting on audio, and presses are
//! never lost: they queue on a channel.
//!
//! Nothing here is required. Without models, without a microphone (a server, a VM, our CI) or
//! without a wake-word model, the status says which and why, and everything else — typing,
//! approving, the timeline — works as before. A transcript has no more authority than typed
//! text: it goes through the proposers and the kernel like any other utterance.

use crate::session::Session;
use crate::settings;
use serde::Serialize;
use smart_kernel::RefusalCode;
use smart_models::Models;
use smart_runtime::assistant::Heard;
use smart_runtime::bus::BusEvent;
use smart_runtime::interaction::Trigger;
use smart_runtime::model_choice::{VoiceChoice, folder_vocabulary, hearing_vocabulary, voice_load};
use smart_runtime::voice::{VoiceSupervisor, VoiceWorkerError, locate_voice_worker};
use smart_runtime::{CallOutcome, SayOptions};
use smart_voice::protocol::{CaptureMode, DeviceStatus, Earcon, Event, Loaded, Request, WakeStatus};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tauri::{AppHandle, Manager, Runtime, State};
use tokio::sync::mpsc;

/// What the voice path could start, for the HUD.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct VoiceStatus {
    /// off (not started yet) | starting | listening | no_microphone | unavailable
    pub state: String,
    /// One line for the person: what works and, if something does not, why.
    pub detail: String,
    pub whisper: Option<String>,
    /// push_to_talk | wake_word, while listening.
    pub mode: Option<String>,
    pub wake: String,
    pub microphone: String,
}

impl VoiceStatus {
    fn off() -> VoiceStatus {
        VoiceStatus {
            state: "off".into(),
            detail: "voice has not been started".into(),
            whisper: None,
            mode: None,
            wake: String::new(),
            microphone: String::new(),
        }
    }

    fn unavailable(detail: String) -> VoiceStatus {
        VoiceStatus { state: "unavailable".into(), detail, ..VoiceStatus::off() }
    }
}

enum Command {
    PushToTalk(bool),
}

#[derive(Default)]
pub struct VoiceHost {
    status: Arc<Mutex<VoiceStatus>>,
    commands: Mutex<Option<mpsc::UnboundedSender<Command>>>,
    /// When the voice task last started: one that ended (no model yet, a worker that would
    /// not start) is tried again on a later ask, but not more often than [`RETRY_AFTER`].
    started: Mutex<Option<Instant>>,
}

/// How long an ended voice task waits before a status request starts it again — long enough
/// that a worker failing at start cannot spin, short enough that a model fetched in the first-run
/// screen is picked up without a restart.
const RETRY_AFTER: Duration = Duration::from_secs(5);

impl Default for VoiceStatus {
    fn default() -> Self {
        VoiceStatus::off()
    }
}

impl VoiceHost {
    pub fn status(&self) -> VoiceStatus {
        self.status
            .lock()
            .map(|s| s.clone())
            .unwrap_or_else(|_| VoiceStatus::unavailable("voice status unreadable".into()))
    }

    fn set(status: &Arc<Mutex<VoiceStatus>>, s: VoiceStatus) {
        if let Ok(mut g) = status.lock() {
            *g = s;
        }
    }

    /// Starts the voice task unless it runs (or ended less than [`RETRY_AFTER`] ago).
    pub fn ensure_started<R: Runtime>(&self, app: &AppHandle<R>) {
        let Ok(mut commands) = self.commands.lock() else { return };
        if commands.as_ref().is_some_and(|tx| !tx.is_closed()) {
            return;
        }
        let Ok(mut started) = self.started.lock() else { return };
        if started.is_some_and(|at| at.elapsed() < RETRY_AFTER) {
            return;
        }
        *started = Some(Instant::now());
        let (tx, rx) = mpsc::unbounded_channel();
        *commands = Some(tx);
        VoiceHost::set(
            &self.status,
            VoiceStatus {
                state: "starting".into(), detail: "starting the voice worker…".into(), ..VoiceStatus::off()
            },
        );
        let status = self.status.clone();
        let app = app.clone();
        tauri::async_runtime::spawn(async move { pump(app, rx, status).await });
    }

    /// Stops the voice task: its worker shuts down when it sees the channel close.
    pub fn stop(&self) {
        if let Ok(mut commands) = self.commands.lock() {
            *commands = None;
        }
    }

    /// Stops the voice task (its worker shuts down when it sees the channel close) and starts a
    /// new one with the current settings.
    pub fn restart<R: Runtime>(&self, app: &AppHandle<R>) {
        self.stop();
        if let Ok(mut started) = self.started.lock() {
            *started = None;
        }
        self.ensure_started(app);
    }

    /// Push-to-talk pressed or released; an error says why voice cannot take it.
    pub fn push_to_talk(&self, down: bool) -> Result<(), String> {
        let s = self.status();
        if s.state != "listening" {
            return Err(format!("voice input is not available: {}", s.detail));
        }
        let commands = self.commands.lock().map_err(|_| "voice is shutting down".to_string())?;
        let tx = commands.as_ref().ok_or("voice has not been started")?;
        tx.send(Command::PushToTalk(down)).map_err(|_| "the voice task has stopped".to_string())
    }
}

fn describe_device(d: &DeviceStatus) -> String {
    match d {
        DeviceStatus::Available { name } => name.clone(),
        DeviceStatus::Unavailable { reason } => format!("none — {reason}"),
        DeviceStatus::Off => "off".into(),
    }
}

fn status_of(loaded: &Loaded, mode: Option<CaptureMode>) -> VoiceStatus {
    let wake = match &loaded.wake {
        WakeStatus::Ready { phrase, engine } => {
            format!("\"{phrase}\", heard by {} ({})", engine.name(), smart_voice::wake_phrase::measured(*engine))
        }
        WakeStatus::Unavailable { reason } => format!("unavailable — {reason}"),
    };
    let microphone = describe_device(&loaded.input);
    let (state, detail) = match (&loaded.input, mode) {
        (DeviceStatus::Available { .. }, Some(CaptureMode::WakeWord)) => {
            ("listening", format!("listening for the wake word with {}", loaded.whisper))
        }
        (DeviceStatus::Available { .. }, _) => ("listening", format!("hold the hotkey to talk ({})", loaded.whisper)),
        (DeviceStatus::Unavailable { reason }, _) => ("no_microphone", format!("{reason}; type your requests instead")),
        (DeviceStatus::Off, _) => ("no_microphone", "the microphone is off".to_string()),
    };
    VoiceStatus {
        state: state.into(),
        detail,
        whisper: Some(loaded.whisper.clone()),
        mode: mode.map(|m| if m == CaptureMode::WakeWord { "wake_word".into() } else { "push_to_talk".into() }),
        wake,
        microphone,
    }
}

/// The voice worker's load request for this data dir's settings.
fn load_request(
    data_dir: &Path,
    roots: &[String],
) -> Result<(smart_voice::protocol::LoadVoice, settings::Settings), String> {
    let s = settings::load(data_dir).map_err(|e| e.to_string())?;
    let models = Models::open_default().map_err(|e| e.to_string())?;
    let choice = VoiceChoice {
        whisper: None,
        language: None,
        wake: s.wake_word,
        wake_model: english_vosk(&models),
        wake_phrase: Some(s.wake_phrase.clone()),
        vocabulary: roots.first().map(|r| folder_vocabulary(Path::new(r))).unwrap_or_default(),
        expected_names: hearing_vocabulary(roots),
        boost: None,
    };
    let mut load = voice_load(&models, &choice).map_err(|e| e.to_string())?;
    load.speak = s.voice_output;
    // The HUD shows what is being heard while the person talks.
    load.partial_every_ms = Some(1_500);
    Ok((load, s))
}

/// vosk's small English model hears the wake word when a person has it (the catalog lists
/// where; no package registry carries it); otherwise whisper does.
const ENGLISH_WAKE_MODEL: &str = "vosk-model-small-en-us-0.15";

fn english_vosk(models: &Models) -> Option<String> {
    let m = models.get(ENGLISH_WAKE_MODEL).ok()?;
    models.verified_path(m).ok().map(|_| ENGLISH_WAKE_MODEL.to_string())
}

async fn pump<R: Runtime>(
    app: AppHandle<R>,
    mut rx: mpsc::UnboundedReceiver<Command>,
    status: Arc<Mutex<VoiceStatus>>,
) {
    let session = app.state::<Session>();
    let (data_dir, roots) = match session.open().await {
        Ok(mut a) => (a.engine().data_dir().to_path_buf(), a.engine().roots().to_vec()),
        Err(e) => return VoiceHost::set(&status, VoiceStatus::unavailable(format!("no data dir yet ({e})"))),
    };
    let (load, settings) = match load_request(&data_dir, &roots) {
        Ok(v) => v,
        Err(e) => return VoiceHost::set(&status, VoiceStatus::unavailable(e)),
    };
    let program = match locate_voice_worker() {
        Ok(p) => p,
        Err(e) => return VoiceHost::set(&status, VoiceStatus::unavailable(e.to_string())),
    };
    let mut sup = VoiceSupervisor::new(program, load);
    let loaded = match sup.ensure().await {
        Ok(_) => sup.loaded().cloned(),
        Err(e) => return VoiceHost::set(&status, VoiceStatus::unavailable(e.to_string())),
    };
    let Some(loaded) = loaded else { return };
    let mut mode = None;
    if matches!(loaded.input, DeviceStatus::Available { .. }) {
        let wanted = if settings.wake_word && matches!(loaded.wake, WakeStatus::Ready { .. }) {
            CaptureMode::WakeWord
        } else {
            CaptureMode::PushToTalk
        };
        match sup.call(Request::StartCapture { mode: wanted }).await {
            Ok(()) => mode = Some(wanted),
            Err(e) => tracing::warn!(error = %e, "cannot open the microphone"),
        }
    }
    VoiceHost::set(&status, status_of(&loaded, mode));
    let trigger = if mode == Some(CaptureMode::WakeWord) { Trigger::WakeWord } else { Trigger::PushToTalk };
    // One request per utterance, its id made where the speech begins (a press, or the first
    // speech after the last utterance; `smart_runtime::voice_turns` cuts the stream): the live
    // line, the turn and its ledger events share it.
    let mut turns = smart_runtime::VoiceTurns::new(mode == Some(CaptureMode::WakeWord));
    loop {
        enum Input {
            Command(Option<Command>),
            Heard(Result<Option<smart_voice::protocol::EventLine>, VoiceWorkerError>),
        }
        let input = tokio::select! {
            c = rx.recv() => Input::Command(c),
            e = sup.next_event(Some(Duration::from_millis(500))) => Input::Heard(e),
        };
        match input {
            Input::Command(None) => break,
            Input::Command(Some(Command::PushToTalk(down))) => {
                if down {
                    let corr = turns.pressed().clone();
                    if settings.voice_output {
                        let _ = sup.call(Request::Earcon { kind: Earcon::Listening }).await;
                    }
                    // The press starts the turn (the overlay shows it at once), not the first
                    // sound the VAD finds: a silent press ends as an empty transcript.
                    if let Ok(mut a) = session.open().await {
                        a.voice_event(corr.as_str(), &Event::SpeechStart { at_ms: 0 }, Trigger::PushToTalk);
                    }
                }
                if let Err(e) = sup.call(Request::PushToTalk { down }).await {
                    tracing::warn!(error = %e, "push-to-talk");
                }
            }
            Input::Heard(Ok(None)) => {}
            Input::Heard(Err(e)) => {
                tracing::warn!(error = %e, "voice worker");
                if !e.is_fault() {
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
            }
            Input::Heard(Ok(Some(line))) => match &line.event {
                Event::Level { .. } => {
                    if let Some(ev) = BusEvent::from_voice(&line.event) {
                        session.bus().emit(turns.current().as_str(), ev);
                    }
                }
                Event::InputLost { reason } => {
                    VoiceHost::set(
                        &status,
                        VoiceStatus {
                            state: "no_microphone".into(),
                            detail: format!("the microphone stopped: {reason}"),
                            ..status_of(&loaded, None)
                        },
                    );
                }
                // An utterance is the worker's own news (id 0); a transcript with an id answers
                // a request (a second hearing that came too late) and is no turn.
                Event::Transcript(t) if line.id == 0 => {
                    let corr = turns.on(&line.event);
                    let opts = SayOptions { propose_only: false, no_templates: false, base: None };
                    session.until_ready(crate::readiness::LONGEST_WAIT).await;
                    let result = match session.open().await {
                        // A first hearing that reads as a question is heard again
                        // with whisper's whole window (`smart_runtime::rehearing`).
                        Ok(mut a) => a
                            .hear_with(&corr, t, &opts, Some(&mut sup as &mut dyn smart_runtime::rehearing::Rehear))
                            .await
                            .map_err(|e| e.to_string()),
                        Err(e) => Err(e),
                    };
                    if settings.voice_output {
                        let (cue, line) = spoken_reply(&result);
                        let _ = sup.call(Request::Earcon { kind: cue }).await;
                        if let Some(text) = line {
                            // Only words that were said aloud are shown as said.
                            if sup.call(Request::Speak { text: text.clone() }).await.is_ok() && loaded.speaks() {
                                session.bus().emit(corr.as_str(), BusEvent::Spoken { text });
                            }
                        }
                    }
                    if let Err(e) = result {
                        tracing::warn!(error = %e, "a heard request failed");
                    }
                    turns.finished();
                }
                Event::Transcript(_) => {}
                other => {
                    let corr = turns.on(other);
                    if let Ok(mut a) = session.open().await {
                        a.voice_event(corr.as_str(), other, trigger);
                    }
                }
            },
        }
        let faults = sup.take_faults();
        if !faults.is_empty()
            && let Ok(mut a) = session.open().await
        {
            for f in faults {
                let _ = a.engine().record_fault("voice-worker", &f, 0);
            }
        }
    }
    sup.shutdown().await;
}

/// The earcon and the sentence for what came of a heard request.
fn spoken_reply(result: &Result<Heard, String>) -> (Earcon, Option<String>) {
    match result {
        Err(_) => (Earcon::Refused, Some("That did not work; the details are on screen.".into())),
        Ok(Heard::Nothing) => (Earcon::Refused, None),
        Ok(Heard::Emergency { .. }) => (Earcon::Accepted, Some("Stopped.".into())),
        Ok(Heard::Turn(r)) => match r.steps.first().and_then(|s| s.report.as_ref()) {
            None => (Earcon::Refused, r.reply.clone().or(Some("I have no action for that.".into()))),
            Some(rep) => match rep.outcome {
                CallOutcome::Committed => (Earcon::Accepted, Some("Done.".into())),
                CallOutcome::Pending => (Earcon::NeedsApproval, Some("That needs your approval.".into())),
                CallOutcome::Refused => {
                    // The kernel's sentence names tools and commands, which read badly aloud;
                    // the code's short phrase is said and the sentence stays on screen.
                    let words = rep
                        .code
                        .as_deref()
                        .and_then(|c| serde_json::from_value::<RefusalCode>(serde_json::Value::from(c)).ok())
                        .map_or("the reason is on screen", RefusalCode::spoken);
                    (Earcon::Refused, Some(format!("Refused: {words}.")))
                }
                CallOutcome::Denied => (Earcon::Refused, Some("Denied.".into())),
                CallOutcome::Failed | CallOutcome::Recorded => {
                    (Earcon::Refused, Some("That did not work; the details are on screen.".into()))
                }
            },
        },
    }
}

/// What the voice path is doing (starts it on first ask).
#[tauri::command]
pub async fn voice_status<R: Runtime>(app: AppHandle<R>, host: State<'_, VoiceHost>) -> Result<VoiceStatus, String> {
    host.ensure_started(&app);
    Ok(host.status())
}

/// The HUD's microphone button, held: pressed (`down`) and released.
#[tauri::command]
pub async fn push_to_talk<R: Runtime>(app: AppHandle<R>, host: State<'_, VoiceHost>, down: bool) -> Result<(), String> {
    host.ensure_started(&app);
    host.push_to_talk(down)
}

#[cfg(test)]
mod tests {
    use super::*;
    use smart_runtime::assistant::{Proposal, Step};
    use smart_runtime::bus::ProposalSource;
    use smart_runtime::{CallReport, SayReport};

    fn turn(outcome: CallOutcome, code: Option<&str>) -> Result<Heard, String> {
        let report = CallReport {
            code: code.map(str::to_string),
            reason: Some("fs.compact is L4 (transform); above L1 a call needs an active commitment lease".into()),
            ..CallReport::bare(outcome)
        };
        Ok(Heard::Turn(SayReport {
            corr: smart_runtime::TurnId::new(),
            utterance: "compact the docs folder".into(),
            steps: vec![Step {
                source: ProposalSource::Template,
                proposal: Proposal { tool: "fs.compact".into(), args: serde_json::json!({}) },
                report: Some(report),
                raw: None,
                timings: None,
            }],
            reply: None,
            ended: outcome.into(),
            model: None,
            bootstrap: None,
            understanding: None,
            advisories: vec![],
            ranking: None,
            reheard: None,
            weighed: None,
        }))
    }

    #[test]
    fn each_outcome_is_said_in_a_few_plain_words() {
        assert_eq!(spoken_reply(&turn(CallOutcome::Committed, None)), (Earcon::Accepted, Some("Done.".into())));
        assert_eq!(
            spoken_reply(&turn(CallOutcome::Pending, None)),
            (Earcon::NeedsApproval, Some("That needs your approval.".into()))
        );
        // A refusal says the code's phrase, not the kernel's sentence with tool names in it.
        assert_eq!(
            spoken_reply(&turn(CallOutcome::Refused, Some("no_lease"))),
            (Earcon::Refused, Some("Refused: it needs a commitment lease first.".into()))
        );
        assert_eq!(
            spoken_reply(&turn(CallOutcome::Refused, Some("a_code_from_the_future"))),
            (Earcon::Refused, Some("Refused: the reason is on screen.".into()))
        );
        assert_eq!(spoken_reply(&turn(CallOutcome::Denied, None)), (Earcon::Refused, Some("Denied.".into())));
        assert_eq!(spoken_reply(&Ok(Heard::Nothing)), (Earcon::Refused, None));
    }
}
