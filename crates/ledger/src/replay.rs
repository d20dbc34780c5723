//! `ledger replay`: rebuild kernel state from the events alone and compare state hashes.
//!
//! Each event is applied to the state the previous ones produced; the recorded `state_before`
//! and `state_after` must equal the recomputed hashes. The first sequence where they differ is
//! the divergence — the point where the ledger and the kernel's rules stop telling the same story.

use crate::record::event_of;
use crate::store::{HeadSigner, Ledger, LedgerError};
use serde::Serialize;
use smart_kernel::{Hash, KernelEvent, KernelState, Millis};

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReplayReport {
    pub ok: bool,
    pub events: u64,
    /// Replay started after this event, from the snapshot there (0: from genesis).
    pub from_seq: u64,
    pub state_hash: Option<String>,
    pub first_divergent_seq: Option<u64>,
    pub reason: Option<String>,
}

/// Replays every event from genesis. Returns the rebuilt state (up to the divergence, if any)
/// and the report.
pub fn replay(ledger: &Ledger) -> Result<(KernelState, ReplayReport), LedgerError> {
    replay_from(ledger, KernelState::default())
}

/// Replays from the newest snapshot an authentic event vouches for — the row at its sequence
/// has its recorded hash and this device's seal, and records the snapshot's state hash as its
/// state after — and from genesis when there is none. `from_seq` in the report says which.
pub fn replay_from_snapshot(
    ledger: &Ledger,
    sealer: &dyn HeadSigner,
) -> Result<(KernelState, ReplayReport), LedgerError> {
    let vouched = vouched_snapshot(ledger, Some(sealer)).map(|(state, _)| state);
    replay_from(ledger, vouched.unwrap_or_default())
}

/// The stored snapshot, if an authentic event vouches for it: the row at its sequence has the
/// hash its content gives, this device's seal (when `sealer` is given), and records the snapshot's
/// state hash as its state after. With the hash of that row, for the chain to carry on from.
pub fn vouched_snapshot(ledger: &Ledger, sealer: Option<&dyn HeadSigner>) -> Option<(KernelState, String)> {
    let (seq, json) = ledger.load_snapshot().ok()??;
    let state = serde_json::from_str::<KernelState>(&json).ok()?;
    let row = ledger.get(seq).ok()??;
    let hash = row.compute_hash().ok()?;
    let sealed = sealer.is_none_or(|s| s.seal_matches(&hash, &row.seal));
    let vouched =
        state.seq == seq && hash.to_hex() == row.hash && sealed && state.hash().ok()?.to_hex() == row.state_after;
    vouched.then_some((state, row.hash))
}

/// Replays the events after `start`'s sequence onto it.
fn replay_from(ledger: &Ledger, start: KernelState) -> Result<(KernelState, ReplayReport), LedgerError> {
    replay_with(ledger, start, Reading::Auto)
}

/// Where [`replay_with`] reads the rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reading {
    /// On a thread of its own where there are enough rows to be worth it, else here.
    Auto,
    /// Here, one row at a time.
    #[cfg_attr(not(test), allow(dead_code))]
    Here,
    /// On a reader thread, however few the rows.
    #[cfg_attr(not(test), allow(dead_code))]
    Beside,
}

/// Rows a reader thread is worth starting for: below it, opening a connection and a thread costs
/// more than it saves.
const READ_BESIDE_FROM: u64 = 4_096;

/// Rows handed from the reader to the applier at a time.
const HANDOVER: usize = 256;

/// One row as replay needs it, its payload read as an event (or why it is not one).
struct Step {
    seq: u64,
    at_ms: u64,
    state_before: String,
    state_after: String,
    event: Result<KernelEvent, String>,
}

/// The columns replay reads: a row's other columns are verify's to check.
const STEP_COLUMNS: &str = "SELECT seq, payload, at_ms, state_before, state_after, kind FROM events";

impl Step {
    /// A row of [`STEP_COLUMNS`], its payload read as an event of its kind where it lies (not
    /// copied first).
    fn read(r: &rusqlite::Row<'_>) -> rusqlite::Result<Step> {
        let text = |i| match r.get_ref(i) {
            Ok(rusqlite::types::ValueRef::Text(t)) => std::str::from_utf8(t).ok(),
            _ => None,
        };
        // A kind that is not text reads the payload the tagged way, as replay always did.
        let kind = text(5).unwrap_or_default();
        let event = match text(1) {
            Some(payload) => event_of(kind, payload),
            // Not text: fails here as a read of the whole row would.
            None => event_of(kind, &r.get::<_, String>(1)?),
        };
        Ok(Step {
            seq: r.get::<_, i64>(0)? as u64,
            at_ms: r.get::<_, i64>(2)? as u64,
            state_before: r.get(3)?,
            state_after: r.get(4)?,
            event,
        })
    }
}

/// Streams the rows from `since` on `conn`, in sequence order, to `f` until it says stop.
fn read_steps(conn: &rusqlite::Connection, since: u64, mut f: impl FnMut(Step) -> bool) -> Result<(), LedgerError> {
    let mut stmt = conn.prepare(&format!("{STEP_COLUMNS} WHERE seq >= ?1 ORDER BY seq"))?;
    let mut rows = stmt.query([since as i64])?;
    while let Some(r) = rows.next()? {
        if !f(Step::read(r)?) {
            break;
        }
    }
    Ok(())
}

/// [`replay_from`], reading the rows as `reading` says.
///
/// Applying an event needs the state the one before left, and so does hashing it; reading a row
/// and its payload does not. So where there are many rows a reader thread (on a connection of
/// its own) reads them and their payloads while this thread applies and hashes — on two cores,
/// about a third of a replay's work moves off the thread that decides its pace. What is found is
/// the same either way: rows are applied in order, the first divergence stops the replay (the
/// reader stops with it), and a row that cannot be read is an error only where no divergence
/// came before it.
fn replay_with(
    ledger: &Ledger,
    start: KernelState,
    reading: Reading,
) -> Result<(KernelState, ReplayReport), LedgerError> {
    let from_seq = start.seq;
    let mut state = start;
    let mut current = state.hash().map_err(|e| LedgerError::Encoding(e.to_string()))?;
    let mut bad: Option<(u64, String)> = None;
    // From genesis: every stored row, one at sequence 0 included (it diverges).
    let since = if from_seq == 0 { 0 } else { from_seq + 1 };
    let beside = match reading {
        Reading::Here => false,
        Reading::Beside => true,
        Reading::Auto => {
            crate::store::last_seq(ledger.connection())?.is_some_and(|l| l.saturating_sub(since) >= READ_BESIDE_FROM)
        }
    };
    let mut apply = |step: &Step| {
        bad = apply_step(&mut state, &mut current, step);
        bad.is_none()
    };
    let read_here = |apply: &mut dyn FnMut(&Step) -> bool| read_steps(ledger.connection(), since, |s| apply(&s));
    if !beside {
        read_here(&mut apply)?;
    } else {
        let read = std::thread::scope(|scope| -> Option<Result<(), LedgerError>> {
            let (ready, steps) = std::sync::mpsc::sync_channel::<Result<Vec<Step>, LedgerError>>(4);
            // Applied rows go back to the reader to be dropped there: freeing an event's strings
            // and maps is work the applying thread need not do.
            let (spent, applied) = std::sync::mpsc::channel::<Vec<Step>>();
            let path = ledger.path();
            let reader = move || {
                let read = (|| -> Result<(), LedgerError> {
                    let conn = crate::store::reader(path)?;
                    let mut batch = Vec::with_capacity(HANDOVER);
                    let mut gone = false;
                    let read = read_steps(&conn, since, |step| {
                        batch.push(step);
                        if batch.len() == HANDOVER {
                            gone = ready.send(Ok(std::mem::replace(&mut batch, Vec::with_capacity(HANDOVER)))).is_err();
                            while let Ok(done) = applied.try_recv() {
                                drop(done);
                            }
                        }
                        !gone
                    });
                    // The rows read before an error go first: a divergence among them is the answer.
                    if !batch.is_empty() && !gone {
                        let _ = ready.send(Ok(batch));
                    }
                    read
                })();
                // After the rows it read: an error comes in its place in the order.
                if let Err(e) = read {
                    let _ = ready.send(Err(e));
                }
            };
            // No second thread to be had: read here.
            std::thread::Builder::new().spawn_scoped(scope, reader).ok()?;
            for batch in steps {
                let batch = match batch {
                    Ok(b) => b,
                    Err(e) => return Some(Err(e)),
                };
                for step in &batch {
                    if !apply(step) {
                        // Dropping the receiver stops the reader at its next hand-over.
                        return Some(Ok(()));
                    }
                }
                // A reader that has finished drops nothing more: then it is dropped here.
                let _ = spent.send(batch);
            }
            Some(Ok(()))
        });
        match read {
            Some(r) => r?,
            None => read_here(&mut apply)?,
        }
    }
    let current = current.to_hex();
    let report = match bad {
        None => ReplayReport {
            ok: true,
            events: state.seq,
            from_seq,
            state_hash: Some(current),
            first_divergent_seq: None,
            reason: None,
        },
        Some((seq, reason)) => ReplayReport {
            ok: false,
            events: state.seq,
            from_seq,
            state_hash: None,
            first_divergent_seq: Some(seq),
            reason: Some(reason),
        },
    };
    Ok((state, report))
}

/// Applies one row to `state`, whose hash is `current`: the divergence it shows, if any.
fn apply_step(state: &mut KernelState, current: &mut Hash, step: &Step) -> Option<(u64, String)> {
    let seq = step.seq;
    let mut hex = [0u8; 64];
    if step.state_before != current.hex_in(&mut hex) {
        return Some((seq, "the recorded state before this event is not the replayed state".to_string()));
    }
    let event = match &step.event {
        Ok(e) => e,
        Err(e) => return Some((seq, e.clone())),
    };
    // Replay stops at the first failure, so the state needs no atomic apply.
    if let Err(e) = state.apply_mut(event, Millis(step.at_ms)) {
        return Some((seq, e.to_string()));
    }
    if state.seq != seq {
        return Some((seq, format!("the event applies as sequence {} ", state.seq)));
    }
    match state.hash() {
        Ok(h) => *current = h,
        Err(e) => return Some((seq, e.to_string())),
    }
    if step.state_after != current.hex_in(&mut hex) {
        return Some((seq, "the replayed state after this event differs from the recorded state hash".to_string()));
    }
    None
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;
    use crate::record::NewEvent;
    use smart_kernel::Hash;

    struct Key;
    impl HeadSigner for Key {
        fn sign_hex(&self, _: &[u8]) -> String {
            "00".repeat(64)
        }
        fn seal_hex(&self, hash: &Hash) -> String {
            hash.to_hex()
        }
    }

    const EVENTS: u64 = 2_000;

    /// A ledger of a genesis and gate refusals with the state hashes the kernel gives them, its
    /// rows open to SQL edits; and the state after the last event.
    fn build(dir: &std::path::Path) -> (Ledger, KernelState) {
        let (genesis, refused) = (crate::test_support::genesis("00".repeat(32)), crate::test_support::refusal());
        let mut ledger = Ledger::create(&dir.join("l.db")).unwrap();
        let mut state = KernelState::default();
        let mut rows = vec![];
        for seq in 1..=EVENTS {
            let event = if seq == 1 { &genesis } else { &refused };
            let before = state.hash().unwrap();
            state.apply_mut(event, Millis(seq)).unwrap();
            rows.push((event, before, state.hash().unwrap(), seq));
        }
        for (i, chunk) in rows.chunks(500).enumerate() {
            let batch: Vec<NewEvent<'_>> = chunk
                .iter()
                .map(|(event, before, after, at)| NewEvent {
                    corr: "c",
                    event,
                    at: Millis(*at),
                    wall_ms: *at,
                    state_before: *before,
                    state_after: *after,
                })
                .collect();
            ledger.append(i as u64 * 500, &batch, &Key).unwrap();
        }
        crate::test_support::open_to_edits(&ledger);
        (ledger, state)
    }

    /// The replayed state's sequence and the report — the same whether the rows are read on this
    /// thread or beside it.
    fn replayed(ledger: &Ledger) -> Result<(u64, ReplayReport), String> {
        let mut answers = [Reading::Here, Reading::Beside, Reading::Auto].map(|reading| {
            replay_with(ledger, KernelState::default(), reading)
                .map(|(state, report)| (state.seq, state.hash().unwrap(), report))
                .map_err(|e| e.to_string())
        });
        assert_eq!(answers[0], answers[1], "read here and beside");
        assert_eq!(answers[0], answers[2], "read here and as replay chooses");
        std::mem::replace(&mut answers[0], Err(String::new())).map(|(seq, _, report)| (seq, report))
    }

    #[test]
    fn a_whole_ledger_replays_to_the_kernels_state() {
        let dir = tempfile::tempdir().unwrap();
        let (ledger, state) = build(dir.path());
        let (seq, report) = replayed(&ledger).unwrap();
        assert!(report.ok, "{report:?}");
        assert_eq!((seq, report.events), (EVENTS, EVENTS));
        assert_eq!(report.state_hash, Some(state.hash().unwrap().to_hex()));
    }

    #[test]
    fn replay_names_the_first_divergence_and_stops_the_state_there() {
        let zeros = Hash::ZERO.to_hex();
        // (the edits, the first divergent sequence, words of its reason, the state's sequence)
        let cases: Vec<(Vec<String>, u64, &str, u64)> = vec![
            (vec![format!("UPDATE events SET state_after = '{zeros}' WHERE seq = 2")], 2, "after this event", 2),
            (vec![format!("UPDATE events SET state_after = '{zeros}' WHERE seq = 1999")], 1999, "after", 1999),
            (vec![format!("UPDATE events SET state_before = '{zeros}' WHERE seq = 700")], 700, "before", 699),
            (vec!["UPDATE events SET payload = '{' WHERE seq = 300".into()], 300, "not a kernel event", 299),
            // Two divergences: the earlier one.
            (
                vec![
                    format!("UPDATE events SET state_after = '{zeros}' WHERE seq = 1500"),
                    format!("UPDATE events SET state_after = '{zeros}' WHERE seq = 40"),
                ],
                40,
                "after",
                40,
            ),
            // A divergence, then a row SQLite cannot hand back (a time stored as text): the
            // divergence is the answer, the read stops there.
            (
                vec![
                    format!("UPDATE events SET state_after = '{zeros}' WHERE seq = 5"),
                    "UPDATE events SET at_ms = 'x' WHERE seq = 9".into(),
                ],
                5,
                "after",
                5,
            ),
            (
                vec![
                    format!("UPDATE events SET state_after = '{zeros}' WHERE seq = 5"),
                    "UPDATE events SET at_ms = 'x' WHERE seq = 1900".into(),
                ],
                5,
                "after",
                5,
            ),
        ];
        for (edits, at, says, state_seq) in cases {
            let dir = tempfile::tempdir().unwrap();
            let (ledger, _) = build(dir.path());
            for edit in &edits {
                ledger.connection().execute_batch(edit).unwrap();
            }
            let (seq, report) = replayed(&ledger).unwrap();
            assert!(!report.ok, "{edits:?}: {report:?}");
            assert_eq!(report.first_divergent_seq, Some(at), "{edits:?}: {report:?}");
            assert!(report.reason.as_deref().unwrap_or("").contains(says), "{edits:?}: {report:?}");
            assert_eq!(seq, state_seq, "{edits:?}: the state is replayed up to the divergence");
            assert_eq!(report.state_hash, None);
        }
    }

    /// Replay reads a payload by its kind column, but the column is verify's to check: a kind
    /// out of step with the payload, or not text at all, replays as it did before replay read it.
    #[test]
    fn a_kind_column_out_of_step_with_its_payload_replays_as_before() {
        for edit in
            ["UPDATE events SET kind = 'lease_expired' WHERE seq = 300", "UPDATE events SET kind = 42 WHERE seq = 300"]
        {
            let dir = tempfile::tempdir().unwrap();
            let (ledger, state) = build(dir.path());
            ledger.connection().execute_batch(edit).unwrap();
            let (seq, report) = replayed(&ledger).unwrap();
            assert!(report.ok, "{edit}: {report:?}");
            assert_eq!((seq, report.state_hash), (EVENTS, Some(state.hash().unwrap().to_hex())), "{edit}");
        }
    }

    /// A row that cannot be read before any divergence is an error, not a report.
    #[test]
    fn a_row_that_cannot_be_read_before_any_divergence_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let (ledger, _) = build(dir.path());
        ledger.connection().execute_batch("UPDATE events SET at_ms = 'x' WHERE seq = 1000").unwrap();
        let err = replayed(&ledger).unwrap_err();
        assert!(err.contains("at_ms") || err.contains("Invalid column type"), "{err}");
    }
}
