//! Hearing an edit: the words to replace put right against the file's own words, and the new
//! words written in the case of the old.
//!
//! A spoken patch names words *in a file*, and the file is known: "in Screenshots/diary.txt swap
//! walnut for marble" is heard "… swap, wallet for marble", and a patch that looks for "wallet"
//! in a file that says "walnut" finds nothing. The words the file holds are a vocabulary as
//! closed as the index's is for a search topic, so the same rule puts them right
//! ([`crate::heard_topics::correct`]: a word the file does not hold, of four sounds or more,
//! that sounds like exactly one word it does, one sound apart — two for long words).
//!
//! Case is the other half. A voice cannot say it, and whisper writes it by guess: "marble" comes
//! out "Marble" or "Marvel" as the sentence or a proper noun suggests. Typed, "Marble" is what
//! the person meant; heard, it is whisper's. So the new words of a heard edit take the case of
//! the words they replace as the file has them: lower case for lower case, a capital for a
//! capital, all capitals for all capitals — and words written any other way ("iPhone", "PDF")
//! are left as heard.
//!
//! Both run only on heard requests.

use std::collections::BTreeSet;

use crate::heard_topics::{TopicWords, correct};

/// `find` with each run of words that `file_text` does not hold, and that sounds like exactly
/// one word it does, replaced by that word. Unchanged when nothing fits.
pub fn find_put_right(find: &str, file_text: &str) -> String {
    let held: BTreeSet<String> = file_text
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .map(|w| w.trim_matches('\'').to_lowercase())
        .filter(|w| !w.is_empty())
        .collect();
    let words: Vec<&str> = held.iter().map(String::as_str).collect();
    correct(find, |w| held.contains(w), &TopicWords::of(&words))
}

/// How a word's letters are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Case {
    Lower,
    Capital,
    Upper,
}

fn case_of(word: &str) -> Option<Case> {
    let letters: Vec<char> = word.chars().filter(|c| c.is_alphabetic()).collect();
    let (first, rest) = letters.split_first()?;
    let rest_lower = rest.iter().all(|c| c.is_lowercase());
    if first.is_lowercase() && rest_lower {
        Some(Case::Lower)
    } else if letters.len() > 1 && letters.iter().all(|c| c.is_uppercase()) {
        Some(Case::Upper)
    } else if first.is_uppercase() && rest_lower {
        Some(Case::Capital)
    } else {
        None
    }
}

/// The case the words of `text` share, if they all share one.
fn shared_case(text: &str) -> Option<Case> {
    let mut cases = text.split_whitespace().filter_map(|w| {
        let has_letters = w.chars().any(char::is_alphabetic);
        has_letters.then(|| case_of(w))
    });
    let first = cases.next()??;
    cases.all(|c| c == Some(first)).then_some(first)
}

/// `replace` written in the case `found` (the words it replaces, as the file has them) is
/// written in, word by word, when both are written in one of lower case, a capital or all
/// capitals; otherwise as heard.
pub fn cased_like(replace: &str, found: &str) -> String {
    let (Some(want), Some(_)) = (shared_case(found), shared_case(replace)) else {
        return replace.to_string();
    };
    replace
        .split(' ')
        .map(|w| {
            if !w.chars().any(char::is_alphabetic) {
                return w.to_string();
            }
            match want {
                Case::Lower => w.to_lowercase(),
                Case::Upper => w.to_uppercase(),
                Case::Capital => {
                    let lower = w.to_lowercase();
                    let mut chars = lower.chars();
                    chars.next().map_or(String::new(), |f| f.to_uppercase().chain(chars).collect())
                }
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIARY: &str = "Dear diary, the walnut table is finished.\nTomorrow: maple shelves. NASA called.";

    #[test]
    fn a_misheard_word_to_replace_becomes_the_files_word_it_sounds_like() {
        // Heard so by whisper tiny.en from espeak-ng (the spoken eval): "swap walnut for marble".
        assert_eq!(find_put_right("wallet", DIARY), "walnut");
        assert_eq!(find_put_right("the wallet", DIARY), "the walnut");
    }

    #[test]
    fn words_the_file_holds_or_that_sound_like_nothing_in_it_stay_as_heard() {
        for find in ["walnut", "maple", "table", "octopus", "wall", "x", "2019"] {
            assert_eq!(find_put_right(find, DIARY), find, "{find}");
        }
        assert_eq!(find_put_right("wallet", ""), "wallet");
    }

    #[test]
    fn new_words_take_the_case_of_the_words_they_replace() {
        // What broke (the spoken eval): "swap maple for marble" heard "… for Marble".
        assert_eq!(cased_like("Marble", "maple"), "marble");
        assert_eq!(cased_like("marble", "Maple"), "Marble");
        assert_eq!(cased_like("Dark Marble", "walnut"), "dark marble");
        assert_eq!(cased_like("marble", "NASA"), "MARBLE");
        assert_eq!(cased_like("marble 2", "maple"), "marble 2");
    }

    #[test]
    fn words_written_in_no_one_case_are_left_as_heard() {
        assert_eq!(cased_like("iPhone", "maple"), "iPhone");
        assert_eq!(cased_like("Marble", "McDonald"), "Marble");
        assert_eq!(cased_like("Marble", "maple Tree"), "Marble");
        assert_eq!(cased_like("42", "maple"), "42");
    }
}
