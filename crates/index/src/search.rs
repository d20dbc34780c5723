//! Answering a query: match, filter, rank, cut snippets.
//!
//! One SQL statement finds the candidates: the FTS5 match (driving, through a `CROSS JOIN` so
//! SQLite cannot choose to scan `docs` first), the filters on `docs` (path prefix as a range on
//! the path index, kind, modified-since), and bm25 with the column weights of [`crate::rank`].
//! The recency factor and the final order are computed here, in Rust, where the half-life
//! formula and the path tie-break are plain code rather than SQL arithmetic. Only what ranking
//! needs crosses into Rust for each match (id, path, time, bm25); the best `limit` are picked in
//! linear time, and only they get their details and snippet, in one more statement (the
//! snippet cut in one pass by [`crate::snippet`]: `«` and `»` around the first matched word,
//! `…` where text was cut, 12 words).
//!
//! **Cost.** bm25 is computed for every match, so a query costs in proportion to how many
//! entries its words match (a few µs each on a 2-core laptop). A selective word, or several
//! words under AND, is a few milliseconds on 50,000 files; a lone word found in most of the tree
//! ("the", "project") is the slow case, tens to a couple of hundred milliseconds. bm25 itself
//! gives such a word almost no weight (its IDF is clamped near zero once it is in half the
//! rows), so those hits are ordered mostly by recency.
//!
//! Nothing found by the AND query (after filters) → the same with OR; see [`crate::query`].

use crate::error::IndexError;
use crate::kind::Kind;
use crate::query::{self, MAX_LIMIT, Query};
use crate::rank;
use crate::roots::SEP;
use crate::store::{below, int, nat};
use rusqlite::{Connection, params};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// One search result, with the parts of its score.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    pub path: String,
    pub kind: Kind,
    pub size: u64,
    pub modified_ms: u64,
    /// Hex blake3 of the indexed text; `None` when the file was not read whole.
    pub blake3: Option<String>,
    /// `bm25 × (1 + RECENCY_WEIGHT × recency)`: what the hits are ordered by.
    pub score: f64,
    /// Text relevance (FTS5 bm25, weighted by column, higher is better).
    pub bm25: f64,
    /// `0.5^(age / HALF_LIFE)`, in (0, 1].
    pub recency: f64,
    /// The best-matching passage of the name, folders or text, matches in `«…»`.
    pub snippet: String,
    /// Whether every query word matched (false: the OR fallback found this).
    pub all_words: bool,
}

/// What ranking needs of a match; the rest is fetched for the hits returned only.
struct Candidate {
    id: i64,
    path: String,
    modified_ms: i64,
    bm25: f64,
}

const CANDIDATES: &str = "
SELECT d.id, d.path, d.modified_ms, bm25(docs_fts, ?7, ?8, ?9)
FROM docs_fts CROSS JOIN docs d ON d.id = docs_fts.rowid
WHERE docs_fts MATCH ?1
  AND (?2 IS NULL OR d.path = ?2 OR (d.path >= ?3 AND d.path < ?4))
  AND (?5 IS NULL OR d.kind = ?5)
  AND (?6 IS NULL OR d.modified_ms >= ?6)";

/// The rest of each returned hit, by id; the snippet is cut from the text in Rust
/// ([`crate::snippet`]), because FTS5's `snippet()` is quadratic on a long text with many
/// matches.
const DETAILS: &str = "
SELECT d.id, d.kind, d.size, d.blake3, f.body, f.name
FROM docs d JOIN docs_fts f ON f.rowid = d.id
WHERE d.id IN (SELECT value FROM json_each(?1))";

fn candidates(conn: &Connection, expr: &str, q: &Query) -> Result<Vec<Candidate>, IndexError> {
    // Stored paths use the system's separator; Windows also takes `/` (`C:\docs/a`), so a
    // prefix written with it is read the same way.
    let native =
        q.path_prefix.as_deref().map(|p| if SEP == '/' { p.to_string() } else { p.replace('/', &SEP.to_string()) });
    let prefix = native.as_deref().map(|p| p.trim_end_matches(SEP)).filter(|p| !p.is_empty());
    let (lo, hi) = prefix.map(below).unzip();
    let mut st = conn.prepare_cached(CANDIDATES)?;
    let rows = st.query_map(
        params![
            expr,
            prefix,
            lo,
            hi,
            q.kind.map(Kind::as_str),
            q.modified_since_ms.map(int),
            rank::NAME_WEIGHT,
            rank::FOLDERS_WEIGHT,
            rank::BODY_WEIGHT
        ],
        |r| Ok(Candidate { id: r.get(0)?, path: r.get(1)?, modified_ms: r.get(2)?, bm25: -r.get::<_, f64>(3)? }),
    )?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

/// The parts of a hit not needed for ranking.
struct Details {
    kind: String,
    size: i64,
    blake3: Option<String>,
    snippet: String,
}

/// The details of each of `ids`, by id.
fn details(conn: &Connection, words: &[String], ids: &[i64]) -> Result<HashMap<i64, Details>, IndexError> {
    let list = format!("[{}]", ids.iter().map(i64::to_string).collect::<Vec<_>>().join(","));
    let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    let mut st = conn.prepare_cached(DETAILS)?;
    let rows = st.query_map(params![list], |r| {
        let body: Option<String> = r.get(4)?;
        let name: Option<String> = r.get(5)?;
        let snippet = match body.as_deref().filter(|b| !b.is_empty()) {
            Some(b) => crate::snippet::snippet(b, &lower),
            None => crate::snippet::snippet(name.as_deref().unwrap_or_default(), &lower),
        };
        Ok((r.get(0)?, Details { kind: r.get(1)?, size: r.get(2)?, blake3: r.get(3)?, snippet }))
    })?;
    Ok(rows.collect::<Result<HashMap<_, _>, _>>()?)
}

pub(crate) fn search(conn: &Connection, q: &Query, now_ms: u64) -> Result<Vec<Hit>, IndexError> {
    let words = query::words(&q.text)?;
    let limit = q.limit.min(MAX_LIMIT);
    if limit == 0 {
        return Ok(Vec::new());
    }
    let mut all_words = true;
    let mut expr = query::all_of(&words);
    let mut found = candidates(conn, &expr, q)?;
    if found.is_empty() && words.len() > 1 {
        all_words = false;
        expr = query::any_of(&words);
        found = candidates(conn, &expr, q)?;
    }
    let mut ranked: Vec<(f64, f64, Candidate)> = found
        .into_iter()
        .map(|c| {
            let recency = rank::recency(nat(c.modified_ms), now_ms);
            (rank::score(c.bm25, recency), recency, c)
        })
        .collect();
    let order = |a: &(f64, f64, Candidate), b: &(f64, f64, Candidate)| {
        b.0.total_cmp(&a.0).then_with(|| a.2.path.cmp(&b.2.path))
    };
    if ranked.len() > limit {
        // The best `limit` in linear time; only they are sorted.
        ranked.select_nth_unstable_by(limit - 1, order);
        ranked.truncate(limit);
    }
    ranked.sort_by(order);
    let ids: Vec<i64> = ranked.iter().map(|r| r.2.id).collect();
    let mut more = details(conn, &words, &ids)?;
    let mut hits = Vec::with_capacity(ranked.len());
    for (score, recency, c) in ranked {
        // Gone only if another connection removed it between the two statements.
        let Some(d) = more.remove(&c.id) else { continue };
        hits.push(Hit {
            path: c.path,
            kind: Kind::parse(&d.kind).unwrap_or(Kind::Other),
            size: nat(d.size),
            modified_ms: nat(c.modified_ms),
            blake3: d.blake3,
            score,
            bm25: c.bm25,
            recency,
            snippet: d.snippet,
            all_words,
        });
    }
    Ok(hits)
}
