//! A transcript as a request: file names said aloud put back the way they are written.
//!
//! People say "quarantine old dot log" and "scan docs slash reports"; whisper writes those
//! words, or sometimes "old.log", or "Old.log." with a sentence's capital and full stop. The
//! proposers — phrase templates and the model — were built for typed requests. So before a
//! transcript is proposed on, the few spoken spellings of paths are joined back ("dot" between
//! a name and a short extension, "slash" between two names), pauses heard as commas and the
//! sentence's closing punctuation are dropped, and a heard name that matches exactly one
//! existing name up to case, plural or extension becomes that name. Two more of whisper's
//! spellings are read back: a command verb written as one word ("throwaway"), and a number
//! written in the parts it was said in ("4500 12" for 4512).
//!
//! It is deterministic and conservative: "dot" only joins a word to a 1–5 character
//! alphanumeric extension and neither joins a function word ("a slash at the end"), so
//! "connect the dots" or "dot your i's" are left alone.
//! The transcript itself is kept as heard; only the proposers see this form.

/// The request a transcript stands for; `names` are the names that exist where the person
/// works (see [`snap`]).
pub fn as_request(transcript: &str, names: &[String]) -> String {
    let joined = join_spoken_paths(&docx_heard_as_dot_dot(transcript));
    // Commas in a transcript are whisper's reading of pauses, not part of the request: "what
    // is in the report, folder" is a question about the report folder.
    let words: Vec<String> = joined
        .split(' ')
        .map(|w| w.trim_end_matches([',', ';']))
        .filter(|w| !w.is_empty())
        .map(once_extension)
        .collect();
    let words = (0..words.len())
        .map(|i| if used_as_a_name(&words, i) { snap(&words[i], names) } else { words[i].clone() })
        .collect();
    into_heard_as_until(numbers_said_in_parts(words), names).join(" ")
}

/// Whether the word at `i` may be a name: any word but a command word, and a command word only
/// where the sentence uses it as one — after an article or preposition ("in scans", "the list")
/// or before "folder"/"file". A command word anywhere else is the request itself: "Scan,
/// holiday." must not become "Scans holiday" because a folder is called `Scans` (what broke:
/// fifteen spoken "scan …" requests in one eval scanned `Scans`, the typed ones never did).
fn used_as_a_name(words: &[String], i: usize) -> bool {
    let lower = |j: usize| words.get(j).map(|w| trim_punct(w).to_lowercase());
    let Some(word) = lower(i) else { return false };
    if !crate::command_words::is_command_word(&word) {
        return true;
    }
    let before_is_function_word = i > 0 && lower(i - 1).is_some_and(|w| FUNCTION_WORDS.contains(&w.as_str()));
    let after_is_a_noun =
        lower(i + 1).is_some_and(|w| matches!(w.as_str(), "folder" | "folders" | "directory" | "file" | "files"));
    before_is_function_word || after_is_a_noun
}

/// whisper writes a number said in words in the parts it was said in: "four thousand five
/// hundred twelve" comes out "4500 12", "4,500-12" or "4,500 and 12". A round number followed
/// by one smaller than its round part is one number ("the locker code is 4512").
fn numbers_said_in_parts(words: Vec<String>) -> Vec<String> {
    fn value(w: &str) -> Option<u64> {
        let digits = w.replace(',', "");
        let grouped_ok = w.split(',').skip(1).all(|g| g.len() == 3);
        (grouped_ok && !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) && !digits.starts_with('0'))
            .then(|| digits.parse().ok())
            .flatten()
    }
    // The part a round number leaves free: 4500 takes up to 99 after it, 4000 up to 999.
    fn joins(round: u64, rest: u64) -> bool {
        let free = if round.is_multiple_of(1000) { 1000 } else { 100 };
        round >= 100 && round.is_multiple_of(100) && rest > 0 && rest < free
    }
    let mut out: Vec<String> = vec![];
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        let core = trim_punct(w);
        // "4,500-12" in one word.
        if let Some((a, b)) = core.split_once('-')
            && let (Some(round), Some(rest)) = (value(a), value(b))
            && joins(round, rest)
        {
            out.push(format!("{}{}", round + rest, trailing(w)));
            i += 1;
            continue;
        }
        if let Some(round) = value(core).filter(|_| trailing(w).is_empty()) {
            let skip = usize::from(words.get(i + 1).is_some_and(|n| n == "and"));
            if let Some(next) = words.get(i + 1 + skip)
                && let Some(rest) = value(trim_punct(next))
                && joins(round, rest)
            {
                out.push(format!("{}{}", round + rest, trailing(next)));
                i += 2 + skip;
                continue;
            }
        }
        out.push(w.clone());
        i += 1;
    }
    out
}

/// whisper hears "into" after a name as "until" ("move diary.csv until vacation photos"):
/// "until" straight after a file name or an existing name is "into" — nothing is moved "until"
/// a folder. Anywhere else ("wait until noon") it stays.
fn into_heard_as_until(mut words: Vec<String>, names: &[String]) -> Vec<String> {
    for i in 1..words.len() {
        let prev = trim_punct(&words[i - 1]);
        let named = names.iter().any(|n| n == prev)
            || prev.rsplit_once('.').is_some_and(|(stem, ext)| !stem.is_empty() && is_extension(ext));
        if named && words[i].eq_ignore_ascii_case("until") && i + 1 < words.len() {
            words[i] = "into".to_string();
        }
    }
    words
}

/// A small whisper sometimes repeats the extension it just wrote, as it repeats any short
/// pattern ("roadmap.md.md.", "a.png.md.md.md"): the repeats are one.
fn once_extension(word: &str) -> String {
    let core = word.trim_end_matches(['.', '!', '?']);
    let end = &word[core.len()..];
    let mut parts: Vec<&str> = core.split('.').collect();
    let extension = |p: &str| (1..=5).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphabetic());
    while parts.len() > 2
        && extension(parts[parts.len() - 1])
        && parts[parts.len() - 1].eq_ignore_ascii_case(parts[parts.len() - 2])
    {
        parts.pop();
    }
    format!("{}{end}", parts.join("."))
}

/// whisper drops capitals and plurals ("the download folder" for `Downloads`). A heard word
/// that names nothing, but matches exactly one existing name up to case and a final "s", or
/// is exactly one file's name without its extension, is that name. Function words and words under three letters are never snapped.
pub fn snap(word: &str, names: &[String]) -> String {
    let core = trim_punct(word);
    if core.len() < 3 || FUNCTION_WORDS.contains(&core.to_lowercase().as_str()) || names.iter().any(|n| n == core) {
        return word.to_string();
    }
    // "the report's folder": a possessive is whisper's spelling, not part of the name.
    let w = core.to_lowercase();
    let w = w.strip_suffix("'s").filter(|s| s.len() >= 3).map_or(w.clone(), str::to_string);
    let matches: Vec<&String> = names
        .iter()
        .filter(|n| {
            let n = n.to_lowercase();
            // A file said without its extension ("hash notes" for notes.txt) is its stem.
            let stem = n.rsplit_once('.').map_or(n.as_str(), |(s, _)| s);
            // "contact.csv" for contacts.csv: the plural dropped before the extension.
            let plural_before_extension =
                w.rsplit_once('.').zip(n.rsplit_once('.')).is_some_and(|((sw, ew), (sn, en))| {
                    ew == en && !sw.is_empty() && !sn.is_empty() && same_but_plural(sw, sn)
                });
            same_but_plural(&w, &n) || (stem != n && stem == w) || plural_before_extension
        })
        .collect();
    match matches.as_slice() {
        [only] => word.replacen(core, only, 1),
        _ => word.to_string(),
    }
}

/// Two words that differ by no more than a final "s": whisper drops plurals ("the download
/// folder" for `Downloads`, "budget slash agenda.md" for `Budgets/agenda.md`).
pub(crate) fn same_but_plural(heard: &str, existing: &str) -> bool {
    heard == existing || existing.strip_suffix('s') == Some(heard) || heard.strip_suffix('s') == Some(existing)
}

fn join_spoken_paths(transcript: &str) -> String {
    let words = spoken_separators_apart(transcript);
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let mut out: Vec<String> = vec![];
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        let lower = trim_punct(w).to_lowercase();
        // A pause before "slash" or "dot" is whisper's comma, not the end of the name:
        // "Garden Plans, slash scanned".
        if (lower == "slash" || lower == "dot")
            && let Some(last) = out.last_mut()
            && last.ends_with(',')
            && is_name(last.trim_end_matches(','))
        {
            let name = last.trim_end_matches(',').to_string();
            *last = name;
        }
        // whisper sometimes hears the pause before an extension as a full stop: "old. log".
        if let Some(next) = words.get(i + 1)
            && w.ends_with('.')
            && is_name(trim_punct(w))
            && KNOWN_EXTENSIONS.contains(&trim_punct(next).to_lowercase().as_str())
        {
            out.push(format!("{}.{}{}", trim_punct(w), trim_punct(next).to_lowercase(), trailing(next)));
            i += 2;
            continue;
        }
        let prev_is_name = out.last().is_some_and(|p| is_name(p));
        if let (true, Some(next)) = (prev_is_name, words.get(i + 1)) {
            let next_clean = trim_punct(next);
            if lower == "dot" && is_extension(next_clean) {
                let joined =
                    format!("{}.{}{}", out.pop().unwrap_or_default(), next_clean.to_lowercase(), trailing(next));
                out.push(joined);
                i += 2;
                continue;
            }
            // A short part between two slashes whisper wrote as a function word ("Clients
            // slash or slash ideas.jpg" for `Clients/raw/…`) or lost ("slash, slash") is still a
            // part: written in place, for `heard_paths` to put right against the tree.
            if lower == "slash"
                && let Some(after) = words.get(i + 2)
                && trim_punct(after).eq_ignore_ascii_case("slash")
                && FUNCTION_WORDS.contains(&next_clean.to_lowercase().as_str())
            {
                let joined = format!("{}/{next_clean}", out.pop().unwrap_or_default());
                out.push(joined);
                i += 2;
                continue;
            }
            if lower == "slash"
                && next_clean.eq_ignore_ascii_case("slash")
                && let Some(after) = words.get(i + 2)
                && is_name(trim_punct(after))
            {
                let joined = format!("{}//{}{}", out.pop().unwrap_or_default(), trim_punct(after), trailing(after));
                out.push(joined);
                i += 3;
                continue;
            }
            if (lower == "slash" || lower == "/") && is_name(next_clean) {
                let joined = format!("{}/{}{}", out.pop().unwrap_or_default(), next_clean, trailing(next));
                out.push(joined);
                i += 2;
                continue;
            }
        }
        out.push(w.to_string());
        i += 1;
    }
    let mut text = out.join(" ");
    while text.ends_with(['.', '!', '?', ',']) {
        text.pop();
    }
    text
}

/// `transcript` with a spoken ".docx" that whisper wrote as a second "dot" and the sound of its
/// "x" ("contact dot dot fix", "change log dot dot kicks", "do dot dot x") written as the
/// extension after the name before it. A path is never said with "dot dot", so the pair and a
/// short word ending in the sound of "x" is that extension. (Otherwise the second "dot" was
/// read as the extension: "I did not find contacts.dot".) Runs before the names are put right,
/// which then see a name with its extension; the transcript back unchanged when there is none.
pub fn docx_heard_as_dot_dot(transcript: &str) -> String {
    let words: Vec<&str> = transcript.split_whitespace().collect();
    let at = (1..words.len().saturating_sub(2)).find(|&i| {
        is_name(trim_punct(words[i - 1]))
            && !words[i - 1].ends_with(['.', '?', '!', ';'])
            && trim_punct(words[i]).eq_ignore_ascii_case("dot")
            && trim_punct(words[i + 1]).eq_ignore_ascii_case("dot")
            && sounds_like_docx_end(trim_punct(words[i + 2]))
    });
    let Some(i) = at else { return transcript.to_string() };
    let mut out: Vec<String> = words[..i - 1].iter().map(|w| w.to_string()).collect();
    out.push(format!("{}.docx{}", trim_punct(words[i - 1]), trailing(words[i + 2])));
    out.extend(words[i + 3..].iter().map(|w| w.to_string()));
    docx_heard_as_dot_dot(&out.join(" "))
}

fn sounds_like_docx_end(word: &str) -> bool {
    let c = crate::phonetic::code(word);
    c.ends_with("KS") && c.len() <= 4
}

/// The words of `transcript`, with "slash" and "dot" that whisper hyphenated to a neighbour
/// ("wallpaper slash-backing list.json") made words of their own again, and the compounds
/// whisper writes for a spoken command verb ("throwaway") split back into it.
fn spoken_separators_apart(transcript: &str) -> Vec<String> {
    let mut out = vec![];
    for w in transcript.split_whitespace() {
        let lower = w.to_lowercase();
        if let Some(verb) = VERB_COMPOUNDS.iter().find(|(c, _)| trim_punct(&lower) == *c).map(|(_, v)| v) {
            let first_upper = w.chars().next().is_some_and(char::is_uppercase);
            for (k, part) in verb.split(' ').enumerate() {
                let mut part = part.to_string();
                if k == 0 && first_upper {
                    part = part[..1].to_uppercase() + &part[1..];
                }
                out.push(part);
            }
            if let Some(last) = out.last_mut() {
                last.push_str(trailing(w));
            }
            continue;
        }
        let mut rest = w;
        loop {
            let l = rest.to_lowercase();
            // Only after a name: "slash-and-burn" after "the" is a word of its own.
            let after_name = out.last().is_some_and(|p: &String| is_name(p.trim_end_matches(',')));
            let cut = ["slash-", "dot-"].iter().find(|p| after_name && l.starts_with(**p) && rest.len() > p.len());
            match cut {
                Some(p) => {
                    out.push(rest[..p.len() - 1].to_string());
                    rest = &rest[p.len()..];
                }
                None => break,
            }
        }
        out.push(rest.to_string());
    }
    out
}

/// Command verbs whisper writes as one word.
const VERB_COMPOUNDS: [(&str, &str); 3] = [("throwaway", "throw away"), ("cleanup", "clean up"), ("zipup", "zip up")];

fn trim_punct(w: &str) -> &str {
    w.trim_matches(|c: char| matches!(c, '.' | ',' | '!' | '?' | ';' | ':' | '"'))
}

/// What follows a word (a comma, a full stop) stays after the joined name.
fn trailing(w: &str) -> &str {
    let t = w.trim_end_matches(['.', ',', '!', '?', ';', ':']);
    &w[t.len()..]
}

/// Extensions common enough to join even when whisper put a full stop before them.
pub(crate) const KNOWN_EXTENSIONS: [&str; 16] =
    ["txt", "log", "md", "pdf", "png", "jpg", "jpeg", "gif", "doc", "docx", "csv", "json", "zip", "mp3", "mp4", "toml"];

/// Words that are never part of a spoken path ("a slash at the end").
const FUNCTION_WORDS: [&str; 22] = [
    "a", "an", "the", "at", "in", "on", "to", "of", "and", "or", "is", "it", "my", "your", "this", "that", "for",
    "with", "from", "into", "its", "his",
];

fn is_name(w: &str) -> bool {
    !FUNCTION_WORDS.contains(&w.to_lowercase().as_str())
        && !w.is_empty()
        && w.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
        && w.chars().last().is_some_and(char::is_alphanumeric)
}

fn is_extension(w: &str) -> bool {
    (1..=5).contains(&w.len()) && w.chars().all(|c| c.is_ascii_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spoken_file_names_are_written_back() {
        for (heard, want) in [
            ("Quarantine old dot log.", "Quarantine old.log"),
            ("hash notes dot txt", "hash notes.txt"),
            ("Scan docs slash reports.", "Scan docs/reports"),
            ("quarantine docs slash old dot log", "quarantine docs/old.log"),
            ("hash Downloads/a.pdf.", "hash Downloads/a.pdf"),
            ("What's in my Pictures folder?", "What's in my Pictures folder"),
            ("move report dot PDF, please", "move report.pdf please"),
            ("Hash, notes.txt,", "Hash notes.txt"),
            ("Read the file roadmap.md.md.", "Read the file roadmap.md"),
            ("open a.png.md.md.md", "open a.png.md"),
            // What broke: a pause before "slash" (whisper's comma) kept the path apart, and the
            // verb before it was read as part of the folder's name.
            ("zip up Garden Plans, slash scanned.", "zip up Garden Plans/scanned"),
            (
                "Suggest quarantining wallpapers slash-packing list.json",
                "Suggest quarantining wallpapers/packing list.json",
            ),
            // A command verb whisper wrote as one word.
            ("Throwaway old.log, and new.log", "Throw away old.log and new.log"),
            // A short part between slashes heard as a function word, or lost.
            ("is the copy on client slash or slash ideas.jpg current", "is the copy on client/or/ideas.jpg current"),
            ("change it in client slash, slash, wishlist.md.", "change it in client//wishlist.md"),
            // What broke: ".docx" heard as a second "dot" and the sound of its "x" was read as
            // the extension "dot" ("I did not find contacts.dot").
            ("Write redirect from a.pdf to contact dot dot fix.", "Write redirect from a.pdf to contact.docx"),
            ("hash, change log dot dot kicks", "hash change log.docx"),
            ("Delete, do dot dot x from screenshots,", "Delete do.docx from screenshots"),
        ] {
            assert_eq!(as_request(heard, &[]), want, "{heard}");
        }
    }

    #[test]
    fn a_docx_heard_as_a_second_dot_is_the_extension_and_the_rest_is_untouched() {
        assert_eq!(docx_heard_as_dot_dot("Hash change log dot dot fix."), "Hash change log.docx.");
        assert_eq!(
            docx_heard_as_dot_dot("move contact dot dot kicks, and report dot dot x"),
            "move contact.docx, and report.docx"
        );
        for untouched in
            ["Hash changelog.docx.", "the dot dot fix", "contact dot dot later", "a dot, dot fix", "x dot dot"]
        {
            assert_eq!(docx_heard_as_dot_dot(untouched), untouched);
        }
    }

    #[test]
    fn ordinary_uses_of_dot_and_slash_are_left_alone() {
        for heard in [
            "connect the dots",
            "dot your i's",
            "a slash at the end",
            "the dot is here",
            "see 1.1.1 and more",
            "it is v2.2",
            "a.b.c",
            "the slash-and-burn way",
        ] {
            assert_eq!(as_request(heard, &[]), heard);
        }
        assert_eq!(as_request("dot", &[]), "dot");
        assert_eq!(as_request("", &[]), "");
    }

    #[test]
    fn heard_words_snap_to_the_one_existing_name_they_could_mean() {
        let names: Vec<String> = ["Downloads", "Pictures", "notes.txt", "report", "reports"].map(String::from).to_vec();
        assert_eq!(as_request("Scan the download folder.", &names), "Scan the Downloads folder");
        assert_eq!(as_request("find duplicates in pictures", &names), "find duplicates in Pictures");
        assert_eq!(as_request("hash Notes.txt", &names), "hash notes.txt");
        // A number whisper wrote in the parts it was said in.
        for heard in ["the locker code is 4500 12", "the locker code is 4,500-12.", "the locker code is 4,500 and 12"] {
            assert_eq!(as_request(heard, &names), "the locker code is 4512", "{heard}");
        }
        assert_eq!(as_request("code 3000 250", &names), "code 3250");
        for kept in ["move 12 30 files", "keep 4500 120", "page 450 12", "2019 12"] {
            assert_eq!(as_request(kept, &names), kept);
        }
        // The plural dropped before the extension.
        assert_eq!(as_request("throw away contact.csv", &["contacts.csv".into()]), "throw away contacts.csv");
        assert_eq!(as_request("read note.txt", &names), "read notes.txt");
        assert_eq!(as_request("hash notes", &names), "hash notes.txt");
        assert_eq!(as_request("quarantine old. log.", &["old.log".into()]), "quarantine old.log");
        assert_eq!(as_request("What is in the report, folder?", &["reports".into()]), "What is in the reports folder");
        assert_eq!(as_request("What is in the report's folder?", &["reports".into()]), "What is in the reports folder");
        // Two names it could be: left as heard.
        assert_eq!(as_request("scan the Report folder", &names), "scan the Report folder");
        // What broke: a command verb snapped to a folder named like it ("Scan, holiday." with a
        // folder `Scans` scanned `Scans`); as a name it still snaps.
        let scans: Vec<String> = ["Scans", "Lists", "Receipts"].map(String::from).to_vec();
        assert_eq!(as_request("Scan, holiday.", &scans), "Scan holiday");
        assert_eq!(as_request("scan receipt slash holiday", &scans), "scan receipt/holiday");
        assert_eq!(as_request("list the files in scan", &scans), "list the files in Scans");
        assert_eq!(as_request("what is in the scan folder", &scans), "what is in the Scans folder");
        assert_eq!(as_request("list receipt", &scans), "list Receipts");
        // Never a function word, never a short word.
        assert_eq!(as_request("scan in it", &["In".into(), "Its".into()]), "scan in it");
        // What broke: "into" heard as "until" after the name, and the move lost its destination.
        assert_eq!(as_request("Move, diary.csv, until vacation photos.", &[]), "Move diary.csv into vacation photos");
        assert_eq!(as_request("move notes until Pictures", &names), "move notes.txt into Pictures");
        assert_eq!(as_request("wait until noon", &names), "wait until noon");
        assert_eq!(as_request("keep notes.txt until", &names), "keep notes.txt until");
    }
}
