//! SIGKILL in the middle of a batch. The attack run killed SMART during `fs.quarantine` and left
//! 1,050 of 2,500 files in a batch folder with no manifest — `quarantine list` empty, `restore`
//! with nothing to find — and a killed cross-disk move left a truncated copy under the real name.
//!
//! Here a process runs a batch (an approved quarantine, an approved move, an undo of it, a
//! compact) and is killed at a random moment; the next command opens the data dir. Whatever the
//! moment, afterwards every file is exactly once where the ledger says it is: all at home and
//! the call recorded as interrupted (and rolled back), or all moved with its receipt — and the
//! ledger verifies. The seed is printed so a failure can be replayed.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

const POLICY: &str = "[gates]\nafter_l1_ms = 0\nafter_l2_ms = 0\nafter_l3_ms = 0\nl4_cooldown_ms = 0\n\
[budget]\nper_lease = 100000000\n[monotone]\nmax_identical = 1000\nmax_steps = 100000\n";

/// Trials per kind of batch (quarantine, move, compact, cross-disk move; each move that is done is
/// then undone and that killed too): about 200 kills in all.
const TRIALS: u64 = 48;
const FILES: usize = 120;

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// When to kill: after a random time, or as soon as the batch has logged its n-th step (aimed
/// at the middle of the batch, where a time alone rarely lands).
enum Kill {
    After(Duration),
    AtStep(usize),
}

/// Steps logged so far by running calls (lines in the data dir's step logs).
fn steps_logged(data: &Path) -> usize {
    let Ok(dir) = std::fs::read_dir(data.join("in-flight")) else { return 0 };
    dir.filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "steps"))
        .map(|e| std::fs::read(e.path()).map(|b| b.iter().filter(|c| **c == b'\n').count()).unwrap_or(0))
        .sum()
}

/// Runs `smart args` and kills it with SIGKILL at `when`; whether it was still running then.
fn run_and_kill(s: &Smart, args: &[&str], when: Kill) -> bool {
    let mut child =
        s.cmd().args(args).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).spawn().unwrap();
    let started = std::time::Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        let due = match when {
            Kill::After(d) => started.elapsed() >= d,
            Kill::AtStep(n) => steps_logged(&s.data) >= n || started.elapsed() > Duration::from_secs(60),
        };
        if due {
            let _ = child.kill();
            let _ = child.wait();
            return true;
        }
        std::thread::sleep(Duration::from_micros(300));
    }
}

/// Half the trials at a random step of the batch, half at a random time.
fn when(rng: &mut Rng, t: u64, steps: usize, max_ms: u64) -> Kill {
    if t.is_multiple_of(2) {
        Kill::AtStep(1 + rng.below(steps as u64) as usize)
    } else {
        Kill::After(Duration::from_millis(rng.below(max_ms)))
    }
}

/// Every regular file under `dir` (relative name → content).
fn files(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.map(Result::unwrap) {
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                stack.push(p);
            } else {
                out.insert(
                    p.strip_prefix(dir).unwrap().display().to_string(),
                    std::fs::read_to_string(&p).unwrap_or_default(),
                );
            }
        }
    }
    out
}

/// The number of events in the ledger now.
fn tail(s: &Smart) -> u64 {
    s.events()
}

/// The receipt (kind, payload) of the call of `tool` admitted after `since`; `None` when none was
/// (the process was killed before it got that far).
fn receipt_since(s: &Smart, tool: &str, since: u64) -> Option<(String, Value)> {
    let (_, v) = s.json(&["ledger", "show", "--since", &(since + 1).to_string(), "--limit", "1000000"]);
    let events = v["events"].as_array().unwrap();
    let admitted = events
        .iter()
        .find(|e| (e["kind"] == "admitted" || e["kind"] == "undo_admitted") && e["payload"]["call"]["tool"] == tool)?;
    let hash = admitted["payload"]["call"]["hash"].clone();
    let receipt = events
        .iter()
        .find(|e| (e["kind"] == "committed" || e["kind"] == "failed") && e["payload"]["call_hash"] == hash)
        .unwrap_or_else(|| panic!("{tool}: admitted without a receipt after the next open"));
    Some((receipt["kind"].as_str().unwrap().to_string(), receipt["payload"].clone()))
}

/// After a kill: the next command opens the data dir (recovering), the ledger verifies, no step
/// log is left, and the call ended one way or the other: "done", "rolled back", "changed
/// nothing" or "not admitted".
fn settle(s: &Smart, tool: &str, since: u64) -> (&'static str, Value) {
    let (c, v) = s.json(&["status"]);
    assert_eq!(c, 0, "status after the kill: {v}");
    assert_eq!(s.json(&["ledger", "verify"]).0, 0);
    let logs = std::fs::read_dir(s.data.join("in-flight"))
        .map(|d| d.filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "steps")).count())
        .unwrap_or(0);
    assert_eq!(logs, 0, "a step log outlived the recovery");
    let Some((kind, payload)) = receipt_since(s, tool, since) else {
        return ("not admitted", Value::Null);
    };
    let how = match kind.as_str() {
        "committed" => "done",
        _ => {
            let err = payload["error"].as_str().unwrap_or_default().to_string();
            assert!(err.starts_with("interrupted"), "{tool} failed for another reason: {err}");
            assert!(!err.contains("not all") && !err.contains("could not be rolled back"), "{tool}: {err}");
            if err.contains("rolled back") { "rolled back" } else { "changed nothing" }
        }
    };
    (how, payload)
}

/// L0 → L3 (an L4 batch needs the layer below committed first).
fn climb(s: &mut Smart) {
    s.commit_lease();
    s.write("climb/a.txt", "same");
    s.write("climb/b.txt", "same");
    assert_eq!(s.call("fs.scan", r#"{"path": "climb"}"#).0, 0);
    assert_eq!(s.call("cluster.duplicates", r#"{"path": "climb"}"#).0, 0);
    let (c, v) = s.call("propose.move", r#"{"moves": [{"from": "climb/b.txt", "to": "climb/c.txt"}]}"#);
    assert_eq!(c, 0, "{v}");
    let (c, v) = s.call("apply.move", &format!(r#"{{"proposal": "{}"}}"#, v["artifact"].as_str().unwrap()));
    assert_eq!(c, 0, "{v}");
    s.advance(10);
}

fn make_files(s: &Smart, dir: &str, n: usize) -> Vec<PathBuf> {
    (0..n).map(|i| s.write(&format!("{dir}/f{i:03}.txt"), &format!("{dir} {i}"))).collect()
}

fn seed() -> u64 {
    let seed = std::env::var("SMART_CRASH_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1
    });
    eprintln!("crash seed {seed} (set SMART_CRASH_SEED to replay)");
    seed
}

fn tally(name: &str, counts: &BTreeMap<&'static str, u32>) {
    eprintln!("{name}: {counts:?}");
}

#[test]
fn a_killed_quarantine_is_rolled_back_or_done_never_half() {
    let mut s = Smart::init(Some(POLICY));
    climb(&mut s);
    let mut rng = Rng(seed());
    let mut counts = BTreeMap::new();
    for t in 0..TRIALS {
        let dir = format!("junk{t}");
        let made = make_files(&s, &dir, FILES);
        let before = files(&s.root.join(&dir));
        let paths: Vec<String> = made.iter().map(|p| format!("\"{}\"", p.display())).collect();
        s.advance(10);
        let (c, v) = s.call("fs.quarantine", &format!(r#"{{"paths": [{}]}}"#, paths.join(",")));
        assert_eq!(c, 4, "{v}");
        let id = v["pending_id"].as_str().unwrap().to_string();
        let since = tail(&s);
        run_and_kill(&s, &["approve", &id], when(&mut rng, t, FILES + 1, 600));
        let (how, payload) = settle(&s, "fs.quarantine", since);
        *counts.entry(how).or_insert(0) += 1;
        let home = files(&s.root.join(&dir));
        if how == "done" {
            assert!(home.is_empty(), "trial {t}: committed, yet {} files are still at home", home.len());
            let batch = payload["output"]["batch"].as_str().unwrap();
            let (_, list) = s.json(&["quarantine", "list"]);
            let listed = list["batches"].as_array().unwrap().iter().find(|b| b["batch"] == batch);
            assert_eq!(
                listed.map(|b| b["items"].as_u64()),
                Some(Some(FILES as u64)),
                "trial {t}: batch {batch} listed"
            );
        } else {
            assert_eq!(home, before, "trial {t} ({how}): the files at home are not what was there");
        }
    }
    tally("quarantine", &counts);
    // No batch folder is left that the list does not show.
    let (_, list) = s.json(&["quarantine", "list"]);
    let listed = list["batches"].as_array().unwrap().len();
    let folders = std::fs::read_dir(s.data.join("quarantine")).map(|d| d.count()).unwrap_or(0);
    assert_eq!(listed, folders, "{list}");
}

#[test]
fn a_killed_move_or_undo_is_rolled_back_or_done_never_half() {
    let mut s = Smart::init(Some(POLICY));
    climb(&mut s);
    let mut rng = Rng(seed() ^ 0x5555);
    let (mut moves, mut undos) = (BTreeMap::new(), BTreeMap::new());
    for t in 0..TRIALS {
        let from = format!("in{t}");
        let made = make_files(&s, &from, FILES);
        let at_home = files(&s.root.join(&from));
        assert_eq!(s.call("fs.scan", &format!(r#"{{"path": "{from}"}}"#)).0, 0);
        let list: Vec<String> = made
            .iter()
            .map(|p| {
                format!(
                    r#"{{"from": "{}", "to": "{}"}}"#,
                    p.display(),
                    s.root.join(format!("out{t}")).join(p.file_name().unwrap()).display()
                )
            })
            .collect();
        s.advance(10);
        let (c, v) = s.call("propose.move", &format!(r#"{{"moves": [{}]}}"#, list.join(",")));
        assert_eq!(c, 0, "{v}");
        s.advance(10);
        let (c, v) = s.call("apply.move", &format!(r#"{{"proposal": "{}"}}"#, v["artifact"].as_str().unwrap()));
        assert_eq!(c, 4, "a move of {FILES} files waits for approval: {v}");
        let since = tail(&s);
        run_and_kill(&s, &["approve", v["pending_id"].as_str().unwrap()], when(&mut rng, t, 2 * FILES, 600));
        let (how, _) = settle(&s, "apply.move", since);
        *moves.entry(how).or_insert(0) += 1;
        let (home, away) = (files(&s.root.join(&from)), files(&s.root.join(format!("out{t}"))));
        if how == "done" {
            assert!(
                home.is_empty() && away == at_home,
                "trial {t}: moved, but {} at home and {} away",
                home.len(),
                away.len()
            );
            // Now undo it, and kill that.
            let (_, v) = s.json(&["ledger", "show", "--limit", "1000000"]);
            let seq = v["events"]
                .as_array()
                .unwrap()
                .iter()
                .rev()
                .find(|e| e["kind"] == "committed" && e["payload"]["tool"] == "apply.move")
                .unwrap()["seq"]
                .as_u64()
                .unwrap();
            s.advance(10);
            let since = tail(&s);
            run_and_kill(&s, &["undo", &seq.to_string()], when(&mut rng, t, 2 * FILES, 400));
            let (how, _) = settle(&s, "undo", since);
            *undos.entry(how).or_insert(0) += 1;
            let (home, away) = (files(&s.root.join(&from)), files(&s.root.join(format!("out{t}"))));
            if how == "done" {
                assert!(
                    away.is_empty() && home == at_home,
                    "trial {t}: undone, but {} at home and {} away",
                    home.len(),
                    away.len()
                );
            } else {
                assert!(
                    home.is_empty() && away == at_home,
                    "trial {t}: undo {how}, but {} at home and {} away",
                    home.len(),
                    away.len()
                );
            }
        } else {
            assert!(
                away.is_empty() && home == at_home,
                "trial {t} ({how}): {} at home and {} away",
                home.len(),
                away.len()
            );
        }
    }
    tally("apply.move", &moves);
    tally("undo", &undos);
}

#[test]
fn a_killed_compact_leaves_the_folder_or_the_archive_never_half() {
    let mut s = Smart::init(Some(POLICY));
    climb(&mut s);
    let mut rng = Rng(seed() ^ 0xc0c0);
    let mut counts = BTreeMap::new();
    for t in 0..TRIALS {
        let dir = format!("old{t}");
        make_files(&s, &dir, FILES);
        let before = files(&s.root.join(&dir));
        let archive = s.root.join(format!("{dir}.tar.gz"));
        s.advance(10);
        let (c, v) = s.call("fs.compact", &format!(r#"{{"path": "{}"}}"#, s.root.join(&dir).display()));
        assert_eq!(c, 4, "a compact waits for approval: {v}");
        let since = tail(&s);
        run_and_kill(&s, &["approve", v["pending_id"].as_str().unwrap()], when(&mut rng, t, 4, 150));
        let (how, _) = settle(&s, "fs.compact", since);
        *counts.entry(how).or_insert(0) += 1;
        let home = files(&s.root.join(&dir));
        if how == "done" {
            assert!(home.is_empty() && archive.is_file(), "trial {t}: compacted, yet {} files at home", home.len());
        } else {
            assert_eq!(home, before, "trial {t} ({how}): the folder is not what it was");
            assert!(!archive.exists(), "trial {t} ({how}): an archive was left beside the folder");
        }
    }
    tally("fs.compact", &counts);
}

/// The attack run's other finding: a cross-disk move killed mid-copy left a truncated file
/// under the real name. Here the second root is on another file system (tmpfs), so every move
/// is a copy, a check and a delete.
#[test]
fn a_killed_cross_disk_move_leaves_no_truncated_copy() {
    let Ok(other) = tempfile::tempdir_in("/dev/shm") else {
        eprintln!("no /dev/shm here: the cross-disk trials need a second file system");
        return;
    };
    let s = Smart::new();
    use std::os::unix::fs::MetadataExt;
    let far = dunce::canonicalize(other.path()).unwrap();
    assert_ne!(std::fs::metadata(&far).unwrap().dev(), std::fs::metadata(&s.root).unwrap().dev());
    let policy = s.tmp.path().join("policy.toml");
    std::fs::write(&policy, POLICY).unwrap();
    let out = s.run(&[
        "init",
        "--root",
        &s.root.display().to_string(),
        "--root",
        &far.display().to_string(),
        "--policy",
        &policy.display().to_string(),
    ]);
    assert!(out.status.success(), "init: {}", String::from_utf8_lossy(&out.stderr));
    let mut s = s;
    climb(&mut s);
    let mut rng = Rng(seed() ^ 0xd15c);
    let mut counts = BTreeMap::new();
    // Fewer, bigger files: a copy must take long enough to be cut off in the middle.
    let big = "x".repeat(1 << 20);
    for t in 0..TRIALS {
        let from = format!("disk{t}");
        for i in 0..12 {
            s.write(&format!("{from}/big{i:02}.bin"), &format!("{i}{big}"));
        }
        let at_home = files(&s.root.join(&from));
        let to = far.join(format!("away{t}"));
        assert_eq!(s.call("fs.scan", &format!(r#"{{"path": "{from}"}}"#)).0, 0);
        let list: Vec<String> = at_home
            .keys()
            .map(|n| {
                format!(r#"{{"from": "{}", "to": "{}"}}"#, s.root.join(&from).join(n).display(), to.join(n).display())
            })
            .collect();
        s.advance(10);
        let (c, v) = s.call("propose.move", &format!(r#"{{"moves": [{}]}}"#, list.join(",")));
        assert_eq!(c, 0, "{v}");
        s.advance(10);
        let (c, v) = s.call("apply.move", &format!(r#"{{"proposal": "{}"}}"#, v["artifact"].as_str().unwrap()));
        let since = tail(&s);
        let kill = when(&mut rng, t, 2 * at_home.len(), 300);
        match c {
            4 => {
                run_and_kill(&s, &["approve", v["pending_id"].as_str().unwrap()], kill);
            }
            c => panic!("apply.move of {} files: exit {c}: {v}", at_home.len()),
        }
        let (how, _) = settle(&s, "apply.move", since);
        *counts.entry(how).or_insert(0) += 1;
        let (home, away) = (files(&s.root.join(&from)), files(&to));
        for name in home.keys().chain(away.keys()) {
            assert!(!name.contains("smart-partial"), "trial {t} ({how}): a partial copy outlived recovery: {name}");
        }
        if how == "done" {
            assert!(
                home.is_empty() && away == at_home,
                "trial {t}: moved, but {} home, {} away",
                home.len(),
                away.len()
            );
        } else {
            assert!(away.is_empty() && home == at_home, "trial {t} ({how}): {} home, {} away", home.len(), away.len());
        }
    }
    tally("cross-disk apply.move", &counts);
}
