//! `apply.move`: running a reviewed plan, exactly as reviewed.
//!
//! The kernel has already checked that the plan is one it committed and that every file still has
//! the hash recorded in it. Between that check and each move time passes, so each move checks
//! again right before it happens, and a destination that appeared meanwhile stops the whole
//! plan. The plan runs all or nothing: a failure part-way puts back every move already made and
//! removes every folder made for them. On success it returns what undo needs — the moves, the
//! folders it created, and what each path looks like now — so undo can later prove nothing was
//! touched since.

use crate::confine::Writer;
use crate::exec::journal::Journal;
use crate::exec::plan::{MOVE_PLAN, check_independent, moves_in};
use crate::exec::text;
use crate::fs_world::content_hash_in;
use serde_json::{Map, Value, json};
use smart_kernel::AdmittedCall;
use smart_kernel::kernel::ToolOutput;
use std::path::Path;

pub(crate) fn run(call: &AdmittedCall, w: Writer<'_>) -> Result<ToolOutput, String> {
    let plan = call.artifact().ok_or("apply.move needs a move plan, and this call carries none")?;
    if plan.kind != MOVE_PLAN {
        return Err(format!("apply.move applies a {MOVE_PLAN} artifact, not a {:?} artifact", plan.kind));
    }
    let moves = moves_in(&plan.body, "the move plan")?;
    check_independent(&moves)?;
    let mut journal = Journal::new(w);
    let mut inputs = Map::new();
    for (i, m) in moves.iter().enumerate() {
        let (from, to) = (Path::new(&m.from), Path::new(&m.to));
        let step = format!("apply.move stopped at move {} ({} → {})", i + 1, m.from, m.to);
        let Some(expected) = plan.inputs.get(&m.from) else {
            return Err(journal.abort(format!("{step}: the plan records no content hash for {}", m.from)));
        };
        match content_hash_in(&*w, from) {
            Ok(Some(now)) if now == *expected => {}
            Ok(Some(_)) => return Err(journal.abort(format!("{step}: {} changed since the plan was made", m.from))),
            Ok(None) => return Err(journal.abort(format!("{step}: {} no longer exists", m.from))),
            Err(e) => return Err(journal.abort(format!("{step}: {}", e.0))),
        }
        match w.exists(to) {
            Ok(false) => {}
            Ok(true) => return Err(journal.abort(format!("{step}: {} exists now; a move never overwrites", m.to))),
            Err(e) => return Err(journal.abort(format!("{step}: {e}"))),
        }
        if let Err(e) = journal.create_parents(to).and_then(|()| journal.transfer(from, to)) {
            return Err(journal.abort(format!("{step}: {e}")));
        }
        inputs.insert(m.to.clone(), json!(expected.to_hex()));
        inputs.insert(m.from.clone(), Value::Null);
    }
    let created: Vec<String> = journal.created_dirs().iter().map(|d| text(d)).collect();
    Ok(ToolOutput {
        output: json!({ "moved": journal.moves(), "moves": moves }),
        rollback: Some(json!({ "inputs": inputs, "moves": moves, "created_dirs": created })),
        ..ToolOutput::default()
    })
}
