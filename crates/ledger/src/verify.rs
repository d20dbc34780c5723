//! `ledger verify`: recompute the chain and every signature, and name the first bad sequence.
//!
//! Checks, per event in order: the sequence follows the previous one (a gap means a deleted
//! row), `prev_hash` is the previous row's hash (reordering), the row's hash matches its content
//! (any edit), the payload is a kernel event whose kind matches the column, logical time does
//! not run backwards, and user signals verify against the genesis device key. At the end the
//! signed head must name the last event (truncation), and the anchor kept outside the file must
//! name an event the ledger still holds, signed by the device (a file taken back in time; see
//! [`crate::anchor`]). The first failure is the answer.

use crate::record::StoredEvent;
use crate::record::head_message;
use crate::store::{HeadSigner, Ledger, LedgerError};
use crate::verified::Mark;
use ed25519_dalek::{Signature, Verifier, VerifyingKey};
use serde::Serialize;
use smart_kernel::{Hash, KernelEvent};

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VerifyReport {
    pub ok: bool,
    pub events: u64,
    pub head: Option<String>,
    pub first_bad_seq: Option<u64>,
    pub reason: Option<String>,
}

/// Verifies the whole ledger. `device_key` is this device's public key (hex) where it is known:
/// a genesis naming another key means the history was rewritten under a different key.
/// `sealer` is the device key itself where it is available: then every event's seal is checked
/// too, which pins an edit down to its exact sequence even if the attacker re-computed every
/// hash after it (blake3 is unkeyed; the seal is not). Without it, such a re-chained edit is
/// still caught, by the signed head, but only as "the chain does not end where the device
/// signed it".
pub fn verify(
    ledger: &Ledger,
    device_key: Option<&str>,
    sealer: Option<&dyn HeadSigner>,
) -> Result<VerifyReport, LedgerError> {
    verify_to(ledger, device_key, sealer, Depth::Full)
}

/// How much of each event [`verify_to`] re-checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depth {
    /// Everything `smart ledger verify` checks, the payload read as a kernel event included.
    Full,
    /// That every event is the one this device wrote: sequence, link, hash, seal and time, the
    /// signed head and the anchor — everything but reading each payload back as an event. The
    /// genesis event is still read (it names the device key).
    ///
    /// This is as strong against an edit as [`Depth::Full`]: the chain pins every byte of every
    /// row to the head the device signed (and each seal to the device's key), so a ledger that
    /// passes is byte for byte the one the device wrote, and what the device wrote was a kernel
    /// event whose user signals the kernel had verified. What it skips would only find a bug in
    /// the writer. Opening an engine uses it: reading every payload back is most of what a full
    /// verify costs, and an open has to stay well under a second at a year of use.
    Authentic,
}

/// [`verify`] at the given depth.
pub fn verify_to(
    ledger: &Ledger,
    device_key: Option<&str>,
    sealer: Option<&dyn HeadSigner>,
    depth: Depth,
) -> Result<VerifyReport, LedgerError> {
    verify_from(ledger, device_key, sealer, depth, None)
}

/// [`verify_to`], re-reading only the events after `from` (a [`Mark`] that still holds: see
/// [`crate::verified`]) besides the genesis event, the signed head and the anchor. `None`
/// verifies every event.
pub fn verify_from(
    ledger: &Ledger,
    device_key: Option<&str>,
    sealer: Option<&dyn HeadSigner>,
    depth: Depth,
    from: Option<&Mark>,
) -> Result<VerifyReport, LedgerError> {
    verify_in_batches(ledger, device_key, sealer, depth, from, BATCH, Ranges::Auto)
}

/// How [`verify_in_batches`] shares out the rows after the genesis event.
#[derive(Clone, Copy, Debug)]
enum Ranges {
    /// One range a core (at most four) where there are enough rows to be worth it, else one.
    Auto,
    /// This many ranges, however few the rows (the tests' way to put breaks at the seams).
    #[cfg_attr(not(test), allow(dead_code))]
    Exactly(usize),
}

/// [`verify_from`], handing rows to checker threads `batch` at a time, or reading them in
/// `ranges` on reader threads of their own.
fn verify_in_batches(
    ledger: &Ledger,
    device_key: Option<&str>,
    sealer: Option<&dyn HeadSigner>,
    depth: Depth,
    from: Option<&Mark>,
    batch: usize,
    ranges: Ranges,
) -> Result<VerifyReport, LedgerError> {
    // The anchor first, then one snapshot for everything else: an anchor only moves after a
    // commit is durable, so one read before the snapshot never vouches for more than the
    // snapshot holds — while other processes go on appending, nothing here is a false alarm.
    let anchor = ledger.anchor();
    let snapshot = ledger.read_snapshot()?;
    let mut walk = Walk {
        device_key,
        sealer,
        depth,
        expected_seq: 1,
        prev: Hash::ZERO.to_hex(),
        last_at: 0,
        genesis_key: None,
        bad: None,
    };
    // From 0: a row stored at sequence 0 is out of order too.
    let mut since = 0;
    if let Some(mark) = from.filter(|m| m.seq > 1) {
        // The genesis event names the device key the head and the signals are checked against.
        match ledger.get(1)? {
            Some(genesis) => {
                walk.step(genesis);
            }
            None => walk.bad = Some((1, "event 1 is missing (the ledger has no genesis event)".into())),
        }
        if walk.bad.is_none() {
            walk.expected_seq = mark.seq + 1;
            walk.prev.clone_from(&mark.hash);
            walk.last_at = ledger.get(mark.seq)?.map_or(0, |r| r.at_ms);
            since = mark.seq + 1;
        }
    }
    if walk.bad.is_none() {
        walk.bad = match split(ledger, since, &mut walk, ranges)? {
            Some(bounds) => walk_ranges(ledger, &bounds, &mut walk)?,
            None => walk_rows(ledger, since, &mut walk, batch)?,
        };
    }
    let Walk { expected_seq, prev, genesis_key, mut bad, .. } = walk;
    let prev = Hash::from_hex(&prev).unwrap_or(Hash::ZERO);

    let events = expected_seq - 1;
    if bad.is_none() {
        bad = check_head(ledger, events, &prev, genesis_key.as_deref())?;
    }
    if bad.is_none() {
        bad = check_anchor(ledger, anchor, events, genesis_key.as_deref())?;
    }
    drop(snapshot);
    Ok(match bad {
        None => VerifyReport {
            ok: true,
            events,
            head: (events > 0).then(|| prev.to_hex()),
            first_bad_seq: None,
            reason: None,
        },
        Some((seq, reason)) => {
            VerifyReport { ok: false, events, head: None, first_bad_seq: Some(seq), reason: Some(reason) }
        }
    })
}

/// Rows handed to a checker thread at a time: enough that the hand-over costs nothing next to
/// hashing them, few enough that a break near the start stops the read soon after.
const BATCH: usize = 1024;

/// Walks the rows from `since` and returns the first failure, exactly as checking them one by
/// one in order would.
///
/// Only the order checks are sequential (each row's sequence and link name the row before, and
/// time must not run backwards); they are cheap and run here, as the rows are read. What costs —
/// hashing each row, its seal, reading its payload back and checking signal signatures — needs
/// nothing but the row and the genesis key, so it runs on checker threads, a batch of rows at a
/// time, while this thread reads on. A row's own checks keep their order (sequence and link,
/// then hash and seal, then time, then payload): a row that breaks the order ends the read and
/// is the answer unless a checker finds a failure in a row before it; a row whose time runs
/// backwards is checked for content first, as before. Where checkers report failures in several
/// batches, the earliest batch's is the first. Rows go `size` at a time; a ledger of one batch is
/// checked on this thread.
fn walk_rows(
    ledger: &Ledger,
    since: u64,
    walk: &mut Walk<'_>,
    size: usize,
) -> Result<Option<(u64, String)>, LedgerError> {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::mpsc::{SendError, channel, sync_channel};
    use std::sync::{Arc, Mutex};

    let workers = threads();
    let stop = AtomicBool::new(false);
    let (sealer, depth) = (walk.sealer, walk.depth);
    std::thread::scope(|scope| {
        let (done_tx, done_rx) = channel::<(usize, (u64, String))>();
        let mut jobs: Option<std::sync::mpsc::SyncSender<(usize, Vec<Checked>)>> = None;
        let mut batch: Vec<Checked> = Vec::with_capacity(size.min(BATCH));
        let mut sent = 0usize;
        let mut order_bad = None;
        // The first row is read on its own whatever the depth: it names the genesis key.
        let read = ledger.for_each_from(since, |row| {
            if walk.genesis_key.is_none() {
                return walk.step(row);
            }
            if let Some(bad) = walk.order(&row) {
                order_bad = Some(bad);
                return false;
            }
            let late = row.at_ms < walk.last_at;
            walk.expected_seq = row.seq + 1;
            walk.prev.clone_from(&row.hash);
            walk.last_at = row.at_ms;
            batch.push(Checked { row, late });
            if late {
                return false;
            }
            if batch.len() >= size {
                let tx = jobs.get_or_insert_with(|| {
                    let key = walk.genesis_key.clone().unwrap_or_default();
                    let (tx, rx) = sync_channel::<(usize, Vec<Checked>)>(workers * 2);
                    let rx = Arc::new(Mutex::new(rx));
                    for _ in 0..workers {
                        let (rx, done, key, stop) = (Arc::clone(&rx), done_tx.clone(), key.clone(), &stop);
                        // A checker the system will not start leaves its share to this thread
                        // (a refused hand-over is checked here).
                        let _ = std::thread::Builder::new().spawn_scoped(scope, move || {
                            loop {
                                let job = match rx.lock() {
                                    Ok(rx) => rx.recv(),
                                    Err(_) => return,
                                };
                                let Ok((n, rows)) = job else { return };
                                if let Some(bad) = check_rows(&rows, sealer, depth, &key) {
                                    stop.store(true, Ordering::Relaxed);
                                    let _ = done.send((n, bad));
                                }
                            }
                        });
                    }
                    tx
                });
                let job = (sent, std::mem::replace(&mut batch, Vec::with_capacity(size.min(BATCH))));
                sent += 1;
                if let Err(SendError((n, rows))) = tx.send(job)
                    && let Some(bad) = walk.genesis_key.as_deref().and_then(|k| check_rows(&rows, sealer, depth, k))
                {
                    let _ = done_tx.send((n, bad));
                    return false;
                }
            }
            !stop.load(Ordering::Relaxed)
        });
        // The last rows: to a checker if there are any, else (a ledger of one batch, or no
        // checker started) checked here.
        let last = (sent, std::mem::take(&mut batch));
        let here = match &jobs {
            Some(tx) => tx.send(last).err().map(|SendError(job)| job),
            None => Some(last),
        };
        let here = here.and_then(|(n, rows)| {
            walk.genesis_key.as_deref().and_then(|k| check_rows(&rows, sealer, depth, k)).map(|bad| (n, bad))
        });
        drop(jobs);
        drop(done_tx);
        // Every checker has finished once the last sender is gone: the earliest batch wins. A
        // failure found in rows read before a read error is still the answer.
        let found = done_rx.iter().chain(here).min_by_key(|(n, _)| *n).map(|(_, bad)| bad);
        Ok(match found {
            Some(bad) => {
                walk.expected_seq = bad.0;
                Some(bad)
            }
            None => {
                read?;
                walk.bad.take().or(order_bad)
            }
        })
    })
}

/// Threads a verify reads or checks on: one a core, at most four.
fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 4)
}

/// Rows a reader of its own must have at least to be worth starting: below it, opening a
/// connection and a thread costs more than reading the rows on one.
const RANGE_ROWS: u64 = 8_192;

/// The ranges of sequences the rows after the genesis event are read in, one a reader thread, or
/// `None` for [`walk_rows`]. Reads the genesis event first where `walk` has not (it names the key
/// the rest is checked against): the ranges start after it.
fn split(
    ledger: &Ledger,
    since: u64,
    walk: &mut Walk<'_>,
    ranges: Ranges,
) -> Result<Option<Vec<(u64, u64)>>, LedgerError> {
    let n = match ranges {
        Ranges::Auto => threads(),
        Ranges::Exactly(n) => n,
    };
    if n < 2 {
        return Ok(None);
    }
    // Within the verify's read snapshot: rows appended after it began are not this verify's.
    let Some(last) = crate::store::last_seq(ledger.connection())? else { return Ok(None) };
    if matches!(ranges, Ranges::Auto) && last.saturating_sub(since) < RANGE_ROWS * n as u64 {
        return Ok(None);
    }
    if walk.genesis_key.is_none() {
        ledger.for_each_from(since, |row| {
            walk.step(row);
            false
        })?;
        if walk.bad.is_some() || walk.genesis_key.is_none() {
            return Ok(Some(Vec::new()));
        }
    }
    let first = walk.expected_seq;
    if first > last {
        return Ok(Some(Vec::new()));
    }
    Ok(Some(range_bounds(first, last, n)))
}

/// `first..=last` cut into `n` ranges as even as whole sequences allow, in order; none empty.
fn range_bounds(first: u64, last: u64, n: usize) -> Vec<(u64, u64)> {
    let (len, n) = (u128::from(last - first) + 1, n.max(1) as u128);
    (0..n)
        .map(|k| (first + (len * k / n) as u64, first + (len * (k + 1) / n) as u64 - 1))
        .filter(|(lo, hi)| lo <= hi)
        .collect()
}

/// Walks the rows in `bounds` — a reader thread a range, each on a connection of its own, doing
/// every check of its rows — and returns the first failure, exactly as checking them one by one
/// in order would.
///
/// A row's checks need only the row and the one before it, so a reader can check all of its
/// range but the first row's sequence, link and time, which need the end of the range before.
/// Those are checked here, range by range in order, once every reader is done: the first range
/// whose seam or rows break is the answer, and a range after a failure found elsewhere stops
/// early (nothing it finds can come first). Where readers cannot be started the range is read on
/// this thread. On two cores this halves what one reader and its checkers cost: nothing is
/// handed between threads and every row is read where it is checked.
fn walk_ranges(
    ledger: &Ledger,
    bounds: &[(u64, u64)],
    walk: &mut Walk<'_>,
) -> Result<Option<(u64, String)>, LedgerError> {
    use std::sync::atomic::AtomicU64;
    let Some(key) = walk.genesis_key.clone() else { return Ok(walk.bad.take()) };
    if walk.bad.is_some() || bounds.is_empty() {
        return Ok(walk.bad.take());
    }
    let (path, sealer, depth) = (ledger.path(), walk.sealer, walk.depth);
    let earliest = AtomicU64::new(u64::MAX);
    let (earliest, key) = (&earliest, key.as_str());
    let walks: Vec<RangeWalk> = std::thread::scope(|scope| {
        let readers: Vec<_> = bounds
            .iter()
            .skip(1)
            .map(|&range| {
                std::thread::Builder::new()
                    .spawn_scoped(scope, move || match crate::store::reader(path) {
                        Ok(conn) => walk_range(&conn, range, sealer, depth, key, earliest),
                        Err(_) => RangeWalk::not_read(),
                    })
                    .ok()
            })
            .collect();
        // The first range too on a reader of its own (it maps the file; see `store::reader`), or
        // on the ledger's connection where none opens.
        let own = crate::store::reader(path).ok();
        let here = own.as_ref().unwrap_or(ledger.connection());
        let mut walks = vec![walk_range(here, bounds[0], sealer, depth, key, earliest)];
        for (reader, &range) in readers.into_iter().zip(&bounds[1..]) {
            let w = reader.and_then(|r| r.join().ok()).unwrap_or_else(RangeWalk::not_read);
            walks.push(match w.end {
                RangeEnd::NotRead => walk_range(here, range, sealer, depth, key, earliest),
                _ => w,
            });
        }
        walks
    });
    for w in walks {
        if let Some(f) = &w.first {
            let bad = order(walk.expected_seq, &walk.prev, f.seq, &f.prev_hash).or_else(|| {
                (f.at_ms < walk.last_at).then(|| {
                    (f.seq, f.content_bad.clone().unwrap_or_else(|| "logical time runs backwards".to_string()))
                })
            });
            if let Some(bad) = bad {
                walk.expected_seq = bad.0;
                return Ok(Some(bad));
            }
        }
        match w.end {
            RangeEnd::Clean => {}
            RangeEnd::Bad(seq, why) => {
                walk.expected_seq = seq;
                return Ok(Some((seq, why)));
            }
            RangeEnd::Unread(e) => return Err(e),
            // Neither reaches here: a range stops early only after a failure in a range
            // before it, and one no reader took was read on this thread.
            RangeEnd::Stopped | RangeEnd::NotRead => {
                return Err(LedgerError::Encoding("a range of the ledger was left unread".into()));
            }
        }
        if let Some((seq, hash, at_ms)) = w.last {
            (walk.expected_seq, walk.prev, walk.last_at) = (seq + 1, hash, at_ms);
        }
    }
    Ok(None)
}

/// What a reader found in its range.
struct RangeWalk {
    /// Its first row's order and time, which the range before it decides, and whether its
    /// content is bad (which a time running backwards does not hide).
    first: Option<FirstRow>,
    /// Its last row that passed: sequence, hash as stored, time.
    last: Option<(u64, String, u64)>,
    end: RangeEnd,
}

struct FirstRow {
    seq: u64,
    prev_hash: String,
    at_ms: u64,
    content_bad: Option<String>,
}

enum RangeEnd {
    /// Every row read passed.
    Clean,
    /// The first failure among its rows (its first row's seam aside).
    Bad(u64, String),
    /// A row could not be read; the rows before it passed.
    Unread(LedgerError),
    /// Stopped: a range before it has a failure.
    Stopped,
    /// No reader could open the file.
    NotRead,
}

impl RangeWalk {
    fn not_read() -> RangeWalk {
        RangeWalk { first: None, last: None, end: RangeEnd::NotRead }
    }
}

/// Reads and checks the rows in `lo..=hi` on `conn`, in order, up to the first failure.
fn walk_range(
    conn: &rusqlite::Connection,
    (lo, hi): (u64, u64),
    sealer: Option<&dyn HeadSigner>,
    depth: Depth,
    genesis_key: &str,
    earliest: &std::sync::atomic::AtomicU64,
) -> RangeWalk {
    use std::sync::atomic::Ordering;
    let mut out = RangeWalk { first: None, last: None, end: RangeEnd::Clean };
    let full = |row: &StoredEvent| if depth == Depth::Full { payload(row, genesis_key) } else { None };
    let read = (|| -> Result<(), LedgerError> {
        let mut stmt =
            conn.prepare_cached(&format!("{} WHERE seq >= ?1 AND seq <= ?2 ORDER BY seq", crate::store::SELECT))?;
        let mut rows = stmt.query(rusqlite::params![lo as i64, hi as i64])?;
        let mut row = StoredEvent::default();
        let mut text = Vec::new();
        let mut read = 0u32;
        // The last passing row's hash as computed: the next row's link is checked against its
        // hex, and its own hash computed from it.
        let mut prev = Hash::ZERO;
        while let Some(r) = rows.next()? {
            if read.is_multiple_of(256) && earliest.load(Ordering::Relaxed) < lo {
                out.end = RangeEnd::Stopped;
                return Ok(());
            }
            read = read.wrapping_add(1);
            crate::store::fill_event(r, &mut row)?;
            let bad = match &out.last {
                None => {
                    let content_bad = content_after(&row, None, sealer, &mut text).map(|h| prev = h).err();
                    let bad = content_bad.clone().or_else(|| full(&row));
                    out.first = Some(FirstRow {
                        seq: row.seq,
                        prev_hash: row.prev_hash.clone(),
                        at_ms: row.at_ms,
                        content_bad,
                    });
                    bad.map(|why| (row.seq, why))
                }
                Some((seq, hash, at_ms)) => order(seq + 1, hash, row.seq, &row.prev_hash).or_else(|| {
                    let late = row.at_ms < *at_ms;
                    content_after(&row, Some(&prev), sealer, &mut text)
                        .map(|h| prev = h)
                        .err()
                        .or_else(|| late.then(|| "logical time runs backwards".to_string()))
                        .or_else(|| full(&row))
                        .map(|why| (row.seq, why))
                }),
            };
            if let Some((seq, why)) = bad {
                earliest.fetch_min(seq, Ordering::Relaxed);
                out.end = RangeEnd::Bad(seq, why);
                return Ok(());
            }
            match &mut out.last {
                Some((seq, hash, at_ms)) => {
                    (*seq, *at_ms) = (row.seq, row.at_ms);
                    hash.clone_from(&row.hash);
                }
                None => out.last = Some((row.seq, row.hash.clone(), row.at_ms)),
            }
        }
        Ok(())
    })();
    if let Err(e) = read {
        out.end = RangeEnd::Unread(e);
    }
    out
}

/// A row on its way to a checker, with what the order checks found of its time.
struct Checked {
    row: StoredEvent,
    /// Its logical time is before the previous row's.
    late: bool,
}

/// The checks of each row that need only the row and the genesis key, in order; the first
/// failure.
fn check_rows(
    rows: &[Checked],
    sealer: Option<&dyn HeadSigner>,
    depth: Depth,
    genesis_key: &str,
) -> Option<(u64, String)> {
    let mut text = Vec::new();
    rows.iter().find_map(|Checked { row, late }| {
        let why = content(row, sealer, &mut text)
            .or_else(|| late.then(|| "logical time runs backwards".to_string()))
            .or_else(|| (depth == Depth::Full).then(|| payload(row, genesis_key)).flatten())?;
        Some((row.seq, why))
    })
}

/// The row's hash is its content's, and the device sealed it. `text` is room to hash in.
fn content(row: &StoredEvent, sealer: Option<&dyn HeadSigner>, text: &mut Vec<u8>) -> Option<String> {
    content_after(row, None, sealer, text).err()
}

/// [`content`], giving back the row's hash where it passes. `prev` is the previous row's hash
/// where the caller holds it and has checked this row's link to it (the row's `prev_hash` is
/// then that hash's hex, and is not read again); `None` reads `prev_hash`.
fn content_after(
    row: &StoredEvent,
    prev: Option<&Hash>,
    sealer: Option<&dyn HeadSigner>,
    text: &mut Vec<u8>,
) -> Result<Hash, String> {
    let computed = match prev {
        Some(prev) => row.compute_hash_after(prev, text),
        None => row.compute_hash_in(text),
    };
    let h = match computed {
        Ok(h) if h.hex_in(&mut [0; 64]) == row.hash => h,
        Ok(_) => return Err("hash mismatch: the event's content was altered".into()),
        Err(e) => return Err(format!("hash cannot be computed: {e}")),
    };
    if let Some(s) = sealer
        && !s.seal_matches(&h, &row.seal)
    {
        return Err("seal mismatch: this event was not written by this device's SMART (edited, and the hashes after it recomputed)".into());
    }
    Ok(h)
}

/// A row after the genesis event: its payload is a kernel event of its kind, not a second
/// genesis, and a user signal in it is signed by the genesis key.
fn payload(row: &StoredEvent, genesis_key: &str) -> Option<String> {
    let event = match read_event(row) {
        Ok(e) => e,
        Err(why) => return Some(why),
    };
    if let KernelEvent::Genesis { .. } = event {
        return Some("a second genesis event".into());
    }
    if let Some(signal) = event.signal()
        && let Err(r) = signal.verify_signature(genesis_key)
    {
        return Some(format!("bad signature on the {} signal: {}", row.kind, r.reason));
    }
    None
}

/// The row's payload read back as a kernel event of the kind its column says.
fn read_event(row: &StoredEvent) -> Result<KernelEvent, String> {
    let event = row.event()?;
    if event.kind() != row.kind {
        return Err(format!("kind column says {} but the payload is {}", row.kind, event.kind()));
    }
    Ok(event)
}

/// The chain walked so far: what the next event must link to, and the first failure.
struct Walk<'a> {
    device_key: Option<&'a str>,
    sealer: Option<&'a dyn HeadSigner>,
    depth: Depth,
    expected_seq: u64,
    /// The previous row's hash, as stored.
    prev: String,
    last_at: u64,
    genesis_key: Option<String>,
    bad: Option<(u64, String)>,
}

impl Walk<'_> {
    /// Checks the genesis event on this thread; says whether to go on.
    fn step(&mut self, row: StoredEvent) -> bool {
        self.bad = self.check_genesis(&row);
        if self.bad.is_some() {
            return false;
        }
        self.expected_seq = row.seq + 1;
        self.prev.clone_from(&row.hash);
        self.last_at = row.at_ms;
        true
    }

    /// The checks that depend on the rows before: the sequence follows, the link holds.
    fn order(&self, row: &StoredEvent) -> Option<(u64, String)> {
        order(self.expected_seq, &self.prev, row.seq, &row.prev_hash)
    }

    /// The first event — the only one checked here: it must be in order, authentic, and the
    /// genesis event, naming the device key that the rest (their signals, the signed head) is
    /// checked against. Its time cannot run backwards: nothing comes before it.
    fn check_genesis(&mut self, row: &StoredEvent) -> Option<(u64, String)> {
        if let Some(bad) = self.order(row) {
            return Some(bad);
        }
        let why = match content(row, self.sealer, &mut Vec::new()) {
            Some(why) => why,
            None => match read_event(row) {
                Err(why) => why,
                Ok(KernelEvent::Genesis { device_key: k, .. }) => match self.device_key {
                    Some(dk) if !dk.eq_ignore_ascii_case(&k) => format!(
                        "genesis names device key {}…, but this device's key is {}…",
                        k.get(..12).unwrap_or(&k),
                        dk.get(..12).unwrap_or(dk)
                    ),
                    _ => {
                        self.genesis_key = Some(k);
                        return None;
                    }
                },
                Ok(_) => "the first event is not genesis".into(),
            },
        };
        Some((row.seq, why))
    }
}

/// The checks of a row at `seq` linking to `prev_hash` that depend on the rows before: the sequence
/// follows (`expected_seq`), the link holds (`prev`, the previous row's hash as stored).
fn order(expected_seq: u64, prev: &str, seq: u64, prev_hash: &str) -> Option<(u64, String)> {
    if seq != expected_seq {
        return Some(if seq > expected_seq {
            (expected_seq, format!("event {expected_seq} is missing (the next stored event is {seq})"))
        } else {
            (seq, format!("sequence {seq} appears out of order"))
        });
    }
    if prev_hash != prev {
        return Some((
            seq,
            "link broken: prev_hash is not the previous event's hash (rows reordered, replaced or removed)".into(),
        ));
    }
    None
}

/// The anchor against the chain that verified up to `last_seq`.
fn check_anchor(
    ledger: &Ledger,
    anchor: Result<Option<crate::anchor::Anchor>, LedgerError>,
    last_seq: u64,
    key: Option<&str>,
) -> Result<Option<(u64, String)>, LedgerError> {
    let anchor = match anchor {
        Ok(a) => a,
        Err(e) => return Ok(Some((last_seq + 1, e.to_string()))),
    };
    let Some(anchor) = anchor else {
        return Ok((last_seq > 0).then(|| {
            (
                last_seq + 1,
                "the ledger's anchor (ledger.anchor, beside it) is missing: nothing outside the file vouches that no events were removed from its end".to_string(),
            )
        }));
    };
    if let Some(key) = key
        && !signed_by(key, anchor.seq, &anchor.hash, &anchor.signature)
    {
        return Ok(Some((anchor.seq.min(last_seq + 1), "the anchor's signature is not the device's".into())));
    }
    let at = if anchor.seq == 0 || anchor.seq > last_seq { None } else { ledger.get(anchor.seq)?.map(|r| r.hash) };
    Ok(crate::anchor::disagreement(&anchor, last_seq, at.as_deref()))
}

/// Whether `sig` is the device key's signature over the head message for (`seq`, `hash`).
fn signed_by(key: &str, seq: u64, hash: &str, sig: &str) -> bool {
    (|| {
        let key: [u8; 32] = hex::decode(key).ok()?.try_into().ok()?;
        let key = VerifyingKey::from_bytes(&key).ok()?;
        let sig: [u8; 64] = hex::decode(sig).ok()?.try_into().ok()?;
        key.verify(&head_message(seq, hash), &Signature::from_bytes(&sig)).ok()
    })()
    .is_some()
}

fn check_head(
    ledger: &Ledger,
    last_seq: u64,
    last_hash: &Hash,
    key: Option<&str>,
) -> Result<Option<(u64, String)>, LedgerError> {
    let Some(key) = key else {
        return Ok(if last_seq == 0 { None } else { Some((1, "no genesis event".into())) });
    };
    let Some((seq, hash, sig)) = ledger.head()? else {
        return Ok(Some((
            last_seq + 1,
            "the signed head record is missing: the ledger's end cannot be vouched for".into(),
        )));
    };
    if !signed_by(key, seq, &hash, &sig) {
        return Ok(Some((seq.min(last_seq + 1), "the head record's signature is not the device's".into())));
    }
    if seq > last_seq {
        return Ok(Some((
            last_seq + 1,
            format!(
                "the signed head vouches for {seq} events but the ledger ends at {last_seq}: events were removed from the end"
            ),
        )));
    }
    if seq < last_seq {
        return Ok(Some((
            seq + 1,
            format!(
                "events {}..={last_seq} come after the signed head (event {seq}): they were not written by this device's SMART",
                seq + 1
            ),
        )));
    }
    if hash != last_hash.to_hex() {
        return Ok(Some((seq, format!("the signed head names a different event {seq} than the chain holds"))));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    //! The walk on checker threads finds exactly what a one-by-one walk finds — the same first
    //! bad sequence, reason and count — for breaks in the first batch and in later ones, several
    //! at once (reported out of order by the checkers), a break of order after checked batches,
    //! and a row whose time runs backwards while its content is also wrong.
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;
    use crate::record::NewEvent;
    use ed25519_dalek::{Signer, SigningKey};
    use smart_kernel::Millis;

    struct Key(SigningKey);
    impl HeadSigner for Key {
        fn sign_hex(&self, msg: &[u8]) -> String {
            hex::encode(self.0.sign(msg).to_bytes())
        }
        fn seal_hex(&self, hash: &Hash) -> String {
            blake3::keyed_hash(&blake3::derive_key("test seal", &self.0.to_bytes()), &hash.0).to_hex().to_string()
        }
    }

    const EVENTS: u64 = 3_000;

    /// What a ledger is built with, besides gate refusals at times 1, 2, 3, …
    #[derive(Default, Clone, Copy)]
    struct Build {
        /// This sequence's time is before the one before it.
        late_at: Option<u64>,
        /// This sequence holds a second genesis event.
        genesis_again_at: Option<u64>,
        /// The first event is a gate refusal, not genesis.
        no_genesis: bool,
    }

    fn build(dir: &std::path::Path, b: Build) -> (Ledger, Key, String) {
        let key = Key(SigningKey::from_bytes(&[9u8; 32]));
        let public = hex::encode(key.0.verifying_key().to_bytes());
        let (genesis, refused) = (crate::test_support::genesis(public.clone()), crate::test_support::refusal());
        let mut ledger = Ledger::create(&dir.join("l.db")).unwrap();
        let events: Vec<(u64, &KernelEvent)> = (1..=EVENTS)
            .map(|seq| {
                let at = if b.late_at == Some(seq) { seq - 2 } else { seq };
                (at, if (seq == 1 && !b.no_genesis) || b.genesis_again_at == Some(seq) { &genesis } else { &refused })
            })
            .collect();
        for (i, chunk) in events.chunks(700).enumerate() {
            let batch: Vec<NewEvent<'_>> = chunk
                .iter()
                .map(|(at, event)| NewEvent {
                    corr: "c",
                    event,
                    at: Millis(*at),
                    wall_ms: *at,
                    state_before: Hash::ZERO,
                    state_after: Hash::ZERO,
                })
                .collect();
            ledger.append(i as u64 * 700, &batch, &key).unwrap();
        }
        crate::test_support::open_to_edits(&ledger);
        (ledger, key, public)
    }

    fn edit(seq: u64) -> String {
        format!("UPDATE events SET corr = 'd' WHERE seq = {seq}")
    }
    fn seal_edit(seq: u64) -> String {
        format!("UPDATE events SET seal = '00' WHERE seq = {seq}")
    }
    fn removal(seq: u64) -> String {
        format!("DELETE FROM events WHERE seq = {seq}")
    }

    /// What a ledger is built with, what is done to it, and the first bad sequence with words of
    /// its reason (`None`: it verifies).
    type Case = (Build, Vec<String>, Option<(u64, &'static str)>);

    /// The checkers are ahead of the reader's failures now: a row SQLite cannot hand back (a
    /// time stored as text) after a break must not turn the break into a read error.
    #[test]
    fn a_break_before_a_row_that_cannot_be_read_is_still_the_answer() {
        let dir = tempfile::tempdir().unwrap();
        let (ledger, key, public) = build(dir.path(), Build::default());
        for unreadable in [10, 2_900] {
            ledger.connection().execute_batch(&edit(5)).unwrap();
            ledger
                .connection()
                .execute_batch(&format!("UPDATE events SET at_ms = 'x' WHERE seq = {unreadable}"))
                .unwrap();
            let ways = [usize::MAX, 7, BATCH].map(|size| (size, Ranges::Exactly(1)));
            for (size, ranges) in ways.into_iter().chain([2, 3, 5].map(|n| (BATCH, Ranges::Exactly(n)))) {
                let r = verify_in_batches(&ledger, Some(&public), Some(&key), Depth::Full, None, size, ranges).unwrap();
                assert_eq!(
                    (r.first_bad_seq, r.events),
                    (Some(5), 4),
                    "unreadable {unreadable}, batches of {size}, {ranges:?}: {r:?}"
                );
            }
        }
    }

    #[test]
    fn checker_threads_find_the_first_break_exactly_where_a_one_by_one_walk_does() {
        let cases: Vec<Case> = vec![
            (Build::default(), vec![], None),
            (Build::default(), vec![edit(1)], Some((1, "hash mismatch"))),
            (Build::default(), vec![edit(2)], Some((2, "hash mismatch"))),
            (Build::default(), vec![edit(2_500)], Some((2_500, "hash mismatch"))),
            (Build::default(), vec![seal_edit(1_500), edit(2_700)], Some((1_500, "seal mismatch"))),
            (Build::default(), vec![edit(2_900), seal_edit(700)], Some((700, "seal mismatch"))),
            (Build::default(), vec![removal(2_000), edit(1_000)], Some((1_000, "hash mismatch"))),
            (Build::default(), vec![removal(1_000), edit(2_000)], Some((1_000, "is missing"))),
            (Build::default(), vec![removal(EVENTS)], Some((EVENTS, "removed from the end"))),
            (Build { late_at: Some(1_234), ..Build::default() }, vec![], Some((1_234, "time runs backwards"))),
            (
                Build { late_at: Some(1_234), ..Build::default() },
                vec![seal_edit(1_234)],
                Some((1_234, "seal mismatch")),
            ),
            (Build { genesis_again_at: Some(2_222), ..Build::default() }, vec![], Some((2_222, "second genesis"))),
            (Build { no_genesis: true, ..Build::default() }, vec![], Some((1, "the first event is not genesis"))),
        ];
        for (n, (b, tamper, expected)) in cases.into_iter().enumerate() {
            let dir = tempfile::tempdir().unwrap();
            let (ledger, key, public) = build(dir.path(), b);
            for sql in &tamper {
                ledger.connection().execute_batch(sql).unwrap();
            }
            let marked = ledger.get(1_100).unwrap().unwrap();
            let mark = Mark { seq: 1_100, hash: marked.hash, schema: ledger.schema_version().unwrap() };
            for depth in [Depth::Full, Depth::Authentic] {
                for from in [None, Some(&mark)] {
                    let walk = |size, ranges| {
                        let key = Some(&key as &dyn HeadSigner);
                        verify_in_batches(&ledger, Some(&public), key, depth, from, size, ranges).unwrap()
                    };
                    let one_by_one = walk(usize::MAX, Ranges::Exactly(1));
                    for size in [1, 7, 256, BATCH] {
                        let batched = walk(size, Ranges::Exactly(1));
                        assert_eq!(batched, one_by_one, "case {n} {depth:?} from {from:?}, batches of {size}");
                    }
                    for ranges in [2, 3, 5, 8] {
                        let ranged = walk(BATCH, Ranges::Exactly(ranges));
                        assert_eq!(ranged, one_by_one, "case {n} {depth:?} from {from:?}, {ranges} ranges");
                    }
                    // What the one-by-one walk finds is what was done (a second genesis and
                    // breaks before the mark are not what an open from the mark reads).
                    let before_mark = expected.is_some_and(|(seq, _)| seq <= mark.seq && seq > 1);
                    let expected = match expected {
                        Some((_, "second genesis")) if depth == Depth::Authentic => None,
                        e if from.is_some() && before_mark => {
                            assert!(e.is_some());
                            continue;
                        }
                        e => e,
                    };
                    match expected {
                        None => assert!(one_by_one.ok, "case {n} {depth:?}: {one_by_one:?}"),
                        Some((seq, words)) => {
                            assert_eq!(one_by_one.first_bad_seq, Some(seq), "case {n} {depth:?}: {one_by_one:?}");
                            assert!(
                                one_by_one.reason.as_deref().is_some_and(|r| r.contains(words)),
                                "case {n} {depth:?}: {one_by_one:?}"
                            );
                        }
                    }
                }
            }
        }
    }

    /// Each reader checks its range's first row without the row before it; the seam is checked
    /// after. Breaks placed exactly at the seams — the first row of a range edited, removed,
    /// relinked, late, late and edited, a second genesis, unreadable; the last row of the range
    /// before removed — are found where, and as, a one-by-one walk finds them.
    #[test]
    fn range_readers_find_a_break_at_the_seam_between_ranges_where_a_one_by_one_walk_does() {
        let mut built = Built::default();
        // Three ranges: a seam after the first range and one between two later ones.
        let ranges = 3;
        for from_mark in [false, true] {
            let first = if from_mark { 1_101 } else { 2 };
            for (k, &(lo, _)) in range_bounds(first, EVENTS, ranges).iter().enumerate().skip(1) {
                let cases: Vec<(Build, Vec<String>)> = vec![
                    (Build::default(), vec![edit(lo)]),
                    (Build::default(), vec![seal_edit(lo)]),
                    (Build::default(), vec![removal(lo)]),
                    (Build::default(), vec![removal(lo - 1)]),
                    (Build::default(), vec![removal(lo - 1), removal(lo)]),
                    (Build::default(), vec![format!("UPDATE events SET prev_hash = hash WHERE seq = {lo}")]),
                    (Build { late_at: Some(lo), ..Build::default() }, vec![]),
                    (Build { late_at: Some(lo), ..Build::default() }, vec![edit(lo)]),
                    (Build { late_at: Some(lo + 1), ..Build::default() }, vec![]),
                    (Build { genesis_again_at: Some(lo), ..Build::default() }, vec![]),
                    (Build::default(), vec![format!("UPDATE events SET at_ms = 'x' WHERE seq = {lo}")]),
                    (Build::default(), vec![format!("UPDATE events SET at_ms = 'x' WHERE seq = {}", lo - 1)]),
                ];
                for (n, (b, tamper)) in cases.into_iter().enumerate() {
                    let dir = tempfile::tempdir().unwrap();
                    let (ledger, key, public) = built.copy(b, dir.path());
                    for sql in &tamper {
                        ledger.connection().execute_batch(sql).unwrap();
                    }
                    let marked = ledger.get(1_100).unwrap().unwrap();
                    let mark = Mark { seq: 1_100, hash: marked.hash, schema: ledger.schema_version().unwrap() };
                    let from = from_mark.then_some(&mark);
                    for depth in [Depth::Full, Depth::Authentic] {
                        let walk = |size, r| {
                            verify_in_batches(&ledger, Some(&public), Some(&key), depth, from, size, r)
                                .map_err(|e| e.to_string())
                        };
                        let one_by_one = walk(usize::MAX, Ranges::Exactly(1));
                        // A second genesis is found by reading payloads, as Full does.
                        let found = !matches!(&one_by_one, Ok(r) if r.ok);
                        assert!(found || depth == Depth::Authentic, "seam {k} case {n}: {one_by_one:?}");
                        assert_eq!(
                            walk(BATCH, Ranges::Exactly(ranges)),
                            one_by_one,
                            "{ranges} ranges, seam {k} at {lo}, case {n} {tamper:?} {depth:?} from the mark: {from_mark}"
                        );
                    }
                }
            }
        }
    }

    /// Ledgers built once per [`Build`], copied for each case.
    #[derive(Default)]
    struct Built(Vec<(Build, tempfile::TempDir)>);

    impl Built {
        fn copy(&mut self, b: Build, to: &std::path::Path) -> (Ledger, Key, String) {
            let same = |x: &Build| {
                (x.late_at, x.genesis_again_at, x.no_genesis) == (b.late_at, b.genesis_again_at, b.no_genesis)
            };
            if !self.0.iter().any(|(x, _)| same(x)) {
                let dir = tempfile::tempdir().unwrap();
                drop(build(dir.path(), b));
                self.0.push((b, dir));
            }
            let from = self.0.iter().find(|(x, _)| same(x)).map(|(_, d)| d.path().join("l.db")).unwrap();
            let copy = to.join("l.db");
            let source = Ledger::open(&from).unwrap();
            source.connection().execute("VACUUM INTO ?1", [copy.to_str().unwrap()]).unwrap();
            std::fs::copy(crate::anchor::path_for(&from), crate::anchor::path_for(&copy)).unwrap();
            let key = Key(SigningKey::from_bytes(&[9u8; 32]));
            let public = hex::encode(key.0.verifying_key().to_bytes());
            (Ledger::open(&copy).unwrap(), key, public)
        }
    }

    #[test]
    fn ranges_cover_every_sequence_once_in_order() {
        for (first, last) in [(2, 2), (2, 3), (2, 3_000), (1_101, 3_000), (5, 1_000_000)] {
            for n in [1, 2, 3, 4, 7] {
                let b = range_bounds(first, last, n);
                assert_eq!(b.first().map(|r| r.0), Some(first));
                assert_eq!(b.last().map(|r| r.1), Some(last));
                assert!(b.windows(2).all(|w| w[1].0 == w[0].1 + 1), "{b:?}");
                assert!(b.iter().all(|(lo, hi)| lo <= hi) && b.len() <= n, "{b:?}");
            }
        }
    }
}
