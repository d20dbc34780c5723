//! Section 2: the durable append, against raw SQLite doing the same inserts on the same disk.

use crate::Summary;
use crate::sim::{BenchKey, Generator, Row};
use crate::stats::{Dist, int, rate};
use anyhow::{Result, bail};
use rusqlite::types::Value;
use rusqlite::{Connection, params_from_iter};
use smart_ledger::{Ledger, NewEvent};
use std::path::Path;
use std::time::Instant;

fn new_event(r: &Row) -> NewEvent<'_> {
    NewEvent {
        corr: &r.corr,
        event: &r.event,
        at: r.at,
        wall_ms: r.wall_ms,
        state_before: r.before,
        state_after: r.after,
    }
}

/// The ledger's pragmas, set the way `Ledger` sets them.
fn durable(conn: &Connection) -> Result<()> {
    let mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        bail!("cannot enable WAL (journal mode is {mode})");
    }
    conn.pragma_update(None, "synchronous", "FULL")?;
    Ok(())
}

fn pragmas(conn: &Connection) -> Result<String> {
    let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
    let sync: i64 = conn.query_row("PRAGMA synchronous", [], |r| r.get(0))?;
    Ok(format!("journal_mode={mode} synchronous={sync}"))
}

/// A fresh database with the ledger file's schema (tables, indexes, triggers), copied from it.
fn raw_db(path: &Path, ledger: &Connection) -> Result<Connection> {
    let conn = Connection::open(path)?;
    durable(&conn)?;
    let mut st = ledger.prepare(
        "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'
         ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 ELSE 2 END, name",
    )?;
    let ddl = st.query_map([], |r| r.get::<_, String>(0))?.collect::<Result<Vec<_>, _>>()?;
    for sql in ddl {
        conn.execute_batch(&sql)?;
    }
    Ok(conn)
}

/// Every stored row, as plain SQLite values, and the column count.
fn stored_rows(ledger: &Connection) -> Result<(usize, Vec<Vec<Value>>)> {
    let mut st = ledger.prepare("SELECT * FROM events ORDER BY seq")?;
    let cols = st.column_count();
    if st.column_index("hash").ok() != Some(HASH_COL) {
        bail!("the events table changed shape: the bench expects `hash` as column {HASH_COL}");
    }
    let rows = st.query_map([], |r| (0..cols).map(|i| r.get::<_, Value>(i)).collect::<Result<Vec<_>, _>>())?;
    Ok((cols, rows.collect::<Result<Vec<_>, _>>()?))
}

/// Where the row's chain hash sits (the head upsert of the control run copies it).
const HASH_COL: usize = 9;

fn insert_sql(cols: usize) -> String {
    let marks: Vec<String> = (1..=cols).map(|i| format!("?{i}")).collect();
    format!("INSERT INTO events VALUES ({})", marks.join(", "))
}

fn avg_payload(rows: &[Vec<Value>]) -> f64 {
    let total: usize = rows
        .iter()
        .flatten()
        .map(|v| match v {
            Value::Text(t) => t.len(),
            Value::Blob(b) => b.len(),
            _ => 8,
        })
        .sum();
    total as f64 / rows.len().max(1) as f64
}

/// Where the rows go: the ledger, or a raw table of the same schema.
enum Sink {
    /// `Ledger::append`: tail check, canonical JSON, chain hash, seal, signed head, one transaction.
    Ledger(Ledger),
    /// Bare INSERTs of the same rows (autocommit when one per transaction).
    Raw(Connection),
    /// Control: bare INSERTs plus the ledger's head upsert, in one transaction.
    RawHead(Connection),
}

const HEAD_UPSERT: &str = "INSERT INTO head (id, seq, hash, signature) VALUES (1, ?1, ?2, ?3)
     ON CONFLICT(id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, signature = excluded.signature";

/// Writes rows `[from, to)` in transactions of `per_tx`; returns each transaction's nanoseconds.
fn write(
    sink: &mut Sink,
    rows: &[Row],
    stored: &[Vec<Value>],
    from: usize,
    to: usize,
    per_tx: usize,
    key: &BenchKey,
) -> Result<Vec<u64>> {
    let mut lat = Vec::with_capacity((to - from).div_ceil(per_tx));
    let signature = "0".repeat(128);
    let mut start = from;
    while start < to {
        let end = (start + per_tx).min(to);
        let chunk = stored.get(start..end).unwrap_or_default();
        let t = Instant::now();
        match sink {
            Sink::Ledger(ledger) => {
                let evs: Vec<NewEvent<'_>> = rows.get(start..end).unwrap_or_default().iter().map(new_event).collect();
                ledger.append(start as u64, &evs, key)?;
            }
            Sink::Raw(conn) if per_tx == 1 => {
                for row in chunk {
                    conn.prepare_cached(&insert_sql(row.len()))?.execute(params_from_iter(row.iter()))?;
                }
            }
            Sink::Raw(conn) => {
                let tx = conn.transaction()?;
                for row in chunk {
                    tx.prepare_cached(&insert_sql(row.len()))?.execute(params_from_iter(row.iter()))?;
                }
                tx.commit()?;
            }
            Sink::RawHead(conn) => {
                let tx = conn.transaction()?;
                for row in chunk {
                    tx.prepare_cached(&insert_sql(row.len()))?.execute(params_from_iter(row.iter()))?;
                }
                let hash = chunk.last().and_then(|r| r.get(HASH_COL)).cloned().unwrap_or(Value::Null);
                tx.prepare_cached(HEAD_UPSERT)?.execute(rusqlite::params![end as i64, hash, signature])?;
                tx.commit()?;
            }
        }
        lat.push(t.elapsed().as_nanos() as u64);
        start = end;
    }
    Ok(lat)
}

/// Rounds per contest: the contenders take turns on successive slices of the rows (rotating who
/// goes first), so a slow patch of the disk falls on all of them alike.
const ROUNDS: usize = 10;

/// Runs every sink over all the rows, interleaved; returns each sink's per-transaction latencies.
fn contest(
    sinks: &mut [Sink],
    rows: &[Row],
    stored: &[Vec<Value>],
    per_tx: usize,
    key: &BenchKey,
) -> Result<Vec<Vec<u64>>> {
    let txs = rows.len().div_ceil(per_tx);
    let rounds = ROUNDS.min(txs).max(1);
    let mut lat: Vec<Vec<u64>> = sinks.iter().map(|_| Vec::with_capacity(txs)).collect();
    let k = sinks.len();
    for r in 0..rounds {
        let from = (r * txs / rounds * per_tx).min(rows.len());
        let to = ((r + 1) * txs / rounds * per_tx).min(rows.len());
        for j in 0..k {
            let i = (r + j) % k;
            if let (Some(sink), Some(out)) = (sinks.get_mut(i), lat.get_mut(i)) {
                out.extend(write(sink, rows, stored, from, to, per_tx, key)?);
            }
        }
    }
    Ok(lat)
}

/// The rows a ledger stores for `rows`, from an untimed scratch ledger (batches of 1,000), and
/// that ledger's connection for its schema.
fn scratch(path: &Path, rows: &[Row], key: &BenchKey) -> Result<(Ledger, Vec<Vec<Value>>)> {
    let mut ledger = Ledger::create(path)?;
    let mut seq = 0u64;
    for chunk in rows.chunks(1_000) {
        let evs: Vec<NewEvent<'_>> = chunk.iter().map(new_event).collect();
        seq += ledger.append(seq, &evs, key)?.len() as u64;
    }
    let (_, stored) = stored_rows(ledger.connection())?;
    if stored.len() != rows.len() {
        bail!("the scratch ledger holds {} events, {} were appended", stored.len(), rows.len());
    }
    Ok((ledger, stored))
}

fn ratio(a: f64, b: f64) -> f64 {
    a / b.max(f64::MIN_POSITIVE)
}

/// Builds the three contenders, runs them interleaved at `per_tx`, checks the ledger wrote
/// exactly the rows the raw tables got, and returns (ledger, raw, raw+head) distributions.
fn round(dir: &Path, tag: &str, n: u64, per_tx: usize, epoch: u64, key: &BenchKey) -> Result<[(Dist, f64); 3]> {
    let rows = Generator::new(epoch)?.events(n)?;
    let (scratch, stored) = scratch(&dir.join(format!("scratch-{tag}.db")), &rows, key)?;
    let mut sinks = [
        Sink::Ledger(Ledger::create(&dir.join(format!("ledger-{tag}.db")))?),
        Sink::Raw(raw_db(&dir.join(format!("raw-{tag}.db")), scratch.connection())?),
        Sink::RawHead(raw_db(&dir.join(format!("raw-head-{tag}.db")), scratch.connection())?),
    ];
    if per_tx == 1 {
        let [Sink::Ledger(l), Sink::Raw(r), _] = &sinks else {
            bail!("sinks out of order");
        };
        println!("   pragmas: ledger {}; raw {}", pragmas(l.connection())?, pragmas(r)?);
        println!(
            "   rows: {} columns, {:.0} bytes of values on average (real kernel events)",
            stored.first().map(Vec::len).unwrap_or(0),
            avg_payload(&stored)
        );
    }
    let lat = contest(&mut sinks, &rows, &stored, per_tx, key)?;
    if let [Sink::Ledger(l), ..] = &sinks {
        let (_, written) = stored_rows(l.connection())?;
        if written != stored {
            bail!("the timed ledger's rows differ from the rows given to raw SQLite");
        }
    }
    let mut out = lat.into_iter().map(|l| {
        let d = Dist::of(l);
        let eps = crate::stats::per_sec(n, d.total_ns);
        (d, eps)
    });
    match (out.next(), out.next(), out.next()) {
        (Some(a), Some(b), Some(c)) => Ok([a, b, c]),
        _ => bail!("a contender is missing"),
    }
}

pub fn run(n: u64, batched: u64, epoch: u64, dir: &Path, s: &mut Summary) -> Result<()> {
    println!("\n== 2. durable append: Ledger::append vs raw SQLite, same disk, WAL + synchronous=FULL ==");
    println!("   directory: {}; the contenders alternate in {ROUNDS} rounds over the same rows", dir.display());
    let key = BenchKey::new();

    let [(a, ea), (b, eb), (h, eh)] = round(dir, "single", n, 1, epoch, &key)?;
    println!("   (a) Ledger::append, 1 event/tx : {:>7} events/s   per append {}", rate(ea), a.line());
    println!("   (b) raw INSERT, autocommit     : {:>7} events/s   per insert {}", rate(eb), b.line());
    println!("   (b') control, raw INSERT + head upsert, 1 tx: {:>7} events/s   per tx {}", rate(eh), h.line());
    println!(
        "   ledger/raw throughput = {:.2} (an append takes {:.2}x a bare insert; {:.2}x the insert + head-upsert control)",
        ratio(ea, eb),
        ratio(a.mean_ns(), b.mean_ns()),
        ratio(a.mean_ns(), h.mean_ns())
    );
    s.add(&format!("append 1 event/tx: Ledger::append (events/s, N={})", int(n)), rate(ea));
    s.add("append 1 event/tx: raw SQLite INSERT, autocommit (events/s)", rate(eb));
    s.add("append 1 event/tx: ledger / raw throughput", format!("{:.2}", ratio(ea, eb)));
    s.add("append 1 event/tx: control, raw INSERT + head upsert (events/s)", rate(eh));
    s.add("append 1 event/tx: Ledger::append p50 / p99 / p99.9 / max (µs)", a.short());

    let [(c, ec), (d, ed), (_, eh2)] = round(dir, "batch", batched, 100, epoch, &key)?;
    println!(
        "   (c) Ledger::append, 100 events/tx: {} events/s (per append p50 {} µs); raw, 100 rows/tx: {} events/s (p50 {} µs); raw + head upsert: {} events/s",
        rate(ec),
        crate::stats::us(c.p50),
        rate(ed),
        crate::stats::us(d.p50),
        rate(eh2)
    );
    println!(
        "       ledger/raw = {:.2}  ({} events, {} transactions each)",
        ratio(ec, ed),
        int(batched),
        int(batched.div_ceil(100))
    );
    // What the ledger adds per event before SQLite sees a row (the same work `append` does).
    let rows = Generator::new(epoch)?.events(batched.min(20_000))?;
    let (mut canonical_ns, mut depth_ns, mut chain_ns, mut seal_ns) = (0u128, 0u128, 0u128, 0u128);
    for r in &rows {
        let t = Instant::now();
        let payload = smart_kernel::canonical_bytes(&r.event)?;
        canonical_ns += t.elapsed().as_nanos();
        let text = String::from_utf8(payload)?;
        let t = Instant::now();
        std::hint::black_box(smart_ledger::record::json_depth(&text));
        depth_ns += t.elapsed().as_nanos();
        let row = smart_ledger::StoredEvent {
            seq: 1,
            corr: r.corr.clone(),
            kind: r.event.kind().to_string(),
            payload: text,
            at_ms: r.at.0,
            wall_ms: r.wall_ms,
            state_before: r.before.to_hex(),
            state_after: r.after.to_hex(),
            prev_hash: r.before.to_hex(),
            hash: String::new(),
            seal: String::new(),
            chain: smart_ledger::record::CHAIN_NOW,
        };
        let t = Instant::now();
        let h = row.compute_hash().map_err(anyhow::Error::msg)?;
        chain_ns += t.elapsed().as_nanos();
        let t = Instant::now();
        std::hint::black_box(smart_ledger::HeadSigner::seal_hex(&key, &h));
        seal_ns += t.elapsed().as_nanos();
    }
    let per = |ns: u128| ns as f64 / rows.len().max(1) as f64 / 1e3;
    println!(
        "       the ledger's own work per event: canonical JSON {:.2} µs + depth check {:.2} + chain hash {:.2} + seal {:.2} (raw's whole insert: {:.2} µs)",
        per(canonical_ns),
        per(depth_ns),
        per(chain_ns),
        per(seal_ns),
        1e6 / ed.max(1.0)
    );
    s.add(
        "append: the ledger's own work per event (canonical JSON + depth + chain hash + seal, µs)",
        format!("{:.2} + {:.2} + {:.2} + {:.2}", per(canonical_ns), per(depth_ns), per(chain_ns), per(seal_ns)),
    );
    s.add(&format!("append 100 events/tx: Ledger::append (events/s, N={})", int(batched)), rate(ec));
    s.add("append 100 events/tx: raw SQLite (events/s)", rate(ed));
    s.add("append 100 events/tx: ledger / raw throughput", format!("{:.2}", ratio(ec, ed)));
    Ok(())
}
