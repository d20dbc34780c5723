//! The read-only tools through the real kernel: fs.scan, fs.hash, cluster.duplicates.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use serde_json::{Value, json};
use smart_kernel::{Hash, Layer, Reversibility, ToolSpec};
use std::fs;

#[test]
fn scan_lists_a_tree_in_order_without_following_symlinks() {
    let mut h = Harness::new();
    h.write("b.txt", b"bee");
    h.write("a/x.txt", b"12345");
    fs::create_dir(h.root.join("empty")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("/", h.root.join("link")).unwrap();
    let out = h.run("fs.scan", json!({"path": h.p("")})).unwrap().output;
    let entries: Vec<(String, String, u64)> = out["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["path"].as_str().unwrap().to_string(),
                e["kind"].as_str().unwrap().to_string(),
                e["size"].as_u64().unwrap(),
            )
        })
        .collect();
    let mut expected = vec![
        (h.p("a"), "dir".to_string(), 0),
        (h.p("a/x.txt"), "file".to_string(), 5),
        (h.p("b.txt"), "file".to_string(), 3),
        (h.p("empty"), "dir".to_string(), 0),
    ];
    if cfg!(unix) {
        expected.push((h.p("link"), "symlink".to_string(), 1));
    }
    assert_eq!(entries, expected);
    assert_eq!(out["files"], 2);
    assert_eq!(out["dirs"], 2);
    assert_eq!(out["total_bytes"], 8);
    assert_eq!(out["truncated"], false);
    assert_eq!(out["root"], h.root.to_str().unwrap(), "the root as the kernel resolved it");
}

#[test]
fn scan_of_a_file_lists_it_and_a_missing_path_is_an_error() {
    let mut h = Harness::new();
    h.write("one.txt", b"1");
    let out = h.run("fs.scan", json!({"path": h.p("one.txt")})).unwrap().output;
    let mtime = std::fs::metadata(h.root.join("one.txt")).unwrap().modified().unwrap();
    let ms = mtime.duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;
    assert_eq!(out["entries"], json!([{"path": h.p("one.txt"), "kind": "file", "size": 1, "modified_ms": ms}]));
    let err = h.run("fs.scan", json!({"path": h.p("nope")})).unwrap_err().failed();
    assert!(err.contains("does not exist") && err.contains("nope"), "{err}");
}

#[test]
fn scan_stops_at_ten_thousand_entries_and_says_so() {
    let mut h = Harness::new();
    for i in 0..10_001 {
        fs::write(h.root.join(format!("f{i:05}")), b"").unwrap();
    }
    let out = h.run("fs.scan", json!({"path": h.p("")})).unwrap().output;
    assert_eq!(out["truncated"], true);
    assert_eq!(out["entries"].as_array().unwrap().len(), 10_000);
    assert_eq!(out["entries"][9_999]["path"], h.p("f09999"), "a truncated listing is a sorted prefix");
}

#[test]
fn hash_is_plain_blake3_and_refuses_folders() {
    let mut h = Harness::new();
    h.write("doc.txt", b"some content");
    let out = h.run("fs.hash", json!({"path": h.p("doc.txt")})).unwrap().output;
    assert_eq!(out, json!({"path": h.p("doc.txt"), "blake3": Hash::of_bytes(b"some content").to_hex(), "size": 12}));
    fs::create_dir(h.root.join("dir")).unwrap();
    let err = h.run("fs.hash", json!({"path": h.p("dir")})).unwrap_err().failed();
    assert!(err.contains("folder") && err.contains("fs.hash takes a file"), "{err}");
    let err = h.run("fs.hash", json!({"path": h.p("gone")})).unwrap_err().failed();
    assert!(err.contains("does not exist"), "{err}");
}

#[test]
fn duplicates_are_grouped_by_content_biggest_first_ignoring_empty_files() {
    let mut h = Harness::new();
    let big = vec![b'x'; 100];
    h.write("a1", &big);
    h.write("sub/a2", &big);
    h.write("a3", &big);
    h.write("same-size-other", &[b'z'; 100]);
    h.write("b1", b"yy");
    h.write("deep/er/b2", b"yy");
    h.write("e1", b"");
    h.write("e2", b"");
    h.write("unique", b"u");
    let out = h.run("cluster.duplicates", json!({"path": h.p("")})).unwrap().output;
    let groups = out["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 2, "{out}");
    assert_eq!(groups[0]["size"], 100);
    assert_eq!(groups[0]["blake3"], Hash::of_bytes(&big).to_hex());
    assert_eq!(groups[0]["paths"], json!([h.p("a1"), h.p("a3"), h.p("sub/a2")]));
    assert_eq!(groups[1]["paths"], json!([h.p("b1"), h.p("deep/er/b2")]));
    assert_eq!(out["files_scanned"], 9);
    assert_eq!(out["duplicate_files"], 3);
    assert_eq!(out["reclaimable_bytes"], 202);

    let err = h.run("cluster.duplicates", json!({"path": h.p("a1")})).unwrap_err().failed();
    assert!(err.contains("not a folder"), "{err}");
}

#[test]
fn read_tools_change_nothing() {
    let mut h = Harness::new();
    h.write("k/v", b"1");
    h.write("k/w", b"1");
    let before = h.snapshot();
    h.run("fs.scan", json!({"path": h.p("")})).unwrap();
    h.run("fs.hash", json!({"path": h.p("k/v")})).unwrap();
    h.run("cluster.duplicates", json!({"path": h.p("")})).unwrap();
    assert_eq!(h.snapshot(), before);
}

#[test]
fn a_tool_without_an_executor_is_an_error_not_a_panic() {
    let mut extra = smart_tools::specs();
    extra.push(ToolSpec {
        name: "fs.stat".into(),
        description: "Not implemented.".into(),
        layer: Layer::L0,
        reversibility: Reversibility::ReadOnly,
        cost: 1,
        expected_ms: 1,
        capabilities: vec!["fs:read:*".parse().unwrap()],
        args_schema: json!({"type": "object"}),
        path_args: vec![],
        artifact_arg: None,
        artifact_paths: vec![],
    });
    let mut h = Harness::with_specs(extra);
    let err = h.run("fs.stat", Value::Object(Default::default())).unwrap_err().failed();
    assert!(err.contains("no executor") && err.contains("fs.stat"), "{err}");
}

/// A read that never returns (a hung network share) once kept a call — and the person waiting
/// on it — forever. A call that only reads is given up at its deadline with a failure that says
/// so, and the files are as they were.
#[test]
fn a_read_past_its_deadline_is_given_up_with_a_reason_and_changes_nothing() {
    let mut h = Harness::new();
    for i in 0..400 {
        h.write(&format!("d{}/f{i}.txt", i % 20), format!("{i}").as_bytes());
    }
    let before = h.snapshot();
    // The scan of 420 entries takes far longer than a nanosecond; the same call finishes under
    // the default deadline.
    h.exec = h.exec.clone().with_deadline(std::time::Duration::from_nanos(1));
    let err = h.run("fs.scan", json!({"path": h.p("")})).unwrap_err().failed();
    assert!(err.contains("fs.scan was given up after") && err.contains("nothing was changed"), "{err}");
    assert_eq!(h.snapshot(), before);
    h.exec = h.exec.clone().with_deadline(smart_tools::exec::READ_DEADLINE);
    let out = h.run("fs.scan", json!({"path": h.p("")})).unwrap().output;
    assert_eq!(out["files"], 400);
}
