//! `rebuild.index`: the library index built again from nothing.
//!
//! The runtime keeps the index current incrementally; a full rebuild is for when that cannot be
//! trusted (a new version of the index format, a watcher that lost events for days). It replaces
//! SMART's memory wholesale, so it is an L4 transform and waits for the person. The person's
//! files are only read. The old index keeps answering until the new one is complete, and stays
//! beside it as the snapshot (seed 000 §7.3: nothing irreversible without one).

use serde_json::json;
use smart_index::Limits;
use smart_kernel::kernel::ToolOutput;
use std::path::{Path, PathBuf};

pub(crate) fn run(roots: &[PathBuf], index: &Path, now_ms: u64) -> Result<ToolOutput, String> {
    let report = smart_index::rebuild(index, roots, &Limits::default(), now_ms, &mut |_| {})
        .map_err(|e| format!("the index was not rebuilt (the old one is still in use): {e}"))?;
    Ok(ToolOutput {
        output: json!({
            "scanned": report.scanned,
            "added": report.added,
            "skipped": report.skipped.len(),
            "index": index.to_string_lossy(),
        }),
        ..ToolOutput::default()
    })
}
