//! Assent: "bet", "alright go", "yes, do it" said right after SMART prepared something.
//!
//! A person who has just been shown a patch, a move plan or a quarantine list answers the way
//! people answer a colleague who asks "shall I?": with a word or two of go-ahead. Those words
//! name nothing and ask for no tool, so the model, which ranks tools by what a sentence says,
//! finds no call in them ("bet" ranked the status report 0.96 with a call at 0.01; "aight go"
//! a call at 0.01). Yet right after a proposal their meaning is not in doubt: apply what was
//! just prepared.
//!
//! So this rule is narrow on both sides:
//!
//! - the words must be *only* go-ahead ([`GO`]) with lead-ins and praise around them
//!   ([`AROUND`]): "bet", "alright go", "looks good, send it", "yes please do it". A sentence
//!   with any other word goes to the rest of understanding, which reads what it names. And
//!   "yes", "ok" or "looks good" alone are no go-ahead: they acknowledge as often as they
//!   approve, and an applied move is not what "ok" should risk;
//! - the newest committed call must be the one that prepared the newest artifact
//!   ([`super::Context::just_prepared`]): "go" an hour and three listings later is not about
//!   that plan, and a plan already carried out is not prepared any more.
//!
//! The call still goes to the kernel like any other: applying is gated and, at its layer,
//! approved by the person in the dialog.

use serde_json::{Value, json};

use super::args::Context;
use super::cues::plain;
use super::reading::Reading;

/// Go-ahead phrases: each says "carry it out" and nothing else.
const GO: &[&[&str]] = &[
    &["bet"],
    &["go"],
    &["go", "ahead"],
    &["go", "on"],
    &["go", "for", "it"],
    &["do", "it"],
    &["do", "that"],
    &["send", "it"],
    &["ship", "it"],
    &["run", "it"],
    &["proceed"],
    &["make", "it", "so"],
    &["let's", "go"],
    &["lets", "go"],
    &["let's", "do", "it"],
    &["lets", "do", "it"],
    // "do put it into effect" (a fifty-fourth author).
    &["put", "it", "into", "effect"],
    &["do", "put", "it", "into", "effect"],
    &["carry", "it", "out"],
    &["proceed", "with", "it"],
];

/// Words said around a go-ahead that add nothing to it: lead-ins, politeness, praise of what
/// was shown.
const AROUND: &[&str] = &[
    "yes", "yeah", "yep", "yup", "sure", "ok", "okay", "alright", "right", "then", "now", "please", "just", "and",
    "so", "well", "cool", "great", "perfect", "fine", "good", "nice", "looks", "sounds", "that's", "thats", "it's",
    "ahead", "cheers", "thanks", "thank", "you",
];

/// Whether `words` is one or more [`GO`] phrases with only [`AROUND`] words beside them.
fn only_go_ahead(words: &[String]) -> bool {
    let (mut i, mut went) = (0, false);
    while i < words.len() {
        let said_here = |g: &&&[&str]| words[i..].iter().map(String::as_str).take(g.len()).eq(g.iter().copied());
        if let Some(g) = GO.iter().filter(said_here).max_by_key(|g| g.len()) {
            i += g.len();
            went = true;
        } else if AROUND.contains(&words[i].as_str()) {
            i += 1;
        } else {
            return false;
        }
    }
    went
}

/// The call that applies what the newest committed call prepared, when the reading is only a
/// go-ahead: (the applying tool, its arguments).
pub fn applies(reading: &Reading, ctx: &Context) -> Option<(String, Value)> {
    let words: Vec<String> = reading.words.iter().map(|w| plain(w)).filter(|w| !w.is_empty()).collect();
    let (tool, hash) = ctx.newest.as_ref()?;
    (ctx.just_prepared.as_deref() == Some(tool.as_str())
        && !names_another_kind(&words, tool)
        && (only_go_ahead(&words) || go_ahead_among_remarks(reading, ctx)))
    .then(|| (tool.clone(), json!({ "proposal": hash })))
}

/// The words that name the kind of thing prepared, and the tool that carries it out.
const KINDS: &[(&str, &[&str])] = &[
    ("apply.move", &["move", "moves", "moving", "relocation", "renaming", "plan", "plans"]),
    ("apply.patch", &["patch", "edit", "correction", "diff", "redline", "amendment", "change", "changes", "fix"]),
    ("fs.quarantine", &["list", "quarantine"]),
];

/// Whether `words` name a kind of prepared thing other than what `tool` carries out, and not
/// its own: "that move plan's good, go on and carry it out" is no go-ahead for a patch drafted
/// since (a fifty-fifth author); the rest of understanding reads which plan is meant.
fn names_another_kind(words: &[String], tool: &str) -> bool {
    // "that plan's good": the possessive names the plan.
    let bare = |x: &String| x.strip_suffix("'s").unwrap_or(x).to_string();
    let named = |t: &str| {
        KINDS.iter().filter(|(k, _)| *k == t).flat_map(|(_, ws)| ws.iter()).any(|w| words.iter().any(|x| bare(x) == *w))
    };
    !named(tool) && KINDS.iter().any(|(k, _)| *k != tool && named(k))
}

/// Whether the reading is a go-ahead said among remarks of the person's own: "Right, I've had a
/// good look at it and I'm quite happy, do it, please, and cheers." (authors' dev: the status
/// report, with a call at 0.03). Split where a comma or a sentence end was said, one part is
/// only a go-ahead, and every other is [`AROUND`] words or a remark that opens on the person or
/// the thing shown ([`super::statement::SUBJECTS`]: "I've had a good look", "it's what I
/// wanted") and says nothing against it ([`RESERVATIONS`]: "I'm not sure, but go ahead" is
/// left to the rest) and names nothing (a name is a request of its own).
fn go_ahead_among_remarks(reading: &Reading, ctx: &Context) -> bool {
    if !super::mentions::find(reading, &ctx.vocab).iter().all(|m| m.kind == super::mentions::MentionKind::Back) {
        return false;
    }
    let mut parts: Vec<Vec<String>> = vec![vec![]];
    for (i, w) in reading.words.iter().enumerate() {
        let w = plain(w);
        if !w.is_empty()
            && let Some(part) = parts.last_mut()
        {
            part.push(w);
        }
        let paused = reading.pauses.get(i).copied().unwrap_or(false) || reading.ends.get(i).copied().unwrap_or(false);
        if paused {
            parts.push(vec![]);
        }
    }
    parts.retain(|p| !p.is_empty());
    let remark = |p: &[String]| {
        let subject = |w: &str| super::statement::SUBJECTS.contains(&w);
        let opening = p.iter().find(|w| subject(w) || !AROUND.contains(&w.as_str()));
        opening.is_none_or(|w| subject(w))
            && !p.iter().any(|w| RESERVATIONS.contains(&w.as_str()) || w.ends_with("n't"))
    };
    parts.len() > 1 && parts.iter().any(|p| only_go_ahead(p)) && parts.iter().all(|p| only_go_ahead(p) || remark(p))
}

/// Words of a remark that hold the go-ahead back or turn it ("I'm not sure", "but wait", "do it
/// later", "only the first one").
const RESERVATIONS: &[&str] = &[
    "not", "no", "never", "but", "wait", "hold", "stop", "wrong", "instead", "except", "only", "later", "yet",
    "tomorrow", "first", "unless", "if", "dont", "cant", "wont", "again",
];

#[cfg(test)]
mod tests {
    use super::super::reading::read;
    use super::super::vocab::Vocabulary;
    use super::*;
    use std::collections::BTreeMap;

    fn ctx(newest: &str, just_prepared: Option<&str>) -> Context {
        Context {
            vocab: Vocabulary::default(),
            base: "/r".into(),
            artifacts: BTreeMap::new(),
            newest: Some((newest.into(), "ab".repeat(32))),
            batches: vec![],
            recent: vec![],
            recent_tool: None,
            just_prepared: just_prepared.map(str::to_string),
        }
    }

    #[test]
    fn a_go_ahead_right_after_a_proposal_applies_it() {
        // What broke (a twenty-first author's): "bet" after a patch, "aight go" after a move plan
        // (read as "alright go") were no call.
        let plan = ctx("apply.move", Some("apply.move"));
        let patch = ctx("apply.patch", Some("apply.patch"));
        for said in ["bet", "alright go", "looks good, send it", "Yes please, do it.", "ok go ahead", "let's go then"] {
            assert_eq!(applies(&read(said), &plan), Some(("apply.move".into(), json!({"proposal": "ab".repeat(32)}))));
        }
        assert_eq!(applies(&read("bet"), &patch).map(|(t, _)| t).as_deref(), Some("apply.patch"));
        let list = ctx("fs.quarantine", Some("fs.quarantine"));
        assert_eq!(applies(&read("go for it"), &list).map(|(t, _)| t).as_deref(), Some("fs.quarantine"));
    }

    #[test]
    fn acknowledging_or_saying_more_is_no_go_ahead() {
        let plan = ctx("apply.move", Some("apply.move"));
        for said in
            ["ok", "yes", "lol ok", "looks good", "thanks", "go home", "I bet it rains", "do it later", "don't do it"]
        {
            assert_eq!(applies(&read(said), &plan), None, "{said}");
        }
    }

    #[test]
    fn a_go_ahead_among_remarks_of_the_persons_own_applies_it() {
        let patch = ctx("apply.patch", Some("apply.patch"));
        // What broke (authors' dev): the status report.
        for said in [
            "Right, I've had a good look at it and I'm quite happy, do it, please, and cheers.",
            "it's exactly what I wanted, go ahead",
            "I read it twice. Go for it.",
            // A fifty-fourth author's: the go-ahead after a polite condition.
            "I've had a good look at the proposed change and I'm content. If it's not too much bother, do put it into effect.",
        ] {
            assert_eq!(applies(&read(said), &patch).map(|(t, _)| t).as_deref(), Some("apply.patch"), "{said}");
        }
        for said in [
            "I'm not sure about it, but go ahead",
            "I'd rather wait, do it tomorrow",
            "it's wrong, do it again",
            "I think so, do it later",
            "I've had a look at it",
            "do it, move it into Letters",
        ] {
            assert_eq!(applies(&read(said), &patch), None, "{said}");
        }
    }

    #[test]
    fn a_go_ahead_long_after_the_proposal_is_left_to_the_rest() {
        // The newest call prepared nothing (a listing since), or prepared something else.
        assert_eq!(applies(&read("bet"), &ctx("apply.move", None)), None);
        assert_eq!(applies(&read("bet"), &ctx("apply.move", Some("apply.patch"))), None);
    }

    #[test]
    fn a_go_ahead_that_names_another_kind_is_left_to_the_rest() {
        // What broke (a fifty-fifth author): the patch drafted last was applied.
        let patch = ctx("apply.patch", Some("apply.patch"));
        assert_eq!(applies(&read("that move plan's good, go on and carry it out"), &patch), None);
        assert_eq!(applies(&read("that plan's good, go on and carry it out"), &patch), None);
        // Its own kind, or none, goes ahead.
        assert!(applies(&read("that patch is good, go on and carry it out"), &patch).is_some());
        assert!(applies(&read("looks good, go on and carry it out"), &patch).is_some());
    }
}
