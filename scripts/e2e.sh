#!/usr/bin/env bash
# End-to-end tests of the real app window: builds the UI and the app with the UI embedded, then
# drives the window under Xvfb over WebDriver (tauri-driver + WebKitWebDriver).
#
#   bash scripts/e2e.sh          (scripts/test.sh runs it; setup.sh installs what it needs)
#
# Screenshots of each step land in $SMART_E2E_OUT (default: $CARGO_TARGET_DIR/e2e); the README's
# are copies of these.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

log() { printf '\033[1me2e:\033[0m %s\n' "$*" >&2; }

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/smart/target}"
tools="${SMART_TOOLS_DIR:-$HOME/.cache/smart/tools}"

# tauri-driver is a cargo-installed binary; pinned to 2.x (crates.io's newest is a 3.0 alpha).
if ! "$tools/bin/tauri-driver" --help >/dev/null 2>&1; then
  log "installing tauri-driver 2.1.0 into $tools"
  # (not linted: clippy-driver would lint tauri-driver's own crate, scripts/test.sh's wrapper)
  env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS cargo install --locked tauri-driver@2.1.0 --root "$tools" --quiet
fi
command -v WebKitWebDriver >/dev/null || { log "WebKitWebDriver is missing: run scripts/setup.sh (webkit2gtk-driver)"; exit 1; }
command -v xvfb-run >/dev/null || { log "xvfb-run is missing: run scripts/setup.sh (xvfb)"; exit 1; }

bash scripts/ui-build.sh
log "building the app (debug; the UI is embedded by the default custom-protocol feature)"
# --workspace, as scripts/test.sh builds them: selecting fewer packages can unify dependency
# features differently and build a second copy of them. Linted as it builds, as test.sh builds.
. scripts/lint-while-building.sh
cargo build --locked --workspace --bins

export SMART_APP="$CARGO_TARGET_DIR/debug/smart-app"
export SMART_CLI="$CARGO_TARGET_DIR/debug/smart"
export TAURI_DRIVER="$tools/bin/tauri-driver"
export SMART_E2E_OUT="${SMART_E2E_OUT:-$CARGO_TARGET_DIR/e2e}"
rm -rf "$SMART_E2E_OUT"
# No keyring service in a headless session: the app and CLI use the 0600 key file the test's
# data dir asks for. Models are not needed: the typed commands are answered by phrase templates.
xvfb-run -a -s "-screen 0 1280x800x24" node tests/e2e/app.e2e.mjs
