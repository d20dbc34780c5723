#!/usr/bin/env bash
# macOS, as far as Linux allows: the crates that are Rust through and through (no C to compile
# for the target) type-checked and linted for aarch64-apple-darwin, so code behind
# `cfg(target_os = "macos")` in them is compiled somewhere.
#
#   bash scripts/macos-check.sh
#
# What this cannot do from Linux: crates that compile C for their target (the bundled SQLite,
# ring, llama.cpp, whisper.cpp) need Apple's SDK headers, which no package registry ships; and
# nothing links or runs (no Apple linker, no macOS). Those are built by the macOS job of
# .github/workflows/build.yml on a real Mac.
#
# blake3 (the kernel's hash) compiles NEON C by default on arm64; CARGO_FEATURE_PURE=1 asks its
# build script for the portable Rust code instead, which is the same function (its own tests
# hold the two to the same outputs) and needs no C compiler for the target.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

. scripts/step.sh

TARGET=aarch64-apple-darwin
CRATES=(smart-kernel smart-signals smart-proposer smart-advisors)

export CARGO_TARGET_DIR="${SMART_MACOS_TARGET_DIR:-$HOME/.cache/smart/target-macos}"
bash scripts/setup.sh --cross
if [ -x "$HOME/.cargo/bin/cargo" ]; then export PATH="$HOME/.cargo/bin:$PATH"; fi

. scripts/cross-toolchain.sh

packages=()
for c in "${CRATES[@]}"; do packages+=(-p "$c"); done
used=$(mktemp)
stamp=$(mktemp)
trap 'rm -f "$used" "$stamp"' EXIT
step "lints for $TARGET: ${CRATES[*]} (type-checked, not linked)"
CARGO_FEATURE_PURE=1 "${cross_cargo[@]}" clippy --locked --target "$TARGET" "${build_std[@]}" "${packages[@]}" \
  --all-targets --message-format=json-render-diagnostics -- -D warnings | python3 scripts/target_gc.py record "$used"

# What this run did not use goes (scripts/target_gc.py; the host's profile dir and the target's).
python3 scripts/target_gc.py sweep "$CARGO_TARGET_DIR/debug" "$used" "$stamp" || true
python3 scripts/target_gc.py sweep "$CARGO_TARGET_DIR/$TARGET/debug" "$used" "$stamp" || true
