//! The runtime's half of understanding: gathering the facts the pure
//! [`smart_proposer::understand`] pipeline decides on, and asking the model worker for its scores.
//!
//! Understanding needs three things the kernel and the disk know and a pure crate cannot read:
//! the names that exist under the allowed folders (a bounded walk, [`vocabulary`]), what a
//! person may refer back to (the newest move plan, patch and quarantine list, the quarantine's
//! batches, the paths the last call named: [`context`]), and the model's ranking of every
//! visible tool for the sentence ([`rank`]). Everything else — reading, mentions, arguments,
//! the decision — is the pure crate's.

use crate::engine::Engine;
use crate::error::RuntimeError;
use crate::worker::{Supervisor, WorkerError};
use serde::Serialize;
use serde_json::Value;
use smart_kernel::KernelEvent;
use smart_proposer::PromptFormat;
use smart_proposer::ToolDecl;
use smart_proposer::protocol::{PrepareRequest, RankRequest, Timings};
use smart_proposer::understand::{self, Context, Entry, EntryKind, Ranking, Style, Thresholds, Vocabulary};
use std::collections::BTreeMap;
use std::path::Path;

/// How understanding decides (the eval sets these to compare; the defaults are what won).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UnderstandOptions {
    pub style: Style,
    pub thresholds: Thresholds,
    /// Take a transcript as whisper wrote it, without putting misheard names right against the
    /// names that exist (`smart_voice::heard_names`): the eval's "before" for that lever.
    pub open_hearing: bool,
    /// Weigh only names, not the words a request opens with (`smart_voice::weighed_openings`):
    /// the eval's "before" for that lever, on the same recorded hearing.
    pub unweighed_openings: bool,
}

/// Limits of the walk that finds the names a person may say: deep enough for
/// "Documents/Taxes/2021/receipt.pdf", bounded so a home folder of a million files costs
/// milliseconds, not seconds.
#[derive(Clone, Copy, Debug)]
pub struct WalkLimits {
    pub depth: usize,
    pub entries: usize,
}

impl Default for WalkLimits {
    fn default() -> WalkLimits {
        WalkLimits { depth: 4, entries: 20_000 }
    }
}

/// Folders whose insides nobody names in a request, and which hold most of the files on a
/// developer's disk.
const SKIPPED: &[&str] = &["node_modules", "target", "__pycache__", ".git", ".cache", "venv", ".venv"];

/// The names under `roots`, breadth first (so the limit cuts the deepest names, not a whole
/// top-level folder), hidden entries and symlinks left out, sorted within a folder.
pub fn vocabulary(roots: &[String], limits: WalkLimits) -> Vocabulary {
    let mut entries: Vec<Entry> = vec![];
    for root in roots {
        let root = smart_kernel::slash_path(Path::new(root));
        let root = root.trim_end_matches('/');
        let mut frontier: Vec<(std::path::PathBuf, String)> = vec![(Path::new(root).to_path_buf(), String::new())];
        for _ in 0..limits.depth {
            let mut next = vec![];
            for (dir, rel) in frontier {
                let Ok(rd) = std::fs::read_dir(&dir) else { continue };
                let mut kids: Vec<(String, bool)> = rd
                    .filter_map(Result::ok)
                    .filter_map(|e| {
                        let name = e.file_name().to_string_lossy().into_owned();
                        let ft = e.file_type().ok()?;
                        (!name.starts_with('.') && !ft.is_symlink()).then_some((name, ft.is_dir()))
                    })
                    .collect();
                kids.sort();
                for (name, is_dir) in kids {
                    if entries.len() >= limits.entries {
                        return Vocabulary::new(entries);
                    }
                    let child_rel = if rel.is_empty() { name.clone() } else { format!("{rel}/{name}") };
                    let abs = format!("{root}/{child_rel}");
                    entries.push(Entry {
                        abs: abs.clone(),
                        rel: child_rel.clone(),
                        kind: if is_dir { EntryKind::Dir } else { EntryKind::File },
                    });
                    if is_dir && !SKIPPED.contains(&name.as_str()) {
                        next.push((std::path::PathBuf::from(abs), child_rel));
                    }
                }
            }
            frontier = next;
        }
    }
    Vocabulary::new(entries)
}

/// The paths a call's arguments name (for "it" and "that file" in the next sentence).
pub fn paths_in(args: &Value) -> Vec<String> {
    let mut out = vec![];
    for key in ["path", "path_prefix"] {
        if let Some(p) = args.get(key).and_then(Value::as_str) {
            out.push(p.to_string());
        }
    }
    for key in ["paths", "ids"] {
        if let Some(list) = args.get(key).and_then(Value::as_array) {
            out.extend(list.iter().filter_map(Value::as_str).map(str::to_string));
        }
    }
    if let Some(moves) = args.get("moves").and_then(Value::as_array) {
        out.extend(moves.iter().filter_map(|m| m.get("to").and_then(Value::as_str)).map(str::to_string));
    }
    out
}

impl Engine {
    /// The newest artifact each applying tool would apply (`apply.move` → the newest move plan,
    /// `apply.patch` → the newest patch, `fs.quarantine` → the newest quarantine list), and the
    /// paths the newest committed call named, from the last 2,000 events.
    pub fn recent_references(&self) -> Result<References, RuntimeError> {
        let (tail, _) = self.ledger().tail()?;
        let from = tail.saturating_sub(2_000).max(1);
        let admitted = self.ledger().list(from, Some("admitted"), 2_000)?;
        let committed = self.ledger().list(from, Some("committed"), 2_000)?;
        let mut artifacts = BTreeMap::new();
        let mut newest: Option<(String, String)> = None;
        let mut recent: Option<(Vec<String>, String)> = None;
        // The call behind each commit: its admission carries the resolved arguments.
        let args_of: BTreeMap<String, Value> = admitted
            .iter()
            .filter_map(|row| match row.event() {
                Ok(KernelEvent::Admitted { call, .. }) => Some((call.hash.to_hex(), call.args.clone())),
                _ => None,
            })
            .collect();
        // What an assent right now would carry out: the newest commit's own artifact, if any.
        let mut just_prepared: Option<Option<String>> = None;
        for row in committed.iter().rev() {
            if let Ok(KernelEvent::Committed { tool, artifact, call_hash, .. }) = row.event() {
                let applies = smart_tools::exec::applied_by(&tool);
                if just_prepared.is_none() {
                    just_prepared = Some(artifact.as_ref().and(applies).map(str::to_string));
                }
                if let Some(a) = artifact
                    && let Some(applies) = applies
                    && !artifacts.contains_key(applies)
                    && let Ok(h) = smart_kernel::hash_of(&a)
                {
                    artifacts.insert(applies.to_string(), h.to_hex());
                    newest.get_or_insert((applies.to_string(), h.to_hex()));
                }
                if recent.is_none()
                    && let Some(args) = args_of.get(&call_hash.to_hex())
                {
                    let named = paths_in(args);
                    if !named.is_empty() {
                        recent = Some((named, tool.clone()));
                    }
                }
            }
        }
        let (recent, recent_tool) = recent.map_or((vec![], None), |(named, tool)| (named, Some(tool)));
        Ok(References { artifacts, newest, recent, recent_tool, just_prepared: just_prepared.flatten() })
    }
}

/// What a person may refer back to (see [`Engine::recent_references`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct References {
    pub artifacts: BTreeMap<String, String>,
    pub newest: Option<(String, String)>,
    pub recent: Vec<String>,
    /// The tool of the call `recent` comes from.
    pub recent_tool: Option<String>,
    /// The tool that applies what the newest committed call prepared, if it prepared something.
    pub just_prepared: Option<String>,
}

/// Everything understanding needs to know about where the person is, gathered now.
pub fn context(engine: &Engine, base: &Path, limits: WalkLimits) -> Result<Context, RuntimeError> {
    let vocab = vocabulary(engine.roots(), limits);
    let refs = engine.recent_references()?;
    let batches = engine.quarantine_list().map(|b| b.into_iter().map(|b| b.batch).collect()).unwrap_or_default();
    Ok(Context {
        vocab,
        base: smart_kernel::slash_path(base).trim_end_matches('/').to_string(),
        artifacts: refs.artifacts,
        newest: refs.newest,
        batches,
        // The kernel records paths as it resolved them: native on Windows, where understanding
        // compares them with the vocabulary's `/`-joined names.
        recent: refs.recent.iter().map(|p| smart_kernel::slash_path(Path::new(p))).collect(),
        recent_tool: refs.recent_tool,
        just_prepared: refs.just_prepared,
    })
}

/// What a model is told about the visible tools when it ranks them: every one, with its
/// description and schema (the compact styles show only the name and what it is for).
pub fn rank_tools(tools: &[smart_kernel::ToolSpec]) -> Vec<ToolDecl> {
    tools
        .iter()
        .map(|s| ToolDecl {
            name: s.name.clone(),
            description: s.description.clone(),
            parameters: s.args_schema.clone(),
        })
        .collect()
}

/// A ranking as `smart say --json` and the eval show it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RankingView {
    /// The chance that the sentence asks for a tool at all.
    pub p_call: f32,
    /// The best tools and their probabilities among the tools, best first (at most five),
    /// after the person's cue words were weighed in.
    pub best: Vec<(String, f32)>,
    /// The tools whose cue words the person said (`understand::cues`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cued: Vec<String>,
    /// The model's own best tools, before the cue words, when the cues changed the ranking.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_best: Option<Vec<(String, f32)>>,
}

fn best_five(r: &Ranking) -> Vec<(String, f32)> {
    r.tools.iter().take(5).map(|(t, lp)| (t.clone(), lp.exp())).collect()
}

impl RankingView {
    /// The ranking decided on (`weighed`), the model's own (`model`) and the tools `cued`.
    pub fn with_cues(model: &Ranking, weighed: &Ranking, cued: &[&str]) -> RankingView {
        RankingView {
            p_call: weighed.p_call,
            best: best_five(weighed),
            cued: cued.iter().map(|c| c.to_string()).collect(),
            model_best: (weighed.tools != model.tools).then(|| best_five(model)),
        }
    }
}

/// Asks the worker to score every tool for `utterance`.
pub async fn rank(
    sup: &mut Supervisor,
    format: PromptFormat,
    tools: &[ToolDecl],
    utterance: &str,
    style: Style,
) -> Result<(Ranking, Timings), WorkerError> {
    let p = understand::rank::prompt(format, tools, utterance, style);
    let req = RankRequest { prefix: p.prefix, rest: p.rest, candidates: p.candidates };
    let ranked = sup.rank(&req).await?;
    Ok((Ranking::from_scores(&p.tools, &ranked.scores, &ranked.first), ranked.timings))
}

/// Has the worker evaluate (and keep) the static part of the ranking prompt for `tools`.
pub async fn prepare(
    sup: &mut Supervisor,
    format: PromptFormat,
    tools: &[ToolDecl],
    style: Style,
) -> Result<Timings, WorkerError> {
    let p = understand::rank::prompt(format, tools, "", style);
    Ok(sup.prepare(&PrepareRequest { prefix: p.prefix }).await?.timings)
}

/// Evaluates the ranking prompt's static part for `tools` in a worker of its own and leaves it
/// in the worker's cache dir, then stops that worker: a host that must stay responsive (the app)
/// runs this in the background at start and after a scope change, and its own worker later finds
/// the prefix on disk. `spec` must name a cache dir, or the work is lost with the worker.
pub async fn prepare_in_own_worker(
    spec: crate::worker::WorkerSpec,
    tools: &[smart_kernel::ToolSpec],
    style: Style,
) -> Result<Timings, WorkerError> {
    if spec.load.cache_dir.is_none() {
        return Err(WorkerError::Answered(smart_proposer::protocol::WorkerError::new(
            smart_proposer::protocol::WorkerErrorCode::BadRequest,
            "preparing a prefix in a worker of its own needs a cache dir to keep it in",
        )));
    }
    let mut sup = Supervisor::new(spec);
    let result = async {
        let format = sup.ensure_started().await?.format;
        prepare(&mut sup, format, &rank_tools(tools), style).await
    }
    .await;
    sup.shutdown().await;
    result
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_walk_finds_names_breadth_first_and_leaves_out_hidden_things_and_links() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        for p in ["Recipes/2021/soup.md", "Recipes/bread.md", "notes.txt", ".hidden/x", "node_modules/a/b.js"] {
            std::fs::create_dir_all(r.join(p).parent().unwrap()).unwrap();
            std::fs::write(r.join(p), "x").unwrap();
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(r.join("Recipes"), r.join("link")).unwrap();
        let root = r.to_string_lossy().to_string();
        let v = vocabulary(std::slice::from_ref(&root), WalkLimits::default());
        let rels: Vec<&str> = v.entries.iter().map(|e| e.rel.as_str()).collect();
        assert_eq!(
            rels,
            ["Recipes", "node_modules", "notes.txt", "Recipes/2021", "Recipes/bread.md", "Recipes/2021/soup.md"]
        );
        // `/`-joined on every system, the root's own separators included (`C:/Users/…`).
        let slashed = smart_kernel::slash_path(r);
        for e in &v.entries {
            assert_eq!(e.abs, format!("{slashed}/{}", e.rel));
            assert!(!e.abs.contains('\\'), "{}", e.abs);
        }
        let v = vocabulary(std::slice::from_ref(&root), WalkLimits { depth: 1, entries: 2 });
        assert_eq!(v.entries.len(), 2);
    }

    #[test]
    fn a_calls_paths_are_what_it_is_about() {
        let args = serde_json::json!({"moves": [{"from": "/a", "to": "/b/a"}], "paths": ["/c"], "path": "/d"});
        assert_eq!(paths_in(&args), ["/d", "/c", "/b/a"]);
    }
}
