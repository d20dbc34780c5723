//! Bootstrap, the first-contact protocol (seed 001, "Bootstrap"), as an explicit state machine.
//!
//! Before any commitment forms, SMART listens: four bounded questions (where are you on the
//! ladder, what keeps you from slipping, what would one step up change, what small thing would
//! help), then it asks permission — keep listening, or start offering structure. While it
//! listens it is *propose-only*: no call above L2, no lease drafted or committed
//! ([`Bootstrap::restricts`], enforced by the kernel). The person can leave at any point by
//! saying what they want ("I need help planning my week" → a one-line confirmation → dive in)
//! or by skipping.
//!
//! The machine is [`TRANSITIONS`] plus three rules that are not a row: the soft timeout (ten
//! answers in the listening stage without a transition re-offer the permission prompt), the
//! consent answer (listen-only stays, anything else leaves) and the resumption of a session.
//! [`step`] is pure: the ledger stores each [`BootstrapInput`], and replay recomputes the
//! machine from them, so the snapshot a new session resumes from is exactly the one the last
//! session left.
//!
//! [`interpret`] turns what the person said into an input with plain keyword rules — the kind
//! of deterministic reading that can be tested exhaustively; a misread answer costs one more
//! bounded question, never an action.

use crate::time::Millis;
use serde::{Deserialize, Serialize};

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Stage 1: the ladder (state).
    Ladder,
    /// Stage 2: what keeps them from slipping (stability).
    Anchor,
    /// Stage 3: what one step up would change (gap).
    Gap,
    /// Stage 4: one small supportive thing (microstep).
    Microstep,
    /// The handoff question: keep listening, or offer structure?
    Permission,
    /// Listen-only: the person chose to be heard, not helped (yet).
    Listening,
    /// An explicit request arrived: dive in, or understand first?
    ConfirmIntent,
    /// Returning users: one light check-in instead of the four stages.
    CheckIn,
    Done,
}

impl Stage {
    pub const ALL: [Stage; 9] = [
        Stage::Ladder,
        Stage::Anchor,
        Stage::Gap,
        Stage::Microstep,
        Stage::Permission,
        Stage::Listening,
        Stage::ConfirmIntent,
        Stage::CheckIn,
        Stage::Done,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Stage::Ladder => "ladder",
            Stage::Anchor => "anchor",
            Stage::Gap => "gap",
            Stage::Microstep => "microstep",
            Stage::Permission => "permission",
            Stage::Listening => "listening",
            Stage::ConfirmIntent => "confirm_intent",
            Stage::CheckIn => "check_in",
            Stage::Done => "done",
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Consent {
    ListenOnly,
    ProposeStructure,
    ReadyForCommitment,
}

impl std::str::FromStr for Consent {
    type Err = String;
    fn from_str(s: &str) -> Result<Consent, String> {
        match s {
            "listen_only" | "listen" => Ok(Consent::ListenOnly),
            "propose_structure" | "structure" => Ok(Consent::ProposeStructure),
            "ready_for_commitment" | "ready" => Ok(Consent::ReadyForCommitment),
            _ => Err(format!("consent {s:?} must be listen_only, propose_structure or ready_for_commitment")),
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum LadderPosition {
    Top,
    Middle,
    Bottom,
}

/// What the person did, as the machine reads it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "input", rename_all = "snake_case")]
pub enum BootstrapInput {
    /// First contact (the four stages) or, for a returning user, the check-in.
    Start,
    Answer {
        text: String,
    },
    /// An explicit request ("I need help planning my week").
    Intent {
        text: String,
    },
    DiveIn,
    UnderstandFirst,
    Consent {
        consent: Consent,
    },
    Skip,
    /// A new session began while bootstrap was unfinished.
    Resume,
    /// The gate controller accepted a re-entry proposal.
    Reenter,
}

/// The input's kind, for the table.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InputKind {
    Start,
    Answer,
    Intent,
    DiveIn,
    UnderstandFirst,
    Consent,
    Skip,
    Resume,
    Reenter,
}

impl InputKind {
    pub const ALL: [InputKind; 9] = [
        InputKind::Start,
        InputKind::Answer,
        InputKind::Intent,
        InputKind::DiveIn,
        InputKind::UnderstandFirst,
        InputKind::Consent,
        InputKind::Skip,
        InputKind::Resume,
        InputKind::Reenter,
    ];
}

impl BootstrapInput {
    pub fn kind(&self) -> InputKind {
        match self {
            BootstrapInput::Start => InputKind::Start,
            BootstrapInput::Answer { .. } => InputKind::Answer,
            BootstrapInput::Intent { .. } => InputKind::Intent,
            BootstrapInput::DiveIn => InputKind::DiveIn,
            BootstrapInput::UnderstandFirst => InputKind::UnderstandFirst,
            BootstrapInput::Consent { .. } => InputKind::Consent,
            BootstrapInput::Skip => InputKind::Skip,
            BootstrapInput::Resume => InputKind::Resume,
            BootstrapInput::Reenter => InputKind::Reenter,
        }
    }
}

/// Seed 001's "Bootstrap Snapshot": a slow-memory *candidate* — nothing in it is ratified.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Snapshot {
    pub bootstrap_timestamp: Millis,
    pub ladder_position: Option<LadderPosition>,
    /// Only when the person gave a number themselves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ladder_number: Option<u8>,
    pub user_state_summary: String,
    pub stabilizers: String,
    pub one_step_gap: String,
    pub microstep_candidate: String,
    pub consent_state: Consent,
    pub derived_north_star_candidates: Vec<String>,
    pub delivery_fit_notes: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bootstrap {
    pub stage: Stage,
    /// Where an intent confirmation returns to when the person wants to be understood first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume_to: Option<Stage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intent: Option<String>,
    /// Answers since the stage last changed: the soft timeout counts these.
    pub quiet_turns: u32,
    pub answers: u32,
    /// Words in all answers, for the delivery-fit note.
    pub words: u32,
    pub abbreviated: bool,
    pub reentered: bool,
    pub sessions: u32,
    /// The last input was a resumption: the next prompt welcomes the person back.
    pub resumed: bool,
    pub snapshot: Snapshot,
}

/// The soft timeout (seed 001: "after 10 turns without transition, system gently re-offers the
/// permission prompt").
pub const QUIET_TURNS_BEFORE_REOFFER: u32 = 10;
pub const MAX_ANSWER_CHARS: usize = 500;

use InputKind as I;
use Stage::*;

/// Every (stage, input) pair the machine accepts and where it goes. `Consent` rows show where
/// "structure" or "ready" lead; listen-only goes to `Listening` (see [`step`]). `Answer` in
/// `Listening` goes to `Permission` instead after the soft timeout. Every pair not listed is
/// refused with the reason.
pub const TRANSITIONS: &[(Stage, InputKind, Stage)] = &[
    (Ladder, I::Answer, Anchor),
    (Anchor, I::Answer, Gap),
    (Gap, I::Answer, Microstep),
    (Microstep, I::Answer, Permission),
    (Permission, I::Answer, Permission),
    (Permission, I::Consent, Done),
    (Listening, I::Answer, Listening),
    (Listening, I::Consent, Done),
    (Ladder, I::Intent, ConfirmIntent),
    (Anchor, I::Intent, ConfirmIntent),
    (Gap, I::Intent, ConfirmIntent),
    (Microstep, I::Intent, ConfirmIntent),
    (Permission, I::Intent, ConfirmIntent),
    (Listening, I::Intent, ConfirmIntent),
    (ConfirmIntent, I::DiveIn, Done),
    (ConfirmIntent, I::Answer, ConfirmIntent),
    (CheckIn, I::Answer, Done),
    (CheckIn, I::Intent, Done),
    (Ladder, I::Skip, Done),
    (Anchor, I::Skip, Done),
    (Gap, I::Skip, Done),
    (Microstep, I::Skip, Done),
    (Permission, I::Skip, Done),
    (Listening, I::Skip, Done),
    (ConfirmIntent, I::Skip, Done),
    (CheckIn, I::Skip, Done),
    (Ladder, I::Resume, Ladder),
    (Anchor, I::Resume, Anchor),
    (Gap, I::Resume, Gap),
    (Microstep, I::Resume, Microstep),
    (Permission, I::Resume, Permission),
    (Listening, I::Resume, Listening),
    (ConfirmIntent, I::Resume, ConfirmIntent),
    (CheckIn, I::Resume, CheckIn),
    (Done, I::Resume, Done),
    (Done, I::Consent, Done),
    (Done, I::Reenter, Listening),
];

/// `ConfirmIntent` + "understand first" returns to the stage the intent interrupted; it is the
/// one row whose target is not fixed, so it is kept out of [`TRANSITIONS`] and named here.
pub const RETURNING_ROW: (Stage, InputKind) = (ConfirmIntent, I::UnderstandFirst);

pub fn row(from: Stage, input: InputKind) -> Option<Stage> {
    TRANSITIONS.iter().find(|(f, i, _)| *f == from && *i == input).map(|(_, _, to)| *to)
}

/// Whether the machine accepts `input` in `stage` (the table plus the returning row).
pub fn accepts(stage: Stage, input: InputKind) -> bool {
    row(stage, input).is_some() || (stage, input) == RETURNING_ROW
}

impl Bootstrap {
    /// Whether the kernel holds the agent to propose-only: while bootstrap is under way (the
    /// check-in of a returning user aside), and after it while the person's consent is
    /// "propose structure".
    pub fn restricts(&self) -> bool {
        match self.stage {
            Done => self.snapshot.consent_state != Consent::ReadyForCommitment,
            CheckIn => false,
            _ => true,
        }
    }

    pub fn active(&self) -> bool {
        !matches!(self.stage, Done)
    }
}

pub(crate) fn cut(text: &str, max: usize) -> String {
    let t = text.trim();
    let mut s: String = t.chars().take(max).collect();
    if t.chars().count() > max {
        s.push('…');
    }
    s
}

/// Reads a ladder answer: a number the person gave (1–10), or words for top/middle/bottom.
pub fn read_ladder(text: &str) -> (Option<LadderPosition>, Option<u8>) {
    let lower = text.to_lowercase();
    let number = lower
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .find_map(|s| s.parse::<u8>().ok().filter(|n| (1..=10).contains(n)));
    if let Some(n) = number {
        let pos = match n {
            1..=3 => LadderPosition::Bottom,
            4..=7 => LadderPosition::Middle,
            _ => LadderPosition::Top,
        };
        return (Some(pos), Some(n));
    }
    let has = |words: &[&str]| lower.split(|c: char| !c.is_alphanumeric()).any(|w| words.contains(&w));
    let pos = if has(&["bottom", "worst", "low", "lowest", "terrible", "awful", "bad"]) {
        Some(LadderPosition::Bottom)
    } else if has(&["top", "best", "high", "highest", "great", "excellent"]) {
        Some(LadderPosition::Top)
    } else if has(&["middle", "mid", "halfway", "okay", "ok", "average", "fine", "meh"]) {
        Some(LadderPosition::Middle)
    } else {
        None
    };
    (pos, None)
}

fn summary(s: &Snapshot) -> String {
    let place = match s.ladder_position {
        Some(LadderPosition::Top) => "near the top of the ladder",
        Some(LadderPosition::Middle) => "around the middle of the ladder",
        Some(LadderPosition::Bottom) => "near the bottom of the ladder",
        None => "unsure where on the ladder",
    };
    let mut out = format!("You described yourself as {place}");
    if !s.stabilizers.is_empty() {
        out.push_str(&format!("; {} keeps you from slipping", cut(&s.stabilizers, 80)));
    }
    if !s.one_step_gap.is_empty() {
        out.push_str(&format!("; one step up would mean {}", cut(&s.one_step_gap, 80)));
    }
    out.push('.');
    out
}

/// The identity-affirming hook (seed 001): offered once the person has given a ladder position
/// and at least one supporting detail. It only reflects their own words, in the present, with no
/// comparison and no advice.
pub fn hook(b: &Bootstrap) -> Option<String> {
    let s = &b.snapshot;
    if s.ladder_position.is_none() || s.stabilizers.is_empty() {
        return None;
    }
    Some(format!("You named {} as something that is holding you steady right now.", cut(&s.stabilizers, 80)))
}

/// The bootstrap transition proposal's recommendation (seed 001's four options).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Recommendation {
    RemainListening,
    OfferStructure,
    OfferWorkOrder,
    OfferNorthStars,
}

impl Recommendation {
    pub fn text(self) -> &'static str {
        match self {
            Recommendation::RemainListening => "Remain in listen-only",
            Recommendation::OfferStructure => "Offer structure (propose-only)",
            Recommendation::OfferWorkOrder => "Offer to create a scoped Work Order",
            Recommendation::OfferNorthStars => "Offer to formalize North Stars",
        }
    }
}

/// What bootstrap recommends once the person has answered the permission question — the
/// second artefact, routed through the proposal buffer. North Stars are offered only when the
/// person asked for planning or prioritising (the deferral rule).
pub fn recommendation(b: &Bootstrap) -> Recommendation {
    let asked_for_planning = b
        .intent
        .as_deref()
        .map(str::to_lowercase)
        .is_some_and(|i| ["plan", "priorit", "goal"].iter().any(|w| i.contains(w)));
    match b.snapshot.consent_state {
        Consent::ListenOnly => Recommendation::RemainListening,
        _ if asked_for_planning => Recommendation::OfferNorthStars,
        Consent::ProposeStructure => Recommendation::OfferStructure,
        Consent::ReadyForCommitment => Recommendation::OfferWorkOrder,
    }
}

/// Whether a step ends with a transition proposal: the person has just said how to go on —
/// left bootstrap, chose to be listened to, or changed their consent afterwards.
pub fn proposes_transition(before: &Bootstrap, after: &Bootstrap) -> bool {
    let left = before.stage != Done && after.stage == Done;
    let chose_listening = matches!(before.stage, Permission | Done) && after.stage == Listening;
    let consent_changed =
        before.stage == Done && after.stage == Done && before.snapshot.consent_state != after.snapshot.consent_state;
    left || chose_listening || consent_changed
}

/// One step of the machine. `existing_user` (there is context from before: decisions, North
/// Stars or an earlier lease) makes `Start` the light check-in.
pub fn step(
    current: Option<&Bootstrap>,
    input: &BootstrapInput,
    existing_user: bool,
    at: Millis,
) -> Result<Bootstrap, String> {
    if let BootstrapInput::Answer { text } | BootstrapInput::Intent { text } = input {
        if text.trim().is_empty() {
            return Err("an answer needs some words".into());
        }
        if text.chars().count() > MAX_ANSWER_CHARS {
            return Err(format!("an answer is at most {MAX_ANSWER_CHARS} characters"));
        }
    }
    let Some(b) = current else {
        return match input {
            BootstrapInput::Start => Ok(Bootstrap {
                stage: if existing_user { CheckIn } else { Ladder },
                resume_to: None,
                intent: None,
                quiet_turns: 0,
                answers: 0,
                words: 0,
                abbreviated: existing_user,
                reentered: false,
                sessions: 1,
                resumed: false,
                snapshot: Snapshot {
                    bootstrap_timestamp: at,
                    ladder_position: None,
                    ladder_number: None,
                    user_state_summary: String::new(),
                    stabilizers: String::new(),
                    one_step_gap: String::new(),
                    microstep_candidate: String::new(),
                    consent_state: Consent::ListenOnly,
                    derived_north_star_candidates: Vec::new(),
                    delivery_fit_notes: String::new(),
                },
            }),
            _ => Err("bootstrap has not started".into()),
        };
    };
    let kind = input.kind();
    if kind == I::Start {
        return Err("bootstrap has already started; it comes back only by a re-entry proposal".into());
    }
    if !accepts(b.stage, kind) {
        return Err(format!("in the {} stage bootstrap does not take {kind:?}", b.stage.name()));
    }
    let mut n = b.clone();
    n.resumed = false;
    match input {
        BootstrapInput::Answer { text } => {
            n.answers += 1;
            n.words += text.split_whitespace().count() as u32;
            let s = &mut n.snapshot;
            match b.stage {
                Ladder => {
                    let (pos, number) = read_ladder(text);
                    s.ladder_position = pos;
                    s.ladder_number = number;
                }
                Anchor => s.stabilizers = cut(text, 200),
                Gap => {
                    s.one_step_gap = cut(text, 200);
                    s.derived_north_star_candidates = vec![cut(text, 80)];
                }
                Microstep => s.microstep_candidate = cut(text, 200),
                _ => {}
            }
        }
        BootstrapInput::Intent { text } => {
            n.intent = Some(cut(text, 200));
            if b.stage != CheckIn {
                n.resume_to = Some(b.stage);
            }
        }
        BootstrapInput::Consent { consent } => n.snapshot.consent_state = *consent,
        BootstrapInput::DiveIn | BootstrapInput::Skip => {
            n.snapshot.consent_state = Consent::ReadyForCommitment;
        }
        BootstrapInput::Resume => {
            n.sessions += 1;
            n.resumed = true;
        }
        BootstrapInput::Reenter => {
            n.reentered = true;
            n.snapshot.consent_state = Consent::ListenOnly;
        }
        BootstrapInput::UnderstandFirst | BootstrapInput::Start => {}
    }
    if b.stage == CheckIn && matches!(kind, I::Answer | I::Intent | I::Skip) {
        n.snapshot.consent_state = Consent::ReadyForCommitment;
    }
    let mut to = match (b.stage, kind) {
        RETURNING_ROW => b.resume_to.unwrap_or(Ladder),
        _ => row(b.stage, kind).unwrap_or(b.stage),
    };
    if kind == I::Consent && n.snapshot.consent_state == Consent::ListenOnly {
        to = Listening;
    }
    if to == b.stage && kind == I::Answer {
        n.quiet_turns += 1;
        if b.stage == Listening && n.quiet_turns >= QUIET_TURNS_BEFORE_REOFFER {
            to = Permission;
        }
    }
    if to != b.stage {
        n.quiet_turns = 0;
    }
    if b.stage == ConfirmIntent && to != ConfirmIntent {
        n.resume_to = None;
    }
    n.stage = to;
    n.snapshot.user_state_summary = summary(&n.snapshot);
    n.snapshot.delivery_fit_notes = match n.answers {
        0 => String::new(),
        a if n.words / a < 8 => "short answers: keep replies brief".into(),
        _ => "fuller answers: room for some detail".into(),
    };
    Ok(n)
}

/// What SMART says next, if anything.
pub fn prompt(b: &Bootstrap) -> Option<String> {
    let text = match b.stage {
        Ladder => "Imagine a ladder where the top is the best possible life for you and the bottom is the worst. Where do you feel you're standing right now?".to_string(),
        Anchor => "What's currently happening that keeps you from slipping lower?".to_string(),
        Gap => match hook(b) {
            Some(h) => format!("{h} If you moved up just one step, what would be different in your day-to-day?"),
            None => "If you moved up just one step, what would be different in your day-to-day?".to_string(),
        },
        Microstep => "What's one small thing that would make you feel supported moving toward that next step?".to_string(),
        Permission => "Would you like me to keep listening, or would it help if I started offering structure and ideas?".to_string(),
        Listening if b.resumed => "I'm listening.".to_string(),
        Listening => return None,
        ConfirmIntent => format!(
            "Got it - you want help with \"{}\". Want me to dive in, or would you prefer I understand where you're at first?",
            b.intent.as_deref().map(request_of).unwrap_or_default()
        ),
        CheckIn => "I have context from before. How are things today - still on track, or has something shifted?".to_string(),
        Done => return None,
    };
    Some(if b.resumed { format!("Welcome back. {text}") } else { text })
}

/// The request in an explicit intent, without its polite opener ("I need help planning my week"
/// → "planning my week").
pub fn request_of(intent: &str) -> String {
    let t = intent.trim().trim_end_matches(['.', '!', '?']);
    let lower = t.to_lowercase();
    const OPENERS: &[&str] = &[
        "i need help with ",
        "i need help ",
        "help me with ",
        "help me ",
        "can you please ",
        "can you ",
        "could you please ",
        "could you ",
        "please ",
        "i want you to ",
        "i'd like you to ",
    ];
    for o in OPENERS {
        // `get`, not indexing: lowercasing can change byte lengths (the Kelvin sign).
        if lower.starts_with(o)
            && let Some(rest) = t.get(o.len()..)
        {
            return rest.trim().to_string();
        }
    }
    t.to_string()
}

/// Reads what the person said in `stage` as an input (see the module note).
pub fn interpret(stage: Stage, text: &str) -> BootstrapInput {
    let lower = format!(" {} ", text.to_lowercase().replace(|c: char| !c.is_alphanumeric() && c != '\'', " "));
    let has = |phrases: &[&str]| phrases.iter().any(|p| lower.contains(&format!(" {p} ")));
    let answer = BootstrapInput::Answer { text: text.trim().to_string() };
    if has(&["skip", "skip this", "not now", "no thanks"]) {
        return BootstrapInput::Skip;
    }
    match stage {
        ConfirmIntent => {
            if has(&["understand", "first", "where i'm at", "listen", "wait", "not yet"]) {
                BootstrapInput::UnderstandFirst
            } else if has(&["dive in", "yes", "yeah", "yep", "go ahead", "go", "sure", "do it", "please"]) {
                BootstrapInput::DiveIn
            } else {
                answer
            }
        }
        Permission | Listening | Done => {
            if has(&["keep listening", "just listen", "listen", "listening"]) {
                BootstrapInput::Consent { consent: Consent::ListenOnly }
            } else if has(&["ready", "let's start", "lets start", "commit", "get to work", "start working", "go ahead"])
            {
                BootstrapInput::Consent { consent: Consent::ReadyForCommitment }
            } else if has(&["structure", "ideas", "idea", "suggestions", "suggest", "offer"]) {
                BootstrapInput::Consent { consent: Consent::ProposeStructure }
            } else if is_intent(&lower) {
                BootstrapInput::Intent { text: text.trim().to_string() }
            } else {
                answer
            }
        }
        _ if is_intent(&lower) => BootstrapInput::Intent { text: text.trim().to_string() },
        _ => answer,
    }
}

/// An explicit request rather than an answer about how things are.
fn is_intent(padded_lower: &str) -> bool {
    let t = padded_lower.trim_start();
    const OPENERS: &[&str] = &[
        "i need help",
        "help me",
        "can you",
        "could you",
        "please",
        "i want you to",
        "i'd like you to",
        "show",
        "find",
        "list",
        "search",
        "organize",
        "organise",
        "tidy",
        "move",
        "read",
        "clean up",
        "plan",
    ];
    OPENERS.iter().any(|o| t.starts_with(&format!("{o} ")))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use std::collections::BTreeSet;

    /// The machine written out independently of `TRANSITIONS`.
    fn expected(from: Stage, input: InputKind) -> Option<Stage> {
        let active = !matches!(from, Done);
        match (from, input) {
            (_, I::Start) => None,
            (Done, I::Resume) | (Done, I::Consent) => Some(Done),
            (Done, I::Reenter) => Some(Listening),
            (Done, _) => None,
            (_, I::Reenter) => None,
            (s, I::Resume) if active => Some(s),
            (_, I::Skip) => Some(Done),
            (Ladder, I::Answer) => Some(Anchor),
            (Anchor, I::Answer) => Some(Gap),
            (Gap, I::Answer) => Some(Microstep),
            (Microstep, I::Answer) => Some(Permission),
            (Permission | Listening | ConfirmIntent, I::Answer) => Some(from),
            (Permission | Listening, I::Consent) => Some(Done),
            (Ladder | Anchor | Gap | Microstep | Permission | Listening, I::Intent) => Some(ConfirmIntent),
            (ConfirmIntent, I::DiveIn) => Some(Done),
            (CheckIn, I::Answer | I::Intent) => Some(Done),
            _ => None,
        }
    }

    /// (stage, what the person said, the input it is read as)
    #[test]
    fn what_the_person_says_is_read_by_stage() {
        let intent = |t: &str| BootstrapInput::Intent { text: t.into() };
        let ans = |t: &str| BootstrapInput::Answer { text: t.into() };
        let consent = |c| BootstrapInput::Consent { consent: c };
        let rows: Vec<(Stage, &str, BootstrapInput)> = vec![
            (Ladder, "about a 4", ans("about a 4")),
            (Ladder, "I need help planning my week", intent("I need help planning my week")),
            (Anchor, "Can you tidy my downloads?", intent("Can you tidy my downloads?")),
            (Gap, "skip this", BootstrapInput::Skip),
            (Microstep, "a walk after lunch", ans("a walk after lunch")),
            (Permission, "just keep listening", consent(Consent::ListenOnly)),
            (Permission, "some ideas would be nice", consent(Consent::ProposeStructure)),
            (Permission, "I'm ready, let's start", consent(Consent::ReadyForCommitment)),
            (Permission, "I need help planning my week", intent("I need help planning my week")),
            (Permission, "yes", ans("yes")),
            (Listening, "it was a long day", ans("it was a long day")),
            (ConfirmIntent, "yes, dive in", BootstrapInput::DiveIn),
            (ConfirmIntent, "understand where I'm at first", BootstrapInput::UnderstandFirst),
            (ConfirmIntent, "hmm", ans("hmm")),
            (Done, "offer me structure", consent(Consent::ProposeStructure)),
        ];
        for (stage, text, want) in rows {
            assert_eq!(interpret(stage, text), want, "{stage:?}: {text:?}");
        }
    }

    #[test]
    fn every_stage_and_input_pair_is_covered() {
        let mut rows = 0;
        for s in Stage::ALL {
            for i in InputKind::ALL {
                assert_eq!(row(s, i), expected(s, i), "({s:?}, {i:?})");
                rows += usize::from(row(s, i).is_some());
            }
        }
        assert_eq!(rows, TRANSITIONS.len());
        let keys: BTreeSet<(Stage, InputKind)> = TRANSITIONS.iter().map(|(s, i, _)| (*s, *i)).collect();
        assert_eq!(keys.len(), TRANSITIONS.len(), "duplicate rows");
        assert!(!keys.contains(&RETURNING_ROW), "the returning row is not a fixed row");
    }
}
