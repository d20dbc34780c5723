//! `db.upsert`: a small record store, with the previous value kept for undo.
//!
//! Some things a person asks for are not files: "remember that the budget review is on
//! Friday", "mark the Q3 report as final". They go into a key-value store of JSON records in
//! SMART's data dir (`records.db`, SQLite), grouped in named collections. The store lives
//! outside the allowed roots, so `db.upsert` needs no file capability at all — only `db:write`.
//!
//! Every upsert returns the record's previous value (or that there was none) as rollback data,
//! and the hash of the value it wrote; the kernel lets undo run only while the record still holds
//! exactly that value (see [`record_hash`]), so undo never overwrites a later write.

use serde_json::{Value, json};
use smart_kernel::kernel::ToolOutput;
use smart_kernel::{AdmittedCall, Hash, hash_of};
use std::path::Path;

/// Largest stored value, in bytes of JSON.
pub const MAX_RECORD_BYTES: usize = 64 * 1024;

fn open(path: &Path) -> Result<rusqlite::Connection, String> {
    let conn = rusqlite::Connection::open(path)
        .map_err(|e| format!("cannot open the record store {}: {e}", path.display()))?;
    conn.execute_batch(
        "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;
         CREATE TABLE IF NOT EXISTS records (
             collection TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
             PRIMARY KEY (collection, key)) WITHOUT ROWID;",
    )
    .map_err(|e| format!("cannot prepare the record store {}: {e}", path.display()))?;
    Ok(conn)
}

fn get(conn: &rusqlite::Connection, collection: &str, key: &str) -> Result<Option<Value>, String> {
    let mut stmt = conn
        .prepare_cached("SELECT value FROM records WHERE collection = ?1 AND key = ?2")
        .map_err(|e| format!("cannot read the record store: {e}"))?;
    let mut rows = stmt.query([collection, key]).map_err(|e| format!("cannot read the record store: {e}"))?;
    match rows.next().map_err(|e| format!("cannot read the record store: {e}"))? {
        Some(row) => {
            let text: String = row.get(0).map_err(|e| format!("cannot read the record store: {e}"))?;
            serde_json::from_str(&text).map(Some).map_err(|e| format!("record {collection}/{key} is not JSON: {e}"))
        }
        None => Ok(None),
    }
}

fn put(conn: &rusqlite::Connection, collection: &str, key: &str, value: Option<&Value>) -> Result<(), String> {
    let done = match value {
        Some(v) => conn.execute(
            "INSERT INTO records (collection, key, value) VALUES (?1, ?2, ?3)
             ON CONFLICT (collection, key) DO UPDATE SET value = excluded.value",
            [collection, key, &v.to_string()],
        ),
        None => conn.execute("DELETE FROM records WHERE collection = ?1 AND key = ?2", [collection, key]),
    };
    done.map(|_| ()).map_err(|e| format!("cannot write the record store: {e}"))
}

/// The hash of the record's current value (canonical JSON), `None` when there is none. The
/// kernel's `World` answers undo's freshness question with this.
pub fn record_hash(path: &Path, collection: &str, key: &str) -> Result<Option<Hash>, String> {
    if !path.exists() {
        return Ok(None);
    }
    let conn = open(path)?;
    get(&conn, collection, key)?.map(|v| hash_of(&v).map_err(|e| e.to_string())).transpose()
}

/// A record's current value (for `smart records`).
pub fn record(path: &Path, collection: &str, key: &str) -> Result<Option<Value>, String> {
    if !path.exists() {
        return Ok(None);
    }
    get(&open(path)?, collection, key)
}

pub(crate) fn run(call: &AdmittedCall, path: &Path) -> Result<ToolOutput, String> {
    let args = call.args();
    let collection = args.get("collection").and_then(Value::as_str).ok_or("db.upsert needs a collection")?;
    let key = args.get("key").and_then(Value::as_str).ok_or("db.upsert needs a key")?;
    let value = args.get("value").ok_or("db.upsert needs a value")?;
    if value.to_string().len() > MAX_RECORD_BYTES {
        return Err(format!("the value is larger than {} KiB", MAX_RECORD_BYTES / 1024));
    }
    let mut conn = open(path)?;
    let tx = conn.transaction().map_err(|e| format!("cannot write the record store: {e}"))?;
    let previous = get(&tx, collection, key)?;
    put(&tx, collection, key, Some(value))?;
    tx.commit().map_err(|e| format!("cannot write the record store: {e}"))?;
    let written = hash_of(value).map_err(|e| e.to_string())?;
    Ok(ToolOutput {
        output: json!({ "collection": collection, "key": key, "created": previous.is_none(), "previous": previous }),
        rollback: Some(json!({
            "inputs": {},
            "records": { record_id(collection, key): written.to_hex() },
            "collection": collection,
            "key": key,
            "previous": previous,
        })),
        ..ToolOutput::default()
    })
}

/// How a record is named in rollback data: `collection/key` (collections cannot contain `/`).
pub fn record_id(collection: &str, key: &str) -> String {
    format!("{collection}/{key}")
}

/// Undo: puts the previous value back, or removes the record if the upsert created it.
pub(crate) fn restore(path: &Path, rollback: &Value) -> Result<usize, String> {
    let collection =
        rollback.get("collection").and_then(Value::as_str).ok_or("the rollback data names no collection")?;
    let key = rollback.get("key").and_then(Value::as_str).ok_or("the rollback data names no key")?;
    let previous = rollback.get("previous").filter(|v| !v.is_null());
    let written = rollback
        .get("records")
        .and_then(|r| r.get(record_id(collection, key)))
        .and_then(Value::as_str)
        .ok_or("the rollback data does not say what was written")?;
    let mut conn = open(path)?;
    let tx = conn.transaction().map_err(|e| format!("cannot write the record store: {e}"))?;
    // The kernel checked the record is unchanged; check again inside the transaction that
    // writes, so a write in between cannot be lost.
    let now =
        get(&tx, collection, key)?.map(|v| hash_of(&v).map(|h| h.to_hex())).transpose().map_err(|e| e.to_string())?;
    if now.as_deref() != Some(written) {
        return Err(format!("record {collection}/{key} changed since; nothing was undone"));
    }
    put(&tx, collection, key, previous)?;
    tx.commit().map_err(|e| format!("cannot write the record store: {e}"))?;
    Ok(1)
}
