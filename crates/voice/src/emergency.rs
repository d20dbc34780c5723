//! Emergency words: "stop", "abort", "wrong", "reset" said on their own.
//!
//! Seed 001's emergency gate must be reachable by voice, and it must not depend on a model
//! understanding the word: a proposer could miss it, and a stop that only works when the model
//! cooperates is not a stop. So the runtime checks every transcript here first; a match goes to
//! the kernel as the person's emergency signal and never reaches the proposer.
//!
//! What counts: an utterance whose words (after dropping punctuation, the assistant's name and
//! courtesy words) are only emergency words — "stop", "Stop!", "abort abort", "that's wrong",
//! "stop it", "hey smart, reset". A longer sentence that merely contains one ("stop sharing the
//! reports folder", "reset the index") is an ordinary request: it goes to the proposer and the
//! kernel judges it. The cost of a missed match is one more ordinary turn; the cost of a false
//! match is a halted lease, which is safe — hence the small, exact vocabulary.

/// The words that stop everything.
pub const EMERGENCY_WORDS: [&str; 6] = ["stop", "abort", "wrong", "reset", "cancel", "halt"];

/// Words that may surround an emergency word without making it a request.
const FILLER: [&str; 14] =
    ["hey", "smart", "please", "it", "that", "that's", "thats", "is", "now", "no", "oh", "all", "everything", "right"];

/// Lower-case words with punctuation removed (apostrophes kept, so "that's" stays one word).
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || (c.is_ascii_punctuation() && c != '\''))
        .map(|w| w.trim_matches('\'').to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

/// The emergency word the utterance consists of, if it is one.
pub fn emergency_word(text: &str) -> Option<&'static str> {
    let words = words(text);
    let mut found = None;
    for w in &words {
        if let Some(e) = EMERGENCY_WORDS.iter().find(|e| **e == w.as_str()) {
            found.get_or_insert(*e);
        } else if !FILLER.contains(&w.as_str()) {
            return None;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emergency_words_said_alone_or_with_filler_match() {
        for (text, want) in [
            ("stop", "stop"),
            ("Stop!", "stop"),
            (" STOP. ", "stop"),
            ("stop it", "stop"),
            ("abort, abort", "abort"),
            ("That's wrong.", "wrong"),
            ("no, that's wrong", "wrong"),
            ("Hey Smart, reset.", "reset"),
            ("cancel that", "cancel"),
            ("stop everything now", "stop"),
        ] {
            assert_eq!(emergency_word(text), Some(want), "{text}");
        }
    }

    #[test]
    fn requests_that_contain_an_emergency_word_are_not_emergencies() {
        for text in [
            "stop sharing the reports folder",
            "reset the index",
            "what went wrong with the move",
            "quarantine docs/old.log",
            "",
            "hey smart",
            "please",
        ] {
            assert_eq!(emergency_word(text), None, "{text}");
        }
    }
}
