//! Reading the ledger the way a person browses it: newest first, filtered, a page at a time.
//!
//! The desktop timeline shows a ledger that may hold a million events in a virtualised list, so
//! it never asks for "everything": it asks how many events match a filter, then for the window
//! of rows on screen, then for a histogram of activity. All three are single SQL statements over
//! the append-only table — the filter is compiled once into a `WHERE` clause with bound
//! parameters (no string interpolation of what the person typed), and the tool a row concerns
//! is read out of the payload with SQLite's JSON functions because it lives in a different
//! place for each event kind.
//!
//! Paging is by offset over `seq DESC`. Rows are never updated or deleted, so an offset is
//! stable except for events appended meanwhile, which push older rows down by exactly their
//! number — the caller sees them as new rows at the top.

use crate::StoredEvent;
use crate::store::{Ledger, LedgerError, row_to_event};
use rusqlite::types::Value as SqlValue;
use serde::{Deserialize, Serialize};

/// Where each kind keeps the tool's name: `refused`/`committed`/`failed` at the top,
/// `proposed`/`admitted` in the call, `pending` in the pending call. [`tool_of`] reads the same
/// places from a decoded payload; the two must agree (tested).
///
/// A payload that is not JSON (only a damaged ledger has one) concerns no tool, rather than
/// failing the query. The index `events_tool` keeps this expression (migration 4).
const TOOL_EXPR: &str = "CASE WHEN json_valid(payload) THEN coalesce(json_extract(payload, '$.tool'), \
     json_extract(payload, '$.call.tool'), json_extract(payload, '$.pending.call.tool')) END";

/// What the person narrowed the timeline to. Every field is optional; an empty filter matches
/// every event.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EventFilter {
    /// Event kinds (`committed`, `refused`, …); any of them.
    pub kinds: Vec<String>,
    /// The tool a call event concerns (`fs.quarantine`); exact.
    pub tool: Option<String>,
    /// A correlation id, or its beginning (the HUD shows the first 8 characters).
    pub corr: Option<String>,
    /// Wall-clock milliseconds since the Unix epoch, inclusive.
    pub from_wall_ms: Option<u64>,
    /// Wall-clock milliseconds since the Unix epoch, exclusive.
    pub to_wall_ms: Option<u64>,
}

/// How many events fall into one slice of time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ActivityBucket {
    /// The slice's start, wall-clock ms.
    pub start_wall_ms: u64,
    pub events: u64,
    /// Of which refusals (`refused`, `signal_refused`): a spike is worth a look.
    pub refusals: u64,
}

/// One session of use as the ledger recorded it (see [`Ledger::sessions`]). Times are the
/// kernel's (`at_ms`), the same clock its gates and leases run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct SessionSummary {
    pub first_seq: u64,
    pub last_seq: u64,
    pub start_ms: u64,
    pub end_ms: u64,
    pub events: u64,
    /// Calls carried out.
    pub committed: u64,
    /// Calls, signals and gate passes the kernel refused.
    pub refused: u64,
    /// Calls that waited for the person's approval.
    pub asked: u64,
    pub approved: u64,
    pub denied: u64,
    /// Undos carried out.
    pub undone: u64,
    /// Gate transitions (stance changes).
    pub gates: u64,
    pub emergencies: u64,
    /// Calls whose execution failed after admission.
    pub failed: u64,
}

impl SessionSummary {
    fn ending(seq: u64, at_ms: u64) -> SessionSummary {
        SessionSummary {
            first_seq: seq,
            last_seq: seq,
            start_ms: at_ms,
            end_ms: at_ms,
            events: 0,
            committed: 0,
            refused: 0,
            asked: 0,
            approved: 0,
            denied: 0,
            undone: 0,
            gates: 0,
            emergencies: 0,
            failed: 0,
        }
    }

    fn count(&mut self, kind: &str) {
        self.events += 1;
        let counter = match kind {
            "committed" => &mut self.committed,
            "refused" | "signal_refused" | "gate_refused" => &mut self.refused,
            "pending" => &mut self.asked,
            "approved" => &mut self.approved,
            "denied" => &mut self.denied,
            "undo_admitted" => &mut self.undone,
            "stance_changed" => &mut self.gates,
            "emergency" => &mut self.emergencies,
            "failed" => &mut self.failed,
            _ => return,
        };
        *counter += 1;
    }
}

/// The tool an event concerns, read from its payload the way [`TOOL_EXPR`] reads it in SQL.
pub fn tool_of(payload: &serde_json::Value) -> Option<&str> {
    [&payload["tool"], &payload["call"]["tool"], &payload["pending"]["call"]["tool"]]
        .into_iter()
        .find_map(|v| v.as_str())
}

impl EventFilter {
    /// The `WHERE` clause and its parameters.
    fn sql(&self) -> (String, Vec<SqlValue>) {
        let mut clauses = vec!["1 = 1".to_string()];
        let mut params: Vec<SqlValue> = vec![];
        if !self.kinds.is_empty() {
            let marks = vec!["?"; self.kinds.len()].join(", ");
            clauses.push(format!("kind IN ({marks})"));
            params.extend(self.kinds.iter().map(|k| SqlValue::Text(k.clone())));
        }
        if let Some(tool) = self.tool.as_deref().filter(|t| !t.is_empty()) {
            clauses.push(format!("{TOOL_EXPR} = ?"));
            params.push(SqlValue::Text(tool.to_string()));
        }
        if let Some(corr) = self.corr.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
            // A prefix match without LIKE's wildcards: `_` and `%` in the input stay literal.
            // The range lets SQLite read the prefix's stretch of the corr index instead of every
            // row; the substr keeps the match exact.
            clauses.push("corr >= ?".into());
            params.push(SqlValue::Text(corr.to_string()));
            if let Some(end) = prefix_end(corr) {
                clauses.push("corr < ?".into());
                params.push(SqlValue::Text(end));
            }
            clauses.push("substr(corr, 1, length(?)) = ?".into());
            params.push(SqlValue::Text(corr.to_string()));
            params.push(SqlValue::Text(corr.to_string()));
        }
        if let Some(from) = self.from_wall_ms {
            clauses.push("wall_ms >= ?".into());
            params.push(SqlValue::Integer(clamp(from)));
        }
        if let Some(to) = self.to_wall_ms {
            clauses.push("wall_ms < ?".into());
            params.push(SqlValue::Integer(clamp(to)));
        }
        (clauses.join(" AND "), params)
    }
}

/// The least text after every text that begins with `prefix`, in SQLite's (byte) order, if
/// there is one: the prefix with its last character moved on by one (a last character that
/// cannot move on is dropped and the one before it moved instead). UTF-8 orders as code points do.
fn prefix_end(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        let next = (u32::from(last) + 1..=u32::from(char::MAX)).find_map(char::from_u32);
        if let Some(next) = next {
            chars.push(next);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

fn clamp(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

impl Ledger {
    /// How many events match `filter`.
    pub fn count(&self, filter: &EventFilter) -> Result<u64, LedgerError> {
        let (clause, params) = filter.sql();
        let mut stmt = self.connection().prepare(&format!("SELECT count(*) FROM events WHERE {clause}"))?;
        let n: i64 = stmt.query_row(rusqlite::params_from_iter(params), |r| r.get(0))?;
        Ok(n.max(0) as u64)
    }

    /// The matching events, newest first, skipping the `offset` newest.
    pub fn page(&self, filter: &EventFilter, offset: u64, limit: usize) -> Result<Vec<StoredEvent>, LedgerError> {
        let (clause, mut params) = filter.sql();
        params.push(SqlValue::Integer(i64::try_from(limit).unwrap_or(i64::MAX)));
        params.push(SqlValue::Integer(clamp(offset)));
        let mut stmt = self
            .connection()
            .prepare(&format!("{} WHERE {clause} ORDER BY seq DESC LIMIT ? OFFSET ?", crate::store::SELECT))?;
        let rows = stmt.query_map(rusqlite::params_from_iter(params), row_to_event)?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// The matching events from `since` on, oldest first, at most `limit` (one request's
    /// events, as `smart ledger show --corr` lists them).
    pub fn oldest_first(
        &self,
        filter: &EventFilter,
        since: u64,
        limit: usize,
    ) -> Result<Vec<StoredEvent>, LedgerError> {
        let (clause, mut params) = filter.sql();
        params.push(SqlValue::Integer(clamp(since)));
        params.push(SqlValue::Integer(i64::try_from(limit).unwrap_or(i64::MAX)));
        let mut stmt = self
            .connection()
            .prepare(&format!("{} WHERE ({clause}) AND seq >= ? ORDER BY seq LIMIT ?", crate::store::SELECT))?;
        let rows = stmt.query_map(rusqlite::params_from_iter(params), row_to_event)?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// Matching events per `bucket_ms` of wall-clock time, oldest bucket first, empty buckets
    /// left out.
    pub fn activity(&self, filter: &EventFilter, bucket_ms: u64) -> Result<Vec<ActivityBucket>, LedgerError> {
        let bucket = clamp(bucket_ms.max(1));
        let (clause, mut params) = filter.sql();
        params.insert(0, SqlValue::Integer(bucket));
        let mut stmt = self.connection().prepare(&format!(
            "SELECT (wall_ms / ?) AS b, count(*), sum(kind IN ('refused', 'signal_refused'))
             FROM events WHERE {clause} GROUP BY b ORDER BY b"
        ))?;
        let rows = stmt.query_map(rusqlite::params_from_iter(params), |r| {
            let b: i64 = r.get(0)?;
            let n: i64 = r.get(1)?;
            let refusals: i64 = r.get(2)?;
            Ok(ActivityBucket {
                start_wall_ms: (b.max(0) as u64).saturating_mul(bucket as u64),
                events: n.max(0) as u64,
                refusals: refusals.max(0) as u64,
            })
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// The ledger cut into sessions, newest first: a session is a run of events with no quiet
    /// stretch longer than `quiet_gap_ms` of kernel time between two of them. Seed 001's
    /// `sessions.json` is "history, audit only": here it is computed from the ledger on demand
    /// and never stored, so it cannot drift from what happened or become a source of truth.
    ///
    /// It walks the table newest first and stops once `limit` sessions are complete, so the
    /// HUD's five most recent cost what those sessions hold, not what the whole ledger holds
    /// (a first version used SQL window functions over every row: half a second per read at
    /// 100,000 events).
    pub fn sessions(&self, quiet_gap_ms: u64, limit: usize) -> Result<Vec<SessionSummary>, LedgerError> {
        let mut out = Vec::new();
        if limit == 0 {
            return Ok(out);
        }
        let mut stmt = self.connection().prepare("SELECT seq, kind, at_ms FROM events ORDER BY seq DESC")?;
        let mut rows = stmt.query([])?;
        let mut open: Option<SessionSummary> = None;
        while let Some(r) = rows.next()? {
            let seq = r.get::<_, i64>(0)?.max(0) as u64;
            let kind: String = r.get(1)?;
            let at = r.get::<_, i64>(2)?.max(0) as u64;
            if open.as_ref().is_some_and(|s| s.start_ms.saturating_sub(at) > quiet_gap_ms) {
                out.extend(open.take());
                if out.len() == limit {
                    return Ok(out);
                }
            }
            let s = open.get_or_insert_with(|| SessionSummary::ending(seq, at));
            s.first_seq = seq;
            s.start_ms = at;
            s.count(&kind);
        }
        out.extend(open);
        Ok(out)
    }

    /// The correlation id the pending call `id` was recorded under, if it is in the ledger: a
    /// decision on it is a step of that same request. Only `pending` events are read (the kind
    /// index), newest first; they are few — only calls that waited for the person.
    pub fn corr_of_pending(&self, id: &str) -> Result<Option<String>, LedgerError> {
        use rusqlite::OptionalExtension;
        let mut stmt = self.connection().prepare_cached(
            // CASE, not AND: SQLite does not promise to test `json_valid` first, and one
            // damaged payload must not fail the query (as for `TOOL_EXPR`).
            "SELECT corr FROM events WHERE kind = 'pending' \
             AND CASE WHEN json_valid(payload) THEN json_extract(payload, '$.pending.id') END = ?1 \
             ORDER BY seq DESC LIMIT 1",
        )?;
        Ok(stmt.query_row([id], |r| r.get(0)).optional()?)
    }

    /// The tool names that occur in the ledger, for the timeline's filter menu.
    pub fn tools(&self) -> Result<Vec<String>, LedgerError> {
        let mut stmt = self
            .connection()
            .prepare(&format!("SELECT DISTINCT {TOOL_EXPR} AS t FROM events WHERE t IS NOT NULL ORDER BY t"))?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;
    use proptest::prelude::*;

    /// How SQLite plans the timeline's count for `filter`.
    fn plan(ledger: &crate::Ledger, filter: &EventFilter) -> String {
        let (clause, params) = filter.sql();
        let mut stmt = ledger
            .connection()
            .prepare(&format!("EXPLAIN QUERY PLAN SELECT count(*) FROM events WHERE {clause}"))
            .unwrap();
        let rows = stmt.query_map(rusqlite::params_from_iter(params), |r| r.get::<_, String>(3)).unwrap();
        rows.collect::<Result<Vec<_>, _>>().unwrap().join("; ")
    }

    // A filtered count read every payload (tool) or every row (corr prefix): 94 ms and 37 ms at
    // 100,000 events, ten times that at a year's million. Both now read their index.
    #[test]
    fn the_tool_and_corr_filters_read_their_index_not_every_event() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = crate::Ledger::create(&dir.path().join("l.db")).unwrap();
        let by_tool = EventFilter { tool: Some("fs.hash".into()), ..Default::default() };
        assert!(plan(&ledger, &by_tool).contains("events_tool"), "{}", plan(&ledger, &by_tool));
        let by_corr = EventFilter { corr: Some("0b5c1e".into()), ..Default::default() };
        assert!(plan(&ledger, &by_corr).contains("events_corr"), "{}", plan(&ledger, &by_corr));
        let mut stmt = ledger
            .connection()
            .prepare(&format!(
                "EXPLAIN QUERY PLAN SELECT DISTINCT {TOOL_EXPR} AS t FROM events WHERE t IS NOT NULL ORDER BY t"
            ))
            .unwrap();
        let tools: Vec<String> = stmt.query_map([], |r| r.get(3)).unwrap().collect::<Result<_, _>>().unwrap();
        assert!(tools.iter().any(|p| p.contains("INDEX events_tool")), "{tools:?}");
    }

    /// A decision joins the request of the pending call it decides, found by the `pending`
    /// event's id — and a damaged `pending` payload (only a damaged ledger has one) is skipped,
    /// never an error that would stop every approval.
    #[test]
    fn a_pending_call_is_found_by_its_id_past_a_damaged_payload() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = crate::Ledger::create(&dir.path().join("l.db")).unwrap();
        let row = |seq: i64, corr: &str, payload: &str| {
            ledger
                .connection()
                .execute(
                    "INSERT INTO events VALUES (?1, ?2, 'pending', ?3, 0, 0, 's', 's', 'p', 'h', 'x', 2)",
                    rusqlite::params![seq, corr, payload],
                )
                .unwrap();
        };
        row(1, "aaaa", r#"{"kind":"pending","pending":{"id":"p1"}}"#);
        row(2, "bbbb", "{not json");
        row(3, "cccc", r#"{"kind":"pending","pending":{"id":"p2"}}"#);
        assert_eq!(ledger.corr_of_pending("p1").unwrap().as_deref(), Some("aaaa"));
        assert_eq!(ledger.corr_of_pending("p2").unwrap().as_deref(), Some("cccc"));
        assert_eq!(ledger.corr_of_pending("p3").unwrap(), None);
    }

    proptest! {
        // The range the corr filter reads holds exactly the texts that begin with the prefix.
        #[test]
        fn the_prefix_range_holds_exactly_the_texts_with_the_prefix(
            prefix in "[a-f0-9\u{7f}\u{ff}\u{d7ff}\u{e000}\u{10ffff}]{1,4}",
            rest in "[a-f0-9\u{7f}\u{ff}\u{d7ff}\u{e000}\u{10ffff}]{0,4}",
            other in "[a-f0-9\u{7f}\u{ff}\u{d7ff}\u{e000}\u{10ffff}]{0,8}",
        ) {
            let end = prefix_end(&prefix);
            let within = |s: &str| s >= prefix.as_str() && end.as_deref().is_none_or(|e| s < e);
            let with_prefix = format!("{prefix}{rest}");
            prop_assert!(within(&with_prefix));
            prop_assert_eq!(within(&other), other.starts_with(&prefix));
        }
    }
}
