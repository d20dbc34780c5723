//! Input bounds: what a proposal may weigh before the ledger keeps it.
//!
//! Every proposal is ledgered as it arrived (`proposed`), before any check, so that a refusal can
//! be read next to what was refused. That makes the ledger's reader the last judge of what a
//! proposer may send: JSON nested 126 arrays deep was refused `schema_invalid`, but its `proposed`
//! event was stored whole, and from then on every reader of the ledger — `verify`, `replay`, the
//! engine opening it without a snapshot — hit serde_json's recursion limit on that row. One
//! refused call made the ledger unreadable for good.
//!
//! So a proposal outside these bounds is recorded with its arguments *replaced* by a note of what
//! was there, and refused `schema_invalid` with the reason. The bounds sit far above any real
//! call (tool arguments nest four or five levels; a 3,000-file plan is a few hundred kilobytes)
//! and far below what the reader can take (the ledger checks every event against its own,
//! looser, limit before writing; see `smart_ledger`'s `MAX_EVENT_DEPTH`).

use crate::approval::UserSignal;
use crate::call::ProposedCall;
use serde_json::{Value, json};

/// The deepest a call's arguments may nest (an object or array inside another counts one).
pub const MAX_ARGS_DEPTH: usize = 32;
/// The most a call's arguments may weigh, as JSON text.
pub const MAX_ARGS_BYTES: usize = 1024 * 1024;
/// The longest tool name, scope id or work-order id a proposal may carry, and the longest field
/// of a signal (an Ed25519 signature is 128 hex characters, a nonce 32).
pub const MAX_NAME_CHARS: usize = 200;
/// The longest reason a person may give for an emergency stop.
pub const MAX_REASON_CHARS: usize = 2000;

fn shortened(s: &str, max: usize) -> String {
    if s.chars().count() > max { s.chars().take(max.saturating_sub(1)).chain(['…']).collect() } else { s.to_string() }
}

/// A reason as the ledger keeps it: at most [`MAX_REASON_CHARS`].
pub fn reason(s: &str) -> String {
    shortened(s, MAX_REASON_CHARS)
}

/// Why `signal` is out of bounds, if it is: a field longer than any real signal's.
pub fn check_signal(signal: &UserSignal) -> Option<String> {
    let fields = [
        ("pending id", Some(&signal.pending_id)),
        ("nonce", Some(&signal.nonce)),
        ("public key", Some(&signal.public_key)),
        ("signature", signal.signature.as_ref()),
    ];
    fields.into_iter().find_map(|(what, text)| {
        let n = text?.chars().count();
        (n > MAX_NAME_CHARS).then(|| format!("the signal's {what} is {n} characters long (at most {MAX_NAME_CHARS})"))
    })
}

/// The signal as the ledger keeps it when it is out of bounds: every field cut to the bound (it
/// can no longer verify, and it was refused before it was checked).
pub fn elided_signal(signal: &UserSignal) -> UserSignal {
    let short = |s: &str| shortened(s, MAX_NAME_CHARS);
    UserSignal {
        pending_id: short(&signal.pending_id),
        nonce: short(&signal.nonce),
        public_key: short(&signal.public_key),
        signature: signal.signature.as_deref().map(short),
        ..signal.clone()
    }
}

/// How deeply `v` nests: a scalar is 0, `[]` is 1, `[[1]]` is 2. Iterative, so a value that is
/// too deep to recurse into is measured without recursing.
pub fn depth(v: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(v, 0usize)];
    while let Some((v, d)) = stack.pop() {
        match v {
            Value::Array(items) => {
                deepest = deepest.max(d + 1);
                stack.extend(items.iter().map(|x| (x, d + 1)));
            }
            Value::Object(map) => {
                deepest = deepest.max(d + 1);
                stack.extend(map.values().map(|x| (x, d + 1)));
            }
            _ => {}
        }
    }
    deepest
}

/// Why `call` is out of bounds, if it is.
pub fn check(call: &ProposedCall) -> Option<String> {
    for (what, text) in [
        ("tool name", Some(&call.tool)),
        ("scope id", Some(&call.scope_id)),
        ("work order id", call.work_order.as_ref()),
    ] {
        if let Some(t) = text
            && t.chars().count() > MAX_NAME_CHARS
        {
            return Some(format!("the {what} is {} characters long (at most {MAX_NAME_CHARS})", t.chars().count()));
        }
    }
    let d = depth(&call.args);
    if d > MAX_ARGS_DEPTH {
        return Some(format!("the arguments nest {d} levels deep (at most {MAX_ARGS_DEPTH})"));
    }
    if let Some(snapshot) = &call.snapshot
        && snapshot.keys().any(|k| k.len() > 4096)
    {
        return Some("a snapshot path is longer than 4096 bytes".into());
    }
    // Depth is bounded now, so encoding cannot recurse too far.
    let bytes = serde_json::to_vec(&call.args).map(|b| b.len()).unwrap_or(usize::MAX);
    if bytes > MAX_ARGS_BYTES {
        return Some(format!("the arguments are {bytes} bytes of JSON (at most {MAX_ARGS_BYTES})"));
    }
    None
}

/// The call as the ledger keeps it when it is out of bounds: the same call with its heavy parts
/// replaced by a note of what they were.
pub fn elided(call: &ProposedCall, why: &str) -> ProposedCall {
    let short = |s: &str| shortened(s, MAX_NAME_CHARS);
    ProposedCall {
        tool: short(&call.tool),
        args: json!({ "elided": why }),
        scope_id: short(&call.scope_id),
        source: call.source,
        risk_hint: call.risk_hint,
        snapshot: None,
        work_order: call.work_order.as_deref().map(short),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn nested(n: usize) -> Value {
        let mut v = json!("docs");
        for _ in 0..n {
            v = json!([v]);
        }
        v
    }

    fn call(args: Value) -> ProposedCall {
        ProposedCall {
            tool: "fs.scan".into(),
            args,
            scope_id: String::new(),
            source: Default::default(),
            risk_hint: None,
            snapshot: None,
            work_order: None,
        }
    }

    #[test]
    fn depth_counts_containers_not_scalars() {
        assert_eq!(depth(&json!(1)), 0);
        assert_eq!(depth(&json!([])), 1);
        assert_eq!(depth(&json!({"a": [1, {"b": []}]})), 4);
        assert_eq!(depth(&nested(126)), 126);
        // Far deeper than anything could recurse through, measured without recursion.
        let mut v = json!(null);
        for _ in 0..100_000 {
            v = Value::Array(vec![v]);
        }
        assert_eq!(depth(&v), 100_000);
        // Dropping such a value recurses in serde_json; take it apart by hand.
        while let Value::Array(mut items) = v {
            v = items.pop().unwrap_or(Value::Null);
        }
    }

    #[test]
    fn a_call_past_any_bound_is_named_and_one_inside_them_is_not() {
        assert_eq!(check(&call(json!({"path": nested(MAX_ARGS_DEPTH - 1)}))), None);
        let why = check(&call(json!({"path": nested(126)}))).unwrap();
        assert!(why.contains("127 levels deep"), "{why}");
        let why = check(&call(json!({"value": "x".repeat(MAX_ARGS_BYTES)}))).unwrap();
        assert!(why.contains("bytes of JSON"), "{why}");
        let mut c = call(json!({}));
        c.tool = "t".repeat(10_000);
        assert!(check(&c).unwrap().contains("tool name is 10000 characters"));
        let kept = elided(&c, "why");
        assert_eq!(kept.tool.chars().count(), MAX_NAME_CHARS);
        assert_eq!(kept.args, json!({"elided": "why"}));
        assert_eq!(check(&kept), None);
    }
}
