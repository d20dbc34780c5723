//! The wake phrase, heard by whisper: does a transcript begin with it, and what follows?
//!
//! No English wake-word model can be had here (vosk's English models come only from its own
//! site), but whisper is already loaded. So in wake mode the voice worker transcribes the
//! first seconds of each stretch of speech the VAD finds, with the wake phrase among the words
//! whisper expects ([`crate::bias`]), and this module decides from the text alone whether that
//! speech was addressed to SMART. Everything else said in the room is never a command.
//!
//! The decision is strict on purpose, because a false accept turns someone's conversation
//! into a proposal while a false reject costs only a repeat:
//! - the phrase must *begin* the speech (after at most two fillers: "um, hey smart"); "I told
//!   it hey smart" is not addressed to SMART;
//! - its letters must be the phrase's letters exactly, spaces and punctuation aside ("Hey,
//!   Smart!", "HeySmart"). Sound-alike matching, which serves file names well
//!   ([`crate::phonetic`]), would take "he's smart" and "a smart" for "hey smart": everyday
//!   speech, so it is not used here. The bias makes whisper write the phrase as it is written
//!   when it was said; measured false rejects are in the voice worker's wake tests.

/// Words a person may say before the phrase without it stopping being the first thing said.
const FILLERS: &[&str] = &["um", "umm", "uh", "uhh", "er", "erm", "ah", "oh", "hmm", "mm", "ok", "okay", "so", "well"];

/// At most this many fillers before the phrase.
const MAX_FILLERS: usize = 2;

fn letters(word: &str) -> String {
    word.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

/// What follows the wake phrase when `heard` begins with it (possibly nothing: the phrase said
/// alone); `None` when it does not begin with it. The rest is as whisper wrote it, without the
/// punctuation that separated it from the phrase.
pub fn after_phrase(heard: &str, phrase: &str) -> Option<String> {
    let target: String = letters(phrase);
    if target.is_empty() {
        return None;
    }
    // Words that are only punctuation ("—", "...") are not words.
    let words: Vec<(&str, String)> =
        heard.split_whitespace().map(|w| (w, letters(w))).filter(|(_, l)| !l.is_empty()).collect();
    let fillers = words.iter().take(MAX_FILLERS).take_while(|(_, l)| FILLERS.contains(&l.as_str())).count();
    let mut joined = String::new();
    for (i, (_, l)) in words.iter().enumerate().skip(fillers) {
        joined.push_str(l);
        if joined == target {
            let rest: Vec<&str> = words[i + 1..].iter().map(|(w, _)| *w).collect();
            let rest = rest.join(" ");
            return Some(rest.trim_start_matches(|c: char| !c.is_alphanumeric()).trim_end().to_string());
        }
        if !target.starts_with(&joined) {
            return None;
        }
    }
    None
}

/// Whether speech whisper heard as `heard` was addressed to SMART, and what followed the
/// phrase (empty: the phrase alone, so the next utterance is the command).
///
/// Besides [`after_phrase`], one looser case: a short stretch of speech that is *only* about
/// the phrase — no more words than the phrase and one, sounding within a third of its sound
/// code ([`crate::phonetic`]). whisper hears a lone "hey smart" as "case mod", "Face mart" or
/// "is marked" because a two-word clip gives it nothing to go on; the same sounds inside a
/// sentence ("he's smart, isn't he") stay strict, since they are followed by more words. (Taking
/// them when a command word follows was tried: "a smart move would be…" then woke it.)
pub fn addressed(heard: &str, phrase: &str) -> Option<String> {
    if let Some(rest) = after_phrase(heard, phrase) {
        return Some(rest);
    }
    let words: Vec<&str> = heard.split_whitespace().filter(|w| !letters(w).is_empty()).collect();
    let n = phrase.split_whitespace().count();
    let target = crate::phonetic::code(phrase);
    let bound = target.chars().count() / 3;
    let sounds_like =
        |w: &[&str]| crate::phonetic::distance(&crate::phonetic::code(&w.join(" ")), &target, bound).is_some();
    (!words.is_empty() && words.len() <= n + 1 && sounds_like(&words)).then(String::new)
}

/// `heard` without the wake phrase it begins with; unchanged when it does not begin with it.
pub fn strip(heard: &str, phrase: &str) -> String {
    after_phrase(heard, phrase).unwrap_or_else(|| heard.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_phrase_at_the_start_is_heard_and_the_rest_is_the_command() {
        for (heard, rest) in [
            ("Hey Smart, scan the downloads folder.", "scan the downloads folder."),
            ("Hey, Smart! Scan the downloads folder.", "Scan the downloads folder."),
            ("HeySmart scan", "scan"),
            ("hey smart", ""),
            ("Hey Smart.", ""),
            ("Um, hey smart, list my notes", "list my notes"),
            ("Okay, so hey smart — undo that", "undo that"),
            ("Hey smart... what's the status?", "what's the status?"),
        ] {
            assert_eq!(after_phrase(heard, "hey smart").as_deref(), Some(rest), "{heard:?}");
        }
    }

    #[test]
    fn speech_that_does_not_begin_with_the_phrase_is_not_addressed_to_smart() {
        for heard in [
            "could you pass me the salt please",
            "he's smart, isn't he",
            "a smart move",
            "hey mark, scan the folder",
            "I told it hey smart",
            "um uh well hey smart",
            "hey",
            "hey smarter",
            "smart hey",
            "",
            "...",
        ] {
            assert_eq!(after_phrase(heard, "hey smart"), None, "{heard:?}");
        }
    }

    #[test]
    fn the_phrase_said_alone_is_taken_when_it_sounds_like_the_phrase() {
        for heard in ["case mod,", "Face mart.", "is marked", "K-Smart.", "Okay smart.", "He's smart."] {
            assert_eq!(addressed(heard, "hey smart").as_deref(), Some(""), "{heard:?}");
        }
        // Strict inside longer speech; far sounds never.
        for heard in ["He's smart, isn't he?", "case mod, undo that", "Hey there.", "Hey, stop that.", "I'm", "K mod."]
        {
            assert_eq!(addressed(heard, "hey smart"), None, "{heard:?}");
        }
        assert_eq!(addressed("Hey Smart, scan it.", "hey smart").as_deref(), Some("scan it."));
        assert_eq!(addressed("A smart move would be to wait.", "hey smart"), None);
    }

    #[test]
    fn any_phrase_the_person_chooses_works_the_same_way() {
        assert_eq!(
            after_phrase("Hello, computer. Move notes.txt.", "hello computer").as_deref(),
            Some("Move notes.txt.")
        );
        assert_eq!(after_phrase("hello there computer", "hello computer"), None);
        assert_eq!(after_phrase("anything", ""), None);
        assert_eq!(after_phrase("anything", " !! "), None);
    }

    #[test]
    fn stripping_leaves_text_without_the_phrase_unchanged() {
        assert_eq!(strip("Hey Smart, scan the folder.", "hey smart"), "scan the folder.");
        assert_eq!(strip("scan the folder", "hey smart"), "scan the folder");
        assert_eq!(strip("scan hey smart", "hey smart"), "scan hey smart");
    }
}
