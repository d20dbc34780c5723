#!/usr/bin/env bash
# Windows, verified from Linux: cross-builds the core crates, the runtime, the CLI, the app and
# both workers for x86_64-pc-windows-gnu (MinGW-w64) and runs their tests under Wine, so
# Windows path handling, file sharing, renames and the worker pipe are exercised by real Windows
# code paths, not assumed.
#
#   bash scripts/windows-test.sh            # build and run the Windows tests
#   bash scripts/windows-test.sh --no-run   # build only
#
# The toolchain: rustup's Windows target, or Debian's rustc building the standard library
# (scripts/cross-toolchain.sh). Builds go to their own target dir, swept of what a run did not
# use like the Linux one.
#
# The workers' llama.cpp and whisper.cpp are built by MinGW too: Debian 12's MinGW-w64 headers
# lack one structure they use, declared by scripts/windows/mingw_compat.h, forced into every C
# and C++ file built for the target; ggml's archives get back the "lib" prefix its CMake drops on
# Windows (scripts/cmake/ggml_lib_prefix.cmake, which .cargo/config.toml hands every CMake build),
# so llama-cpp-sys-2 finds them; and both workers' build scripts link the C++ runtime statically
# (crates/mingw-link).
#
# Wine: Debian 12's Wine 8 lacks bcryptprimitives.dll, which every Rust program for Windows
# imports; scripts/windows/bcryptprimitives.c is a stand-in for its one function, built into
# the test prefix only (real Windows 10+ has the DLL).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

. scripts/step.sh

TARGET=x86_64-pc-windows-gnu
# The crates cross-built for Windows, linted for that target as they build (clippy -D warnings,
# scripts/lint-while-building.sh), and their tests: one build, whose test binaries each slice
# below then runs (scripts/test_binaries.py).
CRATES=(smart-kernel smart-ledger smart-signals smart-tools smart-index smart-proposer smart-runtime smart-cli smart-app
  smart-proposer-worker smart-voice-worker smart-stand-in-worker smart-mingw-link)
# Those whose tests then all run under Wine, every one passing there. Slices name a package (all
# of its test binaries), PACKAGE:lib, PACKAGE:bins or PACKAGE:test:NAME.
RUN=(smart-kernel smart-ledger smart-signals smart-tools smart-index smart-proposer smart-stand-in-worker smart-mingw-link)
# The model worker: its pipe test, which starts the Windows build (nothing but Windows' own DLLs
# beside it) and loads the real default model through llama.cpp. Its proposals with the model
# (real_model.rs, and the CLI's tests that run the real model) run on Linux only, for CI's time:
# real_model.rs alone takes 7.5 minutes there, and under Wine it was no faster (three of its
# five tests still running after five minutes).
WORKER_TESTS=(smart-proposer-worker:test:pipe)
# The voice worker built for Windows: its unit tests, and the tests that drive the binary over
# its pipe with real whisper tiny.en and Silero on speech files — transcripts and partials,
# hearing again, weighing texts, expected phrases, and no sound card (Wine has none here). The
# speech is made on Linux first (espeak-ng and sox are Linux programs a Windows test cannot
# start): the Linux build of the same tests runs with SMART_TEST_SPEECH_DIR set and keeps every
# WAV it says there — scripts/test.sh's run of every test, which passes the folder on, or when
# this script runs alone, its own run of these. Its tests on the live virtual microphone need
# PulseAudio, and the whisper wake-word suite mixes its noise with sox as it goes: Linux only.
VOICE_TEST_FILES=(file_events no_sound_card weigh expect rehear)
VOICE_TESTS=(smart-voice-worker:bins)
for t in "${VOICE_TEST_FILES[@]}"; do VOICE_TESTS+=("smart-voice-worker:test:$t"); done
# And libvosk.dll (the wake word) in the Windows worker: loading the Korean model, and waking on
# a file; wake_word.rs's other tests are on the live virtual microphone.
WAKE_TESTS=(a_wake_phrase_vosk_cannot_take_is_refused_at_load_and_wake_capture_with_it
  the_korean_wake_phrase_in_a_file_wakes_the_worker_and_only_the_command_after_it_is_transcribed)
# smart-runtime and smart-cli: their unit tests and integration tests, the supervisor's and the
# CLI's fault tests included (against the stand-in worker). crash_batches, root_swap and
# special_files are Unix-only by what they test (fork-style crashes, renameat2, FIFOs and device
# files).
RUNTIME_TESTS=(smart-runtime:lib)
for t in forgery heard_topics library patch_words timeline rehearing run_script supervisor; do
  RUNTIME_TESTS+=("smart-runtime:test:$t")
done
CLI_TESTS=(smart-cli:bins)
for t in bad_input bounds concurrency crash e2e library sensitive_inside slow_loop tamper turn_id say_bad_input; do
  CLI_TESTS+=("smart-cli:test:$t")
done
# The CLI's `say` tests with the real model run one at a time under Wine. Each starts its own
# worker, whose first ranking evaluates the whole prompt prefix cold; two at once, each worker two
# threads on CI's two cores, both outlasted the proposal's 120 s deadline there (Wine's thread
# waits cost more than Linux's, where the same tests run side by side well inside it).
SAY_TESTS=(smart-cli:test:say)
# smart-app: its IPC and capability tests (Tauri's mock runtime: no window, no WebView2).
APP_TESTS=(smart-app:lib)
# Skipped under Wine, each for a reason of Wine's and not of Windows':
# - Wine's recursive directory watch misses changes inside folders that existed before the
#   watch began (Windows reports them); watch.rs's other test covers what Wine does report.
# - Wine 8's CreateSymbolicLinkW answers success and makes no link (the tests' symlink_dir
#   helper checks, and fails), so the link-escape tests cannot run here.
WINE_SKIPS=(--skip watch::tests::changes_in_a_folder_that_was_there_before_the_watch_mark_their_paths_dirty
  --skip a_symlink_out_of_the_root_is_refused
  --skip a_plan_whose_destination_became_a_symlink_out_of_the_root_is_refused)
# Skipped under Wine, each run on Linux: those that propose with the real model (above).
NEEDS_WORKERS=(--skip a_model_proposal_over_a_real_folder_is_admitted_and_committed
  --skip asking_the_model_to_delete_produces_a_pending_tier_3_call_never_an_execution
  --skip propose_only_shows_the_proposal_and_records_nothing
  --skip perception_reads_the_recent_turns_with_the_real_model_and_only_proposes
  --skip the_assistant_says_what_it_knows_before_it_asks)

# The Linux build's target dir and models folder, for the step that makes the tests' speech.
linux_target="${CARGO_TARGET_DIR:-$HOME/.cache/smart/target}"
linux_models="${SMART_MODELS_DIR:-$HOME/.cache/smart/models}"
export CARGO_TARGET_DIR="${SMART_WINDOWS_TARGET_DIR:-$HOME/.cache/smart/target-windows}"
export WINEPREFIX="${SMART_WINEPREFIX:-$HOME/.cache/smart/wine}"
export WINEDEBUG=-all
# No Mono or Gecko installers, no menu entries, no display: the tests are console programs.
export WINEDLLOVERRIDES="mscoree,mshtml=;winemenubuilder.exe=d"
export DISPLAY=

bash scripts/setup.sh --cross
if [ -x "$HOME/.cargo/bin/cargo" ]; then export PATH="$HOME/.cargo/bin:$PATH"; fi

mingw=x86_64-w64-mingw32-gcc-posix
for tool in "$mingw" wine; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "windows-test: $tool is missing (scripts/setup.sh installs MinGW-w64 and Wine)" >&2
    exit 1
  fi
done
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER="$mingw"
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=wine
export CC_x86_64_pc_windows_gnu="$mingw"
export CXX_x86_64_pc_windows_gnu=x86_64-w64-mingw32-g++-posix
export AR_x86_64_pc_windows_gnu=x86_64-w64-mingw32-ar
export CFLAGS_x86_64_pc_windows_gnu="-include $here/scripts/windows/mingw_compat.h"
export CXXFLAGS_x86_64_pc_windows_gnu="-include $here/scripts/windows/mingw_compat.h"

. scripts/cross-toolchain.sh
. scripts/lint-while-building.sh

step "wine: the test prefix ($WINEPREFIX)"
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  wineboot --init >/dev/null 2>&1 || true
  wineserver --wait || true
fi
# One wineserver for the whole run. The one Wine starts on demand exits the moment its last
# program does, and a test binary started in that moment loses it ("wine client error:0: recvmsg:
# Connection reset by peer", exit status 1 before any test ran: twice in two runs on a fresh
# prefix). A server left by an earlier run of this script is replaced; this run's is stopped at
# its end.
wineserver -k 2>/dev/null || true
wineserver -w 2>/dev/null || true
# What this run leaves behind, removed however it ends: its wineserver, its temporary files (made
# below), and the speech folder when it made its own. (errexit holds in the handler too: a
# wineserver already gone must not stop the removal, nor turn the run's exit status into 1.)
own_speech=
cleanup() {
  wineserver -k 2>/dev/null || true
  rm -rf "${used:-}" "${stamp:-}" "${artifacts:-}" ${own_speech:+"$own_speech"}
}
trap cleanup EXIT
wineserver -p
shim="$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
if [ ! -f "$shim" ] || [ scripts/windows/bcryptprimitives.c -nt "$shim" ]; then
  "$mingw" -O2 -shared -o "$shim" scripts/windows/bcryptprimitives.c -ladvapi32
fi

# Windows programs read paths from the environment as Windows paths: the models folder as Wine
# maps it, and the folder where the build leaves the DLLs the app links (WebView2Loader.dll),
# which Windows would find beside an installed app.
export SMART_MODELS_DIR="$(WINEDEBUG=-all winepath -w "${SMART_MODELS_DIR:-$HOME/.cache/smart/models}" 2>/dev/null)"
# The same for libvosk.dll and the MinGW runtime DLLs it needs, which an installed app has
# beside the voice worker (scripts/setup.sh --cross fetches them).
vosk_windows="${SMART_VOSK_DIR:-$HOME/.cache/smart/vosk/0.3.45}/windows"
export WINEPATH="$(WINEDEBUG=-all winepath -w "$CARGO_TARGET_DIR/$TARGET/debug" 2>/dev/null);$(WINEDEBUG=-all winepath -w "$vosk_windows" 2>/dev/null)"

# Every cargo run's units are recorded and, after a full run, the units of this target dir the
# run did not use are deleted (scripts/target_gc.py, as scripts/test.sh does for the Linux
# builds): both profile dirs, the host's (build scripts, proc macros) and the target's.
used=$(mktemp)
stamp=$(mktemp)
# What the build made (cargo's artifact messages): the test binaries the slices below run.
artifacts=$(mktemp)

packages=()
for c in "${CRATES[@]}"; do packages+=(-p "$c"); done

# One cargo invocation for every crate: cargo picks a shared dependency's features from the
# packages an invocation selects, so one `cargo test -p` per slice built the kernel six times and
# llama.cpp twice (scripts/test_binaries.py says more).
step "build for $TARGET, linted as it builds: ${CRATES[*]} and their tests"
"${cross_cargo[@]}" test --locked --target "$TARGET" "${build_std[@]}" "${packages[@]}" --no-run \
  --message-format=json-render-diagnostics | python3 scripts/target_gc.py record "$used" "$artifacts"

# SLICE... [-- TEST ARGS]: runs those test binaries of the build under Wine, as cargo test would.
wine_tests() {
  python3 scripts/test_binaries.py "$artifacts" --runner wine "$@"
}

# The workers must start on a Windows machine that has nothing but Windows and what the installer
# puts beside them. Under Wine the MinGW runtime DLLs are on WINEPATH (libvosk.dll needs them), so
# a worker that needed them itself would still start here: their imports are read instead.
step "the workers built for Windows import only Windows' own DLLs and libvosk.dll"
for worker in smart-proposer-worker smart-voice-worker; do
  exe="$CARGO_TARGET_DIR/$TARGET/debug/$worker.exe"
  imports=$(x86_64-w64-mingw32-objdump -p "$exe" | sed -n 's/^\s*DLL Name: //p')
  # MinGW's runtime DLLs are lib*.dll; Windows' own are not.
  foreign=$(printf '%s\n' "$imports" | grep -iE '^lib' | grep -vix 'libvosk.dll' || true)
  if [ -n "$foreign" ]; then
    echo "windows-test: $worker.exe needs $(echo $foreign) beside it, which no Windows machine has" >&2
    failed=1
  else
    echo "$worker.exe: $(echo $imports)" >&2
  fi
done
if [ "${1:-}" = "--no-run" ]; then exit "${failed:-0}"; fi

step "speech for the voice worker's tests, made on Linux (espeak-ng, sox) by the same tests"
if [ -n "${SMART_TEST_SPEECH_DIR:-}" ]; then
  # scripts/test.sh ran every Linux test with this set just before: the speech is there already.
  speech=$SMART_TEST_SPEECH_DIR
  echo "speech: $(find "$speech" -name '*.wav' | wc -l) WAV files, kept by the Linux test run" >&2
else
  speech=$(mktemp -d)
  own_speech=$speech
  linux_tests=()
  for t in "${VOICE_TEST_FILES[@]}"; do linux_tests+=(--test "$t"); done
  # The Linux build of the whole workspace, as scripts/test.sh builds it (the same units, so
  # nothing is rebuilt after a test run). Its results are not this script's (scripts/test.sh
  # counts them in the Linux run): they are shown only if it fails, renamed so they are not
  # counted twice.
  speech_log="$speech.log"
  if (
    # (and with the toolchain scripts/test.sh uses, not the cross fallback's Debian rustc)
    unset RUSTC RUSTDOC RUSTC_BOOTSTRAP
    lint_while_building
    export CARGO_TARGET_DIR="$linux_target" SMART_MODELS_DIR="$linux_models" SMART_TEST_SPEECH_DIR="$speech"
    # (errexit does not hold inside an if's condition: each step is chained.)
    cargo test --workspace --locked "${linux_tests[@]}" &&
      cargo test --workspace --locked --test wake_word -- "${WAKE_TESTS[@]}"
  ) >"$speech_log" 2>&1; then
    echo "speech: $(find "$speech" -name '*.wav' | wc -l) WAV files" >&2
  else
    sed 's/test result:/linux result:/' "$speech_log" | tail -n 60 >&2
    failed=1
  fi
  rm -f "$speech_log"
fi

step "rust under wine: ${RUN[*]}, smart-runtime ($TARGET)"
# Every slice runs each of its binaries to the end: one failing must not hide the others' results.
wine_tests "${RUN[@]}" || failed=1
wine_tests "${RUNTIME_TESTS[@]}" -- "${WINE_SKIPS[@]}" || failed=1
step "rust under wine: the model worker built for Windows, on its pipe with the real model ($TARGET)"
wine_tests "${WORKER_TESTS[@]}" || failed=1
step "rust under wine: the voice worker built for Windows, on its pipe with real whisper ($TARGET)"
SMART_TEST_SPEECH_DIR="$(WINEDEBUG=-all winepath -w "$speech" 2>/dev/null)" \
  wine_tests "${VOICE_TESTS[@]}" || failed=1
SMART_TEST_SPEECH_DIR="$(WINEDEBUG=-all winepath -w "$speech" 2>/dev/null)" \
  wine_tests smart-voice-worker:test:wake_word -- "${WAKE_TESTS[@]}" || failed=1
step "rust under wine: smart-app's IPC tests ($TARGET)"
wine_tests "${APP_TESTS[@]}" -- "${WINE_SKIPS[@]}" "${NEEDS_WORKERS[@]}" || failed=1
step "rust under wine: smart-cli, the real smart.exe driven by its tests ($TARGET)"
wine_tests "${CLI_TESTS[@]}" -- "${WINE_SKIPS[@]}" "${NEEDS_WORKERS[@]}" || failed=1
wine_tests "${SAY_TESTS[@]}" -- "${WINE_SKIPS[@]}" "${NEEDS_WORKERS[@]}" --test-threads=1 || failed=1

step "target dir: deleting the Windows builds this run did not use"
python3 scripts/target_gc.py sweep "$CARGO_TARGET_DIR/debug" "$used" "$stamp" || true
python3 scripts/target_gc.py sweep "$CARGO_TARGET_DIR/$TARGET/debug" "$used" "$stamp" || true
exit "${failed:-0}"
