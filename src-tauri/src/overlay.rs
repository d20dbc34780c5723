//! The overlay: a small window that shows a spoken turn without taking the person's focus.
//!
//! A voice assistant is used while looking at something else. Raising the 1000×700 HUD on every
//! push-to-talk took the keyboard from whatever the person was doing (Handy learned the same:
//! an overlay that takes focus breaks the person's work). So a spoken turn shows in a second
//! window that is undecorated, always on top, off the taskbar and *not focusable*
//! (`tauri.conf.json`, label `overlay`): it is shown, never focused, at the screen edge the
//! person chose, and hidden a few seconds after the turn ends. It shows what the HUD's live
//! line shows (`ui/src/Overlay.svelte`, the same events), and it can decide nothing: its only
//! command of its own is `show_main`, which brings up the HUD window where the confirmation
//! dialog and its signing live (`capabilities/overlay.json`; the ACL test holds it to that).
//!
//! What shows it is the runtime's interaction machine leaving `Idle` on push-to-talk or the
//! wake word; what hides it is the machine back in `Idle`. [`Visibility`] is that decision as a
//! pure function of the events, tested without a window.

use crate::settings::OverlayPlace;
use smart_runtime::interaction::{State, Trigger};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tauri::{AppHandle, Manager, Runtime};

/// The overlay window's label.
pub const LABEL: &str = "overlay";
/// How long the overlay stays after a turn ends, so its outcome can be read.
pub const LINGER: Duration = Duration::from_secs(4);
/// Gap between the overlay and the screen edge, in logical pixels.
const MARGIN: f64 = 24.0;

/// What a state change means for the overlay.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Visibility {
    /// A spoken turn began: show it.
    Show,
    /// The turn is over: hide after [`LINGER`].
    HideLater,
    Unchanged,
}

/// The overlay's answer to the interaction machine moving `from` → `to` by `trigger`. Only
/// speech shows it (a typed command is typed in the HUD, which is already in front).
pub fn on_transition(from: State, to: State, trigger: Trigger) -> Visibility {
    match (from, to, trigger) {
        (State::Idle, State::Listening, Trigger::PushToTalk | Trigger::WakeWord) => Visibility::Show,
        (State::Idle, _, _) => Visibility::Unchanged,
        (_, State::Idle, _) => Visibility::HideLater,
        _ => Visibility::Unchanged,
    }
}

/// Shows and hides the overlay window; the newest request wins.
#[derive(Default)]
pub struct Overlay {
    /// Bumped by every show, so a hide scheduled before it does nothing.
    generation: Arc<AtomicU64>,
}

impl Overlay {
    /// Shows the overlay at `place` without focusing it (nothing when `place` is off or there
    /// is no overlay window).
    pub fn show<R: Runtime>(&self, app: &AppHandle<R>, place: OverlayPlace) {
        self.generation.fetch_add(1, Ordering::SeqCst);
        if place == OverlayPlace::Off {
            return;
        }
        let Some(w) = app.get_webview_window(LABEL) else { return };
        if let (Ok(Some(monitor)), Ok(size)) = (w.current_monitor().or_else(|_| w.primary_monitor()), w.outer_size()) {
            let scale = monitor.scale_factor();
            let screen = monitor.size().to_logical::<f64>(scale);
            let origin = monitor.position().to_logical::<f64>(scale);
            let own = size.to_logical::<f64>(scale);
            let (x, y) = place_at(place, (origin.x, origin.y), (screen.width, screen.height), (own.width, own.height));
            let _ = w.set_position(tauri::LogicalPosition::new(x, y));
        }
        // Never set_focus: the window is not focusable, and showing it must not move the focus.
        let _ = w.show();
    }

    /// Hides the overlay after [`LINGER`], unless it is shown again meanwhile.
    pub fn hide_later<R: Runtime>(&self, app: &AppHandle<R>) {
        let generation = self.generation.clone();
        let at = generation.load(Ordering::SeqCst);
        let app = app.clone();
        tauri::async_runtime::spawn(async move {
            tokio::time::sleep(LINGER).await;
            if generation.load(Ordering::SeqCst) == at
                && let Some(w) = app.get_webview_window(LABEL)
            {
                let _ = w.hide();
            }
        });
    }
}

/// Brings up the HUD window (where a waiting call's confirmation dialog is), from the overlay's
/// "waiting for you". The overlay's one command of its own: it shows a window, decides nothing.
#[tauri::command]
pub fn show_main<R: Runtime>(app: AppHandle<R>) {
    crate::shell::show_hud(&app);
}

/// What the overlay does when the interaction machine moves; called for every bus event.
pub fn follow<R: Runtime>(app: &AppHandle<R>, event: &smart_runtime::BusEvent) {
    let smart_runtime::BusEvent::StateChanged { from, to, trigger } = event else { return };
    let overlay = app.state::<Overlay>();
    match on_transition(*from, *to, *trigger) {
        Visibility::Show => {
            let place = app
                .state::<crate::session::Session>()
                .data_dir()
                .as_ref()
                .ok()
                .and_then(|d| crate::settings::load(d).ok())
                .unwrap_or_default()
                .overlay;
            overlay.show(app, place);
        }
        Visibility::HideLater => overlay.hide_later(app),
        Visibility::Unchanged => {}
    }
}

/// Top-left corner for an overlay of `own` size on a screen at `origin` of `screen` size:
/// centred horizontally, [`MARGIN`] from the chosen edge.
pub fn place_at(place: OverlayPlace, origin: (f64, f64), screen: (f64, f64), own: (f64, f64)) -> (f64, f64) {
    let x = origin.0 + ((screen.0 - own.0) / 2.0).max(0.0);
    let y = match place {
        OverlayPlace::Top => origin.1 + MARGIN,
        OverlayPlace::Bottom | OverlayPlace::Off => origin.1 + (screen.1 - own.1 - MARGIN).max(0.0),
    };
    (x, y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_spoken_turn_shows_the_overlay_and_its_end_hides_it() {
        use State::*;
        assert_eq!(on_transition(Idle, Listening, Trigger::PushToTalk), Visibility::Show);
        assert_eq!(on_transition(Idle, Listening, Trigger::WakeWord), Visibility::Show);
        // Typed in the HUD, or speech in a file: the HUD is where the person looks.
        assert_eq!(on_transition(Idle, Reasoning, Trigger::TextSubmitted), Visibility::Unchanged);
        assert_eq!(on_transition(Idle, Listening, Trigger::VoiceActivity), Visibility::Unchanged);
        assert_eq!(on_transition(MemoryUpdate, Idle, Trigger::MemoryUpdated), Visibility::HideLater);
        assert_eq!(on_transition(Transcribing, Idle, Trigger::EmptyTranscript), Visibility::HideLater);
        assert_eq!(on_transition(AwaitingConfirm, Idle, Trigger::Cancel), Visibility::HideLater);
        assert_eq!(on_transition(Reasoning, Planning, Trigger::ToolCallsGenerated), Visibility::Unchanged);
    }

    /// The overlay says a proposal in words from a table in `ui/src/overlay.ts`; a tool missing
    /// from it would show under its registry name, and a draft (`propose.quarantine`) read as
    /// the act itself when the table guessed from the name's last part.
    #[test]
    fn the_overlay_has_words_for_every_registry_tool() {
        let table = include_str!("../../ui/src/overlay.ts");
        for spec in smart_tools::specs() {
            assert!(
                table.contains(&format!("\"{}\": \"", spec.name)),
                "ui/src/overlay.ts VERBS has no words for {}",
                spec.name
            );
        }
    }

    #[test]
    fn the_overlay_sits_centred_at_the_chosen_edge_of_its_screen() {
        let (screen, own) = ((1920.0, 1080.0), (420.0, 132.0));
        assert_eq!(place_at(OverlayPlace::Bottom, (0.0, 0.0), screen, own), (750.0, 1080.0 - 132.0 - MARGIN));
        assert_eq!(place_at(OverlayPlace::Top, (0.0, 0.0), screen, own), (750.0, MARGIN));
        // A second screen to the right.
        assert_eq!(place_at(OverlayPlace::Top, (1920.0, 0.0), screen, own).0, 1920.0 + 750.0);
        // A screen smaller than the overlay: pinned to its corner, not off it.
        assert_eq!(place_at(OverlayPlace::Bottom, (0.0, 0.0), (300.0, 100.0), own), (0.0, 0.0));
    }
}
