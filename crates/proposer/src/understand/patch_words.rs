//! The words a patch replaces, as the file has them.
//!
//! [`super::args`] takes the words to find and the words to put instead from the sentence's
//! shape ("replace A with B", "A should be B"), and a sentence says more than the edit: "okay so
//! I wrote tuesday in shopping list dot t x t but it should say orange, make me a fix" reads as
//! find "I wrote tuesday", replace "orange make me a fix", and a patch that looks for words the
//! file does not hold is refused when it is made. The file is the closed vocabulary of the
//! first half: what to find must be in it. So once a patch is chosen, its find is the longest
//! run of the said words that the file holds (spelt as the file spells it, a later run winning
//! a tie, since the words nearest "should say" are the ones meant). Both halves end where the
//! sentence turns back to the request ("…, make me a fix", "… please", "… but don't apply it
//! yet": [`before_request`], used by [`super::args`] as it reads them).
//! Words the file does not hold at all are left as said: the patch tool's refusal then names
//! them, which is the clearest answer there is.

/// Words after which the rest of a replacement is the request again, not the new text.
const REQUEST_TAIL: &[&str] = &[
    "please",
    "kindly",
    "pls",
    "plz",
    "thanks",
    "thank",
    "make",
    "draft",
    "don't",
    "dont",
    "just",
    "but",
    "instead",
    "okay",
    "ok",
    "without",
    "can",
    "could",
    "would",
    "so",
    "that's",
    "thats",
    "which",
    "because",
    "since",
    "prepare",
    "preparing",
    "only",
    "do",
    "let",
    "let's",
    "write",
    // "… with linen? No, forgive me, I mean …": a correction, whose own words are not the text.
    "no",
];

/// Where `needle` occurs in `hay` ignoring ASCII case, at word boundaries: the byte range in
/// `hay`. ASCII folding keeps every byte where it is, so the range is `hay`'s own (letters
/// outside ASCII then compare as written).
fn find_words(hay: &str, folded_hay: &str, needle: &str) -> Option<(usize, usize)> {
    let needle = needle.to_ascii_lowercase();
    if needle.is_empty() {
        return None;
    }
    let boundary = |i: usize| hay[..i].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
    let boundary_after = |j: usize| hay[j..].chars().next().is_none_or(|c| !c.is_alphanumeric());
    let mut from = 0;
    while let Some(k) = folded_hay[from..].find(&needle) {
        let (i, j) = (from + k, from + k + needle.len());
        if boundary(i) && boundary_after(j) {
            return Some((i, j));
        }
        from = i + needle.chars().next().map_or(1, char::len_utf8);
    }
    None
}

/// Words that are no edit by themselves: a run of only these is never the find.
const SMALL_WORDS: &[&str] = &["the", "a", "an", "of", "to", "in", "on", "and", "or", "is", "it", "my", "that", "this"];

/// The find as the file has it: the whole phrase if the file holds it (with the file's
/// spelling when only the case differs), else the longest run of its words the file holds, a
/// later run winning a tie; `None` when the file holds none of the words (a run of only small
/// words like "the" does not count).
pub fn fit_find(find: &str, text: &str) -> Option<String> {
    let folded = text.to_ascii_lowercase();
    if find_words(text, &folded, find).is_some_and(|(i, j)| &text[i..j] == find) {
        return Some(find.to_string());
    }
    let words: Vec<&str> = find.split_whitespace().collect();
    for len in (1..=words.len()).rev() {
        for start in (0..=words.len() - len).rev() {
            let run = words[start..start + len].join(" ");
            let run = run.trim_matches(|c: char| !c.is_alphanumeric());
            let only_small = run.split_whitespace().all(|w| SMALL_WORDS.contains(&w.to_ascii_lowercase().as_str()));
            if only_small {
                continue;
            }
            if let Some((i, j)) = find_words(text, &folded, run) {
                return Some(text[i..j].to_string());
            }
        }
    }
    None
}

/// Said words up to where the sentence turns back to the request: cut at a comma or a
/// [`REQUEST_TAIL`] word, as long as some of them are left ("orange, make me a fix" → "orange",
/// "seventeen but don't apply it yet" → "seventeen").
pub fn before_request(said: &str) -> String {
    let mut kept: Vec<&str> = vec![];
    let words: Vec<&str> = said.split_whitespace().collect();
    let end = words.len() - pointing_back_tail(&words);
    // "change that tae linen fur me" (a forty-fourth author): whom it is done for is no part
    // of the words.
    let end = match words[..end] {
        [.., _, f, who] if plain(f) == "for" && matches!(plain(who).as_str(), "me" | "us") => end - 2,
        _ => end,
    };
    for (i, &w) in words[..end].iter().enumerate() {
        let plain_w = plain(w);
        if !kept.is_empty() && REQUEST_TAIL.contains(&plain_w.as_str()) {
            break;
        }
        // "linen - prepare the redline" (a forty-second author): a dash on its own ends them.
        if !kept.is_empty() && plain_w.is_empty() && w.chars().all(|c| matches!(c, '-' | '–' | '—')) {
            break;
        }
        // "linen and I'll sign off on the patch after my 1:1" (a thirty-fourth author): a
        // new clause with its own subject is no part of the words.
        if !kept.is_empty()
            && matches!(plain_w.as_str(), "and" | "so" | "then")
            && words.get(i + 1).is_some_and(|n| CLAUSE_SUBJECTS.contains(&plain(n).as_str()))
        {
            break;
        }
        // "it should say bronze the client corrected me", "… linen she said" (a fifty-second
        // author, dictating): a clause of the person's own, run on without a comma, opens on a
        // subject and a verb in the past (or of thinking) — no part of the words.
        if !kept.is_empty() && runs_on_into_a_clause(&words[i..end]) {
            break;
        }
        // "bronze fix it", "linen right it up" (a thirty-sixth author, dictating): a verb of
        // editing with the file as its object turns back to the request.
        if !kept.is_empty()
            && EDITING.contains(&plain_w.as_str())
            && words.get(i + 1).is_some_and(|n| matches!(plain(n).as_str(), "it" | "that" | "this" | "them"))
        {
            break;
        }
        // "it should say bronze, set up a fix for it" (a fifty-seventh author): a verb of
        // making said with its particle turns back to the request.
        if !kept.is_empty()
            && matches!(plain_w.as_str(), "set" | "sort" | "whip" | "knock" | "put")
            && words.get(i + 1).is_some_and(|n| matches!(plain(n).as_str(), "up" | "out" | "together"))
        {
            break;
        }
        // A comma, or the end of a sentence or clause ("nineteen; a scribal error of my own").
        if let Some(before) = w.strip_suffix([',', ';', '?', '!']) {
            kept.push(before);
            break;
        }
        kept.push(w);
    }
    kept.join(" ")
}

/// Whether `rest` opens on a clause of its own: a subject ("she", "the client", "my boss") and
/// then a verb of saying, correcting or thinking ("corrected", "said", "think"). Not any verb:
/// "the book my father wrote", "the day we agreed" are the new words, a thing and what was
/// done to it.
fn runs_on_into_a_clause(rest: &[&str]) -> bool {
    let past_or_thinking = |w: Option<&&str>| {
        w.map(|w| plain(w)).is_some_and(|w| {
            matches!(
                w.as_str(),
                "said"
                    | "says"
                    | "told"
                    | "corrected"
                    | "asked"
                    | "mentioned"
                    | "noticed"
                    | "reminded"
                    | "insisted"
                    | "think"
                    | "thinks"
                    | "reckons"
                    | "reckon"
            )
        })
    };
    let first = rest.first().map(|w| plain(w)).unwrap_or_default();
    let pronoun = CLAUSE_SUBJECTS.contains(&first.as_str()) || matches!(first.as_str(), "he" | "she");
    let determiner = matches!(first.as_str(), "the" | "my" | "our" | "his" | "her" | "their");
    (pronoun && past_or_thinking(rest.get(1))) || (determiner && rest.len() >= 3 && past_or_thinking(rest.get(2)))
}

/// A said word as the cut points compare it: lower case, without the punctuation around it.
fn plain(w: &str) -> String {
    w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'').to_lowercase()
}

/// Verbs of editing that, before "it" or "that", ask for the change rather than say its words
/// ("right" is how dictation writes "write").
const EDITING: &[&str] =
    &["fix", "change", "correct", "update", "edit", "amend", "patch", "sort", "right", "swap", "replace", "redo"];

/// The subjects that open a clause of the person's own after "and" or "so".
const CLAUSE_SUBJECTS: &[&str] =
    &["i", "i'll", "i'm", "i've", "i'd", "we", "we'll", "we're", "you", "you'll", "you're", "they", "they'll"];

/// Words that point back at the file being changed, at the end of what was said ("change
/// copper to linen in that file", "… in it", "… in there"): no part of the new words. Their
/// length, when some words are said before them.
fn pointing_back_tail(words: &[&str]) -> usize {
    let Some(at) = words.iter().rposition(|w| matches!(plain(w).as_str(), "in" | "inside" | "within")) else {
        return 0;
    };
    let rest: Vec<String> = words[at + 1..].iter().map(|w| plain(w)).collect();
    let points = match rest.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["it" | "there" | "here"] => true,
        ["that" | "this" | "the" | "said", thing] => {
            matches!(*thing, "file" | "document" | "doc" | "one" | "note" | "notes" | "text")
        }
        _ => false,
    };
    if points && at > 0 { words.len() - at } else { 0 }
}

/// A patch's words to find fitted to the file's text: as said when the file holds none of them.
pub fn fit(find: &str, text: &str) -> String {
    fit_find(find, text).unwrap_or_else(|| find.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIST: &str = "milk\nbread\nTuesday: eggs, flour\nsecond-hand books\n";

    #[test]
    fn words_pointing_back_at_the_file_are_no_part_of_the_new_text() {
        // What broke (a twenty-seventh author): "Please change copper to linen in that file."
        // after "Ah, there it is." replaced copper with "linen in that file".
        assert_eq!(before_request("linen in that file."), "linen");
        assert_eq!(before_request("linen in it"), "linen");
        assert_eq!(before_request("dinner in the garden"), "dinner in the garden");
        assert_eq!(before_request("in it"), "in it");
        // What broke (a fifty-seventh author): "bronze set up a fix for it" was the new text.
        assert_eq!(before_request("bronze set up a fix for it"), "bronze");
        assert_eq!(before_request("linen sort out the change"), "linen");
        assert_eq!(before_request("the set list"), "the set list");
    }

    #[test]
    fn the_find_is_the_longest_run_of_said_words_the_file_holds() {
        // What broke: "I wrote tuesday in shopping list dot t x t but it should say orange".
        assert_eq!(fit_find("I wrote tuesday", LIST).as_deref(), Some("Tuesday"));
        assert_eq!(fit_find("milk", LIST).as_deref(), Some("milk"));
        assert_eq!(fit_find("the eggs, flour", LIST).as_deref(), Some("eggs, flour"));
        assert_eq!(fit_find("second-hand", LIST).as_deref(), Some("second-hand"));
        // Only whole words: "read" is inside "bread", not in the file.
        assert_eq!(fit_find("read", LIST), None);
        assert_eq!(fit_find("granite", LIST), None);
        // A tie goes to the later words.
        assert_eq!(fit_find("milk and bread", LIST).as_deref(), Some("bread"));
    }

    #[test]
    fn the_words_end_where_the_request_comes_back() {
        assert_eq!(before_request("orange make me a fix"), "orange");
        assert_eq!(before_request("cedar, just as a patch, don't apply it yet"), "cedar");
        assert_eq!(before_request("squid can you draft that change"), "squid");
        assert_eq!(before_request("seventeen but don't apply it yet"), "seventeen");
        assert_eq!(before_request("salt and pepper"), "salt and pepper");
        // What broke (a fifty-second author, dictating): a clause of her own run on.
        assert_eq!(before_request("bronze the client corrected me"), "bronze");
        assert_eq!(before_request("linen she said"), "linen");
        assert_eq!(before_request("the blue vase"), "the blue vase");
        assert_eq!(before_request("the book my father wrote"), "the book my father wrote");
        assert_eq!(before_request("the day we agreed"), "the day we agreed");
        assert_eq!(before_request("the red coat"), "the red coat");
        assert_eq!(before_request("friday please"), "friday");
        // What broke: "… but should be cedar. draft the fix, don't apply yet" replaced with
        // "cedar draft the fix".
        assert_eq!(before_request("cedar draft the fix"), "cedar");
        assert_eq!(before_request("please"), "please");
        // What broke (a tenth author's sentences): "… to nineteen in pictures/birthday.md. Only
        // prepare it, don't apply." replaced with "nineteen Only prepare it".
        assert_eq!(before_request("nineteen Only prepare it"), "nineteen");
        assert_eq!(before_request("linen Please prepare the correction for me"), "linen");
        // What broke (a twenty-second author's): a semicolon, a question and "no" went on.
        assert_eq!(before_request("nineteen; a scribal error of my own"), "nineteen");
        assert_eq!(before_request("linen? No, forgive me"), "linen");
        assert_eq!(before_request("linen No forgive me the other is quite innocent"), "linen");
    }

    #[test]
    fn words_the_file_does_not_hold_are_kept_as_said() {
        assert_eq!(fit("granite", LIST), "granite");
        // A run of small words alone is not an edit the file holds.
        assert_eq!(fit("the old address", "the milk"), "the old address");
    }

    #[test]
    fn text_outside_ascii_neither_panics_nor_shifts_the_words() {
        // What the review found: lower-casing "ẞ" and "İ" moves bytes, and a byte range of the
        // lower-cased text cut the original inside a character.
        let text = "ẞẞ\ntuesday İİ café";
        assert_eq!(fit("tuesday", text), "tuesday");
        assert_eq!(fit("the Café", text), "café");
        assert_eq!(fit("TUESDAY", text), "tuesday");
    }
}
