"""Tests of scripts/lint-while-building.sh: the builds the tests make are the lint.

There is no `cargo clippy` step any more, so nothing else would notice if the wrapper stopped
being set: every script that builds our crates for the tests must source it before its first
build, the wrapper it sets must be a clippy-driver with `-D warnings`, and a toolchain without
one must stop the run rather than build unlinted.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "lint-while-building.sh"
BUILD = re.compile(r'(^|\s|")(cargo|"\$\{cross_cargo\[@\]\}") (build|test)\b')


def source(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", f'set -e; . "{SCRIPT}"; echo "$RUSTC_WORKSPACE_WRAPPER|$CLIPPY_ARGS"'],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


class LintWhileBuilding(unittest.TestCase):
    def test_every_script_that_builds_for_the_tests_sources_it_before_its_first_build(self) -> None:
        for name in ("test.sh", "e2e.sh", "windows-test.sh"):
            with self.subTest(script=name):
                lines = (ROOT / "scripts" / name).read_text().splitlines()
                code = [(i, line) for i, line in enumerate(lines) if not line.lstrip().startswith("#")]
                sourced = [i for i, line in code if line.strip() == ". scripts/lint-while-building.sh"]
                builds = [i for i, line in code if BUILD.search(line) or "cargo_recorded build" in line]
                self.assertTrue(sourced, f"{name} does not source lint-while-building.sh")
                self.assertTrue(builds, f"{name}: no cargo build found (has the pattern gone stale?)")
                self.assertLess(sourced[0], builds[0], f"{name} builds before it sources the lint wrapper")
                self.assertNotIn("cargo clippy", "\n".join(line for _, line in code))

    def test_it_sets_clippy_driver_with_warnings_denied(self) -> None:
        env = dict(os.environ)
        env.pop("RUSTC", None)
        env.pop("RUSTC_WORKSPACE_WRAPPER", None)
        env["PATH"] = f"{Path.home() / '.cargo' / 'bin'}:{env.get('PATH', '')}"
        done = source(env)
        self.assertEqual(done.returncode, 0, done.stderr)
        wrapper, args = done.stdout.strip().split("|")
        self.assertEqual(Path(wrapper).name, "clippy-driver")
        self.assertTrue(os.access(wrapper, os.X_OK), wrapper)
        self.assertEqual(args.split("__CLIPPY_HACKERY__")[:2], ["-D", "warnings"])

    def test_a_build_under_the_wrapper_fails_on_a_clippy_lint(self) -> None:
        # The real thing, on a crate of its own: if clippy-driver stopped reading CLIPPY_ARGS, or
        # stopped linting as a wrapper, this build would pass and the run would lint nothing.
        env = dict(os.environ)
        env.pop("RUSTC", None)
        env.pop("RUSTC_WORKSPACE_WRAPPER", None)
        env["PATH"] = f"{Path.home() / '.cargo' / 'bin'}:{env.get('PATH', '')}"
        with tempfile.TemporaryDirectory() as tmp:
            crate = Path(tmp) / "linted"
            (crate / "src").mkdir(parents=True)
            (crate / "Cargo.toml").write_text(
                '[package]\nname = "linted"\nversion = "0.1.0"\nedition = "2021"\n\n[workspace]\n'
            )
            (crate / "src" / "main.rs").write_text(
                "fn main() {\n    let v = [1u8];\n    if v.len() == 0 {\n        println!(\"empty\");\n    }\n}\n"
            )
            env["CARGO_TARGET_DIR"] = str(Path(tmp) / "target")
            build = f'set -e; . "{SCRIPT}"; cd "{crate}"; cargo build --quiet'
            done = subprocess.run(["bash", "-c", build], capture_output=True, text=True, env=env, check=False)
            self.assertNotEqual(done.returncode, 0, "a lint did not fail the build")
            self.assertIn("len_zero", done.stderr)
            plain = subprocess.run(
                ["bash", "-c", f'cd "{crate}"; cargo build --quiet'], capture_output=True, text=True, env=env, check=False
            )
            self.assertEqual(plain.returncode, 0, plain.stderr)

    def test_a_rustc_without_its_clippy_driver_stops_the_script(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            rustc = Path(tmp) / "rustc"
            rustc.write_text("#!/bin/sh\n")
            rustc.chmod(0o755)
            env = dict(os.environ, RUSTC=str(rustc))
            done = source(env)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("no clippy-driver beside", done.stderr)
        self.assertEqual(done.stdout, "")


if __name__ == "__main__":
    unittest.main()
