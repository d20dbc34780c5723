#!/usr/bin/env python3
"""Runs chosen test binaries of one cargo build, the way `cargo test` would run them.

Why this exists: scripts/windows-test.sh runs a different slice of each crate under Wine (all of
the kernel's tests, the runtime's library and some of its test files, the CLI's tests with the
ones that need the model workers skipped, ...). It used to ask cargo for each slice with its own
`cargo test -p CRATE`, and cargo resolves the features of shared dependencies from the packages
each invocation selects: seven invocations gave seven feature sets, so one run built the kernel
six times, the runtime and the ledger six times, rusqlite four times and llama.cpp (C++, by MinGW)
twice. That was most of a cold Windows build, and every change to the kernel rebuilt it six times.

Now one `cargo test --no-run` selects every crate the Windows run needs, builds each unit once,
and its "compiler-artifact" messages (kept by `target_gc.py record USED ARTIFACTS`) name every
test binary it made. This script runs the ones a slice names, as cargo would: from the package's
folder, with the CARGO_* variables cargo sets for a test run, through the target's runner (wine),
each binary to its end even when an earlier one failed, and a failure said the way cargo says it
(scripts/test.sh's summary greps for those lines).

    test_binaries.py ARTIFACTS [--runner CMD] SLICE... [-- TEST ARGS...]

SLICE is PACKAGE (every test binary of it), PACKAGE:lib (its library's unit tests),
PACKAGE:bins (its binaries' unit tests) or PACKAGE:test:NAME (tests/NAME.rs). A slice that names
nothing the build made is an error, so a typo cannot quietly run no test. Exit status: 0 when
every binary passed, 1 when one failed, 2 for a usage error.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

LIB_KINDS = {"lib", "rlib", "dylib", "cdylib", "staticlib", "proc-macro"}
# cargo runs a package's library tests first, then its binaries', then its test files.
KIND_ORDER = {"lib": 0, "bin": 1, "test": 2}


class UsageError(Exception):
    pass


@dataclass(frozen=True)
class TestBinary:
    package: str
    version: str
    kind: str  # "lib", "bin" or "test"
    name: str
    src_path: str
    manifest_path: str
    executable: str

    def rerun(self) -> str:
        """What `cargo test` would need to run just this binary (cargo's own wording)."""
        flag = {"lib": "--lib", "bin": f"--bin {self.name}", "test": f"--test {self.name}"}[self.kind]
        return f"-p {self.package} {flag}"


def package_of(package_id: str) -> tuple[str, str]:
    """Name and version from a package id: `path+file:///x/kernel#smart-kernel@0.1.0`, or
    `path+file:///x/smart-ledger#0.1.0` when the name is the folder's."""
    url, _, fragment = package_id.partition("#")
    if "@" in fragment:
        name, _, version = fragment.rpartition("@")
        return name, version
    return url.rstrip("/").rsplit("/", 1)[-1], fragment


def load(artifacts: str) -> list[TestBinary]:
    """The test binaries the build made, once each, in the order the file names them."""
    found: dict[str, TestBinary] = {}
    with open(artifacts, encoding="utf-8") as lines:
        for line in lines:
            message = json.loads(line)
            if message.get("reason") != "compiler-artifact" or not message.get("executable"):
                continue
            if not (message.get("profile") or {}).get("test"):
                continue
            target = message["target"]
            kinds = set(target.get("kind") or [])
            kind = "lib" if kinds & LIB_KINDS else "bin" if "bin" in kinds else "test" if "test" in kinds else ""
            if not kind:
                continue  # benches and examples are not run by `cargo test` either
            package, version = package_of(message["package_id"])
            binary = TestBinary(
                package,
                version,
                kind,
                target["name"],
                target.get("src_path", ""),
                message["manifest_path"],
                message["executable"],
            )
            found.setdefault(binary.executable, binary)
    return list(found.values())


def select(binaries: list[TestBinary], slices: list[str]) -> list[TestBinary]:
    chosen: list[TestBinary] = []
    for piece in slices:
        package, _, rest = piece.partition(":")
        kind, _, name = rest.partition(":")
        if kind not in ("", "lib", "bins", "test") or (kind == "test") != bool(name):
            raise UsageError(f"{piece!r}: a slice is PACKAGE, PACKAGE:lib, PACKAGE:bins or PACKAGE:test:NAME")
        of_package = [b for b in binaries if b.package == package]
        matched = [
            b
            for b in of_package
            if kind == ""
            or (kind == "lib" and b.kind == "lib")
            or (kind == "bins" and b.kind == "bin")
            or (kind == "test" and b.kind == "test" and b.name == name)
        ]
        if not matched:
            made = ", ".join(sorted(f"{b.kind}:{b.name}" for b in of_package)) or "no test binary at all"
            raise UsageError(f"{piece!r} names no test binary of this build (for {package}: {made})")
        matched.sort(key=lambda b: (KIND_ORDER[b.kind], b.name))
        chosen.extend(b for b in matched if b not in chosen)
    return chosen


def run(binary: TestBinary, runner: list[str], test_args: list[str]) -> int:
    folder = os.path.dirname(binary.manifest_path)
    env = dict(os.environ)
    env.update(
        {
            "CARGO_MANIFEST_DIR": folder,
            "CARGO_MANIFEST_PATH": binary.manifest_path,
            "CARGO_PKG_NAME": binary.package,
            "CARGO_PKG_VERSION": binary.version,
            "CARGO_CRATE_NAME": binary.name.replace("-", "_"),
        }
    )
    src = os.path.relpath(binary.src_path, folder) if binary.src_path else binary.name
    label = f"unittests {src}" if binary.kind != "test" else src
    print(f"     Running {label} ({binary.executable})", file=sys.stderr, flush=True)
    command = [*runner, binary.executable, *test_args]
    status, started = attempt(command, folder, env)
    if status not in (0, 127) and not started:
        # Under Wine a test binary now and then dies while Wine starts it (its server, a DLL
        # load), before libtest has run anything: the binary never said "running N tests". That
        # says nothing about the tests, so it gets one more start; a binary that fails again, or
        # that failed after its tests began, fails as cargo would say it.
        print(
            f"warning: {binary.executable} exited with status {status} before its first test; starting it once more",
            file=sys.stderr,
            flush=True,
        )
        status, _ = attempt(command, folder, env)
    return status


def attempt(command: list[str], folder: str, env: dict[str, str]) -> tuple[int, bool]:
    """Runs one test binary, passing its output through as it comes; the exit status, and
    whether libtest began (its "running N tests" line)."""
    started = False
    try:
        with subprocess.Popen(command, cwd=folder, env=env, stdout=subprocess.PIPE, text=True, errors="replace") as child:
            for line in child.stdout or []:
                sys.stdout.write(line)
                sys.stdout.flush()
                started = started or STARTED.match(line) is not None
            return child.wait(), started
    except OSError as e:
        print(f"error: could not run {shlex.join(command)}: {e}", file=sys.stderr)
        return 127, False


STARTED = re.compile(r"^running \d+ tests?$")


USAGE = "usage: test_binaries.py ARTIFACTS [--runner CMD] SLICE... [-- TEST ARGS...]"


def main(argv: list[str]) -> int:
    args = argv[1:]
    test_args: list[str] = []
    if "--" in args:
        cut = args.index("--")
        args, test_args = args[:cut], args[cut + 1 :]
    runner: list[str] = []
    if "--runner" in args:
        at = args.index("--runner")
        if at + 1 >= len(args):
            print(f"test_binaries.py: --runner needs a command\n{USAGE}", file=sys.stderr)
            return 2
        runner = shlex.split(args[at + 1])
        args = args[:at] + args[at + 2 :]
    if len(args) < 2:
        print(USAGE, file=sys.stderr)
        return 2
    try:
        chosen = select(load(args[0]), args[1:])
    except (UsageError, OSError, ValueError, KeyError) as e:
        print(f"test_binaries.py: {e}", file=sys.stderr)
        return 2
    failed = []
    for binary in chosen:
        status = run(binary, runner, test_args)
        if status != 0:
            shown = shlex.join([*runner, binary.executable])
            print(f"error: test failed, to rerun pass `{binary.rerun()}`", file=sys.stderr)
            print(f"  process didn't exit successfully: `{shown}` (exit status: {status})", file=sys.stderr)
            failed.append(binary)
    if failed:
        print(f"error: {len(failed)} target{'s' if len(failed) > 1 else ''} failed:", file=sys.stderr)
        for binary in failed:
            print(f"    `{binary.rerun()}`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
