//! Declares the app's commands to Tauri's ACL: with an app manifest, a command is callable from
//! a window only if a capability in `capabilities/` grants it there (`allow-<command>`). The
//! decision-making commands are granted to the HUD window alone (`capabilities/hud.json`); the
//! overlay may only bring the HUD up (`capabilities/overlay.json`).

const COMMANDS: &[&str] = &[
    "get_status",
    "say",
    "pending_calls",
    "decide",
    "emergency_stop",
    "undo",
    "renew_lease",
    "timeline",
    "event_detail",
    "verify_ledger",
    "activity",
    "ledger_tools",
    "setup_state",
    "init_data_dir",
    "pick_folder",
    "fetch_model",
    "get_settings",
    "set_settings",
    "heartbeat",
    "voice_status",
    "push_to_talk",
    "show_main",
    "slow_loop_view",
    "bootstrap_answer",
    "bootstrap_skip",
    "bootstrap_consent",
    "bootstrap_check_in",
    "propose_gate",
    "perceive",
    "check_for_update",
    "install_update",
];

fn main() {
    let attrs = tauri_build::Attributes::new().app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    if let Err(e) = tauri_build::try_build(attrs) {
        // A build script reports by exiting non-zero with the reason on stderr.
        eprintln!("tauri build failed: {e:#}");
        std::process::exit(1);
    }
}
