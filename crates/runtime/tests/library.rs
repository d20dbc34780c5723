//! The index kept current from the watcher, as the desktop app does it: a full sync, then only
//! the paths the watcher saw — and a lost-events report falls back to a full sync.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use smart_runtime::library::update_index;
use smart_runtime::watch::{Dirty, RootWatcher};
use std::time::{Duration, Instant};

const NOW: u64 = 1_800_000_000_000;

fn search(places: &smart_tools::Places, words: &str) -> Vec<String> {
    let idx = smart_index::Index::open(&places.index).unwrap();
    idx.search(&smart_index::Query::new(words), NOW).unwrap().into_iter().map(|h| h.path).collect()
}

#[test]
fn the_watchers_paths_update_the_index_without_a_full_walk() {
    let t = tempfile::tempdir().unwrap();
    let base = dunce::canonicalize(t.path()).unwrap();
    let root = base.join("root");
    std::fs::create_dir_all(root.join("notes")).unwrap();
    std::fs::write(root.join("notes/old.md"), "nothing about it yet").unwrap();
    let places = smart_runtime::DataDir::new(base.join("data")).places(vec![root.clone()]);
    std::fs::create_dir_all(base.join("data")).unwrap();

    let full = update_index(&places, NOW, None, &mut |_, _| {}).unwrap();
    assert_eq!((full.mode, full.added), ("full", 1));
    let watcher = RootWatcher::start(std::slice::from_ref(&root)).unwrap();
    // At the top of the root: Wine, which runs these tests for Windows, does not watch folders
    // that existed before the watch began (see `watch.rs`).
    let new = root.join("budget.md");
    std::fs::write(&new, "the quarterly budget review").unwrap();

    let mut dirty = Dirty::default();
    let start = Instant::now();
    while !dirty.paths.contains(&new) && start.elapsed() < Duration::from_secs(5) {
        let d = watcher.drain();
        dirty.paths.extend(d.paths);
        dirty.overflowed |= d.overflowed;
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(dirty.paths.contains(&new), "the watcher saw the new file: {dirty:?}");
    let inc = update_index(&places, NOW, Some(dirty), &mut |_, _| {}).unwrap();
    assert_eq!(inc.mode, "incremental");
    assert_eq!(inc.added, 1, "{inc:?}");
    assert!(inc.scanned < 5, "only the dirty paths were looked at: {inc:?}");
    assert_eq!(search(&places, "quarterly budget"), [new.display().to_string()]);

    // Lost events: a full sync, which still finds an edit the watcher never reported.
    std::fs::write(root.join("notes/old.md"), "now it mentions the budget too, and more words").unwrap();
    let lost = Dirty { paths: Default::default(), overflowed: true };
    let r = update_index(&places, NOW, Some(lost), &mut |_, _| {}).unwrap();
    assert_eq!((r.mode, r.updated), ("full", 1), "{r:?}");
    assert_eq!(search(&places, "budget").len(), 2);
}
