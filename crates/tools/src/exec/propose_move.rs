//! `propose.move`: a plan, not an action.
//!
//! Moving a person's files is the first thing SMART does that they could regret, so it is split
//! in two. This step only writes down what would happen — every move, and the content hash of
//! every file or folder it would move — as an artifact the person can look at. Nothing on disk
//! changes. `apply.move` can later run the plan only if the kernel finds every recorded hash
//! still true, so what was reviewed is exactly what gets moved. A plan that could not be applied
//! (a missing source, an occupied destination, moves that depend on each other) is refused here,
//! while it is still cheap to fix.

use crate::confine::Reader;
use crate::exec::plan::{MOVE_PLAN, Move, check_independent, moves_in};
use crate::fs_world::content_hash_in;
use serde_json::json;
use smart_kernel::kernel::ToolOutput;
use smart_kernel::{AdmittedCall, Artifact, hash_of};
use std::collections::BTreeMap;
use std::path::Path;

pub(crate) fn run(call: &AdmittedCall, r: Reader<'_>) -> Result<ToolOutput, String> {
    let moves: Vec<Move> = moves_in(call.args(), "propose.move's arguments")?;
    check_independent(&moves)?;
    let mut inputs = BTreeMap::new();
    for (i, m) in moves.iter().enumerate() {
        let n = i + 1;
        let hash = content_hash_in(&r, Path::new(&m.from))
            .map_err(|e| format!("move {n}: {}", e.0))?
            .ok_or_else(|| format!("move {n}: {} does not exist", m.from))?;
        if r.exists(Path::new(&m.to)).map_err(|e| format!("move {n}: {e}"))? {
            return Err(format!("move {n}: {} already exists; a move never overwrites", m.to));
        }
        inputs.insert(m.from.clone(), hash);
    }
    let artifact = Artifact { kind: MOVE_PLAN.into(), body: json!({ "moves": moves }), inputs };
    let hash = hash_of(&artifact).map_err(|e| format!("the move plan cannot be encoded: {e}"))?;
    Ok(ToolOutput {
        output: json!({ "artifact": hash.to_hex(), "moves": moves.len() }),
        artifact: Some(artifact),
        ..ToolOutput::default()
    })
}
