//! The data dir an eval runs against: a real ledger with a committed lease, and one of each
//! thing a person refers back to — a move plan ("apply the plan"), a patch ("apply the fix"),
//! a quarantine list ("quarantine everything on the list") and a quarantine batch ("purge the
//! last batch") — made by real kernel calls on the generated tree, with the time gates
//! honoured on a manual clock and the L4 call approved with the device's own signature.

use crate::tree::{Kind, Tree};
use anyhow::{Result, anyhow, bail};
use serde_json::{Value, json};
use smart_kernel::lease::LeaseDraft;
use smart_kernel::policy::{Budget, Monotone, Policy};
use smart_kernel::{CallSource, GateAct, Horizon};
use smart_runtime::{CallOutcome, CallReport, Engine, InitOptions, ManualClock};
use smart_signals::KeyStoreKind;
use std::collections::BTreeMap;
use std::path::Path;

pub struct Fixture {
    pub engine: Engine,
    /// The engine's clock, which stands still unless moved.
    pub clock: ManualClock,
    /// PLAN, PATCH, QLIST (artifact hashes) and BATCH (a quarantine batch name).
    pub refs: BTreeMap<String, String>,
}

/// Files only the fixture uses (moved and quarantined while setting up); the names are in no
/// pool, so no case can ask about them.
const SPARE: [&str; 2] = ["fixture-spare-a.tmp", "fixture-spare-b.tmp"];

fn ok(what: &str, r: CallReport) -> Result<CallReport> {
    if matches!(r.outcome, CallOutcome::Committed | CallOutcome::Pending | CallOutcome::Recorded) {
        Ok(r)
    } else {
        bail!("fixture: {what} was {}: {:?}", r.outcome, r.reason)
    }
}

/// The default policy, but with room for the calls the eval itself makes: each pass (model,
/// pipeline, every spoken variant) commits the same "call before it" again for the cases that
/// refer back ("hash that file"), and the default bound of three identical calls per lease would
/// refuse the fourth pass. The eval measures understanding; the bound has its own tests.
fn eval_policy() -> Policy {
    Policy {
        monotone: Monotone { max_identical: 1_000, max_steps: 100_000 },
        budget: Budget { per_lease: 10_000_000 },
        ..Policy::default()
    }
}

pub fn build(data: &Path, root: &Path, tree: &Tree) -> Result<Fixture> {
    for s in SPARE {
        std::fs::write(root.join(s), s.as_bytes())?;
    }
    let clock = ManualClock::starting_at(1_790_000_000_000);
    let opts = InitOptions {
        roots: vec![root.to_path_buf()],
        policy: Some(eval_policy()),
        key_store: Some(KeyStoreKind::File),
    };
    let (mut e, _) = Engine::init(data, opts, Box::new(clock.clone()))?;
    ok(
        "the lease draft",
        e.draft_lease(LeaseDraft {
            frame: "tidy the home folder".into(),
            horizon: Horizon::Short,
            duration_ms: 4 * 3_600_000,
            success_criteria: vec![],
            non_goals: vec![],
            renewal_prompt: String::new(),
        })?,
    )?;
    ok("the commitment gate", e.gates(&[GateAct::Commitment])?)?;
    let r = |p: &str| root.join(p).to_string_lossy().into_owned();
    let call = |e: &mut Engine, what: &str, tool: &str, args: Value, wait_ms: u64| -> Result<CallReport> {
        let rep = ok(what, e.call(tool, args, CallSource::Script)?)?;
        clock.advance(wait_ms);
        Ok(rep)
    };
    let top = tree
        .entries
        .iter()
        .find(|x| x.kind == Kind::Dir && x.depth() == 0)
        .ok_or_else(|| anyhow!("fixture: the tree has no folder"))?
        .path
        .clone();
    call(&mut e, "a scan", "fs.scan", json!({"path": r("")}), 1_000)?;
    call(&mut e, "duplicates", "cluster.duplicates", json!({"path": r("")}), 6_000)?;
    // Up the layers to L4, which needs an L3 commit first.
    let mv = json!({"moves": [{"from": r(SPARE[0]), "to": r(&format!("{top}/{}", SPARE[0]))}]});
    let spare_plan = call(&mut e, "the spare plan", "propose.move", mv, 16_000)?;
    let spare_hash = spare_plan.artifact.ok_or_else(|| anyhow!("fixture: no spare plan"))?;
    call(&mut e, "applying the spare plan", "apply.move", json!({"proposal": spare_hash}), 16_000)?;
    let pending = call(&mut e, "the quarantine", "fs.quarantine", json!({"paths": [r(SPARE[1])]}), 1_000)?;
    let id = pending.pending_id.ok_or_else(|| anyhow!("fixture: fs.quarantine did not wait for approval"))?;
    ok("the approval", e.decide(&id, true)?)?;
    let batch = e
        .quarantine_list()?
        .into_iter()
        .last()
        .map(|b| b.batch)
        .ok_or_else(|| anyhow!("fixture: no quarantine batch was made"))?;

    // What a person refers back to, newest last: a quarantine list, a patch, a move plan.
    let files: Vec<&str> = tree.entries.iter().filter(|x| x.kind == Kind::File).map(|x| x.path.as_str()).collect();
    let text =
        tree.entries.iter().find(|x| x.find.is_some()).ok_or_else(|| anyhow!("fixture: the tree has no text file"))?;
    let loose = files
        .iter()
        .find(|p| !p.contains('/'))
        .copied()
        .ok_or_else(|| anyhow!("fixture: the tree has no loose file"))?;
    let qlist = call(&mut e, "a quarantine list", "propose.quarantine", json!({"paths": [r(loose)]}), 1_000)?;
    let find = text.find.clone().unwrap_or_default();
    let patch = call(
        &mut e,
        "a patch",
        "propose.patch",
        json!({"path": r(&text.path), "find": find, "replace": "changed"}),
        1_000,
    )?;
    let name = loose.rsplit('/').next().unwrap_or(loose);
    let plan = call(
        &mut e,
        "a move plan",
        "propose.move",
        json!({"moves": [{"from": r(loose), "to": r(&format!("{top}/{name}"))}]}),
        1_000,
    )?;
    let mut refs = BTreeMap::new();
    for (k, rep) in [("QLIST", qlist), ("PATCH", patch), ("PLAN", plan)] {
        refs.insert(k.to_string(), rep.artifact.ok_or_else(|| anyhow!("fixture: {k} made no artifact"))?);
    }
    refs.insert("BATCH".into(), batch);
    Ok(Fixture { engine: e, clock, refs })
}
