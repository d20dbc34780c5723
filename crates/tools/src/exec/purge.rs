//! `quarantine.purge`: the only deletion in SMART, and it is of quarantine batches only.
//!
//! Quarantine exists so that "delete" can be taken back; purge is what makes it final. It takes
//! a batch name (never a path), deletes that batch folder from the quarantine folder and nothing
//! else, and is an irreversible L4 call: Tier 3, a signed approval every time. After a purge, an
//! undo of the call that filled the batch is refused by the kernel (its files are gone), which
//! is the honest answer.

use crate::confine::{ReadFs, Writer};
use crate::exec::quarantine::MANIFEST;
use crate::exec::walk::total_bytes;
use crate::exec::{str_arg, text};
use serde_json::{Value, json};
use smart_kernel::AdmittedCall;
use smart_kernel::kernel::ToolOutput;
use std::path::Path;

pub(crate) fn run(call: &AdmittedCall, w: Writer<'_>, quarantine_dir: &Path) -> Result<ToolOutput, String> {
    let batch = str_arg(call.args(), "batch", "quarantine.purge")?;
    let valid = !batch.is_empty() && batch.len() <= 40 && batch.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-');
    if !valid {
        return Err(format!("{batch:?} is not a quarantine batch name"));
    }
    let dir = quarantine_dir.join(batch);
    let manifest: Value = match w.open(&dir.join(MANIFEST)) {
        Ok(f) => serde_json::from_reader(f).map_err(|e| format!("batch {batch}'s manifest is unreadable: {e}"))?,
        Err(e) => return Err(format!("there is no quarantine batch {batch} ({e})")),
    };
    let items = manifest.get("items").and_then(Value::as_array).map_or(0, Vec::len);
    let bytes = total_bytes(&*w, &dir)?;
    w.remove_any(&dir).map_err(|e| format!("cannot delete batch {batch}: {e}"))?;
    Ok(ToolOutput {
        output: json!({ "batch": batch, "items": items, "bytes": bytes, "deleted": text(&dir) }),
        ..ToolOutput::default()
    })
}
