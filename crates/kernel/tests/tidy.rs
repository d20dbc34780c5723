//! Architecture invariants of the kernel, checked rather than trusted (in the spirit of
//! rust-analyzer's tidy tests): no IO, no clock, no randomness, no unordered maps, and only the
//! dependencies listed here. Adding to either list is a design decision: say why in the commit.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

/// The crate's directory, read when the test runs. `env!` would bake in the path this binary was
/// compiled at, and a shared target dir reuses test binaries across clones at other paths (which
/// is how this test once read a checkout that no longer existed).
fn crate_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

/// What the kernel may depend on: serialisation, hashing, signature checks, schema validation
/// (without remote resolution), TOML, error derives, persistent sorted maps (`rpds`: a
/// red-black tree with shared nodes, so a decision's copy of the state costs O(1) and a change
/// O(log n) — pure data structures, no IO, ordered iteration), and `ts-rs`, a derive that
/// declares the status view's types in TypeScript for the UI (`status.rs`): the kernel calls none
/// of its functions (its file-writing helpers run only in the app's bindings test), so it adds a
/// trait impl per view type and nothing a decision could reach.
const ALLOWED_DEPENDENCIES: &[&str] =
    &["blake3", "ed25519-dalek", "hex", "jsonschema", "rpds", "serde", "serde_json", "thiserror", "toml", "ts-rs"];

/// Source patterns that would make the kernel read the world, the clock or chance, or iterate in
/// an order that differs between runs.
const FORBIDDEN: &[(&str, &str)] = &[
    ("std::fs", "filesystem access belongs behind the World trait"),
    ("std::net", "no network in the kernel"),
    ("std::env", "configuration comes in through Policy"),
    ("std::process", "no processes in the kernel"),
    ("std::thread", "the kernel is single-threaded and synchronous"),
    ("SystemTime", "time is an argument (Millis)"),
    ("Instant", "time is an argument (Millis)"),
    ("HashMap", "use BTreeMap: iteration order must be deterministic"),
    ("HashSet", "use BTreeSet: iteration order must be deterministic"),
    ("rand::", "no randomness in decisions"),
    ("getrandom", "no randomness in decisions"),
    ("tokio", "no async runtime in the kernel"),
    ("rusqlite", "storage is the caller's"),
];

#[test]
fn the_kernel_source_does_no_io_reads_no_clock_and_iterates_in_order() {
    let src = crate_dir().join("src");
    let mut offences = vec![];
    let mut files = vec![];
    let mut dirs = vec![src];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() { dirs.push(path) } else { files.push(path) }
        }
    }
    assert!(files.iter().any(|f| f.ends_with("memory/write_policy.rs")), "the walk reaches sub-modules");
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for (pattern, why) in FORBIDDEN {
                if code.contains(pattern) {
                    offences.push(format!("{}:{}: `{pattern}` — {why}", path.display(), n + 1));
                }
            }
        }
    }
    assert!(offences.is_empty(), "kernel invariants broken:\n{}", offences.join("\n"));
}

#[test]
fn the_kernel_depends_only_on_pure_crates() {
    let manifest = std::fs::read_to_string(crate_dir().join("Cargo.toml")).unwrap();
    let table: toml::Table = manifest.parse().unwrap();
    let deps = table["dependencies"].as_table().unwrap();
    for name in deps.keys() {
        assert!(ALLOWED_DEPENDENCIES.contains(&name.as_str()), "smart-kernel must not depend on {name}");
    }
    // jsonschema's default features fetch remote schemas over HTTP.
    let js = &deps["jsonschema"];
    let workspace = js.get("workspace").and_then(|v| v.as_bool()) == Some(true);
    let root = std::fs::read_to_string(crate_dir().join("../../Cargo.toml")).unwrap();
    let root: toml::Table = root.parse().unwrap();
    let spec = if workspace { &root["workspace"]["dependencies"]["jsonschema"] } else { js };
    assert_eq!(
        spec.get("default-features").and_then(|v| v.as_bool()),
        Some(false),
        "jsonschema must be built without its HTTP resolver"
    );
}
