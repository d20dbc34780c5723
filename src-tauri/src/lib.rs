//! The SMART desktop app: a Tauri shell that hosts the runtime (kernel, ledger, tools, the
//! proposer worker) and shows it in the HUD (`ui/`).
//!
//! The web view is a window onto the runtime, never a part of it: every command here either
//! reads (status, pending calls, the timeline) or hands a request to the kernel through the
//! runtime (say, decide, stop, undo). Which window may call which command is fixed by the
//! capability files in `capabilities/`; the command list itself is declared in `build.rs`, so a
//! command missing from a capability is refused by Tauri before it reaches this code.

mod hud;
mod library;
mod onboarding;
mod overlay;
mod preview;
mod readiness;
mod reports;
mod session;
mod settings;
mod shell;
mod slow_loop;
mod status;
mod timeline;
mod updates;
mod voice;
mod watchdog;

#[cfg(test)]
mod bindings;
#[cfg(test)]
mod code_map;

use serde::Serialize;
use serde_json::Value;
use session::Session;
use smart_runtime::Bus;
use std::path::PathBuf;
use tauri::{Emitter, Manager};

pub use status::{DATA_DIR_ENV, data_dir};

/// The event the HUD listens to for live progress (`ui/src/hud.ts`).
pub const HUD_EVENT: &str = "smart://hud";

/// One step of an interaction as it happens, for the HUD: the runtime's bus event, flattened.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct HudEvent {
    pub corr: String,
    /// Which bus event this is.
    pub event: smart_runtime::bus::BusEventKind,
    /// The interaction state entered (state_changed).
    pub state: Option<String>,
    /// The utterance or reply text.
    pub text: Option<String>,
    pub tool: Option<String>,
    #[cfg_attr(test, ts(type = "unknown"))]
    pub args: Option<Value>,
    /// What the kernel made of the turn's call (outcome).
    pub outcome: Option<smart_runtime::CallOutcome>,
    /// template | model (proposal).
    pub source: Option<String>,
    pub model: Option<String>,
    pub reason: Option<String>,
    /// The microphone's loudness in dBFS (level).
    pub level: Option<f32>,
}

impl HudEvent {
    fn from_envelope(env: &smart_runtime::Envelope) -> HudEvent {
        let v = serde_json::to_value(&env.event).unwrap_or(Value::Null);
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        HudEvent {
            corr: env.corr.clone(),
            event: env.event.kind(),
            state: s("to"),
            // The wake phrase, speech turned away for lack of it, and the emergency word read
            // as the event's text.
            text: s("text").or_else(|| s("phrase")).or_else(|| s("heard")).or_else(|| s("word")),
            tool: s("tool"),
            args: v.get("args").cloned(),
            outcome: v
                .get("report")
                .and_then(|r| r.get("outcome"))
                .and_then(|o| serde_json::from_value(o.clone()).ok()),
            source: s("source"),
            model: s("model"),
            reason: s("reason"),
            level: v.get("rms_dbfs").and_then(Value::as_f64).map(|l| l as f32),
        }
    }
}

/// The HUD's status view (see `status.rs` for the JSON shape), or the error text to show.
#[tauri::command]
async fn get_status(session: tauri::State<'_, Session>) -> Result<smart_runtime::engine::Status, String> {
    session.with_engine(|e| e.status()).await
}

/// Registers the app's state and commands on `builder`; shared by [`run`] and the tests, which
/// pass the data directory explicitly instead of going through the environment.
///
/// `desktop` runs once the app is built, after the bus is wired (`run` passes the tray, hotkey
/// and watchdog; the tests pass nothing). Tauri keeps a single setup hook — a second
/// `Builder::setup` replaces the first — so there is exactly one, here.
fn setup<R: tauri::Runtime>(
    builder: tauri::Builder<R>,
    data_dir: Result<PathBuf, String>,
    desktop: impl FnOnce(&mut tauri::App<R>) + Send + 'static,
) -> tauri::Builder<R> {
    let bus = Bus::default();
    builder
        .manage(Session::new(data_dir, bus))
        .manage(shell::WatchdogState::default())
        .manage(shell::DesktopState::default())
        .manage(voice::VoiceHost::default())
        .manage(overlay::Overlay::default())
        .manage(updates::UpdateHost::default())
        // Off until the configuration names a release feed (`updates.rs`); the configuration
        // must carry `plugins.updater.pubkey`, or the app does not start.
        .plugin(tauri_plugin_updater::Builder::new().build())
        .setup(move |app| {
            // Forward the runtime's bus to the web view. A lagging receiver loses old messages,
            // never the interaction (see smart_runtime::bus).
            let handle = app.handle().clone();
            let mut rx = app.state::<Session>().bus().subscribe();
            tauri::async_runtime::spawn(async move {
                loop {
                    match rx.recv().await {
                        Ok(env) => {
                            let _ = handle.emit(HUD_EVENT, HudEvent::from_envelope(&env));
                            overlay::follow(&handle, &env.event);
                        }
                        Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                        Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
                    }
                }
            });
            desktop(app);
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![
            get_status,
            hud::say,
            hud::pending_calls,
            hud::decide,
            hud::emergency_stop,
            hud::undo,
            hud::renew_lease,
            timeline::timeline,
            timeline::event_detail,
            timeline::verify_ledger,
            timeline::activity,
            timeline::ledger_tools,
            onboarding::setup_state,
            onboarding::init_data_dir,
            onboarding::fetch_model,
            shell::pick_folder,
            shell::get_settings,
            shell::set_settings,
            shell::heartbeat,
            voice::voice_status,
            voice::push_to_talk,
            overlay::show_main,
            slow_loop::slow_loop_view,
            slow_loop::bootstrap_answer,
            slow_loop::bootstrap_skip,
            slow_loop::bootstrap_consent,
            slow_loop::bootstrap_check_in,
            slow_loop::propose_gate,
            slow_loop::perceive,
            updates::check_for_update,
            updates::install_update,
        ])
}

/// Builds and runs the desktop app; returns when the last window closes.
pub fn run() {
    let dir = data_dir();
    let builder = shell::plugins(tauri::Builder::default());
    let result = setup(builder, dir.clone(), move |app| {
        let handle = app.handle().clone();
        // The desktop's parts: each one that fails is a warning, not a failed start.
        if let Err(e) = shell::install_tray(&handle) {
            tracing::warn!(error = %e, "no tray icon");
        }
        let saved = dir.as_ref().ok().map(|d| settings::load(d)).transpose();
        let hotkey = match saved {
            Ok(s) => s.unwrap_or_default().hotkey,
            Err(e) => {
                tracing::warn!(error = %e, "settings unreadable; using the default hotkey");
                settings::DEFAULT_HOTKEY.to_string()
            }
        };
        if let Err(e) = shell::register_hotkey(&handle, &hotkey) {
            tracing::warn!(error = %e, "no push-to-talk hotkey");
        }
        app.state::<shell::DesktopState>().install(&handle);
        // Voice starts with the app; without models or a microphone it reports why and waits.
        app.state::<voice::VoiceHost>().ensure_started(&handle);
        tauri::async_runtime::spawn(library::library_loop(handle.clone()));
        tauri::async_runtime::spawn(readiness::prepare_loop(handle.clone()));
        tauri::async_runtime::spawn(shell::watchdog_loop(handle));
    })
    .run(tauri::generate_context!());
    if let Err(e) = result {
        eprintln!("smart-app: {e}");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests;
