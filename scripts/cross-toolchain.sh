# Sourced by scripts/windows-test.sh and scripts/macos-check.sh: which Rust builds for the cross
# target $TARGET. rustup's toolchain with the target added, where rustup could fetch it;
# otherwise Debian's `rustc-web` (a stable rustc one minor release from rustup's) building the
# standard library for the target from Debian's `rust-web-src` with `-Zbuild-std`
# (RUSTC_BOOTSTRAP=1 lets that stable compiler take the flag; nothing else is unstable).
# scripts/setup.sh --cross installs one or the other.
#
# Sets `cross_cargo` (the cargo command, an array) and `build_std` (extra cargo arguments).
cross_cargo=(cargo)
build_std=()
if command -v rustup >/dev/null 2>&1 && rustup target list --installed 2>/dev/null | grep -qx "$TARGET"; then
  step "toolchain: rustup's $(rustc --version) with the $TARGET target"
elif [ -x /usr/bin/rustc ] && [ -d /usr/lib/rustlib/src/rust/library ]; then
  step "toolchain: Debian's $(/usr/bin/rustc --version), the standard library built from rust-web-src"
  cross_cargo=(/usr/bin/cargo)
  export RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1
  build_std=(-Zbuild-std=std,panic_abort,panic_unwind)
else
  echo "$(basename "$0"): no Rust standard library for $TARGET: rustup cannot add the target here and" >&2
  echo "  Debian's rustc-web/rust-web-src are not installed (scripts/setup.sh --cross installs them)" >&2
  exit 1
fi
