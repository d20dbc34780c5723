//! How results look: a readable line or two for people, one JSON object for programs.

use serde_json::Value;
use smart_kernel::status::{PendingSummary, StatusView};
use smart_kernel::time::format_duration;
use smart_runtime::{CallOutcome, CallReport};

pub fn exit_code(r: &CallReport) -> i32 {
    match r.outcome {
        CallOutcome::Refused => 3,
        CallOutcome::Pending => 4,
        CallOutcome::Failed => 5,
        CallOutcome::Committed | CallOutcome::Denied | CallOutcome::Recorded => 0,
    }
}

pub fn print_json(v: &impl serde::Serialize) {
    match serde_json::to_string(v) {
        Ok(s) => say!("{s}"),
        Err(e) => eprintln!("smart: cannot encode output: {e}"),
    }
}

/// A value as indented JSON, for the plain-text views that show a structure whole.
pub fn pretty(v: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// A closed-vocabulary value (an enum) by the name it has on the wire: `user_signal`, not
/// `UserSignal`, so the plain text and `--json` say the same word.
pub fn wire(v: &impl serde::Serialize) -> String {
    match serde_json::to_value(v) {
        Ok(Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => "?".to_string(),
    }
}

pub fn print_report(r: &CallReport, what: &str, json: bool) {
    if json {
        print_json(r);
        return;
    }
    let seq = r.seq.map(|s| format!(" (event {s})")).unwrap_or_default();
    match r.outcome {
        CallOutcome::Committed => {
            let tier = r.tier.map(|t| format!(", tier {t}")).unwrap_or_default();
            say!("committed: {what}{seq}{tier}");
            if r.notify {
                say!("note: this changed your files; undo with `smart undo {}`", r.seq.unwrap_or(0));
            }
            if let Some(a) = &r.artifact {
                say!("artifact: {a}");
            }
            if let Some(out) = &r.output {
                print_output(out);
            }
        }
        CallOutcome::Refused => {
            say!("refused: {}: {}{seq}", r.code.as_deref().unwrap_or("?"), r.reason.as_deref().unwrap_or(""))
        }
        CallOutcome::Pending => {
            let id = r.pending_id.as_deref().unwrap_or("?");
            say!("pending: {what} needs your approval{seq}");
            match r.admissible_in_ms {
                Some(ms) if ms > 0 => say!(
                    "  its time gate opens in {}; then: smart approve {id}   (or: smart deny {id})",
                    format_duration(ms)
                ),
                _ => say!("  approve: smart approve {id}   deny: smart deny {id}"),
            }
        }
        CallOutcome::Failed => say!("failed: {what}{seq}: {}", r.reason.as_deref().unwrap_or("")),
        CallOutcome::Denied => say!("denied{seq}: nothing was run"),
        CallOutcome::Recorded => say!("ok{seq}"),
    }
}

/// Tool output, pretty but bounded: long lists are cut with a count.
fn print_output(v: &Value) {
    let mut shown = v.clone();
    if let Some(obj) = shown.as_object_mut() {
        for (_, val) in obj.iter_mut() {
            if let Some(items) = val.as_array()
                && items.len() > 20
            {
                let n = items.len();
                let mut head: Vec<Value> = items[..20].to_vec();
                head.push(Value::String(format!("… {} more", n - 20)));
                *val = Value::Array(head);
            }
        }
    }
    if let Ok(s) = serde_json::to_string_pretty(&shown) {
        say!("{s}");
    }
}

pub fn print_status(v: &StatusView) {
    let now = v.now_ms;
    say!("stance     {}", v.stance);
    match &v.lease {
        None => say!("lease      none (only L0-L1 calls are admissible)"),
        Some(l) => {
            let exp = l
                .expires_at_ms
                .map(|e| format!(", expires in {}", format_duration(e.saturating_sub(now))))
                .unwrap_or_default();
            say!("lease      {} \"{}\" ({}){exp}", wire(&l.state), l.frame, wire(&l.horizon));
        }
    }
    say!("frontier   L{}", v.frontier);
    let gates: Vec<String> =
        v.gates.iter().map(|g| format!("L{} {}", g.layer, format_duration(g.remaining_ms))).collect();
    say!("gates      {}", gates.join(" · "));
    say!("budget     {}/{} units, {}/{} steps", v.budget.used, v.budget.limit, v.steps.used, v.steps.limit);
    match &v.scope {
        None => say!("scope      none"),
        Some(t) => {
            let mutation = if t.mutation { "may mutate" } else { "read/propose only" };
            let revoked = if t.revoked { ", REVOKED" } else { "" };
            say!("scope      {} ({mutation}{revoked})", t.id.get(..12).unwrap_or(&t.id));
        }
    }
    if v.pending.is_empty() {
        say!("pending    none");
    }
    for p in &v.pending {
        print_pending(p, now);
    }
}

pub fn print_pending(p: &PendingSummary, now: u64) {
    let gate = p.admissible_at_ms.saturating_sub(now);
    let gate = if gate > 0 { format!(", admissible in {}", format_duration(gate)) } else { String::new() };
    say!(
        "pending    {}  {} (L{}, tier {}): {}{gate}, expires in {}",
        p.id,
        p.tool,
        p.layer,
        p.tier,
        p.why,
        format_duration(p.expires_at_ms.saturating_sub(now))
    );
    say!("           call {}  args {}", p.call_hash.get(..12).unwrap_or(&p.call_hash), p.args);
}

/// Adds `fields` (a JSON object) to `out`; keys `out` already has are kept.
pub fn merge(out: &mut Value, fields: Value) {
    if let (Some(obj), Value::Object(fields)) = (out.as_object_mut(), fields) {
        for (k, v) in fields {
            obj.entry(k).or_insert(v);
        }
    }
}
