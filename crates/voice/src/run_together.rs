//! Words whisper ran together, written apart again.
//!
//! A small recogniser that is unsure where one word ends writes two as one: "hash that file"
//! comes back as "Hashnet file", "move contacts dot docx into Clients" as "Move
//! contact.docxinto client.". Nothing after this can read such a word — it is no verb, no name
//! and no preposition — so the request loses what to do or where to put it ("Which file do
//! you mean?", or a move plan made before applied instead). Both are mended here, each only in
//! the one place it happens:
//!
//! - a preposition that says where something goes ("into", "onto", "to", "in") run into a
//!   known extension before it ([`crate::spoken`]'s list): "contact.docxinto" is
//!   "contact.docx into"; a name that merely ends so, with an extension nobody uses, is left;
//! - "that" run into the verb a request opens with ([`OPENINGS`] of four letters or more),
//!   heard with at most its first sound off ("Hashnet" is "hash that"), and only before what
//!   "that" points at —
//!   "file", "folder", "one", "document" — or the sentence's end, so "Scanned letters" and
//!   "Listen" stay as heard.
//!
//! The opposite happens too: a verb of ours made of two everyday words is written as those words
//! ("checksum agenda please" as "Check some agenda, please.", read as a request to read
//! agenda.jpg). [`verb_joined`] writes such a pair as the verb when it opens the request, sounds
//! exactly like it, and is followed by the name of something that exists — "check some files"
//! is English, "check some agenda" is not.
//!
//! It runs only on heard requests: typed text is what the person meant.

use crate::heard_names::{Lexicon, bare};
use crate::phonetic::{code, distance};
use crate::spoken::KNOWN_EXTENSIONS;
use crate::weighed_openings::{OPENINGS, opening_at};

/// Words that say where something goes, as whisper runs them into an extension.
const RUN_ON: [&str; 4] = ["into", "onto", "to", "in"];

/// What "that" points at, after a verb it was run into.
const POINTED_AT: &[&str] = &["file", "folder", "one", "document", "directory", "thing", "list", "plan", "patch"];

/// `transcript` with the words whisper ran together written apart.
pub fn apart(transcript: &str) -> String {
    let words: Vec<&str> = transcript.split_whitespace().collect();
    let opening = opening_at(&words);
    let mended: Vec<Option<String>> = words
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let verb_that = (Some(i) == opening).then(|| verb_and_that(w, words.get(i + 1).copied())).flatten();
            verb_that.or_else(|| preposition_apart(w))
        })
        .collect();
    if mended.iter().all(Option::is_none) {
        return transcript.to_string();
    }
    words.iter().zip(mended).map(|(w, m)| m.unwrap_or_else(|| w.to_string())).collect::<Vec<_>>().join(" ")
}

/// `transcript` with the two words that open it written as one verb of ours ([`OPENINGS`] of one
/// word and five sounds or more) when they sound exactly like it and what follows — after an
/// "of" or "for" — is a name in `lexicon`: "Check some agenda, please." → "Checksum agenda,
/// please.".
pub fn verb_joined(transcript: &str, lexicon: &Lexicon) -> String {
    let words: Vec<&str> = transcript.split_whitespace().collect();
    let Some(start) = opening_at(&words) else { return transcript.to_string() };
    let (Some(first), Some(second)) = (words.get(start), words.get(start + 1)) else {
        return transcript.to_string();
    };
    if first.ends_with(|c: char| !c.is_alphanumeric()) {
        return transcript.to_string();
    }
    let mut next = start + 2;
    if words.get(next).is_some_and(|w| matches!(bare(w).as_str(), "of" | "for")) {
        next += 1;
    }
    let named = words.get(next).is_some_and(|w| {
        let w = bare(w);
        lexicon.has_stem(&w) || w.rsplit_once('.').is_some_and(|(stem, _)| lexicon.has_stem(stem))
    });
    let heard = code(&format!("{} {}", bare(first), bare(second)));
    let verb = OPENINGS.iter().find(|o| !o.contains(' ') && code(o).len() >= 5 && code(o) == heard);
    match verb {
        Some(verb) if named => {
            let written = if first.starts_with(char::is_uppercase) {
                let mut c = verb.chars();
                c.next().map(|f| f.to_uppercase().chain(c).collect::<String>()).unwrap_or_default()
            } else {
                verb.to_string()
            };
            let punct = second.trim_start_matches(char::is_alphanumeric);
            let mut out: Vec<String> = words[..start].iter().map(|w| w.to_string()).collect();
            out.push(format!("{written}{punct}"));
            out.extend(words[start + 2..].iter().map(|w| w.to_string()));
            out.join(" ")
        }
        _ => transcript.to_string(),
    }
}

/// "contact.docxinto" → "contact.docx into".
fn preposition_apart(word: &str) -> Option<String> {
    let (stem, tail) = word.rsplit_once('.')?;
    let ext_and_word = tail.trim_end_matches(['.', ',', '!', '?', ';', ':']);
    let punct = &tail[ext_and_word.len()..];
    let lower = ext_and_word.to_ascii_lowercase();
    // The longest extension first: "docx" before "doc".
    let mut exts: Vec<&str> = KNOWN_EXTENSIONS.to_vec();
    exts.sort_by_key(|e| std::cmp::Reverse(e.len()));
    exts.into_iter().find_map(|ext| {
        let rest = lower.strip_prefix(ext)?;
        let word = RUN_ON.iter().find(|w| **w == rest)?;
        let ext = &ext_and_word[..ext.len()];
        (!stem.is_empty()).then(|| format!("{stem}.{ext} {word}{punct}"))
    })
}

/// "Hashnet" before "file" → "Hash that".
fn verb_and_that(word: &str, next: Option<&str>) -> Option<String> {
    let points = match next {
        Some(n) => POINTED_AT.contains(&bare(n).as_str()),
        None => true,
    };
    let lower = bare(word);
    if !points || !lower.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let that = code("that");
    OPENINGS.iter().filter(|o| o.len() >= 4 && !o.contains(' ')).find_map(|verb| {
        let rest = lower.strip_prefix(verb)?;
        // Three sounds, as "that" has, with at most its first one misheard ("net").
        let heard = code(rest);
        let close = rest.len() >= 3 && heard.len() == that.len() && distance(&heard, &that, 2).is_some();
        close.then(|| {
            let written = &word[..verb.len()];
            let punct = word.trim_start_matches(|c: char| c.is_alphabetic());
            format!("{written} that{punct}")
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_run_together_are_written_apart() {
        for (heard, want) in [
            ("Move contact.docxinto client.", "Move contact.docx into client."),
            ("put agenda.JPGto Photos", "put agenda.JPG to Photos"),
            ("Hashnet file.", "Hash that file."),
            ("um hashnet file please", "um hash that file please"),
            ("Hashnet.", "Hash that."),
        ] {
            assert_eq!(apart(heard), want, "{heard}");
        }
    }

    #[test]
    fn a_verb_of_ours_written_as_two_words_before_a_name_is_the_verb() {
        let lexicon = Lexicon::of_names(&["agenda.jpg", "Photos", "todo.md"]);
        for (heard, want) in [
            ("Check some agenda, please.", "Checksum agenda, please."),
            ("um check sum of todo.md", "um checksum of todo.md"),
            ("Finger print Photos.", "Fingerprint Photos."),
        ] {
            assert_eq!(verb_joined(heard, &lexicon), want, "{heard}");
        }
        for heard in ["Check some files, please.", "Check, some agenda.", "I check some agenda", "Check some"] {
            assert_eq!(verb_joined(heard, &lexicon), heard, "{heard}");
        }
    }

    #[test]
    fn words_that_merely_look_run_together_are_left() {
        for heard in [
            "open report.docx",
            "read notes.tokyo",
            "move a.xyzinto b",
            "Scanned letters, please.",
            "Listen to this.",
            "Hashnet Photos.",
            "I saw hashnet file",
            "Movement file.",
            "Showcase file.",
            " Read it  twice.",
        ] {
            assert_eq!(apart(heard), heard, "{heard}");
        }
    }
}
