//! The `rag.*` tools over a real index of a real tree: search with filters and explanations,
//! context bundles within a budget, and applicability — for text (by hash) and for what is
//! indexed by name only (by size and time).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use serde_json::json;

fn index(h: &Harness) {
    let mut idx = smart_index::Index::open(&h.data.join("index.db")).unwrap();
    idx.sync_roots(std::slice::from_ref(&h.root), &smart_index::Limits::default(), 1_700_000_000_000, &mut |_| {})
        .unwrap();
}

#[test]
fn search_filters_and_explains_its_ranking() {
    let mut h = Harness::new();
    h.write("notes/budget.md", b"# Budget\nThe budget review is on Friday.\n");
    h.write("archive/budget-2019.md", b"old budget numbers\n");
    h.write("notes/garden.txt", b"tomatoes\n");
    index(&h);
    let all = h.run("rag.search", json!({"query": "budget"})).unwrap().output;
    let ids: Vec<&str> = all["results"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 2, "{all}");
    for r in all["results"].as_array().unwrap() {
        assert!(r["why"]["bm25"].is_number() && r["why"]["recency"].is_number() && r["score"].is_number(), "{r}");
    }
    let notes = h.run("rag.search", json!({"query": "budget", "path_prefix": h.p("notes")})).unwrap().output;
    assert_eq!(notes["results"].as_array().unwrap().len(), 1);
    assert_eq!(notes["results"][0]["id"], json!(h.p("notes/budget.md")));
    let md = h.run("rag.search", json!({"query": "tomatoes", "kind": "markdown"})).unwrap().output;
    assert_eq!(md["results"], json!([]), "garden.txt is text, not markdown");
}

#[test]
fn a_context_bundle_keeps_to_its_budget_and_leaves_out_changed_and_binary_files() {
    let mut h = Harness::new();
    h.write("a.md", "alpha ".repeat(200).as_bytes());
    h.write("b.md", b"beta beta beta");
    h.write("c.md", b"gamma");
    h.write("blob.bin", b"\0\x01\x02binary");
    index(&h);
    h.write("c.md", b"gamma, edited after indexing");
    h.run("fs.scan", json!({"path": h.p("")})).unwrap();
    let out = h
        .run(
            "rag.assemble_context",
            json!({"ids": [h.p("a.md"), h.p("b.md"), h.p("c.md"), h.p("blob.bin")], "budget_tokens": 100}),
        )
        .unwrap()
        .output;
    assert!(out["used_tokens"].as_u64().unwrap() <= 100, "{out}");
    assert_eq!(out["items"][0]["truncated"], true, "a.md is cut to the budget");
    let omitted: Vec<&str> = out["omitted"].as_array().unwrap().iter().map(|o| o["id"].as_str().unwrap()).collect();
    assert!(omitted.contains(&h.p("c.md").as_str()) && omitted.contains(&h.p("blob.bin").as_str()), "{out}");
}

#[test]
fn applicability_is_by_hash_for_text_and_by_size_and_time_for_binaries() {
    let mut h = Harness::new();
    h.write("t.md", b"text");
    h.write("blob.bin", b"\0\x01binary");
    index(&h);
    let ids = json!({"ids": [h.p("t.md"), h.p("blob.bin"), h.p("never-indexed.md")]});
    h.write("never-indexed.md", b"new");
    let out = h.run("rag.validate_applicability", ids.clone()).unwrap().output;
    let status: Vec<&str> = out["results"].as_array().unwrap().iter().map(|r| r["status"].as_str().unwrap()).collect();
    assert_eq!(status, ["current", "current", "not_indexed"], "{out}");
    h.write("t.md", b"text, changed");
    h.write("blob.bin", b"\0\x01binary, longer now");
    h.run("fs.scan", json!({"path": h.p("")})).unwrap();
    let out = h.run("rag.validate_applicability", ids).unwrap().output;
    let status: Vec<&str> = out["results"].as_array().unwrap().iter().map(|r| r["status"].as_str().unwrap()).collect();
    assert_eq!(status, ["changed", "changed", "not_indexed"], "{out}");
    assert_eq!(out["all_applicable"], false);
}

#[test]
fn without_an_index_the_rag_tools_say_how_to_build_one() {
    let mut h = Harness::new();
    let err = h.run("rag.search", json!({"query": "x"})).unwrap_err().failed();
    assert!(err.contains("smart index update"), "{err}");
}
