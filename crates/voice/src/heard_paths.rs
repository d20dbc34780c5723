//! Hearing the paths that exist: a spoken path put right as a whole, against the tree.
//!
//! [`crate::heard_names`] mends one name at a time, and must be strict to do it safely: a
//! short name may differ from what was heard by no sound at all, because a whole folder tree's
//! worth of names are candidates and everyday words sound like many of them. A *path* says much
//! more. When a person says "Flyers slash summer slash playlist dot txt" and whisper writes
//! "Flyers/summary/playlist.txt", the first and last parts exist and pin the middle one down:
//! of everything in the tree, only the three-part paths under `Flyers` ending in `playlist.txt`
//! can be meant, and there is usually one. So a heard path that names nothing is compared, part
//! by part and by sound ([`crate::phonetic`]), with the existing paths of as many parts, and
//! becomes the one that is clearly nearest.
//!
//! What keeps it from inventing paths:
//! - at least one part must be heard exactly (up to case): a path made only of near-misses is
//!   left as heard, for a clear "I did not find …";
//! - every other part must be near its counterpart, by a bound that grows with its length (one
//!   sound more when it is the only part misheard);
//! - the nearest path must be nearer than the next one: a tie is not corrected;
//! - a path that exists as heard is never touched;
//! - a middle part whisper lost ("Clients slash, slash, wishlist.md", written `Clients//…` by
//!   [`crate::spoken`]) may be any part, but only one part, and only where the rest of the
//!   path leaves one path to mean.

use crate::phonetic::{code, distance};
use crate::spoken::same_but_plural;

/// At most this many words before and after the word holding the slash may belong to the path
/// ("Vacation Photos/beach day.png" is four words).
const SPREAD: usize = 3;

/// A path's parts as compared: lower case, with their sound codes.
struct Parts {
    lower: Vec<String>,
    codes: Vec<String>,
}

fn parts(path: &str) -> Parts {
    let lower: Vec<String> = path.split('/').map(|p| p.trim().to_lowercase()).collect();
    let codes = lower.iter().map(|p| code(p)).collect();
    Parts { lower, codes }
}

/// How many sound edits a part of `len` sounds may differ by when the rest of its path holds it
/// in place: one up to seven sounds, then one more every seven.
fn allowed(len: usize) -> usize {
    1 + len / 7
}

/// How far `heard` is from `existing`, part by part, if every part is near enough and at least
/// one is exact. A part that is the only one misheard may be one sound further off: everything
/// else about the path is as said ("folder/spring/tax-return.md" for `Photos/spring/…`).
fn path_distance(heard: &Parts, existing: &Parts) -> Option<usize> {
    if heard.lower.len() != existing.lower.len() {
        return None;
    }
    // A part heard without its plural holds its path in place as one heard exactly does.
    let misheard: Vec<usize> =
        (0..heard.lower.len()).filter(|&i| !same_but_plural(&heard.lower[i], &existing.lower[i])).collect();
    if misheard.len() == heard.lower.len() {
        return None;
    }
    let lone = usize::from(misheard.len() == 1);
    let mut total = 0;
    for i in misheard {
        // A part whisper lost between two slashes is any part the rest of the path allows.
        if heard.lower[i].is_empty() {
            total += 1;
            continue;
        }
        let (h, e) = (&heard.codes[i], &existing.codes[i]);
        if h.is_empty() || e.is_empty() {
            return None;
        }
        total += distance(h, e, allowed(e.len()) + lone)?;
    }
    Some(total)
}

/// The existing path `heard` stands for, when one is clearly nearest.
fn nearest<'a>(heard: &str, existing: &'a [(String, Parts)]) -> Option<(&'a str, usize)> {
    let h = parts(heard);
    let lost = h.lower.iter().filter(|p| p.is_empty()).count();
    let end_lost = h.lower.first().is_some_and(String::is_empty) || h.lower.last().is_some_and(String::is_empty);
    if h.lower.len() < 2 || lost > 1 || end_lost {
        return None;
    }
    let mut best: Option<(&str, usize)> = None;
    let mut tie = false;
    for (written, p) in existing {
        let Some(d) = path_distance(&h, p) else { continue };
        match best {
            // The same path under two roots is one answer, not a tie.
            Some((bw, bd)) if d == bd && !bw.eq_ignore_ascii_case(written) => tie = true,
            Some((_, bd)) if d == bd => {}
            Some((_, bd)) if d > bd => {}
            _ => {
                best = Some((written, d));
                tie = false;
            }
        }
    }
    best.filter(|_| !tie)
}

fn trim(w: &str) -> &str {
    w.trim_end_matches([',', '.', '?', '!', ';', ':'])
}

/// `transcript` with every "hash" said between two words, other than where the request opens,
/// written "slash", and the pause whisper wrote before it dropped: "Flyers slash misc slash
/// birthday dot md" is heard "Flyers, hash, miss, hash, birthday.md" often enough. `None` when
/// no such "hash" is there. Which of the two hearings holds is for the tree to say
/// ([`paths_named`]): a "hash" is a slash only where it joins parts of a path that exists.
pub fn hash_as_slash(transcript: &str) -> Option<String> {
    let words: Vec<&str> = transcript.split_whitespace().collect();
    let opening = crate::weighed_openings::opening_at(&words);
    let joins = |i: usize| {
        Some(i) != opening
            && i > 0
            && i + 1 < words.len()
            && crate::heard_names::bare(words[i]) == "hash"
            && !words[i - 1].ends_with(['.', '?', '!', ';'])
            && !words[i].ends_with(['.', '?', '!', ';'])
    };
    let at: Vec<usize> = (0..words.len()).filter(|&i| joins(i)).collect();
    if at.is_empty() {
        return None;
    }
    let out: Vec<String> = words
        .iter()
        .enumerate()
        .map(|(i, w)| match () {
            _ if at.contains(&i) => "slash".to_string(),
            _ if at.contains(&(i + 1)) => w.trim_end_matches(',').to_string(),
            _ => w.to_string(),
        })
        .collect();
    Some(out.join(" "))
}

/// How many of `paths` (relative, `/`-separated) of two parts or more `request` names.
pub fn paths_named<S: AsRef<str>>(request: &str, paths: &[S]) -> usize {
    let lower = request.to_lowercase();
    paths
        .iter()
        .map(|p| p.as_ref().trim_matches('/').to_lowercase())
        .filter(|p| p.contains('/') && lower.contains(p.as_str()))
        .count()
}

/// `request` with every path that names nothing, but is clearly one of `paths` (relative paths
/// that exist, `/`-separated), written as that path.
pub fn correct<S: AsRef<str>>(request: &str, paths: &[S]) -> String {
    let words: Vec<&str> = request.split_whitespace().collect();
    if paths.is_empty() || !words.iter().any(|w| trim(w).contains('/')) {
        return request.to_string();
    }
    let existing: Vec<(String, Parts)> =
        paths.iter().map(|p| p.as_ref().trim_matches('/').to_string()).map(|p| (p.clone(), parts(&p))).collect();
    let exists = |s: &str| existing.iter().any(|(_, p)| p.lower.join("/") == s.to_lowercase());
    let mut out: Vec<String> = vec![];
    // Words before this one were put right as part of a path: a run never reaches back past it.
    let mut floor = 0;
    let mut i = 0;
    while i < words.len() {
        let w = trim(words[i]);
        let is_path = w.contains('/') && !w.starts_with('/') && !w.ends_with('/');
        if !is_path || exists(w) {
            i += 1;
            out.push(words[i - 1].to_string());
            continue;
        }
        // The nearest path over every run of words around this one; the longest such run wins
        // among equally near ones ("Payslips/crash 2019.pdf" rather than "Payslips/crash").
        let mut chosen: Option<(usize, usize, &str, usize)> = None;
        for start in i.saturating_sub(SPREAD).max(floor)..=i {
            for end in i + 1..=(i + 1 + SPREAD).min(words.len()) {
                let run: Vec<&str> = words[start..end].iter().map(|w| trim(w)).collect();
                // A run may not cross a clause's end inside it.
                if words[start..end - 1].iter().any(|w| w.ends_with([',', '.', '?', '!', ';'])) {
                    continue;
                }
                if let Some((path, d)) = nearest(&run.join(" "), &existing) {
                    let better = match chosen {
                        None => true,
                        Some((s, e, _, cd)) => d < cd || (d == cd && end - start > e - s),
                    };
                    if better {
                        chosen = Some((start, end, path, d));
                    }
                }
            }
        }
        match chosen {
            Some((start, end, path, _)) => {
                // Words of the run already written out are replaced too.
                out.truncate(out.len() - (i - start));
                let tail: String = words[end - 1].chars().rev().take_while(|c| matches!(c, ',' | '?' | '!')).collect();
                out.push(format!("{path}{}", tail.chars().rev().collect::<String>()));
                i = end;
                floor = end;
            }
            None => {
                out.push(words[i].to_string());
                i += 1;
            }
        }
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const TREE: &[&str] = &[
        "Flyers",
        "Flyers/summer",
        "Flyers/summer/playlist.txt",
        "Flyers/summer/meeting notes.csv",
        "Payslips",
        "Payslips/scratch 2019.pdf",
        "Payslips/guest_list.zip",
        "Taxes/finished/roadmap.jpg",
        "Vacation Photos/beach day.png",
        "Photos/spring/minutes.csv",
        "Photos/summer/minutes.csv",
        "Photos/sprang/minutes.csv",
        "Clients/raw/ideas.jpg",
        "Clients/raw/wishlist.md",
    ];

    #[test]
    fn a_misheard_part_between_parts_that_exist_is_put_right() {
        for (heard, want) in [
            // What broke: the middle folder heard as a near word, the request then refused.
            ("open Flyers/summary/playlist.txt and show me", "open Flyers/summer/playlist.txt and show me"),
            (
                "set up a redirect for Payslips/crash 2019.pdf, pointing to Payslips/guest_list.zip",
                "set up a redirect for Payslips/scratch 2019.pdf, pointing to Payslips/guest_list.zip",
            ),
            ("hash flyers/summer/playlist.text", "hash Flyers/summer/playlist.txt"),
            ("read Vacation Photos/beach dey.png", "read Vacation Photos/beach day.png"),
            ("is Taxes/finish/roadmap.jpg current?", "is Taxes/finished/roadmap.jpg current?"),
            // Two parts misheard, each near: still the one path.
            ("read Fliers/summary/playlist.txt", "read Flyers/summer/playlist.txt"),
            // The one misheard part may be a little further off when the rest is exact.
            (
                "make a context pack from folder/spring/minutes.csv",
                "make a context pack from Photos/spring/minutes.csv",
            ),
            // What broke: a folder heard without its plural held nothing in place, so
            // "budget/crash 2019.pdf" stayed a path that names nothing.
            ("the document payslip/crash 2019.pdf moved", "the document Payslips/scratch 2019.pdf moved"),
            ("read flyer/summer/playlist.txt", "read Flyers/summer/playlist.txt"),
            // What broke: a short middle folder heard as a function word, or not heard at all
            // ("client slash or slash ideas.jpg", "client slash, slash, wishlist.md").
            ("is client/or/ideas.jpg still accurate", "is Clients/raw/ideas.jpg still accurate"),
            ("change it in client//wishlist.md", "change it in Clients/raw/wishlist.md"),
        ] {
            assert_eq!(correct(heard, TREE), want, "{heard}");
        }
    }

    #[test]
    fn paths_that_exist_or_are_not_clear_are_left_as_heard() {
        for heard in [
            // Exists (case aside): untouched.
            "read Flyers/summer/playlist.txt",
            "read flyers/summer/playlist.txt",
            // Nothing exact to hold it in place.
            "read Fliers/summary/playlists.txt",
            // Two equally near: spring and sprang sound alike.
            "read Photos/sprung/minutes.csv",
            // Far from anything.
            "move Flyers/winter/playlist.txt",
            // Two parts misheard: neither gets the lone part's extra sound.
            "zip up folder/screen",
            // No path at all, or a new name under a folder that exists.
            "scan the Flyers folder",
            "move it to Flyers/autumn notes.txt",
            // A lost part that three folders could fill, or more than one part lost.
            "read Photos//minutes.csv",
            "read Flyers///playlist.txt",
        ] {
            assert_eq!(correct(heard, TREE), heard);
        }
        assert_eq!(correct("read a/b", &[] as &[&str]), "read a/b");
    }

    #[test]
    fn the_same_path_under_two_roots_is_not_a_tie() {
        let twice = ["Flyers/summer/playlist.txt", "Flyers/summer/playlist.txt"];
        assert_eq!(correct("read Flyers/summary/playlist.txt", &twice), "read Flyers/summer/playlist.txt");
    }

    #[test]
    fn hash_between_two_words_may_be_a_slash() {
        assert_eq!(
            hash_as_slash("quote. Flyers, hash, miss, hash, birthday.md, and todo.md").as_deref(),
            Some("quote. Flyers slash miss slash birthday.md, and todo.md")
        );
        // Where the request opens, "hash" is what to do; at a clause's edge it joins nothing.
        assert_eq!(hash_as_slash("Hash Flyers/birthday.md."), None);
        assert_eq!(hash_as_slash("um hash todo.md"), None);
        assert_eq!(hash_as_slash("Read it. Hash todo.md"), None);
        assert_eq!(hash_as_slash("todo.md hash"), None);
    }

    #[test]
    fn a_request_names_the_paths_it_holds() {
        let paths = ["Flyers", "Flyers/misc", "Flyers/misc/birthday.md", "todo.md"];
        assert_eq!(paths_named("bundle Flyers/misc/birthday.md and todo.md", &paths), 2);
        assert_eq!(paths_named("bundle Flyers hash miss hash birthday.md", &paths), 0);
    }
}
