//! One ledger row and how its hash is made.
//!
//! A row's hash covers the previous row's hash and every other column of the row, so a single
//! flipped byte anywhere in a row changes its hash, and the sequence number is inside the hash,
//! so rows cannot trade places. Two ways of making it exist, and each row says which in its
//! `chain` column (the chain scheme):
//!
//! - **1, canonical JSON** (every row written before schema 5):
//!   `blake3(prev ‖ canonical JSON of {"at_ms","corr","kind","payload","seq","state_after",
//!   "state_before","wall_ms"})`. The payload enters as a JSON *string*: every quote in it is
//!   escaped first, which made writing that text cost more than hashing it.
//! - **2, raw fields** (every row written since): `blake3("smart.ledger.chain.v2\0" ‖ prev ‖
//!   seq ‖ at_ms ‖ wall_ms ‖ corr ‖ kind ‖ payload ‖ state_before ‖ state_after)`, numbers as
//!   8 bytes little-endian, each text as its length (8 bytes little-endian) and its exact bytes.
//!   The length before each text keeps the fields apart as the JSON's quotes did; the tag in
//!   front keeps the two schemes apart (a scheme-1 text opens on a hash, never on the tag). It
//!   hashes about 40 % faster, and every verify and open hashes every row it reads.
//!
//! The scheme is not a setting a row could be read under by mistake: a row whose `chain` column
//! was changed is hashed the other way and fails at its own sequence, and one that was
//! re-hashed the other way fails its seal (keyed by the device) and the signed head.

use serde::Serialize;
use smart_kernel::{Hash, KernelEvent, Millis};

/// The deepest an event's JSON may nest to be written. The reader (serde_json) refuses more
/// than 128 levels, so an event past this could be written and never read again — one such row
/// once made `verify`, `replay` and a snapshot-less open fail for good. Checked on every append.
pub const MAX_EVENT_DEPTH: usize = 96;
/// The most one event may weigh, as JSON text. The largest real ones are receipts of plans over
/// thousands of files (a few megabytes); anything heavier is refused before it is written, so no
/// single call can grow the ledger without bound.
pub const MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// How deeply the JSON text `text` nests, counted without parsing (and so without recursing).
pub fn json_depth(text: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for b in text.bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// An event on its way in.
pub struct NewEvent<'a> {
    pub corr: &'a str,
    pub event: &'a KernelEvent,
    pub at: Millis,
    pub wall_ms: u64,
    pub state_before: Hash,
    pub state_after: Hash,
}

/// The chain scheme of rows written before schema 5: the canonical JSON of the columns.
pub const CHAIN_JSON: i64 = 1;
/// The chain scheme of rows written since: the raw fields, each with its length.
pub const CHAIN_RAW: i64 = 2;
/// The scheme [`crate::Ledger::append`] writes new rows under.
pub const CHAIN_NOW: i64 = CHAIN_RAW;

/// A row as stored.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct StoredEvent {
    pub seq: u64,
    pub corr: String,
    pub kind: String,
    pub payload: String,
    pub at_ms: u64,
    pub wall_ms: u64,
    pub state_before: String,
    pub state_after: String,
    pub prev_hash: String,
    pub hash: String,
    /// Keyed MAC of `hash` with the device's seal key: only the device can make one.
    pub seal: String,
    /// How `hash` is made: [`CHAIN_JSON`] or [`CHAIN_RAW`] (see the module's comment).
    pub chain: i64,
}

impl StoredEvent {
    /// The hash this row should carry, given its own `prev_hash`.
    pub fn compute_hash(&self) -> Result<Hash, String> {
        self.compute_hash_in(&mut Vec::new())
    }

    /// [`StoredEvent::compute_hash`], writing the hashed text into `text` (cleared first): a
    /// verify hashes every row, and a fresh buffer a row was an allocation of about a kilobyte
    /// each time.
    pub(crate) fn compute_hash_in(&self, text: &mut Vec<u8>) -> Result<Hash, String> {
        let prev = Hash::from_hex(&self.prev_hash).map_err(|e| format!("prev_hash: {e}"))?;
        self.compute_hash_after(&prev, text)
    }

    /// [`StoredEvent::compute_hash_in`] with `prev_hash` already read as `prev`: a verify that
    /// has checked this row's link holds the previous row's hash, and reading the hex again
    /// for every row was a fiftieth of what a verify spent.
    pub(crate) fn compute_hash_after(&self, prev: &Hash, text: &mut Vec<u8>) -> Result<Hash, String> {
        let hash = chain_hasher(self.chain)?;
        Ok(hash(
            text,
            prev,
            self.seq,
            &self.corr,
            &self.kind,
            &self.payload,
            self.at_ms,
            self.wall_ms,
            &self.state_before,
            &self.state_after,
        ))
    }

    /// The kernel event in the payload. Reads what [`MAX_EVENT_DEPTH`] lets the writer write.
    pub fn event(&self) -> Result<KernelEvent, String> {
        event_of(&self.kind, &self.payload)
    }
}

/// The kernel event in a payload's text (replay reads it where SQLite holds it, not copied
/// first), read by its `kind` column: straight to that kind's fields where the payload is what
/// the writer makes. Anything else is read again the general way, so that a bad row gets the
/// same answer as ever — an error naming what is wrong, or an event of another kind for the
/// caller to find out of step with its column.
pub(crate) fn event_of(kind: &str, payload: &str) -> Result<KernelEvent, String> {
    KernelEvent::from_payload(kind, payload)
        .or_else(|_| serde_json::from_str(payload))
        .map_err(|e| format!("payload is not a kernel event: {e}"))
}

/// How a row's hash is made from its previous hash and its columns: `(text, prev, seq, corr, kind,
/// payload, at_ms, wall_ms, state_before, state_after)`, `text` being room to write in.
pub(crate) type ChainHash = fn(&mut Vec<u8>, &Hash, u64, &str, &str, &str, u64, u64, &str, &str) -> Hash;

/// The hash function of chain scheme `scheme`: what verify checks a row with and what append
/// writes a new one with (under [`CHAIN_NOW`]). An unknown scheme is an error naming it.
pub(crate) fn chain_hasher(scheme: i64) -> Result<ChainHash, String> {
    match scheme {
        CHAIN_JSON => Ok(chain_hash),
        CHAIN_RAW => Ok(chain_hash_raw),
        other => Err(format!("unknown chain scheme {other}")),
    }
}

/// Chain scheme 1: `blake3(prev ‖ canonical JSON of the other columns)`, the JSON written
/// directly, not built as an object.
///
/// The canonical text is what [`smart_kernel::canonical_bytes`] makes of the object
/// `{"at_ms","corr","kind","payload","seq","state_after","state_before","wall_ms"}` (keys in
/// byte order, serde_json's number and string escaping); building that object first copied every
/// payload once more and sorted its keys on every row, which was most of what verify spent. A
/// test keeps the two byte-for-byte equal.
///
/// The text is written into `text` (cleared first, its capacity kept): a verify hashes every
/// row in one buffer.
#[allow(clippy::too_many_arguments)]
pub(crate) fn chain_hash(
    text: &mut Vec<u8>,
    prev: &Hash,
    seq: u64,
    corr: &str,
    kind: &str,
    payload: &str,
    at_ms: u64,
    wall_ms: u64,
    before: &str,
    after: &str,
) -> Hash {
    enum Field<'a> {
        Number(u64),
        Text(&'a str),
    }
    use Field::{Number, Text};
    // In byte order of the keys, as canonical JSON sorts them.
    let fields = [
        ("at_ms", Number(at_ms)),
        ("corr", Text(corr)),
        ("kind", Text(kind)),
        ("payload", Text(payload)),
        ("seq", Number(seq)),
        ("state_after", Text(after)),
        ("state_before", Text(before)),
        ("wall_ms", Number(wall_ms)),
    ];
    // The text is written into one buffer and hashed at once: a payload's JSON is full of quotes
    // to escape, and feeding the hasher each piece between two escapes cost more than the hash.
    text.clear();
    text.reserve(32 + payload.len() + corr.len() + before.len() + after.len() + 160);
    text.extend_from_slice(&prev.0);
    let mut opening = b"{";
    for (key, value) in fields {
        text.extend_from_slice(opening);
        opening = b",";
        json_string(text, key);
        text.push(b':');
        match value {
            Number(n) => text.extend_from_slice(decimal(n, &mut [0; 20])),
            Text(t) => json_string(text, t),
        }
    }
    text.push(b'}');
    Hash(*blake3::hash(text).as_bytes())
}

/// Chain scheme 2: `blake3(tag ‖ prev ‖ the numbers ‖ each text after its length)` (see the
/// module's comment). Same arguments as [`chain_hash`]; the text is gathered in `text` and hashed
/// at once, which was faster than feeding the hasher each field.
#[allow(clippy::too_many_arguments)]
pub(crate) fn chain_hash_raw(
    text: &mut Vec<u8>,
    prev: &Hash,
    seq: u64,
    corr: &str,
    kind: &str,
    payload: &str,
    at_ms: u64,
    wall_ms: u64,
    before: &str,
    after: &str,
) -> Hash {
    const TAG: &[u8] = b"smart.ledger.chain.v2\0";
    text.clear();
    text.reserve(TAG.len() + 32 + 24 + 40 + corr.len() + kind.len() + payload.len() + before.len() + after.len());
    text.extend_from_slice(TAG);
    text.extend_from_slice(&prev.0);
    for n in [seq, at_ms, wall_ms] {
        text.extend_from_slice(&n.to_le_bytes());
    }
    for field in [corr, kind, payload, before, after] {
        text.extend_from_slice(&(field.len() as u64).to_le_bytes());
        text.extend_from_slice(field.as_bytes());
    }
    Hash(*blake3::hash(text).as_bytes())
}

/// `n`'s decimal digits (as JSON writes a whole number), in `buf`: no allocation per field.
fn decimal(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buf[at..];
        }
    }
}

/// `text` as a JSON string, escaped exactly as serde_json escapes it.
fn json_string(out: &mut Vec<u8>, text: &str) {
    smart_kernel::json_string::write(out, text);
}

/// The message the device key signs to vouch for the ledger's head: the canonical JSON of
/// `{"domain": "smart.ledger_head.v1", "hash", "seq"}`, written directly (every append makes
/// one; a test keeps it byte for byte what the object gives).
pub fn head_message(seq: u64, hash: &str) -> Vec<u8> {
    let mut text = Vec::with_capacity(64 + hash.len());
    text.extend_from_slice(br#"{"domain":"smart.ledger_head.v1","hash":"#);
    json_string(&mut text, hash);
    text.extend_from_slice(br#","seq":"#);
    text.extend_from_slice(decimal(seq, &mut [0; 20]));
    text.push(b'}');
    text
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use smart_kernel::canonical_bytes;

    proptest::proptest! {
        #[test]
        fn the_head_message_is_the_objects_canonical_json(seq in 0u64.., hash in "(.|[\\x00-\\x1f\"\\\\]){0,70}") {
            let by_object =
                canonical_bytes(&serde_json::json!({"domain": "smart.ledger_head.v1", "seq": seq, "hash": hash})).unwrap();
            proptest::prop_assert_eq!(head_message(seq, &hash), by_object);
        }
    }

    /// The hash as it was first defined: through a JSON object and [`canonical_bytes`]. Every
    /// ledger ever written was chained this way.
    #[allow(clippy::too_many_arguments)]
    fn chain_hash_by_object(
        prev: &Hash,
        seq: u64,
        corr: &str,
        kind: &str,
        payload: &str,
        at_ms: u64,
        wall_ms: u64,
        before: &str,
        after: &str,
    ) -> Hash {
        let body = serde_json::json!({
            "seq": seq, "corr": corr, "kind": kind, "payload": payload,
            "at_ms": at_ms, "wall_ms": wall_ms, "state_before": before, "state_after": after,
        });
        let mut hasher = blake3::Hasher::new();
        hasher.update(&prev.0);
        hasher.update(&canonical_bytes(&body).unwrap());
        Hash(*hasher.finalize().as_bytes())
    }

    proptest::proptest! {
        #[test]
        fn the_streamed_chain_hash_is_the_object_hash_byte_for_byte(
            prev in proptest::array::uniform32(0u8..),
            seq in 0u64..,
            corr in ".{0,12}",
            kind in "[a-z_]{0,12}",
            payload in "(.|\\PC|[\\x00-\\x1f\"\\\\\u{2028}\u{7f}]){0,80}",
            at_ms in 0u64..,
            wall_ms in 0u64..,
            before in "[0-9a-f]{0,64}",
            after in ".{0,8}",
        ) {
            let prev = Hash(prev);
            proptest::prop_assert_eq!(
                chain_hash(&mut Vec::new(), &prev, seq, &corr, &kind, &payload, at_ms, wall_ms, &before, &after),
                chain_hash_by_object(&prev, seq, &corr, &kind, &payload, at_ms, wall_ms, &before, &after)
            );
        }
    }

    /// Chain scheme 2 as its definition reads, fed to the hasher field by field (the code
    /// gathers it in one buffer first).
    fn chain_hash_by_definition(prev: &Hash, seq: u64, texts: [&str; 5], at_ms: u64, wall_ms: u64) -> Hash {
        let mut hasher = blake3::Hasher::new();
        hasher.update(b"smart.ledger.chain.v2\0");
        hasher.update(&prev.0);
        for n in [seq, at_ms, wall_ms] {
            hasher.update(&n.to_le_bytes());
        }
        for t in texts {
            hasher.update(&(t.len() as u64).to_le_bytes());
            hasher.update(t.as_bytes());
        }
        Hash(*hasher.finalize().as_bytes())
    }

    proptest::proptest! {
        #[test]
        fn the_raw_chain_hash_is_its_definition(
            prev in proptest::array::uniform32(0u8..),
            seq in 0u64..,
            corr in ".{0,12}",
            kind in "[a-z_]{0,12}",
            payload in "(.|\\PC|[\\x00-\\x1f\"\\\\]){0,80}",
            at_ms in 0u64..,
            wall_ms in 0u64..,
            before in "[0-9a-f]{0,64}",
            after in ".{0,8}",
        ) {
            let prev = Hash(prev);
            proptest::prop_assert_eq!(
                chain_hash_raw(&mut vec![7; 3], &prev, seq, &corr, &kind, &payload, at_ms, wall_ms, &before, &after),
                chain_hash_by_definition(&prev, seq, [&corr, &kind, &payload, &before, &after], at_ms, wall_ms)
            );
        }
    }

    fn row(chain: i64) -> StoredEvent {
        StoredEvent {
            seq: 42,
            corr: "06dfddca87ed0705".into(),
            kind: "signal_noted".into(),
            payload: r#"{"kind":"signal_noted","note":"a \"quoted\" word"}"#.into(),
            at_ms: 1_800_000_000_000,
            wall_ms: 1_800_000_000_123,
            state_before: "ab".repeat(32),
            state_after: "cd".repeat(32),
            prev_hash: "01".repeat(32),
            hash: String::new(),
            seal: String::new(),
            chain,
        }
    }

    /// Rows written under scheme 2 are hashed this way for good: a change to the scheme's
    /// definition would make every one of them fail verify. This pins one row's hash (the
    /// `blake3` package of PyPI, given the definition's bytes, gives the same).
    #[test]
    fn a_raw_chained_row_keeps_the_hash_it_was_written_with() {
        assert_eq!(
            row(CHAIN_RAW).compute_hash().unwrap().to_hex(),
            "7692e0a296b5ee15bc385e6660b8b2fda54b058c111011e2d4a7d104be5539f8"
        );
    }

    #[test]
    fn each_chain_scheme_hashes_a_row_its_own_way_and_an_unknown_one_is_an_error() {
        let json = row(CHAIN_JSON).compute_hash().unwrap();
        let raw = row(CHAIN_RAW).compute_hash().unwrap();
        assert_ne!(json, raw);
        let r = row(CHAIN_JSON);
        let by_object = chain_hash_by_object(
            &Hash::from_hex(&r.prev_hash).unwrap(),
            r.seq,
            &r.corr,
            &r.kind,
            &r.payload,
            r.at_ms,
            r.wall_ms,
            &r.state_before,
            &r.state_after,
        );
        assert_eq!(json, by_object);
        for unknown in [0, 3, -1] {
            assert_eq!(row(unknown).compute_hash(), Err(format!("unknown chain scheme {unknown}")));
        }
    }

    /// Under scheme 2 the fields' lengths keep them apart: a byte moved from one field to the
    /// next is a different row, as it was with the JSON's quotes.
    #[test]
    fn a_byte_moved_between_fields_changes_the_raw_hash() {
        let a = row(CHAIN_RAW);
        let moved: [fn(&mut StoredEvent); 3] = [
            // The last byte of one field becomes the first of the next.
            |r| {
                let last = r.corr.pop().unwrap();
                r.kind.insert(0, last);
            },
            |r| {
                let first = r.kind.remove(0);
                r.corr.push(first);
            },
            // A whole field taken into the one before.
            |r| {
                let before = std::mem::take(&mut r.state_before);
                r.payload.push_str(&before);
            },
        ];
        for (i, change) in moved.iter().enumerate() {
            let mut b = a.clone();
            change(&mut b);
            assert_ne!(b.compute_hash().unwrap(), a.compute_hash().unwrap(), "change {i}");
        }
    }

    #[test]
    fn decimal_digits_are_what_to_string_writes() {
        for n in [0, 1, 9, 10, 99, 100, 1_000_007, u64::MAX / 10, u64::MAX] {
            assert_eq!(decimal(n, &mut [0; 20]), n.to_string().as_bytes(), "{n}");
        }
    }

    #[test]
    fn json_depth_counts_brackets_outside_strings_only() {
        assert_eq!(json_depth("1"), 0);
        assert_eq!(json_depth(r#"{"a":[1,{"b":[]}]}"#), 4);
        assert_eq!(json_depth(r#"{"a":"[[[[{{{"}"#), 1);
        assert_eq!(json_depth(r#"{"a":"\"[[["}"#), 1);
        assert_eq!(json_depth(r#"{"a":"\\","b":[[]]}"#), 3);
        let deep = format!("{}{}", "[".repeat(500), "]".repeat(500));
        assert_eq!(json_depth(&deep), 500);
    }

    #[test]
    fn the_reader_reads_every_depth_the_writer_allows() {
        let at_limit = format!("{}1{}", "[".repeat(MAX_EVENT_DEPTH), "]".repeat(MAX_EVENT_DEPTH));
        assert!(serde_json::from_str::<serde_json::Value>(&at_limit).is_ok());
    }
}

/// Reading by the kind column against reading the tagged way, on ledgers recorded by real runs.
#[cfg(test)]
mod by_kind {
    use super::*;

    /// Every (kind, payload) of the recorded ledgers under the CLI's fixtures.
    fn recorded_rows() -> Vec<(String, String)> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cli/tests/fixtures");
        let mut rows = Vec::new();
        let mut ledgers =
            std::fs::read_dir(&dir).map(|d| d.flatten().map(|e| e.path()).collect::<Vec<_>>()).unwrap_or_default();
        ledgers.sort();
        for ledger in ledgers {
            // Immutable: a read-only open of a WAL file would still leave its -shm beside it.
            let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI;
            // In a URI a '?' or '#' in the path would end it, and '%' starts an escape.
            let path = ledger.join("ledger.db").display().to_string();
            let path = path.replace('%', "%25").replace('?', "%3f").replace('#', "%23");
            let uri = format!("file:{path}?immutable=1");
            let conn = rusqlite::Connection::open_with_flags(uri, flags).unwrap();
            let mut stmt = conn.prepare("SELECT kind, payload FROM events ORDER BY seq").unwrap();
            let read = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
            rows.extend(read.map(|r| r.unwrap()));
        }
        rows
    }

    #[test]
    fn every_recorded_event_reads_by_its_kind_as_the_tagged_form_reads_it() {
        let rows = recorded_rows();
        let kinds: std::collections::BTreeSet<&str> = rows.iter().map(|(k, _)| k.as_str()).collect();
        // Three ledgers of two dozen kinds: a fixture lost would make this test weaker unseen.
        assert!(rows.len() > 150 && kinds.len() >= 25, "{} rows of {} kinds", rows.len(), kinds.len());
        for (kind, payload) in &rows {
            let tagged: KernelEvent = serde_json::from_str(payload).unwrap();
            // Straight by kind, not by the fallback: the fast path must take every real row.
            let by_kind = KernelEvent::from_payload(kind, payload).map_err(|e| e.to_string());
            assert_eq!(by_kind, Ok(tagged), "{kind}: {payload}");
        }
    }

    #[test]
    fn a_payload_out_of_step_with_its_column_reads_as_it_always_did() {
        let rows = recorded_rows();
        let Some((_, payload)) = rows.iter().find(|(k, _)| k == "lease_activated") else {
            panic!("no lease_activated event in the fixtures");
        };
        // Another kind's column: the payload's own event comes back, for verify to name both.
        let event = event_of("lease_renewed", payload).unwrap();
        assert_eq!(event.kind(), "lease_activated");
        // Not an event at all: the tagged form's error, as ever.
        let err = event_of("lease_activated", r#"{"kind":"lease_activated"}"#).unwrap_err();
        assert!(err.starts_with("payload is not a kernel event: missing field"), "{err}");
    }
}
