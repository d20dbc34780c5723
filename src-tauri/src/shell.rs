//! The desktop around the HUD: the tray icon, the global push-to-talk shortcut, one instance
//! only, the person's settings, and the watchdog's loop.
//!
//! These need a real desktop (a display, a tray host, a global key grab), so they are installed
//! only by `run`, never by the display-less tests, and every one of them degrades to a logged
//! warning rather than a failed start: an app without a tray is still an app.

use crate::session::Session;
use crate::settings::{self, Settings};
use crate::watchdog::{Action, Observation, Watchdog, WatchdogConfig};
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use tauri::menu::{Menu, MenuItem, PredefinedMenuItem};
use tauri::tray::TrayIconBuilder;
use tauri::{AppHandle, Emitter, Manager, Runtime, State};
use tauri_plugin_global_shortcut::{Shortcut, ShortcutState};

/// Emitted when the push-to-talk shortcut is pressed, with whether voice took it (if not, the
/// HUD focuses its command box).
pub const PUSH_TO_TALK_EVENT: &str = "smart://push-to-talk";
const TRAY_ID: &str = "smart";
const TRAY_STATE_ITEM: &str = "state";

/// The app's main window, shown and focused.
pub fn show_hud<R: Runtime>(app: &AppHandle<R>) {
    if let Some(w) = app.get_webview_window("main") {
        let _ = w.unminimize();
        let _ = w.show();
        let _ = w.set_focus();
    }
}

/// The plugins only a real desktop has: one instance (a second launch focuses the first), the
/// global shortcut, the folder picker.
pub fn plugins<R: Runtime>(builder: tauri::Builder<R>) -> tauri::Builder<R> {
    builder
        .plugin(tauri_plugin_single_instance::init(|app, _argv, _cwd| show_hud(app)))
        .plugin(
            tauri_plugin_global_shortcut::Builder::new()
                .with_handler(|app, _shortcut, event| {
                    // Held to talk: the press opens the utterance (with the pre-roll before it),
                    // the release ends it; the overlay shows the turn and the focus stays where
                    // the person is working. Without voice the HUD gets the focus for typing.
                    let down = event.state == ShortcutState::Pressed;
                    let voice = app.state::<crate::voice::VoiceHost>();
                    let spoken = voice.push_to_talk(down).is_ok();
                    if down {
                        if !spoken {
                            show_hud(app);
                        }
                        let _ = app.emit(PUSH_TO_TALK_EVENT, spoken);
                    }
                })
                .build(),
        )
        .plugin(tauri_plugin_dialog::init())
}

/// The tray icon and its menu: the state at a glance, show the HUD, emergency stop, quit.
pub fn install_tray<R: Runtime>(app: &AppHandle<R>) -> tauri::Result<()> {
    let state = MenuItem::with_id(app, TRAY_STATE_ITEM, "SMART: starting…", false, None::<&str>)?;
    let show = MenuItem::with_id(app, "show", "Show SMART", true, None::<&str>)?;
    let stop = MenuItem::with_id(app, "stop", "Emergency stop", true, None::<&str>)?;
    let quit = MenuItem::with_id(app, "quit", "Quit SMART", true, None::<&str>)?;
    let sep = PredefinedMenuItem::separator(app)?;
    let menu = Menu::with_items(app, &[&state, &sep, &show, &stop, &sep, &quit])?;
    let mut tray =
        TrayIconBuilder::with_id(TRAY_ID).menu(&menu).tooltip("SMART").on_menu_event(|app, event| {
            match event.id().as_ref() {
                "show" => show_hud(app),
                "stop" => {
                    let app = app.clone();
                    tauri::async_runtime::spawn(async move {
                        let session = app.state::<Session>();
                        if let Err(e) = session.with_engine(|e| e.stop("emergency stop chosen from the tray")).await {
                            tracing::warn!(error = %e, "emergency stop from the tray failed");
                        }
                    });
                }
                "quit" => app.exit(0),
                _ => {}
            }
        });
    if let Some(icon) = app.default_window_icon() {
        tray = tray.icon(icon.clone());
    }
    let tray = tray.build(app)?;
    app.manage(TrayState(Mutex::new((tray, state))));
    Ok(())
}

struct TrayState<R: Runtime>(Mutex<(tauri::tray::TrayIcon<R>, MenuItem<R>)>);

/// Shows `text` as the tray's tooltip and its first (disabled) menu line.
fn set_tray_state<R: Runtime>(app: &AppHandle<R>, text: &str) {
    if let Some(t) = app.try_state::<TrayState<R>>()
        && let Ok(guard) = t.0.lock()
    {
        let _ = guard.0.set_tooltip(Some(text));
        let _ = guard.1.set_text(text);
    }
}

/// The one-line state for the tray: "SMART: Execution · 1 waiting for you".
fn tray_text(status: &smart_runtime::engine::Status) -> String {
    let mut chars = status.view.stance.name().chars();
    let title: String = chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default();
    let mut s = format!("SMART: {title}");
    let pending = status.view.pending.len();
    if pending > 0 {
        s.push_str(&format!(" · {pending} waiting for you"));
    }
    s
}

/// Registers the saved hotkey; a bad or taken one is reported, not fatal.
pub fn register_hotkey<R: Runtime>(app: &AppHandle<R>, hotkey: &str) -> Result<(), String> {
    let gs = app.try_state::<tauri_plugin_global_shortcut::GlobalShortcut<R>>().ok_or("no global shortcut support")?;
    let shortcut = Shortcut::from_str(hotkey).map_err(|e| format!("{hotkey:?} is not a shortcut: {e}"))?;
    gs.unregister_all().map_err(|e| e.to_string())?;
    gs.register(shortcut).map_err(|e| format!("cannot grab {hotkey}: {e} (another program may hold it)"))
}

/// What only a real desktop can do for a command: grab a hotkey, show a folder picker. Filled in
/// by `run`; empty in the display-less tests (the commands then say the feature is unavailable).
/// Closures over the app handle, so the commands need not be generic over the runtime.
type HotkeyFn = Arc<dyn Fn(&str) -> Result<(), String> + Send + Sync>;
type PickFn = Arc<dyn Fn() -> Option<String> + Send + Sync>;

#[derive(Default)]
pub struct DesktopState(Mutex<(Option<HotkeyFn>, Option<PickFn>)>);

impl DesktopState {
    /// Fills in the desktop's abilities for `app`.
    pub fn install<R: Runtime>(&self, app: &AppHandle<R>) {
        use tauri_plugin_dialog::DialogExt;
        let h = app.clone();
        let hotkey: HotkeyFn = Arc::new(move |hotkey: &str| register_hotkey(&h, hotkey));
        let h = app.clone();
        let pick: PickFn = Arc::new(move || {
            h.dialog().file().blocking_pick_folder().and_then(|p| p.into_path().ok()).map(|p| p.display().to_string())
        });
        if let Ok(mut d) = self.0.lock() {
            *d = (Some(hotkey), Some(pick));
        }
    }

    fn hotkey(&self) -> Option<HotkeyFn> {
        self.0.lock().ok().and_then(|d| d.0.clone())
    }

    fn picker(&self) -> Option<PickFn> {
        self.0.lock().ok().and_then(|d| d.1.clone())
    }
}

/// The platform's folder picker; `None` when the person cancels. It blocks until the person
/// answers, so it runs off the async workers.
#[tauri::command]
pub async fn pick_folder(desktop: State<'_, DesktopState>) -> Result<Option<String>, String> {
    let pick = desktop.picker().ok_or("no folder picker here: type the folder's path")?;
    tauri::async_runtime::spawn_blocking(move || pick()).await.map_err(|e| e.to_string())
}

#[tauri::command]
pub async fn get_settings(session: State<'_, Session>) -> Result<Settings, String> {
    let dir = session.data_dir().clone()?;
    settings::load(&dir).map_err(|e| e.to_string())
}

/// Validates and saves `settings`, and applies them at once: the hotkey is grabbed again, and
/// the voice path restarts with the new wake word and voice output.
#[tauri::command]
pub async fn set_settings<R: Runtime>(
    app: AppHandle<R>,
    desktop: State<'_, DesktopState>,
    session: State<'_, Session>,
    voice: State<'_, crate::voice::VoiceHost>,
    settings: Settings,
) -> Result<Settings, String> {
    let dir = session.data_dir().clone()?;
    settings::validate(&settings, |h| Shortcut::from_str(h).is_ok()).map_err(|e| e.to_string())?;
    if !dir.join("ledger.db").is_file() {
        return Err(format!("no SMART data at {}: finish the first-run setup first", dir.display()));
    }
    // The key grab first: a hotkey another program holds is refused before anything is saved.
    if let Some(register) = desktop.hotkey() {
        register(settings.hotkey.trim())?;
    }
    settings::save(&dir, &settings).map_err(|e| e.to_string())?;
    voice.restart(&app);
    Ok(settings)
}

/// The watchdog's view of the web view: it calls this every few seconds while it is alive.
#[tauri::command]
pub fn heartbeat(dog: State<'_, WatchdogState>) {
    if let Ok(mut d) = dog.0.lock() {
        d.heartbeat(wall_ms());
    }
}

pub struct WatchdogState(pub Mutex<Watchdog>);

impl Default for WatchdogState {
    fn default() -> Self {
        WatchdogState(Mutex::new(Watchdog::new(WatchdogConfig::default())))
    }
}

fn wall_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// Once a second: observe, act, ledger; and keep the tray's line current.
pub async fn watchdog_loop<R: Runtime>(app: AppHandle<R>) {
    let mut tick = tokio::time::interval(std::time::Duration::from_secs(1));
    loop {
        tick.tick().await;
        let session = app.state::<Session>();
        let dog = app.state::<WatchdogState>();
        let (state, worker_exited, status) = match session.try_lock() {
            Err(()) => (None, false, None),
            Ok(mut g) => match g.as_mut() {
                Some(a) => {
                    let exited = a.worker_exited();
                    let status = a.engine().status().ok();
                    (Some(format!("{:?}", a.interaction_state()).to_lowercase()), exited, status)
                }
                None => (Some("idle".to_string()), false, None),
            },
        };
        if let Some(s) = &status {
            set_tray_state(&app, &tray_text(s));
        }
        let actions = match dog.0.lock() {
            Ok(mut d) => d.observe(&Observation { now_ms: wall_ms(), state, worker_exited }),
            Err(_) => vec![],
        };
        for action in actions {
            tracing::warn!(%action, "watchdog");
            let reason = action.to_string();
            let result = match action {
                Action::ResetInteraction { .. } => match session.open().await {
                    Ok(mut a) => a.reset_stuck(&reason).map_err(|e| e.to_string()),
                    Err(e) => Err(e),
                },
                Action::RestartWorker => match session.open().await {
                    Ok(mut a) => a.revive_worker().await.map(|_| ()).map_err(|e| e.to_string()),
                    Err(e) => Err(e),
                },
                Action::ReloadUi { .. } => {
                    if let Some(w) = app.get_webview_window("main") {
                        let _ = w.eval("window.location.reload()");
                    }
                    session.with_engine(|e| e.record_fault("ui", &reason, 0).map(|_| ())).await
                }
            };
            if let Err(e) = result {
                tracing::error!(error = %e, "the watchdog's remedy failed");
            }
        }
    }
}
