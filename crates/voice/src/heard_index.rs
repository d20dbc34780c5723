//! Hearing a request to rebuild the search index.
//!
//! "Reindex" and "rebuild the index" are the requests a small recogniser hears worst, and it
//! hears them wrong the same few ways: "reindex everything" written "Read Index everything" or
//! "Read in next", "redo the library index" as "Read the library index", "rebuild the search
//! index" as "Reveal the search index" or "Review the index", "um rebuild the index" as "I'm
//! revealed in the index". Each reads as something else — a listing, a file to read, a search
//! with nothing to search for, or chatter — and weighing the opening against the audio
//! ([`crate::weighed_openings`]) does not mend them: whisper finds its own words likelier by
//! nats, since "read" and "review" are words it knows well and "reindex" one it barely does.
//!
//! What such a transcript has that the others lack is its object. The index is SMART's own,
//! not a file, and nothing of ours is read, reviewed or revealed except files. So a request
//! that opens with a word whisper writes for "rebuild", "redo" or "re-" ([`SOUNDS_LIKE_REBUILD`])
//! and whose object is the index — "the index", "the search index", "my whole library index",
//! with "in"/"of" whisper slipped in — is written as the request to rebuild it; and "read
//! index" (or "read in next" at a clause's end) anywhere is "reindex".
//!
//! What keeps it from inventing that request:
//! - the index must be the object: only a few words that describe it ([`DESCRIBING`]) may stand
//!   between the opening and "index"; "review the notes in the index" is left alone;
//! - an index followed by what to look for in it ("read the index for volcano", "… about
//!   taxes") is a search, and is left alone;
//! - a file or folder called `index` (an `index.html`, an `Index` folder) makes "read the
//!   index" mean it, so nothing is rewritten when the tree holds one;
//! - it runs only on heard requests: typed text is what the person meant.

use crate::heard_names::{Lexicon, bare};
use crate::weighed_names::clause_ends_inside;
use crate::weighed_openings::opening_at;

/// Words whisper writes where a request to rebuild opens: "rebuild" as "review", "reveal",
/// "revealed"; "redo" and "re-" as "read".
pub const SOUNDS_LIKE_REBUILD: &[&str] =
    &["read", "reads", "review", "reviews", "reviewed", "reveal", "reveals", "revealed", "redo", "rebuilt", "rebuild"];

/// Words that may describe the index between the opening and "index", including the "in",
/// "of", "up" and "do" whisper hears between them ("I'm revealed in the index", "Read of the
/// library index", "Read-up library index", "Read, do the library index" for redo).
pub const DESCRIBING: &[&str] = &[
    "the",
    "my",
    "a",
    "your",
    "our",
    "that",
    "this",
    "whole",
    "full",
    "entire",
    "search",
    "library",
    "file",
    "files",
    "document",
    "documents",
    "in",
    "of",
    "up",
    "do",
];

/// The words of [`DESCRIBING`] that whisper slipped in, which the request written leaves out.
const SLIPPED_IN: &[&str] = &["in", "of", "up", "do"];

/// Words after the index that say what to look for in it: a search, not a rebuild.
const LOOKING_FOR: &[&str] = &["for", "about", "on", "mentioning", "with"];

/// Words that may follow "read in next" when it is "reindex" said with what to reindex.
const REINDEX_OBJECTS: &[&str] = &["everything", "all", "please", "my", "the", "now"];

/// The transcript with a heard request to rebuild the index written as one; unchanged when
/// there is none or when `lexicon` holds a name called "index".
pub fn correct(transcript: &str, lexicon: &Lexicon) -> String {
    if lexicon.has_stem("index") {
        return transcript.to_string();
    }
    let heard: Vec<&str> = transcript.split_whitespace().collect();
    let joined = reindex_joined(&heard);
    let words: Vec<&str> = joined.iter().map(String::as_str).collect();
    match rebuild_span(&words) {
        Some((start, end, object)) => {
            let mut out: Vec<String> = words[..start].iter().map(|w| w.to_string()).collect();
            let verb = if words[start].starts_with(char::is_uppercase) { "Rebuild" } else { "rebuild" };
            out.push(verb.to_string());
            out.extend(object);
            let tail = words[end - 1].trim_start_matches(|c: char| !c.is_alphanumeric());
            let punctuation = tail.trim_start_matches(char::is_alphanumeric);
            out.push(format!("index{punctuation}"));
            out.extend(words[end..].iter().map(|w| w.to_string()));
            out.join(" ")
        }
        None if words == heard => transcript.to_string(),
        None => words.join(" "),
    }
}

/// `words` with "read index" and a clause-ending "read in next" joined into "reindex".
fn reindex_joined(words: &[&str]) -> Vec<String> {
    let mut out = vec![];
    let mut i = 0;
    while i < words.len() {
        let is = |at: usize, w: &str| words.get(at).is_some_and(|x| bare(x) == w);
        // "read" must end no clause of its own ("Read. Index…" is two things).
        let read_runs_on = is(i, "read") && !words[i].ends_with(['.', '?', '!', ';', ',']);
        let spelled = if read_runs_on && is(i + 1, "index") {
            Some(i + 2)
        } else if read_runs_on && in_next_at(words, i + 1) {
            Some(i + 3)
        } else {
            None
        };
        match spelled {
            Some(end) => {
                let verb = if words[i].starts_with(char::is_uppercase) { "Reindex" } else { "reindex" };
                let last = words[end - 1];
                let punctuation =
                    last.trim_start_matches(|c: char| !c.is_alphanumeric()).trim_start_matches(char::is_alphanumeric);
                out.push(format!("{verb}{punctuation}"));
                i = end;
            }
            None => {
                out.push(words[i].to_string());
                i += 1;
            }
        }
    }
    out
}

/// Whether `words[at..]` begins with "in next" said as "index": run on ("in, next" is two
/// things) and ending a clause or followed by what to reindex, not by what comes next ("in
/// next week's folder").
fn in_next_at(words: &[&str], at: usize) -> bool {
    let is = |i: usize, w: &str| words.get(i).is_some_and(|x| bare(x) == w);
    is(at, "in")
        && is(at + 1, "next")
        && words[at].chars().all(char::is_alphanumeric)
        && (words[at + 1].ends_with(['.', '?', '!', ';', ','])
            || words.get(at + 2).is_none_or(|w| REINDEX_OBJECTS.contains(&bare(w).as_str())))
}

/// Where a request to rebuild the index is heard: the opening's index, the end of the span
/// that ends on "index" (or "in next"), and the words that describe the index in between,
/// the "in", "of", "up" and "do" whisper slipped in left out. `None` when the request opens
/// otherwise or its object is not the index.
fn rebuild_span(words: &[&str]) -> Option<(usize, usize, Vec<String>)> {
    let start = opening_at(words)?;
    // "Read-up library index": the opening's first part is the verb, the rest describe.
    let opening = bare(words[start]);
    let mut parts = opening.split('-');
    let verb = parts.next().unwrap_or_default();
    let attached: Vec<&str> = parts.collect();
    if !SOUNDS_LIKE_REBUILD.contains(&verb)
        || words[start].ends_with(['.', '?', '!', ';'])
        || !attached.iter().all(|w| DESCRIBING.contains(w))
    {
        return None;
    }
    let mut object: Vec<String> = attached.iter().filter(|w| !SLIPPED_IN.contains(*w)).map(|w| w.to_string()).collect();
    let mut i = start + 1;
    while i < words.len() && i <= start + 5 {
        let w = bare(words[i]);
        let end = if w == "index" {
            i + 1
        } else if in_next_at(words, i) {
            i + 2
        } else if DESCRIBING.contains(&w.as_str()) && !words[i].ends_with(['.', '?', '!', ';']) {
            if !SLIPPED_IN.contains(&w.as_str()) {
                object.push(w);
            }
            i += 1;
            continue;
        } else {
            return None;
        };
        if clause_ends_inside(&words[start..end]) {
            return None;
        }
        let looks_for = words.get(end).is_some_and(|n| LOOKING_FOR.contains(&bare(n).as_str()));
        let clause_ended = words[end - 1].ends_with(['.', '?', '!', ';']);
        if looks_for && !clause_ended {
            return None;
        }
        return Some((start, end, object));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heard(t: &str) -> String {
        correct(t, &Lexicon::of_names(&["Photos", "agenda.jpg", "todo.md"]))
    }

    #[test]
    fn whisper_s_ways_of_writing_a_rebuild_are_the_request() {
        let cases = [
            ("Read Index everything.", "Reindex everything."),
            ("Do my full read index.", "Do my full reindex."),
            ("Read in next, solve my files.", "Reindex, solve my files."),
            ("Read the library index.", "Rebuild the library index."),
            ("Read of the library index.", "Rebuild the library index."),
            ("Review the index.", "Rebuild the index."),
            ("Reveal the search index", "Rebuild the search index"),
            ("I'm revealed in the index.", "I'm rebuild the index."),
            ("Review the library in next, please.", "Rebuild the library index, please."),
            ("um review the whole index please", "um rebuild the whole index please"),
            ("Read that library index.", "Rebuild that library index."),
            ("Read, do the library index.", "Rebuild the library index."),
            ("Read-up library index.", "Rebuild library index."),
        ];
        for (t, want) in cases {
            assert_eq!(heard(t), want, "{t}");
        }
    }

    #[test]
    fn anything_else_about_the_index_or_a_file_is_left_as_heard() {
        for t in [
            "Read the index for volcano.",
            "review the index about taxes",
            "Review the notes in the index.",
            "Query the index for mosaic.",
            "Are these still valid in the index?",
            "Read agenda.jpg.",
            "Read. Index the Photos.",
            "What's in the index?",
            "read in next week's folder",
            "Check if todo.md changed since indexing.",
            " Read the  notes.",
            "Read-me the index for taxes.",
            "Read, then index the Photos.",
            "",
        ] {
            assert_eq!(heard(t), t, "{t}");
        }
    }

    #[test]
    fn a_tree_with_an_index_file_keeps_read_the_index_as_that_file() {
        let lexicon = Lexicon::of_names(&["index.html", "Photos"]);
        assert_eq!(correct("Read the index.", &lexicon), "Read the index.");
        assert_eq!(correct("Read Index everything.", &lexicon), "Read Index everything.");
        let folder = Lexicon::of_names(&["Index"]);
        assert_eq!(correct("Review the index.", &folder), "Review the index.");
    }
}
