//! Just enough of the GGUF format to say what a model file is before llama.cpp is asked to load
//! it.
//!
//! llama.cpp answers a bad file with a null pointer and a log line. A person deserves better:
//! "this is not a GGUF file", "this GGUF is a `bert` model, which cannot propose tool calls",
//! "the file ends in the middle of its header". Reading the header ourselves gives those
//! answers, and the chat template and name it holds are what picks the prompt format.

use std::io::Read;
use thiserror::Error;

/// What the header says about the model.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GgufInfo {
    pub version: u32,
    pub tensor_count: u64,
    pub architecture: Option<String>,
    pub name: Option<String>,
    pub chat_template: Option<String>,
}

#[derive(Debug, Error)]
pub enum GgufError {
    #[error("not a GGUF file (it starts with {0:02x?}, a GGUF file starts with \"GGUF\")")]
    NotGguf([u8; 4]),
    #[error("GGUF version {0} is not one llama.cpp reads (2 or 3)")]
    Version(u32),
    #[error("the file ends inside its header (truncated or corrupt): {0}")]
    Truncated(std::io::Error),
    #[error("the header is corrupt: {0}")]
    Corrupt(String),
}

/// Largest string or array the header may declare; beyond this the file is corrupt, and reading
/// on would allocate whatever a broken length field says.
const MAX_LEN: u64 = 256 << 20;

pub fn read_info(r: &mut impl Read) -> Result<GgufInfo, GgufError> {
    let mut magic = [0u8; 4];
    r.read_exact(&mut magic).map_err(GgufError::Truncated)?;
    if &magic != b"GGUF" {
        return Err(GgufError::NotGguf(magic));
    }
    let version = u32_le(r)?;
    if !(2..=3).contains(&version) {
        return Err(GgufError::Version(version));
    }
    let tensor_count = u64_le(r)?;
    let kv_count = u64_le(r)?;
    if kv_count > 1_000_000 {
        return Err(GgufError::Corrupt(format!("{kv_count} metadata entries")));
    }
    let mut info = GgufInfo { version, tensor_count, ..GgufInfo::default() };
    for _ in 0..kv_count {
        let key = string(r)?;
        let ty = u32_le(r)?;
        let wanted = matches!(key.as_str(), "general.architecture" | "general.name" | "tokenizer.chat_template");
        if ty == 8 && wanted {
            let value = string(r)?;
            match key.as_str() {
                "general.architecture" => info.architecture = Some(value),
                "general.name" => info.name = Some(value),
                _ => info.chat_template = Some(value),
            }
        } else {
            skip_value(r, ty)?;
        }
        if info.architecture.is_some() && info.name.is_some() && info.chat_template.is_some() {
            break;
        }
    }
    Ok(info)
}

fn u32_le(r: &mut impl Read) -> Result<u32, GgufError> {
    let mut b = [0u8; 4];
    r.read_exact(&mut b).map_err(GgufError::Truncated)?;
    Ok(u32::from_le_bytes(b))
}

fn u64_le(r: &mut impl Read) -> Result<u64, GgufError> {
    let mut b = [0u8; 8];
    r.read_exact(&mut b).map_err(GgufError::Truncated)?;
    Ok(u64::from_le_bytes(b))
}

fn string(r: &mut impl Read) -> Result<String, GgufError> {
    let len = u64_le(r)?;
    if len > MAX_LEN {
        return Err(GgufError::Corrupt(format!("a string of {len} bytes")));
    }
    let mut buf = vec![0u8; len as usize];
    r.read_exact(&mut buf).map_err(GgufError::Truncated)?;
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

fn skip(r: &mut impl Read, n: u64) -> Result<(), GgufError> {
    let copied = std::io::copy(&mut r.by_ref().take(n), &mut std::io::sink()).map_err(GgufError::Truncated)?;
    if copied < n {
        return Err(GgufError::Truncated(std::io::ErrorKind::UnexpectedEof.into()));
    }
    Ok(())
}

fn skip_value(r: &mut impl Read, ty: u32) -> Result<(), GgufError> {
    match ty {
        0 | 1 | 7 => skip(r, 1),
        2 | 3 => skip(r, 2),
        4..=6 => skip(r, 4),
        10..=12 => skip(r, 8),
        8 => {
            let len = u64_le(r)?;
            if len > MAX_LEN {
                return Err(GgufError::Corrupt(format!("a string of {len} bytes")));
            }
            skip(r, len)
        }
        9 => {
            let inner = u32_le(r)?;
            let count = u64_le(r)?;
            if count > MAX_LEN {
                return Err(GgufError::Corrupt(format!("an array of {count} entries")));
            }
            match inner {
                0 | 1 | 7 => skip(r, count),
                2 | 3 => skip(r, count * 2),
                4..=6 => skip(r, count * 4),
                10..=12 => skip(r, count * 8),
                _ => (0..count).try_for_each(|_| skip_value(r, inner)),
            }
        }
        other => Err(GgufError::Corrupt(format!("unknown value type {other}"))),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    fn kv_string(out: &mut Vec<u8>, key: &str, value: &str) {
        out.extend((key.len() as u64).to_le_bytes());
        out.extend(key.as_bytes());
        out.extend(8u32.to_le_bytes());
        out.extend((value.len() as u64).to_le_bytes());
        out.extend(value.as_bytes());
    }

    fn header(kvs: u64) -> Vec<u8> {
        let mut out = b"GGUF".to_vec();
        out.extend(3u32.to_le_bytes());
        out.extend(7u64.to_le_bytes());
        out.extend(kvs.to_le_bytes());
        out
    }

    #[test]
    fn reads_architecture_name_and_template_past_other_values() {
        let mut f = header(4);
        // An array of strings and a u32 to skip.
        f.extend(("tokenizer.ggml.tokens".len() as u64).to_le_bytes());
        f.extend(b"tokenizer.ggml.tokens");
        f.extend(9u32.to_le_bytes());
        f.extend(8u32.to_le_bytes());
        f.extend(2u64.to_le_bytes());
        for t in ["a", "bc"] {
            f.extend((t.len() as u64).to_le_bytes());
            f.extend(t.as_bytes());
        }
        kv_string(&mut f, "general.architecture", "qwen2");
        kv_string(&mut f, "general.name", "Qwen");
        kv_string(&mut f, "tokenizer.chat_template", "<|im_start|>");
        let info = read_info(&mut f.as_slice()).unwrap();
        assert_eq!(info.architecture.as_deref(), Some("qwen2"));
        assert_eq!(info.name.as_deref(), Some("Qwen"));
        assert_eq!(info.chat_template.as_deref(), Some("<|im_start|>"));
        assert_eq!(info.tensor_count, 7);
    }

    #[test]
    fn bad_files_say_what_is_wrong() {
        assert!(matches!(read_info(&mut &b"PK\x03\x04rest"[..]), Err(GgufError::NotGguf(_))));
        assert!(matches!(read_info(&mut &b"GG"[..]), Err(GgufError::Truncated(_))));
        let mut f = header(1);
        kv_string(&mut f, "general.architecture", "qwen2");
        f.truncate(f.len() - 2);
        assert!(matches!(read_info(&mut f.as_slice()), Err(GgufError::Truncated(_))));
        let mut huge = header(1);
        huge.extend(u64::MAX.to_le_bytes());
        assert!(matches!(read_info(&mut huge.as_slice()), Err(GgufError::Corrupt(_))));
    }
}
