//! A string written as JSON, byte for byte as serde_json writes it, eight bytes at a look.
//!
//! Every recorded hash covers strings written this way: the chain hash covers each row's payload
//! (itself JSON, so a quote every few bytes) written as one JSON string, and every state hash
//! covers the canonical JSON of the state. serde_json looks each byte up in a table; on a 700-byte
//! payload that was a tenth of what verify spent on a row. Here a whole word is tested at once for
//! the three things JSON escapes — `"`, `\` and the control bytes below 0x20 — and runs without
//! any are copied whole.
//!
//! What is written never changes: the escapes are serde_json's (`\"`, `\\`, `\b`, `\t`, `\n`,
//! `\f`, `\r`, else `\u00xx` in lowercase hex), everything else (0x7f and all of UTF-8 above it)
//! is copied as it is, and a proptest holds the two writers equal on any text.

/// A word with every byte `b`.
const fn every(b: u8) -> u64 {
    u64::from_ne_bytes([b; 8])
}

const LOW: u64 = every(0x01);
const HIGH: u64 = every(0x80);

/// A mask whose lowest set bit is in the first byte of `word` (in memory order) that JSON
/// escapes; zero where there is none. Bits above the lowest may be wrong (a borrow runs on into
/// the next byte), so only the lowest is read.
fn escapes(word: u64) -> u64 {
    let below_space = word.wrapping_sub(every(0x20)) & !word;
    let quote = word ^ every(b'"');
    let backslash = word ^ every(b'\\');
    let is_quote = quote.wrapping_sub(LOW) & !quote;
    let is_backslash = backslash.wrapping_sub(LOW) & !backslash;
    (below_space | is_quote | is_backslash) & HIGH
}

/// `text` as a JSON string (quotes included) at the end of `out`.
pub fn write(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    // `run` is where the bytes not yet written start; `at`, the next byte to look at.
    let (mut run, mut at) = (0, 0);
    while at < bytes.len() {
        let found = match bytes.get(at..at + 8) {
            Some(chunk) => {
                let mut word = [0; 8];
                word.copy_from_slice(chunk);
                let mask = escapes(u64::from_le_bytes(word));
                if mask == 0 {
                    at += 8;
                    continue;
                }
                at + (mask.trailing_zeros() / 8) as usize
            }
            // The last few bytes, one at a time.
            None => match bytes[at..].iter().position(|&b| b < 0x20 || b == b'"' || b == b'\\') {
                Some(i) => at + i,
                None => break,
            },
        };
        out.extend_from_slice(&bytes[run..found]);
        escape(out, bytes[found]);
        run = found + 1;
        at = found + 1;
    }
    out.extend_from_slice(&bytes[run..]);
    out.push(b'"');
}

/// One byte that JSON escapes, escaped as serde_json does.
fn escape(out: &mut Vec<u8>, byte: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let short = match byte {
        b'"' => b'"',
        b'\\' => b'\\',
        0x08 => b'b',
        0x09 => b't',
        0x0a => b'n',
        0x0c => b'f',
        0x0d => b'r',
        _ => {
            out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(byte >> 4)],
                HEX[usize::from(byte & 0xf)],
            ]);
            return;
        }
    };
    out.extend_from_slice(&[b'\\', short]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ours(text: &str) -> String {
        let mut out = Vec::new();
        write(&mut out, text);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn every_byte_below_0x80_is_written_as_serde_json_writes_it() {
        for b in 0u8..0x80 {
            let c = char::from(b);
            // At each place in a word and in the tail, alone and between others.
            for text in
                [c.to_string(), format!("abcdefg{c}hij"), format!("{c}{c}{c}{c}{c}{c}{c}{c}{c}"), format!("0123456{c}")]
            {
                assert_eq!(ours(&text), serde_json::to_string(&text).unwrap(), "byte {b:#04x} in {text:?}");
            }
        }
    }

    #[test]
    fn a_payload_is_written_as_serde_json_writes_it() {
        let payload = r#"{"call":{"args":{"path":"Photos/über \"café\".jpg"},"tool":"fs.hash"},"kind":"proposed","note":"a\\b	c"}"#;
        assert_eq!(ours(payload), serde_json::to_string(payload).unwrap());
        assert_eq!(ours(""), "\"\"");
    }

    proptest! {
        #[test]
        fn any_text_is_written_as_serde_json_writes_it(text in any::<String>()) {
            prop_assert_eq!(ours(&text), serde_json::to_string(&text).unwrap());
        }

        #[test]
        fn json_like_text_is_written_as_serde_json_writes_it(text in r#"[a-z"\\{}:,\x00-\x1f\x7f é]{0,80}"#) {
            prop_assert_eq!(ours(&text), serde_json::to_string(&text).unwrap());
        }
    }
}
