#!/usr/bin/env python3
"""Keeps the shared cargo target dir from growing without bound.

Why this exists: builds go to one target dir outside the clone ($HOME/.cache/smart/target) so
every run, and CI, rebuilds incrementally. Cargo never deletes anything there. Each time the
dependency graph or a package selection changes, a crate gets a new metadata hash, and the old
build stays beside the new one: a fresh libllama rlib, a fresh 1.3 GiB cmake tree, a fresh
copy of every test binary that links them. In one day of work the dir reached 74 GiB and filled
the disk; CI then failed with "database or disk is full" in a test that writes a SQLite file.

So the scripts that own a profile dir (scripts/test.sh owns debug/, scripts/run.sh release/)
pipe every cargo invocation's JSON messages through `record`, which notes the metadata hash of
every unit the run used — rebuilt or fresh, cargo reports both — and afterwards `sweep` deletes
every unit of that profile dir the run did not use. What the run used is exactly what the next
run needs, so nothing it needs is lost; anything else is at worst rebuilt once.

    cargo build --message-format=json-render-diagnostics | target_gc.py record USED [ARTIFACTS]
    target_gc.py sweep PROFILE_DIR USED STAMP

`record` passes every line that is not a cargo message through to stdout (test output,
program output), so it can sit in a pipe in front of a log. `sweep` also drops incremental
caches not touched since STAMP (a file made when the run started): they cannot be tied to a
metadata hash, and losing one costs one non-incremental compile of one crate.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path

# Cargo names every unit's outputs "<name>-<16 hex digits of its metadata hash>[.ext]".
HASH = re.compile(r"-([0-9a-f]{16})(?=$|[./])")
UNIT_DIRS = ("deps", "build", ".fingerprint", "examples")


def record(used_path: str, artifacts_path: str | None = None) -> int:
    """Notes the hashes in cargo's messages; every other line goes through unchanged.

    With ARTIFACTS, each "compiler-artifact" message is also kept there as the JSON line cargo
    wrote: the test binaries scripts/test_binaries.py runs.
    """
    out = sys.stdout
    artifacts = open(artifacts_path, "a", encoding="utf-8") if artifacts_path else None
    with open(used_path, "a", encoding="utf-8") as used:
        for line in sys.stdin:
            message = None
            if line.startswith('{"reason":'):
                try:
                    message = json.loads(line)
                except ValueError:
                    message = None
            if not isinstance(message, dict):
                out.write(line)
                out.flush()
                continue
            paths = []
            if message.get("reason") == "compiler-artifact":
                if artifacts is not None:
                    artifacts.write(line if line.endswith("\n") else line + "\n")
                    artifacts.flush()
                paths.extend(message.get("filenames") or [])
                if message.get("executable"):
                    paths.append(message["executable"])
            elif message.get("reason") == "build-script-executed":
                paths.append(message.get("out_dir") or "")
            marks = set()
            for path in paths:
                found = HASH.findall(path)
                if found:
                    marks.update(found)
                    continue
                # A binary is reported at its uplifted path (debug/smart), which carries no
                # hash; cargo hard-links it from deps/, so its inode names the unit instead.
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                marks.add(f"ino:{st.st_dev}:{st.st_ino}")
            if marks:
                used.write("\n".join(sorted(marks)) + "\n")
                used.flush()
    if artifacts is not None:
        artifacts.close()
    return 0


def inode(path: Path) -> str:
    try:
        st = path.lstat()
    except OSError:
        return ""
    return f"ino:{st.st_dev}:{st.st_ino}"


def size_of(path: Path) -> int:
    if path.is_symlink() or not path.is_dir():
        try:
            return path.lstat().st_size
        except OSError:
            return 0
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass
    return total


def remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            path.unlink()
        except OSError:
            pass


def gib(n: int) -> str:
    return f"{n / 2**30:.1f} GiB"


def sweep(profile_dir: str, used_path: str, stamp_path: str) -> int:
    profile = Path(profile_dir)
    if profile.name not in ("debug", "release") or not (profile / ".fingerprint").is_dir():
        print(f"target gc: {profile} is not a cargo profile dir; nothing swept", file=sys.stderr)
        return 2
    try:
        used = set(Path(used_path).read_text(encoding="utf-8").split())
    except OSError:
        used = set()
    if not used:
        # An empty record means the run broke before any build: sweeping would empty the dir.
        print("target gc: this run recorded no builds; nothing swept", file=sys.stderr)
        return 0
    try:
        started = Path(stamp_path).stat().st_mtime
    except OSError:
        print(f"target gc: no start stamp at {stamp_path}; nothing swept", file=sys.stderr)
        return 2

    # A binary kept by its inode keeps its whole unit: the fingerprint, the dep-info, its build.
    deps = profile / "deps"
    if deps.is_dir():
        for entry in deps.iterdir():
            found = HASH.findall(entry.name)
            if found and found[-1] not in used and inode(entry) in used:
                used.add(found[-1])

    freed = 0
    units = set()
    for sub in UNIT_DIRS:
        folder = profile / sub
        if not folder.is_dir():
            continue
        for entry in folder.iterdir():
            found = HASH.findall(entry.name)
            if not found or found[-1] in used:
                continue
            freed += size_of(entry)
            units.add(found[-1])
            remove(entry)
    caches = 0
    incremental = profile / "incremental"
    if incremental.is_dir():
        for entry in incremental.iterdir():
            try:
                touched = entry.stat().st_mtime
            except OSError:
                continue
            if touched < started:
                freed += size_of(entry)
                caches += 1
                remove(entry)
    left = size_of(profile)
    print(
        f"target gc: {len(units)} unused builds and {caches} stale incremental caches removed "
        f"({gib(freed)} freed); {profile} is now {gib(left)}",
        file=sys.stderr,
    )
    return 0


def main(argv: list[str]) -> int:
    if len(argv) in (3, 4) and argv[1] == "record":
        return record(argv[2], argv[3] if len(argv) == 4 else None)
    if len(argv) == 5 and argv[1] == "sweep":
        return sweep(argv[2], argv[3], argv[4])
    print(
        "usage: target_gc.py record USED [ARTIFACTS]  |  target_gc.py sweep PROFILE_DIR USED STAMP",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
