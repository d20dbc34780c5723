//! fs.quarantine (L4, approved with a signed signal) and its undo, through the real kernel.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use serde_json::{Value, json};
use smart_kernel::Hash;
use std::fs;

#[test]
fn quarantine_moves_items_out_with_a_manifest_and_undo_restores_them() {
    let mut h = Harness::new();
    h.write("junk.txt", b"junk");
    h.write("old/a.log", b"aaaa");
    h.write("old/b/c.log", b"cc");
    h.write("keep.txt", b"keep");
    h.climb_to_l3();
    let before = h.snapshot();

    let done = h.run("fs.quarantine", json!({"paths": [h.p("junk.txt"), h.p("old")]})).unwrap();
    let out = &done.output;
    assert_eq!(out["count"], 2);
    let batch = out["batch"].as_str().unwrap();
    assert_eq!(batch.len(), 16);
    let batch_dir = h.qdir.join(batch);
    assert_eq!(fs::read(batch_dir.join("0-junk.txt")).unwrap(), b"junk");
    assert_eq!(fs::read(batch_dir.join("1-old/b/c.log")).unwrap(), b"cc");
    assert!(!h.exists("junk.txt") && !h.exists("old"));
    assert_eq!(h.read("keep.txt"), b"keep");

    let manifest: Value = serde_json::from_slice(&fs::read(batch_dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(out["manifest"], batch_dir.join("manifest.json").to_str().unwrap());
    assert_eq!(manifest["batch"], batch);
    assert_eq!(manifest["items"][0]["original"], h.p("junk.txt"));
    assert_eq!(manifest["items"][0]["stored"], batch_dir.join("0-junk.txt").to_str().unwrap());
    assert_eq!(manifest["items"][0]["blake3"], Hash::of_bytes(b"junk").to_hex());
    assert_eq!(manifest["items"][0]["size"], 4);
    assert_eq!(manifest["items"][1]["size"], 6, "a folder's size is the bytes of its files");

    let undone = h.undo(done.seq).unwrap();
    assert_eq!(undone.output["undone"], "fs.quarantine");
    assert_eq!(undone.output["restored"], 2);
    assert_eq!(h.snapshot(), before, "everything is back exactly");
    assert!(!batch_dir.exists(), "the emptied batch folder is removed");
}

#[test]
fn quarantine_refuses_repeats_nested_and_missing_paths_and_moves_nothing() {
    let mut h = Harness::new();
    h.write("d/f.txt", b"f");
    h.write("g.txt", b"g");
    h.climb_to_l3();
    let before = h.snapshot();
    let err = h.run("fs.quarantine", json!({"paths": [h.p("d"), h.p("d/f.txt")]})).unwrap_err().failed();
    assert!(err.contains("inside") && err.contains(&h.p("d")), "{err}");
    let err = h.run("fs.quarantine", json!({"paths": [h.p("g.txt"), h.p("g.txt")]})).unwrap_err().failed();
    assert!(err.contains("listed twice"), "{err}");
    let err = h.run("fs.quarantine", json!({"paths": [h.p("g.txt"), h.p("nothing")]})).unwrap_err().failed();
    assert!(err.contains("nothing"), "{err}");
    assert_eq!(h.snapshot(), before);
    assert!(!h.qdir.exists() || fs::read_dir(&h.qdir).unwrap().next().is_none(), "no batch folder is left behind");
}

#[test]
fn undo_of_a_quarantine_is_refused_when_the_original_place_was_reused() {
    let mut h = Harness::new();
    h.write("x.txt", b"x");
    h.climb_to_l3();
    let done = h.run("fs.quarantine", json!({"paths": [h.p("x.txt")]})).unwrap();
    h.write("x.txt", b"a new file with the old name");
    assert_eq!(h.undo(done.seq).unwrap_err().refused(), smart_kernel::RefusalCode::SnapshotStale);
    assert_eq!(h.read("x.txt"), b"a new file with the old name");
}

/// Where /dev/shm is a separate filesystem (Linux), quarantine crosses devices: rename fails
/// with EXDEV and the copy-verify-remove path runs, both ways.
#[cfg(target_os = "linux")]
#[test]
fn quarantine_across_filesystems_copies_verifies_and_undoes() {
    use std::os::unix::fs::MetadataExt;
    let mut h = Harness::new();
    let Ok(shm) = tempfile::tempdir_in("/dev/shm") else {
        eprintln!("skipped: no /dev/shm");
        return;
    };
    if fs::metadata(shm.path()).unwrap().dev() == fs::metadata(&h.root).unwrap().dev() {
        eprintln!("skipped: /dev/shm is on the same filesystem as the temp folder");
        return;
    }
    h.exec = smart_tools::Executor::new(common::places(&h.root, &shm.path().join("q"), &h.data));
    h.write("big/blob.bin", &vec![9u8; 300_000]);
    h.write("big/nested/n.txt", b"n");
    h.write("single.txt", b"single");
    h.climb_to_l3();
    let before = h.snapshot();
    let done = h.run("fs.quarantine", json!({"paths": [h.p("big"), h.p("single.txt")]})).unwrap();
    assert!(!h.exists("big") && !h.exists("single.txt"));
    let batch_dir = shm.path().join("q").join(done.output["batch"].as_str().unwrap());
    assert_eq!(fs::read(batch_dir.join("0-big/nested/n.txt")).unwrap(), b"n");
    h.undo(done.seq).unwrap();
    assert_eq!(h.snapshot(), before);
}
