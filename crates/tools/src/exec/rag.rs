//! The `rag.*` tools: RAG++'s read-only memory, reached through the kernel like everything else.
//!
//! RAG++ may answer, never act (seed 000 §3.2). `rag.search` queries the full-text index the
//! runtime keeps over the allowed roots; `rag.assemble_context` turns chosen results into a
//! bundle that fits a token budget; `rag.validate_applicability` checks whether what the index
//! remembers about a document is still true of the file now. A document's id is its absolute
//! path — so the kernel resolves and confines every id exactly like a path argument, and no id
//! can name something outside the roots.
//!
//! Everything these tools return is data: text from the person's files, ranked and cut. Nothing
//! in it is interpreted, and no output can change what the kernel admits.

use crate::confine::{ReadFs, Reader, is_missing};
use crate::exec::str_arg;
use crate::fs_world::file_hash_in;
use serde_json::{Value, json};
use smart_index::{Index, Kind as DocKind, Query};
use smart_kernel::AdmittedCall;
use smart_kernel::kernel::ToolOutput;
use std::path::Path;

/// The most results one search returns.
pub const MAX_RESULTS: usize = 50;

/// Characters per token, for budgeting: a deliberately simple estimate (English averages about
/// four), so a bundle's size can be predicted without running a tokenizer.
const CHARS_PER_TOKEN: usize = 4;

fn open(index: &Path) -> Result<Index, String> {
    if !index.exists() {
        return Err("the library index has not been built yet; run `smart index update` (or rebuild.index)".into());
    }
    Index::open(index).map_err(|e| format!("cannot open the library index: {e}"))
}

pub(crate) fn search(call: &AdmittedCall, index: &Path, now: u64) -> Result<ToolOutput, String> {
    let args = call.args();
    let text = str_arg(args, "query", "rag.search")?;
    let kind = match args.get("kind").and_then(Value::as_str) {
        Some(k) => Some(DocKind::parse(k).ok_or_else(|| format!("unknown document kind {k:?}"))?),
        None => None,
    };
    let q = Query {
        text: text.to_string(),
        path_prefix: args.get("path_prefix").and_then(Value::as_str).map(str::to_string),
        kind,
        modified_since_ms: args.get("modified_since_ms").and_then(Value::as_u64),
        limit: args.get("limit").and_then(Value::as_u64).map_or(10, |n| n as usize).min(MAX_RESULTS),
    };
    let hits = open(index)?.search(&q, now).map_err(|e| e.to_string())?;
    let results: Vec<Value> = hits
        .iter()
        .map(|h| {
            json!({
                "id": h.path,
                "kind": h.kind.as_str(),
                "size": h.size,
                "modified_ms": h.modified_ms,
                "blake3": h.blake3,
                "score": h.score,
                "why": { "bm25": h.bm25, "recency": h.recency },
                "snippet": h.snippet,
            })
        })
        .collect();
    Ok(ToolOutput { output: json!({ "query": text, "results": results }), ..ToolOutput::default() })
}

pub(crate) fn assemble(call: &AdmittedCall, r: Reader<'_>, index: &Path) -> Result<ToolOutput, String> {
    let ids = ids(call, "rag.assemble_context")?;
    let budget =
        call.args().get("budget_tokens").and_then(Value::as_u64).ok_or("rag.assemble_context needs budget_tokens")?;
    let idx = open(index)?;
    let mut left = usize::try_from(budget).unwrap_or(usize::MAX).saturating_mul(CHARS_PER_TOKEN);
    let (mut items, mut omitted) = (Vec::new(), Vec::new());
    for id in ids {
        let Some(doc) = idx.doc(id).map_err(|e| e.to_string())? else {
            omitted.push(json!({"id": id, "why": "not in the index"}));
            continue;
        };
        if doc.blake3.is_none() {
            omitted.push(json!({"id": id, "why": "indexed by name only (binary or too large)"}));
            continue;
        }
        let current = match file_hash_in(&r, Path::new(id)) {
            Ok(h) => Some(h.to_hex().to_string()),
            Err(_) => None,
        };
        if current != doc.blake3 {
            omitted.push(json!({"id": id, "why": "the file changed since it was indexed; check it with rag.validate_applicability"}));
            continue;
        }
        let Some(text) = idx.text_of(id).map_err(|e| e.to_string())? else {
            omitted.push(json!({"id": id, "why": "indexed by name only (binary or too large)"}));
            continue;
        };
        if left == 0 {
            omitted.push(json!({"id": id, "why": "over the token budget"}));
            continue;
        }
        let take: String = text.chars().take(left).collect();
        let taken = take.chars().count();
        let truncated = take.len() < text.len();
        left -= taken;
        items.push(json!({
            "id": id,
            "blake3": doc.blake3,
            "tokens": taken.div_ceil(CHARS_PER_TOKEN),
            "truncated": truncated,
            "text": take,
        }));
    }
    let used: u64 = items.iter().filter_map(|i| i["tokens"].as_u64()).sum();
    Ok(ToolOutput {
        output: json!({ "budget_tokens": budget, "used_tokens": used, "items": items, "omitted": omitted }),
        ..ToolOutput::default()
    })
}

pub(crate) fn validate(call: &AdmittedCall, r: Reader<'_>, index: &Path) -> Result<ToolOutput, String> {
    let ids = ids(call, "rag.validate_applicability")?;
    let idx = open(index)?;
    let mut results = Vec::new();
    let mut all = true;
    for id in ids {
        let doc = idx.doc(id).map_err(|e| e.to_string())?;
        let meta = match r.meta(Path::new(id)) {
            Ok(m) => Some(m),
            Err(e) if is_missing(&e) => None,
            Err(e) => return Err(format!("cannot inspect {id}: {e}")),
        };
        // Text is compared by content hash; what was indexed by name only (binaries, big files,
        // links) has no hash in the index, so its size and modification time stand in.
        let now = match (&meta, doc.as_ref().and_then(|d| d.blake3.as_ref())) {
            (Some(_), Some(_)) => file_hash_in(&r, Path::new(id)).ok().map(|h| h.to_hex().to_string()),
            _ => None,
        };
        let (status, applicable) = match (&doc, &meta) {
            (None, _) => ("not_indexed", false),
            (Some(_), None) => ("missing", false),
            (Some(d), Some(m)) => {
                let same = match &d.blake3 {
                    Some(h) => now.as_deref() == Some(h.as_str()),
                    None => m.len == d.size && m.modified_ms == Some(d.modified_ms),
                };
                if same { ("current", true) } else { ("changed", false) }
            }
        };
        all &= applicable;
        results.push(json!({
            "id": id,
            "status": status,
            "applicable": applicable,
            "indexed_blake3": doc.as_ref().and_then(|d| d.blake3.clone()),
            "blake3_now": now,
        }));
    }
    Ok(ToolOutput { output: json!({ "all_applicable": all, "results": results }), ..ToolOutput::default() })
}

fn ids<'a>(call: &'a AdmittedCall, tool: &str) -> Result<Vec<&'a str>, String> {
    let list = call.args().get("ids").and_then(Value::as_array).ok_or_else(|| format!("{tool} needs a list of ids"))?;
    list.iter().map(|v| v.as_str().ok_or_else(|| format!("{tool}: every id is a path string"))).collect()
}
