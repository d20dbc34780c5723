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
    // The anchor first, then one snapshot for everything else: an anchor only moves after a
    // commit is durable, so one read before the snapshot never vouches for more than the
    // snapshot holds — while other processes go on appending, nothing here is a false alarm.
    let anchor = ledger.anchor();
    let snapshot = ledger.read_snapshot()?;
    let mut walk =
        Walk { device_key, sealer, depth, expected_seq: 1, prev: Hash::ZERO, last_at: 0, genesis_key: None, bad: None };
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
            walk.prev = Hash::from_hex(&mark.hash).unwrap_or(Hash::ZERO);
            walk.last_at = ledger.get(mark.seq)?.map_or(0, |r| r.at_ms);
            since = mark.seq + 1;
        }
    }
    if walk.bad.is_none() {
        ledger.for_each_from(since, |row| walk.step(row))?;
    }
    let Walk { expected_seq, prev, genesis_key, mut bad, .. } = walk;

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

/// The chain walked so far: what the next event must link to, and the first failure.
struct Walk<'a> {
    device_key: Option<&'a str>,
    sealer: Option<&'a dyn HeadSigner>,
    depth: Depth,
    expected_seq: u64,
    prev: Hash,
    last_at: u64,
    genesis_key: Option<String>,
    bad: Option<(u64, String)>,
}

impl Walk<'_> {
    /// Checks one event; says whether to go on.
    fn step(&mut self, row: StoredEvent) -> bool {
        self.bad = self.check(&row);
        if self.bad.is_some() {
            return false;
        }
        self.expected_seq = row.seq + 1;
        self.prev = Hash::from_hex(&row.hash).unwrap_or(Hash::ZERO);
        self.last_at = row.at_ms;
        true
    }

    fn check(&mut self, row: &StoredEvent) -> Option<(u64, String)> {
        let seq = row.seq;
        let fail = |why: String| Some((seq, why));
        let expected_seq = self.expected_seq;
        if seq != expected_seq {
            return if seq > expected_seq {
                Some((expected_seq, format!("event {expected_seq} is missing (the next stored event is {seq})")))
            } else {
                fail(format!("sequence {seq} appears out of order"))
            };
        }
        if row.prev_hash != self.prev.to_hex() {
            return fail(
                "link broken: prev_hash is not the previous event's hash (rows reordered, replaced or removed)".into(),
            );
        }
        match row.compute_hash() {
            Ok(h) if h.to_hex() == row.hash => {}
            Ok(_) => return fail("hash mismatch: the event's content was altered".into()),
            Err(e) => return fail(format!("hash cannot be computed: {e}")),
        }
        if let Some(s) = self.sealer
            && let Ok(h) = Hash::from_hex(&row.hash)
            && s.seal_hex(&h) != row.seal
        {
            return fail("seal mismatch: this event was not written by this device's SMART (edited, and the hashes after it recomputed)".into());
        }
        if row.at_ms < self.last_at {
            return fail("logical time runs backwards".into());
        }
        if self.depth == Depth::Authentic && seq > 1 {
            return None;
        }
        let event = match row.event() {
            Ok(e) => e,
            Err(e) => return fail(e),
        };
        if event.kind() != row.kind {
            return fail(format!("kind column says {} but the payload is {}", row.kind, event.kind()));
        }
        match (&event, &self.genesis_key) {
            (KernelEvent::Genesis { device_key: k, .. }, None) if seq == 1 => {
                if let Some(dk) = self.device_key
                    && !dk.eq_ignore_ascii_case(k)
                {
                    return fail(format!(
                        "genesis names device key {}…, but this device's key is {}…",
                        k.get(..12).unwrap_or(k),
                        dk.get(..12).unwrap_or(dk)
                    ));
                }
                self.genesis_key = Some(k.clone());
            }
            (_, None) => return fail("the first event is not genesis".into()),
            (KernelEvent::Genesis { .. }, Some(_)) => return fail("a second genesis event".into()),
            _ => {}
        }
        if let (Some(signal), Some(key)) = (event.signal(), &self.genesis_key)
            && let Err(r) = signal.verify_signature(key)
        {
            return fail(format!("bad signature on the {} signal: {}", row.kind, r.reason));
        }
        None
    }
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
