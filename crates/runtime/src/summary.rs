//! One line of words about a ledger event: what `smart ledger show` prints after the kind and
//! what the desktop timeline shows in each row. One function, so the two never disagree about
//! what an event says.

use serde_json::Value;

/// One line about an event.
pub fn event_summary(payload: &str) -> String {
    let v: Value = serde_json::from_str(payload).unwrap_or(Value::Null);
    let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    match v.get("kind").and_then(Value::as_str).unwrap_or("") {
        "proposed" => format!("{} {}", v["call"]["tool"].as_str().unwrap_or(""), v["call"]["args"]),
        "refused" => format!("{} {}: {}", s("tool"), s("code"), s("reason")),
        "admitted" => {
            format!("{} L{} tier {}", v["call"]["tool"].as_str().unwrap_or(""), v["call"]["layer"], v["tier"])
        }
        "committed" => {
            format!("{} L{}{}", s("tool"), v["layer"], if v.get("rollback").is_some() { " (undoable)" } else { "" })
        }
        "failed" => format!("{}: {}", s("tool"), s("error")),
        "pending" => format!(
            "{} {} — {}",
            v["pending"]["id"].as_str().unwrap_or(""),
            v["pending"]["call"]["tool"].as_str().unwrap_or(""),
            v["pending"]["why"].as_str().unwrap_or("")
        ),
        "approved" | "denied" => s("pending_id"),
        "signal_refused" | "gate_refused" => format!("{}: {}", s("code"), s("reason")),
        "stance_changed" => format!("{} → {} ({})", s("from"), s("to"), s("act")),
        "lease_drafted" => format!("\"{}\"", v["lease"]["frame"].as_str().unwrap_or("")),
        "scope_issued" => {
            format!("{} mutation={}", short(v["token"]["id"].as_str().unwrap_or("")), v["token"]["mutation"])
        }
        "emergency" => s("reason"),
        "fault" => format!("{}: {} (restart in {} ms)", s("component"), s("reason"), v["restart_in_ms"]),
        "genesis" => format!("device key {}…", short(&s("device_key"))),
        _ => String::new(),
    }
}

/// The first 12 characters of an id or key (all of it when shorter).
fn short(id: &str) -> &str {
    id.char_indices().nth(12).map_or(id, |(i, _)| &id[..i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_or_non_ascii_id_does_not_break_the_line() {
        assert_eq!(event_summary(r#"{"kind":"genesis","device_key":"ab"}"#), "device key ab…");
        assert_eq!(event_summary(r#"{"kind":"genesis","device_key":"ééééééééééééé"}"#), "device key éééééééééééé…");
        assert_eq!(event_summary("not json"), "");
    }
}
