//! How results look: a readable line or two for people, one JSON object for programs.

use serde_json::Value;
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

pub fn print_status(v: &Value) {
    let s = |k: &str| v.get(k).cloned().unwrap_or(Value::Null);
    let now = v.get("now_ms").and_then(Value::as_u64).unwrap_or(0);
    say!("stance     {}", s("stance").as_str().unwrap_or("?"));
    match v.get("lease").filter(|l| !l.is_null()) {
        None => say!("lease      none (only L0-L1 calls are admissible)"),
        Some(l) => {
            let state = l.get("state").and_then(Value::as_str).unwrap_or("?");
            let frame = l.get("frame").and_then(Value::as_str).unwrap_or("");
            let horizon = l.get("horizon").and_then(Value::as_str).unwrap_or("");
            let exp = l
                .get("expires_at_ms")
                .and_then(Value::as_u64)
                .map(|e| format!(", expires in {}", format_duration(e.saturating_sub(now))))
                .unwrap_or_default();
            say!("lease      {state} \"{frame}\" ({horizon}){exp}");
        }
    }
    say!("frontier   L{}", s("frontier"));
    let gates: Vec<String> = v
        .get("gates")
        .and_then(Value::as_array)
        .map(|g| {
            g.iter()
                .map(|x| {
                    format!(
                        "L{} {}",
                        x.get("layer").and_then(Value::as_u64).unwrap_or(0),
                        format_duration(x.get("remaining_ms").and_then(Value::as_u64).unwrap_or(0))
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    say!("gates      {}", gates.join(" · "));
    let b = s("budget");
    let st = s("steps");
    say!("budget     {}/{} units, {}/{} steps", b["used"], b["limit"], st["used"], st["limit"]);
    match v.get("scope").filter(|x| !x.is_null()) {
        None => say!("scope      none"),
        Some(t) => {
            let id = t.get("id").and_then(Value::as_str).unwrap_or("");
            let mutation = if t.get("mutation").and_then(Value::as_bool) == Some(true) {
                "may mutate"
            } else {
                "read/propose only"
            };
            let revoked = if t.get("revoked").and_then(Value::as_bool) == Some(true) { ", REVOKED" } else { "" };
            say!("scope      {} ({mutation}{revoked})", id.get(..12).unwrap_or(id));
        }
    }
    let pending = v.get("pending").and_then(Value::as_array).cloned().unwrap_or_default();
    if pending.is_empty() {
        say!("pending    none");
    }
    for p in pending {
        print_pending(&p, now);
    }
}

pub fn print_pending(p: &Value, now: u64) {
    let g = |k: &str| p.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let n = |k: &str| p.get(k).and_then(Value::as_u64).unwrap_or(0);
    let gate = n("admissible_at_ms").saturating_sub(now);
    let gate = if gate > 0 { format!(", admissible in {}", format_duration(gate)) } else { String::new() };
    say!(
        "pending    {}  {} (L{}, tier {}): {}{gate}, expires in {}",
        g("id"),
        g("tool"),
        n("layer"),
        n("tier"),
        g("why"),
        format_duration(n("expires_at_ms").saturating_sub(now))
    );
    say!(
        "           call {}  args {}",
        &g("call_hash")[..12.min(g("call_hash").len())],
        p.get("args").cloned().unwrap_or(Value::Null)
    );
}

/// Adds `fields` (a JSON object) to `out`; keys `out` already has are kept.
pub fn merge(out: &mut Value, fields: Value) {
    if let (Some(obj), Value::Object(fields)) = (out.as_object_mut(), fields) {
        for (k, v) in fields {
            obj.entry(k).or_insert(v);
        }
    }
}
