//! The README's "run the app" command builds every worker the app starts.
//!
//! What broke: `scripts/run.sh` built `smart-app`, `smart-cli` and `smart-proposer-worker`, but
//! not `smart-voice-worker`, which the app looks for beside itself — so the app a new user
//! starts had no voice. The list of workers is `smart_runtime::process::WORKERS`; this test
//! reads the script's release build and finds each of them in it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

/// The packages (`-p NAME`) of the script's `cargo build` commands, continuation lines joined.
fn built_packages(script: &str) -> Vec<String> {
    let joined = script.replace("\\\n", " ");
    joined
        .lines()
        .filter(|l| l.trim_start().starts_with("cargo build"))
        .flat_map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            words.windows(2).filter(|w| w[0] == "-p").map(|w| w[1].to_string()).collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn the_run_command_builds_every_worker_the_app_starts() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/run.sh");
    let text = std::fs::read_to_string(&script).expect("scripts/run.sh");
    let built = built_packages(&text);
    assert!(built.iter().any(|p| p == "smart-app"), "run.sh does not build the app: {built:?}");
    for worker in smart_runtime::process::WORKERS {
        assert!(built.iter().any(|p| p == worker), "run.sh builds {built:?} but not {worker}, which the app starts");
    }
}

#[test]
fn the_script_reader_sees_a_missing_worker() {
    let without_voice =
        "cargo build --release --bins -p smart-app -p smart-cli -p smart-proposer-worker \\\n  --locked\n";
    let built = built_packages(without_voice);
    assert_eq!(built, ["smart-app", "smart-cli", "smart-proposer-worker"]);
    assert!(!built.iter().any(|p| p == "smart-voice-worker"));
}
