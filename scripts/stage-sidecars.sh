#!/usr/bin/env bash
# Builds the binaries the app runs beside itself and puts them where the bundler takes them from.
#
# Tauri bundles "sidecars" (bundle.externalBin) from files named <name>-<target triple>; it
# installs them beside the app's own binary without the suffix, which is exactly where
# `smart_runtime::worker::locate_worker` looks for the model worker. Called by `tauri build`
# (build.beforeBuildCommand), so `npm run tauri build` makes a package whose app can load a model.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/smart/target}"
triple=$(rustc -vV | sed -n 's/^host: //p')
cargo build --release --locked -p smart-proposer-worker
mkdir -p target-bin
cp "$CARGO_TARGET_DIR/release/smart-proposer-worker" "target-bin/smart-proposer-worker-$triple"
