//! The words people use to tell SMART what to do, grouped by what they ask for.
//!
//! Two parts of hearing need them, and they must agree: [`crate::bias`] tells whisper to expect
//! them while it decodes (a file assistant hears "rebuild the index" far more often than
//! "revealed in the index"), and [`crate::heard_names`] must never turn one of them into a file
//! name after the fact (a file called `rebuilt.log` must not swallow "rebuild").
//!
//! The list is written from what the tools do (the proposer's one-line uses), in the words a
//! person would choose for it — not from any eval's sentences. Only content words: a bias on
//! "the" or "into" would make whisper insert them everywhere.

/// Command words, lower case, one word each.
pub const COMMAND_WORDS: &[&str] = &[
    // Looking at folders and files.
    "scan",
    "list",
    "show",
    "read",
    "open",
    "print",
    "hash",
    "checksum",
    "fingerprint",
    // Searching what documents say.
    "search",
    "find",
    "look",
    "mention",
    "mentions",
    // SMART's own situation.
    "status",
    "situation",
    "stance",
    "lease",
    "layer",
    "layers",
    "frontier",
    "budget",
    "allowed",
    "tools",
    // Duplicates and old versions.
    "duplicates",
    "duplicate",
    "identical",
    "copies",
    "outdated",
    "superseded",
    "versions",
    "drafts",
    "stale",
    // Context for a model, and the index.
    "context",
    "bundle",
    "assemble",
    "gather",
    "combine",
    "tokens",
    "index",
    "indexed",
    "reindex",
    "rebuild",
    "accurate",
    "changed",
    // Editing text.
    "replace",
    "change",
    "fix",
    "typo",
    "edit",
    "patch",
    // Moving, renaming, redirects.
    "move",
    "moves",
    "rename",
    "plan",
    "put",
    "redirect",
    "redirects",
    "record",
    "moved",
    // Putting aside and destroying.
    "quarantine",
    "quarantined",
    "delete",
    "remove",
    "erase",
    "purge",
    "destroy",
    "permanently",
    "batch",
    "restore",
    // Packing.
    "compress",
    "archive",
    "tarball",
    "compact",
    "zip",
    "copy",
    // Doing what was prepared, and the person's own answers.
    "apply",
    "carry",
    "draft",
    "review",
    "remember",
    "note",
    "forget",
    "undo",
    "approve",
    "deny",
    "stop",
    "cancel",
];

/// Words that frame a request without saying what to do: what is looked at, questions that
/// start a request, how paths are said. Expected like the command words, but a second hearing
/// may lose them (`smart_runtime::rehearing`).
pub const FRAME_WORDS: &[&str] = &[
    // What is looked at.
    "folder",
    "folders",
    "files",
    "documents",
    // Questions that start a request.
    "what",
    "which",
    "where",
    "last",
    "latest",
    // How paths are said.
    "slash",
    "dot",
    "underscore",
];

/// Every word whisper is told to expect: the command words, then the frame words.
pub fn expected_words() -> impl Iterator<Item = &'static str> {
    COMMAND_WORDS.iter().chain(FRAME_WORDS).copied()
}

/// Whether `word` (any case) is a command word or a frame word.
pub fn is_command_word(word: &str) -> bool {
    let w = word.to_lowercase();
    expected_words().any(|c| c == w)
}

/// Whether `word` (any case) says what to do: a command word, not a frame word.
pub fn says_what_to_do(word: &str) -> bool {
    COMMAND_WORDS.contains(&word.to_lowercase().as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_words_are_single_lower_case_words_listed_once() {
        let mut seen = std::collections::BTreeSet::new();
        for w in expected_words() {
            assert!(w.chars().all(|c| c.is_ascii_lowercase()), "{w:?}");
            assert!(seen.insert(w), "{w:?} listed twice");
        }
        assert!(is_command_word("Rebuild"));
        assert!(is_command_word("slash"));
        assert!(!is_command_word("the"));
        assert!(says_what_to_do("Quarantine"));
        assert!(!says_what_to_do("which"));
    }
}
