"""Tests of scripts/cmake/project_include.cmake, with real CMake configuring small projects.

What matters: the file .cargo/config.toml hands to every CMake build is this one; a project
named llama.cpp that is told LLAMA_BUILD_COMMON=ON on the command line, as llama-cpp-sys-2's
build script tells it, reads OFF at its option() and so adds no common directory, while any
other project keeps what it was told; and under MinGW a target named ggml that its CMakeLists
gave no prefix is written as libggml.a, as the Rust crates look for it, while other targets
and other platforms keep their names.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import tomllib
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INCLUDE = ROOT / "scripts" / "cmake" / "project_include.cmake"
MINGW_CC = "x86_64-w64-mingw32-gcc-posix"


def configure(test: unittest.TestCase, cmakelists: str, *defines: str) -> tuple[Path, str]:
    """Configures a project made of `cmakelists` with the include; returns its build dir and output."""
    if shutil.which("cmake") is None:
        raise AssertionError("cmake is missing (scripts/setup.sh installs it)")
    top = Path(tempfile.mkdtemp(prefix="smart-cmake-"))
    test.addCleanup(shutil.rmtree, top, True)
    (top / "src").mkdir()
    (top / "src" / "CMakeLists.txt").write_text(cmakelists, encoding="utf-8")
    (top / "src" / "empty.c").write_text("int smart_empty;\n", encoding="utf-8")
    done = subprocess.run(
        ["cmake", "-S", str(top / "src"), "-B", str(top / "build"), f"-DCMAKE_PROJECT_INCLUDE={INCLUDE}", *defines],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise AssertionError(f"cmake failed:\n{done.stdout}\n{done.stderr}")
    return top / "build", done.stdout


# llama.cpp's own shape: project(), then the option, then the directory it guards.
LLAMA_LIKE = """cmake_minimum_required(VERSION 3.16)
project("{name}" C)
option(LLAMA_BUILD_COMMON "llama: build common utils library" ON)
if (LLAMA_BUILD_COMMON)
  message(STATUS "smart-test: common is built")
else()
  message(STATUS "smart-test: common is left out")
endif()
"""

# ggml's shape on Windows: it clears the prefix of its archives; another target keeps its own.
GGML_LIKE = """cmake_minimum_required(VERSION 3.16)
project("ggml" C)
add_library(ggml STATIC empty.c)
add_library(other STATIC empty.c)
if (WIN32)
  set_target_properties(ggml PROPERTIES PREFIX "")
endif()
file(GENERATE OUTPUT names.txt CONTENT "$<TARGET_FILE_NAME:ggml> $<TARGET_FILE_NAME:other>")
"""


class CargoHandsTheIncludeToCMake(unittest.TestCase):
    def test_the_config_names_the_include_relative_to_the_workspace(self) -> None:
        config = tomllib.loads((ROOT / ".cargo" / "config.toml").read_text(encoding="utf-8"))
        entry = config["env"]["CMAKE_PROJECT_INCLUDE"]
        self.assertTrue(entry["relative"], entry)
        self.assertEqual((ROOT / entry["value"]).resolve(), INCLUDE)
        self.assertTrue(INCLUDE.is_file())


class LlamaWithoutCommon(unittest.TestCase):
    def test_llama_cpp_told_to_build_common_leaves_it_out(self) -> None:
        _, out = configure(self, LLAMA_LIKE.format(name="llama.cpp"), "-DLLAMA_BUILD_COMMON=ON")
        self.assertIn("smart-test: common is left out", out)

    def test_another_project_keeps_what_it_was_told(self) -> None:
        _, out = configure(self, LLAMA_LIKE.format(name="whisper.cpp"), "-DLLAMA_BUILD_COMMON=ON")
        self.assertIn("smart-test: common is built", out)


class GgmlLibPrefix(unittest.TestCase):
    def test_mingw_archives_of_ggml_get_their_lib_prefix_back(self) -> None:
        if shutil.which(MINGW_CC) is None:
            raise AssertionError(f"{MINGW_CC} is missing (scripts/setup.sh --cross installs MinGW-w64)")
        build, _ = configure(
            self,
            GGML_LIKE,
            "-DCMAKE_SYSTEM_NAME=Windows",
            f"-DCMAKE_C_COMPILER={MINGW_CC}",
            "-DCMAKE_TRY_COMPILE_TARGET_TYPE=STATIC_LIBRARY",
        )
        self.assertEqual((build / "names.txt").read_text(encoding="utf-8"), "libggml.a libother.a")

    def test_other_platforms_keep_their_names(self) -> None:
        build, _ = configure(self, GGML_LIKE)
        self.assertEqual((build / "names.txt").read_text(encoding="utf-8"), "libggml.a libother.a")


if __name__ == "__main__":
    unittest.main()
