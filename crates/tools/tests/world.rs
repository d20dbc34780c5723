//! `fs_world` as the kernel's `World`: symlinks are followed before confinement.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use serde_json::json;
use smart_kernel::RefusalCode;
use smart_tools::{content_hash, resolve};
#[cfg(unix)]
use std::fs;

#[cfg(unix)]
#[test]
fn a_symlink_out_of_the_root_resolves_to_its_target_and_the_kernel_refuses_it() {
    let mut h = Harness::new();
    let outside = h.root.parent().unwrap().join("outside");
    fs::create_dir(&outside).unwrap();
    fs::write(outside.join("secret"), b"s").unwrap();
    std::os::unix::fs::symlink(&outside, h.root.join("door")).unwrap();
    assert_eq!(resolve(&h.p("door/secret")).unwrap(), outside.join("secret"));
    assert_eq!(
        resolve(&h.p("door/not-yet/x")).unwrap(),
        outside.join("not-yet/x"),
        "the missing tail is appended to the real target"
    );
    let r = h.run("fs.hash", json!({"path": h.p("door/secret")})).unwrap_err();
    assert_eq!(r.refused(), RefusalCode::PathOutsideRoots);
}

#[test]
fn dotdot_after_a_missing_folder_is_refused_and_the_kernel_says_path_invalid() {
    let mut h = Harness::new();
    let raw = h.p("missing/../../escape");
    if cfg!(windows) {
        // Windows reads `..` lexically before it looks: this is the root's parent's `escape`,
        // which the kernel refuses as outside the roots.
        assert_eq!(resolve(&raw).unwrap(), h.root.parent().unwrap().join("escape"));
        assert_eq!(h.run("fs.scan", json!({"path": raw})).unwrap_err().refused(), RefusalCode::PathOutsideRoots);
        return;
    }
    let err = resolve(&raw).unwrap_err();
    assert!(err.0.contains("`..`") && err.0.contains("missing"), "{err}");
    assert_eq!(h.run("fs.scan", json!({"path": raw})).unwrap_err().refused(), RefusalCode::PathInvalid);
}

#[test]
fn a_folder_hash_changes_when_a_nested_file_changes() {
    let h = Harness::new();
    h.write("photos/2024/june/a.jpg", b"one");
    let before = content_hash(&h.root.join("photos")).unwrap().unwrap();
    h.write("photos/2024/june/a.jpg", b"two");
    assert_ne!(content_hash(&h.root.join("photos")).unwrap().unwrap(), before);
}
