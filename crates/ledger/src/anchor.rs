//! The anchor: the ledger's signed head, kept again outside the ledger file.
//!
//! The signed head record lives in the same SQLite file as the events it vouches for, so anything
//! that takes the file back in time takes the head with it: an older copy of `ledger.db` put back,
//! a cut write-ahead log, a deleted `head` row re-signed by the next command over a shortened
//! chain. The chain and the head then agree with each other, and nothing says events are missing.
//!
//! So every append also writes the newest (sequence, hash, signature) to `ledger.anchor` beside
//! the file (next to the device key's record), never backwards, in two checksummed slots so that
//! a crash while writing one leaves the other (see [`advance`]). A ledger that ends
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

/// One slot of the anchor file: a fixed-size, sector-aligned record.
const SLOT: usize = 512;
/// What opens a slot, then the blake3 of the anchor's JSON in hex, a space, the JSON, a newline;
/// the rest of the slot is zeros.
const MAGIC: &[u8] = b"smart-anchor-v2 ";

/// The anchor of the ledger at `ledger`; `None` when there is none. A file that is there but
/// cannot be read as an anchor is an error naming why (an anchor is never silently ignored).
///
/// The file holds two slots, written in place by turns (see [`advance`]), so the other slot
/// always holds an earlier, durable anchor. A slot torn by a power cut fails its checksum and is
/// skipped; the newest whole slot is the anchor. A file of the first
/// format (one JSON object, rewritten by rename) is still read.
pub fn read(ledger: &Path) -> Result<Option<Anchor>, LedgerError> {
    let path = path_for(ledger);
    match std::fs::read(&path) {
        Ok(text) => decode(&path, &text).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(LedgerError::Anchor { path, reason: e.to_string() }),
    }
}

/// The anchor in the bytes of the anchor file at `path`.
fn decode(path: &Path, text: &[u8]) -> Result<Anchor, LedgerError> {
    let bad = |reason: String| LedgerError::Anchor { path: path.to_path_buf(), reason };
    // An anchor is two slots; a larger file is not one.
    if text.len() > 2 * SLOT {
        return Err(bad(format!("{} bytes is too large for an anchor", text.len())));
    }
    if !text.starts_with(MAGIC) && text.first() == Some(&b'{') {
        return serde_json::from_slice(text).map_err(|e| bad(format!("not an anchor: {e}")));
    }
    let slots: Vec<Result<Anchor, String>> = text.chunks(SLOT).map(parse_slot).collect();
    match slots.iter().filter_map(|s| s.as_ref().ok()).max_by_key(|a| a.seq) {
        Some(newest) => Ok(newest.clone()),
        None => {
            let why: Vec<String> = slots.into_iter().filter_map(Result::err).collect();
            let why = if why.is_empty() { "the file is empty".to_string() } else { why.join("; ") };
            Err(bad(format!("not an anchor: {why}")))
        }
    }
}

/// The anchor in one slot, or why there is none.
fn parse_slot(slot: &[u8]) -> Result<Anchor, String> {
    let body = slot.strip_prefix(MAGIC).ok_or("a slot does not start as an anchor slot does")?;
    let end = body.iter().position(|b| *b == b'\n').ok_or("a slot is cut short")?;
    let (sum, json) = body[..end].split_at_checked(64).ok_or("a slot is cut short")?;
    let json = json.strip_prefix(b" ").ok_or("a slot is garbled")?;
    if blake3::hash(json).to_hex().as_bytes() != sum {
        return Err("a slot's checksum does not match (torn by a crash, or edited)".into());
    }
    serde_json::from_slice(json).map_err(|e| format!("a slot holds no anchor: {e}"))
}

/// One slot holding `anchor`.
fn slot_bytes(anchor: &Anchor) -> Result<Vec<u8>, LedgerError> {
    let json = serde_json::to_vec(anchor).map_err(|e| LedgerError::Encoding(e.to_string()))?;
    let mut slot = Vec::with_capacity(SLOT);
    slot.extend_from_slice(MAGIC);
    slot.extend_from_slice(blake3::hash(&json).to_hex().as_bytes());
    slot.push(b' ');
    slot.extend_from_slice(&json);
    slot.push(b'\n');
    if slot.len() > SLOT {
        return Err(LedgerError::Encoding(format!("an anchor of {} bytes does not fit its slot", slot.len())));
    }
    slot.resize(SLOT, 0);
    Ok(slot)
}

/// Appends that share one slot of the anchor file, and so one sync of it.
pub const SYNC_EVERY: u64 = 64;

/// Moves the anchor forward to `anchor`; an anchor already at or past its sequence stays (two
/// processes appending race to write it, and the later sequence must win).
///
/// Sequences come in generations of [`SYNC_EVERY`]; a generation's anchors overwrite one slot in
/// place (the slots alternate by generation), and the file is synced once per generation, just
/// before its first write — which makes the previous generation's last anchor, in the other
/// slot, durable before this slot is touched. So a power cut can tear or lose only the slot being
/// written, the other one always holds a durable anchor, and the anchor on disk is at most one
/// generation behind the ledger: weaker for those events, never wrong. A process that dies
/// leaves its write in the page cache, where the next reader finds it. Syncing on every append
/// (as the first format did, with a rename and a folder sync besides) cost more than the
/// insert itself. The file is made whole (both slots) by rename the first time, and when it is
/// of the first format.
pub fn advance(ledger: &Path, anchor: &Anchor) -> Result<(), LedgerError> {
    Writer::new(ledger).advance(anchor)
}

/// [`advance`] for a ledger that appends many times: the anchor file stays open between appends.
/// Opening, reading and closing it by name on every append cost as much again as writing it, and
/// the extra metadata traffic slowed the next commit's sync.
#[derive(Debug)]
pub struct Writer {
    path: PathBuf,
    file: Option<std::fs::File>,
    /// The file's bytes as this writer last wrote them, and the sequence they name: while the
    /// file still holds exactly those bytes (no other process moved the anchor), they need not
    /// be decoded again to know how far it reaches.
    wrote: Option<(Vec<u8>, u64)>,
}

impl Writer {
    pub fn new(ledger: &Path) -> Writer {
        Writer { path: path_for(ledger), file: None, wrote: None }
    }

    /// See [`advance`].
    pub fn advance(&mut self, anchor: &Anchor) -> Result<(), LedgerError> {
        let path = self.path.clone();
        let fail = |e: std::io::Error| LedgerError::Anchor { path: path.clone(), reason: e.to_string() };
        if self.file.is_none() {
            self.file = std::fs::OpenOptions::new().read(true).write(true).open(&path).ok();
        }
        let current = self.file.as_ref().and_then(|f| read_whole(f).ok());
        let known = match (&current, &self.wrote) {
            (Some(text), Some((wrote, seq))) if text == wrote => Some(*seq),
            _ => None,
        };
        let reaches = known.or_else(|| current.as_deref().and_then(|text| decode(&path, text).ok()).map(|a| a.seq));
        if reaches.is_some_and(|seq| seq >= anchor.seq) {
            return Ok(());
        }
        self.wrote = None;
        let current = current.filter(|t| t.len() == 2 * SLOT && t.starts_with(MAGIC));
        let slot = slot_bytes(anchor)?;
        let (Some(mut current), Some(f)) = (current, self.file.as_ref()) else {
            // Both slots hold the new anchor: there is no older one worth keeping in this format.
            // The file is replaced by rename, so the handle held on the old one goes.
            self.file = None;
            let mut whole = slot.clone();
            whole.extend_from_slice(&slot);
            return replace(&path, &whole).map_err(fail);
        };
        let generation = anchor.seq / SYNC_EVERY;
        let at = (generation % 2) as usize * SLOT;
        // Where this writer wrote the file as it is, the slot here holds its last anchor (same
        // generation) or one of an older generation.
        let first_of_generation = match known {
            Some(last) => last / SYNC_EVERY < generation,
            None => {
                let holds = current.get(at..at + SLOT).map(parse_slot).and_then(Result::ok);
                holds.is_none_or(|a| a.seq / SYNC_EVERY < generation)
            }
        };
        let written = (|| {
            if first_of_generation {
                f.sync_data()?;
            }
            write_at(f, &slot, at as u64)
        })();
        written.map_err(fail)?;
        // The other slot holds an older anchor (this one reaches past the newest the file held).
        current[at..at + SLOT].copy_from_slice(&slot);
        self.wrote = Some((current, anchor.seq));
        Ok(())
    }
}

/// The file's bytes, up to one more than an anchor can hold (so `decode` sees one too large).
fn read_whole(f: &std::fs::File) -> std::io::Result<Vec<u8>> {
    let mut buf = vec![0u8; 2 * SLOT + 1];
    let mut n = 0;
    while n < buf.len() {
        let got = read_at(f, &mut buf[n..], n as u64)?;
        if got == 0 {
            break;
        }
        n += got;
    }
    buf.truncate(n);
    Ok(buf)
}

#[cfg(unix)]
fn read_at(f: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(f, buf, at)
}

#[cfg(not(unix))]
fn read_at(f: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = f;
    f.seek(SeekFrom::Start(at))?;
    f.read(buf)
}

#[cfg(unix)]
fn write_at(f: &std::fs::File, bytes: &[u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(f, bytes, at)
}

#[cfg(not(unix))]
fn write_at(f: &std::fs::File, bytes: &[u8], at: u64) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom};
    let mut f = f;
    f.seek(SeekFrom::Start(at))?;
    f.write_all(bytes)
}

/// Writes `bytes` as the whole file at `path`: to a temporary name, synced, renamed, and the
/// folder synced, so a crash leaves the old file or the new, never half.
fn replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension(format!("anchor.{}.tmp", std::process::id()));
    let written = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)?;
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
    written
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
        std::fs::write(path_for(&ledger), vec![0u8; 1024]).unwrap();
        let e = read(&ledger).unwrap_err().to_string();
        assert!(e.contains("not an anchor"), "{e}");
    }

    #[test]
    fn a_slot_torn_by_a_crash_leaves_the_anchor_before_it() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = dir.path().join("ledger.db");
        let g = SYNC_EVERY;
        // Generation 0 in slot 0, generation 1 in slot 1.
        advance(&ledger, &a(g - 1)).unwrap();
        advance(&ledger, &a(g + 3)).unwrap();
        advance(&ledger, &a(g + 4)).unwrap();
        assert_eq!(read(&ledger).unwrap(), Some(a(g + 4)));
        let bytes = std::fs::read(path_for(&ledger)).unwrap();
        assert_eq!(parse_slot(&bytes[..SLOT]).unwrap(), a(g - 1), "slot 0 keeps generation 0's last");
        // Generation 2 goes to slot 0 again; a write cut off after its first 100 bytes.
        let mut bytes = std::fs::read(path_for(&ledger)).unwrap();
        let new = slot_bytes(&a(2 * g)).unwrap();
        bytes[..100].copy_from_slice(&new[..100]);
        std::fs::write(path_for(&ledger), &bytes).unwrap();
        assert_eq!(read(&ledger).unwrap(), Some(a(g + 4)), "the torn slot is skipped");
        // One changed byte inside a slot's JSON fails its checksum the same way.
        let mut bytes = std::fs::read(path_for(&ledger)).unwrap();
        let at = SLOT + MAGIC.len() + 64 + 10;
        bytes[at] ^= 1;
        std::fs::write(path_for(&ledger), &bytes).unwrap();
        let e = read(&ledger).unwrap_err().to_string();
        assert!(e.contains("checksum"), "{e}");
        // A torn slot is written over by the next anchor of its generation.
        advance(&ledger, &a(2 * g + 1)).unwrap();
        assert_eq!(read(&ledger).unwrap(), Some(a(2 * g + 1)));
    }

    #[test]
    fn an_anchor_of_the_first_format_is_read_and_moved_on_in_slots() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = dir.path().join("ledger.db");
        std::fs::write(path_for(&ledger), serde_json::to_vec(&a(4)).unwrap()).unwrap();
        assert_eq!(read(&ledger).unwrap(), Some(a(4)));
        advance(&ledger, &a(3)).unwrap();
        assert_eq!(read(&ledger).unwrap(), Some(a(4)), "never backwards, whatever the format");
        advance(&ledger, &a(5)).unwrap();
        assert_eq!(std::fs::read(path_for(&ledger)).unwrap().len(), 2 * SLOT);
        assert_eq!(read(&ledger).unwrap(), Some(a(5)));
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
