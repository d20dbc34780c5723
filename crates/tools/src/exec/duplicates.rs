//! `cluster.duplicates`: which files are the same, by content rather than by name.
//!
//! "Clean up my downloads" mostly means "get rid of the copies", and a copy is only a copy if
//! every byte matches — names and dates lie. Hashing every file would read the whole folder, so
//! files are first grouped by size (free, from metadata) and only sizes shared by two or more
//! files are hashed. Empty files are left out: they are all "identical" and deleting them frees
//! nothing. The groups are sorted biggest first, since that is where the space is.

use crate::confine::{ReadFs, Reader, is_missing};
use crate::exec::walk::{Kind, walk};
use crate::exec::{str_arg, text};
use crate::fs_world::file_hash_in;
use serde_json::{Value, json};
use smart_kernel::kernel::ToolOutput;
use smart_kernel::{AdmittedCall, Hash};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How many unreadable places are named before the rest are only counted.
const MAX_UNREADABLE: usize = 100;

pub(crate) fn run(call: &AdmittedCall, r: Reader<'_>) -> Result<ToolOutput, String> {
    let root = Path::new(str_arg(call.args(), "path", "cluster.duplicates")?);
    match r.meta(root) {
        Ok(m) if m.kind == Kind::Dir => {}
        Ok(_) => return Err(format!("{} is not a folder; cluster.duplicates searches a folder", root.display())),
        Err(e) if is_missing(&e) => return Err(format!("{} does not exist", root.display())),
        Err(e) => return Err(format!("cannot inspect {}: {e}", root.display())),
    }
    let w = walk(&r, root, usize::MAX);
    let mut unreadable = w.unreadable;
    let mut by_size: BTreeMap<u64, Vec<PathBuf>> = BTreeMap::new();
    let mut files_scanned = 0usize;
    for e in w.entries.into_iter().filter(|e| e.kind == Kind::File) {
        files_scanned += 1;
        if e.size > 0 {
            by_size.entry(e.size).or_default().push(e.path);
        }
    }
    // (size, hash) → paths; BTreeMap keeps the order deterministic.
    let mut groups: BTreeMap<(std::cmp::Reverse<u64>, Hash), Vec<PathBuf>> = BTreeMap::new();
    for (size, paths) in by_size.into_iter().filter(|(_, p)| p.len() >= 2) {
        for path in paths {
            match file_hash_in(&r, &path) {
                Ok(h) => groups.entry((std::cmp::Reverse(size), h)).or_default().push(path),
                Err(e) => unreadable.push((path, e.0)),
            }
        }
    }
    let mut out_groups = Vec::new();
    let (mut duplicate_files, mut reclaimable_bytes) = (0usize, 0u64);
    for ((std::cmp::Reverse(size), hash), mut paths) in groups.into_iter().filter(|(_, p)| p.len() >= 2) {
        paths.sort();
        let copies = paths.len() - 1;
        duplicate_files += copies;
        reclaimable_bytes = reclaimable_bytes.saturating_add(size.saturating_mul(copies as u64));
        let listed: Vec<String> = paths.iter().map(|p| text(p)).collect();
        out_groups.push(json!({"blake3": hash.to_hex(), "size": size, "paths": listed}));
    }
    unreadable.sort();
    let unreadable_list: Vec<Value> =
        unreadable.iter().take(MAX_UNREADABLE).map(|(p, why)| json!({"path": text(p), "error": why})).collect();
    Ok(ToolOutput {
        output: json!({
            "root": text(root),
            "groups": out_groups,
            "files_scanned": files_scanned,
            "duplicate_files": duplicate_files,
            "reclaimable_bytes": reclaimable_bytes,
            "unreadable": unreadable_list,
            "unreadable_count": unreadable.len(),
        }),
        ..ToolOutput::default()
    })
}
