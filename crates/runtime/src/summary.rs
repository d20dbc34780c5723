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
        "stance_changed" => {
            let writes = v.get("writes").and_then(Value::as_array).map_or(0, Vec::len);
            let w = if writes > 0 { format!(", {writes} memory write(s)") } else { String::new() };
            format!("{} → {} ({}{w})", s("from"), s("to"), s("act"))
        }
        "gate_proposed" => {
            let p = &v["proposal"];
            let word = |k: &str| p[k].as_str().unwrap_or("").to_string();
            format!("{} {} from {}: {}", word("suggested_gate"), word("severity"), word("source"), word("reason"))
        }
        "proposals_read" => {
            let verdicts = v["verdicts"].as_array().map(Vec::as_slice).unwrap_or_default();
            let count = |what: &str| verdicts.iter().filter(|x| x["verdict"] == what).count();
            format!(
                "{}: {} accepted, {} referred, {} rejected",
                s("trigger"),
                count("accepted"),
                count("referred"),
                count("rejected")
            )
        }
        "progress_noted" => "progress updated".to_string(),
        "progress_staled" => "progress marked stale".to_string(),
        "signal_noted" => format!("{}: {}", s("signal"), s("text")),
        "artifact_registered" => format!("{} by {}", v["artifact"]["name"].as_str().unwrap_or(""), s("owner")),
        "artifact_decayed" => format!("{} → {}", s("pointer"), s("freshness")),
        "work_order_opened" => {
            format!("{}: {}", v["order"]["id"].as_str().unwrap_or(""), v["order"]["brief"].as_str().unwrap_or(""))
        }
        "work_order_closed" => format!("{}: {}", s("id"), s("reason")),
        "bootstrap_stepped" => v["input"]["input"].as_str().unwrap_or("").to_string(),
        "lease_drafted" => format!("\"{}\"", v["lease"]["frame"].as_str().unwrap_or("")),
        "scope_issued" => {
            format!("{} mutation={}", short(v["token"]["id"].as_str().unwrap_or("")), v["token"]["mutation"])
        }
        "emergency" => s("reason"),
        "fault" => format!("{}: {} (restart in {} ms)", s("component"), s("reason"), v["restart_in_ms"]),
        "genesis" => format!("device key {}…", short(&s("device_key"))),
        "hash_scheme_adopted" => format!("state hashed by scheme {} from here on", v["scheme"]),
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

    #[test]
    fn the_slow_loops_events_read_as_words() {
        let read = r#"{"kind":"proposals_read","trigger":"end_of_turn","verdicts":[{"verdict":"accepted"},{"verdict":"referred"},{"verdict":"referred"}]}"#;
        assert_eq!(event_summary(read), "end_of_turn: 1 accepted, 2 referred, 0 rejected");
        let p = r#"{"kind":"gate_proposed","proposal":{"suggested_gate":"evaluation","severity":"high","source":"decay_manager","reason":"the lease expired"}}"#;
        assert_eq!(event_summary(p), "evaluation high from decay_manager: the lease expired");
        let g = r#"{"kind":"stance_changed","from":"discovery","to":"execution","act":"commitment","writes":[{},{}]}"#;
        assert_eq!(event_summary(g), "discovery → execution (commitment, 2 memory write(s))");
        assert_eq!(event_summary(r#"{"kind":"bootstrap_stepped","input":{"input":"skip"}}"#), "skip");
    }
}
