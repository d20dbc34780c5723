//! Tampering with a real ledger file, the way an attacker with the file would: drop the
//! append-only triggers, then edit with raw SQL. Each mutation must be caught by
//! `smart ledger verify` at exactly the right sequence.
//!
//! Mutations: a flipped byte in a payload, a deleted row, two rows swapped, an edited approval
//! signature, an edited non-payload column, an edited seal, a truncated tail, a row moved to the
//! end — and the "re-chained" kind, where the attacker also recomputes every hash after the edit
//! so the chain itself looks intact (caught by the per-event seal, or without the device key,
//! by the signed head).
//!
//! Then what the attack run of issue 16 did next: after a tamper, run an ordinary command. A
//! ledger that was cut short, put back or edited in the middle must stop every command (exit 6,
//! nothing appended), and stay refused — the next command must not re-sign a head over it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use rusqlite::{Connection, params};
use serde_json::Value;
use smart_ledger::StoredEvent;
use std::path::{Path, PathBuf};

/// A ledger with every kind of event worth tampering with, including signed approvals.
fn build() -> Smart {
    let mut s = Smart::init(Some("[gates]\nafter_l1_ms = 0\nafter_l2_ms = 0\nafter_l3_ms = 0\nl4_cooldown_ms = 0\n"));
    s.write("docs/a.txt", "same");
    s.write("docs/b.txt", "same");
    s.write("docs/c.txt", "other");
    s.commit_lease();
    assert_eq!(s.call("fs.scan", r#"{"path": "docs"}"#).0, 0);
    assert_eq!(s.call("cluster.duplicates", r#"{"path": "docs"}"#).0, 0);
    let (_, v) = s.call("propose.move", r#"{"moves": [{"from": "docs/b.txt", "to": "dups/b.txt"}]}"#);
    let apply = format!(r#"{{"proposal": "{}"}}"#, v["artifact"].as_str().unwrap());
    assert_eq!(s.call("apply.move", &apply).0, 0);
    for name in ["docs/c.txt", "docs/a.txt"] {
        s.advance(10);
        let (c, v) = s.call("fs.quarantine", &format!(r#"{{"paths": ["{name}"]}}"#));
        assert_eq!(c, 4, "{v}");
        let (c, _) = s.json(&["approve", v["pending_id"].as_str().unwrap()]);
        assert_eq!(c, 0);
    }
    assert_eq!(s.call("fs.hash", r#"{"path": "/etc/passwd"}"#).0, 3);
    assert_eq!(s.json(&["ledger", "verify"]).0, 0);
    // Fold the WAL into the main file so a copy of ledger.db is the whole ledger.
    let c = Connection::open(s.ledger()).unwrap();
    c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).unwrap();
    s
}

/// A copy of the data dir to wreck.
fn copy_data(s: &Smart, tag: &str) -> PathBuf {
    let dst = s.tmp.path().join(format!("copy-{tag}"));
    std::fs::create_dir_all(&dst).unwrap();
    for f in ["ledger.db", "ledger.anchor", "keystore.json", "device.key"] {
        std::fs::copy(s.data.join(f), dst.join(f)).unwrap();
    }
    dst
}

fn open_for_attack(data: &Path) -> Connection {
    let c = Connection::open(data.join("ledger.db")).unwrap();
    c.execute_batch("DROP TRIGGER events_append_only_update; DROP TRIGGER events_append_only_delete;").unwrap();
    c
}

/// Every row of the ledger file `path`, read through the ledger's own reader.
fn rows(path: &Path) -> Vec<StoredEvent> {
    smart_ledger::Ledger::open(path).unwrap().list(0, None, usize::MAX).unwrap()
}

/// Recomputes prev_hash and hash from `from` to the end, as an attacker without the key can.
fn rechain(c: &Connection, from: u64) {
    let mut prev: Option<String> = None;
    let path = c.path().map(std::path::PathBuf::from).unwrap();
    for mut r in rows(&path) {
        if r.seq < from {
            prev = Some(r.hash.clone());
            continue;
        }
        r.prev_hash = prev.clone().unwrap_or_else(|| "0".repeat(64));
        r.hash = r.compute_hash().unwrap().to_hex();
        c.execute(
            "UPDATE events SET prev_hash = ?1, hash = ?2 WHERE seq = ?3",
            params![r.prev_hash, r.hash, r.seq as i64],
        )
        .unwrap();
        prev = Some(r.hash);
    }
}

fn verify(s: &Smart, data: &Path) -> Value {
    let out = output(s.cmd().env("SMART_DATA_DIR", data).args(["--json", "ledger", "verify"]));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code() == Some(0), v["ok"] == true);
    v
}

fn assert_caught_at(s: &Smart, data: &Path, seq: u64, what: &str) {
    let v = verify(s, data);
    assert_eq!(v["ok"], false, "{what}: not detected: {v}");
    assert_eq!(v["first_bad_seq"].as_u64(), Some(seq), "{what}: {v}");
    assert!(v["reason"].as_str().is_some_and(|r| !r.is_empty()), "{what}: no reason");
}

/// xorshift: the seeds are fixed, so a failure names a reproducible case.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

fn flip_one_char(text: &str, rng: &mut Rng) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let i = rng.below(bytes.len() as u64) as usize;
    // Stay ASCII so the column stays valid text; always change the byte.
    bytes[i] = if bytes[i] == b'x' {
        b'y'
    } else if bytes[i].is_ascii() {
        b'x'
    } else {
        bytes[i]
    };
    String::from_utf8(bytes).unwrap_or_else(|_| format!("{text}x"))
}

#[test]
fn every_single_mutation_is_caught_at_its_sequence() {
    let s = build();
    let n = rows(&s.ledger()).len() as u64;
    assert!(n > 25, "the ledger under test should be substantial ({n})");
    let approvals: Vec<u64> = rows(&s.ledger()).iter().filter(|r| r.kind == "approved").map(|r| r.seq).collect();
    assert_eq!(approvals.len(), 2);

    for seed in 1..=8u64 {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ seed.wrapping_mul(0x2545_F491_4F6C_DD1D));
        let k = 1 + rng.below(n - 1); // 1..n-1, so k+1 exists

        // A flipped byte in a payload.
        let d = copy_data(&s, &format!("flip{seed}"));
        let c = open_for_attack(&d);
        let p: String = c.query_row("SELECT payload FROM events WHERE seq = ?1", [k as i64], |r| r.get(0)).unwrap();
        c.execute("UPDATE events SET payload = ?1 WHERE seq = ?2", params![flip_one_char(&p, &mut rng), k as i64])
            .unwrap();
        drop(c);
        assert_caught_at(&s, &d, k, &format!("byte flip at {k}"));

        // A deleted row.
        let d = copy_data(&s, &format!("del{seed}"));
        let c = open_for_attack(&d);
        c.execute("DELETE FROM events WHERE seq = ?1", [k as i64]).unwrap();
        drop(c);
        assert_caught_at(&s, &d, k, &format!("deleted row {k}"));

        // Two neighbours swapped (every column but the sequence).
        let d = copy_data(&s, &format!("swap{seed}"));
        let c = open_for_attack(&d);
        c.execute_batch(&format!(
            "CREATE TEMP TABLE t AS SELECT * FROM events WHERE seq IN ({k}, {k1});
             UPDATE events SET (corr, kind, payload, at_ms, wall_ms, state_before, state_after, prev_hash, hash, seal) =
               (SELECT corr, kind, payload, at_ms, wall_ms, state_before, state_after, prev_hash, hash, seal FROM t WHERE t.seq = CASE events.seq WHEN {k} THEN {k1} ELSE {k} END)
             WHERE seq IN ({k}, {k1});",
            k1 = k + 1
        ))
        .unwrap();
        drop(c);
        assert_caught_at(&s, &d, k, &format!("rows {k},{} swapped", k + 1));

        // A non-payload column.
        let d = copy_data(&s, &format!("wall{seed}"));
        let c = open_for_attack(&d);
        c.execute("UPDATE events SET wall_ms = wall_ms + 1 WHERE seq = ?1", [k as i64]).unwrap();
        drop(c);
        assert_caught_at(&s, &d, k, &format!("wall time at {k}"));

        // Only the seal.
        let d = copy_data(&s, &format!("seal{seed}"));
        let c = open_for_attack(&d);
        let seal: String = c.query_row("SELECT seal FROM events WHERE seq = ?1", [k as i64], |r| r.get(0)).unwrap();
        c.execute("UPDATE events SET seal = ?1 WHERE seq = ?2", params![flip_one_char(&seal, &mut rng), k as i64])
            .unwrap();
        drop(c);
        assert_caught_at(&s, &d, k, &format!("seal at {k}"));

        // Re-chained: edit a payload and recompute every hash after it.
        let d = copy_data(&s, &format!("rechain{seed}"));
        let c = open_for_attack(&d);
        let p: String = c.query_row("SELECT payload FROM events WHERE seq = ?1", [k as i64], |r| r.get(0)).unwrap();
        c.execute("UPDATE events SET payload = ?1 WHERE seq = ?2", params![flip_one_char(&p, &mut rng), k as i64])
            .unwrap();
        rechain(&c, k);
        drop(c);
        assert_caught_at(&s, &d, k, &format!("re-chained edit at {k}"));

        // Re-chained, on a machine without the device key: still caught (by the signed head).
        std::fs::remove_file(d.join("device.key")).unwrap();
        let v = verify(&s, &d);
        assert_eq!(v["ok"], false, "re-chained edit without the key: {v}");
    }
}

#[test]
fn edited_approval_signatures_are_caught_even_when_re_chained() {
    let s = build();
    let approvals: Vec<u64> = rows(&s.ledger()).iter().filter(|r| r.kind == "approved").map(|r| r.seq).collect();
    for (i, k) in approvals.into_iter().enumerate() {
        for rechained in [false, true] {
            let d = copy_data(&s, &format!("sig{i}{rechained}"));
            let c = open_for_attack(&d);
            let p: String = c.query_row("SELECT payload FROM events WHERE seq = ?1", [k as i64], |r| r.get(0)).unwrap();
            let mut v: Value = serde_json::from_str(&p).unwrap();
            let sig = v["signal"]["signature"].as_str().unwrap().to_string();
            let forged = format!("{}{}", if sig.starts_with('a') { "b" } else { "a" }, &sig[1..]);
            v["signal"]["signature"] = Value::String(forged);
            let text = String::from_utf8(smart_kernel::canonical_bytes(&v).unwrap()).unwrap();
            c.execute("UPDATE events SET payload = ?1 WHERE seq = ?2", params![text, k as i64]).unwrap();
            if rechained {
                rechain(&c, k);
            }
            drop(c);
            assert_caught_at(&s, &d, k, &format!("signature at {k}, rechained {rechained}"));
            if rechained {
                // Without the seal key the bad signature itself is what gives it away.
                std::fs::remove_file(d.join("device.key")).unwrap();
                let v = verify(&s, &d);
                assert_eq!(v["first_bad_seq"].as_u64(), Some(k), "{v}");
                assert!(v["reason"].as_str().unwrap().contains("signature"), "{v}");
            }
        }
    }
}

#[test]
fn truncation_and_moving_a_row_to_the_end_are_caught() {
    let s = build();
    let n = rows(&s.ledger()).len() as u64;

    let d = copy_data(&s, "trunc");
    let c = open_for_attack(&d);
    c.execute("DELETE FROM events WHERE seq > ?1", [(n - 3) as i64]).unwrap();
    drop(c);
    assert_caught_at(&s, &d, n - 2, "truncated tail");

    let d = copy_data(&s, "tail1");
    let c = open_for_attack(&d);
    c.execute("DELETE FROM events WHERE seq = ?1", [n as i64]).unwrap();
    drop(c);
    assert_caught_at(&s, &d, n, "last row deleted");

    let d = copy_data(&s, "move");
    let c = open_for_attack(&d);
    c.execute("UPDATE events SET seq = ?1 WHERE seq = 7", [(n + 1) as i64]).unwrap();
    drop(c);
    assert_caught_at(&s, &d, 7, "row 7 moved to the end");

    // Rewriting the genesis under another key (and re-chaining everything) is caught on the
    // device, whose key record names the real key.
    let d = copy_data(&s, "genesis");
    let c = open_for_attack(&d);
    let p: String = c.query_row("SELECT payload FROM events WHERE seq = 1", [], |r| r.get(0)).unwrap();
    let mut v: Value = serde_json::from_str(&p).unwrap();
    v["device_key"] = Value::String("11".repeat(32));
    c.execute(
        "UPDATE events SET payload = ?1 WHERE seq = 1",
        [String::from_utf8(smart_kernel::canonical_bytes(&v).unwrap()).unwrap()],
    )
    .unwrap();
    rechain(&c, 1);
    drop(c);
    assert_caught_at(&s, &d, 1, "genesis key replaced");
}

#[test]
fn an_untouched_copy_verifies() {
    // The harness itself must not produce false alarms.
    let s = build();
    let d = copy_data(&s, "clean");
    assert_eq!(verify(&s, &d)["ok"], true);
}

/// Runs `args` against the data dir `data` with `--json`; the exit code and the output.
fn run_in(s: &Smart, data: &Path, args: &[&str]) -> (i32, String) {
    let out = output(s.cmd().env("SMART_DATA_DIR", data).arg("--json").args(args));
    (
        out.status.code().unwrap_or(-1),
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)),
    )
}

/// Every file of a data dir's ledger, as bytes: what "nothing appended" compares.
fn ledger_bytes(data: &Path) -> Vec<(String, Vec<u8>)> {
    ["ledger.db", "ledger.db-wal", "ledger.anchor"]
        .iter()
        .filter_map(|f| std::fs::read(data.join(f)).ok().map(|b| (f.to_string(), b)))
        .collect()
}

/// The data dir's ledger must fail verification, stop every command with exit 6 naming why,
/// change nothing, and still fail verification afterwards.
fn assert_refused_for_good(s: &Smart, data: &Path, what: &str, says: &str) {
    let first = verify(s, data);
    assert_eq!(first["ok"], false, "{what}: verify did not notice: {first}");
    assert!(first["reason"].as_str().unwrap().contains(says), "{what}: {first}");
    let before = ledger_bytes(data);
    for args in [
        &["status"][..],
        &["call", "fs.scan", "--args", r#"{"path": "docs"}"#],
        &["lease", "draft", "--frame", "x", "--horizon", "short", "--expires-in", "1h"],
    ] {
        let (code, out) = run_in(s, data, args);
        assert_eq!(code, 6, "{what}: `{}` was not stopped: {out}", args.join(" "));
        assert!(out.contains(says), "{what}: `{}` does not say why: {out}", args.join(" "));
    }
    assert_eq!(ledger_bytes(data), before, "{what}: a refused command changed the ledger");
    let again = verify(s, data);
    assert_eq!(again, first, "{what}: verify's finding changed after the commands");
}

#[test]
fn cutting_the_tail_is_remembered_after_the_next_command() {
    let s = build();
    let n = rows(&s.ledger()).len() as u64;

    // The last events deleted, with the head row re-signed to match as the next command used to.
    let d = copy_data(&s, "cut");
    let c = open_for_attack(&d);
    c.execute("DELETE FROM events WHERE seq > ?1", [(n - 4) as i64]).unwrap();
    drop(c);
    assert_refused_for_good(&s, &d, "tail cut", "removed from the end");

    // Only the head row deleted (its trigger dropped first).
    let d = copy_data(&s, "head");
    let c = open_for_attack(&d);
    c.execute_batch("DROP TRIGGER head_kept; DELETE FROM head;").unwrap();
    drop(c);
    assert_refused_for_good(&s, &d, "head row deleted", "head record is missing");

    // Both: the tail and the head cut together, so the file agrees with itself — only the anchor
    // outside it knows.
    let d = copy_data(&s, "cut-and-head");
    let c = open_for_attack(&d);
    let (seq, hash): (i64, String) = c
        .query_row("SELECT seq, hash FROM events WHERE seq = ?1", [(n - 4) as i64], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    c.execute("DELETE FROM events WHERE seq > ?1", [seq]).unwrap();
    c.execute_batch("DROP TRIGGER head_kept; DELETE FROM head;").unwrap();
    drop(c);
    // Even a head re-signed by the device over the shortened chain does not help.
    let key = smart_signals::load_device_key(&d).unwrap();
    let sig = key.sign_hex(&smart_ledger::record::head_message(seq as u64, &hash));
    Connection::open(d.join("ledger.db"))
        .unwrap()
        .execute("INSERT INTO head (id, seq, hash, signature) VALUES (1, ?1, ?2, ?3)", params![seq, hash, sig])
        .unwrap();
    assert_refused_for_good(
        &s,
        &d,
        "tail and head cut, head re-signed",
        &format!("events {}..={n} are missing", n - 3),
    );

    // The anchor itself removed.
    let d = copy_data(&s, "no-anchor");
    std::fs::remove_file(d.join("ledger.anchor")).unwrap();
    assert_refused_for_good(&s, &d, "anchor removed", "anchor (ledger.anchor, beside it) is missing");
}

#[test]
fn putting_back_an_older_copy_of_the_ledger_is_refused() {
    let mut s = build();
    // The copy an attacker keeps: the ledger as it was before the last quarantine.
    let old = s.tmp.path().join("old-ledger.db");
    std::fs::copy(s.ledger(), &old).unwrap();
    s.advance(10);
    s.write("docs/d.txt", "later");
    let (c, v) = s.call("fs.quarantine", r#"{"paths": ["docs/d.txt"]}"#);
    assert_eq!(c, 4, "{v}");
    assert_eq!(s.json(&["approve", v["pending_id"].as_str().unwrap()]).0, 0);
    assert!(!s.root.join("docs/d.txt").exists(), "the approved quarantine ran");
    let n = rows(&s.ledger()).len();

    for f in ["ledger.db-wal", "ledger.db-shm"] {
        let _ = std::fs::remove_file(s.data.join(f));
    }
    std::fs::copy(&old, s.ledger()).unwrap();
    let data = s.data.clone();
    assert_refused_for_good(&s, &data, "older copy put back", &format!("vouches for {n}"));
}

#[test]
fn cutting_a_live_wal_is_refused() {
    let s = build();
    // A process holds the ledger open (the app does), so the write-ahead log is not folded into
    // the file when each command exits.
    let holder = Connection::open(s.ledger()).unwrap();
    holder.query_row("SELECT count(*) FROM events", [], |r| r.get::<_, i64>(0)).unwrap();
    for i in 0..3 {
        s.write(&format!("docs/e{i}.txt"), "new");
        let (c, v) = s.call("fs.hash", &format!(r#"{{"path": "docs/e{i}.txt"}}"#));
        assert_eq!(c, 0, "{v}");
    }
    let n = rows(&s.ledger()).len();
    // The attacker copies the file without its log (or truncates the log) while it is live.
    let d = s.tmp.path().join("wal-cut");
    std::fs::create_dir_all(&d).unwrap();
    for f in ["ledger.db", "ledger.anchor", "keystore.json", "device.key"] {
        std::fs::copy(s.data.join(f), d.join(f)).unwrap();
    }
    drop(holder);
    assert!(rows(&d.join("ledger.db")).len() < n, "the test needs the last events to live only in the WAL");
    assert_refused_for_good(&s, &d, "WAL cut", &format!("vouches for {n}"));
}

#[test]
fn a_middle_edit_stops_every_command() {
    let s = build();
    let n = rows(&s.ledger()).len() as u64;
    let k = n / 2;

    let d = copy_data(&s, "mid-delete");
    let c = open_for_attack(&d);
    c.execute("DELETE FROM events WHERE seq = ?1", [k as i64]).unwrap();
    drop(c);
    assert_refused_for_good(&s, &d, "middle row deleted", &format!("event {k} is missing"));

    let d = copy_data(&s, "mid-swap");
    let c = open_for_attack(&d);
    c.execute_batch(&format!(
        "CREATE TEMP TABLE t AS SELECT * FROM events WHERE seq IN ({k}, {k1});
         UPDATE events SET (corr, kind, payload, at_ms, wall_ms, state_before, state_after, prev_hash, hash, seal) =
           (SELECT corr, kind, payload, at_ms, wall_ms, state_before, state_after, prev_hash, hash, seal FROM t WHERE t.seq = CASE events.seq WHEN {k} THEN {k1} ELSE {k} END)
         WHERE seq IN ({k}, {k1});",
        k1 = k + 1
    ))
    .unwrap();
    drop(c);
    assert_refused_for_good(&s, &d, "two middle rows swapped", "event");

    let d = copy_data(&s, "mid-zero");
    let c = open_for_attack(&d);
    c.execute("UPDATE events SET state_after = ?1 WHERE seq = ?2", params!["0".repeat(64), k as i64]).unwrap();
    drop(c);
    assert_refused_for_good(&s, &d, "one state_after zeroed", "hash mismatch");
}

/// An open re-reads only the events after the last verified one (the mark holds while the file's
/// schema is unchanged: every SQL edit of a row needs the triggers dropped first). An edit made
/// to the file's bytes, outside SQLite, before that mark is therefore not what an open finds — the
/// whole-chain pass is, at its exact sequence: `smart ledger verify`, and the app's background
/// check (`smart_runtime::chain_check`).
#[test]
fn a_byte_edit_before_the_verified_mark_is_found_by_the_whole_chain_pass_at_its_seq() {
    let s = build();
    let data = copy_data(&s, "bytes");
    // A command leaves the mark at the ledger's end.
    let (c, out) = run_in(&s, &data, &["status"]);
    assert_eq!(c, 0, "{out}");
    let c = Connection::open(data.join("ledger.db")).unwrap();
    c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).unwrap();
    let marked: i64 = c.query_row("SELECT seq FROM verified", [], |r| r.get(0)).unwrap();
    drop(c);
    let all = rows(&data.join("ledger.db"));
    let target = all.iter().find(|r| r.kind == "proposed" && (r.seq as i64) < marked).unwrap();
    // One letter of its payload, changed in place in the file.
    let mut bytes = std::fs::read(data.join("ledger.db")).unwrap();
    let needle = target.payload.as_bytes();
    let at = bytes.windows(needle.len()).position(|w| w == needle).expect("the payload is stored in one piece");
    let i = at + target.payload.find("\"tool\"").unwrap() + 2;
    bytes[i] = if bytes[i] == b'x' { b'y' } else { b'x' };
    std::fs::write(data.join("ledger.db"), &bytes).unwrap();

    let (c, out) = run_in(&s, &data, &["status"]);
    assert_eq!(c, 0, "the edit sits before the mark, where an open does not re-read: {out}");
    assert_caught_at(&s, &data, target.seq, "a byte edit before the verified mark");
    let whole = smart_runtime::chain_check::whole_chain(&data).unwrap();
    assert_eq!((whole.ok, whole.first_bad_seq), (false, Some(target.seq)), "{whole:?}");

    // The same edit through SQL drops the triggers, which the mark notices: the open refuses.
    let data = copy_data(&s, "sql");
    let (c, out) = run_in(&s, &data, &["status"]);
    assert_eq!(c, 0, "{out}");
    let c = open_for_attack(&data);
    let p: String =
        c.query_row("SELECT payload FROM events WHERE seq = ?1", [target.seq as i64], |r| r.get(0)).unwrap();
    c.execute(
        "UPDATE events SET payload = ?1 WHERE seq = ?2",
        params![p.replacen("\"tool\"", "\"tooL\"", 1), target.seq as i64],
    )
    .unwrap();
    drop(c);
    let (c, out) = run_in(&s, &data, &["status"]);
    assert_eq!(c, 6, "{out}");
    assert!(out.contains(&format!("event {}", target.seq)), "{out}");
}
