#!/usr/bin/env bash
# Windows, verified from Linux: cross-builds the workspace's core crates for
# x86_64-pc-windows-gnu (MinGW-w64) and runs their tests under Wine, so Windows path handling,
# file sharing and renames are exercised by real Windows code paths, not assumed.
#
#   bash scripts/windows-test.sh            # build and run the Windows tests
#   bash scripts/windows-test.sh --no-run   # build only
#
# The toolchain. A developer with rustup and the network adds the target
# (`rustup target add x86_64-pc-windows-gnu`) and this script uses it. Where rustup cannot fetch
# the target's standard library (this project's machines reach only package registries), it
# uses Debian's `rustc-web` (a stable rustc one minor release from rustup's) and builds the
# standard library for Windows from Debian's `rust-web-src` with `-Zbuild-std`
# (RUSTC_BOOTSTRAP=1 lets that stable compiler take the flag; nothing else is unstable). Builds
# go to their own target dir, so the Linux build's cache and its sweeper never see them.
#
# Wine: Debian 12's Wine 8 lacks bcryptprimitives.dll, which every Rust program for Windows
# imports; scripts/windows/bcryptprimitives.c is a stand-in for its one function, built into
# the test prefix only (real Windows 10+ has the DLL).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

step() { printf '\n\033[1m== %s\033[0m\n' "$*" >&2; }

TARGET=x86_64-pc-windows-gnu
# The crates cross-built for Windows, with clippy -D warnings for that target, and their tests.
CRATES=(smart-kernel smart-ledger smart-signals smart-tools smart-index smart-runtime)
# Those whose tests then run under Wine, every one passing there. smart-runtime's do not yet:
# its phrase templates join paths with `/` (issue 19), and its integration tests need the
# model and voice workers, which are not cross-built yet.
RUN=(smart-kernel smart-ledger smart-signals smart-tools smart-index)

export CARGO_TARGET_DIR="${SMART_WINDOWS_TARGET_DIR:-$HOME/.cache/smart/target-windows}"
export WINEPREFIX="${SMART_WINEPREFIX:-$HOME/.cache/smart/wine}"
export WINEDEBUG=-all
# No Mono or Gecko installers, no menu entries, no display: the tests are console programs.
export WINEDLLOVERRIDES="mscoree,mshtml=;winemenubuilder.exe=d"
export DISPLAY=

bash scripts/setup.sh --windows
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

cargo_win=(cargo)
build_std=()
if command -v rustup >/dev/null 2>&1 && rustup target list --installed 2>/dev/null | grep -qx "$TARGET"; then
  step "toolchain: rustup's $(rustc --version) with the $TARGET target"
elif [ -x /usr/bin/rustc ] && [ -d /usr/lib/rustlib/src/rust/library ]; then
  step "toolchain: Debian's $(/usr/bin/rustc --version), the standard library built from rust-web-src"
  cargo_win=(/usr/bin/cargo)
  export RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1
  build_std=(-Zbuild-std=std,panic_abort,panic_unwind)
else
  echo "windows-test: no Rust standard library for $TARGET: rustup cannot add the target here and" >&2
  echo "  Debian's rustc-web/rust-web-src are not installed (scripts/setup.sh installs them)" >&2
  exit 1
fi

step "wine: the test prefix ($WINEPREFIX)"
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  wineboot --init >/dev/null 2>&1 || true
  wineserver --wait || true
fi
shim="$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
if [ ! -f "$shim" ] || [ scripts/windows/bcryptprimitives.c -nt "$shim" ]; then
  "$mingw" -O2 -shared -o "$shim" scripts/windows/bcryptprimitives.c -ladvapi32
fi

packages=()
for c in "${CRATES[@]}"; do packages+=(-p "$c"); done
run=()
for c in "${RUN[@]}"; do run+=(-p "$c"); done

step "lints for $TARGET: ${CRATES[*]}"
"${cargo_win[@]}" clippy --locked --target "$TARGET" "${build_std[@]}" "${packages[@]}" --all-targets -- -D warnings

step "build for $TARGET: ${CRATES[*]} and their tests"
"${cargo_win[@]}" test --locked --target "$TARGET" "${build_std[@]}" "${packages[@]}" --no-run
if [ "${1:-}" = "--no-run" ]; then exit 0; fi

step "rust under wine: ${RUN[*]} ($TARGET)"
# --no-fail-fast: one failing test binary must not hide the others' results from the count.
"${cargo_win[@]}" test --locked --target "$TARGET" "${build_std[@]}" "${run[@]}" --no-fail-fast
