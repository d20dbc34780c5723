//! `propose.quarantine`: a reviewable list of what would be moved out of the way.
//!
//! "Clean up my downloads" should not go straight from a sentence to files disappearing. This
//! writes the list — every path, its kind, size and content hash, and the total — as an artifact
//! the person can look at; `fs.quarantine` given the artifact's hash then moves exactly those
//! items, and only if none of them changed since (the kernel's snapshot check).

use crate::confine::{ReadFs, Reader};
use crate::exec::quarantine::{QUARANTINE_PLAN, paths_of};
use crate::exec::text;
use crate::exec::walk::total_bytes;
use crate::fs_world::content_hash_in;
use serde_json::json;
use smart_kernel::kernel::ToolOutput;
use smart_kernel::{AdmittedCall, Artifact, hash_of};
use std::collections::BTreeMap;

pub(crate) fn run(call: &AdmittedCall, r: Reader<'_>) -> Result<ToolOutput, String> {
    let paths = paths_of(call.args(), "propose.quarantine's arguments")?;
    let mut inputs = BTreeMap::new();
    let mut items = Vec::with_capacity(paths.len());
    let mut total = 0u64;
    for (i, p) in paths.iter().enumerate() {
        let meta = r.meta(p).map_err(|e| format!("item {} ({}): {e}", i + 1, p.display()))?;
        let hash = content_hash_in(&r, p)
            .map_err(|e| format!("item {}: {}", i + 1, e.0))?
            .ok_or_else(|| format!("item {}: {} does not exist", i + 1, p.display()))?;
        let size = total_bytes(&r, p)?;
        total = total.saturating_add(size);
        inputs.insert(text(p), hash);
        items.push(json!({"path": text(p), "kind": meta.kind.name(), "size": size, "blake3": hash.to_hex()}));
    }
    let listed: Vec<String> = paths.iter().map(|p| text(p)).collect();
    let artifact = Artifact {
        kind: QUARANTINE_PLAN.into(),
        body: json!({ "paths": listed, "items": items, "total_bytes": total }),
        inputs,
    };
    let hash = hash_of(&artifact).map_err(|e| format!("the quarantine plan cannot be encoded: {e}"))?;
    Ok(ToolOutput {
        output: json!({ "artifact": hash.to_hex(), "count": paths.len(), "total_bytes": total }),
        artifact: Some(artifact),
        ..ToolOutput::default()
    })
}
