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

/// How long after a lone wake phrase the command may start (measured from the wake, on the
/// audio clock of the events). Later speech is a new candidate for the phrase, not the command.
pub const ARMED_MS: u64 = 8_000;

/// What each engine was measured to do, in words for the settings. whisper's figures are the
/// voice worker's `wake_whisper` suite (tiny.en, espeak-ng: five voices, three speeds, clean and
/// over pink noise) and an 85-minute run of other speech through `smart listen --wav F --wake`
/// (eight voices, noise under all of it and noise alone between): no wake in 1,107 ordinary
/// utterances; 14 in 326 short phrases chosen to sound like it, all but two beginning with its
/// sounds ("hey smartie", "hey smarty pants"). The person is told both.
pub fn measured(engine: crate::protocol::WakeEngine) -> &'static str {
    match engine {
        crate::protocol::WakeEngine::Whisper => {
            "measured here: 1–3 % of wake phrases missed; no false wake in 1,107 sentences of other speech, \
             but words that begin like it (\"hey smartie\") can wake it"
        }
        crate::protocol::WakeEngine::Vosk => "not measured for English here (no English vosk model could be had)",
    }
}

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

/// What speech whisper heard as `heard` was, for the wake word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Addressed {
    /// It begins with the phrase; what followed it (empty: the phrase alone, so the next
    /// utterance is the command).
    Yes(String),
    /// Too short to be a sentence, not heard as the phrase but not far from its sound either:
    /// maybe the phrase said alone,
    /// which whisper hears worst ("case marked", "K mod" for "hey smart" — a two-word clip
    /// gives it nothing to go on). Worth a second listen with the phrase as the text it
    /// continues ([`alone_when_expected`]).
    Maybe,
    No,
}

/// Whether speech whisper heard as `heard` was addressed to SMART.
///
/// Besides [`after_phrase`], one looser case: a short stretch of speech that is *only* about
/// the phrase — no more words than the phrase and one, sounding within a third of its sound
/// code ([`crate::phonetic`]): "Face mart", "is marked". The same sounds inside a sentence
/// ("he's smart, isn't he") stay strict, since they are followed by more words. (Taking them
/// when a command word follows was tried: "a smart move would be…" then woke it.)
pub fn addressed(heard: &str, phrase: &str) -> Addressed {
    if let Some(rest) = after_phrase(heard, phrase) {
        return Addressed::Yes(rest);
    }
    let words: Vec<&str> = heard.split_whitespace().filter(|w| !letters(w).is_empty()).collect();
    if words.is_empty() || words.len() > phrase.split_whitespace().count() + 1 {
        return Addressed::No;
    }
    let target = crate::phonetic::code(phrase);
    let bound = target.chars().count() / 3;
    match crate::phonetic::distance(&crate::phonetic::code(&words.join(" ")), &target, bound + 1) {
        Some(d) if d <= bound => Addressed::Yes(String::new()),
        // Told to expect the phrase, whisper hears it in a noise burst ("Mm.", "No,"): only
        // speech that already sounds somewhat like it, and is about as long, gets the second
        // listen.
        Some(_) if 2 * letters(heard).chars().count() >= letters(phrase).chars().count() => Addressed::Maybe,
        Some(_) => Addressed::No,
        None => Addressed::No,
    }
}

/// The second listen of a [`Addressed::Maybe`]: heard again as the continuation of a request
/// made with the phrase (whisper continues the text it is given), it is the phrase alone, as
/// written or by sound ("case marked" heard again as "case smart").
/// Only alone: told to expect the phrase, whisper also hears "hey Mark, did you see the game"
/// as "Hey Smart, did you…", so a sentence after it does not count.
pub fn alone_when_expected(heard_expecting: &str, phrase: &str) -> bool {
    matches!(addressed(heard_expecting, phrase), Addressed::Yes(rest) if letters(&rest).is_empty())
}

/// How likely whisper found a text for some audio, made to write exactly it: the sum of its
/// tokens' log-probabilities (and of its end), and how many tokens.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scored {
    pub logp: f32,
    pub tokens: usize,
}

impl Scored {
    pub fn per_token(&self) -> f32 {
        self.logp / self.tokens.max(1) as f32
    }
}

/// The least mean log-probability per token of the phrase itself ([`sounds_like_phrase`]).
pub const PHRASE_PER_TOKEN: f32 = -3.0;
/// How much less likely than what whisper heard the phrase may be, in total (nats).
pub const PHRASE_BEHIND_HEARD: f32 = -4.0;

/// The acoustic check for a short stretch taken by its sound ([`addressed`]'s looser case, and
/// the second listen's): the wake phrase, forced through whisper's decoder for this audio
/// (`phrase`), must be likely in itself and not far behind what whisper heard freely
/// (`heard`). Text alone cannot tell "case marked" (espeak-ng's "hey smart", as whisper-tiny
/// hears it) from "Hey Mark"; the audio can. Measured on espeak-ng clips (eight voices and
/// speeds): the phrase said scores −1.6 to −2.6 nats a token and at most 2.3 behind its
/// transcript; "hey Mark" is 6.0 to 8.1 behind, "a smart hat" 13 to 14, "heat smart" 4.6. Near
/// homophones ("hey smartie", "keep smart") still pass: they are the phrase, nearly.
pub fn sounds_like_phrase(phrase: &Scored, heard: &Scored) -> bool {
    phrase.per_token() >= PHRASE_PER_TOKEN && phrase.logp - heard.logp >= PHRASE_BEHIND_HEARD
}

/// The ways whisper writes the phrase said alone, as it would begin a transcript: " Hey
/// smart." and " Hey Smart.".
pub fn written_forms(phrase: &str) -> Vec<String> {
    let words: Vec<&str> = phrase.split_whitespace().collect();
    let cap = |w: &str| {
        let mut c = w.chars();
        c.next().map(|f| f.to_uppercase().chain(c).collect::<String>()).unwrap_or_default()
    };
    let sentence: Vec<String> =
        words.iter().enumerate().map(|(i, w)| if i == 0 { cap(w) } else { w.to_string() }).collect();
    let title: Vec<String> = words.iter().map(|w| cap(w)).collect();
    let mut forms = vec![format!(" {}.", sentence.join(" ")), format!(" {}.", title.join(" "))];
    forms.dedup();
    forms
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
            assert_eq!(addressed(heard, "hey smart"), Addressed::Yes(String::new()), "{heard:?}");
        }
        // Strict inside longer speech.
        for heard in
            ["He's smart, isn't he?", "case mod, undo that", "A smart move would be to wait.", "Hey, stop that now."]
        {
            assert_eq!(addressed(heard, "hey smart"), Addressed::No, "{heard:?}");
        }
        // Short and far: a second listen decides.
        for heard in ["Hey there.", "K mod.", "case marked,"] {
            assert_eq!(addressed(heard, "hey smart"), Addressed::Maybe, "{heard:?}");
        }
        // Short and nothing like it (noise heard as a word): never.
        for heard in ["Mm.", "No,", "I'm", "Okay.", "Hey, stop that."] {
            assert_eq!(addressed(heard, "hey smart"), Addressed::No, "{heard:?}");
        }
        assert_eq!(addressed("Hey Smart, scan it.", "hey smart"), Addressed::Yes("scan it.".into()));
        assert_eq!(addressed("", "hey smart"), Addressed::No);
    }

    #[test]
    fn a_stretch_taken_by_its_sound_must_also_score_as_the_phrase() {
        let s = |logp: f32, tokens: usize| Scored { logp, tokens };
        // Scores measured by the worker (tiny.en, espeak-ng). "hey smart" heard as "is my,"
        // and as "case marked,": the phrase close behind, or ahead.
        assert!(sounds_like_phrase(&s(-10.51, 4), &s(-8.28, 4)));
        assert!(sounds_like_phrase(&s(-6.33, 4), &s(-10.12, 4)));
        // "Hey mark." heard clearly: the phrase six nats behind.
        assert!(!sounds_like_phrase(&s(-11.14, 4), &s(-5.18, 4)));
        // "a smart hat,": the phrase unlikely in itself and far behind.
        assert!(!sounds_like_phrase(&s(-21.6, 4), &s(-7.4, 4)));
        // Nothing heard clearly, the phrase no likelier in itself: no.
        assert!(!sounds_like_phrase(&s(-18.4, 4), &s(-19.0, 4)));
        assert_eq!(written_forms("hey smart"), vec![" Hey smart.", " Hey Smart."]);
        assert_eq!(written_forms("Computer"), vec![" Computer."]);
    }

    #[test]
    fn a_second_listen_counts_only_the_phrase_alone() {
        assert!(alone_when_expected("Hey Smart.", "hey smart"));
        assert!(alone_when_expected("Hey, Smart!", "hey smart"));
        assert!(!alone_when_expected("Hey Smart, did you see the game?", "hey smart"));
        assert!(alone_when_expected("case smart,", "hey smart"));
        assert!(!alone_when_expected("Mercado.", "hey smart"));
        assert!(!alone_when_expected("Hey, stop that.", "hey smart"));
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
