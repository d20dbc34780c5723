//! `infer.superseded_docs`: which documents in a folder are older versions of another.
//!
//! Folders fill up with `report.docx`, `report (1).docx`, `report_v2.docx`,
//! `report-final.docx` and `Copy of report.docx`. A person asking "which of these can go?" wants
//! each family named, its current member picked, and every other member explained. This is an L1
//! interpretation — it reads and reasons, it changes nothing — and it is deterministic: the same
//! tree gives the same answer, and every verdict carries its reasons so a person can disagree.
//!
//! The heuristics, in order:
//! - **Family**: same extension and the same name once copy and version markers are removed
//!   (`copy`, `copy of`, `(1)`, `v2`, `rev3`, `draft`, `final`, `old`, `new`, `latest`, `backup`,
//!   full dates like `2024-03-01` or `20240301`) and case and separators are ignored. Years alone
//!   are kept: `taxes 2023` and `taxes 2024` are different documents, not versions.
//! - **Current member**: the highest explicit version (`final` counts as above any number), then
//!   the most recently modified, then the shortest name (the original rather than the copy).
//! - **Reasons** for every other member: identical content to the current one (blake3), a lower
//!   version marker, an older modification time, or a copy marker in its name.

use crate::confine::{Kind, ReadFs, Reader, is_missing};
use crate::exec::walk::walk;
use crate::exec::{str_arg, text};
use crate::fs_world::file_hash_in;
use serde_json::{Value, json};
use smart_kernel::AdmittedCall;
use smart_kernel::kernel::ToolOutput;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The most files considered in one call.
const MAX_FILES: usize = 20_000;

#[derive(Clone, Debug)]
struct Doc {
    path: PathBuf,
    modified_ms: u64,
    version: Option<u64>,
    copy: bool,
    name_len: usize,
}

/// A file name's family key and what its markers say.
#[derive(Debug, PartialEq)]
pub(crate) struct Name {
    pub key: String,
    /// `Some(u64::MAX)` for "final".
    pub version: Option<u64>,
    pub copy: bool,
}

pub(crate) fn parse_name(file_name: &str) -> Name {
    let lower = file_name.to_lowercase();
    let (stem, ext) = match lower.rsplit_once('.') {
        Some((s, e)) if !s.is_empty() && !e.is_empty() && e.len() <= 8 => (s.to_string(), e.to_string()),
        _ => (lower.clone(), String::new()),
    };
    let mut version = None;
    let mut copy = false;
    let mut kept = Vec::new();
    let tokens: Vec<&str> = stem.split(['-', '_', ' ', '.', '(', ')']).filter(|t| !t.is_empty()).collect();
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i];
        let is_date = (t.len() == 8 && t.bytes().all(|b| b.is_ascii_digit()) && t.starts_with(['1', '2']))
            || (t.len() == 4
                && t.bytes().all(|b| b.is_ascii_digit())
                && tokens.get(i + 1).is_some_and(|m| m.len() == 2 && m.bytes().all(|b| b.is_ascii_digit()))
                && tokens.get(i + 2).is_some_and(|d| d.len() == 2 && d.bytes().all(|b| b.is_ascii_digit())));
        if is_date {
            i += if t.len() == 8 { 1 } else { 3 };
            continue;
        }
        let numbered = |prefix: &str| {
            t.strip_prefix(prefix)
                .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|n| n.parse::<u64>().ok())
        };
        if let Some(v) = numbered("v").or_else(|| numbered("rev")).or_else(|| numbered("version")) {
            version = Some(version.map_or(v, |old: u64| old.max(v)));
        } else if t == "final" || t == "latest" {
            version = Some(u64::MAX);
        } else if t == "copy" || t == "backup" || t == "bak" || t == "old" {
            copy = true;
        } else if t == "of" && i == 1 && tokens.first() == Some(&"copy") {
            // "copy of report"
        } else if matches!(t, "draft" | "new") {
        } else if t.len() <= 2 && t.bytes().all(|b| b.is_ascii_digit()) && stem.contains(&format!("({t})")) {
            copy = true;
        } else {
            kept.push(t);
        }
        i += 1;
    }
    let base = if kept.is_empty() { stem.clone() } else { kept.join(" ") };
    Name { key: format!("{base}.{ext}"), version, copy }
}

pub(crate) fn run(call: &AdmittedCall, r: Reader<'_>) -> Result<ToolOutput, String> {
    let root = Path::new(str_arg(call.args(), "path", "infer.superseded_docs")?);
    match r.meta(root) {
        Ok(m) if m.kind == Kind::Dir => {}
        Ok(_) => {
            return Err(format!("{} is not a folder; infer.superseded_docs looks inside a folder", root.display()));
        }
        Err(e) if is_missing(&e) => return Err(format!("{} does not exist", root.display())),
        Err(e) => return Err(format!("cannot inspect {}: {e}", root.display())),
    }
    let w = walk(&r, root, MAX_FILES);
    let mut families: BTreeMap<String, Vec<Doc>> = BTreeMap::new();
    for e in w.entries.into_iter().filter(|e| e.kind == Kind::File) {
        let Some(name) = e.path.file_name().map(|n| n.to_string_lossy().into_owned()) else { continue };
        let parsed = parse_name(&name);
        families.entry(parsed.key).or_default().push(Doc {
            name_len: name.chars().count(),
            path: e.path,
            modified_ms: e.modified_ms.unwrap_or(0),
            version: parsed.version,
            copy: parsed.copy,
        });
    }
    let mut groups = Vec::new();
    let mut unreadable: Vec<Value> =
        w.unreadable.iter().map(|(p, why)| json!({"path": text(p), "error": why})).collect();
    let mut superseded_count = 0usize;
    for (key, mut docs) in families.into_iter().filter(|(_, d)| d.len() >= 2) {
        // Best first: version, then newest, then the plain name, then path for a stable order.
        docs.sort_by(|a, b| {
            b.version
                .unwrap_or(0)
                .cmp(&a.version.unwrap_or(0))
                .then(b.modified_ms.cmp(&a.modified_ms))
                .then(a.copy.cmp(&b.copy))
                .then(a.name_len.cmp(&b.name_len))
                .then(a.path.cmp(&b.path))
        });
        let current = &docs[0];
        let current_hash = match file_hash_in(&r, &current.path) {
            Ok(h) => Some(h),
            Err(e) => {
                unreadable.push(json!({"path": text(&current.path), "error": e.0}));
                None
            }
        };
        let mut older = Vec::new();
        for d in &docs[1..] {
            let hash = file_hash_in(&r, &d.path).ok();
            let mut reasons = Vec::new();
            if hash.is_some() && hash == current_hash {
                reasons.push("identical content to the current version".to_string());
            }
            match (d.version, current.version) {
                (Some(a), Some(b)) if a < b => {
                    reasons.push(format!("lower version ({} < {})", show_version(a), show_version(b)))
                }
                (None, Some(b)) => reasons.push(format!("no version marker, the current one is {}", show_version(b))),
                _ => {}
            }
            if d.modified_ms < current.modified_ms {
                reasons.push("modified earlier".to_string());
            }
            if d.copy && !current.copy {
                reasons.push("its name marks it as a copy".to_string());
            }
            if reasons.is_empty() {
                reasons.push("same name; the current one sorts first".to_string());
            }
            superseded_count += 1;
            older.push(json!({
                "path": text(&d.path),
                "modified_ms": d.modified_ms,
                "blake3": hash.map(|h| h.to_hex()),
                "reasons": reasons,
            }));
        }
        groups.push(json!({
            "family": key,
            "current": { "path": text(&current.path), "modified_ms": current.modified_ms, "blake3": current_hash.map(|h| h.to_hex()) },
            "superseded": older,
        }));
    }
    Ok(ToolOutput {
        output: json!({
            "root": text(root),
            "groups": groups,
            "superseded_count": superseded_count,
            "truncated": w.truncated,
            "unreadable": unreadable,
        }),
        ..ToolOutput::default()
    })
}

fn show_version(v: u64) -> String {
    if v == u64::MAX { "final".into() } else { format!("v{v}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_and_version_markers_fold_into_one_family_but_years_do_not() {
        let key = |n: &str| parse_name(n).key;
        let family = key("report.docx");
        for n in [
            "Report (1).docx",
            "report_v2.docx",
            "report-final.docx",
            "Copy of report.docx",
            "report 2024-03-01.docx",
            "report_20240301.docx",
            "report-draft.docx",
            "report.old.docx",
        ] {
            assert_eq!(key(n), family, "{n}");
        }
        assert_ne!(key("report.pdf"), family, "another format is another document");
        assert_ne!(key("taxes 2023.pdf"), key("taxes 2024.pdf"));
        assert_eq!(parse_name("plan_v3.md").version, Some(3));
        assert_eq!(parse_name("plan-final.md").version, Some(u64::MAX));
        assert!(parse_name("plan (2).md").copy);
        assert!(!parse_name("plan 2.md").copy, "a bare number is part of the name");
    }
}
