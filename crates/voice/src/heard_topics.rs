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
//! as that word — and so is a run of two or three such words that together sound like one.
//! Everything else stays as heard.
//!
//! What keeps it from inventing topics:
//! - only a word the index does not hold is ever replaced (a search for a word that is there
//!   is left alone, however it sounds);
//! - words of fewer than four sounds, function words and numbers are never replaced; two or
//!   three words may be replaced by one only when none of them is indexed or a function word,
//!   since whisper splits a rare word it does not know into common ones ("harp, record");
//! - one sound apart at most (two for long words of eight sounds or more), and a tie between
//!   two indexed words leaves the word as heard.
//!
//! It runs only on heard requests: typed text is what the person meant.

use crate::heard_names::bare;
use crate::phonetic::{code, distance};
use crate::weighed_names::clause_ends_inside;

/// The indexed words with their sound codes.
#[derive(Clone, Debug, Default)]
pub struct TopicWords {
    words: Vec<(String, String)>,
}

/// Words no topic is made of. The short ones matter only to runs: a word of fewer than
/// [`MIN_SOUNDS`] is never replaced on its own, but "my son" must not become `mason`.
const FUNCTION_WORDS: &[&str] = &[
    "a",
    "an",
    "of",
    "in",
    "on",
    "to",
    "my",
    "or",
    "is",
    "it",
    "i",
    "me",
    "your",
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

/// The most heard words taken together for one indexed word: whisper splits a rare word it
/// does not know into common ones ("harpsichord" heard "harp, record" and "harp se card").
const MAX_RUN: usize = 3;

/// `topic` with each run of words that `indexed` does not hold, and that together sound like
/// exactly one of `words`, replaced by that word — the longest such run first, then each word
/// on its own.
pub fn correct(topic: &str, indexed: impl Fn(&str) -> bool, words: &TopicWords) -> String {
    let heard: Vec<&str> = topic.split_whitespace().collect();
    let bares: Vec<String> = heard.iter().map(|w| bare(w)).collect();
    // Whether each heard word may be put right: an alphabetic word no document holds, not a
    // function word. Asked once a word, not once for every run it is in.
    let replaceable: Vec<bool> = bares
        .iter()
        .map(|b| {
            !b.is_empty() && b.chars().all(char::is_alphabetic) && !FUNCTION_WORDS.contains(&b.as_str()) && !indexed(b)
        })
        .collect();
    let mut out: Vec<String> = vec![];
    let mut i = 0;
    while i < heard.len() {
        let mut taken = None;
        for end in (i + 1..=(i + MAX_RUN).min(heard.len())).rev() {
            // A clause's end inside a run is not inside a word.
            if clause_ends_inside(&heard[i..end]) || !replaceable[i..end].iter().all(|&r| r) {
                continue;
            }
            let c = code(&bares[i..end].join(" "));
            if c.len() < MIN_SOUNDS {
                continue;
            }
            // Only a run that may be put right is compared with every indexed word.
            if let Some(said) = words.nearest(&c) {
                taken = Some((end, said));
                break;
            }
        }
        match taken {
            Some((end, said)) => {
                let last = heard[end - 1];
                let trail = &last[last.trim_end_matches(|c: char| !c.is_alphanumeric()).len()..];
                let first = heard[i];
                let lead = &first[..first.len() - first.trim_start_matches(|c: char| !c.is_alphanumeric()).len()];
                out.push(format!("{lead}{said}{trail}"));
                i = end;
            }
            None => {
                out.push(heard[i].to_string());
                i += 1;
            }
        }
    }
    out.join(" ")
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
    fn a_word_whisper_split_into_common_ones_is_put_back_together() {
        // Heard so by whisper tiny.en from espeak-ng's "harpsichord" (the spoken eval).
        let words = TopicWords::of(&["harpsichord", "record", "kitchen"]);
        let put_right = |t: &str| correct(t, |w| ["harpsichord", "record", "kitchen"].contains(&w), &words);
        assert_eq!(put_right("harp se card."), "harpsichord.");
        assert_eq!(put_right("harp, seckard"), "harpsichord");
        // "record" is a word a document holds: a run holding it is not put right.
        assert_eq!(put_right("harp, record"), "harp, record");
        let words = TopicWords::of(&["harpsichord"]);
        assert_eq!(correct("harp, record.", |w| w == "harpsichord", &words), "harpsichord.");
        // Two words that sound like nothing indexed stay as they are.
        assert_eq!(correct("kitchen tiles", |_| false, &words), "kitchen tiles");
        // A function word is no part of a topic split apart.
        let words = TopicWords::of(&["mason"]);
        assert_eq!(correct("my son", |w| w == "mason", &words), "my son");
    }

    #[test]
    fn two_indexed_words_as_near_are_a_tie_and_left_alone() {
        let words = TopicWords::of(&["linen", "linden"]);
        assert_eq!(correct("lyden", |_| false, &words), "lyden");
    }
}
