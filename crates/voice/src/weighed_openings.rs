//! The words a request opens with, weighed against the audio.
//!
//! A request says what to do first, and that is where a small recogniser on synthetic speech
//! slips most: "prepare a quarantine plan" written "Repair a quarantine plan", "reindex
//! everything" as "Read Index everything", "um rebuild the index" as "I'm revealed in the
//! index", "get rid of" as "Get read on". Each of those still reads as *a* request, only the
//! wrong one — or as none — and no name list can put a verb right: the verb is not a file.
//!
//! [`crate::weighed_names`] showed the way: offer a few texts that differ from the transcript
//! only where it may have been misheard, and let whisper say, against the same audio, whether
//! one is clearly likelier than what it wrote. Here the words replaced are the opening — the
//! first one to three words after a lead-in such as "um", "hey", "can you" — and what is put
//! in is one of [`OPENINGS`], the ways a person opens a request to SMART, when it sounds
//! loosely like them. The audio decides, with the same margins ([`crate::weighed_names::choose`]),
//! so an opening that was not said is not taken: whisper's own greedy guess is usually the
//! likeliest text, and an alternative must beat it by half a nat in all and a tenth a token.
//!
//! What keeps it from inventing requests:
//! - a single word that already frames a request — one of [`OPENINGS`], a command word or a
//!   frame word such as "which" — is left alone: whisper wrote a verb, and a sound-alike one
//!   on a margin ("Remove agenda.jpg" for "Rename agenda.jpg", "Swap" for "Wipe") changes the
//!   request without the audio having said so clearly; only two words that begin with the
//!   same sound ("Read Index" for "reindex") or words that are no verb of ours ("Repair",
//!   "Merify") are offered another opening;
//! - a run that ends on a function word is offered only an opening that does too ("Get read
//!   on" may be "get rid of"; "Compute the" is not "compute");
//! - only the opening is replaced, never words further in, where a verb-like word is more
//!   often part of a name or a topic ("search for harp record");
//! - an opening of three sounds or fewer ("put", "fix") is offered only for words that sound
//!   exactly like it ("but" for "put"), since short codes are near too many words;
//! - at most [`MAX_OPENING_ALTERNATIVES`], the nearest first, so weighing stays cheap and the
//!   name alternatives keep their share of what one weighing may hold.
//!
//! The list is written from what the tools do, in everyday words, like
//! [`crate::command_words`] (which tells whisper what to expect while it decodes) and not from
//! any eval's sentences. It holds a few words that list does not ("prepare", "propose",
//! "pack"): expecting them while decoding would change what whisper writes everywhere, while
//! offering them here changes nothing unless the audio says so.

use crate::command_words;
use crate::heard_names::{FUNCTION_WORDS, bare};
use crate::phonetic::{code, distance};
use crate::weighed_names::{Alternative, clause_ends_inside, control, replaced};

/// The ways a person opens a request, lower case.
pub const OPENINGS: &[&str] = &[
    // Looking at folders and files.
    "scan",
    "list",
    "show",
    "read",
    "open",
    "print",
    "hash",
    "checksum",
    "fingerprint",
    "compute",
    // Searching, comparing, checking.
    "search",
    "find",
    "look up",
    "look for",
    "verify",
    "check",
    "validate",
    // Context for a model.
    "bundle",
    "gather",
    "assemble",
    "combine",
    // Editing text.
    "replace",
    "change",
    "correct",
    "edit",
    "fix",
    "swap",
    // Moving, renaming, redirects.
    "move",
    "put",
    "rename",
    "relocate",
    "write",
    "record",
    "create",
    "make",
    "set up",
    // Proposals that change nothing yet.
    "propose",
    "prepare",
    "draft",
    "suggest",
    "write up",
    "plan",
    // Putting aside and destroying.
    "quarantine",
    "delete",
    "remove",
    "throw away",
    "get rid of",
    "purge",
    "empty",
    "wipe",
    "erase",
    "destroy",
    "restore",
    // Packing.
    "compress",
    "archive",
    "pack",
    "zip",
    // The index.
    "rebuild",
    "reindex",
    "redo",
    "refresh",
    // The person's own notes and answers.
    "remember",
    "note",
    "forget",
    "apply",
    "undo",
    "approve",
    "deny",
    "cancel",
];

/// At most this many openings are weighed for one utterance.
pub const MAX_OPENING_ALTERNATIVES: usize = 3;

/// Whether `word` (lower case) already frames a request: an opening, a command word or a
/// frame word ("which" codes as "hash" does, and is no verb misheard). Wider than
/// [`command_words::says_what_to_do`], which leaves frame words out.
fn frames_a_request(word: &str) -> bool {
    OPENINGS.contains(&word) || command_words::is_command_word(word)
}

/// The longest run of heard words an opening may replace.
pub(crate) const MAX_RUN: usize = 3;

/// Words said before the request itself: fillers, greetings, politeness. whisper writes "um"
/// as "I'm" often enough for that to count as one.
const LEAD_INS: &[&str] = &[
    "um", "uh", "erm", "hmm", "hey", "ok", "okay", "so", "please", "can", "could", "would", "will", "you", "i'm", "im",
    "and", "now",
];

/// How many sound edits an opening of `len` sounds may be from the words heard: none up to
/// three sounds ("put" is P-A-T, a sound away from "bus", "pass", "pick"), then as loose as
/// a name's weighing.
fn loose(len: usize) -> usize {
    if len <= 3 { 0 } else { 1 + len / 5 }
}

/// An opening as it would be written where `heard` stood: capitalised when whisper began
/// with a capital, since whisper weighs "reindex" at a sentence's start well below "Reindex".
fn as_written(opening: &str, heard: &str) -> String {
    if heard.chars().next().is_some_and(char::is_uppercase) {
        let mut c = opening.chars();
        c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
    } else {
        opening.to_string()
    }
}

/// Where the request begins in `words`: after any lead-in ("um", "hey can you", "Okay.") and
/// any word of punctuation alone ("—"); `None` when nothing follows.
pub fn opening_at(words: &[&str]) -> Option<usize> {
    let lead_in = |w: &str| {
        let w = bare(w);
        w.is_empty() || LEAD_INS.contains(&w.as_str())
    };
    words.iter().position(|w| !lead_in(w))
}

/// Whether `words` — two or more — said where a request begins sound exactly like one of
/// [`OPENINGS`] of more than one word: "Right up" is "write up", and no file called `roadmap.csv`
/// (a sound away) was meant by it.
pub fn sounds_like_an_opening(words: &str) -> bool {
    // One word is the command words' own rule: "Setup dot py" may be a file's name.
    if words.split_whitespace().count() < 2 {
        return false;
    }
    let heard = code(words);
    heard.len() > 3 && OPENINGS.iter().any(|o| o.contains(' ') && code(o) == heard)
}

/// `transcript` with its opening — the first one to [`MAX_RUN`] words after any lead-in —
/// replaced by each of [`OPENINGS`] that sounds loosely like it and is not what was written,
/// the nearest first; at most [`MAX_OPENING_ALTERNATIVES`].
pub fn opening_alternatives(transcript: &str) -> Vec<Alternative> {
    let words: Vec<&str> = transcript.split_whitespace().collect();
    let Some(start) = opening_at(&words) else { return vec![] };
    // (rank within its run, distance, the opening's sounds, end of the run, opening): the
    // nearest opening of every run comes before the second nearest of any, so that a near
    // short one ("Write" for "Read") does not crowd out a longer one ("Reindex" for "Read
    // Index").
    let mut found: Vec<(usize, usize, usize, usize, &str)> = vec![];
    for end in start + 1..=(start + MAX_RUN).min(words.len()) {
        let run = &words[start..end];
        // A clause's end inside a run is not inside an opening.
        if clause_ends_inside(run) {
            break;
        }
        // A function word before the run's last word is a word said, not a verb misheard:
        // "Throw it away" is not "throw away" with "it" lost.
        if run[..run.len() - 1].iter().any(|w| FUNCTION_WORDS.contains(&bare(w).as_str())) {
            break;
        }
        let spelled = run.iter().map(|w| bare(w)).collect::<Vec<_>>().join(" ");
        let heard = code(&spelled);
        let led_by_a_verb = frames_a_request(&bare(run[0]));
        if heard.is_empty() || (led_by_a_verb && run.len() != 2) {
            continue;
        }
        let last_is_function_word = run.last().is_some_and(|w| FUNCTION_WORDS.contains(&bare(w).as_str()));
        let mut near: Vec<(usize, usize, &str)> = vec![];
        for &opening in OPENINGS {
            // "Compute the" is not "compute" said with something lost; "get read on" may be
            // "get rid of".
            let ends_on_function_word =
                opening.rsplit(' ').next().is_some_and(|w| FUNCTION_WORDS.contains(&w) && opening.contains(' '));
            if spelled == opening || last_is_function_word != ends_on_function_word {
                continue;
            }
            let c = code(opening);
            // A verb whisper wrote began as it heard it: two words led by one are another
            // opening split apart ("Read Index", reindex) only if that opening begins alike,
            // not one two sounds away ("Hash docs" is not "reindex").
            if led_by_a_verb && heard.chars().next() != c.chars().next() {
                continue;
            }
            if let Some(d) = distance(&heard, &c, loose(c.len())) {
                near.push((d, c.len(), opening));
            }
        }
        near.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(b.2)));
        found.extend(near.into_iter().take(2).enumerate().map(|(rank, (d, len, o))| (rank, d, len, end, o)));
    }
    // Within a rank, the nearer first, then — as within a run — the longer opening.
    found.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)).then(b.2.cmp(&a.2)).then(a.3.cmp(&b.3)).then(a.4.cmp(b.4)));
    let mut out: Vec<Alternative> = vec![];
    for (_, _, _, end, opening) in found {
        if out.len() == MAX_OPENING_ALTERNATIVES {
            break;
        }
        let text = replaced(&words, start, end, &as_written(opening, words[start]));
        if text != transcript && !out.iter().any(|a| a.text == text) {
            out.push(Alternative { text, name: opening.to_string(), control: control(transcript, &words, start, end) });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(transcript: &str) -> Vec<String> {
        opening_alternatives(transcript).into_iter().map(|a| a.text).collect()
    }

    #[test]
    fn a_misheard_opening_is_offered_as_the_request_it_sounds_like() {
        assert!(
            texts("Repair a quarantine plan for the client's folder.")
                .contains(&"Prepare a quarantine plan for the client's folder.".to_string()),
            "{:?}",
            texts("Repair a quarantine plan for the client's folder.")
        );
        assert!(
            texts("Read Index everything.").contains(&"Reindex everything.".to_string()),
            "{:?}",
            texts("Read Index everything.")
        );
        assert!(
            texts("Get read on client slash guest list.").contains(&"Get rid of client slash guest list.".to_string())
        );
        assert!(texts("Repose, quarantine contacts.docx").contains(&"Propose, quarantine contacts.docx".to_string()));
        assert!(texts("Merify the index entry").contains(&"Verify the index entry".to_string()));
    }

    #[test]
    fn the_opening_is_found_after_a_lead_in() {
        let t = texts("I'm revealed in the index.");
        assert!(t.contains(&"I'm rebuild in the index.".to_string()), "{t:?}");
        let t = texts("hey can you repair a plan");
        assert!(t.contains(&"hey can you prepare a plan".to_string()), "{t:?}");
    }

    #[test]
    fn a_short_opening_is_offered_only_for_words_that_sound_exactly_like_it() {
        assert!(
            texts("But agenda.jpg in the clients folder.")
                .contains(&"Put agenda.jpg in the clients folder.".to_string())
        );
        // "Bus" is a sound away from "put": too near too many words to offer.
        assert!(!texts("Bus agenda.jpg in the clients folder.").iter().any(|t| t.starts_with("Put")));
    }

    #[test]
    fn what_was_written_is_not_offered_again_and_nothing_far_is_offered() {
        assert!(texts("Rebuild the index.").is_empty(), "{:?}", texts("Rebuild the index."));
        assert!(texts("Thanks a lot.").is_empty(), "{:?}", texts("Thanks a lot."));
        assert!(texts("").is_empty());
        assert!(texts("Okay. Thanks").is_empty());
        // A question word is no verb misheard ("which" codes as "hash" does).
        assert!(texts("Which files mention glacier?").is_empty(), "{:?}", texts("Which files mention glacier?"));
        // A word said between is not a verb's sound lost.
        assert!(!texts("Throw it away.").contains(&"Throw away.".to_string()), "{:?}", texts("Throw it away."));
    }

    #[test]
    fn a_lead_in_that_ends_a_sentence_or_punctuation_alone_does_not_hide_the_opening() {
        assert!(texts("Okay. Repair a quarantine plan.").contains(&"Okay. Prepare a quarantine plan.".to_string()));
        assert!(texts("Um... repair a plan").contains(&"Um... prepare a plan".to_string()));
        assert!(texts("— repair a plan").contains(&"— prepare a plan".to_string()));
    }

    #[test]
    fn the_replacement_keeps_the_punctuation_and_case_of_what_it_replaces() {
        let a = opening_alternatives("Repair, a quarantine plan.");
        let prepare = a.iter().find(|a| a.name == "prepare").map(|a| (a.text.as_str(), a.control.as_deref()));
        assert_eq!(prepare, Some(("Prepare, a quarantine plan.", None)));
        assert!(texts("repair a quarantine plan").contains(&"prepare a quarantine plan".to_string()));
    }

    #[test]
    fn a_verb_whisper_wrote_is_not_swapped_for_one_that_sounds_like_it() {
        // Regression: weighed live, "Remove agenda.jpg to scratch.txt." beat what was said.
        assert!(!texts("Rename agenda.jpg to scratch.txt.").iter().any(|t| t.starts_with("Remove")));
        assert!(!texts("Wipe the quarantine files permanently.").iter().any(|t| t.starts_with("Swap")));
        assert!(texts("Compute the hash for payslip").is_empty(), "{:?}", texts("Compute the hash for payslip"));
        // A run of words that holds a verb may still be one verb misheard, if it begins alike.
        assert!(texts("Read Index everything.").contains(&"Reindex everything.".to_string()));
        assert!(texts("Hash docs slash notes dot txt.").is_empty(), "{:?}", texts("Hash docs slash notes dot txt."));
    }

    #[test]
    fn words_that_sound_exactly_like_an_opening_of_several_words_are_one() {
        assert!(sounds_like_an_opening("Right up"));
        assert!(sounds_like_an_opening("get rid of"));
        assert!(!sounds_like_an_opening("roadmap"));
        // One word is left to the command words' own rule: "Setup" may name a file.
        assert!(!sounds_like_an_opening("Setup"));
        assert_eq!(opening_at(&["Um,", "right", "up"]), Some(1));
        assert_eq!(opening_at(&["Okay.", "right", "up"]), Some(1));
        assert_eq!(opening_at(&["um", "—"]), None);
    }

    #[test]
    fn the_nearest_openings_are_offered_first_and_only_a_few() {
        // "Read" is a verb whisper wrote; "Read Index" may be one verb split apart.
        assert_eq!(texts("Read Index everything."), vec!["Reindex everything.".to_string()]);
        let offered: Vec<String> =
            opening_alternatives("Repair a quarantine plan.").into_iter().map(|a| a.name).collect();
        assert_eq!(offered.first().map(String::as_str), Some("prepare"), "{offered:?}");
        assert!(offered.len() <= MAX_OPENING_ALTERNATIVES, "{offered:?}");
    }
}
