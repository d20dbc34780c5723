//! Turning one directory entry into what the index stores about it.
//!
//! This is the only place that opens a person's file, and it opens it read-only, by name,
//! through the handle of the folder it was listed in (see `walk`). A file is opened only when
//! its words may be indexed: symlinks, special files and conventionally binary names are taken
//! from their metadata alone. After opening, the file's own metadata must still describe the
//! regular file the listing saw (same inode on Unix); otherwise it changed in between and is
//! skipped this time rather than indexed under a name it no longer has.
//!
//! The size and modification time recorded are the open file's, taken *before* reading, so a
//! write that lands during the read leaves a newer time on disk than in the index and the next
//! sync reads the file again. Reads are bounded by `max_text_bytes + 1` even if the file grows
//! after it was measured.
//!
//! `blake3` is the hash of exactly the bytes whose text was indexed, and `None` whenever the
//! whole file was not read (binaries, oversize text, symlinks, special files): hashing a large
//! binary would cost a full read of it for a value nothing in the index uses.

use crate::kind::{self, Kind, SNIFF_BYTES};
use crate::limits::Limits;
use crate::walk::same_object;
use cap_std::fs::{Dir, Metadata};
use std::io::Read;

/// The size and modification time that decide whether an indexed entry changed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Stamp {
    pub size: u64,
    /// Nanoseconds since the Unix epoch (negative before it; 0 where the platform has none).
    pub mtime_ns: i64,
}

impl Stamp {
    pub(crate) fn of(meta: &Metadata) -> Stamp {
        let mtime_ns = match meta.modified() {
            Ok(t) => match t.into_std().duration_since(std::time::UNIX_EPOCH) {
                Ok(d) => i64::try_from(d.as_nanos()).unwrap_or(i64::MAX),
                Err(e) => i64::try_from(e.duration().as_nanos()).map(|n| -n).unwrap_or(i64::MIN),
            },
            Err(_) => 0,
        };
        Stamp { size: meta.len(), mtime_ns }
    }

    /// Milliseconds since the epoch, clamped at 0 for times before it.
    pub(crate) fn modified_ms(self) -> u64 {
        u64::try_from(self.mtime_ns / 1_000_000).unwrap_or(0)
    }
}

/// What the index stores about one entry.
#[derive(Clone, Debug)]
pub(crate) struct Extracted {
    pub kind: Kind,
    pub stamp: Stamp,
    /// The indexed text: `Some` exactly for textual files within the size limit.
    pub text: Option<String>,
    /// Hex blake3 of the indexed text's bytes; `None` when the file was not read whole.
    pub blake3: Option<String>,
}

/// Extracts the entry `name` of `parent`, listed with the (not-followed) metadata `listed`.
/// `Err` is the reason it was skipped.
pub(crate) fn extract(parent: &Dir, name: &str, listed: &Metadata, limits: &Limits) -> Result<Extracted, String> {
    let by_metadata = |kind: Kind| Extracted { kind, stamp: Stamp::of(listed), text: None, blake3: None };
    if listed.is_symlink() {
        return Ok(by_metadata(Kind::Symlink));
    }
    if !listed.is_file() {
        return Ok(by_metadata(Kind::Other));
    }
    let hint = kind::hint(name);
    if hint == kind::NameHint::Binary {
        return Ok(by_metadata(Kind::Binary));
    }
    // Never waiting at `open`: if a named pipe took the listed file's place since the listing, a
    // plain open would block until a writer came (the check below then names the swap).
    let mut opts = cap_std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    cap_std::fs::OpenOptionsExt::custom_flags(&mut opts, rustix::fs::OFlags::NONBLOCK.bits() as i32);
    let file = parent.open_with(name, &opts).map_err(|e| format!("cannot be opened: {e}"))?;
    let opened = file.metadata().map_err(|e| format!("cannot be inspected: {e}"))?;
    if !opened.is_file() || !same_object(listed, &opened) {
        return Err("changed while being read (it is no longer the file that was listed)".into());
    }
    let stamp = Stamp::of(&opened);
    let read_err = |e: std::io::Error| format!("cannot be read: {e}");
    if stamp.size > limits.max_text_bytes {
        let mut head = Vec::with_capacity(SNIFF_BYTES);
        (&file).take(SNIFF_BYTES as u64).read_to_end(&mut head).map_err(read_err)?;
        return Ok(Extracted { kind: kind::classify_head(hint, &head), stamp, text: None, blake3: None });
    }
    let cap = limits.max_text_bytes.saturating_add(1);
    let mut bytes = Vec::with_capacity(usize::try_from(stamp.size).unwrap_or(0).saturating_add(1));
    (&file).take(cap).read_to_end(&mut bytes).map_err(read_err)?;
    if bytes.len() as u64 > limits.max_text_bytes {
        // It grew past the limit after it was measured.
        let head = &bytes[..bytes.len().min(SNIFF_BYTES)];
        return Ok(Extracted { kind: kind::classify_head(hint, head), stamp, text: None, blake3: None });
    }
    let hash = blake3::hash(&bytes).to_hex().to_string();
    let (kind, text) = kind::classify_whole(hint, bytes);
    let blake3 = text.is_some().then_some(hash);
    Ok(Extracted { kind, stamp, text, blake3 })
}
