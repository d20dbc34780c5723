//! How the worker links libvosk (the wake word's library) and finds it when it runs, per target.
//!
//! Shared by `build.rs`, which acts on it for the target being built, and the worker's tests,
//! which check it for every target. A build script must not ask `cfg!(windows)`: that is the
//! machine *building*, and a Windows worker cross-built on Linux would look for `libvosk.so` and
//! be given ELF-only linker flags.

/// What to look for in the libvosk folder, and the linker arguments that let the built worker
/// find the library where the package puts it.
#[derive(Debug, PartialEq, Eq)]
pub struct VoskLink {
    /// The folder under libvosk's folder that holds this system's build (the Windows DLLs are
    /// kept apart from the Linux library: `scripts/setup.sh --cross`).
    pub folder: &'static str,
    /// The file that must be in that folder for the worker to link libvosk.
    pub library: &'static str,
    pub link_args: Vec<String>,
}

/// For `target_os` / `target_env` (cargo's `CARGO_CFG_TARGET_OS` / `_ENV`) with the library in
/// `dir` at build time.
pub fn vosk_link(target_os: &str, target_env: &str, dir: &str) -> VoskLink {
    match target_os {
        // Windows has no rpath: a DLL is found beside the program that loads it, which is where
        // the installer puts libvosk.dll. MSVC links through an import library named after the
        // DLL without its prefix (vosk.lib); MinGW's linker reads the DLL itself. The wheel's
        // libvosk.dll needs its three MinGW runtime DLLs beside it too.
        "windows" => VoskLink {
            folder: "windows",
            library: if target_env == "msvc" { "vosk.lib" } else { "libvosk.dll" },
            link_args: vec![],
        },
        // In the bundle the worker is in Contents/MacOS and libraries in Contents/Frameworks.
        "macos" => VoskLink {
            folder: "",
            library: "libvosk.dylib",
            link_args: ["@executable_path", "@executable_path/../Frameworks", dir]
                .iter()
                .map(|p| format!("-Wl,-rpath,{p}"))
                .collect(),
        },
        // Beside the binary first, then where the Linux package installs it
        // (tauri.bundle.conf.json), then the build-time folder.
        _ => VoskLink {
            folder: "",
            library: "libvosk.so",
            link_args: ["$ORIGIN", "/usr/lib/smart", dir].iter().map(|p| format!("-Wl,-rpath,{p}")).collect(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_system_links_its_own_library_and_finds_it_where_the_package_puts_it() {
        let linux = vosk_link("linux", "gnu", "/b");
        assert_eq!(linux.library, "libvosk.so");
        assert_eq!(linux.link_args, ["-Wl,-rpath,$ORIGIN", "-Wl,-rpath,/usr/lib/smart", "-Wl,-rpath,/b"]);
        let mac = vosk_link("macos", "", "/b");
        assert_eq!(mac.library, "libvosk.dylib");
        assert!(mac.link_args.iter().all(|a| !a.contains("$ORIGIN")), "$ORIGIN is ELF's, not Mach-O's");
        assert!(mac.link_args.contains(&"-Wl,-rpath,@executable_path/../Frameworks".to_string()));
        assert_eq!(linux.folder, "");
        assert_eq!(
            vosk_link("windows", "msvc", "C:/b"),
            VoskLink { folder: "windows", library: "vosk.lib", link_args: vec![] }
        );
        assert_eq!(
            vosk_link("windows", "gnu", "C:/b"),
            VoskLink { folder: "windows", library: "libvosk.dll", link_args: vec![] }
        );
    }
}
