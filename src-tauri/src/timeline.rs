//! The ledger timeline's commands: pages of events for a virtualised list, one event in detail
//! with its integrity checks, the whole-chain verify badge, and activity over time.
//!
//! The list never loads the ledger whole. The UI asks for the count under a filter, then for
//! the rows in view (`offset`, `limit`, newest first); a million events cost the same to scroll
//! as a hundred. Every row is re-read from SQLite on request, so the timeline cannot drift from
//! the ledger it shows.

use crate::session::Session;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use smart_ledger::{EventFilter, StoredEvent};
use tauri::State;

/// The most rows one page may ask for.
pub const MAX_PAGE: usize = 500;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(default)]
pub struct TimelineFilter {
    pub kinds: Vec<String>,
    pub tool: Option<String>,
    pub corr: Option<String>,
    pub from_wall_ms: Option<u64>,
    pub to_wall_ms: Option<u64>,
}

impl From<TimelineFilter> for EventFilter {
    fn from(f: TimelineFilter) -> EventFilter {
        EventFilter {
            kinds: f.kinds,
            tool: f.tool,
            corr: f.corr,
            from_wall_ms: f.from_wall_ms,
            to_wall_ms: f.to_wall_ms,
        }
    }
}

/// One line of the timeline.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct TimelineRow {
    pub seq: u64,
    pub corr: String,
    pub kind: String,
    pub wall_ms: u64,
    pub tool: Option<String>,
    pub summary: String,
    /// A committed call that recorded how to undo it (and is not itself an undo).
    pub undoable: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct TimelinePage {
    /// Events matching the filter, in all.
    pub total: u64,
    pub offset: u64,
    pub rows: Vec<TimelineRow>,
}

/// One event in full, with its checks.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct EventDetail {
    pub row: TimelineRow,
    #[cfg_attr(test, ts(type = "unknown"))]
    pub payload: Value,
    pub at_ms: u64,
    pub hash: String,
    pub prev_hash: String,
    pub state_before: String,
    pub state_after: String,
    pub hash_ok: bool,
    pub link_ok: bool,
    /// `None` when the device key is not available to check the seal.
    pub seal_ok: Option<bool>,
    /// For approve/deny/emergency events: the person's Ed25519 signature.
    pub signature_ok: Option<bool>,
    pub signature_error: Option<String>,
}

/// The header's integrity badge: what was checked just now, and where the whole-chain check stands.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct VerifyBadge {
    /// False when either check found something: `first_bad_seq` and `reason` then say what.
    pub ok: bool,
    pub events: u64,
    pub head: Option<String>,
    pub first_bad_seq: Option<u64>,
    pub reason: Option<String>,
    /// Which check the verdict comes from.
    pub scope: VerifyScope,
    /// The events checked just now came after this one (0: every event was).
    pub checked_after: u64,
    /// When the whole chain was last found intact in this run of the app (wall-clock ms).
    pub whole_chain_verified_ms: Option<u64>,
    /// A whole-chain check is running in the background.
    pub whole_chain_running: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum VerifyScope {
    /// The events after the last verified one, checked just now.
    NewEvents,
    /// Every event, by the background check.
    WholeChain,
}

/// How often the app re-verifies the whole chain in the background while it runs.
const WHOLE_CHAIN_EVERY: std::time::Duration = std::time::Duration::from_secs(30 * 60);

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ActivityBar {
    pub start_wall_ms: u64,
    pub events: u64,
    pub refusals: u64,
}

fn row_view(r: &StoredEvent) -> (TimelineRow, Value) {
    let payload: Value = serde_json::from_str(&r.payload).unwrap_or(Value::String(r.payload.clone()));
    let undoable = r.kind == "committed" && !payload["rollback"].is_null() && payload["undoes"].is_null();
    let row = TimelineRow {
        seq: r.seq,
        corr: r.corr.clone(),
        kind: r.kind.clone(),
        wall_ms: r.wall_ms,
        tool: smart_ledger::tool_of(&payload).map(str::to_string),
        summary: smart_runtime::summary::event_summary(&r.payload),
        undoable,
    };
    (row, payload)
}

#[tauri::command]
pub async fn timeline(
    session: State<'_, Session>,
    filter: TimelineFilter,
    offset: u64,
    limit: usize,
) -> Result<TimelinePage, String> {
    let filter = EventFilter::from(filter);
    session
        .with_engine(|e| {
            e.refresh()?;
            let l = e.ledger();
            let total = l.count(&filter)?;
            let rows = l.page(&filter, offset, limit.min(MAX_PAGE))?;
            Ok(TimelinePage { total, offset, rows: rows.iter().map(|r| row_view(r).0).collect() })
        })
        .await
}

#[tauri::command]
pub async fn event_detail(session: State<'_, Session>, seq: u64) -> Result<EventDetail, String> {
    session
        .with_engine(|e| {
            e.refresh()?;
            let not_found = || smart_runtime::RuntimeError::BadInput(format!("there is no event {seq} in the ledger"));
            let r = e.ledger().get(seq)?.ok_or_else(not_found)?;
            let check = e.inspect(seq)?.ok_or_else(not_found)?;
            let (row, payload) = row_view(&r);
            Ok(EventDetail {
                row,
                payload,
                at_ms: r.at_ms,
                hash: r.hash,
                prev_hash: r.prev_hash,
                state_before: r.state_before,
                state_after: r.state_after,
                hash_ok: check.hash_ok,
                link_ok: check.link_ok,
                seal_ok: check.seal_ok,
                signature_ok: check.signature_ok,
                signature_error: check.signature_error,
            })
        })
        .await
}

/// Checks the new events at once and the whole chain in the background (see
/// `smart_runtime::chain_check`); a failure of either is what the badge shows.
#[tauri::command]
pub async fn verify_ledger(session: State<'_, Session>) -> Result<VerifyBadge, String> {
    let (report, after) = session.with_engine(|e| e.verify_new()).await?;
    let check = session.chain_check();
    if report.ok
        && let Ok(dir) = session.data_dir()
    {
        check.start_if_due(dir, WHOLE_CHAIN_EVERY);
    }
    Ok(badge(report, after, &check.status()))
}

fn badge(new: smart_ledger::VerifyReport, after: u64, whole: &smart_runtime::chain_check::Status) -> VerifyBadge {
    let verified_ms = whole.last.as_ref().filter(|p| p.report.ok).map(|p| p.finished_ms);
    let failed_whole = whole.last.as_ref().map(|p| &p.report).filter(|r| !r.ok);
    let (shown, scope) = match failed_whole {
        Some(r) if new.ok => (r.clone(), VerifyScope::WholeChain),
        _ => (new.clone(), if after == 0 { VerifyScope::WholeChain } else { VerifyScope::NewEvents }),
    };
    VerifyBadge {
        ok: shown.ok,
        events: new.events.max(shown.events),
        head: new.head,
        first_bad_seq: shown.first_bad_seq,
        reason: shown.reason,
        scope,
        checked_after: after,
        whole_chain_verified_ms: verified_ms,
        whole_chain_running: whole.running,
    }
}

#[tauri::command]
pub async fn activity(
    session: State<'_, Session>,
    filter: TimelineFilter,
    bucket_ms: u64,
) -> Result<Vec<ActivityBar>, String> {
    let filter = EventFilter::from(filter);
    session
        .with_engine(|e| {
            e.refresh()?;
            Ok(e.ledger()
                .activity(&filter, bucket_ms)?
                .into_iter()
                .map(|b| ActivityBar { start_wall_ms: b.start_wall_ms, events: b.events, refusals: b.refusals })
                .collect())
        })
        .await
}

/// The tools that occur in the ledger (for the filter menu).
#[tauri::command]
pub async fn ledger_tools(session: State<'_, Session>) -> Result<Vec<String>, String> {
    session.with_engine(|e| Ok(e.ledger().tools()?)).await
}
