//! Names whisper may have heard, weighed against the audio.
//!
//! [`crate::heard_names`] puts a misheard name right from the transcript alone, and so must be
//! strict: a short name may differ from what was heard by no sound at all ("misk" is not taken
//! for the folder `misc`), a longer one by one sound in six ("tools letter.json" is not taken for
//! `newsletter.json`), because everyday words sound like many names and the text alone cannot
//! tell them apart. The audio can. whisper will say how likely it finds any text as the
//! transcript of the utterance it heard (the wake word's acoustic check uses the same
//! measure), and its greedy transcript is often *not* the likeliest text: on espeak-ng's
//! "list the files in misc in Pictures", whisper wrote "misk" yet finds "misc" likelier (−11.6
//! against −13.0); "delete newsletter.json", written "Delete tools, letter.json.", is −5.8
//! against −14.9 as written.
//!
//! So a transcript whose words sound *loosely* like names that exist gets a few alternatives —
//! [`alternatives`]: the transcript with one run of words replaced by a nearby name;
//! [`path_alternatives`]: the words after a folder's name replaced by "slash" and the name of
//! something in it ("Wallpapers, Ash Old." for `Wallpapers/old`); [`slot_alternatives`]: words
//! in the place a folder's name is said, naming nothing, replaced by the folders' names
//! ("Find duplicates in folders." for `Photos`), or "in" run into the folder that ends the
//! request ("in old info, don't." for "in old in Photos") — and the
//! voice worker weighs them with the transcript against the kept audio. [`choose`] takes an
//! alternative only when whisper finds it likelier than what it wrote, by a margin
//! ([`MARGIN`]). The looseness is safe because the audio decides, not the spelling: a name
//! that was not said is less likely than the words that were.
//!
//! What keeps it from inventing names, before the audio is asked at all:
//! - a run is never a command word on its own ("rebuild" is not `rebuilt.log`), nor begins
//!   on the verb a command opens with, nor holds a function word, nor follows a word after which no name is said — the same rules as
//!   [`crate::heard_names`], whose exact matches are left to it;
//! - a run that already is a name is left alone, and so is one of fewer than three sounds;
//! - at most [`MAX_ALTERNATIVES`], the nearest first, so that weighing stays a fraction of a
//!   second.

use crate::command_words::{is_command_word, says_what_to_do};
use crate::heard_names::{BEFORE_NO_NAME, FUNCTION_WORDS, Lexicon, bare};
use crate::phonetic::{code, distance};

/// At most this many alternatives are weighed for one utterance.
pub const MAX_ALTERNATIVES: usize = 6;

/// How much likelier (natural log, summed over the text's tokens) an alternative must be than
/// the transcript whisper wrote. Not zero: two texts that differ by a token's worth of
/// spelling ("Misc" and "misc") score within a fraction of a nat of each other, and a name must
/// be clearly what was heard to replace what whisper wrote.
pub const MARGIN: f32 = 0.5;

/// How much likelier a token, on average, an alternative must be than what whisper wrote.
pub const MARGIN_PER_TOKEN: f32 = 0.1;

const MAX_RUN: usize = 4;

/// Fewer sounds than this is too little to weigh: "in", "a", "to" sound like many names.
const MIN_SOUNDS: usize = 3;

/// How many sound edits a name of `len` sounds may be from the words heard and still be
/// weighed: looser than [`crate::heard_names`]'s, since the audio decides.
fn loose(len: usize) -> usize {
    1 + len / 5
}

/// One way the transcript may have been meant.
#[derive(Clone, Debug, PartialEq)]
pub struct Alternative {
    /// The transcript with the run replaced, to weigh and, if chosen, to read.
    pub text: String,
    /// The name put in.
    pub name: String,
    /// What the alternative is weighed against, when that is not the transcript as written:
    /// the transcript with the replaced words as they were heard but punctuated as the
    /// alternative is — "Scan, photos, hash old." for "Scan, photos, slash old." in place of
    /// "Scan, photos, hash, old." — so that the name is compared with the words it replaces
    /// and nothing else (see [`choose`]).
    pub control: Option<String>,
}

/// How a name is said to whisper: the way whisper writes what it hears, with spaces where the
/// name has underscores ("shopping list.docx" for `shopping_list.docx`), so that a name is not
/// weighed down by a spelling no one hears. [`crate::heard_names`] writes it back exactly.
fn said(name: &str) -> String {
    name.replace('_', " ")
}

/// `transcript` with one run of words replaced by a name of `lexicon` that sounds loosely like
/// it, for each such run and name, the nearest first; at most [`MAX_ALTERNATIVES`].
pub fn alternatives(transcript: &str, lexicon: &Lexicon) -> Vec<Alternative> {
    let words: Vec<&str> = transcript.split_whitespace().collect();
    if lexicon.is_empty() || words.is_empty() {
        return vec![];
    }
    // (distance, name's sounds, start, end, name)
    let mut found: Vec<(usize, usize, usize, usize, &str)> = vec![];
    for start in 0..words.len() {
        if start.checked_sub(1).is_some_and(|b| BEFORE_NO_NAME.contains(&bare(words[b]).as_str())) {
            continue;
        }
        for end in start + 1..=(start + MAX_RUN).min(words.len()) {
            let run = &words[start..end];
            // A clause's end inside a run is not inside a name.
            if clause_ends_inside(run) {
                break;
            }
            if run.iter().any(|w| FUNCTION_WORDS.contains(&bare(w).as_str())) {
                break;
            }
            // The first word of a command says what to do ("Hash docs" is not `inbox`).
            if start == 0 && says_what_to_do(&bare(run[0])) {
                break;
            }
            // A command word on its own is not a name ("rebuild" is not `rebuilt.log`); with
            // more words it may be part of one whisper misheard ("tools, letter" for newsletter).
            if run.len() == 1 && is_command_word(&bare(run[0])) {
                continue;
            }
            let text = run.join(" ");
            let heard = code(&text);
            if heard.len() < MIN_SOUNDS {
                continue;
            }
            let spelled = bare(&text);
            let mut near: Vec<(usize, usize, &str)> = vec![];
            for (written, c) in lexicon.names() {
                if bare(written) == spelled || bare(&said(written)) == spelled {
                    // What was heard is this name already: nothing to weigh for this run.
                    near.clear();
                    break;
                }
                if c.len() < MIN_SOUNDS {
                    continue;
                }
                if let Some(d) = distance(&heard, c, loose(c.len())) {
                    near.push((d, c.len(), written));
                }
            }
            near.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(b.2)));
            found.extend(near.into_iter().take(2).map(|(d, len, w)| (d, len, start, end, w)));
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)).then(a.3.cmp(&b.3)));
    let mut out: Vec<Alternative> = vec![];
    for (_, _, start, end, name) in found {
        if out.len() == MAX_ALTERNATIVES {
            break;
        }
        let text = replaced(&words, start, end, &said(name));
        if text != transcript && !out.iter().any(|a| a.text == text) {
            out.push(Alternative { text, name: name.to_string(), control: control(transcript, &words, start, end) });
        }
    }
    out
}

/// At most this many alternatives of [`path_alternatives`] for one utterance.
pub const MAX_PATH_ALTERNATIVES: usize = 4;

/// How many words after a misheard "slash" may be the name of what is in the folder.
const AFTER_FOLDER: usize = 3;

/// `transcript` with a misheard "slash" after a folder's name, and the words after it,
/// replaced by "slash" and the name of something in that folder: "Wallpapers, Ash Old." may be
/// "Wallpapers slash old", "pictures, hash, move." "pictures slash misc". whisper often hears
/// the spoken separator as another word ("hash", "ash", "flash"), and the name after it is then
/// too far from what was heard for its sound alone to say which it is ("hash move" is nothing
/// like "slash misc" on paper, and −24.7 against −17.1 to whisper). The folder said before it
/// narrows the names that can follow to that folder's entries, so every entry is a candidate,
/// the nearest in sound first, and the audio decides. `paths`: the relative paths that exist,
/// `/`-separated. At most [`MAX_PATH_ALTERNATIVES`].
pub fn path_alternatives<S: AsRef<str>>(transcript: &str, paths: &[S]) -> Vec<Alternative> {
    let words: Vec<&str> = transcript.split_whitespace().collect();
    if words.len() < 3 || paths.is_empty() {
        return vec![];
    }
    // Each folder's name (lower case) and the names of its entries.
    let mut inside: std::collections::BTreeMap<String, Vec<&str>> = Default::default();
    for p in paths {
        if let Some((parent, name)) = p.as_ref().trim_matches('/').rsplit_once('/') {
            let folder = parent.rsplit('/').next().unwrap_or(parent).to_lowercase();
            let names = inside.entry(folder).or_default();
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    let separator = code("slash");
    // (distance, the separator's index, the end of the words after it, entry)
    let mut found: Vec<(usize, usize, usize, &str)> = vec![];
    for start in 0..words.len() {
        for end in start + 1..=(start + 2).min(words.len()) {
            let folder_said = bare(&words[start..end].join(" "));
            let Some(entries) =
                inside.iter().find(|(folder, _)| crate::spoken::same_but_plural(&folder_said, folder)).map(|(_, e)| e)
            else {
                continue;
            };
            // The word after the folder's name must sound like a separator and not be one.
            let Some(sep) = words.get(end).map(|w| bare(w)) else { continue };
            if sep == "slash" || sep.is_empty() || distance(&code(&sep), &separator, 2).is_none() {
                continue;
            }
            for after in end + 2..=(end + 1 + AFTER_FOLDER).min(words.len()) {
                let heard = code(&words[end + 1..after].join(" "));
                if heard.is_empty() {
                    continue;
                }
                for entry in entries {
                    let c = code(&said(entry));
                    if let Some(d) = distance(&heard, &c, heard.len().max(c.len())) {
                        found.push((d, end, after, entry));
                    }
                }
            }
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)).then(a.3.cmp(b.3)));
    let mut out: Vec<Alternative> = vec![];
    for (_, start, end, entry) in found {
        if out.len() == MAX_PATH_ALTERNATIVES {
            break;
        }
        let text = replaced(&words, start, end, &format!("slash {}", said(entry)));
        if text != transcript && !out.iter().any(|a| a.text == text) {
            out.push(Alternative { text, name: entry.to_string(), control: control(transcript, &words, start, end) });
        }
    }
    out
}

/// At most this many alternatives of [`slot_alternatives`] for one utterance.
pub const MAX_SLOT_ALTERNATIVES: usize = 3;

/// Words that close a folder's slot: "in my ___ folder".
const FOLDER_NOUNS: &[&str] = &["folder", "folders", "directory", "directories", "dir"];

/// Words that open a folder's slot before one of [`FOLDER_NOUNS`].
const SLOT_DETERMINERS: &[&str] = &["my", "the", "your", "our", "this"];

/// `transcript` with the words in a folder's place replaced by the name of a folder that
/// exists, when those words name nothing: the words between "my"/"the" and "folder" ("in my
/// base list folder"), or one or two words after "in" that end the request ("Find duplicates
/// in folders."). whisper hears a folder's name as everyday words so far from it in sound
/// ("folders" for Photos, two sounds off, and a word of ours that [`alternatives`] never
/// replaces on its own) that no spelling rule may put it back — but the place says a folder is
/// named there, so every folder as loosely like it as names are weighed is a candidate, the
/// nearest first, and the audio decides: on espeak-ng's "find duplicates in Photos", written
/// "Find duplicates in folders.", whisper finds "… in Photos." likelier (−11.5 against −14.0).
/// Not further: weighed without a prompt, whisper likes a common short word, and found "Find
/// documents on Kayak in Pictures." likelier than "… in Mixtapes." for "… in Mixtakes." (−18.8
/// against −24.1) — four sounds from what it heard, where `Mixtapes` is one.
/// Where "in" ran into the folder's name ([`fused_in`]) the word and what follows are replaced
/// by "in" and the folder, which may also be one whose name begins with the sounds heard after
/// the "in": whisper cuts a name short when it writes a word it knows ("info" for "in Photos").
/// Words that already are a name, or hold one, or a function word, are left alone. `paths`:
/// the relative paths that exist, `/`-separated. At most [`MAX_SLOT_ALTERNATIVES`].
pub fn slot_alternatives<S: AsRef<str>>(transcript: &str, paths: &[S]) -> Vec<Alternative> {
    let words: Vec<&str> = transcript.split_whitespace().collect();
    // Every folder's name, and every name (a slot holding one is heard right).
    let (mut folders, mut names) = (std::collections::BTreeSet::new(), std::collections::BTreeSet::new());
    for p in paths {
        let parts: Vec<&str> = p.as_ref().trim_matches('/').split('/').filter(|n| !n.is_empty()).collect();
        for (i, part) in parts.iter().enumerate() {
            names.insert(bare(part));
            names.insert(bare(&said(part)));
            if i + 1 < parts.len() {
                folders.insert(*part);
            }
        }
    }
    if words.len() < 2 || folders.is_empty() {
        return vec![];
    }
    let folders: Vec<(&str, String)> = folders.into_iter().map(|f| (f, code(&said(f)))).collect();
    // The folders that sound loosely like `heard`, or (`cut`) whose name begins with it and
    // whisper may have cut short ("info" for "in Photos"): the nearest first, a few.
    let nearest = |heard: &str, cut: bool| -> Vec<(usize, &str)> {
        let mut near: Vec<(usize, &str)> = folders
            .iter()
            .filter_map(|(f, c)| {
                let cut_short = cut && heard.len() >= 2 && c.starts_with(heard) && c.len() - heard.len() <= MAX_CUT;
                distance(heard, c, loose(c.len())).or_else(|| cut_short.then(|| c.len() - heard.len())).map(|d| (d, *f))
            })
            .collect();
        near.sort();
        near.truncate(MAX_SLOT_ALTERNATIVES);
        near
    };
    let mut slots: Vec<(usize, usize)> = vec![];
    for (k, w) in words.iter().enumerate() {
        if !FOLDER_NOUNS.contains(&bare(w).as_str()) {
            continue;
        }
        if let Some(j) = (k.saturating_sub(4)..k).rev().find(|j| SLOT_DETERMINERS.contains(&bare(words[*j]).as_str())) {
            slots.push((j + 1, k));
        }
    }
    // "in" and the request's last word or two.
    let last = words.len();
    for start in last.saturating_sub(2)..last {
        if start > 0 && matches!(bare(words[start - 1]).as_str(), "in" | "inside") {
            slots.push((start, last));
            break;
        }
    }
    let mut found: Vec<(usize, usize, usize, &str, &str)> = vec![];
    for (start, end) in slots {
        let run = &words[start..end];
        let text = bare(&run.join(" "));
        if run.is_empty()
            || clause_ends_inside(run)
            || words[start - 1].ends_with(['.', ',', '?', '!', ';'])
            || run.iter().any(|w| {
                let w = bare(w);
                FUNCTION_WORDS.contains(&w.as_str()) || names.contains(&w)
            })
            || names.contains(&text)
        {
            continue;
        }
        let heard = code(&text);
        if heard.len() < MIN_SOUNDS {
            continue;
        }
        found.extend(nearest(&heard, false).into_iter().map(|(d, f)| (d, start, end, "", f)));
    }
    for (start, heard) in fused_in(&words, &names) {
        found.extend(nearest(&heard, true).into_iter().map(|(d, f)| (d, start, last, "in ", f)));
    }
    found.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)).then(a.4.cmp(b.4)));
    let mut out: Vec<Alternative> = vec![];
    for (_, start, end, lead, folder) in found {
        if out.len() == MAX_SLOT_ALTERNATIVES {
            break;
        }
        let text = replaced(&words, start, end, &format!("{lead}{}", said(folder)));
        if text != transcript && !out.iter().any(|a| a.text == text) {
            out.push(Alternative { text, name: folder.to_string(), control: control(transcript, &words, start, end) });
        }
    }
    out
}

/// How many sounds of a folder's name whisper may have cut off its end when it ran "in" into
/// it: "info" is "in Photos" without its last three.
const MAX_CUT: usize = 3;

/// Where "in" ran into the folder's name that ends the request — "… in old info, don't." for
/// "… in old in Photos", "What stale impaise lives?" for "… in Payslips" (an "n" before a "p"
/// is said "m") — as the word that opens the request's last word or two: its start, and the
/// sounds heard after the "in". Not where a word before it leaves no room for a place ("the
/// index", "my inbox", "files in info"), nor a word that is a name, a command word or a word
/// of ours.
fn fused_in(words: &[&str], names: &std::collections::BTreeSet<String>) -> Vec<(usize, String)> {
    let last = words.len();
    let mut out = vec![];
    for start in last.saturating_sub(2).max(1)..last {
        let w = bare(words[start]);
        let Some(rest) = w.strip_prefix("in").or_else(|| w.strip_prefix("im")) else { continue };
        let before = bare(words[start - 1]);
        if rest.len() < 2
            || words[start - 1].ends_with(['.', '?', '!', ';'])
            || FUNCTION_WORDS.contains(&before.as_str())
            || SLOT_DETERMINERS.contains(&before.as_str())
            || FUNCTION_WORDS.contains(&w.as_str())
            || names.contains(&w)
            || is_command_word(&w)
            || clause_ends_inside(&words[start..last])
        {
            continue;
        }
        let after: Vec<&str> =
            words[start + 1..last].iter().map(|w| w.trim_end_matches([',', '.', '?', '!', ';'])).collect();
        let heard = code(&format!("{rest} {}", after.join(" ")));
        if code(&w).len() >= MIN_SOUNDS && !heard.is_empty() {
            out.push((start, heard));
        }
    }
    out
}

/// Whether a clause ends inside `run` — on a word before its last — so that the run is not one
/// name, opening or topic said across it.
pub(crate) fn clause_ends_inside(run: &[&str]) -> bool {
    run.split_last().is_some_and(|(_, before)| before.iter().any(|w| w.ends_with(['.', '?', '!', ';'])))
}

/// `words` with `words[start..end]` replaced by `with`, keeping the punctuation the last of
/// them ended on.
pub(crate) fn replaced(words: &[&str], start: usize, end: usize, with: &str) -> String {
    let last = words[end - 1];
    let kept: String = last.chars().rev().take_while(|c| matches!(c, ',' | '.' | '?' | '!')).collect();
    let mut out: Vec<String> = words[..start].iter().map(|w| w.to_string()).collect();
    out.push(format!("{with}{}", kept.chars().rev().collect::<String>()));
    out.extend(words[end..].iter().map(|w| w.to_string()));
    out.join(" ")
}

/// The transcript with `words[start..end]` as heard but punctuated as [`replaced`] punctuates
/// a name put in their place (the last word's punctuation kept, the others' dropped), when
/// that differs from the transcript.
pub(crate) fn control(transcript: &str, words: &[&str], start: usize, end: usize) -> Option<String> {
    let heard: Vec<&str> = words[start..end].iter().map(|w| w.trim_end_matches([',', '.', '?', '!', ';'])).collect();
    Some(replaced(words, start, end, &heard.join(" "))).filter(|c| c != transcript)
}

/// How likely whisper finds a text: the sum of its tokens' log-probabilities, and how many
/// tokens it is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weight {
    pub logp: f32,
    pub tokens: u32,
}

impl Weight {
    fn per_token(&self) -> f32 {
        self.logp / self.tokens.max(1) as f32
    }
}

/// One alternative's weight, and the weight of what it is compared with: its
/// [`Alternative::control`]'s, or the transcript's as written where it has none.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weighed {
    pub way: Weight,
    pub against: Weight,
}

/// Which alternative to take, given how likely whisper finds the transcript it wrote
/// (`heard`) and each alternative with what it is compared with, in order (`weighed`): the
/// likeliest of those that beat what was written by [`MARGIN`] in all, and what they are
/// compared with by [`MARGIN`] in all and [`MARGIN_PER_TOKEN`] a token. A missing or
/// non-finite score takes nothing.
///
/// Both margins, because a sum favours fewer tokens: "There are not any duets in there." →
/// "There are not minutes in there." (a file) gains 4.4 by losing two tokens, and only 0.09 a
/// token. The margins are asked of each alternative, not only of the likeliest in all: that
/// one is likeliest often *because* it is shortest, and when it failed the per-token margin
/// it hid one beside it that passed both ("Edit, Podcasts, slash receipt.txt, comma, …",
/// which also dropped a misheard word after the name, hid "… slash receipt.txt, sonet, comma,
/// …"). And each is compared with its control, not with the transcript as written, because
/// what whisper wrote keeps the punctuation it gave the words it misheard: "Scan, photos,
/// hash, old." is a token longer than "Scan, photos, slash old." only by the comma after
/// "hash", and a comma is among the likeliest tokens there are, so the alternative lost on
/// the per-token margin what it never replaced (−22.3 in 8 tokens against −24.3 in 9).
pub fn choose(heard: Weight, weighed: &[Weighed]) -> Option<usize> {
    if !heard.logp.is_finite() {
        return None;
    }
    let clearly = |w: &Weighed| {
        let (way, against) = (w.way, w.against);
        way.logp.is_finite()
            && against.logp.is_finite()
            && way.logp > heard.logp + MARGIN
            && way.logp > against.logp + MARGIN
            && way.per_token() > against.per_token() + MARGIN_PER_TOKEN
    };
    weighed
        .iter()
        .enumerate()
        .filter(|(_, w)| clearly(w))
        .max_by(|a, b| a.1.way.logp.total_cmp(&b.1.way.logp))
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(heard: &str, names: &[&str]) -> Vec<String> {
        alternatives(heard, &Lexicon::of_names(names)).into_iter().map(|a| a.text).collect()
    }

    fn slots(heard: &str, paths: &[&str]) -> Vec<String> {
        slot_alternatives(heard, paths).into_iter().map(|a| a.text).collect()
    }

    const TREE: [&str; 6] = [
        "Photos/old/a.jpg",
        "Podcasts/ep1.mp3",
        "Payslips/june.pdf",
        "Garden Plans/plan.md",
        "Flyers/misc/b.md",
        "todo.md",
    ];

    #[test]
    fn words_in_a_folders_place_that_name_nothing_are_weighed_as_the_folders_nearest_in_sound() {
        // What broke: "find duplicates in Photos" heard "Find duplicates in folders." looked in
        // the whole home folder; "in my payslips folder" heard "in my play slip folder".
        let ways = slots("Find duplicates in folders.", &TREE);
        assert_eq!(ways, ["Find duplicates in Flyers.", "Find duplicates in Photos."], "the two loosely like it");
        let ways = slots("Are there any duplicate files in my play slip folder?", &TREE);
        assert!(ways.contains(&"Are there any duplicate files in my Payslips folder?".to_string()), "{ways:?}");
        // Nested folders are folders too; files are not.
        let ways = slots("Scan the mist folder.", &TREE);
        assert!(ways.contains(&"Scan the misc folder.".to_string()), "{ways:?}");
        assert!(ways.iter().all(|w| !w.contains("todo") && !w.contains("plan.md")), "{ways:?}");
    }

    #[test]
    fn a_folders_place_holding_a_name_or_no_words_of_one_is_left_alone() {
        for heard in [
            // Heard right, or partly right: other passes put names right.
            "Find duplicates in Photos.",
            "Find duplicates in garden plans.",
            "Scan my Photos old folder.",
            "Read todo.md in Payslips",
            // No folder's place: the words after "in" do not end the request, a clause ends
            // before the slot, or it holds a function word.
            "Find duplicates in folders please and thanks",
            "Scan the, music folder",
            "What is in it?",
            "What is in the folder?",
            // Too short to weigh.
            "Scan in a.",
        ] {
            assert_eq!(slots(heard, &TREE), Vec::<String>::new(), "{heard}");
        }
        assert!(slots("Find duplicates in folders.", &["todo.md"]).is_empty(), "no folders, no candidates");
        // What broke (spoken test split): "… in Mixtakes." became "… in Pictures.", which
        // whisper weighed likelier than the folder it sounds like. Only folders about as near
        // in sound as names are weighed at all.
        let tree = ["Mixtapes/a.mp3", "Pictures/b.png", "Scans/c.pdf"];
        assert_eq!(slots("Find documents on Kayak in Mixtakes.", &tree), ["Find documents on Kayak in Mixtapes."]);
    }

    #[test]
    fn in_run_into_the_folder_that_ends_the_request_is_weighed_as_in_and_the_folder() {
        // What broke (spoken dev): "list the files in old in Photos" heard "List the file in
        // old info, don't." and "… in old info." scanned the home folder; "what's stale in
        // Payslips" heard "What stale impaise lives?" looked everywhere.
        let ways = slots("List the file in old info, don't.", &TREE);
        assert!(ways.contains(&"List the file in old in Photos.".to_string()), "{ways:?}");
        let ways = slots("List of files in old info.", &TREE);
        assert_eq!(ways, ["List of files in old in Photos."], "the folder cut short; no other starts so");
        let ways = slots("What stale impaise lives?", &TREE);
        assert!(ways.contains(&"What stale in Payslips?".to_string()), "{ways:?}");
        // One word or two may end the request after it; not three.
        assert!(slots("List the file in old info, don't, yes.", &TREE).is_empty());
    }

    #[test]
    fn a_word_opening_with_in_is_left_alone_where_no_folder_can_follow() {
        let tree = ["Docs/a.md", "Photos/b.png", "Inbox/c.txt", "Income/d.pdf"];
        for heard in [
            // After an article, a possessive or a word that says where, "in…" is a word, not
            // a place.
            "Rebuild the index.",
            "Scan my inbox.",
            "Send it to info.",
            // A command word, or a name that exists, is heard right.
            "Please reindex.",
            "Scan Inbox.",
            "Read income",
            // A clause ends before it, or nothing is left after the "in".
            "That is it. Info.",
            "Scan it in.",
        ] {
            assert_eq!(slots(heard, &tree), Vec::<String>::new(), "{heard}");
        }
    }

    #[test]
    fn names_that_sound_loosely_like_what_was_heard_are_offered() {
        // What broke: "misk" for the folder misc, and "tools letter.json" for newsletter.json,
        // too far for the transcript alone to put right.
        let names = ["misc", "Pictures", "newsletter.json", "journal.png", "resume.txt"];
        let misk = texts("List the files in misk in pictures.", &names);
        assert!(misk.contains(&"List the files in misc in pictures.".to_string()), "{misk:?}");
        let news = texts("Delete tools, letter.json.", &names);
        assert!(news.contains(&"Delete newsletter.json.".to_string()), "{news:?}");
        // A name written with underscores is offered as it is heard.
        let shop = texts("open shopping lust.docx", &["shopping_list.docx"]);
        assert!(shop.contains(&"open shopping list.docx".to_string()), "{shop:?}");
    }

    #[test]
    fn nothing_is_offered_where_no_name_could_have_been_said() {
        let names = ["rebuilt.log", "misc", "Pictures", "Letters", "roadmap.pdf", "summer"];
        for heard in [
            // A command word on its own is never a name.
            "rebuild the index",
            // Names heard as they are.
            "scan Pictures",
            "list the files in misc in pictures",
            // Function words and what follows an article or a subject.
            "what is in it",
            "replaced by a later version",
            "could you write up a patch",
            "",
        ] {
            assert_eq!(texts(heard, &names), Vec::<String>::new(), "{heard}");
        }
        // The verb a command opens with is not part of a name: "Hash docs" is not `inbox`.
        assert_eq!(texts("Hash docs slash notes dot txt.", &["inbox", "docs", "notes.txt"]), Vec::<String>::new());
        assert!(alternatives("scan misk", &Lexicon::default()).is_empty());
    }

    #[test]
    fn at_most_a_few_alternatives_the_nearest_first() {
        let names: Vec<String> = (0..40).map(|i| format!("notes{i}.txt")).chain(["nodes.txt".into()]).collect();
        let got = texts("read notes.txt", &names.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(got.len() <= MAX_ALTERNATIVES, "{got:?}");
        assert_eq!(got.first().map(String::as_str), Some("read nodes.txt"), "{got:?}");
    }

    #[test]
    fn a_misheard_slash_and_name_after_a_folder_are_offered_as_what_is_in_it() {
        let paths = ["Wallpapers/old", "Wallpapers/old/a.txt", "Pictures/misc", "Pictures/misc/x.txt", "notes.txt"];
        let texts =
            |heard: &str| -> Vec<String> { path_alternatives(heard, &paths).into_iter().map(|a| a.text).collect() };
        let old = texts("Draft, quarantine for Wallpapers, Ash Old.");
        assert!(old.contains(&"Draft, quarantine for Wallpapers, slash old.".to_string()), "{old:?}");
        let misc = texts("zip up, pictures, hash, move.");
        assert!(misc.contains(&"zip up, pictures, slash misc.".to_string()), "{misc:?}");
        // A path already said with its separator is left to the transcript's own reading; a
        // folder followed by no word like a separator, or no folder, offers nothing.
        assert!(texts("zip up pictures slash misk").is_empty());
        assert!(texts("scan the pictures folder").is_empty());
        assert!(texts("scan pictures and misc").is_empty());
        assert!(texts("hash notes.txt").is_empty());
        assert!(path_alternatives("scan pictures misc", &[] as &[&str]).is_empty());
    }

    fn w(logp: f32, tokens: u32) -> Weight {
        Weight { logp, tokens }
    }

    /// `ways` each compared with what was written (`heard`), as a way with no control is.
    fn against(heard: Weight, ways: &[Weight]) -> Vec<Weighed> {
        ways.iter().map(|&way| Weighed { way, against: heard }).collect()
    }

    #[test]
    fn an_alternative_is_taken_only_when_clearly_likelier_than_what_was_written() {
        let choose_of = |heard: Weight, ways: &[Weight]| choose(heard, &against(heard, ways));
        // misk → misc; tools, letter → newsletter.
        assert_eq!(choose_of(w(-15.1, 10), &[w(-11.6, 9), w(-14.6, 9)]), Some(0));
        assert_eq!(choose_of(w(-14.9, 8), &[w(-11.9, 7), w(-5.8, 6)]), Some(1));
        // Within the margin, what whisper wrote stands.
        assert_eq!(choose_of(w(-5.65, 7), &[w(-5.35, 7)]), None);
        assert_eq!(choose_of(w(-5.0, 5), &[w(-7.0, 5), w(-6.0, 5)]), None);
        // What broke: likelier in all only by being shorter — "mustered" taken for a name,
        // estimate (−22.8 in 12 tokens against −21.2 in 11), "any duets" for minutes.json's stem,
        // "Yes make nah-did." for "Yes minutes." (−26.4 in 8 against −19.0 in 4).
        assert_eq!(choose_of(w(-22.78, 12), &[w(-21.20, 11)]), None);
        assert_eq!(choose_of(w(-18.31, 10), &[w(-13.95, 8)]), None);
        assert_eq!(choose_of(w(-26.36, 8), &[w(-40.04, 8), w(-19.00, 4)]), None);
        assert_eq!(choose_of(w(-5.0, 5), &[]), None);
        assert_eq!(choose_of(w(f32::NAN, 5), &[w(-1.0, 5)]), None);
        assert_eq!(choose_of(w(-5.0, 5), &[w(f32::NAN, 5), w(-4.0, 5)]), Some(1));
    }

    /// What broke (spoken dev, "edit podcasts slash receipt dot txt so that cobalt becomes
    /// cedar" heard "Edit, Podcasts, hash receipt.txt, sonet, comma, becomes senior."): the
    /// likeliest way in all had also dropped the misheard "sonet" after the name, and failed
    /// the per-token margin by being shorter; the way that only put "slash" in passed both, and
    /// was not taken because it was not the likeliest in all.
    #[test]
    fn a_shorter_way_that_fails_the_margins_does_not_hide_one_that_passes_them() {
        let heard = w(-40.74, 19);
        let ways = [w(-39.10, 18), w(-39.40, 17), w(-51.83, 19), w(-38.20, 19), w(-64.02, 19), w(-37.07, 16)];
        assert_eq!(choose(heard, &against(heard, &ways)), Some(3));
    }

    #[test]
    fn a_way_is_compared_with_its_control_and_must_be_clearly_likelier_than_what_was_written() {
        let heard = w(-20.0, 9);
        // Clearly likelier than its control, and than what was written.
        let way = Weighed { way: w(-19.0, 8), against: w(-21.0, 8) };
        assert_eq!(choose(heard, &[way]), Some(0));
        // Clearly likelier than its control, but not clearly than what was written.
        let way = Weighed { way: w(-20.5, 8), against: w(-23.0, 8) };
        assert_eq!(choose(heard, &[way]), None);
        let way = Weighed { way: w(-19.6, 8), against: w(-23.0, 8) };
        assert_eq!(choose(heard, &[way]), None);
        // Likelier than what was written, not clearly than its control.
        let way = Weighed { way: w(-19.0, 8), against: w(-19.2, 8) };
        assert_eq!(choose(heard, &[way]), None);
        // A control that could not be weighed takes nothing.
        let way = Weighed { way: w(-10.0, 8), against: w(f32::NAN, 8) };
        assert_eq!(choose(heard, &[way]), None);
    }

    #[test]
    fn a_control_is_the_replaced_words_punctuated_as_the_name_put_in_their_place() {
        let paths = ["Photos/old", "Photos/old/a.txt"];
        let ways = path_alternatives("Scan, photos, hash, old.", &paths);
        let slash = ways.iter().find(|a| a.text == "Scan, photos, slash old.").unwrap();
        assert_eq!(slash.control.as_deref(), Some("Scan, photos, hash old."));
        // Words with no punctuation inside the run are their own control: none is weighed.
        let ways = alternatives("Delete tools letter.json.", &Lexicon::of_names(&["newsletter.json"]));
        let news = ways.iter().find(|a| a.text == "Delete newsletter.json.").unwrap();
        assert_eq!(news.control, None);
        let ways = alternatives("Delete tools, letter.json.", &Lexicon::of_names(&["newsletter.json"]));
        let news = ways.iter().find(|a| a.text == "Delete newsletter.json.").unwrap();
        assert_eq!(news.control.as_deref(), Some("Delete tools letter.json."));
    }
}
