//! Canonical bytes and the hashes made from them.
//!
//! Replay has to reproduce state hashes exactly, on any machine, with any feature set of
//! `serde_json` (its `preserve_order` feature, which some dependencies switch on, changes map
//! order). So we never hash `serde_json`'s output: we write JSON ourselves with object keys sorted
//! by their bytes, no whitespace, and serde_json's number and string escaping. Same value, same
//! bytes, same blake3 hash.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::fmt;

/// Each byte's value as a hex digit, either case; `NOT_HEX` where it is none. A table, so that
/// reading a hash is 64 lookups and no branch a digit: verify reads one a row, replay two.
const NIBBLES: [u8; 256] = {
    let mut table = [NOT_HEX; 256];
    let mut d = 0;
    while d < 10 {
        table[b'0' as usize + d] = d as u8;
        d += 1;
    }
    let mut d = 0;
    while d < 6 {
        table[b'a' as usize + d] = 10 + d as u8;
        table[b'A' as usize + d] = 10 + d as u8;
        d += 1;
    }
    table
};

/// Not a hex digit: the high bits no digit's value has.
const NOT_HEX: u8 = 0xF0;

/// A blake3 hash, shown and stored as 64 lowercase hex digits.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Hash(pub [u8; 32]);

impl Hash {
    pub const ZERO: Hash = Hash([0; 32]);

    pub fn of_bytes(bytes: &[u8]) -> Hash {
        Hash(*blake3::hash(bytes).as_bytes())
    }

    pub fn to_hex(&self) -> String {
        let mut buf = [0u8; 64];
        self.hex_in(&mut buf).to_string()
    }

    /// The 64 hex digits written into `buf`, without allocating: verify and append compare and
    /// store several per event (`hex::encode` builds its string a char at a time).
    pub fn hex_in<'b>(&self, buf: &'b mut [u8; 64]) -> &'b str {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        for (pair, byte) in buf.chunks_exact_mut(2).zip(self.0) {
            pair[0] = DIGITS[usize::from(byte >> 4)];
            pair[1] = DIGITS[usize::from(byte & 0xf)];
        }
        std::str::from_utf8(buf).unwrap_or_default()
    }

    pub fn from_hex(text: &str) -> Result<Hash, String> {
        if text.len() != 64 {
            return Err(match hex::decode(text) {
                Err(e) => format!("not a hex hash ({e}): {text:?}"),
                Ok(_) => format!("a hash is 64 hex digits, got {} characters", text.len()),
            });
        }
        let mut arr = [0u8; 32];
        let mut seen = 0u8;
        for (byte, pair) in arr.iter_mut().zip(text.as_bytes().chunks_exact(2)) {
            let (hi, lo) = (NIBBLES[pair[0] as usize], NIBBLES[pair[1] as usize]);
            seen |= hi | lo;
            *byte = hi << 4 | lo;
        }
        if seen & NOT_HEX != 0 {
            // The hex crate names the bad digit and where it is.
            hex::decode_to_slice(text, &mut arr).map_err(|e| format!("not a hex hash ({e}): {text:?}"))?;
        }
        Ok(Hash(arr))
    }

    /// The first 12 hex digits: enough to name a pending call or a lease to a person.
    pub fn short(&self) -> String {
        let mut s = self.to_hex();
        s.truncate(12);
        s
    }
}

impl fmt::Display for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Hash({})", self.short())
    }
}

// Both ways through a borrowed string, not an owned one: an event carries up to a dozen hashes,
// and reading or writing one is a row's work in verify, replay and every append.
impl Serialize for Hash {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.hex_in(&mut [0; 64]))
    }
}

impl<'de> Deserialize<'de> for Hash {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Hash, D::Error> {
        d.deserialize_str(HexVisitor)
    }
}

struct HexVisitor;

impl serde::de::Visitor<'_> for HexVisitor {
    type Value = Hash;

    // What `String`'s own visitor expects: a value of another type is refused in the same words.
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Hash, E> {
        Hash::from_hex(text).map_err(E::custom)
    }

    fn visit_bytes<E: serde::de::Error>(self, bytes: &[u8]) -> Result<Hash, E> {
        match std::str::from_utf8(bytes) {
            Ok(text) => self.visit_str(text),
            Err(_) => Err(E::invalid_value(serde::de::Unexpected::Bytes(bytes), &self)),
        }
    }
}

/// Canonical JSON bytes of any serialisable value.
pub fn canonical_bytes<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, serde_json::Error> {
    let mut out = Vec::with_capacity(256);
    crate::canonical_writer::write(value, &mut out)?;
    Ok(out)
}

/// blake3 of the canonical JSON bytes.
pub fn hash_of<T: Serialize + ?Sized>(value: &T) -> Result<Hash, serde_json::Error> {
    Ok(Hash::of_bytes(&canonical_bytes(value)?))
}

/// Writes `v` canonically: sorted keys, no whitespace.
pub fn write_value(v: &Value, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push(b'{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                serde_json::to_writer(&mut *out, k)?;
                out.push(b':');
                if let Some(child) = map.get(*k) {
                    write_value(child, out)?;
                }
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_value(item, out)?;
            }
            out.push(b']');
        }
        scalar => serde_json::to_writer(&mut *out, scalar)?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn keys_are_sorted_at_every_depth() {
        let v = json!({"b": 1, "a": {"z": [1, {"y": 2, "x": 3}], "c": null}});
        let bytes = canonical_bytes(&v).unwrap();
        assert_eq!(String::from_utf8(bytes).unwrap(), r#"{"a":{"c":null,"z":[1,{"x":3,"y":2}]},"b":1}"#);
    }

    #[test]
    fn hex_round_trips_and_rejects_garbage() {
        let h = Hash::of_bytes(b"smart");
        assert_eq!(Hash::from_hex(&h.to_hex()), Ok(h));
        assert!(Hash::from_hex("zz").is_err());
        assert!(Hash::from_hex("abcd").unwrap_err().contains("64 hex"));
        assert!(Hash::from_hex(&"g".repeat(64)).unwrap_err().contains("not a hex hash"));
        assert!(Hash::from_hex(&"g".repeat(62)).unwrap_err().contains("not a hex hash"));
        // Upper case is read (as hex::decode read it), and written back lower case.
        assert_eq!(Hash::from_hex(&h.to_hex().to_uppercase()), Ok(h));
    }

    proptest! {
        // The table-driven digits are hex::encode's, byte for byte: every stored hash was
        // written by it.
        #[test]
        fn hex_digits_are_the_hex_crates(bytes in any::<[u8; 32]>()) {
            prop_assert_eq!(Hash(bytes).to_hex(), hex::encode(bytes));
            prop_assert_eq!(Hash::from_hex(&hex::encode_upper(bytes)), Ok(Hash(bytes)));
        }

        // Any 64 characters read as the hex crate reads them: the same hash, or an error.
        #[test]
        fn hex_is_read_as_the_hex_crate_reads_it(text in "[0-9a-fA-Fg-z ]{64}") {
            let ours = Hash::from_hex(&text).ok();
            let theirs = hex::decode(&text).ok().and_then(|b| <[u8; 32]>::try_from(b).ok()).map(Hash);
            prop_assert_eq!(ours, theirs);
        }
    }

    proptest! {
        // Insertion order must never reach the hash.
        #[test]
        fn insertion_order_does_not_change_the_hash(pairs in proptest::collection::btree_map("[a-z]{1,6}", any::<i64>(), 0..12)) {
            let forward: serde_json::Map<String, Value> = pairs.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
            let backward: serde_json::Map<String, Value> = pairs.iter().rev().map(|(k, v)| (k.clone(), json!(v))).collect();
            prop_assert_eq!(hash_of(&Value::Object(forward)).unwrap(), hash_of(&Value::Object(backward)).unwrap());
        }
    }
}
