//! `orbit.get_context`: what governs the agent right now, as the kernel sees it.
//!
//! A proposer that knows the stance, the lease's frame, the frontier and the allowed roots
//! proposes better calls (no L3 call while the stance only allows L2). The executor cannot see
//! the kernel's state — only an `AdmittedCall` reaches it — so the host hands over a read-only
//! snapshot of its status when it builds the executor, and this tool returns it.

use serde_json::{Value, json};
use smart_kernel::kernel::ToolOutput;

pub(crate) fn run(context: &Value) -> Result<ToolOutput, String> {
    if context.is_null() {
        return Err("this host gave the executor no context to report".into());
    }
    Ok(ToolOutput { output: json!({ "context": context }), ..ToolOutput::default() })
}
