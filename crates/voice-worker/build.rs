//! Links libvosk (the wake-word engine) when it is available, so the binary finds it at run time
//! (`vosk_link.rs` says how, per target). The setup script fetches it from the `vosk` wheel on
//! PyPI into `~/.cache/smart/vosk/<version>/`; `SMART_VOSK_DIR` points elsewhere. Without it
//! the worker still builds and reports the wake word as unavailable (push-to-talk works).
//!
//! A MinGW (Windows GNU) build also links whisper.cpp's C++ runtime statically, so the worker
//! stands alone on Windows (`smart-mingw-link`).

use std::path::PathBuf;

#[path = "vosk_link.rs"]
mod vosk_link;

const VOSK_VERSION: &str = "0.3.45";

fn main() {
    smart_mingw_link::stand_alone_on_mingw();
    println!("cargo::rustc-check-cfg=cfg(has_vosk)");
    println!("cargo::rerun-if-env-changed=SMART_VOSK_DIR");
    println!("cargo::rerun-if-changed=vosk_link.rs");
    let dir = std::env::var_os("SMART_VOSK_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/smart/vosk").join(VOSK_VERSION)));
    let Some(dir) = dir else { return };
    // The target's, not this build script's (see vosk_link.rs).
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let plan = vosk_link::vosk_link(&os, &env, &dir.display().to_string());
    let dir = if plan.folder.is_empty() { dir } else { dir.join(plan.folder) };
    let lib = dir.join(plan.library);
    println!("cargo::rerun-if-changed={}", lib.display());
    if !lib.is_file() {
        println!(
            "cargo::warning=libvosk not found at {}: building without the vosk wake word (run scripts/setup.sh, with --cross for Windows)",
            lib.display()
        );
        return;
    }
    println!("cargo::rustc-link-search=native={}", dir.display());
    for arg in plan.link_args {
        println!("cargo::rustc-link-arg={arg}");
    }
    println!("cargo::rustc-cfg=has_vosk");
}
