//! A name or a word corrected in the same breath: "compress Pictures no hold on Band Practice",
//! "the invoices should be in Letters no wait not that one Wallpapers", "swap octopus for
//! moonlight no actually make it linen".
//!
//! People talking while they work say the first name that comes to mind and put it right
//! without starting over. Everything after reading takes every name in the sentence as meant:
//! the first folder was compressed, both folders were searched, "moonlight no actually" became
//! the replacement. What the person wants is the sentence as it would have been said had they
//! not slipped — the corrected name in the place of the first one.
//!
//! The rule: a phrase that corrects ([`CORRECTIONS`], not inside a name) follows a name with at
//! most a filler word or two between, and after it (past "not that one", "I mean", "make it" …)
//! comes another name: the words from the first name up to the second go. A preposition said
//! again ("into Letters, no wait, into Pictures") goes with them. A word that is no name is
//! corrected only when the person says it replaces one ("… for moonlight no actually make it
//! linen"): the word before the phrase goes. Anything else — "hold on to the originals", "sorry,
//! scan Photos" — is left as said; a request taken back whole is [`super::retracted`]'s.

use super::cues::plain;
use super::mentions::{Mention, MentionKind};
use super::reading::Reading;

/// Phrases that put right what was said just before them, as lower-case words.
pub const CORRECTIONS: &[&str] = &[
    "no wait",
    "wait no",
    "no no",
    "no hang on",
    "hang on",
    "no hold on",
    "hold on",
    "no actually",
    "actually no",
    "i mean",
    "i meant",
    "or rather",
    "no sorry",
    "sorry",
    "correction",
    "wait",
    // Last, and only before a name: "to Blueprints, ah no, to Band Practice".
    "no",
];

/// Words after the phrase that only lead up to the correction.
const LEAD_UPS: &[&str] = &[
    "not", "that", "this", "one", "the", "other", "i", "mean", "meant", "make", "it", "sorry", "actually", "rather",
    "just", "no", "wait", "it's", "its", "is", "was",
];

/// Lead-ups that say the next word replaces the word before the phrase ("make it linen").
const REPLACES: &[&[&str]] = &[&["make", "it"], &["make", "that"], &["i", "mean"], &["i", "meant"], &["it's"]];

/// Words that may stand between a name and the phrase ("in Pictures folder no wait …").
/// Also the words of a guess ("summary.md I think, no, wait, it was Letters/newsletter.txt").
const BETWEEN: &[&str] =
    &["folder", "file", "directory", "one", "please", "i", "think", "guess", "believe", "suppose", "reckon"];

/// Prepositions said again before the corrected name.
const PREPOSITIONS: &[&str] = &["in", "into", "to", "under", "inside", "from", "on", "onto", "of"];

/// How many words may stand between a name and a phrase that corrects it when they are not
/// filler words: "check Wallpapers for identical documents, oh no, sorry, I mean Band Practice".
const FAR: usize = 5;

/// The sentence with what was put right left out, or `None` when nothing was corrected.
pub fn corrected(reading: &Reading, mentions: &[Mention]) -> Option<String> {
    let lower: Vec<String> = reading.words.iter().map(|w| plain(w)).collect();
    let named: Vec<&Mention> = mentions.iter().filter(|m| m.kind != MentionKind::Back).collect();
    let covered = |i: usize| named.iter().any(|m| m.start <= i && i < m.end);
    // Every slip put right, in the order said; one that overlaps an earlier one is not taken.
    let mut drops: Vec<(usize, usize)> = vec![];
    for at in 0..lower.len() {
        let Some(len) = phrase_at(&lower, at, &covered) else { continue };
        let after = at + len;
        // Past the lead-up: what the correction says.
        let mut next = after;
        while next < lower.len() && LEAD_UPS.contains(&lower[next].as_str()) && !covered(next) {
            next += 1;
        }
        // "no actually make it linen": somewhere in the lead-up, words that say it replaces.
        let replaces = REPLACES.iter().any(|r| {
            (after..next).any(|s| r.iter().enumerate().all(|(k, w)| lower.get(s + k).is_some_and(|l| l == w)))
        });
        let again = lower.get(next).filter(|w| PREPOSITIONS.contains(&w.as_str()) && !covered(next)).map(|_| next);
        let name_at = again.map_or(next, |p| p + 1);
        let corrects_name = named.iter().any(|m| m.start == name_at);
        // The name (or word) just before the phrase.
        let mut before = at;
        while before > 0 && BETWEEN.contains(&lower[before - 1].as_str()) && !covered(before - 1) {
            before -= 1;
        }
        // The first name's own preposition goes when the person says one again ("into Letters,
        // no wait, into Pictures").
        let from_of = |m: &Mention| match again {
            Some(_) if m.start > 0 && PREPOSITIONS.contains(&lower[m.start - 1].as_str()) => m.start - 1,
            _ => m.start,
        };
        let bare_no = len == 1 && lower[at] == "no";
        let span = if corrects_name {
            named
                .iter()
                .find(|m| m.end == before)
                .map(|m| (from_of(m), again.unwrap_or(next)))
                // "into archive, no wait, into notes", the first word no name of ours: the same
                // preposition said again marks what it replaces.
                .or_else(|| {
                    again
                        .filter(|&p| before >= 2 && lower[before - 2] == lower[p] && !covered(before - 1))
                        .map(|p| (before - 2, p))
                })
                // Words between the name and the phrase ("… Wallpapers for identical documents,
                // oh no, sorry, I mean Band Practice"): they stay; the name goes, and so does
                // the phrase. Only the nearest name, a few words back, in the same place in the
                // request (the same preposition before both, or none: "put a.txt somewhere, no
                // wait, into notes" corrects "somewhere", not the file); never for a bare "no".
                .or_else(|| {
                    let m = named.iter().filter(|m| m.end < before && before - m.end <= FAR).max_by_key(|m| m.end)?;
                    let its_preposition =
                        m.start.checked_sub(1).map(|p| lower[p].as_str()).filter(|w| PREPOSITIONS.contains(w));
                    let same_place = its_preposition == again.map(|p| lower[p].as_str());
                    let from = from_of(m);
                    (!bare_no && same_place && drops.last().is_none_or(|&(_, end)| end <= from)).then(|| {
                        drops.push((from, m.end));
                        (at, next)
                    })
                })
        } else if replaces && !bare_no && before > 0 && !covered(before - 1) && next < lower.len() && !covered(next) {
            Some((before - 1, next))
        } else if let Some(p) = Some(next).filter(|&p| {
            !bare_no
                && at > 0
                && broke_off(reading, at - 1)
                && lower.get(p).is_some_and(|w| PREPOSITIONS.contains(&w.as_str()) || RESTARTED.contains(&w.as_str()))
        }) {
            // "search my stuff for — LEO. sorry. for beekeeping things" (a forty-sixth author,
            // calling to a child mid-sentence): the same preposition said again a few words
            // back, with no name between, starts the phrase over.
            (at.saturating_sub(RESTART)..at)
                .rev()
                .find(|&q| lower[q] == lower[p] && !(q..at).any(&covered))
                .map(|q| (q, p))
        } else {
            None
        };
        if let Some((from, to)) = span
            && drops.last().is_none_or(|&(_, end)| end <= from)
        {
            drops.push((from, to));
        }
    }
    if drops.is_empty() {
        return None;
    }
    let dropped = |i: usize| drops.iter().any(|&(from, to)| from <= i && i < to);
    let words: Vec<&str> =
        reading.words.iter().enumerate().filter(|(i, _)| !dropped(*i)).map(|(_, w)| w.as_str()).collect();
    Some(words.join(" "))
}

/// Whether the person broke off after the word at `i`: a comma, or a sentence's end.
fn broke_off(reading: &Reading, i: usize) -> bool {
    reading.ends.get(i).copied().unwrap_or(false) || reading.pauses.get(i).copied().unwrap_or(false)
}

/// Words besides [`PREPOSITIONS`] that, said again, start a phrase over ("for", "about").
const RESTARTED: &[&str] = &["for", "about", "with"];

/// How many words back a preposition said again may start a phrase over.
const RESTART: usize = 4;

/// The length of a correcting phrase that starts at `at` outside every name, the longest first.
fn phrase_at(lower: &[String], at: usize, covered: &dyn Fn(usize) -> bool) -> Option<usize> {
    CORRECTIONS
        .iter()
        .map(|p| p.split(' ').collect::<Vec<_>>())
        .filter(|parts| {
            parts.iter().enumerate().all(|(k, p)| lower.get(at + k).is_some_and(|l| l == p) && !covered(at + k))
        })
        .map(|parts| parts.len())
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::understand::reading::read;

    /// Mentions at the given word ranges (the names a tree would hold).
    fn with_names(s: &str, names: &[(usize, usize)]) -> Option<String> {
        let mentions: Vec<Mention> = names
            .iter()
            .map(|&(start, end)| Mention {
                start,
                end,
                kind: MentionKind::New("x".into()),
                preposition: None,
                wants: None,
            })
            .collect();
        corrected(&read(s), &mentions)
    }

    #[test]
    fn a_name_put_right_replaces_the_first() {
        // What broke: the first folder was compressed.
        assert_eq!(
            with_names("compress Pictures no hold on Lectures is the old one compress that", &[(1, 2), (5, 6)])
                .as_deref(),
            Some("compress Lectures is the old one compress that")
        );
        // What broke: both folders were read, and a search ran in the first.
        assert_eq!(
            with_names("look in Pictures no hang on Lectures and tell me which docs are older", &[(2, 3), (6, 7)])
                .as_deref(),
            Some("look in Lectures and tell me which docs are older")
        );
        assert_eq!(
            with_names(
                "should be in Letters no wait not that one Wallpapers show me what's inside",
                &[(3, 4), (9, 10)]
            )
            .as_deref(),
            Some("should be in Wallpapers show me what's inside")
        );
    }

    #[test]
    fn every_slip_is_put_right() {
        assert_eq!(
            with_names(
                "move Letters no wait Pictures into Lectures sorry Wallpapers",
                &[(1, 2), (4, 5), (6, 7), (8, 9)]
            )
            .as_deref(),
            Some("move Pictures into Wallpapers")
        );
    }

    #[test]
    fn a_name_said_as_a_guess_and_put_right_is_replaced() {
        // What broke (a twenty-seventh author): the first, guessed name was read.
        assert_eq!(
            with_names(
                "a letter I typed, summary.md I think, no, wait, it was Letters/newsletter.txt. Show me it",
                &[(4, 5), (11, 12)]
            )
            .as_deref(),
            Some("a letter I typed Letters/newsletter.txt Show me it")
        );
    }

    #[test]
    fn a_bare_no_between_two_names_puts_the_first_right() {
        // What broke (an eighteenth author): "ah no" (a filler and "no") was no correction, and
        // the plan moved to both folders.
        assert_eq!(
            with_names(
                "I am wanting playlist.json to go to Blueprints, ah no, to Band Practice",
                &[(3, 4), (7, 8), (10, 12)]
            )
            .as_deref(),
            Some("I am wanting playlist.json to go to Band Practice")
        );
        // "of" is said again as "into" is: "the scan of Wallpapers… no sorry, of Band Practice".
        assert_eq!(
            with_names("do the scan of the folder Wallpapers... no sorry, of Band Practice", &[(6, 7), (10, 12)])
                .as_deref(),
            Some("do the scan of the folder of Band Practice")
        );
        // A bare "no" corrects a name only: before a word it is an answer or a word of its own.
        assert_eq!(with_names("swap cat for dog no make it fish in notes.txt", &[(8, 9)]), None);
        assert_eq!(with_names("is there anything in Letters no one has opened", &[(4, 5)]), None);
    }

    #[test]
    fn a_name_put_right_a_few_words_later_replaces_the_nearest_name() {
        // What broke (a nineteenth author): words between the name and the correction, so the
        // first folder was searched.
        assert_eq!(
            with_names(
                "check Wallpapers for identical documents, oh no, sorry, I mean Band Practice, the other section",
                &[(1, 2), (10, 12)]
            )
            .as_deref(),
            Some("check for identical documents oh Band Practice the other section")
        );
        // Not further back than a few words, and never for a bare "no".
        assert_eq!(
            with_names(
                "look in Pictures and tell me which of the old drafts are stale sorry Lectures",
                &[(2, 3), (13, 14)]
            ),
            None
        );
        assert_eq!(with_names("check Wallpapers for identical documents no Band Practice", &[(1, 2), (6, 8)]), None);
    }

    #[test]
    fn a_preposition_said_again_goes_with_the_first_name() {
        assert_eq!(
            with_names("move notes.txt into Letters, no wait, into Pictures", &[(1, 2), (3, 4), (7, 8)]).as_deref(),
            Some("move notes.txt into Pictures")
        );
    }

    #[test]
    fn a_place_said_again_replaces_a_word_that_names_nothing() {
        // "archive" is a word of the compaction's, no name: the preposition said again marks it.
        assert_eq!(
            with_names("move inbox/a.txt into archive, no wait, into notes", &[(1, 2), (7, 8)]).as_deref(),
            Some("move inbox/a.txt into notes")
        );
        // Not without it: "compress Photos hold on to the originals" is left alone above.
        assert_eq!(with_names("put inbox/a.txt somewhere no wait into notes", &[(1, 2), (6, 7)]), None);
    }

    #[test]
    fn a_word_said_to_replace_another_replaces_it() {
        // What broke: the replacement became "moonlight no actually".
        assert_eq!(
            with_names("swap the word octopus for moonlight no actually make it linen", &[]).as_deref(),
            Some("swap the word octopus for linen")
        );
    }

    #[test]
    fn a_preposition_said_again_after_breaking_off_starts_the_phrase_over() {
        // What broke (a forty-sixth author): the search was for "— LEO".
        assert_eq!(
            with_names("search my stuff for — LEO. sorry. for beekeeping things", &[]).as_deref(),
            Some("search my stuff for beekeeping things")
        );
        // No break before the phrase: said on, not over.
        assert_eq!(with_names("search for cats and wait for the results", &[]), None);
    }

    #[test]
    fn anything_else_is_left_as_said() {
        // No name before the phrase, or none after it.
        assert_eq!(with_names("sorry, can you scan Photos", &[(4, 5)]), None);
        assert_eq!(with_names("compress Photos but hold on to the originals", &[(1, 2)]), None);
        assert_eq!(with_names("move notes.txt into Letters no wait forget it", &[(1, 2), (3, 4)]), None);
        // A word replaced only when the person says it replaces one.
        assert_eq!(with_names("change octopus to moonlight wait linen", &[]), None);
        // The phrase inside a name is a name.
        assert_eq!(with_names("scan hold on.txt", &[(1, 3)]), None);
        assert_eq!(with_names("", &[]), None);
    }
}
