//! Hearing what a search is about: a topic word whisper misheard put right against the words
//! the documents hold.
//!
//! A search topic is the one part of a command that is neither a command word nor a name, so
//! neither the decoding bias ([`crate::bias`]) nor the name lexicon ([`crate::heard_names`])
//! helps it — and it is often a rare word that a small model turns into a common one:
//! "search my files for mosaic" is heard "… for mistake", "which files talk about glacier"
//! "… about leisure". A search for a word that no document contains finds nothing. But the
//! words the documents do contain are known (the index's vocabulary), so a topic word that is
//! in no document and sounds like exactly one word that is, closely for its length, is taken
//! as that word. Everything else stays as heard.
//!
//! What keeps it from inventing topics:
//! - only a word the index does not hold is ever replaced (a search for a word that is there
//!   is left alone, however it sounds);
//! - words of fewer than four sounds, function words and numbers are never replaced;
//! - one sound apart at most (two for long words of eight sounds or more), and a tie between
//!   two indexed words leaves the word as heard.
//!
//! It runs only on heard requests: typed text is what the person meant.

use crate::phonetic::{code, distance};

/// The indexed words with their sound codes.
#[derive(Clone, Debug, Default)]
pub struct TopicWords {
    words: Vec<(String, String)>,
}

const FUNCTION_WORDS: &[&str] = &[
    "the",
    "and",
    "for",
    "with",
    "from",
    "into",
    "about",
    "that",
    "this",
    "what",
    "which",
    "where",
    "there",
    "their",
    "have",
    "some",
    "any",
    "all",
    "files",
    "file",
    "documents",
    "document",
    "notes",
    "folder",
];

/// Fewer sounds than this is too little to tell words apart.
const MIN_SOUNDS: usize = 4;

impl TopicWords {
    /// `words`: the index's terms (lower case).
    pub fn of<S: AsRef<str>>(words: &[S]) -> TopicWords {
        let words = words
            .iter()
            .map(|w| w.as_ref().to_lowercase())
            .filter(|w| w.chars().count() >= 3)
            .map(|w| {
                let c = code(&w);
                (w, c)
            })
            .filter(|(_, c)| c.len() >= MIN_SOUNDS - 1)
            .collect();
        TopicWords { words }
    }

    fn nearest(&self, heard: &str) -> Option<&str> {
        let bound = if heard.len() >= 8 { 2 } else { 1 };
        let mut best: Option<(usize, &str)> = None;
        let mut tie = false;
        for (w, c) in &self.words {
            let Some(d) = distance(heard, c, bound) else { continue };
            match best {
                Some((bd, bw)) if d == bd && bw != w => tie = true,
                Some((bd, _)) if d >= bd => {}
                _ => {
                    best = Some((d, w));
                    tie = false;
                }
            }
        }
        best.filter(|_| !tie).map(|(_, w)| w)
    }
}

/// `topic` with each word that `indexed` does not hold, and that sounds like exactly one of
/// `words`, replaced by that word.
pub fn correct(topic: &str, indexed: impl Fn(&str) -> bool, words: &TopicWords) -> String {
    topic
        .split_whitespace()
        .map(|w| {
            let bare = w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
            let c = code(&bare);
            let leave = bare.is_empty()
                || !bare.chars().all(char::is_alphabetic)
                || FUNCTION_WORDS.contains(&bare.as_str())
                || c.len() < MIN_SOUNDS
                || indexed(&bare);
            // Only a word that may be put right is compared with every indexed word.
            match (!leave).then(|| words.nearest(&c)).flatten() {
                Some(said) => w.replacen(w.trim_matches(|c: char| !c.is_alphanumeric()), said, 1),
                None => w.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const INDEXED: &[&str] =
        &["mosaic", "glacier", "compost", "linen", "wall", "tiles", "meeting", "budget", "kitchen", "nineteen"];

    fn put_right(topic: &str) -> String {
        let words = TopicWords::of(INDEXED);
        correct(topic, |w| INDEXED.contains(&w), &words)
    }

    #[test]
    fn a_topic_no_document_holds_becomes_the_indexed_word_it_sounds_like() {
        // Heard so by whisper tiny.en from espeak-ng (the spoken eval).
        assert_eq!(put_right("mistake"), "mosaic");
        assert_eq!(put_right("machec"), "mosaic");
        assert_eq!(put_right("leisure"), "glacier");
        assert_eq!(put_right("the Mosaik."), "the mosaic.");
    }

    #[test]
    fn a_topic_the_index_holds_or_nothing_sounds_like_is_left_as_heard() {
        for topic in ["budget", "wall", "tiles", "holiday plans", "later", "2019", "x", "the", "quarterly report"] {
            assert_eq!(put_right(topic), topic, "{topic}");
        }
        // Nothing indexed: nothing to put right.
        assert_eq!(correct("mistake", |_| false, &TopicWords::of::<&str>(&[])), "mistake");
    }

    #[test]
    fn two_indexed_words_as_near_are_a_tie_and_left_alone() {
        let words = TopicWords::of(&["linen", "linden"]);
        assert_eq!(correct("lyden", |_| false, &words), "lyden");
    }
}
