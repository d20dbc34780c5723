//! The admission pipeline: the eight checks of seed 000 §7.1 plus the stance/lease ceiling.
//!
//! The order is fixed and the first failure is the refusal:
//!
//! | # | check | code |
//! |---|-------|------|
//! | 1 | the tool exists | `unknown_tool` |
//! | 2 | arguments match the schema; paths resolve inside the roots | `schema_invalid`, `path_invalid`, `path_outside_roots` |
//! | 3 | the scope token is valid and covers tool, capability, paths | `scope_invalid` |
//! | 4 | the lease and stance allow the layer | `no_lease`, `stance_ceiling` |
//! | 5 | plus-one: the frontier is at least layer − 1 | `layer_not_reached` |
//! | – | the tier is weighed (before the gate, which it can turn into a wait): a mutation of a folder holding a sensitive name is Tier 3 | `path_invalid` when the folder cannot be looked through |
//! | 6 | the time gate has elapsed | `time_gate` |
//! | 7 | the budget covers the cost | `budget_exhausted` |
//! | 8 | monotone: repeats and steps within bounds, and the same call not running now | `monotone_bound` |
//! | 9 | the scope permits mutation | `mutation_not_permitted` |
//! | 10 | the snapshot is fresh | `artifact_unknown`, `snapshot_stale` |
//!
//! Arguments come first (seed 000 lists them last) because nothing else can be judged about a
//! call whose paths are unknown; the ceiling comes before plus-one because "you have no lease"
//! is the truer answer than "the frontier is too low" when both hold.

use crate::call::{ProposedCall, ResolvedCall};
use crate::canonical::{Hash, hash_of};
use crate::kernel::Kernel;
use crate::layer::Layer;
use crate::refusal::{Refusal, RefusalCode as C};
use crate::stance::Stance;
use crate::state::KernelState;
use crate::tier::{Tier, classify};
use crate::time::{Millis, format_duration};
use crate::time_gate;
use crate::tool::visit_pattern;
use crate::world::{Artifact, World};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// Longest path argument accepted, in bytes. Longer ones are refused before any IO.
pub const MAX_PATH_BYTES: usize = 4096;

/// Whether a Tier 3 call may be held pending while its time gate is still shut (the dialog
/// counts down), or every check must pass now (at approval).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Propose,
    Approve,
}

pub(crate) struct Checked {
    pub work_order: Option<String>,
    pub call: ResolvedCall,
    pub tier: Tier,
    pub artifact: Option<Artifact>,
    pub inputs: BTreeMap<String, Option<Hash>>,
    pub admissible_at: Millis,
    /// Something sensitive inside a folder the call changes (it raised the tier to 3).
    pub sensitive_inside: Option<String>,
}

pub(crate) fn check(
    k: &Kernel,
    state: &KernelState,
    proposed: &ProposedCall,
    now: Millis,
    world: &dyn World,
    mode: Mode,
) -> Result<Checked, Refusal> {
    // 1. The tool.
    let spec = k.registry().get(&proposed.tool).ok_or_else(|| {
        let known: Vec<&str> = k.registry().names().collect();
        Refusal::new(C::UnknownTool, format!("there is no tool {:?}; known tools: {}", proposed.tool, known.join(", ")))
    })?;

    // 2. Arguments and paths.
    k.registry()
        .validate_args(&spec.name, &proposed.args)
        .map_err(|e| Refusal::new(C::SchemaInvalid, format!("arguments for {}: {e}", spec.name)))?;
    let mut args = proposed.args.clone();
    let mut paths = Vec::new();
    for pattern in &spec.path_args {
        visit_pattern(&mut args, pattern, &mut |v: &mut Value| {
            let raw =
                v.as_str().ok_or_else(|| Refusal::new(C::SchemaInvalid, format!("{pattern} must be a string")))?;
            let resolved = resolve_path(k, raw, world)?;
            *v = Value::String(resolved.clone());
            paths.push(resolved);
            Ok(())
        })?;
    }
    let mut artifact = None;
    let mut artifact_hash = None;
    // A tool may take either paths or a proposal (`fs.quarantine`); the schema decided which
    // are present, so an absent artifact argument means this call names none.
    if let Some(key) = spec.artifact_arg.as_ref().filter(|k| args.get(k.as_str()).is_some()) {
        let text = args.get(key).and_then(Value::as_str).unwrap_or_default();
        let hash = Hash::from_hex(text).map_err(|e| Refusal::new(C::SchemaInvalid, format!("{key}: {e}")))?;
        let a = load_artifact(state, &hash, world)?;
        let mut recorded: Vec<String> = a.inputs.keys().cloned().collect();
        let mut body = a.body.clone();
        for pattern in &spec.artifact_paths {
            visit_pattern(&mut body, pattern, &mut |v: &mut Value| {
                match v.as_str() {
                    Some(p) => recorded.push(p.to_string()),
                    None => {
                        return Err(Refusal::new(
                            C::ArtifactUnknown,
                            format!("{pattern} in the proposal is not a path"),
                        ));
                    }
                }
                Ok(())
            })?;
        }
        for p in recorded {
            let resolved = resolve_path(k, &p, world)?;
            if resolved != p {
                return Err(Refusal::new(C::SnapshotStale, format!("{p} now resolves to {resolved}")));
            }
            if !paths.contains(&resolved) {
                paths.push(resolved);
            }
        }
        artifact_hash = Some(hash);
        artifact = Some(a);
    }
    let hash = ResolvedCall::hash_parts(&spec.name, &args)
        .map_err(|e| Refusal::new(C::SchemaInvalid, format!("arguments cannot be encoded: {e}")))?;
    let call = ResolvedCall {
        tool: spec.name.clone(),
        layer: spec.layer,
        reversibility: spec.reversibility,
        cost: spec.cost,
        args,
        paths,
        artifact: artifact_hash,
        hash,
    };

    // 3. Scope.
    let token = state.scope.as_ref().ok_or_else(|| {
        Refusal::new(C::ScopeInvalid, "there is no scope token; ask Orbit for one (`smart scope issue`)")
    })?;
    let scope_refusal = |why: String| Refusal::new(C::ScopeInvalid, why);
    if token.id.to_hex() != proposed.scope_id {
        return Err(scope_refusal(format!(
            "the call names scope {:?} but the current token is {}",
            proposed.scope_id,
            token.id.short()
        )));
    }
    if token.revoked {
        return Err(scope_refusal(format!(
            "scope token {} was revoked; ask Orbit for a new one (`smart scope issue`)",
            token.id.short()
        )));
    }
    if now >= token.expires_at {
        return Err(scope_refusal(format!(
            "scope token {} expired {} ago",
            token.id.short(),
            format_duration(now.since(token.expires_at))
        )));
    }
    if !token.tools.contains(&call.tool) {
        return Err(scope_refusal(format!(
            "{} is not among the tools visible in context {:?}",
            call.tool, token.context
        )));
    }
    if let Some(missing) = spec.capabilities.iter().find(|c| !token.grants(c)) {
        return Err(scope_refusal(format!("the scope does not grant capability {missing}")));
    }
    if let Some(outside) = call.paths.iter().find(|p| !token.covers_path(p)) {
        return Err(scope_refusal(format!("{outside} is outside the scope's roots")));
    }
    // A scoped work order narrows the scope further: its own tools, its own lease epoch.
    if let Some(id) = &proposed.work_order {
        let refuse = |why: String| Refusal::new(C::WorkOrderInvalid, why);
        let Some(order) = state.work_orders.get(id) else {
            return Err(refuse(format!("work order {id} is not open (closed, or its lease ended)")));
        };
        if order.epoch != state.epoch || state.active_lease(now).is_none_or(|l| l.id != order.lease) {
            return Err(refuse(format!("work order {id} belongs to a lease that is no longer active")));
        }
        if !order.tools.contains(&call.tool) {
            return Err(refuse(format!("{} is outside work order {id}'s tools", call.tool)));
        }
    }

    // 4. Ceiling from bootstrap, lease and stance.
    if call.layer > Layer::L2 && state.bootstrap_restricts() {
        return Err(Refusal::new(
            C::BootstrapMode,
            format!(
                "{} is {}: while SMART is getting to know you it only proposes (up to L2); say you are ready, or skip the introduction (`smart bootstrap skip`)",
                call.tool, call.layer
            ),
        ));
    }
    if call.layer > Layer::L1 {
        if state.active_lease(now).is_none() {
            return Err(Refusal::new(
                C::NoLease,
                format!(
                    "{} is {} ({}); above L1 a call needs an active commitment lease — draft one (`smart lease draft`) and pass the commitment gate",
                    call.tool,
                    call.layer,
                    call.layer.name()
                ),
            ));
        }
        let ceiling = stance_ceiling(state.stance);
        if call.layer > ceiling {
            return Err(Refusal::new(
                C::StanceCeiling,
                format!("{} is {} but the {} stance allows up to {ceiling}", call.tool, call.layer, state.stance),
            ));
        }
    }

    // 5. Plus-one.
    if call.layer.index() > state.frontier.index() + 1 {
        return Err(Refusal::new(
            C::LayerNotReached,
            format!(
                "{} is {} but the frontier is {}: commit an {} call first",
                call.tool,
                call.layer,
                state.frontier,
                Layer::try_from(state.frontier.index() + 1).map(|l| l.to_string()).unwrap_or_default()
            ),
        ));
    }

    // The tier decides whether a shut time gate refuses the call or only delays it.
    let hint = proposed.risk_hint.and_then(|h| Tier::try_from(h.min(3)).ok());
    let mut tier = classify(call.layer, call.reversibility, &call.paths, &k.policy().risk, hint);
    // A folder is as sensitive as what it holds: moving a folder with `.ssh/` in it moves the
    // keys as surely as moving `id_rsa` does.
    let mut sensitive_inside = None;
    if call.reversibility.mutates() && tier != Tier::Three {
        let risk = &k.policy().risk;
        let sensitive = |name: &str| crate::tier::is_sensitive(name, risk);
        for p in &call.paths {
            let found = world.sensitive_within(Path::new(p), &sensitive).map_err(|e| {
                Refusal::new(C::PathInvalid, format!("cannot look inside {p} to weigh the call: {}", e.0))
            })?;
            if let Some(inside) = found {
                sensitive_inside = Some(inside.to_string_lossy().into_owned());
                tier = Tier::Three;
                break;
            }
        }
    }

    // 6. Time gate.
    let admissible_at = time_gate::admissible_at(call.layer, &state.last_commit, &k.policy().gates);
    if now < admissible_at && !(mode == Mode::Propose && tier == Tier::Three) {
        return Err(Refusal::new(
            C::TimeGate,
            format!(
                "{} ({}) becomes admissible in {}",
                call.tool,
                call.layer,
                format_duration(admissible_at.since(now))
            ),
        ));
    }

    // 7. Budget.
    let limit = k.policy().budget.per_lease;
    if state.budget_used.saturating_add(call.cost) > limit {
        return Err(Refusal::new(
            C::BudgetExhausted,
            format!(
                "{} costs {} units but only {} of {limit} are left in this lease",
                call.tool,
                call.cost,
                limit.saturating_sub(state.budget_used)
            ),
        ));
    }

    // 8. Monotone progress.
    let mono = &k.policy().monotone;
    let repeats = state.repeats.get(&call.hash).copied().unwrap_or(0);
    if repeats >= mono.max_identical {
        return Err(Refusal::new(
            C::MonotoneBound,
            format!(
                "this exact call was already admitted {repeats} times in this lease (bound {})",
                mono.max_identical
            ),
        ));
    }
    // Two processes (the app and a `smart` command) may propose the same call at once. The state
    // tracks a call in flight by its hash, so a second identical admission before the first's
    // receipt would leave one of the two receipts with nothing to settle: it waits its turn.
    if state.inflight.contains_key(&call.hash) {
        return Err(Refusal::new(
            C::MonotoneBound,
            format!("this exact call ({}) is running now; propose it again after its receipt", call.tool),
        ));
    }
    if state.steps >= mono.max_steps {
        return Err(Refusal::new(C::MonotoneBound, format!("this lease has used all {} of its steps", mono.max_steps)));
    }

    // 9. Mutation permission.
    if call.reversibility.mutates() && !token.mutation {
        return Err(Refusal::new(
            C::MutationNotPermitted,
            format!("{} changes files but scope token {} does not permit mutation", call.tool, token.id.short()),
        ));
    }

    // 10. Snapshot freshness.
    if let Some(a) = &artifact {
        for (path, expected) in &a.inputs {
            let now_hash = file_hash(world, path)?;
            if now_hash.as_ref() != Some(expected) {
                return Err(Refusal::new(
                    C::SnapshotStale,
                    format!(
                        "{path} changed since proposal {} was made",
                        call.artifact.map(|h| h.short()).unwrap_or_default()
                    ),
                ));
            }
        }
    }
    if let Some(seen) = &proposed.snapshot {
        for (raw, expected) in seen {
            let path = resolve_path(k, raw, world)?;
            if file_hash(world, &path)?.as_ref() != Some(expected) {
                return Err(Refusal::new(C::SnapshotStale, format!("{path} changed since the call was proposed")));
            }
        }
    }
    let mut inputs = BTreeMap::new();
    if call.reversibility.mutates() {
        for p in &call.paths {
            inputs.insert(p.clone(), file_hash(world, p)?);
        }
    }

    Ok(Checked {
        work_order: proposed.work_order.clone(),
        call,
        tier,
        artifact,
        inputs,
        admissible_at,
        sensitive_inside,
    })
}

/// The highest layer a stance allows (design.md §4).
pub fn stance_ceiling(stance: Stance) -> Layer {
    match stance {
        Stance::Sensemaking | Stance::Discovery => Layer::L2,
        Stance::Execution => Layer::L4,
        Stance::Evaluation => Layer::L1,
    }
}

fn resolve_path(k: &Kernel, raw: &str, world: &dyn World) -> Result<String, Refusal> {
    if raw.is_empty() {
        return Err(Refusal::new(C::PathInvalid, "an empty path"));
    }
    if raw.len() > MAX_PATH_BYTES {
        return Err(Refusal::new(
            C::PathInvalid,
            format!("a path of {} bytes (the limit is {MAX_PATH_BYTES})", raw.len()),
        ));
    }
    if raw.contains('\0') {
        return Err(Refusal::new(C::PathInvalid, "a path containing a NUL byte"));
    }
    if !Path::new(raw).is_absolute() {
        return Err(Refusal::new(C::PathInvalid, format!("{raw:?} is relative; paths must be absolute")));
    }
    let resolved = world.resolve(raw).map_err(|e| Refusal::new(C::PathInvalid, format!("{raw}: {e}")))?;
    let roots = &k.policy().roots;
    if !roots.iter().any(|r| resolved.starts_with(r)) {
        return Err(Refusal::new(
            C::PathOutsideRoots,
            format!("{raw} resolves to {}, outside the allowed roots ({})", resolved.display(), roots.join(", ")),
        ));
    }
    resolved
        .to_str()
        .map(str::to_string)
        .ok_or_else(|| Refusal::new(C::PathInvalid, format!("{} is not valid UTF-8", resolved.display())))
}

fn file_hash(world: &dyn World, path: &str) -> Result<Option<Hash>, Refusal> {
    world.file_hash(Path::new(path)).map_err(|e| Refusal::new(C::SnapshotStale, format!("{path} cannot be read: {e}")))
}

fn load_artifact(state: &KernelState, hash: &Hash, world: &dyn World) -> Result<Artifact, Refusal> {
    let unknown = |why: String| Refusal::new(C::ArtifactUnknown, why);
    match state.artifacts.get(hash) {
        None => return Err(unknown(format!("no proposal {} was committed", hash.short()))),
        Some(meta) if meta.consumed => return Err(unknown(format!("proposal {} was already applied", hash.short()))),
        Some(_) => {}
    }
    let a = world
        .artifact(hash)
        .map_err(|e| unknown(format!("proposal {} cannot be read: {e}", hash.short())))?
        .ok_or_else(|| unknown(format!("proposal {} is missing from the ledger", hash.short())))?;
    let actual = hash_of(&a).map_err(|e| unknown(e.to_string()))?;
    if actual != *hash {
        return Err(unknown(format!("proposal {} does not match its content (hash {})", hash.short(), actual.short())));
    }
    Ok(a)
}
