//! Forged approvals through the real runtime and ledger: unsigned, signed by another key, for
//! another call, expired, replayed, and an approval whose deny was edited into an approve. Each
//! is refused with its code, recorded as `signal_refused`, leaves the pending call waiting and
//! the files untouched, and the ledger still verifies. Then the genuine approval goes through.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::json;
use smart_kernel::{CallSource, Decision, GateAct, Hash, Horizon, Millis, Policy};
use smart_runtime::{CallOutcome, Engine, FixedClock, InitOptions};
use smart_signals::KeyStoreKind;

const T0: u64 = 1_800_000_000_000;

struct Setup {
    _tmp: tempfile::TempDir,
    data: std::path::PathBuf,
    root: std::path::PathBuf,
}

fn engine(s: &Setup, now: u64) -> Engine {
    Engine::open(&s.data, Box::new(FixedClock(now))).unwrap()
}

/// An initialised data dir with one fs.quarantine call pending.
fn pending() -> (Setup, String, Hash) {
    let tmp = tempfile::tempdir().unwrap();
    let root = dunce::canonicalize(tmp.path()).unwrap().join("root");
    std::fs::create_dir_all(root.join("docs")).unwrap();
    std::fs::write(root.join("docs/old.txt"), "old").unwrap();
    let data = tmp.path().join("data");
    let mut policy = Policy::default();
    policy.gates.after_l1_ms = 0;
    policy.gates.after_l2_ms = 0;
    policy.gates.after_l3_ms = 0;
    let (mut e, _) = Engine::init(
        &data,
        InitOptions { roots: vec![root.clone()], policy: Some(policy), key_store: Some(KeyStoreKind::File) },
        Box::new(FixedClock(T0)),
    )
    .unwrap();
    let draft = smart_kernel::lease::LeaseDraft {
        frame: "clean docs".into(),
        horizon: Horizon::Short,
        duration_ms: 3_600_000,
        success_criteria: vec![],
        non_goals: vec![],
        renewal_prompt: String::new(),
    };
    assert_eq!(e.draft_lease(draft).unwrap().outcome, CallOutcome::Recorded);
    assert_eq!(e.gates(&[GateAct::Commitment]).unwrap().outcome, CallOutcome::Recorded);
    let docs = root.join("docs");
    for (tool, args) in [("fs.scan", json!({"path": docs})), ("cluster.duplicates", json!({"path": docs}))] {
        assert_eq!(e.call(tool, args, CallSource::Model).unwrap().outcome, CallOutcome::Committed);
    }
    let r = e
        .call(
            "propose.move",
            json!({"moves": [{"from": docs.join("old.txt"), "to": docs.join("old2.txt")}]}),
            CallSource::Model,
        )
        .unwrap();
    let r = e.call("apply.move", json!({"proposal": r.artifact.unwrap()}), CallSource::Model).unwrap();
    assert_eq!(r.outcome, CallOutcome::Committed);
    let r = e.call("fs.quarantine", json!({"paths": [docs.join("old2.txt")]}), CallSource::Model).unwrap();
    assert_eq!(r.outcome, CallOutcome::Pending, "{r:?}");
    let id = r.pending_id.unwrap();
    let hash = e.state().pending.get(&id).unwrap().call.hash;
    (Setup { _tmp: tmp, data, root }, id, hash)
}

fn refused_and_recorded(s: &Setup, signal: smart_kernel::UserSignal, code: &str) {
    let mut e = engine(s, T0 + 1_000);
    let id = signal.pending_id.clone();
    let before = e.state().seq;
    let r = e.submit_signal(signal).unwrap();
    assert_eq!((r.outcome, r.code.as_deref()), (CallOutcome::Refused, Some(code)), "{r:?}");
    let last = e.ledger().get(e.state().seq).unwrap().unwrap();
    assert_eq!(last.kind, "signal_refused");
    assert!(e.state().seq > before);
    assert!(e.state().pending.contains_key(&id) || code == "approval_replayed", "the pending call survives a forgery");
    assert!(s.root.join("docs/old2.txt").exists() || code == "approval_replayed", "nothing ran");
    let key = smart_signals::load_device_key(&s.data).unwrap();
    let sealer = smart_runtime::sealer(&key);
    let report = smart_ledger::verify(e.ledger(), Some(&key.public_hex()), Some(&sealer)).unwrap();
    assert!(report.ok, "{report:?}");
}

#[test]
fn forged_signals_are_refused_ledgered_and_harmless() {
    let (s, id, hash) = pending();
    let device = smart_signals::load_device_key(&s.data).unwrap();
    let now = Millis(T0 + 1_000);

    let mut unsigned = device.sign_signal(&id, Some(hash), Decision::Approve, now, 60_000).unwrap();
    unsigned.signature = None;
    refused_and_recorded(&s, unsigned, "signature_invalid");

    let other_dir = tempfile::tempdir().unwrap();
    let (other, _) = smart_signals::create_device_key(other_dir.path(), Some(KeyStoreKind::File)).unwrap();
    refused_and_recorded(
        &s,
        other.sign_signal(&id, Some(hash), Decision::Approve, now, 60_000).unwrap(),
        "signature_invalid",
    );
    // Another key's signature presented under the device's public key.
    let mut borrowed = other.sign_signal(&id, Some(hash), Decision::Approve, now, 60_000).unwrap();
    borrowed.public_key = device.public_hex();
    refused_and_recorded(&s, borrowed, "signature_invalid");

    let mut edited = device.sign_signal(&id, Some(hash), Decision::Deny, now, 60_000).unwrap();
    edited.decision = Decision::Approve;
    refused_and_recorded(&s, edited, "signature_invalid");

    refused_and_recorded(
        &s,
        device.sign_signal(&id, Some(Hash::of_bytes(b"another call")), Decision::Approve, now, 60_000).unwrap(),
        "approval_mismatch",
    );
    refused_and_recorded(
        &s,
        device.sign_signal(&id, Some(hash), Decision::Approve, Millis(T0 - 120_000), 60_000).unwrap(),
        "approval_expired",
    );

    // The genuine approval commits; replaying it is refused as a replay.
    let genuine = device.sign_signal(&id, Some(hash), Decision::Approve, now, 60_000).unwrap();
    let mut e = engine(&s, T0 + 1_000);
    let r = e.submit_signal(genuine.clone()).unwrap();
    assert_eq!(r.outcome, CallOutcome::Committed, "{r:?}");
    assert!(!s.root.join("docs/old2.txt").exists());
    drop(e);
    refused_and_recorded(&s, genuine, "approval_replayed");
}

#[test]
fn the_engine_reopens_from_its_snapshot_to_the_same_state_as_a_full_replay() {
    let (s, _, _) = pending();
    let e = engine(&s, T0 + 1);
    let (replayed, report) = smart_ledger::replay(e.ledger()).unwrap();
    assert!(report.ok);
    assert_eq!(replayed.hash().unwrap(), e.state().hash().unwrap());
}

#[test]
fn two_engines_on_one_ledger_stay_consistent() {
    // The app and the CLI open the same data dir: each must see the other's events before it
    // decides, and neither may fork the chain.
    let (s, id, _) = pending();
    let mut app = engine(&s, T0 + 2_000);
    let mut cli = engine(&s, T0 + 2_000);
    let r = cli.decide(&id, false).unwrap();
    assert_eq!(r.outcome, CallOutcome::Denied);
    // The app still holds the pending call in memory; its next operation catches up first.
    let r = app.decide(&id, true).unwrap();
    assert_eq!((r.outcome, r.code.as_deref()), (CallOutcome::Refused, Some("pending_unknown")), "{r:?}");
    let key = smart_signals::load_device_key(&s.data).unwrap();
    let report =
        smart_ledger::verify(app.ledger(), Some(&key.public_hex()), Some(&smart_runtime::sealer(&key))).unwrap();
    assert!(report.ok, "{report:?}");
    let (_, replay) = smart_ledger::replay(cli.ledger()).unwrap();
    assert!(replay.ok);
}

/// What an attacker with the file can do to the state cache: rewrite the snapshot, and make the
/// last row's recorded state and hash agree with it (blake3 is unkeyed). Only the seal is out of
/// reach.
fn forge_snapshot(s: &Setup, also_rows: bool) -> Hash {
    let conn = rusqlite::Connection::open(s.data.join("ledger.db")).unwrap();
    conn.execute_batch("DROP TRIGGER events_append_only_update;").unwrap();
    let (seq, json): (i64, String) =
        conn.query_row("SELECT seq, state FROM snapshot", [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    let mut state: smart_kernel::KernelState = serde_json::from_str(&json).unwrap();
    // The forgery: the pending quarantine is dropped from the state, as if decided.
    state.pending.clear();
    let forged = state.hash().unwrap();
    conn.execute("UPDATE snapshot SET state = ?1", [serde_json::to_string(&state).unwrap()]).unwrap();
    if also_rows {
        let e = Engine::open(&s.data, Box::new(FixedClock(T0))).err();
        assert!(e.is_none(), "the snapshot alone must not break opening");
        let mut row = smart_ledger::Ledger::open(&s.data.join("ledger.db")).unwrap().get(seq as u64).unwrap().unwrap();
        row.state_after = forged.to_hex();
        row.hash = row.compute_hash().unwrap().to_hex();
        conn.execute(
            "UPDATE events SET state_after = ?1, hash = ?2 WHERE seq = ?3",
            rusqlite::params![row.state_after, row.hash, seq],
        )
        .unwrap();
    }
    forged
}

#[test]
fn a_forged_snapshot_alone_is_ignored_for_the_chain_s_own_state() {
    let (s, id, _) = pending();
    let forged = forge_snapshot(&s, false);
    let e = engine(&s, T0 + 1);
    assert!(e.state().pending.contains_key(&id), "the real state, rebuilt from the events");
    assert_ne!(e.state().hash().unwrap(), forged);
}

#[test]
fn a_forged_snapshot_with_a_re_hashed_row_stops_the_engine() {
    let (s, _, _) = pending();
    forge_snapshot(&s, true);
    match Engine::open(&s.data, Box::new(FixedClock(T0 + 1))) {
        Err(smart_runtime::RuntimeError::BrokenLedger { reason, .. }) => assert!(reason.contains("seal"), "{reason}"),
        Err(other) => panic!("wrong error: {other}"),
        Ok(_) => panic!("opened a ledger whose state was forged"),
    }
}
