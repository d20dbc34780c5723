//! What a file is, decided by its name and, when its bytes are read, by its bytes.
//!
//! The kind decides what the index does with a file: text, markdown and code are read and their
//! words indexed; binaries, symlinks and everything else are findable by name and metadata only.
//! A name alone is not trusted — `notes.txt` can hold a zip and `README` (no extension) is text —
//! so a file that is read is classified by content too: a NUL byte in the first 8 KiB or bytes
//! that are not UTF-8 make it binary whatever it is called. The name then only says *which* kind
//! of text it is. Names that are binary formats by convention (`.png`, `.zip`, `.pdf`) are not
//! opened at all: reading a gigabyte video to find a NUL in it would be wasted work, and their
//! text, if any, is not something a plain-text index could use.
//!
//! `Symlink` and `Other` (FIFOs, sockets, devices) come from the directory entry, never from
//! content: the walk does not follow links and never opens special files (opening a FIFO blocks).

use serde::{Deserialize, Serialize};

/// How many leading bytes are inspected for a NUL.
pub const SNIFF_BYTES: usize = 8 * 1024;

/// The kind of an indexed entry. `as_str` gives the stored (and filterable) name.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Text,
    Markdown,
    Code,
    Binary,
    Symlink,
    Other,
}

impl Kind {
    pub const ALL: [Kind; 6] = [Kind::Text, Kind::Markdown, Kind::Code, Kind::Binary, Kind::Symlink, Kind::Other];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Text => "text",
            Kind::Markdown => "markdown",
            Kind::Code => "code",
            Kind::Binary => "binary",
            Kind::Symlink => "symlink",
            Kind::Other => "other",
        }
    }

    /// The kind named `s` (as `as_str` writes it).
    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// Whether files of this kind have their words indexed (when they fit the size limit).
    pub fn is_textual(self) -> bool {
        matches!(self, Kind::Text | Kind::Markdown | Kind::Code)
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a file's name says about it, before any byte is read.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum NameHint {
    Markdown,
    Code,
    Text,
    /// A binary format by convention: not opened.
    Binary,
    /// Nothing known: the content decides, and text is `Text`.
    Unknown,
}

impl NameHint {
    /// The kind a file with this name has when its bytes are text.
    pub(crate) fn text_kind(self) -> Kind {
        match self {
            NameHint::Markdown => Kind::Markdown,
            NameHint::Code => Kind::Code,
            NameHint::Text | NameHint::Unknown => Kind::Text,
            NameHint::Binary => Kind::Binary,
        }
    }
}

/// The hint for a file name (the last path component).
pub(crate) fn hint(name: &str) -> NameHint {
    // Whole names first: build files that carry no extension but are code.
    match name {
        "Makefile" | "makefile" | "GNUmakefile" | "Dockerfile" | "Containerfile" | "Justfile" | "justfile"
        | "Rakefile" | "Gemfile" | "Vagrantfile" | "CMakeLists.txt" | "meson.build" | "BUILD" | "WORKSPACE" => {
            return NameHint::Code;
        }
        _ => {}
    }
    let Some((stem, ext)) = name.rsplit_once('.') else {
        return NameHint::Unknown;
    };
    if stem.is_empty() {
        // `.bashrc`, `.gitignore`: a dot-file's name is all stem.
        return NameHint::Unknown;
    }
    let ext = ext.to_ascii_lowercase();
    match ext.as_str() {
        "md" | "markdown" | "mdown" | "mkd" | "mkdn" | "mdx" => NameHint::Markdown,
        "rs" | "py" | "pyi" | "js" | "mjs" | "cjs" | "ts" | "tsx" | "jsx" | "c" | "h" | "cc" | "cpp" | "cxx"
        | "hpp" | "hh" | "hxx" | "go" | "java" | "kt" | "kts" | "swift" | "m" | "mm" | "rb" | "php" | "sh" | "bash"
        | "zsh" | "fish" | "ps1" | "bat" | "cmd" | "sql" | "css" | "scss" | "sass" | "less" | "html" | "htm"
        | "xml" | "xsl" | "svg" | "json" | "jsonl" | "yaml" | "yml" | "toml" | "ini" | "cfg" | "conf" | "lua" | "r"
        | "cs" | "fs" | "vb" | "scala" | "hs" | "ml" | "mli" | "ex" | "exs" | "erl" | "clj" | "cljs" | "dart"
        | "vue" | "svelte" | "pl" | "pm" | "mk" | "cmake" | "gradle" | "proto" | "graphql" | "tf" | "nix" | "zig"
        | "jl" | "el" | "vim" | "asm" | "s" | "ipynb" => NameHint::Code,
        "txt" | "text" | "log" | "csv" | "tsv" | "rst" | "org" | "tex" | "bib" | "adoc" | "asciidoc" | "srt"
        | "vtt" | "eml" | "ics" | "vcf" | "nfo" | "diff" | "patch" => NameHint::Text,
        "png" | "jpg" | "jpeg" | "gif" | "bmp" | "tif" | "tiff" | "webp" | "heic" | "heif" | "ico" | "psd" | "raw"
        | "cr2" | "nef" | "dng" | "mp3" | "wav" | "flac" | "ogg" | "oga" | "opus" | "m4a" | "aac" | "wma" | "mp4"
        | "m4v" | "mkv" | "mov" | "avi" | "wmv" | "webm" | "flv" | "zip" | "gz" | "tgz" | "bz2" | "xz" | "zst"
        | "7z" | "rar" | "tar" | "iso" | "dmg" | "img" | "pdf" | "doc" | "docx" | "xls" | "xlsx" | "ppt" | "pptx"
        | "odt" | "ods" | "odp" | "pages" | "numbers" | "key" | "epub" | "mobi" | "exe" | "dll" | "so" | "dylib"
        | "a" | "o" | "obj" | "lib" | "class" | "jar" | "war" | "pyc" | "wasm" | "bin" | "dat" | "db" | "sqlite"
        | "sqlite3" | "ttf" | "otf" | "woff" | "woff2" | "deb" | "rpm" | "msi" | "apk" | "pkg" => NameHint::Binary,
        _ => NameHint::Unknown,
    }
}

/// Whether leading bytes already prove a file binary: a NUL within the first [`SNIFF_BYTES`].
pub(crate) fn has_nul(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(SNIFF_BYTES)].contains(&0)
}

/// The kind of a file whose whole content is `bytes`, and its text when it is textual.
pub(crate) fn classify_whole(hint: NameHint, bytes: Vec<u8>) -> (Kind, Option<String>) {
    if has_nul(&bytes) {
        return (Kind::Binary, None);
    }
    match String::from_utf8(bytes) {
        Ok(text) => (hint.text_kind(), Some(text)),
        Err(_) => (Kind::Binary, None),
    }
}

/// The kind of a file known only by its first bytes (it is too large to index whole): the same
/// rules, except that a UTF-8 sequence cut by the end of `head` is not held against it.
pub(crate) fn classify_head(hint: NameHint, head: &[u8]) -> Kind {
    if has_nul(head) {
        return Kind::Binary;
    }
    match std::str::from_utf8(head) {
        Ok(_) => hint.text_kind(),
        Err(e) if e.error_len().is_none() => hint.text_kind(),
        Err(_) => Kind::Binary,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn names_give_hints_and_dot_files_are_unknown() {
        assert_eq!(hint("budget_2024-final.md"), NameHint::Markdown);
        assert_eq!(hint("main.RS"), NameHint::Code);
        assert_eq!(hint("Makefile"), NameHint::Code);
        assert_eq!(hint("notes.txt"), NameHint::Text);
        assert_eq!(hint("photo.JPG"), NameHint::Binary);
        assert_eq!(hint(".bashrc"), NameHint::Unknown);
        assert_eq!(hint("README"), NameHint::Unknown);
    }

    #[test]
    fn content_overrules_the_name() {
        assert_eq!(classify_whole(NameHint::Markdown, b"# hi".to_vec()).0, Kind::Markdown);
        assert_eq!(classify_whole(NameHint::Markdown, b"# h\0i".to_vec()).0, Kind::Binary);
        assert_eq!(classify_whole(NameHint::Text, vec![b'a', 0xff, b'b']).0, Kind::Binary);
        assert_eq!(classify_whole(NameHint::Unknown, b"plain".to_vec()).0, Kind::Text);
    }

    #[test]
    fn a_head_cut_inside_a_character_is_still_text() {
        let head = "héllo".as_bytes();
        assert_eq!(classify_head(NameHint::Code, &head[..2]), Kind::Code, "the é is cut in half");
        assert_eq!(classify_head(NameHint::Code, &[b'a', 0xff, b'b']), Kind::Binary);
    }

    #[test]
    fn kinds_round_trip_through_their_names() {
        for k in Kind::ALL {
            assert_eq!(Kind::parse(k.as_str()), Some(k));
        }
        assert_eq!(Kind::parse("folder"), None);
    }
}
