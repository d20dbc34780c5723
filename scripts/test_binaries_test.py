"""Tests of test_binaries.py: real executables in a temporary workspace stand in for the test
binaries a cargo build made, and a real runner program stands in for wine.

What matters: each slice runs exactly the binaries it names, once, in cargo's order; each runs
from its package's folder with cargo's variables, through the runner, with the test arguments;
a failing binary does not stop the others but fails the whole and is named the way cargo names
it; a slice that names nothing is an error before anything runs.
"""

from __future__ import annotations

import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stderr
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_binaries  # noqa: E402


class Workspace:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.log = root / "ran.log"
        self.artifacts = root / "artifacts.jsonl"
        self.runner = self.script(
            root / "runner",
            # What the runner saw: its working folder, the package variable, then the command.
            'printf "%s|%s|%s\\n" "$PWD" "$CARGO_PKG_NAME" "$*" >> "$RAN_LOG"\nexec "$@"\n',
        )
        lines = []
        began = 'echo "running 1 test"\n'
        # A binary that dies before its first test on its first start only (a Wine start flake).
        flaky = f'if [ -e "{root}/flaky.once" ]; then {began.strip()}; exit 0; fi\ntouch "{root}/flaky.once"\nexit 5\n'
        # package, folder, kind, target name, file name, what the binary does
        units = [
            ("smart-kernel", "kernel", ["lib"], "smart_kernel", "kernel-lib", began + "exit 0\n"),
            ("smart-kernel", "kernel", ["test"], "tidy", "tidy", began + "exit 0\n"),
            ("smart-kernel", "kernel", ["test"], "admission", "admission", began + "exit 0\n"),
            ("smart-cli", "cli", ["bin"], "smart", "smart-bin", began + "exit 0\n"),
            ("smart-cli", "cli", ["test"], "crash", "crash", began + "exit 3\n"),
            ("smart-cli", "cli", ["test"], "e2e", "e2e", began + "exit 0\n"),
            ("smart-signals", "signals", ["test"], "flaky", "flaky", flaky),
            ("smart-signals", "signals", ["test"], "stillborn", "stillborn", "exit 1\n"),
        ]
        for package, folder, kind, name, file, body in units:
            manifest = root / "crates" / folder / "Cargo.toml"
            manifest.parent.mkdir(parents=True, exist_ok=True)
            manifest.write_text("")
            exe = self.script(root / "target" / file, body)
            lines.append(self.message(package, manifest, kind, name, exe, test=True))
        # The library built for the binaries (not a test) and a build script: never run.
        kernel = root / "crates" / "kernel" / "Cargo.toml"
        lines.append(self.message("smart-kernel", kernel, ["lib"], "smart_kernel", None, test=False))
        lines.append(self.message("smart-cli", root / "crates" / "cli" / "Cargo.toml", ["bin"], "smart",
                                  self.script(root / "target" / "smart", "exit 9\n"), test=False))
        # The same test binary reported twice (a second invocation's fresh artifact): run once.
        lines.append(lines[1])
        self.artifacts.write_text("".join(line + "\n" for line in lines))

    @staticmethod
    def script(path: Path, body: str) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("#!/bin/sh\n" + body)
        path.chmod(0o755)
        return path

    @staticmethod
    def message(package: str, manifest: Path, kind: list[str], name: str, exe: Path | None, test: bool) -> str:
        folder = manifest.parent.name
        source = "tests" if kind == ["test"] else "src"
        return json.dumps(
            {
                "reason": "compiler-artifact",
                "package_id": f"path+file://{manifest.parent}#{package}@0.1.0"
                if folder != package
                else f"path+file://{manifest.parent}#0.1.0",
                "manifest_path": str(manifest),
                "target": {"kind": kind, "name": name, "src_path": str(manifest.parent / source / f"{name}.rs")},
                "profile": {"test": test},
                "executable": str(exe) if exe else None,
                "fresh": False,
            }
        )

    def run(self, *args: str) -> tuple[int, str, list[list[str]]]:
        err = io.StringIO()
        os.environ["RAN_LOG"] = str(self.log)
        with redirect_stderr(err):
            rc = test_binaries.main(["test_binaries.py", str(self.artifacts), "--runner", str(self.runner), *args])
        ran = [line.split("|") for line in self.log.read_text().splitlines()] if self.log.exists() else []
        return rc, err.getvalue(), ran


class TestBinariesTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.ws = Workspace(Path(self.tmp.name))

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def ran_files(self, ran: list[list[str]]) -> list[str]:
        return [Path(r[2].split()[0]).name for r in ran]

    def test_a_package_slice_runs_each_of_its_test_binaries_once_in_cargos_order(self) -> None:
        rc, err, ran = self.ws.run("smart-kernel")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.ran_files(ran), ["kernel-lib", "admission", "tidy"])
        self.assertIn(f"Running tests/admission.rs ({self.ws.root / 'target' / 'admission'})", err)
        self.assertIn("Running unittests src/smart_kernel.rs", err)

    def test_each_binary_runs_from_its_package_folder_with_cargos_variables_and_the_test_args(self) -> None:
        rc, err, ran = self.ws.run("smart-kernel:test:tidy", "--", "--skip", "slow one")
        self.assertEqual(rc, 0, err)
        self.assertEqual(len(ran), 1)
        cwd, package, command = ran[0]
        self.assertEqual(cwd, str(self.ws.root / "crates" / "kernel"))
        self.assertEqual(package, "smart-kernel")
        self.assertEqual(command, f"{self.ws.root / 'target' / 'tidy'} --skip slow one")

    def test_a_package_named_by_its_folder_is_read_from_the_id(self) -> None:
        self.assertEqual(test_binaries.package_of("path+file:///w/crates/smart-ledger#0.1.0"), ("smart-ledger", "0.1.0"))
        self.assertEqual(test_binaries.package_of("path+file:///w/crates/kernel#smart-kernel@0.1.0"), ("smart-kernel", "0.1.0"))

    def test_lib_and_bins_slices_take_only_unit_tests_never_the_built_binary_itself(self) -> None:
        rc, err, ran = self.ws.run("smart-kernel:lib", "smart-cli:bins")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.ran_files(ran), ["kernel-lib", "smart-bin"])

    def test_a_failing_binary_fails_the_run_names_itself_and_the_rest_still_run(self) -> None:
        rc, err, ran = self.ws.run("smart-cli")
        self.assertEqual(rc, 1)
        self.assertEqual(self.ran_files(ran), ["smart-bin", "crash", "e2e"])
        self.assertIn("error: test failed, to rerun pass `-p smart-cli --test crash`", err)
        self.assertIn("(exit status: 3)", err)
        self.assertIn("error: 1 target failed:", err)

    def test_a_binary_that_dies_before_its_first_test_gets_one_more_start(self) -> None:
        rc, err, ran = self.ws.run("smart-signals:test:flaky")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.ran_files(ran), ["flaky", "flaky"])
        self.assertIn("exited with status 5 before its first test; starting it once more", err)

    def test_one_more_start_only_and_only_before_the_tests_began(self) -> None:
        rc, err, ran = self.ws.run("smart-signals:test:stillborn", "smart-cli:test:crash")
        self.assertEqual(rc, 1)
        # Dead twice before any test: failed. Failed after its tests began: never started again.
        self.assertEqual(self.ran_files(ran), ["stillborn", "stillborn", "crash"])
        self.assertIn("error: 2 targets failed:", err)

    def test_a_slice_that_names_nothing_is_an_error_and_nothing_runs(self) -> None:
        for bad in ("smart-kernel:test:nosuch", "smart-index", "smart-kernel:bins", "smart-kernel:test", "smart-kernel:docs"):
            with self.subTest(bad=bad):
                rc, err, ran = self.ws.run("smart-kernel", bad)
                self.assertEqual(rc, 2)
                self.assertIn(bad, err)
                self.assertEqual(ran, [])

    def test_a_missing_runner_is_a_failure_not_a_pass(self) -> None:
        err = io.StringIO()
        with redirect_stderr(err):
            rc = test_binaries.main(
                ["test_binaries.py", str(self.ws.artifacts), "--runner", str(self.ws.root / "no-wine"), "smart-kernel:lib"]
            )
        self.assertEqual(rc, 1)
        self.assertIn("could not run", err.getvalue())


if __name__ == "__main__":
    unittest.main()
