//! A transcript as a request: file names said aloud put back the way they are written.
//!
//! People say "quarantine old dot log" and "scan docs slash reports"; whisper writes those
//! words, or sometimes "old.log", or "Old.log." with a sentence's capital and full stop. The
//! proposers — phrase templates and the model — were built for typed requests. So before a
//! transcript is proposed on, the few spoken spellings of paths are joined back ("dot" between
//! a name and a short extension, "slash" between two names), pauses heard as commas and the
//! sentence's closing punctuation are dropped, and a heard name that matches exactly one
//! existing name up to case, plural or extension becomes that name. It is deterministic and conservative: "dot" only joins a word to a
//! 1–5 character alphanumeric extension and neither joins a function word ("a slash at the
//! end"), so "connect the dots" or "dot your i's" are left alone.
//! The transcript itself is kept as heard; only the proposers see this form.

/// The request a transcript stands for; `names` are the names that exist where the person
/// works (see [`snap`]).
pub fn as_request(transcript: &str, names: &[String]) -> String {
    let joined = join_spoken_paths(transcript);
    // Commas in a transcript are whisper's reading of pauses, not part of the request: "what
    // is in the report, folder" is a question about the report folder.
    let words: Vec<String> = joined
        .split(' ')
        .map(|w| w.trim_end_matches([',', ';']))
        .filter(|w| !w.is_empty())
        .map(once_extension)
        .map(|w| snap(&w, names))
        .collect();
    into_heard_as_until(words, names).join(" ")
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
            n == w || n == format!("{w}s") || format!("{n}s") == w || (stem != n && stem == w)
        })
        .collect();
    match matches.as_slice() {
        [only] => word.replacen(core, only, 1),
        _ => word.to_string(),
    }
}

fn join_spoken_paths(transcript: &str) -> String {
    let words: Vec<&str> = transcript.split_whitespace().collect();
    let mut out: Vec<String> = vec![];
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        let lower = trim_punct(w).to_lowercase();
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

fn trim_punct(w: &str) -> &str {
    w.trim_matches(|c: char| matches!(c, '.' | ',' | '!' | '?' | ';' | ':' | '"'))
}

/// What follows a word (a comma, a full stop) stays after the joined name.
fn trailing(w: &str) -> &str {
    let t = w.trim_end_matches(['.', ',', '!', '?', ';', ':']);
    &w[t.len()..]
}

/// Extensions common enough to join even when whisper put a full stop before them.
const KNOWN_EXTENSIONS: [&str; 16] =
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
        ] {
            assert_eq!(as_request(heard, &[]), want, "{heard}");
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
        assert_eq!(as_request("hash notes", &names), "hash notes.txt");
        assert_eq!(as_request("quarantine old. log.", &["old.log".into()]), "quarantine old.log");
        assert_eq!(as_request("What is in the report, folder?", &["reports".into()]), "What is in the reports folder");
        assert_eq!(as_request("What is in the report's folder?", &["reports".into()]), "What is in the reports folder");
        // Two names it could be: left as heard.
        assert_eq!(as_request("scan the Report folder", &names), "scan the Report folder");
        // Never a function word, never a short word.
        assert_eq!(as_request("scan in it", &["In".into(), "Its".into()]), "scan in it");
        // What broke: "into" heard as "until" after the name, and the move lost its destination.
        assert_eq!(as_request("Move, diary.csv, until vacation photos.", &[]), "Move diary.csv into vacation photos");
        assert_eq!(as_request("move notes until Pictures", &names), "move notes.txt into Pictures");
        assert_eq!(as_request("wait until noon", &names), "wait until noon");
        assert_eq!(as_request("keep notes.txt until", &names), "keep notes.txt until");
    }
}
