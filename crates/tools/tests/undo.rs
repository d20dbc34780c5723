//! Every reversible tool, done and undone through the real kernel on real files — and every undo
//! refused, with nothing clobbered, once the world changed after the call.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use serde_json::json;
use smart_kernel::{Hash, RefusalCode};
use std::fs;

/// Climbs to L2 with a committed L2 call of its own, so an L3 call is next.
fn climb_to_l2(h: &mut Harness) {
    h.climb_to_l1();
    h.write("climb/l2.txt", b"x\n");
    h.run("propose.patch", json!({"path": h.p("climb/l2.txt"), "find": "x", "replace": "y"})).unwrap();
}

#[test]
fn a_patch_is_applied_exactly_as_reviewed_and_undone_byte_for_byte() {
    let mut h = Harness::new();
    h.write("README.md", b"# Project\n\nTeh quick start:\n1. install\n");
    h.climb_to_l1();
    let before = h.snapshot();
    let p =
        h.run("propose.patch", json!({"path": h.p("README.md"), "find": "Teh quick", "replace": "The quick"})).unwrap();
    assert_eq!(h.snapshot(), before, "proposing changes nothing");
    let diff = p.output["diff"].as_str().unwrap();
    assert!(diff.contains("-Teh quick start:") && diff.contains("+The quick start:"), "{diff}");
    let applied = h.run("apply.patch", json!({"proposal": p.output["artifact"]})).unwrap();
    assert_eq!(h.read("README.md"), b"# Project\n\nThe quick start:\n1. install\n");
    h.undo(applied.seq).unwrap();
    assert_eq!(h.read("README.md"), b"# Project\n\nTeh quick start:\n1. install\n");
    assert_eq!(h.snapshot(), before);
}

#[test]
fn a_unified_diff_is_accepted_and_one_that_does_not_fit_is_refused_before_anything_is_written() {
    let mut h = Harness::new();
    h.write("notes.txt", b"one\ntwo\nthree\n");
    h.climb_to_l1();
    let diff = "--- a\n+++ b\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n";
    let p = h.run("propose.patch", json!({"path": h.p("notes.txt"), "diff": diff})).unwrap();
    h.run("apply.patch", json!({"proposal": p.output["artifact"]})).unwrap();
    assert_eq!(h.read("notes.txt"), b"one\nTWO\nthree\n");
    let bad = "--- a\n+++ b\n@@ -1,3 +1,3 @@\n uno\n-dos\n+DOS\n tres\n";
    let err = h.run("propose.patch", json!({"path": h.p("notes.txt"), "diff": bad})).unwrap_err().failed();
    assert!(err.contains("does not apply"), "{err}");
}

#[test]
fn an_ambiguous_find_is_refused_rather_than_guessed() {
    let mut h = Harness::new();
    h.write("a.txt", b"cat cat\n");
    h.climb_to_l1();
    let err =
        h.run("propose.patch", json!({"path": h.p("a.txt"), "find": "cat", "replace": "dog"})).unwrap_err().failed();
    assert!(err.contains("2 times"), "{err}");
    let err =
        h.run("propose.patch", json!({"path": h.p("a.txt"), "find": "bird", "replace": "dog"})).unwrap_err().failed();
    assert!(err.contains("does not contain"), "{err}");
}

#[test]
fn apply_patch_is_refused_when_the_file_changed_after_the_proposal() {
    let mut h = Harness::new();
    h.write("a.txt", b"hello world\n");
    h.climb_to_l1();
    let p = h.run("propose.patch", json!({"path": h.p("a.txt"), "find": "world", "replace": "there"})).unwrap();
    h.write("a.txt", b"hello world, edited by the person\n");
    let code = h.run("apply.patch", json!({"proposal": p.output["artifact"]})).unwrap_err().refused();
    assert_eq!(code, RefusalCode::SnapshotStale);
    assert_eq!(h.read("a.txt"), b"hello world, edited by the person\n");
}

#[test]
fn undo_of_a_patch_is_refused_after_a_conflicting_edit_and_the_edit_survives() {
    let mut h = Harness::new();
    h.write("a.txt", b"v1\n");
    h.climb_to_l1();
    let p = h.run("propose.patch", json!({"path": h.p("a.txt"), "find": "v1", "replace": "v2"})).unwrap();
    let applied = h.run("apply.patch", json!({"proposal": p.output["artifact"]})).unwrap();
    h.write("a.txt", b"v2 and the person's own line\n");
    let code = h.undo(applied.seq).unwrap_err().refused();
    assert_eq!(code, RefusalCode::SnapshotStale);
    assert_eq!(h.read("a.txt"), b"v2 and the person's own line\n");
}

#[test]
fn a_binary_or_non_utf8_file_cannot_be_patched() {
    let mut h = Harness::new();
    h.write("blob.bin", b"ab\0cd");
    h.write("latin.txt", b"caf\xe9\n");
    h.climb_to_l1();
    let err =
        h.run("propose.patch", json!({"path": h.p("blob.bin"), "find": "ab", "replace": "x"})).unwrap_err().failed();
    assert!(err.contains("binary"), "{err}");
    let err =
        h.run("propose.patch", json!({"path": h.p("latin.txt"), "find": "caf", "replace": "x"})).unwrap_err().failed();
    assert!(err.contains("UTF-8"), "{err}");
}

#[test]
fn a_record_upsert_keeps_the_previous_value_and_undo_puts_it_back() {
    let mut h = Harness::new();
    climb_to_l2(&mut h);
    let first =
        h.run("db.upsert", json!({"collection": "notes", "key": "budget", "value": {"due": "friday"}})).unwrap();
    assert_eq!(first.output["created"], true);
    let second =
        h.run("db.upsert", json!({"collection": "notes", "key": "budget", "value": {"due": "monday"}})).unwrap();
    assert_eq!(second.output["previous"], json!({"due": "friday"}));
    let records = h.data.join("records.db");
    assert_eq!(smart_tools::record(&records, "notes", "budget").unwrap(), Some(json!({"due": "monday"})));
    h.undo(second.seq).unwrap();
    assert_eq!(smart_tools::record(&records, "notes", "budget").unwrap(), Some(json!({"due": "friday"})));
    h.undo(first.seq).unwrap();
    assert_eq!(smart_tools::record(&records, "notes", "budget").unwrap(), None, "undo of a create removes it");
}

#[test]
fn undo_of_a_record_is_refused_after_a_later_write_to_it() {
    let mut h = Harness::new();
    climb_to_l2(&mut h);
    let first = h.run("db.upsert", json!({"collection": "notes", "key": "k", "value": 1})).unwrap();
    h.run("db.upsert", json!({"collection": "notes", "key": "k", "value": 2})).unwrap();
    assert_eq!(h.undo(first.seq).unwrap_err().refused(), RefusalCode::SnapshotStale);
    assert_eq!(smart_tools::record(&h.data.join("records.db"), "notes", "k").unwrap(), Some(json!(2)));
}

#[test]
fn compact_archives_verifies_quarantines_and_undo_restores_the_folder_and_removes_the_archive() {
    let mut h = Harness::new();
    h.write("old-project/src/main.rs", b"fn main() {}\n");
    h.write("old-project/README", &vec![b'r'; 50_000]);
    h.write("old-project/empty/.keep", b"");
    h.climb_to_l3();
    let before = h.snapshot();
    let done = h.run("fs.compact", json!({"path": h.p("old-project")})).unwrap();
    assert!(!h.exists("old-project"));
    assert!(h.exists("old-project.tar.gz"));
    assert_eq!(done.output["files"], 3);
    assert!(done.output["archive_bytes"].as_u64().unwrap() < done.output["original_bytes"].as_u64().unwrap());
    // The archive is a real tar.gz with the files in it (read and closed: Windows cannot remove
    // a file that is open).
    let names: Vec<String> = {
        let f = fs::File::open(h.root.join("old-project.tar.gz")).unwrap();
        let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(f));
        tar.entries().unwrap().map(|e| String::from_utf8_lossy(&e.unwrap().path_bytes()).into_owned()).collect()
    };
    assert!(names.contains(&"old-project/src/main.rs".to_string()), "{names:?}");
    h.undo(done.seq).unwrap();
    assert!(!h.exists("old-project.tar.gz"));
    assert_eq!(h.snapshot(), before, "the tree is exactly as before");
}

#[test]
fn undo_of_compact_is_refused_when_the_archive_was_changed() {
    let mut h = Harness::new();
    h.write("p/a.txt", b"a");
    h.climb_to_l3();
    let done = h.run("fs.compact", json!({"path": h.p("p")})).unwrap();
    fs::write(h.root.join("p.tar.gz"), b"replaced by the person").unwrap();
    assert_eq!(h.undo(done.seq).unwrap_err().refused(), RefusalCode::SnapshotStale);
    assert_eq!(h.read("p.tar.gz"), b"replaced by the person");
}

#[test]
fn compact_never_overwrites_an_existing_archive() {
    let mut h = Harness::new();
    h.write("p/a.txt", b"a");
    h.write("p.tar.gz", b"precious");
    h.climb_to_l3();
    let err = h.run("fs.compact", json!({"path": h.p("p")})).unwrap_err().failed();
    assert!(err.contains("already exists"), "{err}");
    assert_eq!(h.read("p.tar.gz"), b"precious");
    assert!(h.exists("p/a.txt"));
}

#[test]
fn a_reviewed_quarantine_list_is_applied_only_while_unchanged() {
    let mut h = Harness::new();
    h.write("dl/a.zip", b"a");
    h.write("dl/b.iso", b"b");
    h.climb_to_l1();
    let p = h.run("propose.quarantine", json!({"paths": [h.p("dl/a.zip"), h.p("dl/b.iso")]})).unwrap();
    assert_eq!(p.output["total_bytes"], 2);
    assert!(h.exists("dl/a.zip"), "a proposal moves nothing");
    // Climb to L3 so the L4 call is next.
    h.write("climb/seed", b"seed");
    let plan = h.propose_moves(&[("climb/seed", "climb/seed.moved")]).unwrap();
    h.run("apply.move", json!({ "proposal": plan })).unwrap();
    h.write("dl/b.iso", b"changed");
    let code = h.run("fs.quarantine", json!({"proposal": p.output["artifact"]})).unwrap_err().refused();
    assert_eq!(code, RefusalCode::SnapshotStale);
    assert!(h.exists("dl/a.zip") && h.exists("dl/b.iso"));
    let p2 = h.run("propose.quarantine", json!({"paths": [h.p("dl/a.zip"), h.p("dl/b.iso")]})).unwrap();
    let q = h.run("fs.quarantine", json!({"proposal": p2.output["artifact"]})).unwrap();
    assert_eq!(q.output["count"], 2);
    assert!(!h.exists("dl/a.zip"));
    h.undo(q.seq).unwrap();
    assert_eq!(h.read("dl/b.iso"), b"changed");
}

#[test]
fn purge_deletes_only_the_named_batch_and_then_its_undo_is_refused() {
    let mut h = Harness::new();
    h.write("junk/a.tmp", b"a");
    h.write("keep/b.txt", b"b");
    h.climb_to_l3();
    let q = h.run("fs.quarantine", json!({"paths": [h.p("junk")]})).unwrap();
    let batch = q.output["batch"].as_str().unwrap().to_string();
    assert!(h.qdir.join(&batch).exists());
    h.now = h.now.plus(60_000); // the L4 cooldown
    let purged = h.run("quarantine.purge", json!({"batch": batch})).unwrap();
    assert_eq!(purged.output["items"], 1);
    assert!(!h.qdir.join(&batch).exists());
    assert_eq!(h.read("keep/b.txt"), b"b");
    assert_eq!(h.undo(q.seq).unwrap_err().refused(), RefusalCode::SnapshotStale);
    let err = h.run("quarantine.purge", json!({"batch": "0000000000000000"})).unwrap_err();
    assert!(matches!(err, Fail::Failed(ref why) if why.contains("no quarantine batch")), "{err:?}");
}

#[test]
fn read_only_tools_report_text_versions_and_context_without_changing_anything() {
    let mut h = Harness::new();
    h.write("docs/report_v1.md", b"first");
    h.write("docs/report_v2.md", b"second");
    h.write("docs/report-final.md", b"final");
    h.write("docs/Copy of report_v2.md", b"second");
    h.write("docs/taxes 2023.md", b"t");
    h.write("docs/taxes 2024.md", b"t2");
    h.write("docs/latin.txt", b"caf\xe9");
    let before = h.snapshot();
    let r = h.run("fs.read", json!({"path": h.p("docs/latin.txt")})).unwrap();
    assert_eq!((r.output["encoding"].as_str(), r.output["text"].as_str()), (Some("latin-1"), Some("café")));
    h.commit_lease();
    h.run("fs.scan", json!({"path": h.p("docs")})).unwrap();
    let s = h.run("infer.superseded_docs", json!({"path": h.p("docs")})).unwrap();
    let groups = s.output["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 1, "{groups:?}");
    assert_eq!(groups[0]["current"]["path"], json!(h.p("docs/report-final.md")));
    let older: Vec<&str> =
        groups[0]["superseded"].as_array().unwrap().iter().map(|d| d["path"].as_str().unwrap()).collect();
    assert_eq!(older.len(), 3, "{older:?}");
    let copy = groups[0]["superseded"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["path"] == json!(h.p("docs/Copy of report_v2.md")))
        .unwrap();
    assert!(copy["reasons"].as_array().unwrap().iter().any(|r| r.as_str().unwrap().contains("copy")), "{copy}");
    assert_eq!(h.snapshot(), before);
}

#[test]
fn redirects_record_moves_and_refuse_what_is_not_a_move() {
    let mut h = Harness::new();
    h.write("new/a.md", b"a");
    h.write("still/b.md", b"b");
    h.climb_to_l1();
    let r = h.run("propose.redirects", json!({"moves": [{"from": h.p("old/a.md"), "to": h.p("new/a.md")}]})).unwrap();
    assert_eq!(r.output["file"], "/old/a.md /new/a.md\n");
    let stored = &h.world.artifacts[&Hash::from_hex(r.output["artifact"].as_str().unwrap()).unwrap()];
    assert_eq!(stored.kind, "redirects");
    let err = h
        .run("propose.redirects", json!({"moves": [{"from": h.p("still/b.md"), "to": h.p("gone/b.md")}]}))
        .unwrap_err()
        .failed();
    assert!(err.contains("a redirect records a move"), "{err}");
}
