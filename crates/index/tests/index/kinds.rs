//! What a file is decides what is indexed about it.

use crate::util::*;
use smart_index::{Kind, Limits, Query};

#[test]
fn kinds_are_decided_by_extension_and_content() {
    let w = World::new();
    w.write("notes.txt", "plain words here", 1);
    w.write("README", "no extension but text", 1);
    w.write("plan.md", "# Plan\n\nsteps", 1);
    w.write("main.rs", "fn main() {}", 1);
    w.write("Makefile", "all:\n\techo hi", 1);
    w.write("has-nul.txt", b"looks like text\0but has a NUL", 1);
    w.write("latin1.md", [b'c', b'a', b'f', 0xe9, b' ', b'o', b'k'], 1);
    w.write("photo.png", "zebra zebra zebra", 1);
    let mut idx = w.open();
    let report = w.sync(&mut idx);
    assert_eq!(report.added, 8, "{report:?}");
    let kind = |rel: &str| idx.doc(&w.p(rel)).unwrap().unwrap().kind;
    assert_eq!(kind("notes.txt"), Kind::Text);
    assert_eq!(kind("README"), Kind::Text);
    assert_eq!(kind("plan.md"), Kind::Markdown);
    assert_eq!(kind("main.rs"), Kind::Code);
    assert_eq!(kind("Makefile"), Kind::Code);
    assert_eq!(kind("has-nul.txt"), Kind::Binary, "a NUL in the first 8 KiB makes it binary");
    assert_eq!(kind("latin1.md"), Kind::Binary, "invalid UTF-8 makes it binary");
    assert_eq!(kind("photo.png"), Kind::Binary);
    // Binaries are found by name, never by their bytes.
    assert_eq!(w.find(&idx, "zebra"), Vec::<String>::new());
    assert_eq!(w.find(&idx, "photo"), ["photo.png"]);
    assert_eq!(w.find(&idx, "looks"), Vec::<String>::new(), "a binary's words are not indexed");
    assert_eq!(idx.text_of(&w.p("has-nul.txt")).unwrap(), None);
    assert_eq!(idx.text_of(&w.p("notes.txt")).unwrap().as_deref(), Some("plain words here"));
}

#[test]
fn text_hashes_are_blake3_of_the_bytes_and_binaries_have_none() {
    let w = World::new();
    w.write("a.txt", "hash me", 1);
    w.write("b.bin", b"\0\x01\x02", 1);
    let mut idx = w.open();
    w.sync(&mut idx);
    let a = idx.doc(&w.p("a.txt")).unwrap().unwrap();
    assert_eq!(a.blake3.as_deref(), Some(blake3::hash(b"hash me").to_hex().as_str()));
    assert_eq!(a.size, 7);
    assert_eq!(a.modified_ms, NOW - DAY);
    assert_eq!(a.indexed_at_ms, NOW);
    assert!(a.text_indexed);
    assert_eq!(idx.doc(&w.p("b.bin")).unwrap().unwrap().blake3, None);
}

#[test]
fn oversize_text_is_found_by_name_but_not_by_its_words() {
    let w = World::new();
    w.write("big_notes.txt", "walrus ".repeat(40), 1);
    w.write("small.txt", "walrus", 1);
    let mut idx = w.open();
    let limits = Limits { max_text_bytes: 100, ..Limits::default() };
    idx.sync_roots(&w.roots(), &limits, NOW, &mut |_| {}).unwrap();
    let big = idx.doc(&w.p("big_notes.txt")).unwrap().unwrap();
    assert_eq!(big.kind, Kind::Text, "the kind comes from the first bytes");
    assert!(!big.text_indexed);
    assert_eq!(big.blake3, None);
    assert_eq!(big.size, 280);
    assert_eq!(w.find(&idx, "walrus"), ["small.txt"]);
    assert_eq!(w.find(&idx, "big notes"), ["big_notes.txt"]);
    assert_eq!(idx.text_of(&w.p("big_notes.txt")).unwrap(), None);
}

#[test]
fn a_changed_text_limit_rereads_files_that_did_not_change() {
    let w = World::new();
    w.write("grows.txt", "walrus ".repeat(40), 1);
    let mut idx = w.open();
    let small = Limits { max_text_bytes: 100, ..Limits::default() };
    idx.sync_roots(&w.roots(), &small, NOW, &mut |_| {}).unwrap();
    assert!(w.find(&idx, "walrus").is_empty());
    let report = w.sync(&mut idx);
    assert_eq!(report.updated, 1, "{report:?}");
    assert_eq!(w.find(&idx, "walrus"), ["grows.txt"]);
}

#[cfg(unix)]
#[test]
fn a_fifo_is_indexed_by_name_and_never_opened() {
    let w = World::new();
    w.write("a.txt", "alpha", 1);
    let fifo = w.at("pipe");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("mkfifo is not available; skipped");
        return;
    }
    let mut idx = w.open();
    // Opening a FIFO for reading blocks until a writer comes: this would hang if it were read.
    w.sync(&mut idx);
    assert_eq!(idx.doc(&w.p("pipe")).unwrap().unwrap().kind, Kind::Other);
    assert_eq!(w.find(&idx, "pipe"), ["pipe"]);
}

#[cfg(unix)]
#[test]
fn an_unnamable_file_is_skipped_with_its_reason_and_the_rest_indexed() {
    use std::os::unix::ffi::OsStrExt;
    let w = World::new();
    w.write("good.txt", "fine", 1);
    let bad = w.root.join(std::ffi::OsStr::from_bytes(b"bad\xff.txt"));
    std::fs::write(bad, "hidden words").unwrap();
    let mut idx = w.open();
    let report = w.sync(&mut idx);
    assert_eq!(report.added, 1);
    assert_eq!(report.skipped_total, 1);
    assert!(report.skipped[0].1.contains("not valid UTF-8"), "{report:?}");
    assert_eq!(w.find(&idx, "fine"), ["good.txt"]);
}

#[cfg(unix)]
#[test]
fn a_file_that_cannot_be_read_is_skipped_with_its_reason() {
    use std::os::unix::fs::PermissionsExt;
    let w = World::new();
    w.write("open.txt", "visible", 1);
    let locked = w.write("locked.txt", "secret", 1);
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::read(&locked).is_ok() {
        eprintln!("running with the power to read anything (root); skipped");
        return;
    }
    let mut idx = w.open();
    let report = w.sync(&mut idx);
    assert_eq!(report.added, 1);
    assert_eq!(report.skipped.len(), 1);
    assert_eq!(report.skipped[0].0, w.p("locked.txt"));
    assert!(report.skipped[0].1.contains("cannot be opened"), "{report:?}");
    assert_eq!(idx.doc(&w.p("locked.txt")).unwrap(), None);
}

#[test]
fn skipped_folders_are_not_entered() {
    let w = World::new();
    w.write("project/.git/objects/ab", "gitobject", 1);
    w.write("project/node_modules/x/index.js", "gitobject", 1);
    w.write("project/src/lib.rs", "gitobject", 1);
    let mut idx = w.open();
    w.sync(&mut idx);
    assert_eq!(w.find(&idx, "gitobject"), ["project/src/lib.rs"]);
    let q = Query { kind: Some(Kind::Code), ..Query::new("gitobject") };
    assert_eq!(idx.search(&q, NOW).unwrap().len(), 1);
}
