//! A rebuild replaces the index whole, atomically, while the old one keeps answering.

use crate::util::*;
use smart_index::{Index, Limits, Query, rebuild, sibling};

#[test]
fn rebuild_keeps_the_old_index_answering_until_it_is_replaced() {
    let w = World::new();
    w.write("old.txt", "oldword", 1);
    let mut idx = w.open();
    w.sync(&mut idx);
    std::fs::remove_file(w.at("old.txt")).unwrap();
    w.write("new.txt", "newword", 0);
    let old = Index::open(&w.index).unwrap();
    let mut checks = 0;
    rebuild(&w.index, &w.roots(), &Limits::default(), NOW, &mut |_| {
        // Mid-rebuild: the index in place still gives the old answers.
        assert_eq!(w.find(&old, "oldword"), ["old.txt"]);
        assert!(w.find(&old, "newword").is_empty());
        checks += 1;
    })
    .unwrap();
    assert_eq!(checks, 1, "progress ran once per entry of the new tree");
    let fresh = Index::open(&w.index).unwrap();
    assert_eq!(w.find(&fresh, "newword"), ["new.txt"]);
    assert!(w.find(&fresh, "oldword").is_empty());
    // Handles opened before the swap follow the file to its new content.
    assert_eq!(w.find(&old, "newword"), ["new.txt"]);
    assert_eq!(w.find(&idx, "newword"), ["new.txt"]);
    assert!(w.find(&idx, "oldword").is_empty());
    // ...and can write to it.
    w.write("later.txt", "laterword", 0);
    idx.update_paths(&w.roots(), &[w.at("later.txt")], &Limits::default(), NOW).unwrap();
    assert_eq!(w.find(&fresh, "laterword"), ["later.txt"]);
    // The previous generation is kept beside it; no temporary file is left.
    let prev = Index::open(&sibling(&w.index, "prev").unwrap()).unwrap();
    assert_eq!(w.find(&prev, "oldword"), ["old.txt"]);
    assert!(!sibling(&w.index, "rebuild").unwrap().exists());
    fts_is_consistent(&w.index);
}

#[test]
fn rebuild_of_a_missing_index_creates_it_and_matches_a_full_sync() {
    let w = World::new();
    w.write("a/b.md", "alpha", 1);
    w.write("c.rs", "fn c() {}", 2);
    let report = rebuild(&w.index, &w.roots(), &Limits::default(), NOW, &mut |_| {}).unwrap();
    assert_eq!(report.added, 2);
    assert!(!sibling(&w.index, "prev").unwrap().exists(), "there was nothing to keep");
    let synced = w.index.with_file_name("synced.sqlite");
    let mut s = Index::open(&synced).unwrap();
    w.sync(&mut s);
    assert_eq!(dump(&w.index), dump(&synced));
    assert_eq!(w.open().stats().unwrap().last_sync_ms, Some(NOW));
}

#[test]
fn a_failed_rebuild_leaves_the_old_index_untouched() {
    let w = World::new();
    w.write("a.txt", "kept", 1);
    let mut idx = w.open();
    w.sync(&mut idx);
    // A folder where the temporary file must go makes the rebuild fail before it starts.
    std::fs::create_dir(sibling(&w.index, "rebuild").unwrap()).unwrap();
    w.write("b.txt", "unseen", 1);
    assert!(rebuild(&w.index, &w.roots(), &Limits::default(), NOW, &mut |_| {}).is_err());
    assert_eq!(w.find(&idx, "kept"), ["a.txt"]);
    assert!(w.find(&idx, "unseen").is_empty());
    assert!(!sibling(&w.index, "prev").unwrap().exists());
}

#[test]
fn a_stale_temporary_file_from_a_crashed_rebuild_is_replaced() {
    let w = World::new();
    w.write("a.txt", "fresh", 1);
    std::fs::write(sibling(&w.index, "rebuild").unwrap(), "half-written garbage").unwrap();
    rebuild(&w.index, &w.roots(), &Limits::default(), NOW, &mut |_| {}).unwrap();
    let idx = w.open();
    assert_eq!(w.find(&idx, "fresh"), ["a.txt"]);
    assert_eq!(idx.search(&Query::new("garbage"), NOW).unwrap().len(), 0);
}
