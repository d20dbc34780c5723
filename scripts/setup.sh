#!/usr/bin/env bash
# Installs whatever this project needs and is missing, and nothing else.
#
# Both README commands (scripts/run.sh, scripts/test.sh) start here, so a fresh Debian/Ubuntu
# machine gets from a clean clone to a working build with no hand-installed state. Every step
# checks before it acts: a second run on a ready machine does no work and prints one line a step.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

# `--cross`: also what the checks for the other systems need: the Windows cross build and its
# Wine test run (scripts/windows-test.sh), and the macOS target's standard library
# (scripts/macos-check.sh). scripts/test.sh asks for it; scripts/run.sh, which only runs the app
# here, does not.
CROSS=""
if [ "${1:-}" = "--cross" ]; then CROSS=1; fi

log() { printf '\033[1msetup:\033[0m %s\n' "$*" >&2; }

# Debian packages, grouped by why we need them. Keep this list the only place they are named.
APT_TAURI="libwebkit2gtk-4.1-dev libgtk-3-dev librsvg2-dev libayatana-appindicator3-dev libxdo-dev libssl-dev build-essential pkg-config file xdg-utils"
# The real app window under Xvfb, driven over WebDriver (WebKitWebDriver), and the built UI in
# a headless Chromium (playwright-core drives the Debian browser; it never downloads one).
APT_HEADLESS="xvfb xauth webkit2gtk-driver chromium x11-utils xdotool"
APT_KEYRING="dbus-x11 keyutils gnome-keyring libdbus-1-dev"
# llama.cpp is built from source by the llama-cpp-2 crate (cmake, a C++ compiler, bindgen's libclang).
APT_NATIVE="cmake clang libclang-dev"
# The voice worker: ALSA headers for cpal/rodio; speech-dispatcher for spoken replies on Linux.
APT_AUDIO="libasound2-dev libspeechd-dev"
# Speech for tests (espeak-ng voices, sox for silence/noise/tempo) and a real-time virtual
# microphone without a sound card (a PulseAudio null sink, ALSA routed through it).
APT_SPEECH="espeak-ng sox pulseaudio pulseaudio-utils libasound2-plugins alsa-utils"
# Windows, verified from Linux (scripts/windows-test.sh): MinGW-w64's C and C++ cross compilers
# (the bundled SQLite, ring's assembly) and Wine to run the Windows test binaries.
APT_WINDOWS="gcc-mingw-w64-x86-64-posix g++-mingw-w64-x86-64-posix wine64 wine"
# Only where rustup cannot fetch a cross target's standard library: Debian's rustc of the same
# line and its library source, from which windows-test.sh and macos-check.sh build it.
APT_CROSS_STD="rustc-web cargo-web rust-web-src"
APT_ALL="$APT_TAURI $APT_HEADLESS $APT_KEYRING $APT_NATIVE $APT_AUDIO $APT_SPEECH"

missing_apt() {
  local p out=()
  for p in $APT_ALL ${CROSS:+$APT_WINDOWS}; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || out+=("$p")
  done
  echo "${out[@]:-}"
}

install_apt() {
  local missing
  missing=$(missing_apt)
  if [ -z "$missing" ]; then log "system packages: present"; return; fi
  log "system packages: installing $missing"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

install_rust() {
  # rustup's toolchain first: Debian's cargo (/usr/bin, from APT_CROSS_STD) is only for the
  # cross builds' fallback.
  if [ -x "$HOME/.cargo/bin/cargo" ]; then export PATH="$HOME/.cargo/bin:$PATH"; log "rust: $(cargo --version)"; return; fi
  if command -v cargo >/dev/null 2>&1; then log "rust: $(cargo --version)"; return; fi
  log "rust: installing stable through rustup (from the Debian rustup package)"
  local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  command -v rustup >/dev/null 2>&1 || DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq rustup >/dev/null
  rustup default stable
}

install_node() {
  if ! command -v npm >/dev/null 2>&1; then
    log "node: installing nodejs and npm (Debian)"
    local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nodejs npm >/dev/null
  fi
  if [ -f package-lock.json ]; then
    # node_modules is fresh when it was installed from exactly this lock file.
    local stamp=node_modules/.smart-lock-hash want
    want=$(sha256sum package-lock.json | cut -d' ' -f1)
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
      log "npm packages: present"
    else
      log "npm packages: npm ci"
      npm ci --no-audit --no-fund --loglevel=error
      echo "$want" > "$stamp"
    fi
  fi
}

# The model catalog's registry source runs the ordinary Python package client.
install_pip() {
  if python3 -m pip --version >/dev/null 2>&1; then log "python pip: present"; return; fi
  log "python pip: installing python3-pip (Debian)"
  local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends python3-pip >/dev/null
}

# libvosk (the wake-word recogniser's C library) is published as part of the `vosk` wheel; the
# voice worker links it at build time (crates/voice-worker/build.rs) with an rpath to this folder.
VOSK_VERSION=0.3.45
VOSK_SHA256=85c4654de3acdeb99abab86eeb2a6e603927d37089597c0fcc33d8638dc2ccaf
VOSK_DIR="${SMART_VOSK_DIR:-$HOME/.cache/smart/vosk/$VOSK_VERSION}"
install_libvosk() {
  if [ -f "$VOSK_DIR/libvosk.so" ] && echo "$VOSK_SHA256  $VOSK_DIR/libvosk.so" | sha256sum -c --status; then
    log "libvosk: present"; return
  fi
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) ;;
    *) log "libvosk: no pinned build for $(uname -s)-$(uname -m); the voice worker builds without a wake word"; return ;;
  esac
  log "libvosk: fetching vosk==$VOSK_VERSION from PyPI"
  local tmp; tmp=$(mktemp -d)
  python3 -m pip download -q --no-deps --only-binary :all: --platform manylinux2010_x86_64 \
    --python-version 3.11 -d "$tmp" "vosk==$VOSK_VERSION" >&2
  mkdir -p "$VOSK_DIR"
  python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); open(sys.argv[2], "wb").write(z.read("vosk/libvosk.so"))' \
    "$(ls "$tmp"/vosk-*.whl)" "$VOSK_DIR/libvosk.so.part"
  rm -rf "$tmp"
  if ! echo "$VOSK_SHA256  $VOSK_DIR/libvosk.so.part" | sha256sum -c --status; then
    rm -f "$VOSK_DIR/libvosk.so.part"
    log "libvosk: the downloaded library does not match the pinned sha256; refusing it"; return 1
  fi
  mv "$VOSK_DIR/libvosk.so.part" "$VOSK_DIR/libvosk.so"
  log "libvosk: $VOSK_DIR/libvosk.so"
}

# libvosk for the Windows build (scripts/windows-test.sh, --cross): the `vosk` wheel for
# win_amd64 holds libvosk.dll and the three MinGW runtime DLLs it needs beside it. MinGW's linker
# links the DLL itself (crates/voice-worker/vosk_link.rs); a Windows worker finds the four beside
# it (under Wine, on WINEPATH). The wheel is pinned by its sha256, which covers all four.
VOSK_WIN_WHEEL_SHA256=6994ddc68556c7e5730c3b6f6bad13320e3519b13ce3ed2aa25a86724e7c10ac
VOSK_WIN_DLLS=(libvosk.dll libgcc_s_seh-1.dll libstdc++-6.dll libwinpthread-1.dll)
install_libvosk_windows() {
  local have=1 dll
  for dll in "${VOSK_WIN_DLLS[@]}"; do [ -f "$VOSK_DIR/windows/$dll" ] || have=0; done
  if [ "$have" = 1 ]; then log "libvosk for Windows: present"; return; fi
  log "libvosk for Windows: fetching vosk==$VOSK_VERSION (win_amd64) from PyPI"
  local tmp; tmp=$(mktemp -d)
  python3 -m pip download -q --no-deps --only-binary :all: --platform win_amd64 \
    --python-version 3.11 -d "$tmp" "vosk==$VOSK_VERSION" >&2
  local wheel; wheel=$(ls "$tmp"/vosk-*win_amd64.whl)
  if ! echo "$VOSK_WIN_WHEEL_SHA256  $wheel" | sha256sum -c --status; then
    rm -rf "$tmp"
    log "libvosk for Windows: the downloaded wheel does not match the pinned sha256; refusing it"; return 1
  fi
  mkdir -p "$VOSK_DIR/windows.part"
  python3 -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for name in sys.argv[3:]:
    open(sys.argv[2] + "/" + name, "wb").write(z.read("vosk/" + name))' "$wheel" "$VOSK_DIR/windows.part" "${VOSK_WIN_DLLS[@]}"
  rm -rf "$tmp" "$VOSK_DIR/windows"
  mv "$VOSK_DIR/windows.part" "$VOSK_DIR/windows"
  log "libvosk for Windows: $VOSK_DIR/windows"
}

# A cross target's standard library (Windows for scripts/windows-test.sh, macOS for
# scripts/macos-check.sh): from rustup where it can fetch it, else Debian's rustc-web and its
# library source (those scripts then build the standard library from it).
install_cross_std() {
  local target=$1
  if command -v rustup >/dev/null 2>&1 && rustup target list --installed 2>/dev/null | grep -qx "$target"; then
    log "$target: present (rustup)"; return
  fi
  if command -v rustup >/dev/null 2>&1 && timeout 600 rustup target add "$target" >/dev/null 2>&1; then
    log "$target: added (rustup)"; return
  fi
  local p missing=()
  for p in $APT_CROSS_STD; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then log "$target: Debian's rustc-web and library source"; return; fi
  log "$target: rustup could not add it; installing ${missing[*]}"
  local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

install_apt
install_rust
if [ -n "$CROSS" ]; then install_cross_std x86_64-pc-windows-gnu; install_cross_std aarch64-apple-darwin; fi
install_node
install_pip
install_libvosk
if [ -n "$CROSS" ]; then install_libvosk_windows; fi
