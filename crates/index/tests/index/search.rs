//! Queries find what they should, filters narrow, and ranks can be explained.

use crate::util::*;
use smart_index::{Kind, Query, rank};

#[test]
fn path_prefix_keeps_that_folder_and_not_its_namesakes() {
    let w = World::new();
    w.write("a/x.md", "apple", 1);
    w.write("a/sub/z.md", "apple", 1);
    w.write("a2/y.md", "apple", 1);
    w.write("b.md", "apple", 1);
    let mut idx = w.open();
    w.sync(&mut idx);
    for prefix in [w.p("a"), format!("{}/", w.p("a"))] {
        let q = Query { path_prefix: Some(prefix), ..Query::new("apple") };
        let mut got = w.rel(&idx.search(&q, NOW).unwrap());
        got.sort();
        assert_eq!(got, ["a/sub/z.md", "a/x.md"]);
    }
    let q = Query { path_prefix: Some(w.p("a/x.md")), ..Query::new("apple") };
    assert_eq!(w.rel(&idx.search(&q, NOW).unwrap()), ["a/x.md"], "a file path is its own prefix");
    let q = Query { path_prefix: Some(w.p("elsewhere")), ..Query::new("apple") };
    assert!(idx.search(&q, NOW).unwrap().is_empty());
}

#[test]
fn kind_and_modified_since_filters_narrow_the_hits() {
    let w = World::new();
    w.write("old.md", "apple", 100);
    w.write("new.md", "apple", 2);
    w.write("new.rs", "// apple", 2);
    let mut idx = w.open();
    w.sync(&mut idx);
    let q = Query { kind: Some(Kind::Code), ..Query::new("apple") };
    assert_eq!(w.rel(&idx.search(&q, NOW).unwrap()), ["new.rs"]);
    let q = Query { modified_since_ms: Some(NOW - 10 * DAY), ..Query::new("apple") };
    let mut got = w.rel(&idx.search(&q, NOW).unwrap());
    got.sort();
    assert_eq!(got, ["new.md", "new.rs"]);
    let q = Query { kind: Some(Kind::Markdown), modified_since_ms: Some(NOW - 10 * DAY), ..Query::new("apple") };
    assert_eq!(w.rel(&idx.search(&q, NOW).unwrap()), ["new.md"]);
}

#[test]
fn names_and_folders_are_searchable_by_their_words() {
    let w = World::new();
    w.write("finance/budget_2024-final.md", "nothing relevant inside", 1);
    w.write("code/QuarterlyReport.rs", "fn x() {}", 1);
    let mut idx = w.open();
    w.sync(&mut idx);
    for q in ["budget", "final", "2024", "finance", "budget final", "finance/budget_2024"] {
        assert_eq!(w.find(&idx, q), ["finance/budget_2024-final.md"], "{q}");
    }
    assert_eq!(w.find(&idx, "quarterly report"), ["code/QuarterlyReport.rs"], "camel case is split");
    let root_name = w.root.file_name().unwrap().to_str().unwrap().to_string();
    assert_eq!(w.find(&idx, &root_name).len(), 2, "the root's own name is a folder word");
}

#[test]
fn case_and_accents_are_folded() {
    let w = World::new();
    w.write("cv.txt", "My Résumé for the CAFÉ job", 1);
    let mut idx = w.open();
    w.sync(&mut idx);
    assert_eq!(w.find(&idx, "resume cafe"), ["cv.txt"]);
    assert_eq!(w.find(&idx, "RÉSUMÉ"), ["cv.txt"]);
}

#[test]
fn all_words_first_then_any_word() {
    let w = World::new();
    w.write("both.txt", "alpha beta", 1);
    w.write("one.txt", "alpha", 1);
    w.write("none.txt", "gamma", 1);
    let mut idx = w.open();
    w.sync(&mut idx);
    let hits = idx.search(&Query::new("alpha beta"), NOW).unwrap();
    assert_eq!(w.rel(&hits), ["both.txt"]);
    assert!(hits[0].all_words);
    let hits = idx.search(&Query::new("alpha delta"), NOW).unwrap();
    let mut got = w.rel(&hits);
    got.sort();
    assert_eq!(got, ["both.txt", "one.txt"], "no file has both words: any word");
    assert!(hits.iter().all(|h| !h.all_words));
    assert!(w.find(&idx, "delta epsilon").is_empty());
}

#[test]
fn limit_caps_the_hits_and_snippets_mark_the_match() {
    let w = World::new();
    for i in 0..30 {
        w.write(&format!("f{i:02}.txt"), format!("the lighthouse keeper number {i} wrote this"), 1);
    }
    let mut idx = w.open();
    w.sync(&mut idx);
    let hits = idx.search(&Query { limit: 5, ..Query::new("lighthouse") }, NOW).unwrap();
    assert_eq!(hits.len(), 5);
    assert!(hits[0].snippet.contains("«lighthouse»"), "{}", hits[0].snippet);
    assert!(idx.search(&Query { limit: 0, ..Query::new("lighthouse") }, NOW).unwrap().is_empty());
    assert_eq!(idx.search(&Query { limit: 1_000_000, ..Query::new("lighthouse") }, NOW).unwrap().len(), 30);
}

#[test]
fn a_name_match_outranks_a_body_only_match() {
    let w = World::new();
    w.write("invoice.txt", "misc stuff about the month of may", 5);
    w.write("notes.txt", "misc stuff about the invoice of may", 5);
    let mut idx = w.open();
    w.sync(&mut idx);
    let hits = idx.search(&Query::new("invoice"), NOW).unwrap();
    assert_eq!(w.rel(&hits), ["invoice.txt", "notes.txt"]);
    assert!(hits[0].bm25 > hits[1].bm25, "{hits:?}");
    assert_eq!(hits[0].recency, hits[1].recency);
}

#[test]
fn newer_beats_older_at_equal_text_relevance() {
    let w = World::new();
    w.write("aa.txt", "quarterly figures attached", 200);
    w.write("bb.txt", "quarterly figures attached", 1);
    let mut idx = w.open();
    w.sync(&mut idx);
    let hits = idx.search(&Query::new("quarterly figures"), NOW).unwrap();
    assert_eq!(w.rel(&hits), ["bb.txt", "aa.txt"]);
    assert!((hits[0].bm25 - hits[1].bm25).abs() < 1e-9, "same text, same bm25: {hits:?}");
    assert!(hits[0].recency > hits[1].recency);
}

#[test]
fn equal_scores_are_ordered_by_path() {
    let w = World::new();
    for name in ["c.txt", "a.txt", "b.txt"] {
        w.write(name, "identical words", 3);
    }
    let mut idx = w.open();
    w.sync(&mut idx);
    assert_eq!(w.find(&idx, "identical"), ["a.txt", "b.txt", "c.txt"]);
}

#[test]
fn every_hit_explains_its_score() {
    let w = World::new();
    w.write("a.txt", "ledger ledger", 45);
    w.write("ledger.md", "about it", 0);
    let mut idx = w.open();
    w.sync(&mut idx);
    for h in idx.search(&Query::new("ledger"), NOW).unwrap() {
        assert!(h.bm25 > 0.0);
        assert!((h.recency - rank::recency(h.modified_ms, NOW)).abs() < 1e-12);
        assert!((h.score - h.bm25 * (1.0 + rank::RECENCY_WEIGHT * h.recency)).abs() < 1e-9);
    }
    let a = idx.search(&Query::new("ledger"), NOW).unwrap().into_iter().find(|h| h.path.ends_with("a.txt")).unwrap();
    assert!((a.recency - 0.5f64.powf(1.5)).abs() < 1e-9, "45 days is 1.5 half-lives: {}", a.recency);
}

#[test]
fn doc_text_of_and_stats_describe_the_index() {
    let w = World::new();
    w.write("a.md", "# Title\nbody", 1);
    w.write("b.rs", "fn b() {}", 1);
    w.write("c.png", "not really a png", 1);
    let mut idx = w.open();
    assert_eq!(idx.stats().unwrap().last_sync_ms, None);
    w.sync(&mut idx);
    assert_eq!(idx.text_of(&w.p("a.md")).unwrap().as_deref(), Some("# Title\nbody"));
    assert_eq!(idx.text_of(&w.p("missing.md")).unwrap(), None);
    assert_eq!(idx.doc(&w.p("missing.md")).unwrap(), None);
    let s = idx.stats().unwrap();
    assert_eq!((s.files, s.text_files, s.text_bytes, s.total_bytes), (3, 2, 21, 37));
    assert_eq!(s.by_kind.get("markdown"), Some(&1));
    assert_eq!(s.by_kind.get("binary"), Some(&1));
    assert_eq!(s.last_sync_ms, Some(NOW));
}

#[test]
fn the_vocabulary_lists_the_words_a_search_can_find_and_no_others() {
    let w = World::new();
    w.write("notes/tiles.md", "The mosaic on the Café wall, 2019 edition, id 9f3a2b", 1);
    w.write("b.txt", "glacier melt", 1);
    let mut idx = w.open();
    w.sync(&mut idx);
    let v = idx.vocabulary().unwrap();
    for word in ["mosaic", "glacier", "cafe", "wall", "tiles", "notes", "Mosaic"] {
        assert!(v.contains(word), "{word} is indexed: {:?}", v.terms);
    }
    for word in ["mistake", "2019", "9f3a2b", "later"] {
        assert!(!v.contains(word), "{word} is not a word of the index");
    }
    let mut sorted = v.terms.clone();
    sorted.sort();
    assert_eq!(sorted, v.terms);
    // Asking twice on one connection (the temp table exists by then) gives the same words.
    assert_eq!(idx.vocabulary().unwrap(), v);
    // One word at a time, as understanding asks.
    for word in ["mosaic", "Glacier", "wall"] {
        assert!(idx.holds(word).unwrap(), "{word}");
    }
    for word in ["mistake", "glaciers", "9f3a2b0"] {
        assert!(!idx.holds(word).unwrap(), "{word}");
    }
}
