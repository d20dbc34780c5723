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
# to /usr/lib/smart by the .deb (tauri.bundle.conf.json), where the worker's rpath looks.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/smart/target}"
triple=$(rustc -vV | sed -n 's/^host: //p')
# Windows programs end in .exe, and Tauri looks for <name>-<triple>.exe there.
exe=""
case "$triple" in *windows*) exe=".exe" ;; esac
cargo build --release --locked -p smart-proposer-worker
mkdir -p target-bin
cp "$CARGO_TARGET_DIR/release/smart-proposer-worker$exe" "target-bin/smart-proposer-worker-$triple$exe"
GGML_NATIVE=OFF cargo build --release --locked -p smart-voice-worker
cp "$CARGO_TARGET_DIR/release/smart-voice-worker$exe" "target-bin/smart-voice-worker-$triple$exe"

# libvosk for the wake word: the library of this system, where the voice worker's build found it
# (crates/voice-worker/vosk_link.rs). scripts/setup.sh fetches Linux's, and with --cross the
# Windows DLLs (libvosk.dll and the three MinGW runtime DLLs it needs), which tauri.mjs then adds
# to a Windows package beside the worker (scripts/windows_vosk.mjs); the .deb carries Linux's.
# Elsewhere a worker built without it says the wake word is unavailable (push-to-talk works), and
# so does this script.
vosk_dir="${SMART_VOSK_DIR:-$HOME/.cache/smart/vosk/0.3.45}"
case "$triple" in
  *linux*) libs=(libvosk.so) ;;
  *apple*) libs=(libvosk.dylib) ;;
  # libvosk.dll first, then the runtime DLLs setup.sh put beside it.
  *windows*) vosk_dir="$vosk_dir/windows" libs=(libvosk.dll)
    for dll in "$vosk_dir"/*.dll; do
      if [ -f "$dll" ] && [ "${dll##*/}" != libvosk.dll ]; then libs+=("${dll##*/}"); fi
    done ;;
  *) libs=() ;;
esac
if [ "${#libs[@]}" -gt 0 ] && [ -f "$vosk_dir/${libs[0]}" ]; then
  for lib in "${libs[@]}"; do cp "$vosk_dir/$lib" "target-bin/$lib"; done
elif [[ "$triple" == *linux* ]]; then
  echo "stage-sidecars: $vosk_dir/${libs[0]} is missing (scripts/setup.sh fetches it)" >&2
  exit 1
else
  echo "stage-sidecars: no libvosk for $triple at $vosk_dir: this package has no wake word (push-to-talk only)" >&2
fi
