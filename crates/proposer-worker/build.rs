//! Makes a MinGW (Windows GNU) build of the worker stand alone.
//!
//! `llama-cpp-sys-2` asks for `-lstdc++`, which MinGW resolves to the import library of
//! `libstdc++-6.dll`, a file no Windows machine has: the worker would not start. A folder
//! holding only the static `libstdc++.a` is put ahead of the compiler's own on the search path,
//! so the same `-lstdc++` finds the archive and the worker needs only Windows' own DLLs (GCC's
//! runtime library exception allows linking it in). ggml's CPU backend also reads the
//! processor's name from the registry, so the worker links `advapi32`, which the crate adds only
//! when the build itself runs on Windows.
//!
//! (ggml's archives lose their `lib` prefix on Windows and the crate then links none of them;
//! `scripts/windows/ggml_lib_prefix.cmake` gives the prefix back in ggml's own build.)
//!
//! Every other target is left to `llama-cpp-sys-2`.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os != "windows" || env != "gnu" {
        return;
    }
    // After everything on the linker's line (a library named here would come before the
    // llama.cpp archives that need it, and be passed over).
    println!("cargo::rustc-link-arg-bins=-ladvapi32");
    if let Err(why) = static_cxx_runtime() {
        println!("cargo::warning=the worker will need libstdc++-6.dll beside it: {why}");
    }
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
