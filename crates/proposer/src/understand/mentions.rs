//! Which words of a reading name files and folders, and which entries each could be.
//!
//! Every run of up to six words is looked up in the [`Vocabulary`]; the longest, surest runs win
//! and never overlap ("band practice" is one folder, not a band and a practice). Then the
//! sentence's own structure narrows them: "soup.md in 2021" keeps only the soup.md inside a
//! folder called 2021 (and the folder is then context, not a second mention); "the Recipes
//! folder" prefers a folder, "the file budget" a file. Words that look like a file name but name
//! nothing ("rename budget.xlsx to keepsake.txt") are kept as *new* names, for destinations and
//! for a clear "I did not find …"; "that file", "it" and "there" point back to what the last
//! call was about.

use super::reading::Reading;
use super::vocab::{EntryKind, Match, Vocabulary};

/// One candidate entry for a mention.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub entry: usize,
    pub how: Match,
    pub score: f32,
}

#[derive(Clone, Debug, PartialEq)]
pub enum MentionKind {
    /// Names existing entries (best first).
    Existing(Vec<Candidate>),
    /// Looks like a path or file name but names nothing that exists.
    New(String),
    /// "it", "that file", "there": what the last call was about.
    Back,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Mention {
    /// Word range in the reading.
    pub start: usize,
    pub end: usize,
    pub kind: MentionKind,
    /// The words before it that say what it is for ("into", "to", "from", "in").
    pub preposition: Option<String>,
    /// "the X folder" / "the file X": what kind of entry the words ask for.
    pub wants: Option<EntryKind>,
}

impl Mention {
    pub fn candidates(&self) -> &[Candidate] {
        match &self.kind {
            MentionKind::Existing(c) => c,
            _ => &[],
        }
    }

    /// The single best candidate when it is clearly best (alone, or ahead by a match class).
    pub fn sure(&self) -> Option<usize> {
        match self.candidates() {
            [one] => Some(one.entry),
            [a, b, ..] if a.score > b.score + 0.04 => Some(a.entry),
            _ => None,
        }
    }
}

/// Whether any of `mentions` names a file or folder that exists.
pub fn names_existing(mentions: &[Mention]) -> bool {
    mentions.iter().any(|m| !m.candidates().is_empty())
}

const FUNCTION_WORDS: &[&str] = &[
    "a", "an", "the", "at", "in", "on", "to", "of", "and", "or", "is", "it", "my", "your", "this", "that", "for",
    "with", "from", "into", "its", "me", "what", "whats", "what's", "all", "i", "do", "does", "are", "be", "as", "by",
    "under", "inside", "over",
];

/// Words that say what to do: never a name on their own.
const COMMAND_WORDS: &[&str] = &[
    "scan",
    "list",
    "read",
    "hash",
    "search",
    "find",
    "move",
    "delete",
    "remove",
    "compress",
    "archive",
    "open",
    "show",
    "check",
    "note",
    "record",
    "store",
    "redirect",
    "rename",
    "purge",
    "zip",
    "apply",
    "patch",
    "edit",
    "copy",
    "quarantine",
    "trash",
    "bin",
    "print",
    "compact",
    "index",
    "rebuild",
    "remember",
    "fix",
    "change",
    "replace",
    "look",
    "put",
    "file",
    "save",
    "write",
    "erase",
    "validate",
    "verify",
    "assemble",
    "bundle",
];

/// "a rummage through Garden Plans" (a fifty-fourth author): "through", "throughout" and
/// "among" say where to look, as the search reads them.
const PREPOSITIONS: &[&str] = &[
    "in",
    "into",
    "to",
    "from",
    "under",
    "inside",
    "at",
    "as",
    "of",
    "for",
    "within",
    "onto",
    "over",
    "across",
    "through",
    "throughout",
    "among",
];

/// Words that end a new name when looking back from its extension ("rename budget.xlsx to final
/// version.txt" keeps "final version.txt"; "the old path X.pdf" keeps only "X.pdf").
const NOT_IN_A_NAME: &[&str] = &[
    "file",
    "files",
    "document",
    "folder",
    "path",
    "location",
    "called",
    "named",
    "redirect",
    "redirects",
    "map",
    "record",
    "write",
    "move",
    "moved",
    "rename",
    "renamed",
    "now",
    "was",
    "were",
    "be",
    "new",
    "then",
    "lives",
    "please",
    "hash",
    "read",
    "delete",
    "quarantine",
    "scan",
    "open",
    "put",
    "copy",
];

const DIR_NOUNS: &[&str] = &["folder", "folders", "directory", "directories", "dir", "drawer", "drawers"];

/// Words after a name that say nothing about it ("compress old now", "scan misc too"): the name
/// is still the folder's.
const NOT_DESCRIBED: &[&str] = &[
    "now", "too", "again", "first", "then", "instead", "please", "also", "yet", "today", "later", "anyway", "for",
    "and", "but", "so", "is", "are", "has", "have", "was", "were", "slash", "dot",
];
const FILE_NOUNS: &[&str] = &["file", "files", "document", "doc"];

/// Words that point back at what the last call named.
const BACK: &[&[&str]] = &[
    // "would you do the fingerprint business on that very same document thing?" (a thirtieth
    // author).
    &["that", "very", "same", "file"],
    &["that", "very", "same", "document"],
    &["this", "very", "same", "file"],
    &["this", "very", "same", "document"],
    &["that", "same", "document"],
    &["this", "same", "document"],
    &["the", "same", "document"],
    &["this", "same", "file"],
    &["that", "same", "file"],
    &["the", "same", "file"],
    &["that", "file"],
    &["this", "file"],
    // "in that text, replace copper with linen" (a twenty-ninth author).
    &["that", "text"],
    &["this", "text"],
    &["that", "document"],
    &["this", "document"],
    // "ok in that doc, change copper to linen" (a thirty-fourth author).
    &["that", "doc"],
    &["this", "doc"],
    // "Good. Now read that paper out to me." (a thirty-eighth author).
    &["that", "paper"],
    &["this", "paper"],
    &["the", "same", "paper"],
    // "Having reviewed the aforementioned document, kindly now generate its checksum" (a
    // forty-second author).
    &["the", "aforementioned", "document"],
    &["the", "aforementioned", "file"],
    &["the", "aforementioned", "folder"],
    &["the", "document", "in", "question"],
    &["the", "file", "in", "question"],
    &["the", "said", "document"],
    // "that hale folder wants tae go intae Garden Plans" (a forty-fourth author).
    &["that", "whole", "folder"],
    &["that", "entire", "folder"],
    &["that", "folder"],
    &["this", "folder"],
    &["the", "same", "folder"],
    &["that", "same", "folder"],
    &["this", "same", "folder"],
    // Not "the whole lot": "everything that's in my home folder, the whole lot" means all.
    &["the", "lot"],
    &["those", "files"],
    &["these", "files"],
    &["those"],
    // "Uy, so many archives. Check me which of these are duplicated" right after a listing (a
    // fifty-sixth author).
    &["these"],
    &["in", "there"],
    &["there"],
    &["it"],
    &["them"],
    &["that", "one"],
    // "join this one with changelog.docx" (a forty-eighth author).
    &["this", "one"],
];

/// Abbreviations written with a dot that no one means as a file ("…remains accurate, i.e. that
/// the document has not been altered" named a file "remains accurate i.e", a forty-second author).
const DOTTED_ABBREVIATIONS: &[&str] = &["i.e", "e.g", "a.m", "p.m", "n.b", "p.s", "a.k.a", "etc"];

fn looks_like_file_name(w: &str) -> bool {
    let w = w.trim_end_matches('/');
    if DOTTED_ABBREVIATIONS.contains(&w.trim_end_matches('.').to_lowercase().as_str()) {
        return false;
    }
    let name = w.rsplit('/').next().unwrap_or(w);
    match name.rsplit_once('.') {
        Some((stem, ext)) => {
            !stem.is_empty() && (1..=5).contains(&ext.len()) && ext.chars().all(|c| c.is_ascii_alphanumeric())
        }
        None => w.contains('/') && w.len() > 1,
    }
}

/// Finds the mentions in `r`.
pub fn find(r: &Reading, v: &Vocabulary) -> Vec<Mention> {
    let lower = r.lower();
    let n = lower.len();
    // Every span that names something, with its best score.
    let mut spans: Vec<(usize, usize, Vec<Candidate>)> = vec![];
    let plain: Vec<String> = r.words.iter().map(|w| super::cues::plain(w)).collect();
    let cue_phrases = super::cues::phrase_spans(&plain);
    for start in 0..n {
        for len in 1..=6.min(n - start) {
            let end = start + len;
            let (first, last) = (lower[start].as_str(), lower[end - 1].as_str());
            if FUNCTION_WORDS.contains(&first) || FUNCTION_WORDS.contains(&last) {
                continue;
            }
            let words = r.words[start..end].join(" ");
            let mut found = v.lookup(&words);
            // whisper glues the word before a name to it with a dot ("Read me the
            // content.resume.txt" for "the contents of resume.txt"): a name found nowhere, a
            // word before its first dot, and a name found after it.
            if found.is_empty()
                && len == 1
                && let Some((word, rest)) = words.split_once('.')
                && rest.contains('.')
                && word.chars().count() >= 3
                && word.chars().all(char::is_alphabetic)
            {
                found = v.lookup(rest);
            }
            if found.is_empty() {
                continue;
            }
            // A command word alone ("scan", "list") is the request, not a name, even when a
            // folder is called "Scans"; and one or two letters are no evidence of a name.
            let short = len == 1 && (words.chars().count() < 3 || COMMAND_WORDS.contains(&first));
            // "old versions", "out of date": one word of a request's own phrase is no name.
            if len == 1 && cue_phrases.iter().any(|(a, b)| *a <= start && start < *b) {
                continue;
            }
            // "a minute ago" is no mention of minutes.xlsx: a file's stem after "a" is the
            // everyday word (people say "the budget", or the name, for their files). So too
            // with one word between ("a bad idea" is no mention of ideas.docx).
            // "no idea", "any minute", "some notes" too: a determiner before the everyday word.
            let article =
                |i: usize| matches!(lower[i].as_str(), "a" | "an" | "no" | "any" | "some" | "another" | "every");
            // "the vicar's birthday", "my grandson's name": a word after someone's is theirs,
            // not a file's stem.
            let after_possessive =
                start > 0 && (lower[start - 1].ends_with("'s") || lower[start - 1].ends_with("’s")) && len == 1;
            // "the version the client has", with a folder called Clients: a plural folder's name
            // said in the singular after "the", and not as a folder ("the client folder"), is the
            // everyday word.
            let the_singular_of = |how: &Match| {
                len == 1
                    && *how == Match::Plural
                    && start > 0
                    && lower[start - 1] == "the"
                    && !first.ends_with('s')
                    && !lower.get(end).is_some_and(|next| DIR_NOUNS.contains(&next.as_str()))
            };
            let everyday = |how: &Match| {
                len == 1
                    && matches!(how, Match::Stem | Match::Plural)
                    && ((start > 0 && article(start - 1)) || (start > 1 && article(start - 2)) || after_possessive)
                    || the_singular_of(how)
            };
            // "keep the old recipes", "full of old holiday flyers": a nested folder's one-word
            // name said before a word it describes — a plain word that names nothing — is the
            // everyday word, not the folder ("scan old", "old in Letters" still name it).
            // The word after is looked at once per span, not once per candidate.
            let before_a_described_word = len == 1
                && first.chars().all(char::is_alphabetic)
                && lower.get(end).is_some_and(|next| {
                    next.chars().all(char::is_alphabetic)
                        && !FUNCTION_WORDS.contains(&next.as_str())
                        && !DIR_NOUNS.contains(&next.as_str())
                        && !NOT_DESCRIBED.contains(&next.as_str())
                        && v.lookup(next).is_empty()
                });
            // "or is it old?", "e don old" (Pidgin, "it has gone old"): a nested folder's
            // one-word name said after a verb of being is the everyday word.
            let after_being = len == 1
                && first.chars().all(char::is_alphabetic)
                && start > 0
                && matches!(
                    lower[start - 1].as_str(),
                    "is" | "are" | "was" | "were" | "has" | "be" | "looks" | "getting" | "gone" | "too" | "very" | "so"
                );
            let describes = |entry: usize| {
                (before_a_described_word || after_being) && v.entries.get(entry).is_some_and(|e| e.rel.contains('/'))
            };
            // "a fussy 5 year old", "two weeks old" (a forty-sixth author, with a folder called
            // old): an age, not the folder.
            let an_age = len == 1
                && start > 0
                && matches!(
                    lower[start - 1].as_str(),
                    "year" | "years" | "month" | "months" | "week" | "weeks" | "day" | "days"
                );
            let cands: Vec<Candidate> = found
                .into_iter()
                .filter(|(entry, how)| !short && !an_age && !everyday(how) && !describes(*entry))
                .map(|(entry, how)| Candidate { entry, how, score: how.weight() + 0.01 * len as f32 })
                .collect();
            if !cands.is_empty() {
                spans.push((start, end, cands));
            }
        }
    }
    // Longest first, then surest; no overlaps.
    spans.sort_by(|a, b| (b.1 - b.0).cmp(&(a.1 - a.0)).then(b.2[0].score.total_cmp(&a.2[0].score)).then(a.0.cmp(&b.0)));
    let mut taken = vec![false; n];
    let mut mentions: Vec<Mention> = vec![];
    for (start, end, cands) in spans {
        if taken[start..end].iter().any(|t| *t) {
            continue;
        }
        taken[start..end].iter_mut().for_each(|t| *t = true);
        mentions.push(Mention { start, end, kind: MentionKind::Existing(cands), preposition: None, wants: None });
    }
    // "the vacation folder": a word that names nothing on its own, said as a folder, may be the
    // start of one folder's name (see `Vocabulary::folder_begun_by`).
    for i in 0..n.saturating_sub(1) {
        let word = lower[i].as_str();
        if taken[i]
            || !DIR_NOUNS.contains(&lower[i + 1].as_str())
            || FUNCTION_WORDS.contains(&word)
            || COMMAND_WORDS.contains(&word)
        {
            continue;
        }
        if let Some(entry) = v.folder_begun_by(&r.words[i]) {
            taken[i] = true;
            let cand = Candidate { entry, how: Match::Begun, score: Match::Begun.weight() + 0.01 };
            mentions.push(Mention {
                start: i,
                end: i + 1,
                kind: MentionKind::Existing(vec![cand]),
                preposition: None,
                wants: None,
            });
        }
    }
    // Names that exist nowhere: kept as new names, with the words before them that are part of
    // the name ("old 2019.pdf", "Taxes/old 2019.pdf") — up to a word that cannot be. Right to
    // left, so a name's last word gathers the ones before it.
    for i in (0..n).rev() {
        if taken[i] || !looks_like_file_name(&r.words[i]) {
            continue;
        }
        let mut start = i;
        while start > 0
            && !taken[start - 1]
            && !r.words[start - 1].contains('.')
            && !NOT_IN_A_NAME.contains(&lower[start - 1].as_str())
            && !FUNCTION_WORDS.contains(&lower[start - 1].as_str())
            && !PREPOSITIONS.contains(&lower[start - 1].as_str())
        {
            start -= 1;
            if r.words[start].contains('/') {
                break;
            }
        }
        // A path's first folder may have spaces in its name: "Band Practice/scratch 2019.pdf"
        // reaches back over "Band" when "Band Practice" is a folder that exists.
        if let Some((head, _)) = r.words[start].split_once('/') {
            let reach = (start.saturating_sub(3)..start)
                .rev()
                .take_while(|k| !taken[*k] && !FUNCTION_WORDS.contains(&lower[*k].as_str()))
                .filter(|k| {
                    let folder = format!("{} {head}", r.words[*k..start].join(" "));
                    v.lookup(&folder).iter().any(|(e, _)| v.entries.get(*e).is_some_and(|e| e.kind == EntryKind::Dir))
                })
                .last();
            if let Some(k) = reach {
                start = k;
            }
        }
        taken[start..=i].iter_mut().for_each(|t| *t = true);
        let name = in_existing_folder_case(&r.words[start..=i].join(" "), v);
        mentions.push(Mention { start, end: i + 1, kind: MentionKind::New(name), preposition: None, wants: None });
    }
    // Words pointing back. Not the "there" of "there are some", "is there anything", which
    // says something exists, not where.
    let being = |w: Option<&String>| {
        w.is_some_and(|w| {
            matches!(
                w.as_str(),
                "is" | "are" | "was" | "were" | "be" | "been" | "isn't" | "aren't" | "wasn't" | "weren't"
            )
        })
    };
    let existential = |i: usize, b: &[&str]| {
        b == ["there"]
            && (being(lower.get(i + 1))
                || (i > 0 && being(lower.get(i - 1)) && lower.get(i + 1).is_some_and(|w| w != "too")))
    };
    // Nor the "it" that only props up a polite question or condition (a fifty-fourth author:
    // "would it be terribly inconvenient to plan moving …", "if it isn't too much bother",
    // "I'd appreciate it if …"), which points at nothing.
    let dummy = |i: usize, b: &[&str]| {
        let at = |k: usize| lower.get(k).map(String::as_str);
        let before = i.checked_sub(1).and_then(at);
        let burden = |w: &String| {
            matches!(w.as_str(), "bother" | "trouble" | "inconvenient" | "tiresome" | "possible" | "difficult")
        };
        b == ["it"]
            && ((matches!(before, Some("would" | "will" | "could" | "might" | "is"))
                && matches!(at(i + 1), Some("be" | "possible"))
                && lower[i + 1..].iter().take(5).any(burden))
                || (matches!(before, Some("appreciate" | "prefer")) && at(i + 1) == Some("if"))
                || (matches!(at(i + 1), Some("is" | "isn't" | "was" | "wasn't" | "would" | "wouldn't"))
                    && lower[i + 1..].iter().take(5).any(burden)))
    };
    let mut i = 0;
    while i < n {
        let hit = BACK.iter().find(|b| {
            i + b.len() <= n
                && lower[i..i + b.len()].iter().zip(b.iter()).all(|(x, y)| x == y)
                && !taken[i..i + b.len()].iter().any(|t| *t)
                && !existential(i, b)
                && !dummy(i, b)
        });
        match hit {
            Some(b) => {
                taken[i..i + b.len()].iter_mut().for_each(|t| *t = true);
                mentions.push(Mention {
                    start: i,
                    end: i + b.len(),
                    kind: MentionKind::Back,
                    preposition: None,
                    wants: None,
                });
                i += b.len();
            }
            None => i += 1,
        }
    }
    mentions.sort_by_key(|m| m.start);
    for m in &mut mentions {
        // "into the Recipes folder": the article sits between; "in the folder Taxes": the
        // article and the word for what it is.
        // "into the matter folder Garden Plans" (a forty-second author): a word that says what
        // kind of folder it is, right before the word for a folder.
        let between = |w: &str| matches!(w, "the" | "my" | "a" | "our") || DIR_NOUNS.contains(&w);
        let kind_of_folder = |q: usize| {
            q < m.start && DIR_NOUNS.contains(&lower[q].as_str()) && !FUNCTION_WORDS.contains(&lower[q - 1].as_str())
        };
        let mut p = m.start;
        while p > 0 && m.start - p < 3 && (between(lower[p - 1].as_str()) || kind_of_folder(p)) {
            p -= 1;
        }
        m.preposition = (p > 0)
            .then_some(p)
            .filter(|&q| PREPOSITIONS.contains(&lower[q - 1].as_str()))
            .map(|q| {
                // "inside of taxes" is inside it.
                if lower[q - 1] == "of" && q > 1 && lower[q - 2] == "inside" { "inside" } else { lower[q - 1].as_str() }
            })
            .map(str::to_string);
        let after = lower.get(m.end).map(String::as_str);
        let before = (m.start > 0).then(|| lower[m.start - 1].as_str());
        if after.is_some_and(|w| DIR_NOUNS.contains(&w)) || before.is_some_and(|w| DIR_NOUNS.contains(&w)) {
            m.wants = Some(EntryKind::Dir);
        } else if after.is_some_and(|w| FILE_NOUNS.contains(&w)) || before.is_some_and(|w| FILE_NOUNS.contains(&w)) {
            m.wants = Some(EntryKind::File);
        }
    }
    narrow_by_place(&mut mentions, &lower, v);
    for m in &mut mentions {
        let wants = m.wants;
        if let MentionKind::Existing(c) = &mut m.kind {
            for cand in c.iter_mut() {
                if wants.is_some_and(|k| v.entries.get(cand.entry).is_some_and(|e| e.kind != k)) {
                    cand.score -= 0.3;
                }
            }
            c.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.entry.cmp(&b.entry)));
        }
    }
    mentions
}

/// The reading with every surely named entry written as its path ("what does guest list dot md
/// say" → "what does guest_list.md say", "list the files in 2021 in Taxes" → "list the files in
/// Taxes/2021"): what a model is shown, so that a name reads as a name and not as words to act on.
///
/// A sentence's first word loses the capital it has only for being first ("What's the current
/// status?" as whisper writes it → "what's the current status"): the model's chance of a call
/// moved from 0.11 to the right call on that one capital, and typed requests rarely have it.
/// Names keep theirs (a name is a mention, written as the tree writes it), and so does a word
/// written in capitals inside ("WiFi", "PDF").
pub fn canonical(r: &Reading, mentions: &[Mention], v: &Vocabulary) -> String {
    let mut out: Vec<String> = vec![];
    let mut i = 0;
    while i < r.words.len() {
        match mentions.iter().find(|m| m.start == i).and_then(|m| m.sure().map(|e| (m, e))) {
            Some((m, e)) => {
                let entry = &v.entries[e];
                out.push(if entry.rel.is_empty() { entry.abs.clone() } else { entry.rel.clone() });
                i = m.end.max(i + 1);
            }
            None if out.is_empty() => {
                out.push(sentence_case_dropped(&r.words[i]));
                i += 1;
            }
            None => {
                out.push(r.words[i].clone());
                i += 1;
            }
        }
    }
    out.join(" ")
}

/// "What's" → "what's"; "WiFi", "PDFs", "I" and "Photos2" (not only letters after the first) stay.
/// A new name under a folder that exists, with the folder written as it exists: said in lower
/// case ("pictures slash scratch 2019 dot pdf", a file that moved away from `Pictures`), the
/// path must still lie in `Pictures` on a system that tells cases apart.
fn in_existing_folder_case(name: &str, v: &Vocabulary) -> String {
    let Some((folder, rest)) = name.rsplit_once('/') else { return name.to_string() };
    let existing = v.lookup(folder).into_iter().find_map(|(i, how)| {
        let e = v.entries.get(i)?;
        (how == Match::Path && e.kind == EntryKind::Dir && !e.rel.is_empty() && e.rel.len() == folder.len())
            .then(|| e.rel.trim_end_matches('/').to_string())
    });
    match existing {
        Some(folder) => format!("{folder}/{rest}"),
        None => name.to_string(),
    }
}

fn sentence_case_dropped(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first)
            if first.is_uppercase()
                && word.chars().count() > 1
                && chars.all(|c| c.is_lowercase() || c == '\'' || c == '’') =>
        {
            word.to_lowercase()
        }
        _ => word.to_string(),
    }
}

/// "X in Y" / "X from Y" / "X inside Y" where some of X's candidates lie under Y: X becomes
/// those, and Y — a place, not a thing to act on — is dropped.
fn narrow_by_place(mentions: &mut Vec<Mention>, lower: &[String], v: &Vocabulary) {
    let mut i = 0;
    while i + 1 < mentions.len() {
        let (a, b) = (&mentions[i], &mentions[i + 1]);
        let between: Vec<&str> = lower[a.end..b.start].iter().map(String::as_str).collect();
        let joined = matches!(
            between.as_slice(),
            ["in"]
                | ["in", "the"]
                | ["from"]
                | ["from", "the"]
                | ["inside"]
                | ["inside", "the"]
                | ["within"]
                | ["of"]
                | ["under"]
                | ["in", "my"]
                | ["from", "my"]
        );
        if joined {
            let places: Vec<usize> = b
                .candidates()
                .iter()
                .filter(|c| v.entries.get(c.entry).is_some_and(|e| e.kind == EntryKind::Dir))
                .map(|c| c.entry)
                .collect();
            let under: Vec<Candidate> =
                a.candidates().iter().filter(|c| places.iter().any(|p| v.is_under(c.entry, *p))).cloned().collect();
            if !under.is_empty() {
                let end = mentions[i + 1].end;
                let m = &mut mentions[i];
                m.kind = MentionKind::Existing(under);
                m.end = end;
                mentions.remove(i + 1);
                continue;
            }
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::super::reading::read;
    use super::super::vocab::EntryKind;
    use super::*;

    fn vocab() -> Vocabulary {
        let e = |rel, kind| (rel, kind);
        super::super::vocab::under_r(&[
            e("Band Practice", EntryKind::Dir),
            e("Recipes", EntryKind::Dir),
            e("Recipes/2021", EntryKind::Dir),
            e("Recipes/2021/soup.md", EntryKind::File),
            e("Taxes", EntryKind::Dir),
            e("Taxes/2021", EntryKind::Dir),
            e("shopping_list.md", EntryKind::File),
            e("budget.xlsx", EntryKind::File),
            e("Recipes/budget.md", EntryKind::File),
            e("Scans", EntryKind::Dir),
        ])
    }

    /// Each mention as the relative path of its best candidate (or the new name / "back").
    fn said(text: &str) -> Vec<String> {
        let v = vocab();
        find(&read(text), &v)
            .iter()
            .map(|m| match &m.kind {
                MentionKind::Existing(c) if m.sure().is_some() => v.entries[c[0].entry].rel.clone(),
                MentionKind::Existing(c) => {
                    format!("?{}", c.iter().map(|x| v.entries[x.entry].rel.clone()).collect::<Vec<_>>().join("|"))
                }
                MentionKind::New(w) => format!("new:{w}"),
                MentionKind::Back => "back".into(),
            })
            .collect()
    }

    #[test]
    fn an_it_that_props_up_a_polite_question_points_at_nothing() {
        // What broke (a fifty-fourth author): the last call's file was moved as well.
        assert_eq!(said("I'd appreciate it if you moved budget.xlsx into Scans"), vec!["budget.xlsx", "Scans"]);
        assert_eq!(
            said("plan moving budget.xlsx into Scans, would it be terribly inconvenient"),
            vec!["budget.xlsx", "Scans"]
        );
        assert_eq!(said("move budget.xlsx into Scans unless it is too much bother"), vec!["budget.xlsx", "Scans"]);
        // An "it" that is the thing still points back.
        assert_eq!(said("move it into Scans"), vec!["back", "Scans"]);
        assert_eq!(said("is it in Scans"), vec!["back", "Scans"]);
        assert_eq!(said("would it be a duplicate of budget.xlsx"), vec!["back", "budget.xlsx"]);
        assert_eq!(said("I'd prefer it in Scans"), vec!["back", "Scans"]);
    }

    #[test]
    fn a_folder_called_by_its_first_word_is_that_folder() {
        // What broke: "which files in vacation photos are exact copies" heard as "… in vacation
        // folder …" searched the whole working folder.
        assert_eq!(said("which files in the band folder are copies"), ["Band Practice"]);
        // Only before "folder", and not a command word.
        assert!(said("which files in band are copies").is_empty());
        assert_eq!(said("scan folder Recipes"), ["Recipes"]);
    }

    #[test]
    fn an_abbreviation_with_a_dot_is_no_file_and_the_aforementioned_one_points_back() {
        // What broke (a forty-second author): "…remains accurate, i.e. that the document has
        // not been altered" named a new file "remains accurate i.e", and "the aforementioned
        // document" pointed at nothing.
        assert_eq!(said("the record of budget.xlsx remains accurate, i.e. unchanged"), ["budget.xlsx"]);
        assert_eq!(said("e.g. the one in Recipes"), ["Recipes"]);
        assert_eq!(said("kindly generate the checksum of the aforementioned document"), ["back"]);
        assert_eq!(said("quarantine the document in question"), ["back"]);
    }

    #[test]
    fn names_are_found_whole_and_without_overlap() {
        assert_eq!(said("scan the band practice folder"), ["Band Practice"]);
        assert_eq!(said("read shopping list dot md"), ["shopping_list.md"]);
        assert_eq!(said("move budget.xlsx into Recipes"), ["budget.xlsx", "Recipes"]);
        assert_eq!(said("scan recipes slash 2021"), ["Recipes/2021"]);
        assert_eq!(said("rename budget.xlsx to keepsake.txt"), ["budget.xlsx", "new:keepsake.txt"]);
        // What broke: a gone path under a folder with a space lost the folder's first word.
        assert_eq!(
            said("write a redirect from Band Practice/scratch 2019.pdf to budget.xlsx"),
            ["new:Band Practice/scratch 2019.pdf", "budget.xlsx"]
        );
        assert_eq!(said("redirect Taxes/old 2019.pdf to budget.xlsx"), ["new:Taxes/old 2019.pdf", "budget.xlsx"]);
        // What broke: a gone path said in lower case kept it, and lay in a folder that is not there.
        assert_eq!(
            said("I moved recipes slash 2021 slash old stew dot md to budget.xlsx"),
            ["new:Recipes/2021/old stew.md", "budget.xlsx"]
        );
        assert_eq!(said("redirect taxes/old 2019.pdf to budget.xlsx"), ["new:Taxes/old 2019.pdf", "budget.xlsx"]);
        assert_eq!(said("redirect nowhere/old 2019.pdf to budget.xlsx"), ["new:nowhere/old 2019.pdf", "budget.xlsx"]);
        // The verb is not the folder "Scans".
        assert_eq!(said("scan taxes slash 2021"), ["Taxes/2021"]);
        assert_eq!(said("hash that file"), ["back"]);
        // What broke (a twenty-fifth author's): "I'm sure there are some" and "are there any
        // old copies …" pointed back at the last call's folder.
        assert_eq!(said("find duplicates in my working folder, I'm sure there are some"), Vec::<&str>::new());
        assert_eq!(said("are there any old copies in my main folder"), Vec::<&str>::new());
        assert_eq!(said("is there anything in there"), ["back"]);
        assert_eq!(said("put budget.xlsx in there"), ["budget.xlsx", "back"]);
        // What broke (heard): "Read me the content.resume.txt" named nothing.
        assert_eq!(said("read me the content.soup.md in 2021"), ["Recipes/2021/soup.md"]);
        // What broke (a tenth author's sentences): "the fingerprint of this same file" asked which.
        assert_eq!(said("compute the fingerprint of this same file"), ["back"]);
        // What broke (a thirtieth author): "that very same document thing" asked which file.
        assert_eq!(said("now would you do the fingerprint business on that very same document thing?"), ["back"]);
        assert_eq!(said("hash the same document"), ["back"]);
        // What broke: "I edited that file by hand a minute ago" was about minutes.xlsx.
        assert_eq!(said("I changed that file a budget ago"), ["back"]);
        // What broke (an eleventh author): "… is a bad idea" read ideas.docx.
        assert_eq!(said("coffee after 3am is a bad budget"), Vec::<&str>::new());
        // What broke (a thirteenth author's): "I got no idea what's in …" read ideas.docx.
        assert_eq!(said("I got no budget what's in recipes slash 2021"), ["Recipes/2021"]);
        assert_eq!(said("hash the budget"), ["?budget.xlsx|Recipes/budget.md"]);
        // What broke (a twenty-third and a twenty-fifth author): "… the version the client has"
        // was the folder Clients, and "the vicar's birthday" the file birthday.md.
        assert_eq!(said("hash budget.xlsx, to compare with the version the recipe has"), ["budget.xlsx"]);
        assert_eq!(said("remember that the vicar's budget is in march"), Vec::<&str>::new());
        assert_eq!(said("list the recipe folder"), ["Recipes"]);
        assert_eq!(said("what is in the recipes"), ["Recipes"]);
        assert_eq!(said("hash the shopping list"), ["shopping_list.md"]);
        // What broke: after a scan, "which of those are old versions?" and "… which ones in the
        // same folder are exactly the same" looked at the whole working folder.
        assert_eq!(said("which of those are old versions?"), ["back"]);
        // What broke (a fifty-sixth author): "which of these are duplicated" looked at the whole
        // working folder.
        assert_eq!(said("Check me which of these are duplicated, please."), ["back"]);
        assert_eq!(said("move these files into Scans"), ["back", "Scans"]);
        // What broke (authors-dev): with a folder called old, that folder.
        let v = super::super::vocab::under_r(&[("Letters", EntryKind::Dir), ("Letters/old", EntryKind::Dir)]);
        let found: Vec<Mention> = find(&read("which of those are old versions?"), &v);
        assert!(found.iter().all(|m| m.kind == MentionKind::Back), "{found:?}");
        assert!(matches!(find(&read("scan old"), &v)[0].kind, MentionKind::Existing(_)));
        // What broke (a thirteenth author's): "the old recipes" and "old holiday flyers" were
        // the folder; said before a word it describes, "old" is the everyday word.
        assert!(find(&read("should I keep the old recipes in one folder"), &v).is_empty());
        assert!(
            find(&read("Letters is full of old holiday flyers"), &v)
                .iter()
                .all(|m| m.end - m.start == 1 && m.start == 0)
        );
        assert!(matches!(find(&read("compress old now"), &v)[0].kind, MentionKind::Existing(_)));
        // What broke (a forty-eighth author): "or it has old?" asked which file.
        assert!(
            find(&read("so the index still get the correct thing for it, or it has old?"), &v)
                .iter()
                .all(|m| m.kind == MentionKind::Back)
        );
        assert!(matches!(find(&read("what is in old"), &v)[0].kind, MentionKind::Existing(_)));
        // What broke (a forty-sixth author): a child's age listed the folder.
        assert!(find(&read("what's a good packed lunch for a fussy 5 year old"), &v).is_empty());
        assert_eq!(find(&read("move old into Letters"), &v).len(), 2);
        assert_eq!(said("which ones in the same folder are the same"), ["back"]);
        // What broke (a twenty-seventh author): the whole working folder looked at, a question
        // which folder was meant.
        assert_eq!(said("and in that same folder are there any older drafts"), ["back"]);
        assert_eq!(said("squash the lot into an archive would you"), ["back"]);
        assert!(said("good morning").is_empty());
    }

    #[test]
    fn a_place_narrows_a_name_and_is_not_a_second_mention() {
        assert_eq!(said("list the files in 2021 in Taxes"), ["Taxes/2021"]);
        assert_eq!(said("read soup.md from 2021"), ["Recipes/2021/soup.md"]);
        // Two 2021s and nothing to tell them apart: both stay candidates.
        assert_eq!(said("scan 2021"), ["?Recipes/2021|Taxes/2021"]);
        // A file at the top moved "in" a folder: the folder is a destination, kept.
        assert_eq!(said("put shopping_list.md in the Recipes folder"), ["shopping_list.md", "Recipes"]);
    }

    /// What the model is shown for `text`.
    fn shown(text: &str) -> String {
        let v = vocab();
        let r = read(text);
        canonical(&r, &find(&r, &v), &v)
    }

    #[test]
    fn a_model_is_shown_names_as_they_are_written() {
        assert_eq!(shown("what does shopping list dot md say"), "what does shopping_list.md say");
        assert_eq!(shown("list the files in 2021 in Taxes"), "list the files in Taxes/2021");
        assert_eq!(shown("scan 2021 please"), "scan 2021", "two readings: left as said");
        assert_eq!(shown("good morning"), "good morning");
    }

    #[test]
    fn a_capital_that_only_starts_the_sentence_is_not_shown_to_the_model() {
        // What broke: whisper's "What's the current status?" got no call, typed lowercase did.
        assert_eq!(shown("What's the current status?"), "what's the current status");
        assert_eq!(shown("Scan the Recipes folder."), "scan the Recipes folder");
        // A name first keeps its capital; so do words with capitals inside and "I".
        assert_eq!(shown("Recipes slash 2021, what is in it"), "Recipes/2021 what is in it");
        assert_eq!(shown("WiFi password is kept where"), "WiFi password is kept where");
        assert_eq!(shown("I want the budget"), "I want the budget");
    }

    #[test]
    fn the_words_around_a_name_say_what_kind_it_is_and_what_it_is_for() {
        let v = vocab();
        let m = find(&read("move budget into the Recipes folder"), &v);
        assert_eq!(m[1].preposition.as_deref(), Some("into"));
        assert_eq!(m[1].wants, Some(EntryKind::Dir));
        // What broke (a tenth author's sentences): "in the folder taxes" asked where it should go.
        let put = find(&read("put budget.xlsx in the folder Recipes"), &v);
        assert_eq!(put[1].preposition.as_deref(), Some("in"));
        assert_eq!(put[1].wants, Some(EntryKind::Dir));
        let inside = find(&read("anything inside of taxes about orchid"), &v);
        assert_eq!(inside[0].preposition.as_deref(), Some("inside"));
        // "budget" is budget.xlsx or Recipes/budget.md: a stem either way, so not sure.
        assert_eq!(m[0].sure(), None);
        assert_eq!(said("hash budget.xlsx"), ["budget.xlsx"]);
    }
}
