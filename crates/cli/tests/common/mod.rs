//! Drives the real `smart` binary against a real data dir and real files in a temp dir.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub const T0: u64 = 1_800_000_000_000;

pub struct Smart {
    pub tmp: tempfile::TempDir,
    pub data: PathBuf,
    pub root: PathBuf,
    /// The pinned clock (`SMART_NOW_MS`): each step says what time it is.
    pub now: u64,
}

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_smart")
}

/// A binary of this workspace built beside `smart` (`cargo build -p NAME`; the test command
/// builds every binary first).
pub fn beside_smart(name: &str) -> PathBuf {
    let w = Path::new(bin()).with_file_name(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(w.is_file(), "{} is missing: build it with `cargo build -p {name}` (scripts/test.sh does)", w.display());
    w
}

/// The real proposer worker.
pub fn worker_bin() -> PathBuf {
    beside_smart("smart-proposer-worker")
}

impl Smart {
    /// A fresh temp dir with `root/` (the allowed root) and an uninitialised `data/`.
    pub fn new() -> Smart {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("root");
        std::fs::create_dir_all(&root).unwrap();
        let root = dunce::canonicalize(root).unwrap();
        Smart { data: tmp.path().join("data"), root, tmp, now: T0 }
    }

    /// Initialised, with an optional policy file text.
    pub fn init(policy: Option<&str>) -> Smart {
        let s = Smart::new();
        let mut args = vec!["init".to_string(), "--root".into(), s.root.display().to_string()];
        if let Some(p) = policy {
            let path = s.tmp.path().join("policy.toml");
            std::fs::write(&path, p).unwrap();
            args.push("--policy".into());
            args.push(path.display().to_string());
        }
        let out = s.run(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(out.status.success(), "init failed: {}", String::from_utf8_lossy(&out.stderr));
        s
    }

    pub fn cmd(&self) -> Command {
        let mut c = Command::new(bin());
        c.env("SMART_DATA_DIR", &self.data)
            .env("SMART_KEY_STORE", "file")
            .env("SMART_NOW_MS", self.now.to_string())
            .current_dir(&self.root);
        c
    }

    pub fn run(&self, args: &[&str]) -> Output {
        output(self.cmd().args(args))
    }

    /// Runs with `--json`; returns the exit code and the parsed JSON.
    pub fn json(&self, args: &[&str]) -> (i32, Value) {
        let out = output(self.cmd().arg("--json").args(args));
        let text = String::from_utf8_lossy(&out.stdout);
        let v = serde_json::from_str(text.trim())
            .unwrap_or_else(|e| panic!("not JSON ({e}): {text:?}; stderr {}", String::from_utf8_lossy(&out.stderr)));
        (out.status.code().unwrap_or(-1), v)
    }

    /// `smart call`; arguments too long for a Windows command line (32,767 characters) go
    /// through standard input (`--args -`).
    pub fn call(&self, tool: &str, args: &str) -> (i32, Value) {
        if args.len() < 8_000 {
            return self.json(&["call", tool, "--args", args]);
        }
        let mut child = self
            .cmd()
            .args(["--json", "call", tool, "--args", "-"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), args.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let v = serde_json::from_str(text.trim())
            .unwrap_or_else(|e| panic!("not JSON ({e}): {text:?}; stderr {}", String::from_utf8_lossy(&out.stderr)));
        (out.status.code().unwrap_or(-1), v)
    }

    pub fn advance(&mut self, ms: u64) {
        self.now += ms;
    }

    pub fn write(&self, rel: &str, content: &str) -> PathBuf {
        let p = self.root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, content).unwrap();
        p
    }

    pub fn ledger(&self) -> PathBuf {
        self.data.join("ledger.db")
    }

    pub fn events(&self) -> u64 {
        let (_, v) = self.json(&["ledger", "verify"]);
        v["events"].as_u64().unwrap()
    }

    /// L0 → L1 → L2 → L3 under a lease, walking the clock through each time gate, so that an L4
    /// proposal meets every check but its own tier.
    pub fn climb_to_l3(&mut self) {
        self.commit_lease();
        let root = self.root.display().to_string();
        self.write("docs/a.txt", "same");
        self.write("docs/b.txt", "same");
        let docs = js(format!("{root}/docs"));
        let (c, _) = self.call("fs.scan", &format!(r#"{{"path": {docs}}}"#));
        assert_eq!(c, 0);
        let (c, _) = self.call("cluster.duplicates", &format!(r#"{{"path": {docs}}}"#));
        assert_eq!(c, 0);
        self.advance(2_000);
        let (c, v) = self.call(
            "propose.move",
            &format!(
                r#"{{"moves": [{{"from": {}, "to": {}}}]}}"#,
                js(format!("{root}/docs/b.txt")),
                js(format!("{root}/docs/b-copy.txt"))
            ),
        );
        assert_eq!(c, 0, "{v}");
        self.advance(5_000);
        let (c, v) = self.call("apply.move", &format!(r#"{{"proposal": "{}"}}"#, v["artifact"].as_str().unwrap()));
        assert_eq!(c, 0, "{v}");
        self.advance(15_000);
    }

    pub fn commit_lease(&self) {
        let (c, _) = self.json(&[
            "lease",
            "draft",
            "--frame",
            "tidy the docs folder",
            "--horizon",
            "short",
            "--expires-in",
            "1h",
        ]);
        assert_eq!(c, 0);
        let (c, _) = self.json(&["gate", "commitment"]);
        assert_eq!(c, 0);
    }
}

/// Every file under `dir` with its content, for before/after comparisons.
pub fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = vec![];
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let m = std::fs::symlink_metadata(&p).unwrap();
            if m.is_dir() {
                stack.push(p);
            } else if m.is_file() {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            } else {
                out.push((p.clone(), std::fs::read_link(&p).unwrap().display().to_string().into_bytes()));
            }
        }
    }
    out.sort();
    out
}

/// Runs `cmd` to its end. Under Wine (which runs these tests for Windows) starting a process
/// now and then fails with ERROR_INTERNAL_ERROR (1359) before the program exists, a fault of
/// Wine's process creation and not of `smart`; that one error is tried again, twice.
pub fn output(cmd: &mut Command) -> Output {
    let mut tries = 0;
    loop {
        match cmd.output() {
            Err(e) if cfg!(windows) && e.raw_os_error() == Some(1359) && tries < 2 => tries += 1,
            other => return other.unwrap(),
        }
    }
}

/// `text` as a JSON string, quotes and escapes included: a Windows path's `\` must be escaped
/// in the `--args` a test writes by hand.
pub fn js(text: impl std::fmt::Display) -> String {
    serde_json::to_string(&text.to_string()).unwrap()
}

/// A link named `link` to the folder `target`: a symlink on Unix, a directory symlink on
/// Windows (what a person makes with `mklink /D`). Checked, because Wine 8 answers success and
/// makes no link: a test of link escapes must fail there, not pass for want of a link.
pub fn symlink_dir(target: &Path, link: &Path) {
    #[cfg(unix)]
    std::os::unix::fs::symlink(target, link).unwrap();
    #[cfg(windows)]
    std::os::windows::fs::symlink_dir(target, link).unwrap();
    let made = std::fs::symlink_metadata(link).is_ok_and(|m| m.file_type().is_symlink());
    assert!(made, "the system said it linked {} to {} but there is no link", link.display(), target.display());
}

/// Makes `file` the data dir's proposer model, by path (no catalog entry needed).
pub fn choose_file(s: &Smart, file: &Path) {
    std::fs::write(s.data.join("models.toml"), format!("proposer_file = {:?}\n", file.display().to_string())).unwrap();
}

/// A stand-in worker that does what `script` says (the steps `crates/stand-in-worker` reads:
/// `{"each": {"rank": [{"ok": ...}]}}`): the program to give as `SMART_PROPOSER_WORKER`. The
/// script is chosen as the data dir's model by path (no catalog entry, no model file), so the
/// worker reads it from its `load` request.
pub fn stand_in(s: &Smart, script: Value) -> PathBuf {
    let path = s.tmp.path().join("stand-in.json");
    std::fs::write(&path, script.to_string()).unwrap();
    choose_file(s, &path);
    beside_smart("smart-stand-in-worker")
}
