//! Choosing a tool by scoring, not by sampling.
//!
//! A 0.5B model that writes a call token by token takes seconds and answers with whatever its
//! greedy path stumbles into. Asked instead "how likely is each of these answers?", it is both
//! faster and better: every visible tool is one candidate answer (`<tool_call>{"name": "fs.scan"}`
//! and so on), the worker scores them all in one batch over the cached prompt, and the ranking
//! — with "no call" as one more candidate, read from how likely the answer is to open a call at
//! all — is what understanding decides on. The gap between the best two is a signal of its own:
//! a small gap means the sentence reads two ways, and the assistant asks instead of guessing.
//!
//! The prompt has a static part — instructions, one line per visible tool, and worked examples
//! of each tool and of sentences that need no tool — that is the same for every utterance in a
//! scope, so the worker evaluates it once and keeps it on disk; an utterance then costs only its
//! own tokens and the candidates'. Every tool is shown every time: no keyword decides what the
//! model may reach.
//!
//! The examples use names of their own (`Camping`, `thesis.tex`, …) that an eval checks never
//! appear in the folder tree it evaluates on, so copying an example can never look right.

use crate::PromptFormat;
use crate::tools::ToolDecl;

/// How the static part of the prompt is laid out (the eval measures each).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Style {
    /// One line per tool.
    Compact,
    /// One line per tool, then worked examples as earlier turns of the conversation.
    #[default]
    CompactShots,
    /// The format's own JSON declarations with their schemas, then the examples.
    NativeShots,
    /// As [`Style::CompactShots`], with each tool shown under a name that starts with what it
    /// does ([`ALIASES`]): "quarantine_files", "purge_quarantine". A small model copies the
    /// person's verb into the name it starts writing; registry names such as `fs.quarantine`
    /// and `quarantine.purge` turn that habit against it.
    Verbs,
}

impl Style {
    pub fn parse(s: &str) -> Option<Style> {
        Some(match s {
            "compact" => Style::Compact,
            "compact-shots" => Style::CompactShots,
            "native-shots" => Style::NativeShots,
            "verbs" => Style::Verbs,
            _ => return None,
        })
    }
}

/// The names tools are shown under in [`Style::Verbs`]: the action first, distinct from the
/// first word on.
pub const ALIASES: &[(&str, &str)] = &[
    ("fs.scan", "list_folder"),
    ("fs.hash", "hash_file"),
    ("fs.read", "read_file"),
    ("rag.search", "search_documents"),
    ("orbit.get_context", "report_status"),
    ("cluster.duplicates", "find_duplicates"),
    ("infer.superseded_docs", "find_outdated_versions"),
    ("rag.assemble_context", "bundle_context"),
    ("rag.validate_applicability", "check_index_current"),
    ("propose.patch", "edit_text_file"),
    ("propose.move", "plan_move"),
    ("propose.redirects", "write_redirects"),
    ("propose.quarantine", "draft_quarantine_list"),
    ("apply.patch", "apply_edit"),
    ("apply.move", "apply_move_plan"),
    ("db.upsert", "save_note"),
    ("fs.quarantine", "quarantine_files"),
    ("fs.compact", "compress_folder"),
    ("rebuild.index", "rebuild_index"),
    ("quarantine.purge", "purge_quarantine"),
];

/// Registry names whose first word misleads a model in every style: `quarantine.purge` starts
/// with the word people use for `fs.quarantine` ("quarantine it"), and a model that copies the
/// person's verb then starts writing the tool that destroys the quarantine. (Measured: "ok
/// quarantine it" ranked `quarantine.purge` 0.99.)
const RENAMED: &[(&str, &str)] = &[("quarantine.purge", "purge.quarantine")];

/// The name `tool` is shown under in `style`.
pub fn shown_name(tool: &str, style: Style) -> &str {
    let table = if style == Style::Verbs { ALIASES } else { RENAMED };
    table.iter().find(|(t, _)| *t == tool).map_or(tool, |(_, a)| a)
}

/// What each tool is for, in the words a person would use. Every registry tool has one (tested
/// in the runtime, which holds both); a tool without one is shown its own description.
pub const USES: &[(&str, &str)] = &[
    ("fs.scan", "list what is inside a folder (names, kinds, sizes)"),
    ("fs.hash", "compute the content hash (checksum, fingerprint) of one file"),
    ("fs.read", "read a text file and show what it says"),
    (
        "rag.search",
        "search what the documents say for a topic or words: where did I write about it, which files mention it",
    ),
    ("orbit.get_context", "report SMART's own situation: status, stance, lease, layers, allowed folders and tools"),
    ("cluster.duplicates", "find files with identical content (duplicates, copies of the same file) in a folder"),
    ("infer.superseded_docs", "find outdated documents in a folder: old versions and drafts replaced by newer ones"),
    ("rag.assemble_context", "combine chosen files into one context bundle of limited tokens for a model"),
    (
        "rag.validate_applicability",
        "check whether the search index is still up to date for given files (changed since indexed?)",
    ),
    ("propose.patch", "prepare an edit to a text file: replace some words with others, fix a typo"),
    ("propose.move", "prepare a plan to move or rename files and folders"),
    ("propose.redirects", "record that a document moved from an old path to a new one (write redirects)"),
    (
        "propose.quarantine",
        "draft a list of files to quarantine later, for the person to review first; nothing is moved",
    ),
    ("apply.patch", "apply the edit prepared earlier"),
    ("apply.move", "carry out the move plan prepared earlier"),
    ("db.upsert", "remember a fact or a note for the person (store a record)"),
    ("fs.quarantine", "delete or quarantine files or folders now (moved into the quarantine, restorable)"),
    ("fs.compact", "compress a folder into a .tar.gz archive"),
    ("rebuild.index", "rebuild the search index from scratch"),
    ("quarantine.purge", "permanently destroy a batch of files set aside earlier (purge it for good)"),
];

/// Worked examples: (what a person says, the tool, or `None` for no call) — three for every
/// tool, interleaved so that no tool is nearer the utterance than the others, and a dozen that
/// need no tool (small talk, and requests for things no tool does). A tool with more examples
/// than another pulls a small model towards it; a test keeps them even. Their names are the
/// examples' own; no eval tree may contain them.
pub const EXAMPLES: &[(&str, Option<&str>)] = &[
    ("what's in the Camping folder", Some("fs.scan")),
    ("checksum thesis.tex", Some("fs.hash")),
    ("read grocery.txt", Some("fs.read")),
    ("find my notes about vaccines", Some("rag.search")),
    ("which folders are you allowed to use", Some("orbit.get_context")),
    ("hello there", None),
    ("are there duplicate clips in Drone Footage", Some("cluster.duplicates")),
    ("which drafts in Quarterly are out of date", Some("infer.superseded_docs")),
    ("bundle grocery.txt and lyrics.md into one context", Some("rag.assemble_context")),
    ("is the index still right about thesis.tex", Some("rag.validate_applicability")),
    ("in lyrics.md replace colour with color", Some("propose.patch")),
    ("turn on the kitchen lights", None),
    ("move thesis.tex into Quarterly", Some("propose.move")),
    ("Poems/ode.md now lives at Poems/odes.md, record the redirect", Some("propose.redirects")),
    ("draft a quarantine list with setlist.txt so I can review it", Some("propose.quarantine")),
    ("apply that edit now", Some("apply.patch")),
    ("do the moves from the plan", Some("apply.move")),
    ("what's the weather today", None),
    ("remember that the gate code is 1990", Some("db.upsert")),
    ("get rid of plan_b.odt", Some("fs.quarantine")),
    ("compress the Firmware folder", Some("fs.compact")),
    ("reindex everything from scratch", Some("rebuild.index")),
    ("purge the old quarantine batch", Some("quarantine.purge")),
    ("call my sister", None),
    ("list Drone Footage", Some("fs.scan")),
    ("hash Xmas 2020/card.png", Some("fs.hash")),
    ("what does setlist.txt say", Some("fs.read")),
    ("where did I write about the roof repair", Some("rag.search")),
    ("show me my current stance", Some("orbit.get_context")),
    ("let me think", None),
    ("find identical images in Xmas 2020", Some("cluster.duplicates")),
    ("find old versions of the thesis in Poems", Some("infer.superseded_docs")),
    ("gather thesis.tex into a context of 800 tokens", Some("rag.assemble_context")),
    ("is grocery.txt still the same as in the index", Some("rag.validate_applicability")),
    ("fix the typo in setlist.txt: recieve should be receive", Some("propose.patch")),
    ("thanks, that's great", None),
    ("rename grocery.txt to groceries.txt", Some("propose.move")),
    ("write a redirect from Poems/old.md to Poems/new.md", Some("propose.redirects")),
    ("make a quarantine list of plan_b.odt for me to check first", Some("propose.quarantine")),
    ("go ahead with the fix to setlist.txt", Some("apply.patch")),
    ("carry the plan out", Some("apply.move")),
    ("what's 15 times 4", None),
    ("make a note that the car is due for a service", Some("db.upsert")),
    ("delete the Firmware folder", Some("fs.quarantine")),
    ("make a tarball of Drone Footage", Some("fs.compact")),
    ("the search index is out of date, build it again", Some("rebuild.index")),
    ("throw the quarantined things away for good", Some("quarantine.purge")),
    ("buy more coffee", None),
    ("show me what Poems/2017 holds", Some("fs.scan")),
    ("what's the fingerprint of lyrics.md", Some("fs.hash")),
    ("print out Poems/ode.md for me", Some("fs.read")),
    ("which files mention the boiler", Some("rag.search")),
    ("how much budget is left in this lease", Some("orbit.get_context")),
    ("tell me a story", None),
    ("do I have the same song twice in Camping", Some("cluster.duplicates")),
    ("anything stale in Poems?", Some("infer.superseded_docs")),
    ("put setlist.txt and Poems/ode.md together as context for a model", Some("rag.assemble_context")),
    ("are thesis.tex and lyrics.md still current in the index", Some("rag.validate_applicability")),
    ("change 2019 to 2020 in thesis.tex", Some("propose.patch")),
    ("wake me up at seven", None),
    ("file lyrics.md under Poems", Some("propose.move")),
    ("record that Poems/a.md moved to Poems/b.md", Some("propose.redirects")),
    ("list Firmware for quarantine but don't move it yet", Some("propose.quarantine")),
    ("the edit looks good, apply it", Some("apply.patch")),
    ("run the move plan", Some("apply.move")),
    ("how do I cook rice", None),
    ("my library card number is 4471, remember that", Some("db.upsert")),
    ("quarantine Drone Footage/raw.mov", Some("fs.quarantine")),
    ("archive Quarterly into a tar.gz", Some("fs.compact")),
    ("start the index over from nothing", Some("rebuild.index")),
    ("erase everything in the quarantine, no undo", Some("quarantine.purge")),
    ("hmm, okay", None),
];

/// A reply for the examples that need no tool: short, and never a call.
const NO_CALL_REPLY: &str = "I can only act on your files; tell me what to do with them.";

const INSTRUCTIONS: &str = "You are SMART, a desktop assistant that acts on the person's files only through \
the tools below. For each request, answer with the one tool that does it, or, when no tool does \
(greetings, small talk, thanks, questions about the world, anything the tools cannot do), answer \
in one short sentence without a tool. The kernel decides whether a call runs.";

/// The prompt and the answers to score, for one utterance.
#[derive(Clone, Debug, PartialEq)]
pub struct RankPrompt {
    /// The same for every utterance with these tools (cached by the worker).
    pub prefix: String,
    /// The utterance and the opening of the answer.
    pub rest: String,
    /// One per tool, in `tools` order: the answer naming that tool.
    pub candidates: Vec<String>,
    pub tools: Vec<String>,
}

fn uses(tool: &ToolDecl) -> String {
    USES.iter().find(|(n, _)| *n == tool.name).map(|(_, u)| u.to_string()).unwrap_or_else(|| tool.description.clone())
}

/// How an answer that is a call opens and closes, in the ranking prompt. ChatML calls are
/// written in a JSON code fence rather than Qwen's `<tool_call>` tags: measured on
/// Qwen2.5-Coder-0.5B, the tag token is all but untrained (log-probability −18 after three
/// worked examples using it, where a fence is −0.04), so a model cannot learn it in context,
/// while a fence it follows at once.
pub fn call_form(format: PromptFormat) -> (&'static str, &'static str) {
    match format {
        PromptFormat::ChatMl => ("```json\n", "\n```"),
        // A completion prompt ends with "Answer:"; the answer starts with a space.
        PromptFormat::Completion => (" ", ""),
        PromptFormat::FunctionGemma => format.call_delimiters(),
    }
}

/// The answer that calls `tool`, up to the end of its name.
pub fn answer(format: PromptFormat, tool: &str) -> String {
    format!("{}{{\"name\": \"{tool}\"", call_form(format).0)
}

/// A worked example's answer, as the model should see it (name only: arguments are not its job
/// here, so examples never teach it a path).
fn example_answer(format: PromptFormat, tool: Option<&str>, style: Style) -> String {
    match tool.map(|t| shown_name(t, style)) {
        Some(t) => format!("{}}}{}", answer(format, t), call_form(format).1).trim_start().to_string(),
        None => NO_CALL_REPLY.to_string(),
    }
}

/// The ranking prompt for `utterance` over `tools`.
pub fn prompt(format: PromptFormat, tools: &[ToolDecl], utterance: &str, style: Style) -> RankPrompt {
    let shown: Vec<&(&str, Option<&str>)> = EXAMPLES
        .iter()
        .filter(|(_, t)| t.is_none_or(|t| tools.iter().any(|d| d.name == t)))
        .filter(|_| style != Style::Compact)
        .collect();
    let listing = match style {
        Style::NativeShots => tools.iter().map(|t| t.declaration_json()).collect::<Vec<_>>().join("\n"),
        _ => tools
            .iter()
            .map(|t| format!("- {}: {}", shown_name(&t.name, style), uses(t)))
            .collect::<Vec<_>>()
            .join("\n"),
    };
    let utterance = utterance.trim();
    let (prefix, rest) = match format {
        PromptFormat::ChatMl => {
            let mut p = format!(
                "<|im_start|>system\n{INSTRUCTIONS}\n\n# Tools\n{listing}\n\nTo call a tool, answer with its name as JSON in a json code block.<|im_end|>\n"
            );
            for (u, t) in &shown {
                p.push_str(&format!(
                    "<|im_start|>user\n{u}<|im_end|>\n<|im_start|>assistant\n{}<|im_end|>\n",
                    example_answer(format, *t, style)
                ));
            }
            (p, format!("<|im_start|>user\n{utterance}<|im_end|>\n<|im_start|>assistant\n"))
        }
        PromptFormat::FunctionGemma => {
            let mut p = format!("<start_of_turn>developer\n{INSTRUCTIONS}\n");
            for t in tools {
                p.push_str(&format!(
                    "<start_function_declaration>\n{}\n<end_function_declaration>\n",
                    if style == Style::NativeShots {
                        t.declaration_json()
                    } else {
                        format!("{}: {}", shown_name(&t.name, style), uses(t))
                    }
                ));
            }
            p.push_str("<end_of_turn>\n");
            for (u, t) in &shown {
                p.push_str(&format!(
                    "<start_of_turn>user\n{u}\n<end_of_turn>\n<start_of_turn>model\n{}\n<end_of_turn>\n",
                    example_answer(format, *t, style)
                ));
            }
            (p, format!("<start_of_turn>user\n{utterance}\n<end_of_turn>\n<start_of_turn>model\n"))
        }
        PromptFormat::Completion => {
            let mut p = format!("{INSTRUCTIONS}\n\nTools:\n{listing}\n\n");
            for (u, t) in &shown {
                p.push_str(&format!("Request: {u}\nAnswer: {}\n\n", example_answer(format, *t, style)));
            }
            (p, format!("Request: {utterance}\nAnswer:"))
        }
    };
    RankPrompt {
        prefix,
        rest,
        candidates: tools.iter().map(|t| answer(format, shown_name(&t.name, style))).collect(),
        tools: tools.iter().map(|t| t.name.clone()).collect(),
    }
}

/// What the worker's scores say: each tool's probability given that the answer is a call, and
/// the probability that it is a call at all.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranking {
    /// (tool, log P(tool | a call)), best first.
    pub tools: Vec<(String, f32)>,
    /// P(the answer opens a call).
    pub p_call: f32,
    /// The model's own chance that the answer is a call to its best tool (`p_call` times that
    /// tool's share), kept as the model said it when cues reorder `tools`
    /// ([`super::cues::weigh`]): whether a sentence asks for a call at all is the model's call.
    pub best_call: f32,
}

/// `tools`' log-scores made log-probabilities among themselves and sorted best first, ties by
/// name (so the same scores always rank the same way).
pub(super) fn normalise(tools: &mut [(String, f32)]) {
    let max = tools.iter().map(|(_, s)| *s).fold(f32::NEG_INFINITY, f32::max);
    let z: f32 = tools.iter().map(|(_, s)| (s - max).exp()).sum();
    for (_, s) in tools.iter_mut() {
        *s = *s - max - z.ln();
    }
    tools.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
}

impl Ranking {
    /// From the worker's per-candidate log-probabilities (`scores`, whole answer) and those of
    /// each candidate's first token (`first`, the opening of a call: the same for all).
    pub fn from_scores(tools: &[String], scores: &[f32], first: &[f32]) -> Ranking {
        let opening = first.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let p_call = if opening.is_finite() { opening.exp().clamp(0.0, 1.0) } else { 0.0 };
        let mut ranked: Vec<(String, f32)> = tools
            .iter()
            .zip(scores)
            .map(|(t, s)| (t.clone(), if opening.is_finite() { s - opening } else { *s }))
            .collect();
        // Normalised over the candidates, so the numbers are probabilities among the tools shown.
        normalise(&mut ranked);
        let best_call = p_call * ranked.first().map_or(0.0, |(_, lp)| lp.exp());
        Ranking { tools: ranked, p_call, best_call }
    }

    /// log P(best) − log P(second), among the tools.
    pub fn margin(&self) -> f32 {
        match self.tools.as_slice() {
            [a, b, ..] => a.1 - b.1,
            [_] => f32::INFINITY,
            [] => 0.0,
        }
    }

    pub fn best(&self) -> Option<&str> {
        self.tools.first().map(|(t, _)| t.as_str())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn tools() -> Vec<ToolDecl> {
        ["fs.scan", "fs.hash", "fs.quarantine"]
            .iter()
            .map(|n| ToolDecl { name: n.to_string(), description: "d.".into(), parameters: json!({}) })
            .collect()
    }

    #[test]
    fn the_prefix_is_the_same_for_every_utterance_and_the_rest_holds_only_the_utterance() {
        for format in [PromptFormat::ChatMl, PromptFormat::FunctionGemma, PromptFormat::Completion] {
            for style in [Style::Compact, Style::CompactShots, Style::NativeShots, Style::Verbs] {
                let a = prompt(format, &tools(), "scan Invoices", style);
                let b = prompt(format, &tools(), "something else entirely", style);
                assert_eq!(a.prefix, b.prefix, "{format:?} {style:?}");
                assert!(a.rest.contains("scan Invoices") && !a.prefix.contains("scan Invoices"));
                assert_eq!(a.candidates.len(), 3);
                // The examples shown name only visible tools.
                assert!(!a.prefix.contains("cluster.duplicates"), "{format:?} {style:?}");
                assert!(!a.prefix.contains("find_duplicates"), "{format:?} {style:?}");
            }
        }
    }

    #[test]
    fn every_example_answer_is_the_candidate_it_teaches() {
        let p = prompt(PromptFormat::ChatMl, &tools(), "x", Style::CompactShots);
        assert!(p.prefix.contains("<|im_start|>assistant\n```json\n{\"name\": \"fs.scan\"}\n```<|im_end|>"));
        assert_eq!(p.candidates[0], "```json\n{\"name\": \"fs.scan\"");
        assert!(p.prefix.contains(NO_CALL_REPLY));
        let c = prompt(PromptFormat::Completion, &tools(), "x", Style::CompactShots);
        assert!(c.prefix.contains("Answer: {\"name\": \"fs.scan\"}\n"));
        assert_eq!(c.candidates[0], " {\"name\": \"fs.scan\"");
    }

    #[test]
    fn every_tool_has_a_use_and_a_name_of_its_own_that_starts_with_its_action() {
        let uses: Vec<&str> = USES.iter().map(|(t, _)| *t).collect();
        let aliased: Vec<&str> = ALIASES.iter().map(|(t, _)| *t).collect();
        assert_eq!(uses, aliased);
        let mut names: Vec<&str> = ALIASES.iter().map(|(_, a)| *a).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), ALIASES.len(), "two tools under one name");
        for (_, t) in EXAMPLES {
            assert!(t.is_none_or(|t| uses.contains(&t)), "{t:?}");
        }
        for tool in &uses {
            let n = EXAMPLES.iter().filter(|(_, t)| *t == Some(*tool)).count();
            assert_eq!(n, 3, "{tool} has {n} examples");
        }
        let p = prompt(PromptFormat::ChatMl, &tools(), "x", Style::Verbs);
        assert_eq!(p.tools, ["fs.scan", "fs.hash", "fs.quarantine"]);
        assert_eq!(p.candidates[2], "```json\n{\"name\": \"quarantine_files\"");
        assert!(!p.prefix.contains("fs.scan"));
    }

    #[test]
    fn a_ranking_is_probabilities_among_the_tools_and_a_call_probability() {
        let tools = vec!["a".to_string(), "b".to_string()];
        let r = Ranking::from_scores(&tools, &[(0.5f32 * 0.9).ln(), (0.5f32 * 0.1).ln()], &[0.5f32.ln(), 0.5f32.ln()]);
        assert!((r.p_call - 0.5).abs() < 1e-5);
        assert_eq!(r.best(), Some("a"));
        assert!((r.tools[0].1 - 0.9f32.ln()).abs() < 1e-4);
        assert!((r.margin() - (0.9f32.ln() - 0.1f32.ln())).abs() < 1e-4);
    }
}
