#!/usr/bin/env python3
"""Names the crates a second cargo build compiled again, differently, after a first one.

Why this exists: scripts/test.sh builds every binary, then every test, in one target dir, and
the second build should compile only what the tests add (their own binaries and the
dev-dependencies). Cargo (resolver 2) unifies a [dev-dependencies] entry's features only into
builds that select the tests, so a dev-dependency that turns on one more feature of a shared
crate gives the test build its own copy of that crate and of everything that depends on it.
That has happened twice (tauri's "test" feature: tauri, its plugins and the app, minutes of a
cold CI run; proptest's random source: getrandom, tempfile, the updater and the app), and each
time it showed only as a slower run. CI's 90 minutes are close enough that this check fails the
run instead, naming the crate and the features each build gave it.

    built_twice.py FIRST SECOND

FIRST and SECOND hold cargo's "compiler-artifact" messages, one JSON object a line (what
`target_gc.py record USED ARTIFACTS` keeps). A unit of SECOND is "built twice" when FIRST has
the same package and target, not as a test, under other metadata hashes only: the same crate
with other features or settings. A package FIRST never built (a dev-dependency) is not, and
neither are the workspace's own (path) packages: a member that is also a build-dependency
(smart-mingw-link) is rightly built again for its own tests, and when a third-party crate below
one of ours changes, that crate is what gets named.
"""

from __future__ import annotations

import json
import re
import sys

# Cargo names a unit's outputs "<name>-<16 hex digits of its metadata hash>[.ext]".
HASH = re.compile(r"-([0-9a-f]{16})(?=$|[./])")


def units(path: str) -> dict[tuple, dict[str, list[str]]]:
    """(package, target name, kinds) -> {metadata hash: features}, test-profile units left out."""
    found: dict[tuple, dict[str, list[str]]] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                m = json.loads(line)
            except ValueError:
                continue
            if not isinstance(m, dict) or m.get("reason") != "compiler-artifact":
                continue
            if (m.get("profile") or {}).get("test"):
                continue  # a test harness build: the first build never makes one
            if str(m.get("package_id", "")).startswith("path+"):
                continue  # one of the workspace's own packages
            target = m.get("target") or {}
            key = (m.get("package_id", ""), target.get("name", ""), tuple(target.get("kind") or []))
            hashes = {h for p in m.get("filenames") or [] for h in HASH.findall(p)}
            for h in hashes:
                found.setdefault(key, {})[h] = list(m.get("features") or [])
    return found


def package_name(package_id: str) -> str:
    """'registry+https://…#getrandom@0.4.3' -> 'getrandom 0.4.3'; a path package's own name."""
    tail = package_id.rsplit("#", 1)[-1]
    if "@" in tail:
        name, version = tail.split("@", 1)
        return f"{name} {version}"
    # path+file:///…/crates/cli#0.1.0: the folder names it
    return f"{package_id.rsplit('#', 1)[0].rstrip('/').rsplit('/', 1)[-1]} {tail}"


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("usage: built_twice.py FIRST_ARTIFACTS SECOND_ARTIFACTS", file=sys.stderr)
        return 2
    first, second = units(argv[1]), units(argv[2])
    twice = []
    for key, built in sorted(second.items()):
        before = first.get(key)
        if not before:
            continue
        for h, features in sorted(built.items()):
            if h not in before:
                was = " | ".join(",".join(f) or "(none)" for f in sorted(map(sorted, before.values())))
                twice.append(f"  {package_name(key[0])} ({key[1]}): features {','.join(sorted(features)) or '(none)'}; the first build's: {was}")
    if not twice:
        return 0
    print(f"built twice: the second build compiled {len(twice)} unit(s) the first had built differently:", file=sys.stderr)
    print("\n".join(twice), file=sys.stderr)
    print(
        "  A [dev-dependencies] entry (or a package selection) asks for features the [dependencies] do not;\n"
        "  ask for them in [dependencies] too (Cargo.toml's tauri and getrandom entries show how).",
        file=sys.stderr,
    )
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
