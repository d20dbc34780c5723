//! `ARCHITECTURE.md`'s code map names every source file, and this test keeps it so.
//!
//! A newcomer reads the code map to find where a concept lives; a file it does not name is a
//! file they will not find, and a map that silently falls behind the code stops being read (the
//! last full read of the code found a dozen modules missing from it). So every Rust module of
//! every crate must be named in its crate's row, every app module in the app's row, and every UI
//! module and component in the UI's row. Crate roots (`lib.rs`, `main.rs`, `mod.rs`) and tests
//! are not modules a reader looks for. It lives in the app's unit tests because those are built
//! anyway: a test binary of its own would link Tauri once more.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

/// Which files of a folder are sources the map must name.
type Keep<'a> = &'a dyn Fn(&str) -> bool;

/// The repository root (the app's manifest is the workspace's).
fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The code map's row whose first cell names `prefix` (a crate's folder, `src-tauri/`, `ui/`).
fn row<'a>(map: &'a str, prefix: &str) -> Option<&'a str> {
    map.lines()
        .filter(|l| l.starts_with("| `"))
        .find(|l| l.split('|').nth(1).is_some_and(|c| c.contains(&format!("`{prefix}`"))))
}

/// Every file under `dir` whose name passes `keep`, as paths relative to the repository.
fn files(dir: &Path, keep: Keep<'_>, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().to_string();
        if p.is_dir() {
            if name != "node_modules" && name != "tests" {
                files(&p, keep, out);
            }
        } else if keep(&name) {
            out.push(p.strip_prefix(repo()).unwrap_or(&p).to_path_buf());
        }
    }
}

/// Whether the map names a file: Rust and TypeScript modules by file name, components by their
/// name, each in backticks (a folder before it is fine: `exec/scan.rs`). A bare word does not
/// count — "time" is in every row, `time.rs` in one.
fn named(row: &str, file: &Path) -> bool {
    let name = file.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let component = name.strip_suffix(".svelte").unwrap_or(&name);
    [name.as_str(), component].iter().any(|shown| {
        row.match_indices(shown).any(|(at, _)| {
            let before = row[..at].chars().next_back();
            let after = row[at + shown.len()..].chars().next();
            matches!(before, Some('`' | '/')) && after == Some('`')
        })
    })
}

#[test]
fn the_code_map_names_every_source_file() {
    let root = repo();
    let map = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let rust = |n: &str| n.ends_with(".rs") && !matches!(n, "lib.rs" | "main.rs" | "mod.rs" | "build.rs");
    let ui =
        |n: &str| (n.ends_with(".ts") && !n.ends_with(".test.ts") && !n.ends_with(".d.ts")) || n.ends_with(".svelte");
    let mut places: Vec<(String, PathBuf, Keep<'_>)> = vec![];
    let mut crates: Vec<String> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("src").is_dir())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    crates.sort();
    for c in &crates {
        places.push((format!("crates/{c}"), root.join("crates").join(c).join("src"), &rust));
    }
    places.push(("src-tauri/".into(), root.join("src-tauri/src"), &rust));
    places.push(("ui/".into(), root.join("ui/src"), &ui));
    let mut missing = vec![];
    for (prefix, dir, keep) in &places {
        let Some(r) = row(&map, prefix) else {
            missing.push(format!("{prefix} has no row"));
            continue;
        };
        let mut found = vec![];
        files(dir, *keep, &mut found);
        // A crate that is all root (a build-script library) has no module to name.
        let root_only = ["lib.rs", "main.rs"].iter().any(|r| dir.join(r).is_file());
        assert!(!found.is_empty() || root_only, "no sources found under {}", dir.display());
        missing.extend(found.iter().filter(|f| !named(r, f)).map(|f| f.display().to_string()));
    }
    assert!(missing.is_empty(), "ARCHITECTURE.md's code map does not name: {}", missing.join(", "));
}
