//! Incremental updates end where a fresh full sync would, doing only the work they must.

use crate::util::*;
use smart_index::{IndexError, Limits};
use std::path::PathBuf;

fn tree(w: &World) {
    w.write("docs/plan.md", "# Plan\nship the index", 10);
    w.write("docs/old/notes.txt", "old notes about sailing", 40);
    w.write("docs/old/deep/more.txt", "deeper notes", 40);
    w.write("code/main.rs", "fn main() { println!(\"hi\"); }", 5);
    w.write("keep.txt", "untouched", 3);
    w.write("rename_me.txt", "moving words", 3);
    w.write("folder_to_move/inside.md", "carried along", 3);
}

/// Indexes a fresh copy of the current tree with a full sync and compares everything.
fn same_as_fresh(w: &World) {
    let fresh = w.index.with_file_name("fresh.sqlite");
    let mut f = smart_index::Index::open(&fresh).unwrap();
    w.sync(&mut f);
    let (a, b) = (dump(&w.index), dump(&fresh));
    let paths = |rows: &[Row]| rows.iter().map(|r| r.0.clone()).collect::<Vec<_>>();
    assert_eq!(paths(&a), paths(&b));
    assert_eq!(a, b);
    fts_is_consistent(&w.index);
}

#[test]
fn incremental_updates_match_a_fresh_full_sync() {
    let w = World::new();
    tree(&w);
    let mut idx = w.open();
    w.sync(&mut idx);
    // Edit, add, delete a file, delete a folder, rename a file and a folder.
    w.write("docs/plan.md", "# Plan\nship the index on friday", 0);
    w.write("docs/new.md", "brand new", 0);
    std::fs::remove_file(w.at("keep.txt")).unwrap();
    std::fs::remove_dir_all(w.at("docs/old")).unwrap();
    std::fs::rename(w.at("rename_me.txt"), w.at("renamed.txt")).unwrap();
    std::fs::rename(w.at("folder_to_move"), w.at("moved_folder")).unwrap();
    let changed: Vec<PathBuf> = [
        "docs/plan.md",
        "docs/new.md",
        "keep.txt",
        "docs/old",
        "rename_me.txt",
        "renamed.txt",
        "folder_to_move",
        "moved_folder",
    ]
    .iter()
    .map(|r| w.at(r))
    .collect();
    let report = idx.update_paths(&w.roots(), &changed, &Limits::default(), NOW).unwrap();
    assert_eq!(
        (report.added, report.updated, report.removed),
        (3, 1, 5),
        "new.md, renamed.txt, moved_folder/inside.md added; plan.md updated; {report:?}"
    );
    assert_eq!(w.find(&idx, "friday"), ["docs/plan.md"]);
    assert!(w.find(&idx, "sailing").is_empty());
    assert_eq!(w.find(&idx, "carried"), ["moved_folder/inside.md"]);
    drop(idx);
    same_as_fresh(&w);
}

#[test]
fn a_folder_event_rewalks_the_folder_and_the_root_event_the_root() {
    let w = World::new();
    tree(&w);
    let mut idx = w.open();
    w.sync(&mut idx);
    w.write("docs/old/added.txt", "appeared", 0);
    std::fs::remove_file(w.at("docs/old/deep/more.txt")).unwrap();
    let r = idx.update_paths(&w.roots(), &[w.at("docs")], &Limits::default(), NOW).unwrap();
    assert_eq!((r.added, r.removed, r.unchanged), (1, 1, 2), "{r:?}");
    w.write("top.txt", "at the top", 0);
    let r = idx.update_paths(&w.roots(), std::slice::from_ref(&w.root), &Limits::default(), NOW).unwrap();
    assert_eq!(r.added, 1, "{r:?}");
    drop(idx);
    same_as_fresh(&w);
}

#[test]
fn a_file_replaced_by_a_folder_and_back_is_followed() {
    let w = World::new();
    w.write("thing", "a file first", 1);
    let mut idx = w.open();
    w.sync(&mut idx);
    std::fs::remove_file(w.at("thing")).unwrap();
    w.write("thing/inner.txt", "now a folder", 1);
    idx.update_paths(&w.roots(), &[w.at("thing")], &Limits::default(), NOW).unwrap();
    assert_eq!(w.find(&idx, "folder"), ["thing/inner.txt"]);
    assert!(w.find(&idx, "first").is_empty());
    std::fs::remove_dir_all(w.at("thing")).unwrap();
    w.write("thing", "a file again", 1);
    idx.update_paths(&w.roots(), &[w.at("thing")], &Limits::default(), NOW).unwrap();
    assert!(w.find(&idx, "folder").is_empty());
    drop(idx);
    same_as_fresh(&w);
}

#[test]
fn a_full_sync_of_an_unchanged_tree_reads_nothing() {
    let w = World::new();
    tree(&w);
    let mut idx = w.open();
    let first = w.sync(&mut idx);
    assert_eq!((first.added, first.scanned), (7, 7));
    let again = w.sync(&mut idx);
    assert_eq!(
        (again.scanned, again.unchanged, again.added, again.updated, again.removed),
        (7, 7, 0, 0, 0),
        "{again:?}"
    );
    // Proof that "unchanged" means "not read": same size, same mtime, other bytes.
    let path = w.write("keep.txt", "UNTOUCHED", 3);
    let again = w.sync(&mut idx);
    assert_eq!(again.unchanged, 7);
    assert_eq!(idx.text_of(&w.p("keep.txt")).unwrap().as_deref(), Some("untouched"));
    // A new modification time makes it read again.
    set_mtime(&path, NOW);
    let again = w.sync(&mut idx);
    assert_eq!((again.updated, again.unchanged), (1, 6));
    assert_eq!(idx.text_of(&w.p("keep.txt")).unwrap().as_deref(), Some("UNTOUCHED"));
}

#[test]
fn a_full_sync_removes_what_vanished_and_progress_counts_entries() {
    let w = World::new();
    tree(&w);
    let mut idx = w.open();
    w.sync(&mut idx);
    std::fs::remove_dir_all(w.at("docs")).unwrap();
    let mut seen = Vec::new();
    let r = idx.sync_roots(&w.roots(), &Limits::default(), NOW, &mut |p| seen.push(p.done)).unwrap();
    assert_eq!((r.removed, r.unchanged), (3, 4), "{r:?}");
    assert_eq!(seen, [1, 2, 3, 4]);
    assert!(w.find(&idx, "notes").is_empty());
}

#[test]
fn max_files_keeps_the_same_walk_order_prefix() {
    let w = World::new();
    for name in ["e.txt", "b.txt", "a/z.txt", "d.txt", "c.txt"] {
        w.write(name, "word", 1);
    }
    let mut idx = w.open();
    let limits = Limits { max_files: 3, ..Limits::default() };
    let r = idx.sync_roots(&w.roots(), &limits, NOW, &mut |_| {}).unwrap();
    assert!(r.truncated);
    let mut got = w.find(&idx, "word");
    got.sort();
    assert_eq!(got, ["a/z.txt", "b.txt", "c.txt"], "depth first, names sorted by bytes");
    // An update cannot grow a full index; it says why.
    w.write("aa.txt", "word", 1);
    let r = idx.update_paths(&w.roots(), &[w.at("aa.txt")], &limits, NOW).unwrap();
    assert_eq!(r.added, 0);
    assert!(r.skipped[0].1.contains("full"), "{r:?}");
}

#[test]
fn update_paths_refuses_a_path_outside_the_roots_and_changes_nothing() {
    let w = World::new();
    w.write("a.txt", "before", 1);
    let mut idx = w.open();
    w.sync(&mut idx);
    w.write("a.txt", "after", 0);
    let outside = w.outside.join("x.txt");
    let err = idx.update_paths(&w.roots(), &[w.at("a.txt"), outside.clone()], &Limits::default(), NOW).unwrap_err();
    assert!(matches!(&err, IndexError::OutsideRoots { path } if *path == outside), "{err}");
    assert_eq!(w.find(&idx, "before"), ["a.txt"], "the path inside was not applied either");
    let dotdot = w.at("sub/../../outside/x.txt");
    assert!(matches!(
        idx.update_paths(&w.roots(), &[dotdot], &Limits::default(), NOW),
        Err(IndexError::BadPath { .. })
    ));
    assert!(matches!(
        idx.update_paths(&w.roots(), &[PathBuf::from("a.txt")], &Limits::default(), NOW),
        Err(IndexError::BadPath { .. })
    ));
}

#[test]
fn paths_inside_skipped_folders_are_ignored_by_updates() {
    let w = World::new();
    w.write("p/.git/HEAD", "ref: refs/heads/main", 1);
    let mut idx = w.open();
    w.sync(&mut idx);
    let r = idx.update_paths(&w.roots(), &[w.at("p/.git/HEAD")], &Limits::default(), NOW).unwrap();
    assert_eq!((r.added, r.scanned), (0, 0));
    assert!(w.find(&idx, "refs").is_empty());
}

#[test]
fn nested_roots_are_walked_once() {
    let w = World::new();
    w.write("inner/a.txt", "once", 1);
    let mut idx = w.open();
    let roots = vec![w.at("inner"), w.root.clone(), w.root.clone()];
    let r = idx.sync_roots(&roots, &Limits::default(), NOW, &mut |_| {}).unwrap();
    assert_eq!((r.scanned, r.added), (1, 1), "{r:?}");
}
