"""Tests of target_gc.py on real files in a temporary cargo-shaped profile dir.

The sweeper deletes things, so what it must keep is tested as carefully as what it removes:
the units a run used (by hash, and binaries by the inode of their uplifted copy), everything
that is not a unit, and everything at all when the run recorded nothing.
"""

from __future__ import annotations

import io
import json
import os
import sys
import tempfile
import time
import unittest
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import target_gc  # noqa: E402

H_USED = "0123456789abcdef"
H_OLD = "fedcba9876543210"
H_BIN = "00000000deadbeef"
H_BUILD_RUN = "1111222233334444"
H_BUILD_OLD = "5555666677778888"


def write(path: Path, text: str = "x") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


class ProfileDir:
    """debug/ with one library in two builds, a binary uplifted by hard link, a build script."""

    def __init__(self, root: Path) -> None:
        self.profile = root / "target" / "debug"
        p = self.profile
        for h in (H_USED, H_OLD):
            write(p / ".fingerprint" / f"smart-kernel-{h}" / "lib-smart_kernel")
            write(p / "deps" / f"libsmart_kernel-{h}.rlib")
            write(p / "deps" / f"libsmart_kernel-{h}.rmeta")
            write(p / "deps" / f"smart_kernel-{h}.d")
        write(p / ".fingerprint" / f"smart-cli-{H_BIN}" / "bin-smart")
        bin_in_deps = write(p / "deps" / f"smart-{H_BIN}", "binary")
        os.link(bin_in_deps, p / "smart")
        write(p / "build" / f"llama-cpp-sys-2-{H_BUILD_RUN}" / "out" / "libllama.a")
        write(p / "build" / f"llama-cpp-sys-2-{H_BUILD_OLD}" / "out" / "libllama.a")
        write(p / "libsmart_kernel.rlib")  # uplifted library copy: not a unit, never swept
        write(p / "incremental" / "smart_kernel-old" / "s-1" / "query-cache.bin")
        write(p / "incremental" / "smart_kernel-new" / "s-2" / "query-cache.bin")
        old = time.time() - 3600
        os.utime(p / "incremental" / "smart_kernel-old", (old, old))
        self.stamp = write(root / "stamp")
        os.utime(self.stamp, (old + 60, old + 60))
        self.used = root / "used"


def messages(profile: Path) -> list[str]:
    return [
        json.dumps(
            {
                "reason": "compiler-artifact",
                "filenames": [
                    str(profile / "deps" / f"libsmart_kernel-{H_USED}.rlib"),
                    str(profile / "deps" / f"libsmart_kernel-{H_USED}.rmeta"),
                ],
                "executable": None,
                "fresh": True,
            }
        ),
        json.dumps(
            {
                "reason": "compiler-artifact",
                "filenames": [str(profile / "smart")],
                "executable": str(profile / "smart"),
                "fresh": False,
            }
        ),
        json.dumps(
            {
                "reason": "build-script-executed",
                "out_dir": str(profile / "build" / f"llama-cpp-sys-2-{H_BUILD_RUN}" / "out"),
            }
        ),
        json.dumps({"reason": "build-finished", "success": True}),
    ]


def run_record(used: Path, lines: list[str], artifacts: Path | None = None) -> str:
    stdin, stdout = sys.stdin, io.StringIO()
    sys.stdin = io.StringIO("".join(line + "\n" for line in lines))
    try:
        with redirect_stdout(stdout):
            rc = target_gc.record(str(used), str(artifacts) if artifacts else None)
    finally:
        sys.stdin = stdin
    assert rc == 0
    return stdout.getvalue()


def run_sweep(profile: Path, used: Path, stamp: Path) -> tuple[int, str]:
    err = io.StringIO()
    with redirect_stderr(err):
        rc = target_gc.sweep(str(profile), str(used), str(stamp))
    return rc, err.getvalue()


class TargetGcTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = ProfileDir(Path(self.tmp.name))
        self.p = self.dir.profile

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def test_record_passes_program_output_through_and_notes_every_unit(self) -> None:
        out = run_record(
            self.dir.used,
            ["running 3 tests", *messages(self.p), "test result: ok. 3 passed"],
        )
        self.assertEqual(out, "running 3 tests\ntest result: ok. 3 passed\n")
        noted = set(self.dir.used.read_text().split())
        st = (self.p / "smart").stat()
        self.assertEqual(noted, {H_USED, H_BUILD_RUN, f"ino:{st.st_dev}:{st.st_ino}"})

    def test_record_keeps_the_artifact_messages_it_is_asked_to_and_only_those(self) -> None:
        artifacts = Path(self.tmp.name) / "artifacts.jsonl"
        lines = messages(self.p)
        out = run_record(self.dir.used, ["running 0 tests", *lines], artifacts)
        self.assertEqual(out, "running 0 tests\n")
        kept = artifacts.read_text().splitlines()
        expected = [line for line in lines if json.loads(line)["reason"] == "compiler-artifact"]
        self.assertTrue(expected)
        self.assertEqual(kept, expected)

    def test_sweep_removes_only_what_the_run_did_not_use(self) -> None:
        run_record(self.dir.used, messages(self.p))
        rc, said = run_sweep(self.p, self.dir.used, self.dir.stamp)
        self.assertEqual(rc, 0)
        kept = {
            f".fingerprint/smart-kernel-{H_USED}",
            f"deps/libsmart_kernel-{H_USED}.rlib",
            f"deps/smart_kernel-{H_USED}.d",
            f"deps/smart-{H_BIN}",
            f".fingerprint/smart-cli-{H_BIN}",  # kept through the binary's inode
            f"build/llama-cpp-sys-2-{H_BUILD_RUN}/out/libllama.a",
            "smart",
            "libsmart_kernel.rlib",
            "incremental/smart_kernel-new",
        }
        gone = {
            f".fingerprint/smart-kernel-{H_OLD}",
            f"deps/libsmart_kernel-{H_OLD}.rlib",
            f"deps/libsmart_kernel-{H_OLD}.rmeta",
            f"deps/smart_kernel-{H_OLD}.d",
            f"build/llama-cpp-sys-2-{H_BUILD_OLD}",
            "incremental/smart_kernel-old",
        }
        for rel in kept:
            self.assertTrue((self.p / rel).exists(), f"{rel} was deleted")
        for rel in gone:
            self.assertFalse((self.p / rel).exists(), f"{rel} was kept")
        self.assertIn("2 unused builds and 1 stale incremental caches removed", said)

    def test_sweep_after_a_run_that_recorded_nothing_deletes_nothing(self) -> None:
        self.dir.used.write_text("")
        before = sorted(str(p) for p in self.p.rglob("*"))
        rc, said = run_sweep(self.p, self.dir.used, self.dir.stamp)
        self.assertEqual(rc, 0)
        self.assertIn("recorded no builds", said)
        self.assertEqual(before, sorted(str(p) for p in self.p.rglob("*")))

    def test_sweep_refuses_a_folder_that_is_not_a_profile_dir(self) -> None:
        run_record(self.dir.used, messages(self.p))
        other = Path(self.tmp.name) / "home"
        write(other / "deps" / f"notes-{H_OLD}.txt")
        rc, said = run_sweep(other, self.dir.used, self.dir.stamp)
        self.assertEqual(rc, 2)
        self.assertIn("not a cargo profile dir", said)
        self.assertTrue((other / "deps" / f"notes-{H_OLD}.txt").exists())

    def test_sweep_without_its_start_stamp_deletes_nothing(self) -> None:
        run_record(self.dir.used, messages(self.p))
        rc, said = run_sweep(self.p, self.dir.used, Path(self.tmp.name) / "missing")
        self.assertEqual(rc, 2)
        self.assertIn("no start stamp", said)
        self.assertTrue((self.p / "deps" / f"libsmart_kernel-{H_OLD}.rlib").exists())


if __name__ == "__main__":
    unittest.main()
