//! What one call may put on the ledger. The attack run found that a refused call could make the
//! ledger unreadable for good (its `proposed` event nested too deep for any reader), and that
//! nothing capped what one command wrote (a 10 MB signal file added 9 MiB for good). Each case
//! here is refused with its reason, and the ledger stays small, verifiable, replayable and
//! openable — also without the state snapshot, when opening replays every event.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;

fn nested(n: usize, leaf: &str) -> String {
    format!("{}\"{leaf}\"{}", "[".repeat(n), "]".repeat(n))
}

/// verify, replay, and a command on a ledger whose snapshot is gone all still work.
fn assert_ledger_still_reads(s: &Smart, what: &str) {
    let (c, v) = s.json(&["ledger", "verify"]);
    assert_eq!(c, 0, "{what}: verify: {v}");
    let (c, v) = s.json(&["ledger", "replay", "--from-genesis"]);
    assert_eq!(c, 0, "{what}: replay: {v}");
    rusqlite::Connection::open(s.ledger()).unwrap().execute("DELETE FROM snapshot", []).unwrap();
    let (c, v) = s.json(&["status"]);
    assert_eq!(c, 0, "{what}: status without the snapshot: {v}");
}

#[test]
fn a_refused_deep_call_no_longer_poisons_the_ledger() {
    let mut s = Smart::init(None);
    s.write("docs/a.txt", "a");
    s.commit_lease();
    for (tool, args) in [
        ("fs.scan", format!(r#"{{"path": {}}}"#, nested(126, "docs"))),
        ("db.upsert", format!(r#"{{"collection": "notes", "key": "k", "value": {}}}"#, nested(120, "v"))),
    ] {
        s.advance(10);
        let before = s.events();
        let (c, v) = s.call(tool, &args);
        assert_eq!((c, v["code"].as_str()), (3, Some("schema_invalid")), "{tool}: {v}");
        assert!(v["reason"].as_str().unwrap().contains("levels deep"), "{tool}: {v}");
        // The proposal and its refusal are on the ledger, with the arguments elided.
        let (_, shown) = s.json(&["ledger", "show", "--since", &(before + 1).to_string()]);
        let events = shown["events"].as_array().unwrap();
        assert_eq!(events.iter().map(|e| e["kind"].as_str().unwrap()).collect::<Vec<_>>(), ["proposed", "refused"]);
        assert!(events[0]["payload"]["call"]["args"]["elided"].as_str().unwrap().contains("levels deep"));
        assert_ledger_still_reads(&s, tool);
    }
    // A call inside the bounds still works afterwards.
    s.advance(10);
    assert_eq!(s.call("fs.scan", r#"{"path": "docs"}"#).0, 0);
}

#[test]
fn an_oversized_signal_or_stop_reason_adds_kilobytes_not_megabytes() {
    let s = Smart::init(None);
    let size = || {
        std::fs::metadata(s.ledger()).unwrap().len()
            + std::fs::metadata(s.data.join("ledger.db-wal")).map(|m| m.len()).unwrap_or(0)
    };
    let checkpoint = || {
        rusqlite::Connection::open(s.ledger())
            .unwrap()
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .unwrap();
    };
    checkpoint();
    let before = size();
    let big = "a".repeat(10 * 1024 * 1024);
    let signal = serde_json::json!({
        "pending_id": big, "call_hash": null, "nonce": "00112233445566778899aabbccddeeff",
        "issued_at": T0, "expires_at": T0 + 60_000, "decision": "approve",
        "public_key": "00".repeat(32), "signature": null
    });
    let f = s.tmp.path().join("big-signal.json");
    std::fs::write(&f, signal.to_string()).unwrap();
    let (c, v) = s.json(&["signal", f.to_str().unwrap()]);
    assert_eq!((c, v["code"].as_str()), (3, Some("schema_invalid")), "{v}");
    assert!(v["reason"].as_str().unwrap().contains("pending id is 10485760 characters"), "{v}");
    let (c, v) = s.json(&["stop", "--reason", &"b".repeat(100_000)]);
    assert_eq!(c, 0, "a stop with a long reason still stops: {v}");
    checkpoint();
    let grown = size() - before;
    assert!(grown < 64 * 1024, "the ledger grew by {grown} bytes");
    assert_ledger_still_reads(&s, "oversized signal");
}
