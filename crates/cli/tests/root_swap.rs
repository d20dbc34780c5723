//! The attack run's race on the root itself: a loop exchanged the root folder with a symlink to
//! an outside folder (`renameat2(RENAME_EXCHANGE)`) while `smart` commands ran, and within a few
//! tries `fs.read` returned the outside file and `apply.patch` wrote to it, while the ledger
//! recorded the file inside the root. Here the same loop runs for a bounded number of calls;
//! a call may be refused or fail (the root is a link half the time), but nothing outside is ever
//! read or changed, and no receipt carries the outside text.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

const CALLS: usize = 40;
const INSIDE: &str = "inside text: the meeting is on friday\n";
const OUTSIDE: &str = "outside text: the meeting is on friday\n";
const POLICY: &str = "[gates]\nafter_l1_ms = 0\nafter_l2_ms = 0\nafter_l3_ms = 0\nl4_cooldown_ms = 0\n\
[budget]\nper_lease = 100000000\n[monotone]\nmax_identical = 1000\nmax_steps = 100000\n";

/// Exchanges `a` and `b` as fast as it can until told to stop; leaves them as they were.
struct Swapper {
    stop: Arc<AtomicBool>,
    swaps: Arc<AtomicU64>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Swapper {
    fn start(a: &Path, b: &Path) -> Swapper {
        let (stop, swaps) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicU64::new(0)));
        let (a, b, flag, count) = (a.to_path_buf(), b.to_path_buf(), stop.clone(), swaps.clone());
        let thread = std::thread::spawn(move || {
            let exchange = || {
                rustix::fs::renameat_with(rustix::fs::CWD, &a, rustix::fs::CWD, &b, rustix::fs::RenameFlags::EXCHANGE)
                    .unwrap()
            };
            while !flag.load(Ordering::Relaxed) {
                exchange();
                count.fetch_add(1, Ordering::Relaxed);
            }
            if count.load(Ordering::Relaxed) % 2 == 1 {
                exchange();
            }
        });
        Swapper { stop, swaps, thread: Some(thread) }
    }

    fn stop(mut self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.take().unwrap().join().unwrap();
        self.swaps.load(Ordering::Relaxed)
    }
}

fn setup() -> (Smart, std::path::PathBuf, std::path::PathBuf) {
    let mut s = Smart::init(Some(POLICY));
    s.climb_to_l3();
    let notes = s.write("notes/plan.txt", INSIDE);
    let outside = s.tmp.path().join("outside");
    std::fs::create_dir_all(outside.join("notes")).unwrap();
    std::fs::write(outside.join("notes/plan.txt"), OUTSIDE).unwrap();
    let link = s.tmp.path().join("link");
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    (s, notes, link)
}

#[test]
fn reads_while_the_root_is_swapped_for_a_link_never_see_outside() {
    let (mut s, notes, link) = setup();
    let swapper = Swapper::start(&s.root, &link);
    let mut outcomes: BTreeMap<String, u32> = BTreeMap::new();
    for _ in 0..CALLS {
        s.advance(10);
        let out = output(s.cmd().current_dir(s.tmp.path()).args([
            "--json",
            "call",
            "fs.read",
            "--args",
            &format!(r#"{{"path": "{}"}}"#, notes.display()),
        ]));
        let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
        assert!(!text.contains("outside text"), "a read went through the swapped root: {text}");
        let v: serde_json::Value =
            serde_json::from_str(String::from_utf8_lossy(&out.stdout).trim()).unwrap_or_default();
        *outcomes.entry(v["outcome"].as_str().unwrap_or("no json").to_string()).or_insert(0) += 1;
    }
    let swaps = swapper.stop();
    eprintln!("{CALLS} reads over {swaps} swaps: {outcomes:?}");
    assert!(swaps > CALLS as u64, "the swap loop hardly ran ({swaps} swaps)");
    let ledger = std::fs::read(s.ledger()).unwrap();
    assert!(!ledger.windows(12).any(|w| w == b"outside text"), "the ledger holds the outside text");
    assert_eq!(s.json(&["ledger", "verify"]).0, 0);
}

#[test]
fn patches_while_the_root_is_swapped_for_a_link_never_write_outside() {
    let (mut s, notes, link) = setup();
    let outside_file = s.tmp.path().join("outside/notes/plan.txt");
    let mut outcomes: BTreeMap<String, u32> = BTreeMap::new();
    for i in 0..CALLS / 2 {
        // Each patch is proposed with the root in place, and applied while it is being swapped.
        let from = if i % 2 == 0 { "friday" } else { "monday" };
        let to = if i % 2 == 0 { "monday" } else { "friday" };
        s.advance(10);
        let (c, v) = s.call(
            "propose.patch",
            &format!(r#"{{"path": "{}", "find": "{from}", "replace": "{to}"}}"#, notes.display()),
        );
        assert_eq!(c, 0, "{v}");
        let patch = v["artifact"].as_str().unwrap().to_string();
        // The outside twin holds exactly what the patch expects, so only the confinement can
        // tell the two apart.
        let twin = std::fs::read_to_string(&notes).unwrap();
        std::fs::write(&outside_file, &twin).unwrap();
        let swapper = Swapper::start(&s.root, &link);
        s.advance(10);
        let out = output(s.cmd().current_dir(s.tmp.path()).args([
            "--json",
            "call",
            "apply.patch",
            "--args",
            &format!(r#"{{"proposal": "{patch}"}}"#),
        ]));
        swapper.stop();
        let v: serde_json::Value =
            serde_json::from_str(String::from_utf8_lossy(&out.stdout).trim()).unwrap_or_default();
        let outcome = v["outcome"].as_str().unwrap_or("no json").to_string();
        assert_eq!(std::fs::read_to_string(&outside_file).unwrap(), twin, "a patch wrote outside the root: {v}");
        // The file inside was patched exactly when the receipt says so.
        let inside = std::fs::read_to_string(&notes).unwrap();
        let patched = inside.contains(to);
        assert_eq!(patched, outcome == "committed", "the receipt says {outcome}, the file says {inside:?}");
        if !patched {
            // Put it in the state the next round expects.
            std::fs::write(&notes, INSIDE.replace("friday", to)).unwrap();
        }
        *outcomes.entry(outcome).or_insert(0) += 1;
    }
    eprintln!("{} patches under swaps: {outcomes:?}", CALLS / 2);
    assert_eq!(s.json(&["ledger", "verify"]).0, 0);
}
