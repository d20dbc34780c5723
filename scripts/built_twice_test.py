"""Tests of built_twice.py over cargo's own message shape.

What matters: a crate the second build compiled under a hash the first did not make is named,
with both builds' features, and fails the check; units the second build reused, dev-only
packages, test harness builds and a crate built once for build scripts and once for the
program (both in the first build), and the workspace's own packages do not.
"""

from __future__ import annotations

import io
import json
import sys
import tempfile
import unittest
from contextlib import redirect_stderr
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import built_twice  # noqa: E402

GETRANDOM = "registry+https://github.com/rust-lang/crates.io-index#getrandom@0.4.3"
PROPTEST = "registry+https://github.com/rust-lang/crates.io-index#proptest@1.12.0"
KERNEL = "path+file:///w/crates/kernel#smart-kernel@0.1.0"


def artifact(package: str, name: str, hash_: str, features: list[str], kind: str = "lib", test: bool = False) -> str:
    return json.dumps(
        {
            "reason": "compiler-artifact",
            "package_id": package,
            "target": {"kind": [kind], "name": name},
            "profile": {"test": test},
            "features": features,
            "filenames": [f"/t/debug/deps/lib{name}-{hash_}.rlib", f"/t/debug/deps/lib{name}-{hash_}.rmeta"],
            "fresh": True,
        }
    )


class BuiltTwiceTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def check(self, first: list[str], second: list[str]) -> tuple[int, str]:
        a, b = self.dir / "first.jsonl", self.dir / "second.jsonl"
        # Other messages and program output in between, as a real log has.
        a.write_text("\n".join(['{"reason":"build-finished","success":true}', "not json", *first]) + "\n")
        b.write_text("\n".join(second) + "\n")
        err = io.StringIO()
        with redirect_stderr(err):
            rc = built_twice.main(["built_twice.py", str(a), str(b)])
        return rc, err.getvalue()

    def test_a_crate_rebuilt_with_other_features_is_named_with_both_builds_features(self) -> None:
        first = [artifact(GETRANDOM, "getrandom", "1111111111111111", [])]
        second = [artifact(GETRANDOM, "getrandom", "2222222222222222", ["std", "sys_rng"])]
        rc, err = self.check(first, second)
        self.assertEqual(rc, 1)
        self.assertIn("getrandom 0.4.3 (getrandom): features std,sys_rng; the first build's: (none)", err)

    def test_what_the_second_build_reused_added_or_built_as_a_test_passes(self) -> None:
        first = [
            artifact(GETRANDOM, "getrandom", "1111111111111111", []),
            # Built twice within the first build (for build scripts and for the program): both
            # are the first build's, and reusing either is fine.
            artifact(GETRANDOM, "getrandom", "3333333333333333", ["std"]),
            artifact(KERNEL, "smart_kernel", "4444444444444444", []),
        ]
        second = [
            artifact(GETRANDOM, "getrandom", "3333333333333333", ["std"]),
            artifact(KERNEL, "smart_kernel", "4444444444444444", []),
            artifact(PROPTEST, "proptest", "5555555555555555", ["std"]),  # a dev-dependency
            artifact(KERNEL, "smart_kernel", "6666666666666666", [], test=True),  # its unit tests
            # One of the workspace's own, built again for its own tests (smart-mingw-link, a
            # build-dependency too): a third-party crate below it would be named instead.
            artifact(KERNEL, "smart_kernel", "7777777777777777", []),
        ]
        rc, err = self.check(first, second)
        self.assertEqual(rc, 0, err)
        self.assertEqual(err, "")

    def test_a_path_package_is_named_by_its_folder_and_version(self) -> None:
        self.assertEqual(built_twice.package_name("path+file:///w/crates/cli#0.1.0"), "cli 0.1.0")
        self.assertEqual(built_twice.package_name(KERNEL), "smart-kernel 0.1.0")

    def test_wrong_arguments_are_a_usage_error(self) -> None:
        err = io.StringIO()
        with redirect_stderr(err):
            rc = built_twice.main(["built_twice.py", "only-one"])
        self.assertEqual(rc, 2)
        self.assertIn("usage:", err.getvalue())


if __name__ == "__main__":
    unittest.main()
