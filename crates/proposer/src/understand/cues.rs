//! Cue words: what the person said, as evidence beside the model's ranking.
//!
//! The ranking ([`super::rank`]) asks a 0.5B model how likely each tool is, and a model that
//! small weighs words oddly: "remember that the wifi password is pancake7" ranked the status
//! report 0.83 and the note 0.12, "scan Photos for duplicate content" ranked the listing first.
//! Yet some words say what is wanted almost by themselves: a person who says "remember" wants
//! something kept, one who says "duplicate" wants copies found. Those words are the cues here,
//! a few per tool, written from what each tool does (the same way as
//! `smart_voice::command_words`) — not from any eval's sentences.
//!
//! A cue is evidence, never a decision. Each tool with a cue in the sentence has its
//! probability among the calls multiplied by [`BOOST`] and the ranking is normalised again, so:
//!
//! - a sentence with no cue is ranked exactly as the model ranked it;
//! - cues of two tools in one sentence ("scan Photos for duplicates", "quarantine list") leave
//!   the choice between those two to the model;
//! - a tool the model finds far less likely than the best (by more than the boost) stays behind:
//!   the words of a name or of a note's content are not cues (words inside a [`Mention`] are
//!   skipped), and neither is a cue's tool one the scope does not show;
//! - a cue said as what not to do ("but don't move it yet") is none;
//! - the chance that the sentence asks for a call at all is the model's (cues do not make
//!   "how do I delete a file in Windows" a request).
//!
//! Every tool is still ranked by the model every time: a cue tilts the scale, as a person's
//! choice of word should; it reaches no tool the model was not already weighing.

use super::mentions::Mention;
use super::rank::Ranking;
use super::reading::Reading;

/// How many times likelier a tool becomes when the sentence holds one of its cues: enough to
/// turn a model that prefers another tool up to eight to one, not enough to overturn a clear
/// reading. Measured with `smart-eval --cue-boost` (dev split, seed 501; typed and the spoken
/// transcripts replayed): right calls typed 90.6 % at 1 (no cues), 94.3 % at 4 and at 8;
/// spoken 54.7 %, 57.0 %, 57.4 %. No case that was right at 1 went wrong at either.
pub const BOOST: f32 = 8.0;

/// Cue phrases per tool, lower case. A word ending in `*` matches any word it begins
/// ("duplicat*": duplicate, duplicates, duplicated); the others match whole words.
pub const CUES: &[(&str, &[&str])] = &[
    ("fs.hash", &["hash", "checksum", "checksums", "fingerprint", "sha256", "blake3", "digest"]),
    ("rag.search", &["search", "mention*", "talk about", "talks about", "write about", "wrote about", "written about"]),
    // "context" alone is also the bundle's word; asked about, it is SMART's own.
    (
        "orbit.get_context",
        &[
            "status",
            "stance",
            "lease",
            "layer",
            "layers",
            "frontier",
            "budget",
            "situation",
            "what's the context",
            "what is the context",
            "current context",
            "your context",
        ],
    ),
    ("cluster.duplicates", &["duplicat*", "dupe", "dupes", "identical", "same content", "copies of each other"]),
    (
        "infer.superseded_docs",
        &[
            "outdated",
            "out of date",
            "supersed*",
            "stale",
            "obsolete",
            "old versions",
            "older versions",
            "newer version",
            "newer versions",
            "replaced by",
        ],
    ),
    ("rag.assemble_context", &["assemble", "bundle", "combine", "gather", "tokens", "context pack"]),
    (
        "rag.validate_applicability",
        &["validate", "up to date", "still current", "still valid", "still accurate", "changed since"],
    ),
    ("propose.patch", &["replace", "typo", "should say", "should read"]),
    ("propose.move", &["move", "rename", "relocate"]),
    ("propose.redirects", &["redirect", "redirects", "moved to", "now lives", "old path", "old location"]),
    ("propose.quarantine", &["draft", "suggest*", "review"]),
    ("db.upsert", &["remember", "note that", "make a note", "keep in mind", "write down"]),
    ("fs.quarantine", &["delete", "remove", "erase", "trash", "throw away", "get rid"]),
    ("fs.compact", &["compress*", "zip", "tarball", "tar", "gz", "archive"]),
    ("rebuild.index", &["rebuild", "reindex", "re-index", "from scratch", "redo"]),
    ("quarantine.purge", &["purge", "permanently", "for good", "wipe", "no undo"]),
];

/// A word as cues compare it: lower case, without the punctuation around it.
fn plain(word: &str) -> String {
    word.replace('’', "'").trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-').to_lowercase()
}

fn word_matches(cue: &str, word: &str) -> bool {
    match cue.strip_suffix('*') {
        Some(stem) => word.starts_with(stem),
        None => word == cue,
    }
}

/// Words that turn the cue after them around: "but don't move it yet" asks for no move.
const NEGATIONS: &[&str] = &["don't", "dont", "not", "never", "without", "no"];

/// Whether `phrase` occurs in `words` at a position no mention covers, and not negated.
fn occurs(phrase: &str, words: &[String], covered: &[bool]) -> bool {
    let parts: Vec<&str> = phrase.split(' ').collect();
    (0..words.len()).any(|start| {
        let negated = start > 0 && NEGATIONS.contains(&words[start - 1].as_str());
        !negated
            && parts.iter().enumerate().all(|(k, p)| {
                let i = start + k;
                i < words.len() && !covered[i] && word_matches(p, &words[i])
            })
    })
}

/// The tools whose cues the reading holds, outside the words that name files or folders.
pub fn cued(reading: &Reading, mentions: &[Mention]) -> Vec<&'static str> {
    let words: Vec<String> = reading.words.iter().map(|w| plain(w)).collect();
    let mut covered = vec![false; words.len()];
    for m in mentions {
        for c in covered.iter_mut().take(m.end.min(words.len())).skip(m.start) {
            *c = true;
        }
    }
    CUES.iter()
        .filter(|(_, phrases)| phrases.iter().any(|p| occurs(p, &words, &covered)))
        .map(|(tool, _)| *tool)
        .collect()
}

/// `ranking` with each cued tool `boost` times likelier, normalised again and sorted best first
/// (ties by name, as the ranking itself). Unchanged when nothing is cued or `boost` is 1.
pub fn weigh(ranking: &Ranking, cued: &[&str], boost: f32) -> Ranking {
    let lift = boost.max(1.0).ln();
    if cued.is_empty() || lift == 0.0 {
        return ranking.clone();
    }
    let mut tools: Vec<(String, f32)> = ranking
        .tools
        .iter()
        .map(|(t, lp)| (t.clone(), if cued.contains(&t.as_str()) { lp + lift } else { *lp }))
        .collect();
    let max = tools.iter().map(|(_, s)| *s).fold(f32::NEG_INFINITY, f32::max);
    if !max.is_finite() {
        return ranking.clone();
    }
    let z: f32 = tools.iter().map(|(_, s)| (s - max).exp()).sum();
    for (_, s) in &mut tools {
        *s = *s - max - z.ln();
    }
    tools.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    Ranking { tools, p_call: ranking.p_call }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::understand::read;

    fn ranking(pairs: &[(&str, f32)]) -> Ranking {
        Ranking { tools: pairs.iter().map(|(t, p)| (t.to_string(), p.ln())).collect(), p_call: 0.9 }
    }

    fn probs(r: &Ranking) -> Vec<(String, f32)> {
        r.tools.iter().map(|(t, lp)| (t.clone(), (lp.exp() * 1000.0).round() / 1000.0)).collect()
    }

    #[test]
    fn every_cued_tool_is_a_registry_tool_listed_once_with_plain_lower_case_cues() {
        let mut seen = std::collections::BTreeSet::new();
        for (tool, phrases) in CUES {
            assert!(super::super::rank::USES.iter().any(|(t, _)| t == tool), "{tool} is not a tool");
            assert!(seen.insert(*tool), "{tool} listed twice");
            for p in *phrases {
                assert_eq!(p.to_lowercase(), *p, "{p}");
                assert!(!p.contains("  ") && !p.starts_with(' ') && !p.ends_with(' '), "{p:?}");
                assert!(!p.trim_end_matches('*').contains('*'), "{p}: a stem's star ends it");
            }
        }
    }

    #[test]
    fn a_cue_word_is_found_as_a_word_or_a_stem_and_a_phrase_only_whole() {
        let cued_in = |s: &str| cued(&read(s), &[]);
        assert_eq!(cued_in("remember that the gate code is 1990"), vec!["db.upsert"]);
        assert_eq!(cued_in("are there duplicated photos here"), vec!["cluster.duplicates"]);
        assert_eq!(cued_in("Which drafts are out of date?"), vec!["infer.superseded_docs"]);
        assert_eq!(cued_in("What’s the context?"), vec!["orbit.get_context"]);
        assert_eq!(cued_in("put notes.txt into a context pack"), vec!["rag.assemble_context"]);
        // A cue said as what not to do is none.
        assert_eq!(cued_in("suggest what to quarantine but don't move it yet"), vec!["propose.quarantine"]);
        assert_eq!(cued_in("do not delete anything, just review"), vec!["propose.quarantine"]);
        // "out" and "date" apart are not the phrase; "hashtag" is not "hash".
        assert!(cued_in("take the date out").is_empty());
        assert!(cued_in("hashtag ideas").is_empty());
        // Two tools' cues in one sentence: both, in table order.
        assert_eq!(
            cued_in("scan Photos for duplicate content and delete them"),
            vec!["cluster.duplicates", "fs.quarantine"]
        );
    }

    #[test]
    fn words_that_name_a_file_or_folder_are_not_cues() {
        // A word inside a path is not a word of the sentence.
        assert!(cued(&read("read Archive/remember.txt"), &[]).is_empty());
        // "Archive" alone is a cue, unless the words say it is the name of a folder.
        let r = read("list the Archive folder");
        assert_eq!(cued(&r, &[]), vec!["fs.compact"]);
        let m = Mention {
            start: 2,
            end: 3,
            kind: super::super::mentions::MentionKind::New("Archive".into()),
            preposition: None,
            wants: None,
        };
        assert!(cued(&r, &[m]).is_empty());
    }

    #[test]
    fn a_cue_lifts_its_tool_and_the_ranking_stays_a_distribution() {
        let r = ranking(&[("orbit.get_context", 0.83), ("db.upsert", 0.12), ("rag.search", 0.05)]);
        let w = weigh(&r, &["db.upsert"], 8.0);
        assert_eq!(w.tools[0].0, "db.upsert");
        let total: f32 = w.tools.iter().map(|(_, lp)| lp.exp()).sum();
        assert!((total - 1.0).abs() < 1e-5, "{total}");
        // 0.12 × 8 against 0.83 and 0.05: 0.96 / 1.84.
        assert_eq!(probs(&w)[0], ("db.upsert".to_string(), 0.522));
        assert_eq!(probs(&w)[1], ("orbit.get_context".to_string(), 0.451));
        assert_eq!(w.p_call, r.p_call);
    }

    #[test]
    fn a_clear_reading_is_not_overturned_and_no_cue_changes_nothing() {
        let r = ranking(&[("fs.scan", 0.95), ("fs.compact", 0.05)]);
        assert_eq!(weigh(&r, &["fs.compact"], BOOST).tools[0].0, "fs.scan");
        assert_eq!(weigh(&r, &[], 4.0), r);
        assert_eq!(weigh(&r, &["fs.compact"], 1.0), r);
        // A cue for a tool the scope does not show lifts nothing.
        assert_eq!(probs(&weigh(&r, &["quarantine.purge"], 4.0)), probs(&r));
    }

    #[test]
    fn cues_of_two_tools_leave_the_choice_between_them_to_the_model() {
        let r = ranking(&[("fs.scan", 0.6), ("cluster.duplicates", 0.3), ("orbit.get_context", 0.1)]);
        let w = weigh(&r, &["fs.scan", "cluster.duplicates"], 4.0);
        assert_eq!(w.tools[0].0, "fs.scan");
        assert!(probs(&w)[2].1 < 0.05);
    }
}
