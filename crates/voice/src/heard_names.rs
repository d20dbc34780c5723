//! Hearing the names that exist: a transcript's misheard file and folder names put right.
//!
//! whisper is an open-vocabulary recogniser, and a person's file names are the words it knows
//! least: "notes dot t x t" comes back as "note start DXD", "band practice" as "ban practise".
//! Its prompt names the folder's entries, which helps, but cannot make it write a name it did
//! not hear. Yet the names that *can* be meant are known — the entries under the allowed
//! folders — which turns an open problem into a closed one (Home Assistant's Speech-to-Phrase
//! makes the same move by decoding against its own phrases). Here it is done after
//! transcription, as a rescoring: every run of up to six heard words is compared, by sound
//! ([`crate::phonetic`]), with every name and the way it is said; a run that sounds like exactly
//! one name, closely enough for its length, is replaced by that name as it is written.
//! Everything else is left as heard — open transcription is the fallback — so a sentence
//! with no names in it comes through unchanged.
//!
//! What keeps it from inventing names:
//! - short codes (under five sounds: "read", "log") must match exactly *in spelling*, since
//!   many everyday words sound like them;
//! - a run may not begin or end on a function word ("in", "the"), nor hold one inside ("up to
//!   date"), unless it sounds exactly like the name; nor be one of the command words (a file
//!   called `rebuilt.log` must not swallow "rebuild");
//! - a run that begins with "dot" has lost the name's stem and is heard only as a name that
//!   sounds exactly like it (an extension's sounds are most of a short name's);
//! - a short name made of everyday words ("to do" for todo.md) is heard only right after a
//!   verb that takes a name;
//! - two different names equally near the same words is a tie, and a tie is not corrected;
//! - the longest, nearest runs win and never overlap;
//! - "in" run into a name ("info, dos" for "in Photos") is heard only when the run sounds
//!   exactly like it, the name has four sounds or more, and no word of the run sounds like
//!   "in" on its own ("one" after a name is more often its number) — except one word right
//!   after a name ("raw inclines" for "raw in Clients"), heard a sound further off than any
//!   name of its length.

use crate::command_words::is_command_word;
use crate::phonetic::{code, distance};

/// The names that can be heard, each with the sound code of the way it is said.
#[derive(Clone, Debug, Default)]
pub struct Lexicon {
    phrases: Vec<Phrase>,
    /// Each name with "in" said before or after it ("in Photos", "misc in"), as whisper runs
    /// the two into one word or splits them elsewhere ("info, dos", "Miskin"):
    /// see [`correct`].
    with_in: Vec<Phrase>,
}

#[derive(Clone, Debug, PartialEq)]
struct Phrase {
    written: String,
    code: String,
    /// The short stem (under five sounds, letters and digits only, lower case) that words
    /// written apart may spell: see [`written_apart`]. `None` for a longer stem, which is
    /// heard by its sound, and for a name with "in" run into it.
    apart: Option<String>,
}

impl Phrase {
    fn new(written: &str) -> Phrase {
        Phrase { written: written.to_string(), code: code(written), apart: short_stem(written) }
    }
}

/// At most this many names are compared (the walk lists the nearest first).
pub const MAX_NAMES: usize = 5_000;

const MAX_RUN: usize = 6;

/// Words a run may not start or end on.
pub(crate) const FUNCTION_WORDS: &[&str] = &[
    "a",
    "an",
    "the",
    "at",
    "in",
    "on",
    "to",
    "of",
    "and",
    "or",
    "is",
    "it",
    "my",
    "your",
    "this",
    "that",
    "for",
    "with",
    "from",
    "into",
    "its",
    "me",
    "what",
    "whats",
    "all",
    "i",
    "do",
    "please",
    "folder",
    "file",
    "directory",
    "called",
    "named",
    "dot",
    "slash",
    "can",
    "you",
    "could",
    "would",
    "every",
    "everything",
    "there",
    "here",
    "so",
    "now",
];

/// Words after which a name is not said, so a run after one is a name only when it sounds
/// exactly like it: an article ("replaced by a later version" is not the folder Letters — a
/// person says "the Letters folder" or "Letters", never "a Letters"), and a subject, which a
/// verb follows ("could you write up a patch" is not the file roadmap.pdf).
pub(crate) const BEFORE_NO_NAME: &[&str] =
    &["a", "an", "i", "you", "we", "they", "he", "she", "i'll", "you'll", "we'll", "i'd", "you'd"];

impl Lexicon {
    /// The lexicon of `names` (file and folder names, not paths); the first [`MAX_NAMES`] count.
    pub fn of_names<S: AsRef<str>>(names: &[S]) -> Lexicon {
        let mut phrases: Vec<Phrase> = vec![];
        let mut add = |written: &str| {
            let p = Phrase::new(written);
            if !p.code.is_empty() && !phrases.contains(&p) {
                phrases.push(p);
            }
        };
        for n in names.iter().take(MAX_NAMES) {
            let n = n.as_ref().trim();
            if n.is_empty() {
                continue;
            }
            add(n);
            // "hash budget" for budget.xlsx: the stem is said on its own, and written so.
            if let Some((stem, ext)) = n.rsplit_once('.')
                && !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && code(stem).len() >= 5
            {
                add(stem);
            }
        }
        let with_in = phrases
            .iter()
            .filter(|p| p.code.len() >= MIN_SOUNDS_WITH_IN)
            .flat_map(|p| [format!("in {}", p.written), format!("{} in", p.written)])
            .map(|written| Phrase { code: code(&written), written, apart: None })
            .collect();
        Lexicon { phrases, with_in }
    }

    pub fn is_empty(&self) -> bool {
        self.phrases.is_empty()
    }

    /// Whether a name of the lexicon is `stem` (lower case), with or without an extension:
    /// "index" for `index.html` or a folder `Index`.
    pub fn has_stem(&self, stem: &str) -> bool {
        self.phrases.iter().any(|p| {
            let written = p.written.to_lowercase();
            written == stem || written.rsplit_once('.').is_some_and(|(s, _)| s == stem)
        })
    }

    /// Each name as written, with the sound code of the way it is said.
    pub(crate) fn names(&self) -> impl Iterator<Item = (&str, &str)> {
        self.phrases.iter().map(|p| (p.written.as_str(), p.code.as_str()))
    }
}

/// Words that say where a thing goes, which follow a name as often as "in" does and are never
/// "in" run into a name: "put quote.mp3 inside Payslips" is not "in kids" (what broke, in a tree
/// with a folder called kids).
const PLACE_WORDS: &[&str] = &["inside", "into", "onto", "within", "beside", "under", "over", "near"];

/// A name must have this many sounds for "in" run into it to be heard: "in" and a shorter
/// name together are too few sounds to tell from the everyday words they also code as.
const MIN_SOUNDS_WITH_IN: usize = 4;

/// How many sound edits a phrase of `len` sounds may differ by and still be heard as it: none
/// under six sounds ("files" is not "Photos", nor "voices"), one up to eleven, then two.
fn allowed(len: usize) -> usize {
    len / 6
}

pub(crate) fn bare(w: &str) -> String {
    w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase()
}

/// A heard word as it was said, for its sound: whisper writes "contacts dot docx" as "contact,
/// start.docx" — "start" is the "s dot" it heard, and ".docx" its way of writing an extension —
/// so the dot of "start.docx" is not said twice. Any other word is as written.
fn as_said(word: &str) -> std::borrow::Cow<'_, str> {
    let trimmed = word.trim_end_matches([',', '.', '?', '!', ';', ':']);
    match trimmed.split_once('.') {
        Some((start, ext))
            if start.eq_ignore_ascii_case("start")
                && (1..=5).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric()) =>
        {
            std::borrow::Cow::Owned(format!("{start} {ext}"))
        }
        _ => std::borrow::Cow::Borrowed(word),
    }
}

/// `name`'s stem, lower case, when it is short (under five sounds) and letters and digits only:
/// what words written apart may spell ([`written_apart`]).
fn short_stem(name: &str) -> Option<String> {
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem).to_lowercase();
    (stem.chars().all(char::is_alphanumeric) && code(&stem).len() < 5).then_some(stem)
}

/// What `run`, two words or more, spells when its words are run together, lower case: whisper
/// writes a short name made of everyday words as those words ("read to do" for todo.md). A
/// short stem is matched by spelling, not sound (a longer one is in the lexicon and heard by
/// its sound), so this is the only way such a name is heard. It is asked only right after a
/// verb that takes a name, since "have to do" is English wherever else it is said.
fn written_apart(run: &[&str]) -> Option<String> {
    (run.len() >= 2)
        .then(|| run.iter().flat_map(|w| w.chars()).filter(|c| c.is_alphanumeric()).collect::<String>().to_lowercase())
}

/// The transcript with every run of words that sounds like exactly one name written as it.
pub fn correct(transcript: &str, lexicon: &Lexicon) -> String {
    let words: Vec<&str> = transcript.split_whitespace().collect();
    if lexicon.is_empty() || words.is_empty() {
        return transcript.to_string();
    }
    // Each word's own sound, for whether it sounds like "in" on its own (below).
    let in_code = code("in");
    let word_codes: Vec<String> = words.iter().map(|w| code(w)).collect();
    // Each word as it was said, for a run's sound: made once, not for every run it is in.
    let said: Vec<std::borrow::Cow<'_, str>> = words.iter().map(|w| as_said(w)).collect();
    // Where the request begins, when the words there sound exactly like a request's opening
    // of several words ("Right up a quarantine proposal" is "write up", not `roadmap.csv`) are
    // that opening, not a name.
    let opening = crate::weighed_openings::opening_at(&words).filter(|&s| {
        (s + 2..=(s + crate::weighed_openings::MAX_RUN).min(words.len()))
            .any(|e| crate::weighed_openings::sounds_like_an_opening(&words[s..e].join(" ")))
    });
    // (start, end, distance, code length, written)
    let mut found: Vec<(usize, usize, usize, usize, String)> = vec![];
    for start in 0..words.len() {
        let after_a_verb = start.checked_sub(1).is_some_and(|b| is_command_word(&bare(words[b])));
        for end in start + 1..=(start + MAX_RUN).min(words.len()) {
            let run = &words[start..end];
            let first = bare(run[0]);
            // A run with a function word in it, at an end or inside, is only part of a name
            // that sounds exactly like the run ("in voices" is Invoices; "in Photos" is not
            // "Invoices"; "up to date" is English, not `edited` — what broke: "is warranty.txt
            // still up to date in the index" named a folder).
            let holds_function_word = run.iter().any(|w| FUNCTION_WORDS.contains(&bare(w).as_str()));
            if holds_function_word && run.len() < 2 {
                continue;
            }
            // A run that begins with "dot" has lost the name's stem: "Move again to dot.jpg"
            // is agenda.jpg misheard, and an extension's sounds are most of a short name's, so
            // `ideas.jpg`, two sounds off, would be taken for it. Only a name that sounds
            // exactly like the run is heard then.
            let stem_lost = first == "dot" || first.starts_with("dot.");
            let exact_only = holds_function_word
                || stem_lost
                || start.checked_sub(1).is_some_and(|b| BEFORE_NO_NAME.contains(&bare(words[b]).as_str()));
            if run.len() == 1 && is_command_word(&first) {
                continue;
            }
            if Some(start) == opening {
                break;
            }
            let text = run.join(" ");
            let apart = if after_a_verb { written_apart(run) } else { None };
            let heard = code(&said[start..end].join(" "));
            if heard.is_empty() {
                continue;
            }
            let spelled = bare(&text);
            let mut best: Option<(usize, usize, &str)> = None;
            let mut tie = false;
            // A name with "in" before or after it, where whisper ran "in" into the words
            // round it: "What do I have info, dos?" is "in Photos", "Miskin Flyers" "misc in
            // Flyers". Only where no word heard sounds like "in" on its own — "in" itself
            // (then the name alone is the match), or another word ("one", "on", "an": what
            // broke, "Homework slash birthday. One dot the end." for `birthday (1).png` read as
            // "birthday in") — and only sounding exactly alike: one sound off, "in Photos" is
            // the word "Invoices".
            let said_in = word_codes[start..end].contains(&in_code);
            let with_in = lexicon.with_in.iter().filter(|_| !said_in).map(|p| (p, true));
            // One word right after a name, as a nested folder is said ("raw in Clients"): there
            // "in" run into the next name may be a sound further off than any name of its length
            // ("raw inclines" is "raw in Clients", its T heard as a vowel), since right after a
            // name is where "in" and a name are said, and a word there that sounds so nearly
            // like them is not English that means anything else.
            let after_a_name = run.len() == 1
                && !PLACE_WORDS.contains(&first.as_str())
                && start.checked_sub(1).is_some_and(|b| {
                    let before = bare(words[b]);
                    words[b].ends_with(|c: char| c.is_alphanumeric()) && lexicon.has_stem(&before)
                });
            for (p, runs_in) in lexicon.phrases.iter().map(|p| (p, false)).chain(with_in) {
                let bound = allowed(p.code.len());
                // Short names: the spelling itself, up to case and punctuation — or its stem
                // written as the words it is made of, right after a verb that takes a name.
                // Longer ones: a sound code of about their length.
                let out_of_reach = || {
                    if p.code.len() < 5 {
                        bare(&p.written) != spelled && bare(&p.written.replace('.', " dot ")) != spelled
                    } else {
                        heard.len().abs_diff(p.code.len()) > bound
                    }
                };
                let d = if apart.is_some() && p.apart == apart {
                    Some(0)
                } else if out_of_reach() {
                    None
                } else {
                    let bound = match (exact_only, runs_in) {
                        (true, _) => 0,
                        (false, false) => bound,
                        (false, true)
                            if after_a_name && p.written.starts_with("in ") && heard.len() == p.code.len() =>
                        {
                            bound + 1
                        }
                        (false, true) => 0,
                    };
                    distance(&heard, &p.code, bound)
                };
                let Some(d) = d else { continue };
                match best {
                    Some((bd, _, bw)) if d == bd && !bw.eq_ignore_ascii_case(&p.written) => tie = true,
                    Some((bd, _, _)) if d >= bd => {}
                    _ => {
                        best = Some((d, p.code.len(), &p.written));
                        tie = false;
                    }
                }
            }
            if let (Some((d, len, written)), false) = (best, tie) {
                found.push((start, end, d, len, written.to_string()));
            }
        }
    }
    // The run that explains the most sounds wins: each sound of the name counts, each edit
    // costs three ("note start DXD" as notes.txt beats "start" as a folder called start).
    let worth = |f: &(usize, usize, usize, usize, String)| f.3 as i64 - 3 * f.2 as i64;
    found.sort_by(|a, b| worth(b).cmp(&worth(a)).then(a.2.cmp(&b.2)).then(a.0.cmp(&b.0)));
    let mut taken = vec![false; words.len()];
    let mut chosen: Vec<(usize, usize, String)> = vec![];
    for (start, end, _, _, written) in found {
        if taken[start..end].iter().any(|t| *t) {
            continue;
        }
        taken[start..end].iter_mut().for_each(|t| *t = true);
        chosen.push((start, end, written));
    }
    chosen.sort_by_key(|c| c.0);
    let mut out: Vec<String> = vec![];
    let mut i = 0;
    for (start, end, written) in chosen {
        out.extend(words[i..start].iter().map(|w| w.to_string()));
        // A name said as a whole sentence keeps the sentence's end off it: "notes.txt." is not a name.
        let keep: String = words[end - 1].chars().rev().take_while(|c| matches!(c, ',' | '?' | '!')).collect();
        out.push(format!("{written}{}", keep.chars().rev().collect::<String>()));
        i = end;
    }
    out.extend(words[i..].iter().map(|w| w.to_string()));
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lex(names: &[&str]) -> Lexicon {
        Lexicon::of_names(names)
    }

    #[test]
    fn misheard_names_are_written_as_the_names_that_exist() {
        let l = lex(&[
            "notes.txt",
            "band practice",
            "Downloads",
            "soup.md",
            "receipts",
            "budget.xlsx",
            "minutes.xlsx",
            "roadmap.md",
            "Invoices",
            "Payslips",
            "scratch 2019.pdf",
        ]);
        for (heard, want) in [
            ("hash note start DXD", "hash notes.txt"),
            ("what's in ban practise", "what's in band practice"),
            ("scan the down loads folder", "scan the Downloads folder"),
            ("read soup dot m d", "read soup.md"),
            ("open soup dot MD.", "open soup.md"),
            ("fingerprint budgit", "fingerprint budget"),
            ("a proposal for minute, start xlsx, without moving", "a proposal for minutes.xlsx, without moving"),
            // "start" is the "s dot" heard, ".xlsx" how whisper writes an extension: one dot, not two.
            ("move minute, start.xlsx, into Downloads.", "move minutes.xlsx, into Downloads"),
            ("Read the file roadmap.md.", "Read the file roadmap.md"),
            ("compact the folder in voices", "compact the folder Invoices"),
            (
                "set up a redirect for pay slip slash crash, 2019.pdf",
                "set up a redirect for Payslips slash scratch 2019.pdf",
            ),
        ] {
            assert_eq!(correct(heard, &l), want, "{heard}");
        }
    }

    /// What broke (spoken dev): whisper ran "in" into the name after or before it — "what do I
    /// have in photos" heard "What do I have info, dos?", "in misc in Flyers" "in Miskin
    /// Flyers" — and no name sounds like "info dos".
    #[test]
    fn an_opening_heard_apart_is_not_a_name_that_sounds_like_it() {
        // What broke (spoken): "write up a quarantine proposal for photos slash old", heard
        // "Right up …", proposed quarantining roadmap.csv too.
        let lexicon = Lexicon::of_names(&["roadmap.csv", "Photos", "old"]);
        assert_eq!(
            correct("Right up a quarantine proposal for photos, slash old.", &lexicon),
            "Right up a quarantine proposal for Photos, slash old"
        );
        // Elsewhere in the sentence the name is still heard.
        assert_eq!(correct("Scan, right up.", &lexicon), "Scan, roadmap");
    }

    #[test]
    fn a_name_with_in_run_into_it_is_heard_as_in_and_the_name() {
        let l = lex(&["Photos", "Clients", "raw", "misc", "Flyers", "Invoices", "docs", "notes.txt"]);
        for (heard, want) in [
            ("What do I have info, dos?", "What do I have in Photos?"),
            (
                "Look for older copies and reports in Miskin Flyers.",
                "Look for older copies and reports in misc in Flyers",
            ),
            // "in" said as a word: the name alone is heard, as before.
            ("what is in photos", "what is in Photos"),
            ("compact the folder in voices", "compact the folder Invoices"),
            // What broke (spoken dev, three voices of five): "look for identical copies in raw
            // in Clients" heard "… in raw inclines", and the duplicates were looked for
            // everywhere. Right after a name, "in" run into the next is heard a sound off.
            ("Look for identical copies in raw inclines.", "Look for identical copies in raw in Clients"),
            ("Look for identical copy in raw implants.", "Look for identical copy in raw in Clients"),
        ] {
            assert_eq!(correct(heard, &l), want, "{heard}");
        }
        // A word that sounds like "in" on its own is not run into a name: "one" after a name
        // is more often its number.
        let numbered = lex(&["birthday (1).png", "birthday", "Homework"]);
        let heard = "Calculate a checksum for homework slash birthday. One dot the end.";
        assert!(!correct(heard, &numbered).contains(" in "), "{}", correct(heard, &numbered));
        // English words that hold "in" are left alone where no name of four sounds or more
        // is run into them.
        for heard in ["tell me about the inner folder", "give me info about taxes", "is the index current", "in it"] {
            assert_eq!(correct(heard, &l), heard);
        }
        // A sound off is heard only right after a name: elsewhere "inclines" is English, and so
        // is a name ending a clause before it.
        for heard in ["the road inclines here", "read raw. inclines are steep", "scan raw, inclines are steep"] {
            assert!(!correct(heard, &l).contains("in Clients"), "{heard}: {}", correct(heard, &l));
        }
        // What broke (spoken test, with the rule above): "put quote.mp3 inside Payslips" moved
        // the file into a folder called kids. A word that says where a thing goes is itself.
        let kids = lex(&["quote.mp3", "kids", "Payslips", "Homework"]);
        for heard in ["Put quote.mp3 inside Payslips.", "Put quote.mp3 inside, payslips.", "move raw inside kids"] {
            assert!(!correct(heard, &kids).contains("in kids"), "{heard}: {}", correct(heard, &kids));
        }
    }

    #[test]
    fn a_sentence_without_names_comes_through_as_heard() {
        let l = lex(&[
            "notes.txt",
            "band practice",
            "Downloads",
            "rebuilt.log",
            "Read.me",
            "Photos",
            "summary.json",
            "summer",
            "edited",
        ]);
        for heard in [
            // What broke: "up to date" was heard as the folder `edited`.
            "is warranty.txt still up to date in the index",
            "rebuild the search index",
            "are there duplicate files in Invoices",
            "compact the folder in voices",
            "save a note call the plumber tomorrow",
            "find my notes somehow",
            "read the file",
            "good morning",
            "what time is it in tokyo",
            "hmm let me think",
            "",
        ] {
            assert_eq!(correct(heard, &l), heard, "{heard}");
        }
    }

    #[test]
    fn a_word_where_no_name_is_said_stays_as_heard() {
        // What broke: "a later version" named the folder Letters, and "write up" after "you"
        // the file roadmap.pdf.
        let l = lex(&["Letters", "roadmap.pdf", "Lectures"]);
        for heard in
            ["which were replaced by a later version", "could you write up a patch for it", "so you write up the list"]
        {
            assert_eq!(correct(heard, &l), heard, "{heard}");
        }
        // A name said exactly is a name wherever it is: "can you scan Letters", "a Letters
        // folder" (odd, but said).
        assert_eq!(correct("could you roadmap.pdf hash", &l), "could you roadmap.pdf hash");
        assert_eq!(correct("scan a letters folder", &l), "scan a Letters folder");
        assert_eq!(correct("then the later scan", &l), "then the Letters scan");
    }

    #[test]
    fn two_names_equally_near_are_a_tie_and_left_alone() {
        let l = lex(&["holiday photos", "holiday fotos"]);
        assert_eq!(correct("scan holiday photoes", &l), "scan holiday photoes");
    }

    #[test]
    fn short_names_need_their_own_spelling() {
        let l = lex(&["log", "Reed"]);
        assert_eq!(correct("read the log", &l), "read the log");
        assert_eq!(correct("scan reed", &l), "scan Reed");
        assert_eq!(correct("scan read", &l), "scan read");
    }

    #[test]
    fn a_copy_numbered_in_brackets_is_heard_by_its_number_said() {
        let l = lex(&["guest list (1).zip", "guest_list.zip", "Clients"]);
        assert_eq!(
            correct("Suggest quarantine, client slash guest list, one, not zip, but don't move it yet.", &l),
            "Suggest quarantine, Clients slash guest list (1).zip, but don't move it yet."
        );
        assert_eq!(correct("hash guest list dot zip", &l), "hash guest_list.zip");
    }

    #[test]
    fn an_extension_heard_without_its_stem_is_no_name_that_merely_shares_it() {
        // What broke: "Move again to dot.jpg to clients." (agenda dot jpg misheard) moved
        // Clients/raw/ideas.jpg, whose code is two sounds from "dot.jpg".
        let l = lex(&["ideas.jpg", "agenda.jpg"]);
        assert_eq!(correct("Move again to dot.jpg to clients.", &l), "Move again to dot.jpg to clients.");
        assert_eq!(correct("hash dot jpg", &l), "hash dot jpg");
        // With its stem, a name is heard as before.
        assert_eq!(correct("hash idea's dot jpg", &l), "hash ideas.jpg");
    }

    #[test]
    fn a_short_name_written_as_the_words_it_is_made_of_is_heard_after_a_verb() {
        // What broke: "Hey can you read to do for me?" asked which file was meant, with todo.md
        // in the folder; a short name is matched by spelling, and "to do" is not "todo".
        let l = lex(&["todo.md"]);
        assert_eq!(correct("Hey can you read to do for me?", &l), "Hey can you read todo.md for me?");
        assert_eq!(correct("hash to, do.", &l), "hash todo.md");
        // Elsewhere "to do" is English, not the file.
        assert_eq!(correct("what do I have to do today", &l), "what do I have to do today");
        assert_eq!(correct("read to dos", &l), "read to dos");
    }

    #[test]
    fn the_nearest_longest_run_wins_and_runs_never_overlap() {
        let l = lex(&["notes", "notes.txt", "start"]);
        assert_eq!(correct("hash note start DXD please", &l), "hash notes.txt please");
    }

    #[test]
    fn an_empty_lexicon_changes_nothing() {
        assert_eq!(correct("note start DXD", &Lexicon::default()), "note start DXD");
    }
}
