// Prevents an extra console window on Windows in release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    // Warnings (no tray host, a hotkey another program holds, the watchdog's actions) go to
    // stderr; the ledger holds everything that matters for authority.
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(tracing_subscriber::filter::LevelFilter::WARN)
        .try_init();
    smart_app::run();
}
