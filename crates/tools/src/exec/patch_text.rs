//! Text files as patches see them: read whole, UTF-8 only, size-capped; unified diffs made and
//! applied by `diffy`.
//!
//! A patch is only safe to apply to the exact text it was made against, so every patch in SMART
//! travels with the blake3 of its input and of its output: `apply.patch` writes nothing unless
//! applying the diff to the file as it is now gives exactly the content that was reviewed, and
//! undo writes nothing unless the inverse gives back exactly the original. A diff that applies
//! "with fuzz" to something else is not the change the person approved.

use crate::confine::ReadFs;
use std::io::Read;
use std::path::Path;

/// The largest file a patch may be made against.
pub const MAX_PATCH_BYTES: u64 = 4 * 1024 * 1024;

/// The file's text, refusing what is not UTF-8 text or is too large to patch.
pub(crate) fn read_text(fs: &dyn ReadFs, path: &Path) -> Result<String, String> {
    let file = fs.open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(MAX_PATCH_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if bytes.len() as u64 > MAX_PATCH_BYTES {
        return Err(format!(
            "{} is larger than {} MiB; patches are for text files",
            path.display(),
            MAX_PATCH_BYTES >> 20
        ));
    }
    if bytes.contains(&0) {
        return Err(format!("{} is a binary file; patches are for text files", path.display()));
    }
    String::from_utf8(bytes)
        .map_err(|_| format!("{} is not UTF-8 text; patches are for UTF-8 text files", path.display()))
}

/// A unified diff from `old` to `new`, labelled with the file's path.
pub(crate) fn make(old: &str, new: &str) -> String {
    diffy::create_patch(old, new).to_string()
}

/// Applies a unified diff to `base`; the error says where it did not fit.
pub(crate) fn apply(base: &str, diff: &str) -> Result<String, String> {
    let patch = diffy::Patch::from_str(diff).map_err(|e| format!("the diff is not a unified diff: {e}"))?;
    if patch.hunks().is_empty() {
        return Err("the diff changes nothing".into());
    }
    diffy::apply(base, &patch).map_err(|e| format!("the diff does not apply to the file as it is now: {e}"))
}

/// blake3 hex of text.
pub(crate) fn hash_hex(text: &str) -> String {
    blake3::hash(text.as_bytes()).to_hex().to_string()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn a_made_diff_applies_and_its_inverse_gives_back_the_original() {
        let old = "# Title\nteh first line\nsecond\n";
        let new = "# Title\nthe first line\nsecond\n";
        let d = make(old, new);
        assert_eq!(apply(old, &d).unwrap(), new);
        assert_eq!(apply(new, &make(new, old)).unwrap(), old);
    }

    #[test]
    fn a_diff_against_other_text_or_garbage_is_refused() {
        let d = make("a\nb\nc\n", "a\nB\nc\n");
        assert!(apply("x\ny\nz\n", &d).unwrap_err().contains("does not apply"));
        assert!(apply("a\n", "not a diff at all").is_err());
        assert!(apply("a\n", "").unwrap_err().contains("changes nothing"));
    }
}
