//! A person's (or a model's) words, made into an FTS5 query that cannot be anything else.
//!
//! FTS5's query language has operators (`AND`, `OR`, `NOT`, `NEAR(...)`), prefix stars, column
//! filters (`body:x`), `^` anchors, parentheses and quoted phrases, and a malformed expression
//! is an SQL error. None of that may leak from a query's text: the words are data, and "what
//! about `-rf` or (draft)?" must search, not fail. So the text is cut into words at whitespace
//! and every ASCII character that is not a letter or digit (which is every FTS5 operator
//! character, including `"`), words written as FTS5's upper-case keywords are dropped, and each
//! remaining word is wrapped in double quotes — a quoted string is always a plain phrase to
//! FTS5, and no word can contain a quote. Non-ASCII characters stay inside their word (the
//! tokenizer folds accents and case the same way it did when indexing). A word must contain a
//! letter or digit; a query with none left is [`IndexError::EmptyQuery`].
//!
//! Matching is AND first (every word must appear somewhere in the name, folders or text), and
//! only when that finds nothing, OR (any word) — a precise answer when there is one, something
//! rather than nothing when there is not. Hits say which ([`crate::Hit::all_words`]). At most
//! [`MAX_WORDS`] words are used.

use crate::error::IndexError;
use crate::kind::Kind;
use serde::{Deserialize, Serialize};

/// Words beyond this many are ignored.
pub const MAX_WORDS: usize = 32;

/// The most hits one search returns.
pub const MAX_LIMIT: usize = 1_000;

/// A search.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Query {
    /// The words to look for, as a person or model wrote them.
    pub text: String,
    /// Only entries at this path or below it (a folder or a file; absolute, as stored).
    #[serde(default)]
    pub path_prefix: Option<String>,
    /// Only entries of this kind.
    #[serde(default)]
    pub kind: Option<Kind>,
    /// Only entries modified at or after this time (ms since the epoch).
    #[serde(default)]
    pub modified_since_ms: Option<u64>,
    /// The most hits to return (clamped to [`MAX_LIMIT`]).
    #[serde(default = "default_limit")]
    pub limit: usize,
}

fn default_limit() -> usize {
    20
}

impl Query {
    /// A query for `text` with no filters and the default limit (20).
    pub fn new(text: impl Into<String>) -> Query {
        Query { text: text.into(), path_prefix: None, kind: None, modified_since_ms: None, limit: default_limit() }
    }
}

/// The searchable words of `text`, deduplicated (case-insensitively), in order.
pub(crate) fn words(text: &str) -> Result<Vec<String>, IndexError> {
    let mut out: Vec<String> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for piece in text.split(|c: char| c.is_whitespace() || (c.is_ascii() && !c.is_ascii_alphanumeric())) {
        if out.len() == MAX_WORDS {
            break;
        }
        if !piece.chars().any(char::is_alphanumeric) || matches!(piece, "AND" | "OR" | "NOT" | "NEAR") {
            continue;
        }
        let folded = piece.to_lowercase();
        if !seen.contains(&folded) {
            seen.push(folded);
            out.push(piece.to_string());
        }
    }
    if out.is_empty() { Err(IndexError::EmptyQuery) } else { Ok(out) }
}

/// Every word must match.
pub(crate) fn all_of(words: &[String]) -> String {
    quoted(words).join(" AND ")
}

/// Any word may match.
pub(crate) fn any_of(words: &[String]) -> String {
    quoted(words).join(" OR ")
}

fn quoted(words: &[String]) -> Vec<String> {
    // `words` never contain `"` (it is a separator), so no escaping is needed; doubling would be
    // FTS5's escape if one ever did.
    words.iter().map(|w| format!("\"{}\"", w.replace('"', "\"\""))).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn operators_and_punctuation_become_plain_words() {
        assert_eq!(words("body:x NEAR(a b) -c* \"d\" ^e").unwrap(), ["body", "x", "a", "b", "c", "d", "e"]);
        assert_eq!(words("cats AND dogs OR NOT birds").unwrap(), ["cats", "dogs", "birds"]);
        assert_eq!(words("and or").unwrap(), ["and", "or"], "lower-case words are words");
        assert_eq!(all_of(&words("a b").unwrap()), "\"a\" AND \"b\"");
        assert_eq!(any_of(&words("a b").unwrap()), "\"a\" OR \"b\"");
    }

    #[test]
    fn non_ascii_words_stay_whole_and_duplicates_go() {
        assert_eq!(words("Résumé résumé 보고서").unwrap(), ["Résumé", "보고서"]);
    }

    #[test]
    fn nothing_searchable_is_the_empty_query_error() {
        for q in ["", "   ", "\"*\" ()", "AND OR NOT", "NEAR(", "-- ::", "—"] {
            assert!(matches!(words(q), Err(IndexError::EmptyQuery)), "{q:?}");
        }
    }

    #[test]
    fn at_most_max_words_are_used() {
        let long = (0..100).map(|i| format!("w{i}")).collect::<Vec<_>>().join(" ");
        assert_eq!(words(&long).unwrap().len(), MAX_WORDS);
    }
}
