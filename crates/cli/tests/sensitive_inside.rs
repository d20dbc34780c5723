//! A folder is as sensitive as what it holds. The attack run found that moving `id_rsa` waited
//! for the person (Tier 3) while moving the folder holding `.ssh/id_rsa` ran at Tier 2, told
//! after the fact. Now a change to a folder looks inside it for the policy's sensitive names.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;

const POLICY: &str = "[gates]\nafter_l1_ms = 0\nafter_l2_ms = 0\nafter_l3_ms = 0\nl4_cooldown_ms = 0\n";

/// Proposes and applies moving `from` to `to`; the apply's exit code and report.
fn moved(s: &mut Smart, from: &str, to: &str) -> (i32, serde_json::Value) {
    let (from, to) = (s.root.join(from), s.root.join(to));
    s.advance(10);
    let (c, v) = s.call(
        "propose.move",
        &format!(r#"{{"moves": [{{"from": {}, "to": {}}}]}}"#, js(from.display()), js(to.display())),
    );
    assert_eq!(c, 0, "{v}");
    s.advance(10);
    s.call("apply.move", &format!(r#"{{"proposal": "{}"}}"#, v["artifact"].as_str().unwrap()))
}

#[test]
fn moving_a_folder_that_holds_ssh_keys_waits_like_moving_the_key() {
    let mut s = Smart::init(Some(POLICY));
    s.climb_to_l3();
    s.write("plain/notes/today.txt", "notes");
    s.write("backup/home/.ssh/id_ed25519", "a private key");
    s.write("backup/home/notes.txt", "notes");
    s.write("loose/id_rsa", "a private key");

    let (c, v) = moved(&mut s, "plain", "plain-moved");
    assert_eq!((c, v["outcome"].as_str(), v["tier"].as_u64()), (0, Some("committed"), Some(2)), "{v}");

    let (c, v) = moved(&mut s, "loose/id_rsa", "loose/id_rsa.old");
    assert_eq!((c, v["tier"].as_u64()), (4, Some(3)), "the key itself waits: {v}");

    let (c, v) = moved(&mut s, "backup", "backup-moved");
    assert_eq!((c, v["outcome"].as_str(), v["tier"].as_u64()), (4, Some("pending"), Some(3)), "{v}");
    assert!(s.root.join("backup/home/.ssh/id_ed25519").exists(), "nothing moved before approval");
    let (_, pending) = s.json(&["pending"]);
    let why = pending.to_string();
    assert!(why.contains("holds something sensitive") && why.contains(".ssh"), "{why}");
}
