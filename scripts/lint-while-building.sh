# Lints our crates while they are built for the tests, instead of in a build of their own.
#
#   . scripts/lint-while-building.sh    # then: cargo build / cargo test as usual
#
# Why this exists: `cargo clippy` is `cargo check` with clippy-driver in rustc's place, and a check
# shares nothing with a build — every dependency is compiled a second time, as metadata only. On
# CI's 2-core machine that second compile was 20 minutes of a cold Linux run and 16 of the Windows
# one, the difference between a run that fits the 90 minutes CI allows and one that does not.
#
# So the scripts that build the tests (test.sh, e2e.sh, windows-test.sh) source this file, and
# cargo then compiles each of our crates with clippy-driver (RUSTC_WORKSPACE_WRAPPER: workspace
# members only, so the dependencies are the same units a plain `cargo build` makes and reuses).
# clippy-driver is rustc with clippy's lints added: it builds the same code, and with
# CLIPPY_ARGS's `-D warnings` a lint, or a compiler warning, fails the build that meets it — the
# same verdict `cargo clippy --all-targets -- -D warnings` gives, as `cargo test` builds the
# libraries, binaries, tests and examples `--all-targets` names (we have no benches).
# CLIPPY_ARGS is how cargo-clippy hands its arguments to clippy-driver, separated by
# `__CLIPPY_HACKERY__`; clippy-driver tracks it, so changing it rebuilds what it lints.
#
# Sourcing it again recomputes the same wrapper from the same toolchain (e2e.sh under test.sh must
# not change it, or every crate would be built again); a subshell that switches toolchains calls
# `lint_while_building` again.

lint_while_building() {
  local driver=""
  if [ -n "${RUSTC:-}" ]; then
    # Debian's toolchain (scripts/cross-toolchain.sh's fallback): the clippy-driver of that rustc
    # or none, as a clippy-driver is a rustc of one exact version.
    driver="$(dirname "$RUSTC")/clippy-driver"
    if [ ! -x "$driver" ]; then
      echo "$(basename "$0"): no clippy-driver beside $RUSTC, so nothing built with it can be linted" >&2
      return 1
    fi
  elif command -v rustup >/dev/null 2>&1 && rustup which clippy-driver >/dev/null 2>&1; then
    driver=$(rustup which clippy-driver)
  elif command -v clippy-driver >/dev/null 2>&1; then
    driver=$(command -v clippy-driver)
  else
    echo "$(basename "$0"): clippy-driver is missing, so nothing can be linted" >&2
    echo "  (rustup component add clippy)" >&2
    return 1
  fi
  export RUSTC_WORKSPACE_WRAPPER="$driver"
  export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
}
lint_while_building
