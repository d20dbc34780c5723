//! The SQLite file: opening it safely, appending atomically, reading back.
//!
//! Durability is the default: WAL with `synchronous=FULL`, so an append that returned has
//! reached the disk and survives a power cut or a SIGKILL. A batch of events (one kernel
//! decision) is one transaction: it lands whole or not at all, together with the signed head.

use crate::anchor::{self, Anchor};
use crate::migrations::{ANCHORED_SINCE, migrations};
use crate::record::{
    CHAIN_NOW, MAX_EVENT_BYTES, MAX_EVENT_DEPTH, NewEvent, StoredEvent, chain_hasher, head_message, json_depth,
};
use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior, params};
use smart_kernel::{Hash, canonical_bytes};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    #[error("no ledger at {0}: run `smart init` first")]
    Missing(PathBuf),
    #[error("{path} is not a usable SQLite ledger ({reason}); it was left untouched")]
    Corrupt { path: PathBuf, reason: String },
    #[error("a ledger already exists at {0}")]
    Exists(PathBuf),
    #[error(
        "the ledger moved on (it ends at sequence {actual}, this process expected {expected}); another SMART process wrote to it — retry"
    )]
    Conflict { expected: u64, actual: u64 },
    #[error("ledger schema migration failed: {0}")]
    Migration(String),
    #[error("event cannot be encoded: {0}")]
    Encoding(String),
    #[error("the ledger's anchor {path} cannot be used: {reason}")]
    Anchor { path: PathBuf, reason: String },
    #[error("ledger database error: {0}")]
    Sql(#[from] rusqlite::Error),
}

/// The device's two marks on the ledger. Implemented by the device key; the ledger never sees
/// the secret. `Sync`: verify checks seals on several threads.
pub trait HeadSigner: Sync {
    /// Hex Ed25519 signature over `msg` (the head record).
    fn sign_hex(&self, msg: &[u8]) -> String;
    /// Hex keyed MAC of an event hash (the per-event seal).
    fn seal_hex(&self, hash: &Hash) -> String;
    /// Whether `stored` is [`HeadSigner::seal_hex`] of `hash`. Verify asks it of every row; a
    /// signer that can answer without building the hex string saves an allocation a row.
    fn seal_matches(&self, hash: &Hash, stored: &str) -> bool {
        self.seal_hex(hash) == stored
    }
    /// [`HeadSigner::sign_hex`] as something a thread of the ledger's own may keep and call
    /// once, so that the head is signed there while SQLite inserts (see [`crate::cosign`]); it
    /// must sign exactly as `sign_hex` does. `None`, the default: heads are signed inline.
    fn detached(&self) -> Option<crate::cosign::Detached> {
        None
    }
}

/// See [`Ledger::read_snapshot`]. Ends the read when dropped; it never writes.
pub struct ReadSnapshot<'a> {
    _read: rusqlite::Transaction<'a>,
}

pub struct Ledger {
    conn: Connection,
    path: PathBuf,
    anchor: anchor::Writer,
    cosigner: crate::cosign::Cosigner,
    /// The tail this ledger's last append left, while nothing says otherwise: the next append
    /// can hash its rows before it takes the write lock (checked against the tail once it has).
    last: Option<(u64, Hash)>,
}

pub(crate) const SELECT: &str = "SELECT seq, corr, kind, payload, at_ms, wall_ms, state_before, state_after, prev_hash, hash, seal, chain FROM events";

pub(crate) fn row_to_event(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoredEvent> {
    Ok(StoredEvent {
        seq: r.get::<_, i64>(0)? as u64,
        corr: r.get(1)?,
        kind: r.get(2)?,
        payload: r.get(3)?,
        at_ms: r.get::<_, i64>(4)? as u64,
        wall_ms: r.get::<_, i64>(5)? as u64,
        state_before: r.get(6)?,
        state_after: r.get(7)?,
        prev_hash: r.get(8)?,
        hash: r.get(9)?,
        seal: r.get(10)?,
        chain: r.get(11)?,
    })
}

/// The highest sequence stored, read without parsing its row (a damaged row is verify's to name).
pub(crate) fn last_seq(conn: &Connection) -> Result<Option<u64>, LedgerError> {
    let last: Option<i64> = conn.query_row("SELECT max(seq) FROM events", [], |r| r.get(0))?;
    Ok(last.and_then(|l| u64::try_from(l).ok()))
}

/// A second connection to a ledger's file, for reading only: verify and replay read on a thread
/// of their own while the caller's connection does other work.
///
/// It reads the file through a memory map ([`READ_MAP_BYTES`] of it), not through a system call
/// a page: these connections only ever read every row of a range once, in order, and on the
/// bench's million-event ledger two of them reading side by side spent about a sixth of a full
/// verify in `pread` and the copies it makes. What a map gives up is the error: a disk that
/// fails under a mapped page, or a file cut shorter by another process while the read runs,
/// ends the process with a signal where a `pread` would have returned an I/O error. Neither
/// loses anything (nothing is written through these connections, and the next open verifies
/// again), and both are far rarer than the verifies a year of use runs; the writer's own
/// connection, which the app holds all day, is never mapped.
pub(crate) fn reader(path: &Path) -> Result<Connection, LedgerError> {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    // SQLite caps the map at what it was built to allow (2 GiB less 64 KiB here) and reads the
    // rest of a larger file the usual way; a platform without maps ignores it.
    conn.pragma_update(None, "mmap_size", READ_MAP_BYTES)?;
    Ok(conn)
}

/// How much of the file a [`reader`] maps: all of it, up to the most SQLite maps.
const READ_MAP_BYTES: i64 = 1 << 40;

/// Reads a row into `into`, reusing its strings' buffers: a verify reads every row once, and
/// eleven fresh allocations a row were most of what reading one cost. A column that is not valid
/// text fails exactly as [`row_to_event`] fails on it.
pub(crate) fn fill_event(r: &rusqlite::Row<'_>, into: &mut StoredEvent) -> rusqlite::Result<()> {
    fn text(r: &rusqlite::Row<'_>, i: usize, into: &mut String) -> rusqlite::Result<()> {
        let stored = match r.get_ref(i)? {
            rusqlite::types::ValueRef::Text(t) => std::str::from_utf8(t).ok(),
            _ => None,
        };
        match stored {
            Some(s) => {
                into.clear();
                into.push_str(s);
            }
            None => *into = r.get(i)?,
        }
        Ok(())
    }
    into.seq = r.get::<_, i64>(0)? as u64;
    text(r, 1, &mut into.corr)?;
    text(r, 2, &mut into.kind)?;
    text(r, 3, &mut into.payload)?;
    into.at_ms = r.get::<_, i64>(4)? as u64;
    into.wall_ms = r.get::<_, i64>(5)? as u64;
    text(r, 6, &mut into.state_before)?;
    text(r, 7, &mut into.state_after)?;
    text(r, 8, &mut into.prev_hash)?;
    text(r, 9, &mut into.hash)?;
    text(r, 10, &mut into.seal)?;
    into.chain = r.get(11)?;
    Ok(())
}

/// Batches at least this long are encoded and hashed on a second thread while SQLite inserts
/// (below it, the thread costs more than it saves).
const PIPELINE_FROM: usize = 16;

/// What a long batch's pipeline leaves: the last row's sequence and hash, and the head's
/// signature where its encoder could make it.
type Pipelined = ((u64, Hash), Option<String>);

/// The head's signature, begun while the rows were inserted.
enum Signing {
    /// Made by the encoder of a long batch, once it had hashed the last row.
    Made(String),
    /// Under way on the ledger's signing thread (see [`crate::cosign`]).
    Pending(crate::cosign::Pending),
}

/// One event made ready for its row: everything but what the caller gave as is.
struct Row {
    seq: u64,
    payload: String,
    before: String,
    after: String,
    prev: String,
    hash: Hash,
    seal: String,
}

impl Row {
    /// The rows of `batch` after `(seq, hash)`, and the last one's sequence and hash.
    fn all(
        batch: &[NewEvent<'_>],
        (mut seq, mut prev): (u64, Hash),
        signer: &dyn HeadSigner,
    ) -> Result<(Vec<Row>, (u64, Hash)), LedgerError> {
        let mut rows = Vec::with_capacity(batch.len());
        for e in batch {
            let row = Row::of(e, seq + 1, &prev, signer)?;
            (seq, prev) = (row.seq, row.hash);
            rows.push(row);
        }
        Ok((rows, (seq, prev)))
    }

    /// Encodes `e` as the event at `seq` after `prev`, refusing what could not be read back.
    fn of(e: &NewEvent<'_>, seq: u64, prev: &Hash, signer: &dyn HeadSigner) -> Result<Row, LedgerError> {
        let payload = canonical_bytes(e.event).map_err(|x| LedgerError::Encoding(x.to_string()))?;
        let payload = String::from_utf8(payload).map_err(|x| LedgerError::Encoding(x.to_string()))?;
        // Nothing that cannot be read back, and nothing without bound: checked before the
        // transaction commits, so a refused batch writes nothing.
        if payload.len() > MAX_EVENT_BYTES {
            return Err(LedgerError::Encoding(format!(
                "a {} event of {} bytes is larger than the ledger takes ({MAX_EVENT_BYTES})",
                e.event.kind(),
                payload.len()
            )));
        }
        let depth = json_depth(&payload);
        if depth > MAX_EVENT_DEPTH {
            return Err(LedgerError::Encoding(format!(
                "a {} event nests {depth} levels deep, more than the ledger can read back ({MAX_EVENT_DEPTH})",
                e.event.kind()
            )));
        }
        let before = e.state_before.to_hex();
        let after = e.state_after.to_hex();
        // Rows are written under the newest chain scheme, the one their `chain` column records.
        let hash = chain_hasher(CHAIN_NOW).map_err(LedgerError::Encoding)?(
            &mut Vec::new(),
            prev,
            seq,
            e.corr,
            e.event.kind(),
            &payload,
            e.at.0,
            e.wall_ms,
            &before,
            &after,
        );
        Ok(Row { seq, payload, before, after, prev: prev.to_hex(), hash, seal: signer.seal_hex(&hash) })
    }
}

impl Ledger {
    /// Creates a new ledger file. Refuses to touch an existing one.
    pub fn create(path: &Path) -> Result<Ledger, LedgerError> {
        if path.exists() {
            return Err(LedgerError::Exists(path.to_path_buf()));
        }
        Self::connect(path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE)
    }

    /// Opens an existing ledger.
    pub fn open(path: &Path) -> Result<Ledger, LedgerError> {
        if !path.is_file() {
            return Err(LedgerError::Missing(path.to_path_buf()));
        }
        Self::connect(path, OpenFlags::SQLITE_OPEN_READ_WRITE)
    }

    fn connect(path: &Path, flags: OpenFlags) -> Result<Ledger, LedgerError> {
        let corrupt = |e: rusqlite::Error| LedgerError::Corrupt { path: path.to_path_buf(), reason: e.to_string() };
        let mut conn = Connection::open_with_flags(path, flags | OpenFlags::SQLITE_OPEN_NO_MUTEX).map_err(corrupt)?;
        conn.busy_timeout(std::time::Duration::from_secs(10)).map_err(corrupt)?;
        // Reading the journal mode touches the header: a non-database file fails here, before
        // anything is written to it.
        let mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0)).map_err(corrupt)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(LedgerError::Corrupt {
                path: path.to_path_buf(),
                reason: format!("cannot enable WAL (journal mode is {mode})"),
            });
        }
        conn.pragma_update(None, "synchronous", "FULL").map_err(corrupt)?;
        let migrations = migrations();
        let before = match migrations.current_version(&conn) {
            Ok(rusqlite_migration::SchemaVersion::Inside(v)) => v.get(),
            Ok(_) => 0,
            Err(e) => return Err(LedgerError::Migration(e.to_string())),
        };
        // A ledger from before anchoring: its signed head becomes its anchor before the schema
        // moves on, so that from here on a missing anchor means one was removed.
        if before > 0 && before < ANCHORED_SINCE && !anchor::path_for(path).exists() {
            let head = conn
                .query_row("SELECT seq, hash, signature FROM head WHERE id = 1", [], |r| {
                    Ok(Anchor { seq: r.get::<_, i64>(0)? as u64, hash: r.get(1)?, signature: r.get(2)? })
                })
                .optional()
                .map_err(corrupt)?;
            if let Some(head) = head {
                anchor::advance(path, &head)?;
            }
        }
        migrations.to_latest(&mut conn).map_err(|e| match e {
            rusqlite_migration::Error::RusqliteError { err, .. } => corrupt(err),
            other => LedgerError::Migration(other.to_string()),
        })?;
        Ok(Ledger {
            conn,
            path: path.to_path_buf(),
            anchor: anchor::Writer::new(path),
            cosigner: crate::cosign::Cosigner::default(),
            last: None,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Holds one read snapshot of the ledger until the guard is dropped: every read through this
    /// ledger meanwhile sees the same events and head, whatever other processes append. (WAL
    /// gives each read transaction a fixed view, taken at its first read.)
    pub fn read_snapshot(&self) -> Result<ReadSnapshot<'_>, LedgerError> {
        Ok(ReadSnapshot { _read: self.conn.unchecked_transaction()? })
    }

    /// The anchor kept beside this ledger, if there is one.
    pub fn anchor(&self) -> Result<Option<Anchor>, LedgerError> {
        anchor::read(&self.path)
    }

    /// The last sequence and its hash; `(0, ZERO)` for an empty ledger.
    pub fn tail(&self) -> Result<(u64, Hash), LedgerError> {
        tail(&self.conn)
    }

    /// Appends a batch atomically, after checking nobody else appended since `expected_seq`.
    /// Returns the sequences assigned.
    pub fn append(
        &mut self,
        expected_seq: u64,
        batch: &[NewEvent<'_>],
        signer: &dyn HeadSigner,
    ) -> Result<Vec<u64>, LedgerError> {
        if batch.is_empty() {
            return Ok(Vec::new());
        }
        // A short batch after this ledger's own last append, whose tail it knows, is hashed
        // before the write lock is taken, and its head's signature begun: both then overlap
        // taking the lock and the inserts. Used only if the tail is still that one.
        // A batch that cannot be encoded is left to be refused inside the transaction, after the
        // tail check, so that a writer that fell behind hears that first, as it always did.
        let early = match self.last.take() {
            Some(base) if base.0 == expected_seq && batch.len() < PIPELINE_FROM => {
                Row::all(batch, base, signer).ok().map(|(rows, (seq, hash))| {
                    let pending = self.cosigner.start(signer, head_message(seq, &hash.to_hex()));
                    (base, rows, (seq, hash), pending)
                })
            }
            _ => None,
        };
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let (mut seq, mut prev) = tail(&tx)?;
        if seq != expected_seq {
            return Err(LedgerError::Conflict { expected: expected_seq, actual: seq });
        }
        let early = early.filter(|(base, ..)| *base == (seq, prev));
        let mut seqs = Vec::with_capacity(batch.len());
        let signing = {
            let mut insert = tx.prepare_cached(
                "INSERT INTO events (seq, corr, kind, payload, at_ms, wall_ms, state_before, state_after, prev_hash, hash, seal, chain)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            )?;
            let mut put = |e: &NewEvent<'_>, row: Row| -> Result<(), LedgerError> {
                insert.execute(params![
                    row.seq as i64,
                    e.corr,
                    e.event.kind(),
                    row.payload,
                    e.at.0 as i64,
                    e.wall_ms as i64,
                    row.before,
                    row.after,
                    row.prev,
                    row.hash.hex_in(&mut [0; 64]),
                    row.seal,
                    CHAIN_NOW
                ])?;
                seqs.push(row.seq);
                Ok(())
            };
            // Encoding and hashing the next rows on a second thread while SQLite inserts these:
            // in a batch they cost about as much as the insert itself. `None`: encode here (a
            // short batch, or no second thread to be had).
            let pipelined = if batch.len() < PIPELINE_FROM {
                None
            } else {
                let (first, start) = (seq, prev);
                std::thread::scope(|scope| -> Result<Option<Pipelined>, LedgerError> {
                    let (ready, rows) = std::sync::mpsc::sync_channel::<Result<Row, LedgerError>>(PIPELINE_FROM * 4);
                    // Having hashed the last row, the encoder signs the head while this thread
                    // inserts the rows it is still behind by.
                    let encoder = move || -> Option<String> {
                        let (mut seq, mut prev) = (first, start);
                        for e in batch {
                            let row = Row::of(e, seq + 1, &prev, signer);
                            let failed = row.is_err();
                            if let Ok(r) = &row {
                                (seq, prev) = (r.seq, r.hash);
                            }
                            if ready.send(row).is_err() || failed {
                                return None;
                            }
                        }
                        drop(ready);
                        Some(signer.sign_hex(&head_message(seq, &prev.to_hex())))
                    };
                    let Ok(encoder) = std::thread::Builder::new().spawn_scoped(scope, encoder) else {
                        return Ok(None);
                    };
                    let mut last = (first, start);
                    for (e, row) in batch.iter().zip(rows) {
                        let row = row?;
                        last = (row.seq, row.hash);
                        put(e, row)?;
                    }
                    Ok(Some((last, encoder.join().ok().flatten())))
                })?
            };
            let signing = match pipelined {
                Some((last, signature)) => {
                    (seq, prev) = last;
                    signature.map(Signing::Made)
                }
                None => {
                    // A short batch is hashed whole first: then its head is known, and is signed
                    // on the ledger's signing thread while SQLite inserts the rows.
                    let (rows, pending) = match early {
                        Some((_, rows, last, pending)) => {
                            (seq, prev) = last;
                            (rows, pending)
                        }
                        None => {
                            let (rows, last) = Row::all(batch, (seq, prev), signer)?;
                            (seq, prev) = last;
                            (rows, self.cosigner.start(signer, head_message(seq, &prev.to_hex())))
                        }
                    };
                    for (e, row) in batch.iter().zip(rows) {
                        put(e, row)?;
                    }
                    Some(Signing::Pending(pending))
                }
            };
            if seqs.len() != batch.len() {
                return Err(LedgerError::Encoding(format!(
                    "{} of {} events were prepared for the ledger",
                    seqs.len(),
                    batch.len()
                )));
            }
            signing
        };
        let head = prev.to_hex();
        let signature = match signing {
            Some(Signing::Made(signature)) => signature,
            Some(Signing::Pending(pending)) => pending.finish(signer),
            None => signer.sign_hex(&head_message(seq, &head)),
        };
        // The head row is there after the first append: updated in place, with no insert tried
        // first (an upsert tries the insert, finds the conflict, then updates).
        let moved = tx
            .prepare_cached("UPDATE head SET seq = ?1, hash = ?2, signature = ?3 WHERE id = 1")?
            .execute(params![seq as i64, head, signature])?;
        if moved == 0 {
            tx.prepare_cached("INSERT INTO head (id, seq, hash, signature) VALUES (1, ?1, ?2, ?3)")?
                .execute(params![seq as i64, head, signature])?;
        }
        tx.commit()?;
        self.last = Some((seq, prev));
        // The events are durable now; an anchor that could not be written only lags (weaker, not
        // wrong), and the next append moves it on. Failing the append here would tell the caller
        // its events were not recorded when they were.
        if let Err(e) = self.anchor.advance(&Anchor { seq, hash: head, signature }) {
            tracing::warn!(error = %e, "could not move the ledger's anchor forward");
        }
        Ok(seqs)
    }

    pub fn get(&self, seq: u64) -> Result<Option<StoredEvent>, LedgerError> {
        let mut stmt = self.conn.prepare_cached(&format!("{SELECT} WHERE seq = ?1"))?;
        Ok(stmt.query_row([seq as i64], row_to_event).optional()?)
    }

    /// Events from `since` (inclusive), optionally of one kind, at most `limit`.
    pub fn list(&self, since: u64, kind: Option<&str>, limit: usize) -> Result<Vec<StoredEvent>, LedgerError> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!("{SELECT} WHERE seq >= ?1 AND (?2 IS NULL OR kind = ?2) ORDER BY seq LIMIT ?3"))?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = stmt.query_map(params![since as i64, kind, limit], row_to_event)?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// Streams every event in sequence order; `f` returns `false` to stop.
    pub fn for_each(&self, f: impl FnMut(StoredEvent) -> bool) -> Result<(), LedgerError> {
        self.for_each_from(0, f)
    }

    /// Streams the events from `since` (inclusive) in sequence order.
    pub fn for_each_from(&self, since: u64, mut f: impl FnMut(StoredEvent) -> bool) -> Result<(), LedgerError> {
        let mut stmt = self.conn.prepare(&format!("{SELECT} WHERE seq >= ?1 ORDER BY seq"))?;
        let mut rows = stmt.query([since as i64])?;
        while let Some(r) = rows.next()? {
            if !f(row_to_event(r)?) {
                break;
            }
        }
        Ok(())
    }

    /// The signed head record: (seq, hash, signature).
    pub fn head(&self) -> Result<Option<(u64, String, String)>, LedgerError> {
        Ok(self
            .conn
            .query_row("SELECT seq, hash, signature FROM head WHERE id = 1", [], |r| {
                Ok((r.get::<_, i64>(0)? as u64, r.get(1)?, r.get(2)?))
            })
            .optional()?)
    }

    pub fn save_snapshot(&self, seq: u64, state_json: &str) -> Result<(), LedgerError> {
        self.conn.execute(
            // Never replaced by an older one: two processes share the file.
            "INSERT INTO snapshot (id, seq, state) VALUES (1, ?1, ?2) ON CONFLICT(id) DO UPDATE SET seq = excluded.seq, state = excluded.state WHERE excluded.seq > snapshot.seq",
            params![seq as i64, state_json],
        )?;
        Ok(())
    }

    pub fn load_snapshot(&self) -> Result<Option<(u64, String)>, LedgerError> {
        Ok(self
            .conn
            .query_row("SELECT seq, state FROM snapshot WHERE id = 1", [], |r| {
                Ok((r.get::<_, i64>(0)? as u64, r.get(1)?))
            })
            .optional()?)
    }

    /// Direct access for tests that tamper with the file the way an attacker would.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }
}

fn tail(conn: &Connection) -> Result<(u64, Hash), LedgerError> {
    let last: Option<(i64, String)> = conn
        .prepare_cached("SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1")?
        .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    match last {
        None => Ok((0, Hash::ZERO)),
        Some((seq, h)) => Ok((
            seq as u64,
            Hash::from_hex(&h).map_err(|e| LedgerError::Corrupt {
                path: PathBuf::new(),
                reason: format!("last event's hash: {e}"),
            })?,
        )),
    }
}
