//! Inference before inquiry (seed 001, "Read Policy" and hard line 4).
//!
//! Before the assistant asks the person anything, it must look at what it already knows, in a
//! fixed order — the commitment lease, the relevant decisions, the artifact index, the progress
//! state, and last the interaction signals (which shape *how* it answers, never *what*) — and
//! then answer with a provisional understanding and **one** confirmation question, not a request
//! for a brain dump. [`infer`] does exactly that over the kernel's state, and records what it
//! consulted so a test (and the person, in `--json`) can see the order was kept.
//!
//! "Relevant" is plain word overlap between the utterance and a decision or an artifact's name;
//! when nothing overlaps, the newest current one stands in.

use serde::Serialize;
use smart_kernel::KernelState;
use smart_kernel::lease::LeaseState;
use smart_kernel::memory::{Freshness, SignalKind};

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    Lease,
    Decisions,
    Artifacts,
    Progress,
    Signals,
}

/// The order seed 001 prescribes.
pub const ORDER: [Source; 5] = [Source::Lease, Source::Decisions, Source::Artifacts, Source::Progress, Source::Signals];

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Consulted {
    pub source: Source,
    /// What it contributed, if anything.
    pub found: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Inquiry {
    pub consulted: Vec<Consulted>,
    pub provisional: String,
    pub question: String,
}

impl Inquiry {
    /// The reply: the understanding, then the one question.
    pub fn reply(&self) -> String {
        format!("{} {}", self.provisional, self.question)
    }
}

fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 2 && !STOP.contains(w))
        .map(str::to_string)
        .collect()
}

const STOP: &[&str] =
    &["the", "and", "for", "with", "that", "this", "what", "from", "into", "about", "please", "can", "you"];

fn overlap(a: &[String], text: &str) -> usize {
    let b = words(text);
    a.iter().filter(|w| b.contains(w)).count()
}

/// Text from memory, made safe to quote inside a sentence that must hold exactly one question.
fn quote(text: &str, max: usize) -> String {
    let t: String = text.replace(['?', '\n', '\r'], " ").trim().chars().take(max).collect();
    t.trim_end_matches(['.', '!', ' ']).to_string()
}

pub fn infer(state: &KernelState, utterance: &str) -> Inquiry {
    let asked = words(utterance);
    let memory = &state.memory;
    let mut consulted = Vec::with_capacity(ORDER.len());

    // 1. The lease.
    let frame = state.lease.as_ref().filter(|l| l.state != LeaseState::Expired).map(|l| quote(&l.draft.frame, 120));
    consulted.push(Consulted { source: Source::Lease, found: frame.clone() });

    // 2. Relevant decisions: the current one sharing most words with the request, else the newest.
    let current: Vec<_> = memory.decisions().current().collect();
    let decision = current
        .iter()
        .max_by_key(|d| (overlap(&asked, &d.draft.decision), d.id))
        .map(|d| quote(&d.draft.decision, 120));
    consulted.push(Consulted { source: Source::Decisions, found: decision.clone() });

    // 3. The artifact index: a current entry the request names, else the newest current one.
    let artifact = memory
        .artifacts()
        .entries()
        .values()
        .filter(|e| e.freshness != Freshness::ReviewNeeded)
        .max_by_key(|e| (overlap(&asked, &format!("{} {}", e.draft.name, e.draft.pointer)), e.updated_at))
        .map(|e| quote(&e.draft.name, 80));
    consulted.push(Consulted { source: Source::Artifacts, found: artifact.clone() });

    // 4. Progress.
    let progress = memory.progress().map(|p| {
        let next = p.next_actions.first().map(|n| quote(n, 80));
        (quote(&p.current_stage, 80), next, p.stale)
    });
    consulted.push(Consulted { source: Source::Progress, found: progress.as_ref().map(|(s, _, _)| s.clone()) });

    // 5. Interaction signals: delivery only.
    let brief = memory
        .signals()
        .of(SignalKind::Preference)
        .iter()
        .any(|p| ["brev", "brief", "short", "concise"].iter().any(|k| p.to_lowercase().contains(k)));
    consulted.push(Consulted { source: Source::Signals, found: brief.then(|| "brevity".to_string()) });

    let mut parts = Vec::new();
    if let Some(f) = &frame {
        parts.push(format!("we're working on {f}"));
    }
    if let Some(d) = &decision {
        parts.push(format!("we decided: {d}"));
    }
    if let Some(a) = &artifact {
        parts.push(format!("the latest artifact is {a}"));
    }
    if let Some((stage, _, stale)) = &progress {
        parts.push(if *stale { format!("we were at {stage} (a while ago)") } else { format!("we're at {stage}") });
    }
    if brief {
        parts.truncate(1);
    }
    let provisional = if parts.is_empty() {
        "I don't have any context for this yet.".to_string()
    } else {
        let mut s = format!("As I understand it, {}.", parts.join("; "));
        if let Some(first) = s.get(..1).map(str::to_uppercase) {
            s.replace_range(..1, &first);
        }
        s
    };
    let question = match (&progress, &artifact, &frame) {
        (Some((_, Some(next), _)), _, _) => format!("Shall I go on with {next}?"),
        (_, Some(a), _) => format!("Is this about {a}?"),
        (_, _, Some(f)) => format!("Is this part of {f}?"),
        _ => "What would you like me to do first?".to_string(),
    };
    Inquiry { consulted, provisional, question }
}
