#!/usr/bin/env bash
# Builds the binaries the app runs beside itself and puts them where the bundler takes them from.
#
# Tauri bundles "sidecars" (bundle.externalBin) from files named <name>-<target triple>; it
# installs them beside the app's own binary without the suffix, which is exactly where
# `smart_runtime::worker::locate_worker` looks for the model worker (and `locate_voice_worker`
# for the voice worker). Called by `tauri build` (build.beforeBuildCommand), so `npm run tauri
# build` makes a package whose app can load a model and listen.
#
# whisper.cpp's CMake builds for the building machine's CPU unless told otherwise; a package
# runs on other CPUs, so the voice worker is built with GGML_NATIVE=OFF (the x86-64-v3 kernels
# of .cargo/config.toml). libvosk, which the voice worker links for the wake word, is installed
# to /usr/lib/smart (tauri.bundle.conf.json), where the worker's rpath looks.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/smart/target}"
triple=$(rustc -vV | sed -n 's/^host: //p')
cargo build --release --locked -p smart-proposer-worker
mkdir -p target-bin
cp "$CARGO_TARGET_DIR/release/smart-proposer-worker" "target-bin/smart-proposer-worker-$triple"
GGML_NATIVE=OFF cargo build --release --locked -p smart-voice-worker
cp "$CARGO_TARGET_DIR/release/smart-voice-worker" "target-bin/smart-voice-worker-$triple"
vosk="${SMART_VOSK_DIR:-$HOME/.cache/smart/vosk/0.3.45}/libvosk.so"
if [ ! -f "$vosk" ]; then
  echo "stage-sidecars: $vosk is missing (scripts/setup.sh fetches it)" >&2
  exit 1
fi
cp "$vosk" target-bin/libvosk.so
