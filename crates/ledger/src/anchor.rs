//! The anchor: the ledger's signed head, kept again outside the ledger file.
//!
//! The signed head record lives in the same SQLite file as the events it vouches for, so anything
//! that takes the file back in time takes the head with it: an older copy of `ledger.db` put back,
//! a cut write-ahead log, a deleted `head` row re-signed by the next command over a shortened
//! chain. The chain and the head then agree with each other, and nothing says events are missing.
//!
//! So every append also writes the newest (sequence, hash, signature) to `ledger.anchor` beside
//! the file (next to the device key's record), atomically and never backwards. A ledger that ends
//! before its anchor, or holds a different event at the anchor's sequence, lost history; `verify`
//! says which events, and the engine refuses to open it.
//!
//! What it cannot stop: someone who, as this user, rewrites the ledger *and* the anchor together
//! (restores a backup of the whole data dir, or deletes the anchor and marks the ledger as older
//! than anchoring). Files the same user can write cannot witness against that user; what the anchor
//! buys is that the ledger file alone can no longer be taken back without anyone noticing.
//!
//! Ledgers made before anchoring have no anchor: the first open of one by this version copies its
//! signed head into a new anchor before the schema moves on (trust on first use), and from then on
//! a missing anchor is itself a finding.

use crate::store::LedgerError;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The newest head the device has signed, as kept outside the ledger file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Anchor {
    pub seq: u64,
    pub hash: String,
    /// The device key's signature over [`crate::record::head_message`]`(seq, hash)`: the same
    /// signature as the head record's.
    pub signature: String,
}

/// Where the anchor of the ledger at `ledger` lives: beside it, `ledger.anchor`.
pub fn path_for(ledger: &Path) -> PathBuf {
    ledger.with_extension("anchor")
}

/// The anchor of the ledger at `ledger`; `None` when there is none. A file that is there but
/// cannot be read as an anchor is an error naming why (an anchor is never silently ignored).
pub fn read(ledger: &Path) -> Result<Option<Anchor>, LedgerError> {
    let path = path_for(ledger);
    let text = match std::fs::read(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(LedgerError::Anchor { path, reason: e.to_string() }),
    };
    // An anchor is a few hundred bytes; a large file is not one.
    if text.len() > 4096 {
        return Err(LedgerError::Anchor { path, reason: format!("{} bytes is too large for an anchor", text.len()) });
    }
    serde_json::from_slice(&text)
        .map(Some)
        .map_err(|e| LedgerError::Anchor { path, reason: format!("not an anchor: {e}") })
}

/// Moves the anchor forward to `anchor`; an anchor already at or past its sequence stays (two
/// processes appending race to write it, and the later sequence must win). Written to a
/// temporary name, synced and renamed, so a crash leaves the old anchor or the new, never half.
pub fn advance(ledger: &Path, anchor: &Anchor) -> Result<(), LedgerError> {
    let path = path_for(ledger);
    let fail = |e: std::io::Error| LedgerError::Anchor { path: path.clone(), reason: e.to_string() };
    if let Ok(Some(old)) = read(ledger)
        && old.seq >= anchor.seq
    {
        return Ok(());
    }
    let text = serde_json::to_vec(anchor).map_err(|e| LedgerError::Encoding(e.to_string()))?;
    let tmp = path.with_extension(format!("anchor.{}.tmp", std::process::id()));
    let written = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(&text)?;
        f.sync_all()?;
        std::fs::rename(&tmp, &path)?;
        // The rename itself must survive a power cut: sync the folder that holds it.
        if let Some(dir) = path.parent()
            && let Ok(d) = std::fs::File::open(dir)
        {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written.map_err(fail)
}

/// What is wrong with a ledger of `events` events, whose event at the anchor's sequence has
/// `hash_at_anchor`, given its anchor. `None` when the ledger reaches the anchor and agrees with
/// it. The answer is the first missing or replaced sequence and why, in words.
pub fn disagreement(anchor: &Anchor, events: u64, hash_at_anchor: Option<&str>) -> Option<(u64, String)> {
    if events < anchor.seq {
        let missing = if events + 1 == anchor.seq {
            format!("event {} is", anchor.seq)
        } else {
            format!("events {}..={} are", events + 1, anchor.seq)
        };
        return Some((
            events + 1,
            format!(
                "the ledger ends at event {events}, but its anchor (ledger.anchor, kept outside the file) vouches for {}: {missing} missing — the end was cut, or an older copy of the ledger was put back",
                anchor.seq
            ),
        ));
    }
    match hash_at_anchor {
        Some(h) if h.eq_ignore_ascii_case(&anchor.hash) => None,
        _ => Some((
            anchor.seq,
            format!(
                "event {} is not the one the anchor (ledger.anchor) vouches for: the history up to it was replaced",
                anchor.seq
            ),
        )),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn a(seq: u64) -> Anchor {
        Anchor { seq, hash: format!("{seq:064x}"), signature: "ab".repeat(64) }
    }

    #[test]
    fn the_anchor_only_moves_forward() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = dir.path().join("ledger.db");
        assert_eq!(read(&ledger).unwrap(), None);
        advance(&ledger, &a(5)).unwrap();
        advance(&ledger, &a(3)).unwrap();
        assert_eq!(read(&ledger).unwrap(), Some(a(5)));
        advance(&ledger, &a(9)).unwrap();
        assert_eq!(read(&ledger).unwrap(), Some(a(9)));
        // No temporary file is left behind.
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("ledger.anchor")]);
    }

    #[test]
    fn a_garbled_anchor_is_an_error_not_an_absence() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = dir.path().join("ledger.db");
        std::fs::write(path_for(&ledger), "{\"seq\": \"many\"}").unwrap();
        let e = read(&ledger).unwrap_err().to_string();
        assert!(e.contains("ledger.anchor") && e.contains("not an anchor"), "{e}");
        std::fs::write(path_for(&ledger), vec![b' '; 5000]).unwrap();
        assert!(read(&ledger).unwrap_err().to_string().contains("too large"));
    }

    #[test]
    fn a_shorter_or_different_ledger_disagrees_with_its_anchor_by_name() {
        let anchor = a(10);
        assert_eq!(disagreement(&anchor, 10, Some(&anchor.hash)), None);
        assert_eq!(disagreement(&anchor, 12, Some(&anchor.hash)), None);
        let (seq, why) = disagreement(&anchor, 7, None).unwrap();
        assert_eq!(seq, 8);
        assert!(why.contains("events 8..=10 are missing"), "{why}");
        let (seq, why) = disagreement(&anchor, 9, None).unwrap();
        assert_eq!(seq, 10);
        assert!(why.contains("event 10 is missing"), "{why}");
        let (seq, why) = disagreement(&anchor, 10, Some(&"0".repeat(64))).unwrap();
        assert_eq!(seq, 10);
        assert!(why.contains("replaced"), "{why}");
    }
}
