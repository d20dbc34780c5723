//! The phrase-template proposer: exact, instant proposals for the commands people say most.
//!
//! "scan Downloads", "find duplicates in Pictures", "quarantine old.log" do not need a language
//! model, and a 0.5B model on two cores costs a second or more per answer. These templates
//! answer in microseconds and always the same way. They are still only a proposer: what they
//! produce goes to the kernel like any model output, and they only ever name visible tools.
//!
//! They are deliberately narrow. A template matches only when the whole utterance is the
//! command and its object looks like a path or a short name ("the reports folder", not "the
//! reports folder and then tell me which are big"); anything longer, vaguer or compound falls
//! through to the model. A wrong fast answer is worse than a slow right one.

use serde_json::{Value, json};
use std::path::{Path, is_separator};

/// What the templates may use besides the words.
#[derive(Clone, Debug, Default)]
pub struct PhraseContext {
    /// Where relative names are looked for (the working folder), `/`-separated on every system
    /// (`C:/Users/ana` on Windows: `smart_kernel::slash_path`).
    pub base: String,
    /// The newest proposal's hash (a move plan, a patch or a quarantine list), for "apply it".
    pub last_plan: Option<String>,
    /// The tool that applies it (`apply.move` when not given).
    pub plan_tool: Option<String>,
    /// The newest quarantine list's hash, for "quarantine everything on the list": said with
    /// "quarantine" the words name the kind, so it need not be the newest proposal of all;
    /// with another verb ("delete everything on the list") it must be.
    pub last_list: Option<String>,
    /// The tools the current scope shows.
    pub visible: Vec<String>,
}

/// A proposal from a template, or `None` to let the model decide.
pub fn propose(utterance: &str, ctx: &PhraseContext) -> Option<(String, Value)> {
    let text = normalise(utterance);
    let lower = text.to_ascii_lowercase();
    let visible = |tool: &str| ctx.visible.iter().any(|v| v == tool);

    const DUPLICATES: &[&str] = &[
        "find duplicates in ",
        "find duplicate files in ",
        "find the duplicates in ",
        "find the duplicate files in ",
        "look for duplicates in ",
        "look for duplicate files in ",
        "show duplicates in ",
        "show duplicate files in ",
        "check for duplicates in ",
        "are there duplicates in ",
        "are there duplicate files in ",
        "are there any duplicates in ",
        "are there any duplicate files in ",
        "any duplicates in ",
        "duplicates in ",
        "look for duplicated files in ",
        "find duplicated files in ",
        "find identical files in ",
        "find the identical files in ",
        "look for identical files in ",
        "find copies in ",
        "find duplicate photos in ",
        "find duplicate pictures in ",
    ];
    const SCAN: &[&str] = &[
        "scan ",
        "list ",
        "list the files in ",
        "list files in ",
        "list everything in ",
        "list the contents of ",
        "show me what's in ",
        "show me what is in ",
        "show what's in ",
        "show the files in ",
        "show me the files in ",
        "what's in ",
        "what is in ",
        "what's inside ",
        "what is inside ",
        "look inside ",
        "look in ",
        "look at ",
        "take a look at ",
        "take a look inside ",
        "inventory ",
        "what files are in ",
        "what files do i have in ",
        "which files are in ",
        "give me a listing of ",
        "show the contents of ",
        "show me the contents of ",
    ];
    const HASH: &[&str] = &[
        "hash ",
        "checksum ",
        "fingerprint ",
        "fingerprint the file ",
        "compute the hash of ",
        "get the hash of ",
        "calculate the hash of ",
        "calculate a hash for ",
        "what is the hash of ",
        "what's the hash of ",
        "what is the checksum of ",
        "what's the checksum of ",
        "give me the hash of ",
        "give me the checksum of ",
    ];
    const QUARANTINE: &[&str] =
        &["quarantine ", "delete ", "remove ", "trash ", "throw away ", "get rid of ", "discard ", "bin "];
    // "Apply it" applies the newest proposal, whatever it is; "apply the plan" only a move plan
    // and "apply the patch" only a patch — when the newest proposal is another kind, the words
    // and the ledger disagree, and the template stays silent.
    const APPLY: &[(&str, Option<&str>)] = &[
        ("apply the plan", Some("apply.move")),
        ("apply that plan", Some("apply.move")),
        ("apply the move plan", Some("apply.move")),
        ("carry out the plan", Some("apply.move")),
        ("go ahead with the plan", Some("apply.move")),
        ("execute the plan", Some("apply.move")),
        ("apply the patch", Some("apply.patch")),
        ("apply that patch", Some("apply.patch")),
        ("apply the edit", Some("apply.patch")),
        ("apply it", None),
        ("carry it out", None),
        ("do it", None),
    ];

    if visible("cluster.duplicates")
        && let Some(path) = after_any(&text, &lower, DUPLICATES).and_then(|o| object_path(o, &ctx.base))
    {
        return Some(("cluster.duplicates".into(), json!({ "path": path })));
    }
    if visible("fs.hash")
        && let Some(path) = after_any(&text, &lower, HASH).and_then(|o| object_path(o, &ctx.base))
    {
        return Some(("fs.hash".into(), json!({ "path": path })));
    }
    if visible("fs.scan")
        && let Some(path) = after_any(&text, &lower, SCAN).and_then(|o| object_path(o, &ctx.base))
    {
        return Some(("fs.scan".into(), json!({ "path": path })));
    }
    const READ: &[&str] = &["read ", "read me ", "open ", "print ", "show me the text of ", "what does it say in "];
    const SEARCH: &[&str] = &[
        "search for ",
        "search my files for ",
        "search the library for ",
        "find notes about ",
        "find the notes about ",
        "find my notes about ",
        "find notes on ",
        "find documents about ",
        "find the documents about ",
        "find files about ",
        "find anything about ",
        "what do i have about ",
    ];
    const COMPACT: &[&str] = &["compact ", "compress ", "archive the folder ", "zip up "];
    if visible("fs.read")
        && let Some(path) = after_any(&text, &lower, READ)
            .or_else(|| lower.starts_with("what does ").then(|| text[10..].trim()).and_then(|o| o.strip_suffix(" say")))
            .and_then(|o| object_path(o, &ctx.base))
    {
        return Some(("fs.read".into(), json!({ "path": path })));
    }
    if visible("rag.search")
        && let Some(query) = after_any(&text, &lower, SEARCH)
    {
        let query = query.trim_start_matches("the ").trim();
        // "search for files with identical content inside of Photos/old" (a fifty-sixth
        // author) asks which files are the same, not for documents about it: left to
        // understanding.
        let sameness = ["identical", "duplicate", "duplicates", "duplicated", "same content"];
        let of_sameness = sameness.iter().any(|w| query.to_ascii_lowercase().contains(w));
        if !query.is_empty() && !of_sameness {
            return Some(("rag.search".into(), json!({ "query": query })));
        }
    }
    if visible("fs.compact")
        && let Some(path) = after_any(&text, &lower, COMPACT).and_then(|o| object_path(o, &ctx.base))
    {
        return Some(("fs.compact".into(), json!({ "path": path })));
    }
    if visible("propose.patch")
        && let Some(call) = replace_in(&text, &lower, &ctx.base)
    {
        return Some(call);
    }
    let plan_tool = ctx.plan_tool.as_deref().unwrap_or("apply.move");
    if visible(plan_tool)
        && APPLY.iter().any(|(p, kind)| *p == lower && kind.is_none_or(|k| k == plan_tool))
        && let Some(plan) = &ctx.last_plan
    {
        return Some((plan_tool.into(), json!({ "proposal": plan })));
    }
    // "Quarantine everything on the list" puts aside the newest quarantine list.
    if visible("fs.quarantine")
        && let Some(list) = &ctx.last_list
        && let Some(object) = after_any(&text, &lower, QUARANTINE)
    {
        let says_quarantine =
            lower.starts_with("quarantine ") || object.to_ascii_lowercase().contains("quarantine list");
        let newest = ctx.last_plan.as_ref() == Some(list);
        if (says_quarantine || newest) && names_the_list(object, says_quarantine) {
            return Some(("fs.quarantine".into(), json!({ "proposal": list })));
        }
    }
    if visible("fs.quarantine")
        && let Some(object) = after_any(&text, &lower, QUARANTINE)
    {
        let paths: Option<Vec<String>> = split_list(object).iter().map(|o| object_path(o, &ctx.base)).collect();
        if let Some(paths) = paths.filter(|p| !p.is_empty()) {
            return Some(("fs.quarantine".into(), json!({ "paths": paths })));
        }
    }
    if visible("propose.move") {
        for verb in ["move ", "put ", "rename "] {
            let Some(object) = after_any(&text, &lower, &[verb]) else { continue };
            let lower_obj = object.to_ascii_lowercase();
            for sep in [" into ", " to ", " in "] {
                let Some(at) = lower_obj.rfind(sep) else { continue };
                let (from, to) = (&object[..at], &object[at + sep.len()..]);
                let (Some(from), Some(to_phrase)) = (object_path(from, &ctx.base), clean_object(to)) else {
                    continue;
                };
                let to = if verb == "rename " && !to_phrase.contains(is_separator) {
                    format!("{}/{}", parent(&from), to_phrase)
                } else {
                    let dest = resolve(&to_phrase, &ctx.base);
                    // "to X.txt" names the new file; "into X" or "to X" without an extension
                    // names the folder it goes into.
                    if sep == " to " && has_extension(&to_phrase) {
                        dest
                    } else {
                        format!("{dest}/{}", basename(&from))
                    }
                };
                return Some(("propose.move".into(), json!({ "moves": [{ "from": from, "to": to }] })));
            }
        }
    }
    None
}

/// "replace teh with the in README.md" / "change 2023 to 2024 in notes.txt" → a find/replace
/// patch. Only a file name with an extension counts as the target, so "change the plan to…" is
/// not taken for an edit.
fn replace_in(text: &str, lower: &str, base: &str) -> Option<(String, Value)> {
    let (verb, sep) = [("replace ", " with "), ("change ", " to ")].into_iter().find(|(v, _)| lower.starts_with(v))?;
    let rest = &text[verb.len()..];
    let rest_lower = rest.to_ascii_lowercase();
    let at_in = rest_lower.rfind(" in ")?;
    let (pair, file) = (&rest[..at_in], rest[at_in + 4..].trim());
    let at_sep = pair.to_ascii_lowercase().find(sep)?;
    let unquote = |s: &str| s.trim().trim_matches(['"', '\'', '`']).to_string();
    let (find, replace) = (unquote(&pair[..at_sep]), unquote(&pair[at_sep + sep.len()..]));
    let file = clean_object(file)?;
    if find.is_empty() || !has_extension(&file) {
        return None;
    }
    Some(("propose.patch".into(), json!({ "path": resolve(&file, base), "find": find, "replace": replace })))
}

/// Lower-cases nothing, trims politeness and end punctuation.
pub fn normalise(utterance: &str) -> String {
    let mut s = utterance.trim().trim_end_matches(['.', '!', '?']).trim().to_string();
    loop {
        let lower = s.to_ascii_lowercase();
        let mut changed = false;
        for prefix in ["please ", "can you ", "could you ", "would you ", "smart, ", "hey smart, ", "now "] {
            if lower.starts_with(prefix) {
                s = s[prefix.len()..].trim_start().to_string();
                changed = true;
            }
        }
        for suffix in [" please", " for me"] {
            if s.to_ascii_lowercase().ends_with(suffix) {
                s.truncate(s.len() - suffix.len());
                changed = true;
            }
        }
        if !changed {
            return s;
        }
    }
}

/// The original-case text after the longest matching prefix.
fn after_any<'a>(text: &'a str, lower: &str, prefixes: &[&str]) -> Option<&'a str> {
    prefixes
        .iter()
        .filter(|p| lower.starts_with(*p))
        .max_by_key(|p| p.len())
        .map(|p| text[p.len()..].trim())
        .filter(|rest| !rest.is_empty())
}

/// Whether what is to be put aside is everything on the list: "everything on that list", "all
/// the files on the list" — and "the list" itself only when `bare` (said with "quarantine":
/// "discard the list" drops the list, it does not apply it). Anything else — "notes.txt from
/// the list", "the big ones on the list" — is a part of it, or off it, and no template's.
fn names_the_list(object: &str, bare: bool) -> bool {
    const LISTS: &[&str] = &["the list", "that list", "this list", "the quarantine list"];
    const ALL: &[&str] = &[
        "everything",
        "all",
        "anything",
        "the files",
        "all the files",
        "all files",
        "every file",
        "the items",
        "all the items",
        "what's",
        "whatever is",
    ];
    let o = object.to_ascii_lowercase();
    let o = o.trim_end_matches(['.', '!', '?']).trim();
    if LISTS.contains(&o) {
        return bare;
    }
    ALL.iter().any(|all| LISTS.iter().any(|l| ["on", "in"].iter().any(|p| o == format!("{all} {p} {l}"))))
}

/// "the reports folder" → "reports"; `None` when the object is not a short name or a path.
fn clean_object(object: &str) -> Option<String> {
    let mut o = object.trim().trim_matches(['"', '\'', '`']).trim().to_string();
    for article in ["the ", "my ", "our ", "this ", "that "] {
        if o.to_ascii_lowercase().starts_with(article) {
            o = o[article.len()..].to_string();
        }
    }
    for noun in [" folder", " directory", " dir", " file"] {
        if o.to_ascii_lowercase().ends_with(noun) {
            o.truncate(o.len() - noun.len());
        }
    }
    let o = o.trim().to_string();
    if o.is_empty() {
        return None;
    }
    let looks_like_path = is_absolute(&o) || o.starts_with("./");
    let words: Vec<&str> = o.split_whitespace().collect();
    // Words that mean the object is a description, not a name: leave those to the model.
    const STOP: &[&str] = &[
        "and",
        "then",
        "which",
        "that",
        "if",
        "but",
        "so",
        "all",
        "every",
        "some",
        "any",
        "files",
        "in",
        "into",
        "to",
        "from",
        "for",
        "with",
        "of",
        "duplicates",
        "duplicate",
        "copies",
        "it",
        "them",
        "there",
    ];
    if looks_like_path && !o.contains(" and ") {
        return Some(o);
    }
    if words.len() > 3 || words.iter().any(|w| STOP.contains(&w.to_ascii_lowercase().as_str())) {
        return None;
    }
    Some(o)
}

fn object_path(object: &str, base: &str) -> Option<String> {
    clean_object(object).map(|o| resolve(&o, base))
}

/// `object` below `base` unless it names its own place. The base is `/`-separated on every
/// system (`C:/Users/ana` on Windows, see `smart_kernel::slash_path`), so a name is joined
/// with `/`.
fn resolve(object: &str, base: &str) -> String {
    if is_absolute(object) || base.is_empty() {
        object.to_string()
    } else {
        format!("{}/{}", base.trim_end_matches('/'), object.trim_start_matches("./"))
    }
}

/// A path that names its own place: `/…`, `~/…`, and on Windows `C:\…`, `C:/…` or `\\server\…`
/// too (what `Path::is_absolute` says there).
fn is_absolute(object: &str) -> bool {
    object.starts_with('/') || object.starts_with("~/") || Path::new(object).is_absolute()
}

/// "a.txt, b.txt and c.txt" → three objects.
fn split_list(object: &str) -> Vec<&str> {
    object.split([',']).flat_map(|part| part.split(" and ")).map(str::trim).filter(|p| !p.is_empty()).collect()
}

fn basename(path: &str) -> &str {
    path.trim_end_matches(is_separator).rsplit(is_separator).next().unwrap_or(path)
}

fn parent(path: &str) -> &str {
    match path.trim_end_matches(is_separator).rsplit_once(is_separator) {
        Some((p, _)) if !p.is_empty() => p,
        _ => "/",
    }
}

fn has_extension(name: &str) -> bool {
    basename(name).rsplit_once('.').is_some_and(|(stem, ext)| !stem.is_empty() && !ext.is_empty() && !ext.contains(' '))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    fn ctx() -> PhraseContext {
        PhraseContext {
            base: "/home/u".into(),
            last_plan: Some("ab".repeat(32)),
            plan_tool: None,
            last_list: None,
            visible: [
                "fs.scan",
                "fs.hash",
                "cluster.duplicates",
                "propose.move",
                "apply.move",
                "fs.quarantine",
                "fs.read",
                "rag.search",
                "fs.compact",
                "propose.patch",
            ]
            .map(String::from)
            .to_vec(),
        }
    }

    fn p(text: &str) -> Option<(String, Value)> {
        propose(text, &ctx())
    }

    #[test]
    fn common_commands_map_to_one_exact_call() {
        let cases: &[(&str, &str, Value)] = &[
            ("scan Downloads", "fs.scan", json!({"path": "/home/u/Downloads"})),
            ("Please list the files in the reports folder.", "fs.scan", json!({"path": "/home/u/reports"})),
            ("what's in /tmp/x", "fs.scan", json!({"path": "/tmp/x"})),
            ("hash notes.txt", "fs.hash", json!({"path": "/home/u/notes.txt"})),
            ("find duplicates in my Pictures folder", "cluster.duplicates", json!({"path": "/home/u/Pictures"})),
            ("are there any duplicate files in Music?", "cluster.duplicates", json!({"path": "/home/u/Music"})),
            ("delete old.log and tmp.txt", "fs.quarantine", json!({"paths": ["/home/u/old.log", "/home/u/tmp.txt"]})),
            ("quarantine the drafts folder", "fs.quarantine", json!({"paths": ["/home/u/drafts"]})),
            (
                "move a.txt into archive",
                "propose.move",
                json!({"moves": [{"from": "/home/u/a.txt", "to": "/home/u/archive/a.txt"}]}),
            ),
            (
                "move a.txt to b.txt",
                "propose.move",
                json!({"moves": [{"from": "/home/u/a.txt", "to": "/home/u/b.txt"}]}),
            ),
            ("rename /d/a.txt to b.txt", "propose.move", json!({"moves": [{"from": "/d/a.txt", "to": "/d/b.txt"}]})),
            ("apply the plan", "apply.move", json!({"proposal": "ab".repeat(32)})),
            ("read notes.txt", "fs.read", json!({"path": "/home/u/notes.txt"})),
            ("what does the README.md say?", "fs.read", json!({"path": "/home/u/README.md"})),
            ("find the notes about the budget", "rag.search", json!({"query": "budget"})),
            ("search for quarterly report", "rag.search", json!({"query": "quarterly report"})),
            ("compress the old-project folder", "fs.compact", json!({"path": "/home/u/old-project"})),
            (
                "replace teh with the in README.md",
                "propose.patch",
                json!({"path": "/home/u/README.md", "find": "teh", "replace": "the"}),
            ),
            (
                "change \"2023\" to \"2024\" in notes.txt",
                "propose.patch",
                json!({"path": "/home/u/notes.txt", "find": "2023", "replace": "2024"}),
            ),
        ];
        for (text, tool, args) in cases {
            assert_eq!(p(text), Some((tool.to_string(), args.clone())), "{text}");
        }
        // What broke (a fifty-sixth author): a search for "files with identical content".
        assert_eq!(p("search for files with identical content inside of Photos/old"), None);
    }

    /// Windows: the working folder arrives `/`-separated with its drive (`C:/Users/u`), and a
    /// name said is joined to it with `/`, never appended to a `\`-separated base.
    #[test]
    fn names_join_a_drive_letter_base_with_slashes() {
        let c = PhraseContext { base: "C:/Users/u/".into(), ..ctx() };
        assert_eq!(propose("scan Downloads", &c), Some(("fs.scan".into(), json!({"path": "C:/Users/u/Downloads"}))));
        assert_eq!(
            propose("rename notes.txt to todo.txt", &c),
            Some((
                "propose.move".into(),
                json!({"moves": [{"from": "C:/Users/u/notes.txt", "to": "C:/Users/u/todo.txt"}]})
            ))
        );
    }

    /// Regression (issue 19): a path typed with its drive was taken for a name below the
    /// working folder (`C:/Users/u/D:\Data`) because only `/…` counted as absolute.
    #[cfg(windows)]
    #[test]
    fn a_typed_windows_path_names_its_own_place() {
        assert_eq!(p(r"scan D:\Data\Scans"), Some(("fs.scan".into(), json!({"path": r"D:\Data\Scans"}))));
        assert_eq!(p("what's in D:/Data"), Some(("fs.scan".into(), json!({"path": "D:/Data"}))));
        let Some((_, args)) = p(r"rename D:\Data\a.txt to b.txt") else { panic!("no proposal") };
        assert_eq!(args["moves"][0]["from"], json!(r"D:\Data\a.txt"));
        let to = args["moves"][0]["to"].as_str().unwrap_or_default();
        assert_eq!(Path::new(to), Path::new(r"D:\Data\b.txt"), "beside the original: {to}");
    }

    #[test]
    fn anything_compound_or_vague_is_left_to_the_model() {
        for text in [
            "scan the downloads folder and tell me which files are big",
            "clean up my downloads",
            "what time is it",
            "delete all the files that are older than a year",
            "look at the duplicates in Pictures",
            "what does the reports folder in Documents contain",
            "hello",
            "apply the plan", // with no plan known (below)
            "look for identical copies in Pictures",
        ] {
            let mut c = ctx();
            c.last_plan = None;
            assert_eq!(propose(text, &c), None, "{text}");
        }
    }

    #[test]
    fn apply_means_the_newest_proposal_and_a_named_kind_must_be_that_kind() {
        let mut c = ctx();
        c.plan_tool = Some("apply.patch".into());
        c.visible.push("apply.patch".into());
        let patch = Some(("apply.patch".to_string(), json!({"proposal": "ab".repeat(32)})));
        assert_eq!(propose("apply it", &c), patch);
        assert_eq!(propose("apply the patch", &c), patch);
        // The newest proposal is a patch: "the plan" is not it, so no template answers.
        assert_eq!(propose("apply the plan", &c), None);
    }

    /// Regression: "quarantine everything on the list", with a quarantine list just drafted,
    /// went to the model, which ranked the purge (irreversible) first.
    #[test]
    fn putting_aside_what_is_on_the_list_applies_the_newest_quarantine_list() {
        let mut c = ctx();
        // An older list; the newest proposal is something else.
        c.last_list = Some("cd".repeat(32));
        let list = |h: &str| Some(("fs.quarantine".to_string(), json!({"proposal": h.repeat(32)})));
        for text in
            ["quarantine everything on the list", "quarantine all the files on that list.", "quarantine the list"]
        {
            assert_eq!(propose(text, &c), list("cd"), "{text}");
        }
        // Another verb names no kind: only the newest proposal, if it is a list, is "the list".
        for text in ["delete everything on the list", "throw away all the files in this list"] {
            assert_eq!(propose(text, &c), None, "{text}");
            c.last_list = c.last_plan.clone();
            assert_eq!(propose(text, &c), list("ab"), "{text}");
            c.last_list = Some("cd".repeat(32));
        }
        // A part of the list, something off it, or the list itself dropped: not the list's
        // files, whatever the newest proposal.
        c.last_list = c.last_plan.clone();
        for text in [
            "remove notes.txt from the list",
            "delete the big ones on the list",
            "quarantine the first two on that list",
            "discard the list",
            "bin this list",
        ] {
            assert_ne!(propose(text, &c), list("ab"), "{text}");
        }
        // A file that is called "list" is a file; with no list drafted there is none to apply.
        assert_eq!(
            propose("quarantine list.txt", &c),
            Some(("fs.quarantine".to_string(), json!({"paths": ["/home/u/list.txt"]})))
        );
        c.last_list = None;
        assert_eq!(propose("quarantine everything on the list", &c), None);
    }

    #[test]
    fn a_template_never_names_a_hidden_tool() {
        let mut c = ctx();
        c.visible = vec!["fs.scan".into()];
        assert_eq!(propose("delete old.log", &c), None);
        assert_eq!(propose("move a.txt into b", &c), None);
        assert!(propose("scan b", &c).is_some());
    }
}
