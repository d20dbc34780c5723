//! The words the index holds: what a search can find at all.
//!
//! A heard search topic is only as good as whisper's hearing of one word, usually a rare one
//! ("mosaic", "glacier") that a small model turns into a common one ("mistake", "later").
//! Those common words are often in no document, so the search finds nothing — while the word
//! that was said is right there in the index. [`Vocabulary`] lists the index's own terms (the
//! FTS5 vocabulary, through a `fts5vocab` table in the connection's `temp` schema, so the
//! index file itself is not changed), for the voice side to put such a topic right
//! (`smart_voice::heard_topics`). Terms are as the tokenizer wrote them: lower case, without
//! diacritics.

use crate::error::IndexError;
use rusqlite::Connection;

/// Terms longer than this are not words anyone says (hashes, base64, joined identifiers).
const MAX_TERM_CHARS: usize = 24;

/// The index's terms, sorted.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Vocabulary {
    pub terms: Vec<String>,
}

impl Vocabulary {
    /// Whether `word` (any case) is one of the terms.
    pub fn contains(&self, word: &str) -> bool {
        self.terms.binary_search(&word.to_lowercase()).is_ok()
    }
}

/// Whether some document holds `word`, without listing the vocabulary. Compared in lower case;
/// the tokenizer also drops diacritics, so a word written with them ("café") is not found.
pub(crate) fn holds(c: &Connection, word: &str) -> Result<bool, IndexError> {
    c.execute_batch(CREATE_TERMS)?;
    let term = word.to_lowercase();
    Ok(c.query_row("SELECT EXISTS(SELECT 1 FROM temp.docs_terms WHERE term = ?1)", [term], |r| r.get(0))?)
}

const CREATE_TERMS: &str =
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.docs_terms USING fts5vocab(main, 'docs_fts', 'row');";

/// Every alphabetic term of the index (digits and codes are left out: they are not misheard
/// words) of at most [`MAX_TERM_CHARS`] characters.
pub(crate) fn vocabulary(c: &Connection) -> Result<Vocabulary, IndexError> {
    c.execute_batch(CREATE_TERMS)?;
    let mut stmt = c.prepare("SELECT term FROM temp.docs_terms")?;
    let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
    let mut terms = vec![];
    for t in rows {
        let t = t?;
        if t.chars().count() <= MAX_TERM_CHARS && t.chars().all(char::is_alphabetic) {
            terms.push(t);
        }
    }
    terms.sort();
    terms.dedup();
    Ok(Vocabulary { terms })
}
