#!/usr/bin/env bash
# Installs whatever this project needs and is missing, and nothing else.
#
# Both README commands (scripts/run.sh, scripts/test.sh) start here, so a fresh Debian/Ubuntu
# machine gets from a clean clone to a working build with no hand-installed state. Every step
# checks before it acts: a second run on a ready machine does no work and prints one line a step.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

log() { printf '\033[1msetup:\033[0m %s\n' "$*" >&2; }

# Debian packages, grouped by why we need them. Keep this list the only place they are named.
APT_TAURI="libwebkit2gtk-4.1-dev libgtk-3-dev librsvg2-dev libayatana-appindicator3-dev libxdo-dev libssl-dev build-essential pkg-config file xdg-utils"
# The real app window under Xvfb, driven over WebDriver (WebKitWebDriver), and the built UI in
# a headless Chromium (playwright-core drives the Debian browser; it never downloads one).
APT_HEADLESS="xvfb xauth webkit2gtk-driver chromium"
APT_KEYRING="dbus-x11 keyutils gnome-keyring libdbus-1-dev"
# llama.cpp is built from source by the llama-cpp-2 crate (cmake, a C++ compiler, bindgen's libclang).
APT_NATIVE="cmake clang libclang-dev"
APT_ALL="$APT_TAURI $APT_HEADLESS $APT_KEYRING $APT_NATIVE"

missing_apt() {
  local p out=()
  for p in $APT_ALL; do
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
  if command -v cargo >/dev/null 2>&1; then log "rust: $(cargo --version)"; return; fi
  if [ -x "$HOME/.cargo/bin/cargo" ]; then export PATH="$HOME/.cargo/bin:$PATH"; log "rust: $(cargo --version)"; return; fi
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

install_apt
install_rust
install_node
install_pip
