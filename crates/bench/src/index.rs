//! RAG++: indexing a generated home folder and querying it.
//!
//! The index's promises are "fast enough to keep up with a person's folders on a 2-core laptop"
//! and "answers in milliseconds". This section measures both on a tree shaped like a real one:
//! `files` entries (50,000 by default) in nested folders three and four levels deep, about 60%
//! prose (markdown and plain text, 0.5–8 KiB of words drawn with a heavy-headed, Zipf-like
//! distribution over a few hundred English words and a long tail of invented ones), 25% code of
//! the same sizes, and 15% binaries (conventional extensions, and some without one whose NUL
//! bytes must be sniffed). Modification times spread over two years. Everything comes from a
//! fixed-seed PRNG of our own, so every run indexes the same bytes.
//!
//! Measured, in order, on the same tree:
//! 1. a full index with `rebuild` (a new file, renamed into place) — files/s, MiB/s of text
//!    read, the index's size on disk;
//! 2. a first `sync_roots` into an empty index in place (the rollback-journal, fully synced path
//!    a first run takes without `rebuild`);
//! 3. a no-change re-sync (the walk and stat of every entry, nothing read);
//! 4. `update_paths` for 100 edited files, as a watcher would report them;
//! 5. query latency over ≥500 queries of 1–3 words drawn like the text, without and with a
//!    path-prefix filter (one top-level folder, about an eighth of the tree).
//!
//! `--index-files N` sets the tree size; `--quick` uses 2,000.

use crate::Summary;
use crate::stats::{bytes, int, rate};
use anyhow::{Context, Result, bail};
use smart_index::{Index, Limits, Query, rebuild};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, UNIX_EPOCH};

/// The bench's "now" (2025-06-15); file times are spread over the two years before it.
const NOW: u64 = 1_750_000_000_000;
const DAY: u64 = 24 * 60 * 60 * 1000;

/// SplitMix64: small, fast, and good enough to make varied, reproducible trees.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }
}

const COMMON: &[&str] = &[
    "the",
    "of",
    "and",
    "to",
    "in",
    "is",
    "for",
    "that",
    "with",
    "on",
    "as",
    "it",
    "be",
    "this",
    "by",
    "are",
    "from",
    "at",
    "or",
    "an",
    "was",
    "we",
    "will",
    "can",
    "not",
    "have",
    "all",
    "our",
    "has",
    "more",
    "new",
    "one",
    "about",
    "project",
    "meeting",
    "notes",
    "budget",
    "report",
    "plan",
    "draft",
    "review",
    "team",
    "client",
    "invoice",
    "contract",
    "schedule",
    "design",
    "research",
    "summary",
    "agenda",
    "travel",
    "receipt",
    "tax",
    "insurance",
    "health",
    "doctor",
    "school",
    "recipe",
    "garden",
    "house",
    "rent",
    "lease",
    "car",
    "bank",
    "account",
    "payment",
    "quarter",
    "annual",
    "monthly",
    "weekly",
    "daily",
    "goals",
    "ideas",
    "todo",
    "list",
    "book",
    "reading",
    "music",
    "photo",
    "family",
    "birthday",
    "holiday",
    "trip",
    "flight",
    "hotel",
    "booking",
    "ticket",
    "order",
    "delivery",
    "shipping",
    "product",
    "launch",
    "marketing",
    "sales",
    "customer",
    "support",
    "issue",
    "bug",
    "release",
    "version",
    "update",
    "migration",
    "database",
    "server",
    "backup",
    "password",
    "security",
    "network",
    "email",
    "letter",
    "application",
    "interview",
    "resume",
    "salary",
    "benefits",
    "vacation",
    "policy",
    "process",
    "workflow",
    "template",
    "checklist",
    "timeline",
    "milestone",
    "deadline",
    "estimate",
    "forecast",
    "revenue",
    "expense",
    "profit",
    "loss",
    "statement",
    "balance",
    "credit",
    "loan",
    "mortgage",
    "property",
    "repair",
    "kitchen",
    "bathroom",
    "window",
    "paint",
    "furniture",
    "lamp",
    "table",
    "chair",
    "coffee",
    "tea",
    "dinner",
    "lunch",
    "breakfast",
    "menu",
    "grocery",
    "market",
    "store",
    "price",
    "discount",
    "sale",
    "gift",
    "wedding",
    "party",
    "guest",
    "invitation",
    "speech",
    "presentation",
    "slides",
    "chart",
    "figure",
    "data",
    "analysis",
    "model",
    "experiment",
    "result",
    "conclusion",
    "method",
    "sample",
    "survey",
    "question",
    "answer",
    "lecture",
    "course",
    "exam",
    "homework",
    "thesis",
    "paper",
    "journal",
    "article",
    "chapter",
    "story",
    "poem",
    "novel",
    "character",
    "scene",
    "script",
    "film",
    "camera",
    "lens",
    "light",
    "color",
    "sound",
    "voice",
    "song",
    "guitar",
    "piano",
    "lesson",
    "practice",
    "training",
    "running",
    "cycling",
    "swimming",
    "yoga",
    "diet",
    "sleep",
];

const SYLLABLES: &[&str] = &[
    "ka", "lo", "mer", "tin", "sa", "ve", "ro", "dan", "pel", "qui", "nor", "bex", "ul", "tra", "zen", "fo", "gri",
    "mo", "sha", "lun",
];

struct Words {
    all: Vec<String>,
}

impl Words {
    fn new() -> Words {
        let mut all: Vec<String> = COMMON.iter().map(|w| w.to_string()).collect();
        for a in SYLLABLES {
            for b in SYLLABLES {
                all.push(format!("{a}{b}"));
                for c in SYLLABLES {
                    all.push(format!("{a}{b}{c}"));
                }
            }
        }
        Words { all }
    }

    /// A word, heavily favouring the start of the list (the common words).
    fn pick<'a>(&'a self, rng: &mut Rng) -> &'a str {
        let i = (self.all.len() as f64 * rng.unit().powi(3)) as usize;
        &self.all[i.min(self.all.len() - 1)]
    }
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Shape {
    Markdown,
    Text,
    Code,
    Binary,
}

fn prose(words: &Words, rng: &mut Rng, target: usize, markdown: bool) -> String {
    let mut out = String::with_capacity(target + 64);
    if markdown {
        out.push_str(&format!("# {} {}\n\n", words.pick(rng), words.pick(rng)));
    }
    while out.len() < target {
        if markdown && rng.range(0, 9) == 0 {
            out.push_str(&format!("\n## {}\n\n- {} {}\n", words.pick(rng), words.pick(rng), words.pick(rng)));
        }
        let n = rng.range(6, 18);
        for i in 0..n {
            let w = words.pick(rng);
            if i == 0 {
                let mut c = w.chars();
                if let Some(f) = c.next() {
                    out.extend(f.to_uppercase());
                    out.push_str(c.as_str());
                }
            } else {
                out.push(' ');
                out.push_str(w);
            }
        }
        out.push_str(if rng.range(0, 4) == 0 { ".\n\n" } else { ". " });
    }
    out
}

fn code(words: &Words, rng: &mut Rng, target: usize) -> String {
    let mut out = String::with_capacity(target + 128);
    while out.len() < target {
        let (a, b, c) = (words.pick(rng), words.pick(rng), words.pick(rng));
        match rng.range(0, 3) {
            0 => out.push_str(&format!(
                "fn {a}_{b}(x: u32) -> u32 {{\n    let {c} = x + {};\n    {c}\n}}\n\n",
                rng.range(1, 99)
            )),
            1 => out.push_str(&format!("// {a} {b} {c}: keep in sync with the {} module\n", words.pick(rng))),
            2 => out.push_str(&format!("struct {}{} {{ {c}: Vec<String> }}\n", capital(a), capital(b))),
            _ => out.push_str(&format!("if {a}.{b}() {{ return Err(\"{c} failed\".into()); }}\n")),
        }
    }
    out
}

fn capital(w: &str) -> String {
    let mut c = w.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// What the generator made.
struct Tree {
    root: PathBuf,
    /// Every file's path, in creation order, with its shape.
    files: Vec<(PathBuf, Shape)>,
    /// The top-level folders (path-prefix filters use them).
    tops: Vec<PathBuf>,
    bytes: u64,
}

fn generate(base: &Path, n: u64, words: &Words) -> Result<Tree> {
    let root = base.join("home");
    let mut rng = Rng(0x5EED_1DE7);
    let tops_names = ["projects", "archive", "notes", "work", "personal", "finance", "school", "travel"];
    let leaves = (n / 60).max(8);
    let per_leaf = n.div_ceil(leaves);
    let mut tree = Tree { root: root.clone(), files: Vec::with_capacity(n as usize), tops: Vec::new(), bytes: 0 };
    for t in tops_names {
        tree.tops.push(root.join(t));
    }
    let mut made = 0u64;
    for leaf in 0..leaves {
        let top = tops_names[(leaf % 8) as usize];
        let mid = format!("{}-{}", words.all[(leaf / 8 % 10) as usize + 33], leaf / 8 % 10);
        let low = format!("{}{}", words.all[(leaf / 80) as usize % 150 + 33], leaf / 80);
        let mut dir = root.join(top).join(mid).join(low);
        if leaf % 4 == 0 {
            dir.push(words.all[(leaf % 150) as usize + 33].clone());
        }
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        for _ in 0..per_leaf {
            if made == n {
                break;
            }
            let r = rng.range(0, 99);
            let shape = match r {
                0..=34 => Shape::Markdown,
                35..=59 => Shape::Text,
                60..=84 => Shape::Code,
                _ => Shape::Binary,
            };
            let stem = format!("{}_{}-{made}", words.pick(&mut rng), words.pick(&mut rng));
            let size = rng.range(512, 8 * 1024) as usize;
            let (name, body): (String, Vec<u8>) = match shape {
                Shape::Markdown => (format!("{stem}.md"), prose(words, &mut rng, size, true).into_bytes()),
                Shape::Text => (format!("{stem}.txt"), prose(words, &mut rng, size, false).into_bytes()),
                Shape::Code => {
                    let ext = ["rs", "py", "js", "go"][rng.range(0, 3) as usize];
                    (format!("{stem}.{ext}"), code(words, &mut rng, size).into_bytes())
                }
                Shape::Binary => {
                    let ext = ["png", "pdf", "zip", "jpg", "bin", ""][rng.range(0, 5) as usize];
                    let len = rng.range(1024, 32 * 1024) as usize;
                    let mut b = Vec::with_capacity(len);
                    while b.len() < len {
                        b.extend_from_slice(&rng.next().to_le_bytes());
                    }
                    b[16] = 0;
                    let name = if ext.is_empty() { stem } else { format!("{stem}.{ext}") };
                    (name, b)
                }
            };
            let path = dir.join(name);
            std::fs::write(&path, &body).with_context(|| format!("writing {}", path.display()))?;
            let age = rng.range(0, 730 * DAY);
            let f = std::fs::File::options().write(true).open(&path)?;
            f.set_modified(UNIX_EPOCH + Duration::from_millis(NOW - age))?;
            tree.bytes += body.len() as u64;
            tree.files.push((path, shape));
            made += 1;
        }
    }
    Ok(tree)
}

/// Nearest-rank percentile of sorted nanoseconds, in ms.
fn pct(sorted: &[u64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i] as f64 / 1e6
}

struct Latency {
    p50: f64,
    p95: f64,
    p99: f64,
    max: f64,
    mean_hits: f64,
    fallback: usize,
}

fn queries(index: &Index, texts: &[String], prefix: Option<&Path>) -> Result<Latency> {
    let mut ns = Vec::with_capacity(texts.len());
    let (mut hits, mut fallback) = (0usize, 0usize);
    for t in texts {
        let q =
            Query { path_prefix: prefix.map(|p| p.to_string_lossy().into_owned()), limit: 10, ..Query::new(t.clone()) };
        let started = Instant::now();
        let found = index.search(&q, NOW)?;
        ns.push(started.elapsed().as_nanos() as u64);
        hits += found.len();
        fallback += usize::from(found.first().is_some_and(|h| !h.all_words));
    }
    ns.sort_unstable();
    Ok(Latency {
        p50: pct(&ns, 0.50),
        p95: pct(&ns, 0.95),
        p99: pct(&ns, 0.99),
        max: pct(&ns, 1.0),
        mean_hits: hits as f64 / texts.len().max(1) as f64,
        fallback,
    })
}

fn size_of(p: &Path) -> u64 {
    std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)
}

pub fn run(files: u64, quick: bool, dir: &Path, s: &mut Summary) -> Result<()> {
    println!("\n== index: RAG++ on a generated {}-file tree, indexed and queried ==", int(files));
    let words = Words::new();
    let started = Instant::now();
    let tree = generate(dir, files, &words)?;
    let count = |sh: Shape| tree.files.iter().filter(|f| f.1 == sh).count() as u64;
    println!(
        "   tree: {} files ({} markdown, {} text, {} code, {} binary), {} in {} top folders; generated in {:.1} s",
        int(tree.files.len() as u64),
        int(count(Shape::Markdown)),
        int(count(Shape::Text)),
        int(count(Shape::Code)),
        int(count(Shape::Binary)),
        bytes(tree.bytes),
        tree.tops.len(),
        started.elapsed().as_secs_f64()
    );
    let roots = vec![tree.root.clone()];
    let limits = Limits::default();
    let data = dir.join("index-data");
    std::fs::create_dir_all(&data)?;
    let path = data.join("index.sqlite");

    // 1. Full index into a new file.
    let t = Instant::now();
    let report = rebuild(&path, &roots, &limits, NOW, &mut |_| {})?;
    let full = t.elapsed();
    if report.added != tree.files.len() as u64 || report.skipped_total != 0 {
        bail!("the rebuild indexed {} of {} files ({} skipped)", report.added, tree.files.len(), report.skipped_total);
    }
    let index = Index::open(&path)?;
    let st = index.stats()?;
    let fps = report.added as f64 / full.as_secs_f64();
    let text_mibs = st.text_bytes as f64 / (1024.0 * 1024.0) / full.as_secs_f64();
    let disk = size_of(&path);
    println!(
        "   full index (rebuild): {:.2} s — {} files/s, {:.1} MiB/s of text ({} text files, {} of text read; binaries by name)",
        full.as_secs_f64(),
        rate(fps),
        text_mibs,
        int(st.text_files),
        bytes(st.text_bytes)
    );
    println!(
        "   index file: {} ({:.2}× the text it holds; {} bytes/entry)",
        bytes(disk),
        disk as f64 / st.text_bytes.max(1) as f64,
        int(disk / st.files.max(1))
    );

    // 2. First sync into an empty index in place (journal, full syncs per batch).
    let inplace = data.join("inplace.sqlite");
    let mut fresh = Index::open(&inplace)?;
    let t = Instant::now();
    let r = fresh.sync_roots(&roots, &limits, NOW, &mut |_| {})?;
    let first = t.elapsed();
    drop(fresh);
    let first_fps = r.added as f64 / first.as_secs_f64();
    println!(
        "   first sync_roots into an empty index in place: {:.2} s — {} files/s ({} on disk, segments not merged)",
        first.as_secs_f64(),
        rate(first_fps),
        bytes(size_of(&inplace))
    );
    std::fs::remove_file(&inplace)?;

    // 3. A re-sync with nothing changed.
    let mut index = index;
    let t = Instant::now();
    let r = index.sync_roots(&roots, &limits, NOW, &mut |_| {})?;
    let nochange = t.elapsed();
    if r.unchanged != tree.files.len() as u64 {
        bail!("the no-change re-sync reported {} unchanged of {}", r.unchanged, tree.files.len());
    }
    println!(
        "   no-change re-sync: {:.0} ms ({} entries stat'ed, none read)",
        nochange.as_secs_f64() * 1e3,
        int(r.scanned)
    );

    // 4. 100 edited files, reported as a watcher would.
    let prose_files: Vec<&PathBuf> =
        tree.files.iter().filter(|f| matches!(f.1, Shape::Markdown | Shape::Text)).map(|f| &f.0).collect();
    let edited: Vec<PathBuf> =
        prose_files.iter().step_by((prose_files.len() / 100).max(1)).take(100).map(|p| (*p).clone()).collect();
    for p in &edited {
        let mut text = std::fs::read_to_string(p)?;
        text.push_str("\nedited benchmarkword\n");
        std::fs::write(p, text)?;
        std::fs::File::options().write(true).open(p)?.set_modified(UNIX_EPOCH + Duration::from_millis(NOW))?;
    }
    let t = Instant::now();
    let r = index.update_paths(&roots, &edited, &limits, NOW)?;
    let incremental = t.elapsed();
    if r.updated != edited.len() as u64 {
        bail!("update_paths re-read {} of {} edited files", r.updated, edited.len());
    }
    let found = index.search(&Query { limit: 1000, ..Query::new("benchmarkword") }, NOW)?.len();
    if found != edited.len() {
        bail!("the edit word is found in {found} files, not {}", edited.len());
    }
    println!(
        "   update_paths for {} edited files: {:.0} ms ({:.2} ms/file)",
        edited.len(),
        incremental.as_secs_f64() * 1e3,
        incremental.as_secs_f64() * 1e3 / edited.len() as f64
    );

    // 5. Queries.
    let n_queries = if quick { 200 } else { 600 };
    let mut rng = Rng(0x0051_1E5E);
    let texts: Vec<String> = (0..n_queries)
        .map(|_| (0..rng.range(1, 3)).map(|_| words.pick(&mut rng).to_string()).collect::<Vec<_>>().join(" "))
        .collect();
    // One untimed pass warms SQLite's page cache, as a running app's would be.
    queries(&index, &texts[..texts.len().min(50)], None)?;
    let plain = queries(&index, &texts, None)?;
    let top = tree.tops[1].clone();
    let filtered = queries(&index, &texts, Some(&top))?;
    for (label, l) in [("no filter", &plain), ("path prefix (1/8 of the tree)", &filtered)] {
        println!(
            "   query, {label}: p50 {:.2} ms  p95 {:.2} ms  p99 {:.2} ms  max {:.2} ms  ({} queries of 1–3 words, limit 10, {:.1} hits on average, {} via the any-word fallback)",
            l.p50, l.p95, l.p99, l.max, n_queries, l.mean_hits, l.fallback
        );
    }

    s.add(
        &format!("index: full build, {} files (files/s)", int(files)),
        format!("{} ({:.1} s, {:.1} MiB/s of text)", rate(fps), full.as_secs_f64(), text_mibs),
    );
    s.add("index: first in-place sync (files/s)", format!("{} ({:.1} s)", rate(first_fps), first.as_secs_f64()));
    s.add("index: file size", format!("{} ({} of text indexed)", bytes(disk), bytes(st.text_bytes)));
    s.add("index: no-change re-sync", format!("{:.0} ms", nochange.as_secs_f64() * 1e3));
    s.add("index: update_paths, 100 edited files", format!("{:.0} ms", incremental.as_secs_f64() * 1e3));
    s.add("index: query p50 / p95 / p99", format!("{:.2} / {:.2} / {:.2} ms", plain.p50, plain.p95, plain.p99));
    s.add(
        "index: query with path prefix p50 / p95 / p99",
        format!("{:.2} / {:.2} / {:.2} ms", filtered.p50, filtered.p95, filtered.p99),
    );
    Ok(())
}
