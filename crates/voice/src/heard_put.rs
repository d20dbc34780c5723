//! "Put" heard as "But".
//!
//! "put agenda.jpg in the Clients folder" comes back from whisper as "But agenda.jpg in the
//! clients folder." — "put" and "but" differ only in whether the lips voice the first sound, and
//! "But" is the likelier way for a sentence to open. Weighing the opening against the audio
//! ([`crate::weighed_openings`]) offers "put", but whisper's own score keeps "But", and what is
//! left reads as no request at all: the person is asked which file they mean, about a sentence
//! that named it.
//!
//! A "but" that opens a request and is followed at once by the name of a file that exists, and
//! that file at once by where it goes ("in", "into", "inside", "to", "onto"), is "put": "but"
//! before a file's name and a place is no English that means anything else.
//!
//! What keeps it from inventing a move:
//! - only the opening word, and only "but" (a sound exactly like "put" but for its voicing);
//! - the very next word must be a name in the lexicon with an extension, as whisper writes a
//!   file said with its extension ("but agenda is old" is English, and no file's name);
//! - the word after it must say where it goes; "But agenda.jpg is in Clients" is left alone;
//! - a "But," with a pause after it is the conjunction, and is left alone;
//! - it runs only on heard requests: typed text is what the person meant.

use crate::heard_names::{Lexicon, bare};
use crate::weighed_openings::opening_at;

/// Words that say where a thing goes, right after it.
const WHERE_IT_GOES: &[&str] = &["in", "into", "inside", "to", "onto"];

/// `transcript` with an opening "But" written "Put" where it is followed by a file that exists
/// and where it goes; unchanged otherwise.
pub fn correct(transcript: &str, lexicon: &Lexicon) -> String {
    let words: Vec<&str> = transcript.split_whitespace().collect();
    let Some(start) = opening_at(&words) else { return transcript.to_string() };
    let (Some(but), Some(thing), Some(place)) = (words.get(start), words.get(start + 1), words.get(start + 2)) else {
        return transcript.to_string();
    };
    let is_but = but.eq_ignore_ascii_case("but");
    let thing = bare(thing);
    let a_file = thing.rsplit_once('.').is_some_and(|(stem, ext)| !stem.is_empty() && !ext.is_empty())
        && !words[start + 1].ends_with(|c: char| !c.is_alphanumeric())
        && lexicon.has_stem(&thing);
    if !(is_but && a_file && WHERE_IT_GOES.contains(&bare(place).as_str())) {
        return transcript.to_string();
    }
    let put = if but.starts_with('B') { "Put" } else { "put" };
    let mut out = words;
    out[start] = put;
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lexicon() -> Lexicon {
        Lexicon::of_names(&["agenda.jpg", "quote.mp3", "Clients", "Payslips", "agenda"])
    }

    /// What broke (spoken dev and test, several voices): "put agenda.jpg in the Clients folder"
    /// heard "But agenda.jpg in the clients folder." asked which file was meant.
    #[test]
    fn but_before_a_file_and_where_it_goes_is_put() {
        for (heard, want) in [
            ("But agenda.jpg in the clients folder.", "Put agenda.jpg in the clients folder."),
            ("um but quote.mp3 inside Bayslips.", "um put quote.mp3 inside Bayslips."),
            ("But Agenda.JPG into Clients", "Put Agenda.JPG into Clients"),
        ] {
            assert_eq!(correct(heard, &lexicon()), want, "{heard}");
        }
    }

    #[test]
    fn but_as_english_is_left_alone() {
        for heard in [
            // The conjunction, with its pause.
            "But, agenda.jpg in the clients folder.",
            // Not a file said with its extension.
            "But agenda in the clients folder is old.",
            // Not where it goes.
            "But agenda.jpg is in Clients.",
            // A name that exists nowhere.
            "But budget.xlsx in Clients.",
            // Not the opening.
            "Move it but agenda.jpg in Clients.",
            // Not "but".
            "What agenda.jpg in the clients folder?",
        ] {
            assert_eq!(correct(heard, &lexicon()), heard);
        }
    }
}
