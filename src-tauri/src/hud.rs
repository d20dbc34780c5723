//! The HUD's commands: say something, see what waits for a decision, decide, stop everything.
//!
//! Architecture invariant: nothing here decides. `say` hands text to the assistant (templates,
//! then the model) whose proposals go to the kernel; `decide` signs the person's answer with the
//! device key *in the backend* and submits it to the kernel as a `user_signal`, bound to the
//! call hash the dialog displayed. The web view never holds a key and cannot mint a signature;
//! the most a compromised page could do is ask for a decision the person did not make, which is
//! why only the HUD window's capability grants `decide`, `emergency_stop` and `undo`.

use crate::preview::{Preview, preview};
use crate::reports::{Outcome, SayResult};
use crate::session::Session;
use serde::Serialize;
use serde_json::Value;
use smart_runtime::SayOptions;
use tauri::State;

/// A call waiting for the person, with everything the dialog shows.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct PendingView {
    pub id: String,
    pub tool: String,
    pub layer: u8,
    pub tier: u8,
    /// Why it needs the person, in words.
    pub why: String,
    /// read_only | propose_only | reversible | irreversible
    pub reversibility: String,
    /// The hash the approval will be bound to: what the dialog shows is what gets signed.
    pub call_hash: String,
    #[cfg_attr(test, ts(type = "unknown"))]
    pub args: Value,
    pub created_at_ms: u64,
    /// Approving before this is refused by the time gate; the dialog counts down to it.
    pub admissible_at_ms: u64,
    pub expires_at_ms: u64,
    pub preview: Preview,
}

/// The pending calls and the backend's clock, so countdowns agree with the kernel's.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct PendingList {
    pub now_ms: u64,
    pub calls: Vec<PendingView>,
}

#[tauri::command]
pub async fn say(session: State<'_, Session>, text: String) -> Result<SayResult, String> {
    session.until_ready(crate::readiness::LONGEST_WAIT).await;
    let mut a = session.open().await?;
    // No base: the assistant resolves relative names against the first allowed folder.
    let opts = SayOptions { propose_only: false, no_templates: false, base: None };
    let report = a.say(&text, &opts).await.map_err(|e| e.to_string())?;
    Ok(SayResult::from(&report))
}

#[tauri::command]
pub async fn pending_calls(session: State<'_, Session>) -> Result<PendingList, String> {
    session
        .with_engine(|e| {
            e.tick()?;
            let calls = e
                .state()
                .pending
                .values()
                .map(|p| PendingView {
                    id: p.id.clone(),
                    tool: p.call.tool.clone(),
                    layer: p.call.layer.index(),
                    tier: p.tier as u8,
                    why: p.why.clone(),
                    reversibility: serde_json::to_value(p.call.reversibility)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default(),
                    call_hash: p.call.hash.to_hex(),
                    args: p.call.args.clone(),
                    created_at_ms: p.created_at.0,
                    admissible_at_ms: p.admissible_at.0,
                    expires_at_ms: p.expires_at.0,
                    preview: preview(&p.call, e),
                })
                .collect();
            Ok(PendingList { now_ms: e.now().0, calls })
        })
        .await
}

/// Approve or deny the pending call `pending_id`, whose hash the dialog showed as `call_hash`.
#[tauri::command]
pub async fn decide(
    session: State<'_, Session>,
    pending_id: String,
    call_hash: String,
    approve: bool,
) -> Result<Outcome, String> {
    session.with_engine(|e| e.decide_shown(&pending_id, &call_hash, approve).map(|r| Outcome::from(&r))).await
}

/// The emergency gate: signed, recorded, and the stance falls back to sensemaking.
#[tauri::command]
pub async fn emergency_stop(session: State<'_, Session>) -> Result<Outcome, String> {
    session.with_engine(|e| e.stop("emergency stop pressed in the HUD").map(|r| Outcome::from(&r))).await
}

/// Undo the committed reversible call at `seq` (through the kernel, like any call).
#[tauri::command]
pub async fn undo(session: State<'_, Session>, seq: u64) -> Result<Outcome, String> {
    session.with_engine(|e| e.undo(seq).map(|r| Outcome::from(&r))).await
}

/// Renew the commitment lease for another term (the evaluation gate's "renew"): from Execution
/// it passes through Evaluation first, as the CLI's `smart gate evaluation --renew` does.
#[tauri::command]
pub async fn renew_lease(session: State<'_, Session>) -> Result<Outcome, String> {
    session
        .with_engine(|e| {
            e.tick()?;
            let mut acts = vec![];
            if e.state().stance == smart_kernel::Stance::Execution {
                acts.push(smart_kernel::GateAct::Evaluate);
            }
            acts.push(smart_kernel::GateAct::Renew);
            e.gates(&acts).map(|r| Outcome::from(&r))
        })
        .await
}
