//! The store on its own: triggers, atomic batches, concurrent writers, a forged tail.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ed25519_dalek::{Signer, SigningKey};
use rusqlite::params;
use smart_kernel::{Hash, KernelEvent, KernelState, Millis, Policy};
use smart_ledger::{HeadSigner, Ledger, LedgerError, NewEvent};

struct Key(SigningKey);
impl HeadSigner for Key {
    fn sign_hex(&self, msg: &[u8]) -> String {
        hex::encode(self.0.sign(msg).to_bytes())
    }
    fn seal_hex(&self, hash: &Hash) -> String {
        blake3::keyed_hash(&blake3::derive_key("test seal", &self.0.to_bytes()), &hash.0).to_hex().to_string()
    }
}

fn key() -> Key {
    Key(SigningKey::from_bytes(&[3u8; 32]))
}

/// A ledger holding a genesis event, and the state after it.
fn genesis(path: &std::path::Path) -> (Ledger, KernelState) {
    let mut l = Ledger::create(path).unwrap();
    let k = key();
    let ev = KernelEvent::Genesis {
        device_key: hex::encode(k.0.verifying_key().to_bytes()),
        policy: Policy::default(),
        policy_hash: Policy::default().hash().unwrap(),
        registry_hash: Hash::ZERO,
        hash_scheme: smart_kernel::state_hash::CURRENT,
    };
    let mut st = KernelState::default();
    let before = st.hash().unwrap();
    st.apply(&ev, Millis(1)).unwrap();
    let ne = NewEvent {
        corr: "c",
        event: &ev,
        at: Millis(1),
        wall_ms: 1,
        state_before: before,
        state_after: st.hash().unwrap(),
    };
    assert_eq!(l.append(0, &[ne], &k).unwrap(), vec![1]);
    (l, st)
}

fn expiry(st: &mut KernelState, at: u64) -> (KernelEvent, Hash, Hash) {
    // A harmless, always-applicable event: a gate refusal.
    let ev = KernelEvent::GateRefused {
        act: smart_kernel::GateAct::Framing,
        code: smart_kernel::RefusalCode::GateForbidden,
        reason: "test".into(),
    };
    let b = st.hash().unwrap();
    st.apply(&ev, Millis(at)).unwrap();
    (ev, b, st.hash().unwrap())
}

#[test]
fn triggers_refuse_updates_and_deletes_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let (l, _) = genesis(&dir.path().join("l.db"));
    let e = l.connection().execute("UPDATE events SET corr = 'x' WHERE seq = 1", []).unwrap_err();
    assert!(e.to_string().contains("append-only"), "{e}");
    let e = l.connection().execute("DELETE FROM events", []).unwrap_err();
    assert!(e.to_string().contains("append-only"), "{e}");
}

#[test]
fn a_writer_that_fell_behind_is_refused_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.db");
    let (mut a, mut st) = genesis(&path);
    let mut b = Ledger::open(&path).unwrap();
    let (ev, x, y) = expiry(&mut st, 2);
    a.append(
        1,
        &[NewEvent { corr: "a", event: &ev, at: Millis(2), wall_ms: 2, state_before: x, state_after: y }],
        &key(),
    )
    .unwrap();
    // b still thinks the ledger ends at 1.
    let err = b
        .append(
            1,
            &[NewEvent { corr: "b", event: &ev, at: Millis(2), wall_ms: 2, state_before: x, state_after: y }],
            &key(),
        )
        .unwrap_err();
    assert!(matches!(err, LedgerError::Conflict { expected: 1, actual: 2 }), "{err}");
    assert_eq!(b.tail().unwrap().0, 2);
}

#[test]
fn a_batch_lands_whole_and_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let (mut l, mut st) = genesis(&dir.path().join("l.db"));
    let evs: Vec<(KernelEvent, Hash, Hash)> = (0..5).map(|i| expiry(&mut st, 10 + i)).collect();
    let batch: Vec<NewEvent> = evs
        .iter()
        .map(|(e, b, a)| NewEvent {
            corr: "x",
            event: e,
            at: Millis(20),
            wall_ms: 3,
            state_before: *b,
            state_after: *a,
        })
        .collect();
    assert_eq!(l.append(1, &batch, &key()).unwrap(), vec![2, 3, 4, 5, 6]);
    let k = key();
    let pk = hex::encode(k.0.verifying_key().to_bytes());
    let r = smart_ledger::verify(&l, Some(&pk), Some(&k)).unwrap();
    assert!(r.ok, "{r:?}");
    assert_eq!(r.events, 6);
}

#[test]
fn a_row_forged_after_the_signed_head_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let (mut l, mut st) = genesis(&dir.path().join("l.db"));
    let (ev, b, a) = expiry(&mut st, 5);
    l.append(
        1,
        &[NewEvent { corr: "x", event: &ev, at: Millis(5), wall_ms: 5, state_before: b, state_after: a }],
        &key(),
    )
    .unwrap();
    // The attacker appends a well-chained row but cannot re-sign the head or seal the row.
    let last = l.get(2).unwrap().unwrap();
    let mut forged = last.clone();
    forged.seq = 3;
    forged.prev_hash = last.hash.clone();
    forged.hash = forged.compute_hash().unwrap().to_hex();
    l.connection()
        .execute(
            "INSERT INTO events (seq, corr, kind, payload, at_ms, wall_ms, state_before, state_after, prev_hash, hash, seal, chain) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            params![3, forged.corr, forged.kind, forged.payload, forged.at_ms as i64, forged.wall_ms as i64, forged.state_before, forged.state_after, forged.prev_hash, forged.hash, forged.seal, forged.chain],
        )
        .unwrap();
    let pk = hex::encode(key().0.verifying_key().to_bytes());
    // Without the seal key: the head gives it away, at the first unvouched event.
    let r = smart_ledger::verify(&l, Some(&pk), None).unwrap();
    assert_eq!((r.ok, r.first_bad_seq), (false, Some(3)), "{r:?}");
    // With it: the seal does.
    let r = smart_ledger::verify(&l, Some(&pk), Some(&key())).unwrap();
    assert_eq!((r.ok, r.first_bad_seq), (false, Some(3)), "{r:?}");
    assert!(r.reason.unwrap().contains("seal"));
}

#[test]
fn opening_a_missing_or_non_database_file_is_a_clear_error_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("none.db");
    assert!(matches!(Ledger::open(&missing), Err(LedgerError::Missing(_))));
    assert!(!missing.exists());
    let junk = dir.path().join("junk.db");
    std::fs::write(&junk, vec![0x42u8; 8192]).unwrap();
    assert!(matches!(Ledger::open(&junk), Err(LedgerError::Corrupt { .. })));
    assert_eq!(std::fs::read(&junk).unwrap(), vec![0x42u8; 8192]);
    assert!(matches!(Ledger::create(&junk), Err(LedgerError::Exists(_))));
}

/// A `proposed` event whose arguments nest 126 arrays deep: more than a reader takes back.
fn too_deep_to_read_back() -> KernelEvent {
    let mut args = serde_json::json!("docs");
    for _ in 0..126 {
        args = serde_json::json!([args]);
    }
    KernelEvent::Proposed {
        call: smart_kernel::ProposedCall {
            tool: "fs.scan".into(),
            args,
            scope_id: String::new(),
            source: Default::default(),
            risk_hint: None,
            snapshot: None,
            work_order: None,
        },
    }
}

/// A refused call whose `proposed` event nested 126 arrays deep was stored, and from then on no
/// reader could parse that row. The writer now refuses what the reader could not take back, and
/// the refused batch leaves nothing behind.
#[test]
fn an_event_too_deep_to_read_back_is_never_written() {
    let dir = tempfile::tempdir().unwrap();
    let (mut l, mut st) = genesis(&dir.path().join("ledger.db"));
    let (ok_event, b1, a1) = expiry(&mut st, 2);
    let deep = too_deep_to_read_back();
    let batch = [
        NewEvent { corr: "c", event: &ok_event, at: Millis(2), wall_ms: 2, state_before: b1, state_after: a1 },
        NewEvent { corr: "c", event: &deep, at: Millis(2), wall_ms: 2, state_before: a1, state_after: a1 },
    ];
    let err = l.append(1, &batch, &key()).unwrap_err().to_string();
    assert!(err.contains("proposed event nests") && err.contains("read back"), "{err}");
    assert_eq!(l.tail().unwrap().0, 1, "the batch landed in part");
    assert_eq!(smart_ledger::anchor::read(l.path()).unwrap().unwrap().seq, 1);
    let v = smart_ledger::verify(&l, None, None).unwrap();
    assert!(v.ok, "{v:?}");
}

/// A batch of 16 events or more is encoded and hashed on a second thread while SQLite inserts.
/// An event in it that could not be read back still refuses the whole batch.
#[test]
fn an_event_too_deep_to_read_back_refuses_a_long_batch_too() {
    let dir = tempfile::tempdir().unwrap();
    let (mut l, mut st) = genesis(&dir.path().join("ledger.db"));
    let events: Vec<(KernelEvent, Hash, Hash)> = (0..40).map(|i| expiry(&mut st, 2 + i)).collect();
    let deep = too_deep_to_read_back();
    let mut batch: Vec<NewEvent> = events
        .iter()
        .map(|(e, b, a)| NewEvent {
            corr: "c",
            event: e,
            at: Millis(50),
            wall_ms: 2,
            state_before: *b,
            state_after: *a,
        })
        .collect();
    batch[20] = NewEvent {
        corr: "c",
        event: &deep,
        at: Millis(50),
        wall_ms: 2,
        state_before: Hash::ZERO,
        state_after: Hash::ZERO,
    };
    let err = l.append(1, &batch, &key()).unwrap_err().to_string();
    assert!(err.contains("proposed event nests") && err.contains("read back"), "{err}");
    assert_eq!(l.tail().unwrap().0, 1, "the batch landed in part");
    assert_eq!(smart_ledger::anchor::read(l.path()).unwrap().unwrap().seq, 1);
    assert!(smart_ledger::verify(&l, None, None).unwrap().ok);
}

/// `events` (made by [`expiry`] at times 2, 3, …) as the rows that follow the genesis event.
fn appended_after_genesis(events: &[(KernelEvent, Hash, Hash)]) -> Vec<NewEvent<'_>> {
    events
        .iter()
        .enumerate()
        .map(|(i, (e, b, a))| NewEvent {
            corr: "c",
            event: e,
            at: Millis(2 + i as u64),
            wall_ms: 7,
            state_before: *b,
            state_after: *a,
        })
        .collect()
}

/// The rows a long batch stores (encoded on a second thread) are byte for byte the rows the
/// same events store appended one at a time.
#[test]
fn a_long_batch_stores_the_rows_one_by_one_appends_store() {
    let dir = tempfile::tempdir().unwrap();
    let (mut batched, mut st) = genesis(&dir.path().join("batched.db"));
    let (mut single, _) = genesis(&dir.path().join("single.db"));
    let events: Vec<(KernelEvent, Hash, Hash)> = (0..100).map(|i| expiry(&mut st, 2 + i)).collect();
    let batch = appended_after_genesis(&events);
    assert_eq!(batched.append(1, &batch, &key()).unwrap(), (2..=101).collect::<Vec<u64>>());
    for (i, e) in batch.iter().enumerate() {
        let e = NewEvent { corr: e.corr, event: e.event, ..*e };
        assert_eq!(single.append(1 + i as u64, &[e], &key()).unwrap(), vec![2 + i as u64]);
    }
    assert_eq!(batched.list(0, None, 1_000).unwrap(), single.list(0, None, 1_000).unwrap());
    assert!(smart_ledger::verify(&batched, None, Some(&key())).unwrap().ok);
}

/// Opening an engine checks at [`Depth::Authentic`] (no payload read back) so that a year's
/// ledger opens in well under a second. It must catch every edit the full verify catches, at
/// the same sequence: a flipped payload byte, a deleted row, two rows swapped, an edited column,
/// a re-chained edit, a seal, a cut tail, a row's chain scheme changed.
#[test]
fn the_check_on_open_catches_every_edit_the_full_verify_catches_at_the_same_seq() {
    use smart_ledger::Depth;
    let k = key();
    let pk = hex::encode(k.0.verifying_key().to_bytes());
    let make = |dir: &std::path::Path| {
        let path = dir.join("l.db");
        let (mut l, mut st) = genesis(&path);
        for i in 0..30u64 {
            let (ev, b, a) = expiry(&mut st, 10 + i);
            let e = NewEvent {
                corr: "x",
                event: &ev,
                at: Millis(10 + i),
                wall_ms: 10 + i,
                state_before: b,
                state_after: a,
            };
            l.append(1 + i, &[e], &k).unwrap();
        }
        drop(l);
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch("DROP TRIGGER events_append_only_update; DROP TRIGGER events_append_only_delete;").unwrap();
        (path, c)
    };
    let rechain = |c: &rusqlite::Connection, l: &Ledger, from: u64| {
        let mut prev = l.get(from - 1).unwrap().unwrap().hash;
        for seq in from..=31 {
            let mut r = l.get(seq).unwrap().unwrap();
            r.prev_hash = prev;
            r.hash = r.compute_hash().unwrap().to_hex();
            c.execute(
                "UPDATE events SET prev_hash = ?1, hash = ?2 WHERE seq = ?3",
                params![r.prev_hash, r.hash, seq as i64],
            )
            .unwrap();
            prev = r.hash;
        }
    };
    type Edit = fn(&rusqlite::Connection);
    let edits: [(&str, u64, Edit); 8] = [
        ("payload byte", 12, |c| {
            c.execute("UPDATE events SET payload = replace(payload, 'test', 'tesT') WHERE seq = 12", []).unwrap();
        }),
        ("deleted row", 7, |c| {
            c.execute("DELETE FROM events WHERE seq = 7", []).unwrap();
        }),
        ("swapped rows", 20, |c| {
            c.execute_batch(
                "CREATE TEMP TABLE t AS SELECT * FROM events WHERE seq IN (20, 21);
                 UPDATE events SET (corr, payload, at_ms, wall_ms, state_before, state_after, prev_hash, hash, seal) =
                   (SELECT corr, payload, at_ms, wall_ms, state_before, state_after, prev_hash, hash, seal FROM t WHERE t.seq = CASE events.seq WHEN 20 THEN 21 ELSE 20 END)
                 WHERE seq IN (20, 21);",
            )
            .unwrap();
        }),
        ("state_after zeroed", 15, |c| {
            c.execute("UPDATE events SET state_after = ?1 WHERE seq = 15", [&"0".repeat(64)]).unwrap();
        }),
        ("seal", 3, |c| {
            c.execute("UPDATE events SET seal = ?1 WHERE seq = 3", [&"ab".repeat(32)]).unwrap();
        }),
        ("tail cut", 29, |c| {
            c.execute("DELETE FROM events WHERE seq > 28", []).unwrap();
        }),
        // The row is then hashed the other way: its own hash no longer matches.
        ("chain scheme changed", 18, |c| {
            c.execute("UPDATE events SET chain = 1 WHERE seq = 18", []).unwrap();
        }),
        ("unknown chain scheme", 9, |c| {
            c.execute("UPDATE events SET chain = 7 WHERE seq = 9", []).unwrap();
        }),
    ];
    for (what, seq, edit) in edits {
        for rechained in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let (path, c) = make(dir.path());
            edit(&c);
            let l = Ledger::open(&path).unwrap();
            if rechained && what == "payload byte" {
                rechain(&c, &l, seq);
            }
            let full = smart_ledger::verify_to(&l, Some(&pk), Some(&k), Depth::Full).unwrap();
            let open = smart_ledger::verify_to(&l, Some(&pk), Some(&k), Depth::Authentic).unwrap();
            assert!(!full.ok, "{what}: {full:?}");
            assert_eq!(full.first_bad_seq, Some(seq), "{what} (re-chained {rechained}): {full:?}");
            assert_eq!(open, full, "{what} (re-chained {rechained})");
        }
    }
    // And an untouched ledger passes both.
    let dir = tempfile::tempdir().unwrap();
    let (path, _c) = make(dir.path());
    let l = Ledger::open(&path).unwrap();
    for depth in [Depth::Full, Depth::Authentic] {
        let r = smart_ledger::verify_to(&l, Some(&pk), Some(&k), depth).unwrap();
        assert!(r.ok && r.events == 31, "{depth:?}: {r:?}");
    }
}

/// A key that hands its signing to the ledger's signing thread (`HeadSigner::detached`), as the
/// device key does.
struct HandingKey(Key);
impl HeadSigner for HandingKey {
    fn sign_hex(&self, msg: &[u8]) -> String {
        self.0.sign_hex(msg)
    }
    fn seal_hex(&self, hash: &Hash) -> String {
        self.0.seal_hex(hash)
    }
    fn detached(&self) -> Option<smart_ledger::cosign::Detached> {
        let key = self.0.0.clone();
        Some(Box::new(move |msg: &[u8]| hex::encode(key.sign(msg).to_bytes())))
    }
}

/// The head is signed on a second thread while SQLite inserts (one event, a few, and a long
/// batch, whose encoder signs it): what lands — rows, signed head, anchor — is byte for byte
/// what signing inline writes.
#[test]
fn heads_signed_beside_the_inserts_are_the_heads_signed_inline() {
    let dir = tempfile::tempdir().unwrap();
    let (mut beside, mut st) = genesis(&dir.path().join("beside.db"));
    let (mut inline, _) = genesis(&dir.path().join("inline.db"));
    let events: Vec<(KernelEvent, Hash, Hash)> = (0..150).map(|i| expiry(&mut st, 2 + i)).collect();
    let rows = appended_after_genesis(&events);
    let handing = HandingKey(key());
    let mut at = 1u64;
    for size in [1usize, 1, 3, 1, 100, 2, 1, 41] {
        let batch: Vec<NewEvent> =
            rows[(at - 1) as usize..][..size].iter().map(|e| NewEvent { corr: e.corr, event: e.event, ..*e }).collect();
        assert_eq!(beside.append(at, &batch, &handing).unwrap().len(), size);
        assert_eq!(inline.append(at, &batch, &key()).unwrap().len(), size);
        at += size as u64;
        assert_eq!(beside.head().unwrap(), inline.head().unwrap(), "the signed head after {at} events");
        assert_eq!(beside.anchor().unwrap(), inline.anchor().unwrap(), "the anchor after {at} events");
    }
    assert_eq!(beside.list(0, None, 1_000).unwrap(), inline.list(0, None, 1_000).unwrap());
    let public = hex::encode(key().0.verifying_key().to_bytes());
    assert!(smart_ledger::verify(&beside, Some(&public), Some(&key())).unwrap().ok);
}

/// A writer hashes a short batch before it takes the write lock when it knows the tail from its
/// own last append; a writer that fell behind must still hear that first, even when its batch
/// could not be written anyway (what broke in review: the early hashing refused it as too
/// deep, hiding that the ledger had moved on).
#[test]
fn a_writer_that_fell_behind_hears_so_before_its_batch_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.db");
    let (mut a, mut st) = genesis(&path);
    let mut b = Ledger::open(&path).unwrap();
    let (ev, x, y) = expiry(&mut st, 2);
    b.append(
        1,
        &[NewEvent { corr: "b", event: &ev, at: Millis(2), wall_ms: 2, state_before: x, state_after: y }],
        &key(),
    )
    .unwrap();
    // `a` wrote the genesis event itself and still thinks the ledger ends there.
    let deep = too_deep_to_read_back();
    let err = a
        .append(
            1,
            &[NewEvent { corr: "a", event: &deep, at: Millis(2), wall_ms: 2, state_before: y, state_after: y }],
            &key(),
        )
        .unwrap_err();
    assert!(matches!(err, LedgerError::Conflict { expected: 1, actual: 2 }), "{err}");
    assert_eq!(a.tail().unwrap().0, 2);
}
