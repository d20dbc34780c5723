//! Rows in, rows out: every statement that touches `docs` and `docs_fts`.
//!
//! The two tables move together — a row in `docs` always has the FTS row with the same rowid —
//! so every write goes through the pair of functions here ([`put`], [`remove`]) and nothing else
//! in the crate writes SQL. Readers ([`doc`], [`text_of`], [`stats`]) are what `Index` exposes.
//!
//! Prefix queries ("everything below this folder") are range scans on the unique path index:
//! `path >= 'dir/' AND path < 'dir0'` (`0` is the character after `/`), which matches exactly
//! the paths below `dir` and none beside it (`dir2/...`), with no `LIKE` wildcards to escape.

use crate::error::IndexError;
use crate::extract::{Extracted, Stamp};
use crate::kind::Kind;
use crate::roots::SEP;
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// The character right after [`SEP`], the exclusive end of a "below this folder" range.
const AFTER_SEP: char = if SEP == '/' { '0' } else { ']' };

/// One indexed entry's record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Doc {
    pub path: String,
    pub kind: Kind,
    pub size: u64,
    pub modified_ms: u64,
    /// Hex blake3 of the indexed text's bytes; `None` when the file was not read whole.
    pub blake3: Option<String>,
    /// Whether the entry's words are in the index (textual and within the size limit).
    pub text_indexed: bool,
    pub indexed_at_ms: u64,
}

/// What the index holds, in totals.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// Entries (files, symlinks, special files).
    pub files: u64,
    /// Entries whose text is indexed.
    pub text_files: u64,
    /// Bytes of text indexed.
    pub text_bytes: u64,
    /// Bytes of every indexed entry, as their sizes say.
    pub total_bytes: u64,
    /// Entries per kind, by kind name.
    pub by_kind: BTreeMap<String, u64>,
    /// `now_ms` of the last completed `sync_roots` (or `rebuild`).
    pub last_sync_ms: Option<u64>,
}

/// What the index knows about an entry when deciding whether it changed.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Existing {
    pub id: i64,
    pub stamp: Stamp,
}

pub(crate) fn int(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

pub(crate) fn nat(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// The bounds of the paths strictly below `path`.
pub(crate) fn below(path: &str) -> (String, String) {
    (format!("{path}{SEP}"), format!("{path}{AFTER_SEP}"))
}

fn existing(r: &rusqlite::Row<'_>) -> rusqlite::Result<(String, Existing)> {
    let stamp = Stamp { size: nat(r.get(2)?), mtime_ns: r.get(3)? };
    Ok((r.get(0)?, Existing { id: r.get(1)?, stamp }))
}

/// Every entry, by path.
pub(crate) fn load_all(conn: &Connection) -> Result<HashMap<String, Existing>, IndexError> {
    let mut st = conn.prepare("SELECT path, id, size, mtime_ns FROM docs")?;
    let rows = st.query_map([], existing)?;
    Ok(rows.collect::<Result<HashMap<_, _>, _>>()?)
}

/// The entry at `path` (when `include_self`) and every entry below it, by path.
pub(crate) fn load_under(
    conn: &Connection,
    path: &str,
    include_self: bool,
) -> Result<HashMap<String, Existing>, IndexError> {
    let (lo, hi) = below(path);
    let mut st = conn.prepare_cached("SELECT path, id, size, mtime_ns FROM docs WHERE path >= ?1 AND path < ?2")?;
    let mut out = st.query_map(params![lo, hi], existing)?.collect::<Result<HashMap<_, _>, _>>()?;
    if include_self && let Some(e) = lookup(conn, path)? {
        out.insert(path.to_string(), e);
    }
    Ok(out)
}

/// The entry at exactly `path`.
pub(crate) fn lookup(conn: &Connection, path: &str) -> Result<Option<Existing>, IndexError> {
    let mut st = conn.prepare_cached("SELECT path, id, size, mtime_ns FROM docs WHERE path = ?1")?;
    Ok(st.query_row([path], existing).optional()?.map(|(_, e)| e))
}

/// The words a file's name is searched by: the name itself, plus its camel-case humps split
/// (`BudgetFinal.rs` is also `Budget Final`), which the tokenizer would keep together.
pub(crate) fn name_words(name: &str) -> String {
    let mut split = String::with_capacity(name.len() + 8);
    let mut humps = false;
    let mut prev: Option<char> = None;
    for c in name.chars() {
        if let Some(p) = prev
            && p.is_lowercase()
            && c.is_uppercase()
        {
            split.push(' ');
            humps = true;
        }
        split.push(c);
        prev = Some(c);
    }
    if humps { format!("{name} {split}") } else { name.to_string() }
}

/// Writes an entry: updates the row at `path` (whose id the caller knows as `id`), or inserts.
pub(crate) fn put(
    conn: &Connection,
    id: Option<i64>,
    path: &str,
    name: &str,
    folders: &str,
    x: &Extracted,
    now_ms: u64,
) -> Result<(), IndexError> {
    let size = int(x.stamp.size);
    let modified = int(x.stamp.modified_ms());
    let text_indexed = x.text.is_some();
    // One upsert keyed by path (the row id is kept on update, so the text row keyed by it is
    // replaced below); the old text row, if any, goes first.
    if let Some(id) = id {
        conn.prepare_cached("DELETE FROM docs_fts WHERE rowid = ?1")?.execute([id])?;
    }
    let id: i64 = conn
        .prepare_cached(
            "INSERT INTO docs (path, kind, size, mtime_ns, modified_ms, blake3, text_indexed, indexed_at_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
             ON CONFLICT (path) DO UPDATE SET kind = excluded.kind, size = excluded.size,
                 mtime_ns = excluded.mtime_ns, modified_ms = excluded.modified_ms, blake3 = excluded.blake3,
                 text_indexed = excluded.text_indexed, indexed_at_ms = excluded.indexed_at_ms
             RETURNING id",
        )?
        .query_row(
            params![path, x.kind.as_str(), size, x.stamp.mtime_ns, modified, x.blake3, text_indexed, int(now_ms)],
            |r| r.get(0),
        )?;
    conn.prepare_cached("INSERT INTO docs_fts (rowid, name, folders, body) VALUES (?1, ?2, ?3, ?4)")?
        .execute(params![id, name_words(name), folders, x.text.as_deref().unwrap_or("")])?;
    Ok(())
}

/// Removes the entry with row `id`.
pub(crate) fn remove(conn: &Connection, id: i64) -> Result<(), IndexError> {
    conn.prepare_cached("DELETE FROM docs_fts WHERE rowid = ?1")?.execute([id])?;
    conn.prepare_cached("DELETE FROM docs WHERE id = ?1")?.execute([id])?;
    Ok(())
}

/// Removes the entry at `path` and everything below it; returns how many.
pub(crate) fn remove_under(conn: &Connection, path: &str) -> Result<u64, IndexError> {
    let gone = load_under(conn, path, true)?;
    for e in gone.values() {
        remove(conn, e.id)?;
    }
    Ok(gone.len() as u64)
}

/// How many entries the index holds.
pub(crate) fn count(conn: &Connection) -> Result<u64, IndexError> {
    Ok(nat(conn.query_row("SELECT count(*) FROM docs", [], |r| r.get(0))?))
}

pub(crate) fn meta_get(conn: &Connection, key: &str) -> Result<Option<String>, IndexError> {
    Ok(conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0)).optional()?)
}

pub(crate) fn meta_set(conn: &Connection, key: &str, value: &str) -> Result<(), IndexError> {
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = ?2",
        [key, value],
    )?;
    Ok(())
}

fn kind_of(s: &str) -> Kind {
    Kind::parse(s).unwrap_or(Kind::Other)
}

pub(crate) fn doc(conn: &Connection, path: &str) -> Result<Option<Doc>, IndexError> {
    let mut st = conn.prepare_cached(
        "SELECT path, kind, size, modified_ms, blake3, text_indexed, indexed_at_ms FROM docs WHERE path = ?1",
    )?;
    let found = st
        .query_row([path], |r| {
            Ok(Doc {
                path: r.get(0)?,
                kind: kind_of(&r.get::<_, String>(1)?),
                size: nat(r.get(2)?),
                modified_ms: nat(r.get(3)?),
                blake3: r.get(4)?,
                text_indexed: r.get(5)?,
                indexed_at_ms: nat(r.get(6)?),
            })
        })
        .optional()?;
    Ok(found)
}

pub(crate) fn text_of(conn: &Connection, path: &str) -> Result<Option<String>, IndexError> {
    let mut st = conn.prepare_cached(
        "SELECT f.body FROM docs d JOIN docs_fts f ON f.rowid = d.id WHERE d.path = ?1 AND d.text_indexed",
    )?;
    Ok(st.query_row([path], |r| r.get(0)).optional()?)
}

pub(crate) fn stats(conn: &Connection) -> Result<Stats, IndexError> {
    let mut out = Stats::default();
    let mut st = conn.prepare(
        "SELECT kind, count(*), sum(size), sum(CASE WHEN text_indexed THEN 1 ELSE 0 END),
                sum(CASE WHEN text_indexed THEN size ELSE 0 END)
         FROM docs GROUP BY kind",
    )?;
    let mut rows = st.query([])?;
    while let Some(r) = rows.next()? {
        let n = nat(r.get(1)?);
        out.files += n;
        out.total_bytes += nat(r.get(2)?);
        out.text_files += nat(r.get(3)?);
        out.text_bytes += nat(r.get(4)?);
        out.by_kind.insert(r.get(0)?, n);
    }
    out.last_sync_ms = meta_get(conn, "last_sync_ms")?.and_then(|v| v.parse().ok());
    Ok(out)
}
