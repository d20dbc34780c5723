//! Links libvosk (the wake-word engine) when it is available, with an rpath so the binary finds
//! it at run time. The setup script fetches it from the `vosk` wheel on PyPI into
//! `~/.cache/smart/vosk/<version>/`; `SMART_VOSK_DIR` points elsewhere. Without it the worker
//! still builds and reports the wake word as unavailable (push-to-talk works).

use std::path::PathBuf;

const VOSK_VERSION: &str = "0.3.45";

fn main() {
    println!("cargo::rustc-check-cfg=cfg(has_vosk)");
    println!("cargo::rerun-if-env-changed=SMART_VOSK_DIR");
    let dir = std::env::var_os("SMART_VOSK_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/smart/vosk").join(VOSK_VERSION)));
    let Some(dir) = dir else { return };
    let lib = dir.join(if cfg!(windows) {
        "libvosk.lib"
    } else if cfg!(target_os = "macos") {
        "libvosk.dylib"
    } else {
        "libvosk.so"
    });
    println!("cargo::rerun-if-changed={}", lib.display());
    if !lib.is_file() {
        println!(
            "cargo::warning=libvosk not found at {}: building without the wake word (run scripts/setup.sh)",
            lib.display()
        );
        return;
    }
    println!("cargo::rustc-link-search=native={}", dir.display());
    if !cfg!(windows) {
        // Beside the binary first, then where the Linux package installs it
        // (tauri.bundle.conf.json), then the build-time folder.
        println!("cargo::rustc-link-arg=-Wl,-rpath,$ORIGIN");
        println!("cargo::rustc-link-arg=-Wl,-rpath,/usr/lib/smart");
        println!("cargo::rustc-link-arg=-Wl,-rpath,{}", dir.display());
    }
    println!("cargo::rustc-cfg=has_vosk");
}
