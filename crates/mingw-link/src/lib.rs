//! Makes a MinGW (Windows GNU) build of a worker stand alone; called from the build scripts of
//! the two workers that carry ggml (llama.cpp in the model worker, whisper.cpp in the voice
//! worker).
//!
//! `llama-cpp-sys-2` and `whisper-rs-sys` ask for `-lstdc++`, which MinGW resolves to the import
//! library of `libstdc++-6.dll`, a file no Windows machine has: the worker would not start. A
//! folder holding only the static `libstdc++.a` is put ahead of the compiler's own on the search
//! path, so the same `-lstdc++` finds the archive and the worker needs only Windows' own DLLs
//! (GCC's runtime library exception allows linking it in). ggml's CPU backend also reads the
//! processor's name from the registry, so the worker links `advapi32`, which the crates add only
//! when the build itself runs on Windows.
//!
//! (ggml's archives lose their `lib` prefix on Windows and the crates then link none of them;
//! `scripts/cmake/ggml_lib_prefix.cmake` gives the prefix back in ggml's own build.)
//!
//! Every other target is left alone. The worker's tests under Wine are what checks this: a
//! worker that needs `libstdc++-6.dll` does not start there.

use std::path::PathBuf;
use std::process::Command;

/// For the build script of the package being built: on a MinGW target, links the C++ runtime
/// statically and `advapi32`; elsewhere nothing. A C++ runtime that cannot be linked statically
/// is a build warning naming what the built worker will then need.
pub fn stand_alone_on_mingw() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if !is_mingw(&os, &env) {
        return;
    }
    // After everything on the linker's line (a library named here would come before the ggml
    // archives that need it, and be passed over).
    println!("cargo::rustc-link-arg-bins=-ladvapi32");
    if let Err(why) = static_cxx_runtime() {
        println!("cargo::warning=the worker will need libstdc++-6.dll beside it: {why}");
    }
}

/// Whether cargo's `CARGO_CFG_TARGET_OS` / `_ENV` name a MinGW target. A build script must not
/// ask `cfg!(windows)`: that is the machine building, not the one the worker is for.
fn is_mingw(target_os: &str, target_env: &str) -> bool {
    target_os == "windows" && target_env == "gnu"
}

/// Puts a folder with only the static C++ runtime first on the link search path.
fn static_cxx_runtime() -> Result<(), String> {
    let target = std::env::var("TARGET").map_err(|e| format!("TARGET: {e}"))?;
    let cxx_var = format!("CXX_{}", target.replace('-', "_"));
    println!("cargo::rerun-if-env-changed={cxx_var}");
    let cxx = std::env::var(&cxx_var).unwrap_or_else(|_| "x86_64-w64-mingw32-g++".into());
    let out =
        Command::new(&cxx).arg("-print-file-name=libstdc++.a").output().map_err(|e| format!("running {cxx}: {e}"))?;
    let archive = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    // The compiler answers the bare name when it has no such file.
    if !archive.is_absolute() || !archive.is_file() {
        return Err(format!("{cxx} has no static libstdc++.a"));
    }
    println!("cargo::rerun-if-changed={}", archive.display());
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").map_err(|e| format!("OUT_DIR: {e}"))?);
    let dir = out_dir.join("static-cxx");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    std::fs::copy(&archive, dir.join("libstdc++.a")).map_err(|e| format!("copying {}: {e}", archive.display()))?;
    println!("cargo::rustc-link-search=native={}", dir.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_windows_gnu_target_is_changed() {
        assert!(is_mingw("windows", "gnu"));
        assert!(!is_mingw("windows", "msvc"), "MSVC links its own runtime");
        assert!(!is_mingw("linux", "gnu"), "the gnu of a Linux target is glibc");
        assert!(!is_mingw("macos", ""));
    }
}
