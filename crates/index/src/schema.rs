//! The index file: its tables, its journal, and refusing files that are not an index.
//!
//! Two tables hold everything. `docs` is one row per entry with the facts a filter or a change
//! check needs (path, kind, size, modification time, hash). `docs_fts` is an FTS5 table with the
//! same rowid and three columns — the file's `name`, its `folders` (the root's name and the
//! folders between it and the file) and its `body` text — so bm25 can weigh a hit in a name
//! above one in a folder above one in the text. It stores its own copy of the text, which is
//! what `text_of` returns and what snippets are cut from. The tokenizer is `unicode61` with
//! `remove_diacritics 2`: words split at anything that is not a letter or digit (so
//! `budget_2024-final.md` gives `budget`, `2024`, `final`, `md`), case and accents folded
//! (`résumé` finds `resume`).
//!
//! **Journal mode.** The index uses SQLite's rollback journal (`journal_mode=DELETE`), not WAL.
//! `rebuild` replaces the file by renaming a new one over it while other connections may still
//! have the old one open, and WAL's side files are found *by name*: a connection opening the
//! new file would adopt the old file's `-wal` and `-shm` (SQLite opens a `-wal` it finds
//! regardless of the header), and the last connection to the old file deletes `-wal` and `-shm`
//! by name when it closes — the new file's, by then. A rollback journal exists only while a
//! write is in progress and nothing of it outlives a connection, so a rename over the file is
//! safe as long as connections notice it (see `Index`, which reopens when the file at its path
//! is no longer the one it opened). Readers still read while a sync runs; they wait only for
//! the moment of each batch's commit.
//!
//! A rebuild's file is written with no journal and no syncs (a crash leaves only a temporary
//! file that the next rebuild deletes), then switched to the normal journal, closed and fsynced
//! before it is renamed into place.
//!
//! The schema version lives in `PRAGMA user_version`. A SQLite file with tables but no version
//! is not an index — pointing the index at the ledger must fail without touching it.

use crate::error::IndexError;
use rusqlite::{Connection, OpenFlags};
use std::path::Path;

/// The schema this build reads and writes.
pub(crate) const VERSION: i64 = 1;

const DDL: &str = "
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE docs (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    modified_ms INTEGER NOT NULL,
    blake3 TEXT,
    text_indexed INTEGER NOT NULL,
    indexed_at_ms INTEGER NOT NULL
);
CREATE VIRTUAL TABLE docs_fts USING fts5(
    name, folders, body,
    tokenize = 'unicode61 remove_diacritics 2'
);
PRAGMA user_version = 1;
";

/// How a connection is used.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// The index in place: rollback journal, full syncs.
    Live,
    /// A rebuild's temporary file: no journal, no syncs, a large cache.
    Build,
}

/// How long a connection waits for another's lock before it gives up.
pub(crate) const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Opens (creating if missing) the index at `path` and checks or creates its schema.
pub(crate) fn connect(path: &Path, mode: Mode) -> Result<Connection, IndexError> {
    let corrupt = |reason: String| IndexError::Corrupt { path: path.to_path_buf(), reason };
    if path.is_dir() {
        return Err(corrupt("it is a folder".into()));
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).map_err(|e| IndexError::Io {
        step: "open",
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(|e| corrupt(e.to_string()))?;
    // Refuse what is not an index before anything can write to it: even setting the journal
    // mode rewrites the header of a WAL database. Reading the version also reads the header,
    // so a file that is not SQLite fails here.
    check_version(&conn, path).map_err(|e| match e {
        IndexError::Sql(e) => corrupt(e.to_string()),
        other => other,
    })?;
    let want = match mode {
        Mode::Live => "delete",
        Mode::Build => "off",
    };
    let got: String =
        conn.query_row(&format!("PRAGMA journal_mode={want}"), [], |r| r.get(0)).map_err(|e| corrupt(e.to_string()))?;
    if !got.eq_ignore_ascii_case(want) {
        return Err(corrupt(format!("cannot set journal_mode={want} (it is {got}; is another program using it?)")));
    }
    match mode {
        Mode::Live => {
            conn.pragma_update(None, "synchronous", "FULL")?;
            conn.pragma_update(None, "cache_size", -16_000)?;
        }
        Mode::Build => {
            conn.pragma_update(None, "synchronous", "OFF")?;
            conn.pragma_update(None, "cache_size", -64_000)?;
        }
    }
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    ensure_schema(&conn, path)?;
    Ok(conn)
}

/// Whether the file is this version's index (`true`) or empty (`false`); an error for a file of
/// another version or a database that is not an index.
fn check_version(conn: &Connection, path: &Path) -> Result<bool, IndexError> {
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version == VERSION {
        return Ok(true);
    }
    if version != 0 {
        return Err(IndexError::Schema { path: path.to_path_buf(), found: version, expected: VERSION });
    }
    let tables: i64 = conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?;
    if tables != 0 {
        return Err(IndexError::Corrupt {
            path: path.to_path_buf(),
            reason: "it is a SQLite file, but not an index".into(),
        });
    }
    Ok(false)
}

/// Creates the schema in an empty file (checking again under the write lock, in case another
/// connection created it meanwhile).
fn ensure_schema(conn: &Connection, path: &Path) -> Result<(), IndexError> {
    conn.execute_batch("BEGIN IMMEDIATE")?;
    let result = check_version(conn, path).and_then(|ready| if ready { Ok(()) } else { Ok(conn.execute_batch(DDL)?) });
    match result {
        Ok(()) => {
            conn.execute_batch("COMMIT")?;
            Ok(())
        }
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}

/// Why the existing file at `path` must not be replaced by an index, if it must not: it is a
/// readable SQLite database with tables, none of them an index's. A file that cannot be read as
/// SQLite at all is a damaged index as far as `rebuild` is concerned (curing that is its job).
pub(crate) fn foreign(path: &Path) -> Option<String> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).ok()?;
    let mut st = conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").ok()?;
    let names: Vec<String> = st.query_map([], |r| r.get(0)).ok()?.collect::<Result<_, _>>().ok()?;
    if names.is_empty() || names.iter().any(|n| n == "docs_fts") {
        None
    } else {
        Some(format!("it is a SQLite database with other tables ({}), not an index", names.join(", ")))
    }
}

/// Makes a rebuild's file ready to be renamed into place: the normal journal, merged FTS
/// segments, and everything on disk once the connection is closed.
pub(crate) fn finish_build(conn: &Connection, path: &Path) -> Result<(), IndexError> {
    conn.execute_batch("INSERT INTO docs_fts(docs_fts) VALUES('optimize');")?;
    let got: String = conn.query_row("PRAGMA journal_mode=delete", [], |r| r.get(0))?;
    if !got.eq_ignore_ascii_case("delete") {
        return Err(IndexError::Corrupt {
            path: path.to_path_buf(),
            reason: format!("cannot set journal_mode=delete on the rebuilt index (it is {got})"),
        });
    }
    Ok(())
}
