//! propose.move → apply.move → undo through the real kernel, on real files.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use serde_json::json;
use smart_kernel::{Hash, RefusalCode};
use std::fs;

#[test]
fn propose_apply_undo_round_trip_restores_everything_exactly() {
    let mut h = Harness::new();
    h.write("docs/a.txt", b"alpha");
    h.write("docs/b.txt", b"beta");
    h.write("photos/2024/x.jpg", &[1, 2, 3]);
    h.write("photos/y.jpg", &[4]);
    h.climb_to_l1();
    let before = h.snapshot();

    let plan = h.propose_moves(&[("docs/a.txt", "sorted/text/a.txt"), ("photos", "archive/2024/photos")]).unwrap();
    assert_eq!(plan.len(), 64);
    assert_eq!(h.snapshot(), before, "proposing touches nothing");
    let stored = &h.world.artifacts[&Hash::from_hex(&plan).unwrap()];
    assert_eq!(stored.kind, "move_plan");
    assert_eq!(stored.inputs[&h.p("docs/a.txt")], Hash::of_bytes(b"alpha"));
    assert_eq!(stored.body["moves"][1], json!({"from": h.p("photos"), "to": h.p("archive/2024/photos")}));

    let applied = h.run("apply.move", json!({ "proposal": plan })).unwrap();
    assert_eq!(applied.output["moved"], 2);
    assert_eq!(h.read("sorted/text/a.txt"), b"alpha");
    assert_eq!(h.read("archive/2024/photos/2024/x.jpg"), [1, 2, 3]);
    assert!(!h.exists("docs/a.txt") && !h.exists("photos"));
    assert!(h.exists("docs/b.txt"));
    let rollback = match &h.log[(applied.seq - 1) as usize] {
        smart_kernel::KernelEvent::Committed { rollback: Some(rb), .. } => rb.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(rollback["inputs"][h.p("docs/a.txt")], json!(null));
    assert_eq!(rollback["inputs"][h.p("sorted/text/a.txt")], json!(Hash::of_bytes(b"alpha").to_hex()));
    assert_eq!(
        rollback["created_dirs"],
        json!([h.p("sorted"), h.p("sorted/text"), h.p("archive"), h.p("archive/2024")])
    );

    let undone = h.undo(applied.seq).unwrap();
    assert_eq!(undone.output["undone"], "apply.move");
    assert_eq!(undone.output["restored"], 2);
    assert_eq!(h.read("docs/a.txt"), b"alpha");
    assert_eq!(h.read("photos/2024/x.jpg"), [1, 2, 3]);
    assert!(!h.exists("sorted") && !h.exists("archive"), "the folders apply.move made are gone");
    assert_eq!(h.snapshot(), before, "the tree is exactly as before");

    // A plan is applied once, and an undo happens once.
    assert_eq!(h.run("apply.move", json!({ "proposal": plan })).unwrap_err().refused(), RefusalCode::ArtifactUnknown);
    assert_eq!(h.undo(applied.seq).unwrap_err().refused(), RefusalCode::NotReversible);
}

#[test]
fn undo_keeps_created_folders_that_are_no_longer_empty() {
    let mut h = Harness::new();
    h.write("a.txt", b"a");
    h.climb_to_l1();
    let plan = h.propose_moves(&[("a.txt", "new/a.txt")]).unwrap();
    let applied = h.run("apply.move", json!({ "proposal": plan })).unwrap();
    h.write("new/mine.txt", b"the person's own file");
    h.undo(applied.seq).unwrap();
    assert_eq!(h.read("a.txt"), b"a");
    assert_eq!(h.read("new/mine.txt"), b"the person's own file");
}

#[test]
fn undo_is_refused_when_a_moved_file_was_edited_since() {
    let mut h = Harness::new();
    h.write("a.txt", b"a");
    h.climb_to_l1();
    let plan = h.propose_moves(&[("a.txt", "b.txt")]).unwrap();
    let applied = h.run("apply.move", json!({ "proposal": plan })).unwrap();
    h.write("b.txt", b"edited after the move");
    assert_eq!(h.undo(applied.seq).unwrap_err().refused(), RefusalCode::SnapshotStale);
    assert_eq!(h.read("b.txt"), b"edited after the move");
}

#[test]
fn proposals_that_cannot_be_applied_are_refused_naming_the_move() {
    let mut h = Harness::new();
    h.write("a.txt", b"a");
    h.write("b.txt", b"b");
    h.write("dir/c.txt", b"c");
    h.climb_to_l1();
    let before = h.snapshot();
    let cases: &[(&[(&str, &str)], &str)] = &[
        (&[("missing.txt", "x.txt")], "does not exist"),
        (&[("a.txt", "b.txt")], "already exists"),
        (&[("a.txt", "x.txt"), ("b.txt", "x.txt")], "both move something to"),
        (&[("a.txt", "b2.txt"), ("b.txt", "a.txt")], "what move 1"),
        (&[("dir", "dir/inner")], "inside itself"),
    ];
    for (moves, expected) in cases {
        let err = h.propose_moves(moves).unwrap_err().failed();
        assert!(err.contains(expected), "{err} (wanted {expected:?})");
    }
    let err = h.propose_moves(&[("a.txt", "y.txt"), ("nothing", "z")]).unwrap_err().failed();
    assert!(err.starts_with("move 2") && err.contains(&h.p("nothing")), "{err}");
    assert_eq!(h.snapshot(), before);
}

#[test]
fn apply_rolls_everything_back_when_a_destination_appears_after_the_plan() {
    let mut h = Harness::new();
    h.write("a.txt", b"a");
    h.write("b.txt", b"b");
    h.write("c.txt", b"c");
    h.climb_to_l1();
    let plan = h.propose_moves(&[("a.txt", "x/a.txt"), ("b.txt", "y/deep/b.txt"), ("c.txt", "z/c.txt")]).unwrap();
    // Someone puts a file where the third move would go.
    h.write("z/c.txt", b"someone else's");
    let before = h.snapshot();
    let err = h.run("apply.move", json!({ "proposal": plan })).unwrap_err().failed();
    assert!(err.contains("move 3") && err.contains(&h.p("z/c.txt")) && err.contains("nothing was changed"), "{err}");
    assert!(err.contains("2 moves already done were put back"), "{err}");
    assert_eq!(h.snapshot(), before, "every move and every created folder was taken back");
    assert_eq!(h.read("a.txt"), b"a");
    assert!(!h.exists("x") && !h.exists("y"));
    assert_eq!(h.read("z/c.txt"), b"someone else's");
}

#[test]
fn apply_is_refused_by_the_kernel_when_a_source_changed_after_the_plan() {
    let mut h = Harness::new();
    h.write("a.txt", b"a");
    h.climb_to_l1();
    let plan = h.propose_moves(&[("a.txt", "b.txt")]).unwrap();
    h.write("a.txt", b"changed");
    assert_eq!(h.run("apply.move", json!({ "proposal": plan })).unwrap_err().refused(), RefusalCode::SnapshotStale);
    assert_eq!(h.read("a.txt"), b"changed");
    assert!(!h.exists("b.txt"));
}

#[test]
fn a_folder_moved_with_its_contents_keeps_its_hash() {
    let mut h = Harness::new();
    h.write("album/1.jpg", b"1");
    h.write("album/sub/2.jpg", b"2");
    fs::create_dir(h.root.join("album/empty")).unwrap();
    h.climb_to_l1();
    let hash = smart_tools::content_hash(&h.root.join("album")).unwrap();
    let plan = h.propose_moves(&[("album", "Pictures/album")]).unwrap();
    h.run("apply.move", json!({ "proposal": plan })).unwrap();
    assert_eq!(smart_tools::content_hash(&h.root.join("Pictures/album")).unwrap(), hash);
}
