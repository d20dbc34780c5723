//! One utterance through the whole text path: Orbit's scope → understanding → the kernel →
//! execute, refuse or hold for approval.
//!
//! The assistant owns no authority of its own. It asks Orbit (through the engine) which tools
//! the live scope shows, and lets a proposer choose among those and nothing else; it hands
//! whatever comes back to the kernel as a proposal; it reports what the kernel decided. Two
//! proposers answer, in order: the phrase templates (exact and instant, for the commands people
//! say most, and only about names that exist) and understanding (`crate::understanding`: the
//! model ranks every visible tool, the arguments come from the names that exist). Neither can
//! do more than propose, and understanding may answer with a question instead. A heard
//! utterance whose reading is a question is first heard again with whisper's whole window
//! (`crate::rehearing`); the second reading is taken only if it is a call.
//!
//! One utterance is one proposal. (An earlier design let the model continue after a committed
//! step, reading the tool's output; a 0.5B model mostly repeated itself, and a sentence that asks
//! for two things is better asked twice than guessed at.)
//!
//! Every stage moves the interaction state machine and is announced on the bus with the turn's
//! correlation id.

use crate::bus::{Bus, BusEvent, ProposalSource};
use crate::engine::{CallReport, Engine};
use crate::error::RuntimeError;
use crate::interaction::{Interaction, State, Trigger};
use crate::outcome::{CallOutcome, TurnEnd};
use crate::rehearing::Rehear;
use crate::turn_id::TurnId;
use crate::understanding::{self, UnderstandOptions};
use crate::worker::{Supervisor, WorkerError, WorkerSpec};
use serde::Serialize;
use serde_json::{Value, json};
use smart_kernel::CallSource;
use smart_proposer::phrases::{self, PhraseContext};
use smart_proposer::protocol::{ModelInfo, Timings};
use smart_proposer::understand::{self, Style, Understood};
use smart_voice::protocol::{Event as VoiceEvent, Transcript};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum AssistantError {
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
    #[error("the proposer failed: {0}")]
    Worker(#[from] WorkerError),
    #[error("no tools are visible: the scope token is revoked or expired. Run `smart scope issue` to get a new one")]
    NoScope,
    #[error("the utterance is empty")]
    Empty,
    #[error("there is no conversation to perceive yet: say something first")]
    NothingToPerceive,
}

/// What one perception call saw and what came of it.
#[derive(Debug, Serialize)]
pub struct PerceiveReport {
    pub reports: smart_advisors::Reports,
    /// The rules that fired (each ledgered as a proposal or a signal).
    pub findings: Vec<String>,
    pub recorded: Vec<CallReport>,
    pub generation_ms: f64,
    pub prompt_ms: f64,
}

#[derive(Clone, Debug, Default)]
pub struct SayOptions {
    /// Show the proposal; submit nothing.
    pub propose_only: bool,
    /// Skip the phrase templates (the eval harness measures the model alone).
    pub no_templates: bool,
    /// Where relative names point (the person's current folder when it is inside a root).
    pub base: Option<PathBuf>,
}

/// One proposal of a turn and, unless propose-only, what the kernel made of it.
#[derive(Debug, Serialize)]
pub struct Step {
    pub source: ProposalSource,
    pub proposal: Proposal,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report: Option<CallReport>,
    /// The model's text, as generated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timings: Option<Timings>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Proposal {
    pub tool: String,
    pub args: Value,
}

#[derive(Debug, Serialize)]
pub struct SayReport {
    /// The request's id: every bus message and ledger event of this turn carries it.
    pub corr: TurnId,
    pub utterance: String,
    pub steps: Vec<Step>,
    /// The proposer's answer when it made no call (or no further call).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reply: Option<String>,
    /// Why the turn ended where it did.
    pub ended: TurnEnd,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// While bootstrap listens, the utterance was its answer (and this is what came of it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bootstrap: Option<Box<crate::slow_loop::BootstrapReply>>,
    /// When the assistant had to ask: what it consulted first, and its provisional
    /// understanding (seed 001: inference before inquiry).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub understanding: Option<Box<smart_advisors::Inquiry>>,
    /// The continuous evaluator's findings on this turn (each ledgered as a proposal or signal).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub advisories: Vec<String>,
    /// How the model ranked the visible tools for this utterance, when it was asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ranking: Option<understanding::RankingView>,
    /// The second hearing of the utterance, when the first reading was a question and the
    /// second a call (`crate::rehearing`); `utterance` is then read from it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reheard: Option<Reheard>,
    /// The names weighed against the audio as ways the transcript may have been meant, when
    /// any were (`smart_voice::weighed_names`); `utterance` is read from the one taken, if one was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weighed: Option<Weighed>,
}

/// What weighing the ways a transcript may have been meant came to.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Weighed {
    /// How many ways were weighed with what whisper wrote.
    pub alternatives: usize,
    /// The transcript as taken instead of what whisper wrote, when one was clearly likelier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub taken: Option<String>,
    /// The name, or the opening, it put in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// How much likelier whisper found the likeliest way than what it wrote (natural log;
    /// negative when none was likelier).
    pub gain: f32,
    /// What weighing cost, in the worker and on the way.
    pub ms: u64,
    /// Every text weighed and how likely whisper found it: what it wrote first, then each way
    /// in the order offered. Kept so that a recorded hearing can be chosen from again by
    /// another rule without the audio (`smart-eval --replay-heard`).
    pub weights: Vec<WeighedText>,
}

/// One text weighed against the audio.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct WeighedText {
    pub text: String,
    /// The sum of its tokens' log-probabilities (natural log).
    pub logp: f32,
    pub tokens: u32,
}

/// What a second hearing heard, and what it cost.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Reheard {
    pub text: String,
    /// whisper's time for the whole window.
    pub stt_ms: u64,
    pub audio_ctx: u32,
}

impl SayReport {
    /// A turn's report before anything came of it; every way out of a turn sets `ended`.
    fn new(turn: &TurnId, utterance: &str, bootstrap: Option<Box<crate::slow_loop::BootstrapReply>>) -> SayReport {
        SayReport {
            corr: turn.clone(),
            utterance: utterance.to_string(),
            steps: vec![],
            reply: None,
            ended: TurnEnd::NoCall,
            model: None,
            bootstrap,
            understanding: None,
            advisories: vec![],
            ranking: None,
            reheard: None,
            weighed: None,
        }
    }

    /// Whether the turn ended in a clarifying question rather than a proposal.
    pub fn asked(&self) -> bool {
        self.ended == TurnEnd::Asked
    }
}

/// The transcript as whisper wrote it, or one of `ways` it may have been meant that whisper
/// finds clearly likelier when weighed against the kept audio (`smart_voice::weighed_names`).
/// `None`: the audio cannot be weighed. A free function, not a method: the assistant is not
/// shared between threads, so a turn's future may not hold a borrow of it across the wait.
async fn weigh(
    first: &Transcript,
    again: &mut dyn Rehear,
    ways: Vec<smart_voice::weighed_names::Alternative>,
) -> Option<Weighed> {
    use smart_voice::weighed_names::{Weighed as Compared, choose};
    let text = first.text.trim();
    let started = std::time::Instant::now();
    // What whisper wrote, each way and its control, each text once; the ways that would take
    // more texts than one weighing may have are left out, the least near last.
    let mut texts = vec![text.to_string()];
    let mut kept = vec![];
    for way in ways {
        let new: Vec<&String> =
            [Some(&way.text), way.control.as_ref()].into_iter().flatten().filter(|t| !texts.contains(t)).collect();
        if texts.len() + new.len() > smart_voice::protocol::MAX_WEIGHED {
            break;
        }
        texts.extend(new.into_iter().cloned());
        kept.push(way);
    }
    let ways = kept;
    let weights = again.weigh(first, &texts).await?;
    let weight_of = |t: &str| texts.iter().position(|x| x == t).and_then(|i| weights.get(i)).copied();
    let heard = *weights.first()?;
    let compared: Vec<Compared> = ways
        .iter()
        .map(|w| {
            let way = weight_of(&w.text)?;
            let against = w.control.as_deref().map_or(Some(heard), weight_of)?;
            Some(Compared { way, against })
        })
        .collect::<Option<_>>()?;
    let chosen = choose(heard, &compared).and_then(|i| ways.get(i));
    let gain = compared.iter().map(|w| w.way.logp).fold(f32::NEG_INFINITY, f32::max) - heard.logp;
    tracing::debug!(heard = text, taken = ?chosen.map(|c| &c.text), gain, "ways it may have been meant weighed");
    Some(Weighed {
        alternatives: ways.len(),
        taken: chosen.map(|c| c.text.clone()),
        name: chosen.map(|c| c.name.clone()),
        gain,
        ms: started.elapsed().as_millis() as u64,
        weights: texts
            .iter()
            .cloned()
            .zip(&weights)
            .map(|(text, w)| WeighedText { text, logp: w.logp, tokens: w.tokens })
            .collect(),
    })
}

/// The names and paths under the roots, as hearing compares a transcript with them.
struct HeardTree {
    lexicon: smart_voice::heard_names::Lexicon,
    /// Relative, `/`-separated.
    paths: Vec<String>,
}

/// The ways `text` may have been meant, to weigh against its audio
/// (`smart_voice::weighed_names`): a name that exists under the roots in place of words that
/// sound loosely like it, or "slash" and an entry's name after its folder's, or a folder's name
/// in a folder's place holding words that name nothing; and, last (a
/// weighing holds a bounded number of texts, and names came first), the words a request opens
/// with in place of an opening that sounds loosely like them (`smart_voice::weighed_openings`).
fn ways_it_may_have_been_meant(
    text: &str,
    tree: &HeardTree,
    openings: bool,
) -> Vec<smart_voice::weighed_names::Alternative> {
    let mut ways = smart_voice::weighed_names::alternatives(text, &tree.lexicon);
    let openings = if openings { smart_voice::weighed_openings::opening_alternatives(text) } else { vec![] };
    let more = smart_voice::weighed_names::path_alternatives(text, &tree.paths)
        .into_iter()
        .chain(smart_voice::weighed_names::slot_alternatives(text, &tree.paths))
        .chain(openings);
    for a in more {
        if !ways.iter().any(|b| b.text == a.text) {
            ways.push(a);
        }
    }
    ways
}

/// The transcript as a request: words whisper ran together written apart ("Hashnet file",
/// "contact.docxinto") and a verb it wrote as two words joined ("Check some agenda",
/// `smart_voice::run_together`), a ".docx" it wrote as "dot dot fix" written as one
/// (`smart_voice::spoken::docx_heard_as_dot_dot`), a request to rebuild the index as whisper writes it heard as
/// one (`smart_voice::heard_index`), an opening "But" before a file and where it goes heard as
/// "Put" (`smart_voice::heard_put`), the names whisper misheard put right against the names that
/// exist anywhere under the roots (nearest first, `smart_voice::heard_names`), the spoken
/// spellings of paths written back (`smart_voice::spoken`, against the working folder's
/// `names`), then a path whose parts mostly exist put right as a whole
/// (`smart_voice::heard_paths`) — with a "hash" between two words heard as "slash" instead,
/// when that names more paths that exist. Open hearing (no `tree`) keeps the index request and the spellings.
fn heard_as_request(text: &str, names: &[String], tree: Option<&HeardTree>) -> String {
    let text = smart_voice::spoken::docx_heard_as_dot_dot(&smart_voice::run_together::apart(text));
    let Some(tree) = tree else {
        let lexicon = smart_voice::heard_names::Lexicon::of_names(names);
        let text = smart_voice::heard_index::correct(&text, &lexicon);
        let text = smart_voice::heard_put::correct(&text, &lexicon);
        return smart_voice::spoken::as_request(&text, names);
    };
    let text = smart_voice::heard_index::correct(&text, &tree.lexicon);
    let text = smart_voice::heard_put::correct(&text, &tree.lexicon);
    let text = smart_voice::run_together::verb_joined(&text, &tree.lexicon);
    let heard = |text: &str| {
        let text = smart_voice::heard_names::correct(text, &tree.lexicon);
        let request = smart_voice::spoken::as_request(&text, names);
        smart_voice::heard_paths::correct(&request, &tree.paths)
    };
    let request = heard(&text);
    // "Flyers, hash, miss, hash, birthday.md" is a path when the tree says so.
    if let Some(slashed) = smart_voice::heard_paths::hash_as_slash(&text) {
        let slashed = heard(&slashed);
        let named = |r: &str| smart_voice::heard_paths::paths_named(r, &tree.paths);
        if named(&slashed) > named(&request) {
            return slashed;
        }
    }
    request
}

/// Every prompt a model could be shown for `tools` — each format, each ranking style — with no
/// utterance: what an eval checks its folder tree against (no name of the tree may appear in a
/// prompt).
pub fn prompt_previews(tools: &[smart_kernel::ToolSpec]) -> Vec<String> {
    use smart_proposer::PromptFormat as F;
    let decls = understanding::rank_tools(tools);
    let mut out = vec![];
    for format in [F::FunctionGemma, F::ChatMl, F::Completion] {
        for style in [Style::Compact, Style::CompactShots, Style::NativeShots, Style::Verbs] {
            let p = understand::rank::prompt(format, &decls, "", style);
            out.push(format!("{}{}{}", p.prefix, p.rest, p.candidates.join("\n")));
        }
    }
    out
}

/// What understanding made of an utterance, before the kernel sees it.
enum Answer {
    Call {
        source: ProposalSource,
        tool: String,
        args: Value,
        timings: Option<Timings>,
    },
    /// A question back (which file, which of two readings).
    Ask(String),
    /// Something to say instead of a call (nothing prepared to apply, nothing to purge).
    Say(String),
    NoCall,
}

/// Where a turn's words came from: typed, or heard (with a way to hear them again).
enum Said<'t, 'r> {
    Typed,
    Heard { first: &'t Transcript, rehear: Option<&'r mut dyn Rehear> },
}

/// What came of one transcript.
#[derive(Debug, Serialize)]
#[serde(tag = "heard", rename_all = "snake_case")]
pub enum Heard {
    /// Nothing intelligible was said.
    Nothing,
    /// An emergency word: the emergency gate's report (none when only proposing).
    Emergency {
        word: String,
        report: Option<CallReport>,
    },
    Turn(SayReport),
}

/// How a turn that ended as `end` closes the interaction machine, after the steps it took to
/// get there (see `Assistant::turn`): one row per ending, so the compiler holds every ending to a
/// row, and `every_turn_ending_walks_the_machine_back_to_idle` holds every row to a legal walk.
/// `tier` is the admitted call's, for the kernel's outcomes.
fn closing(end: TurnEnd, tier: Option<u8>) -> &'static [Trigger] {
    match end {
        // No call: a question, a reply, or bootstrap's next question.
        TurnEnd::Asked | TurnEnd::NoCall | TurnEnd::Bootstrap => &[Trigger::NoCall],
        TurnEnd::ProposeOnly => &[Trigger::PlanDeferred],
        TurnEnd::Refused | TurnEnd::Denied | TurnEnd::Recorded => &[Trigger::Refused],
        // The approval is the person's, through the dialog or `smart approve`.
        TurnEnd::Pending => &[Trigger::Tier3, Trigger::ConfirmTimeout],
        TurnEnd::Committed | TurnEnd::Failed if tier == Some(2) => &[Trigger::Tier2, Trigger::ExecutionComplete],
        TurnEnd::Committed | TurnEnd::Failed => &[Trigger::Tier1, Trigger::ExecutionComplete],
    }
}

/// What the first steps of a turn left: bootstrap took the words as its answer, or there is a
/// request to understand.
enum Start {
    Answered(Box<SayReport>),
    /// What to understand: the words, or the earlier intent bootstrap handed over with them.
    Request {
        text: String,
        handed_over: Option<Box<crate::slow_loop::BootstrapReply>>,
    },
}

/// A finished turn as the continuous evaluator sees it: what was said, the last call and what
/// the kernel made of it.
fn turn_record(report: &SayReport, at: smart_kernel::Millis) -> smart_advisors::TurnRecord {
    use smart_advisors::TurnOutcome as O;
    let last = report.steps.last();
    let outcome = match last.and_then(|s| s.report.as_ref()) {
        None => O::NoCall,
        Some(r) => match r.outcome {
            CallOutcome::Committed => O::Committed,
            CallOutcome::Refused => O::Refused { code: r.code.clone().unwrap_or_default() },
            CallOutcome::Pending => O::Pending,
            CallOutcome::Denied => O::Denied,
            CallOutcome::Failed | CallOutcome::Recorded => O::Failed,
        },
    };
    smart_advisors::TurnRecord {
        utterance: Some(report.utterance.clone()),
        tool: last.map(|s| s.proposal.tool.clone()),
        call_hash: last
            .and_then(|s| smart_kernel::hash_of(&(&s.proposal.tool, &s.proposal.args)).ok())
            .map(|h| h.to_hex()),
        outcome,
        at,
    }
}

/// What the phrase templates make of an utterance.
#[derive(Clone, Debug, PartialEq)]
pub enum Templated {
    Call {
        tool: String,
        args: Value,
    },
    /// The words are a command for one tool, but a name in them is two things: which?
    Ask(String),
}

/// The phrase templates' answer to an utterance already read (`understand::read`), when it
/// stands. A template is exact about words, not about names: it joins what was said to the
/// working folder. When every file it names exists, spelt exactly so, that is the call. When
/// one does not ("quarantine keep.log" for `docs/keep.log`, "scan pictures" for `Pictures`),
/// the template has still told which tool the words ask for, and the names that exist decide
/// the arguments — the same recipe (`understand::fill`) that fills them for the model's choice:
/// one existing entry is the call, two are a question, none leaves the utterance to the model.
/// (Measured: a bare file name in a subfolder went to the model, which ranked
/// `quarantine.purge` first for "quarantine keep.log" and purged nothing.) The eval's
/// `templates` mode runs exactly this, so "templates alone" measures the fast path the
/// pipeline takes.
pub fn template(reading: &understand::Reading, phrase: &PhraseContext, ctx: &understand::Context) -> Option<Templated> {
    let (tool, args) = phrases::propose(&reading.text, phrase)?;
    // Found only where needed: a template whose paths exist as spelt needs no mentions.
    let mentions = || understand::mentions::find(reading, &ctx.vocab);
    // "search for mosaic, only in payslips" (a fifty-second author): the template takes every
    // word after "search for" as the topic; a folder said as the place to look narrows the
    // search instead, as understanding reads it.
    if tool == "rag.search"
        && let understand::Filled::Args(narrowed) = understand::fill(&tool, reading, &mentions(), ctx)
        && narrowed.get("path_prefix").is_some()
    {
        return Some(Templated::Call { tool, args: narrowed });
    }
    if named_paths_exist(&args) {
        return Some(Templated::Call { tool, args });
    }
    match understand::fill(&tool, reading, &mentions(), ctx) {
        understand::Filled::Args(args) => Some(Templated::Call { tool, args }),
        ambiguous @ understand::Filled::Ambiguous { .. } => match understand::decide::explain(&ambiguous, &ctx.base) {
            Some(Understood::Ask { question }) => Some(Templated::Ask(question)),
            _ => None,
        },
        _ => None,
    }
}

/// Whether every file a proposal's arguments name as its input exists, spelt exactly as it is
/// on disk: `path`, each of `paths`, and each move's `from` (a destination need not exist yet).
fn named_paths_exist(args: &Value) -> bool {
    let mut named: Vec<&str> = vec![];
    named.extend(args.get("path").and_then(Value::as_str));
    if let Some(paths) = args.get("paths").and_then(Value::as_array) {
        named.extend(paths.iter().filter_map(Value::as_str));
    }
    let mut folders: Vec<&Path> = vec![];
    if let Some(moves) = args.get("moves").and_then(Value::as_array) {
        named.extend(moves.iter().filter_map(|m| m.get("from").and_then(Value::as_str)));
        // A destination need not exist, but the folder it goes into must, spelt as it is:
        // "move a.png to scans" is not a move into Scans.
        folders.extend(
            moves
                .iter()
                .filter_map(|m| m.get("to").and_then(Value::as_str))
                .filter_map(|t| Path::new(t).parent())
                .filter(|p| !p.as_os_str().is_empty()),
        );
    }
    named.iter().all(|p| exact(Path::new(p))) && folders.iter().all(|f| f.is_dir() && exact(f))
}

/// Whether `path` exists with exactly this spelling in every component: a case-insensitive
/// file system (macOS, Windows) also finds `wallpapers` for `Wallpapers`, and a template that
/// heard the lower-case word would then propose a path the person never named.
fn exact(path: &Path) -> bool {
    path.exists()
        && path.ancestors().all(|a| match (a.parent(), a.file_name()) {
            (Some(parent), Some(name)) => std::fs::read_dir(parent)
                .map(|rd| rd.filter_map(Result::ok).any(|e| e.file_name() == name))
                .unwrap_or(false),
            _ => true,
        })
}

/// Builds the worker spec when the model is first needed: a template-answered utterance never
/// loads a model, and a missing model is only an error when one is needed.
pub type SpecFn = Box<dyn FnMut() -> Result<WorkerSpec, AssistantError> + Send>;

/// How much of a file understanding reads to fit a patch's words to it: as much as `fs.read`
/// reads, and what a hand-edited text file is.
const PATCH_TEXT_LIMIT: u64 = 256 * 1024;

pub struct Assistant {
    engine: Engine,
    bus: Bus,
    interaction: Interaction,
    spec: SpecFn,
    supervisor: Option<Supervisor>,
    understand_opts: UnderstandOptions,
}

impl Assistant {
    pub fn new(engine: Engine, bus: Bus, spec: SpecFn) -> Assistant {
        Assistant {
            engine,
            bus,
            interaction: Interaction::default(),
            spec,
            supervisor: None,
            understand_opts: UnderstandOptions::default(),
        }
    }

    pub fn engine(&mut self) -> &mut Engine {
        &mut self.engine
    }

    pub fn bus(&self) -> &Bus {
        &self.bus
    }

    pub fn supervisor(&self) -> Option<&Supervisor> {
        self.supervisor.as_ref()
    }

    /// Whether the model worker was started and has exited since (see `Supervisor`).
    pub fn worker_exited(&mut self) -> bool {
        self.supervisor.as_mut().is_some_and(Supervisor::worker_exited)
    }

    /// Where the interaction state machine is.
    pub fn interaction_state(&self) -> State {
        self.interaction.state()
    }

    /// The watchdog's remedy for a state machine stuck outside Idle with no turn running: back to
    /// Idle through the table's `Fault` transition, and a `fault` event in the ledger saying why.
    pub fn reset_stuck(&mut self, reason: &str) -> Result<(), AssistantError> {
        let corr = TurnId::new();
        if self.interaction.state() == State::Idle {
            return Ok(());
        }
        self.fire(corr.as_str(), Trigger::Fault);
        self.engine.in_turn(&corr, |e| e.record_fault("interaction", reason, 0))?;
        Ok(())
    }

    /// The watchdog's remedy for a worker that died between requests: start it again now
    /// (rather than on the person's next utterance) and ledger the fault. `Ok(false)` when
    /// there was nothing to revive.
    pub async fn revive_worker(&mut self) -> Result<bool, AssistantError> {
        if !self.worker_exited() {
            return Ok(false);
        }
        let corr = TurnId::new();
        let result = self.started_model(corr.as_str()).await.map(|_| true);
        self.record_faults(&corr);
        result
    }

    fn fire(&mut self, corr: &str, trigger: Trigger) {
        match self.interaction.fire(trigger) {
            Ok((from, to)) => self.bus.emit(corr, BusEvent::StateChanged { from, to, trigger }),
            Err(e) => self.bus.emit(corr, BusEvent::IllegalTransition { from: e.from, trigger: e.trigger }),
        }
    }

    /// Ledgers the supervisor's faults and announces them.
    fn record_faults(&mut self, turn: &TurnId) {
        let faults = self.supervisor.as_mut().map(Supervisor::take_faults).unwrap_or_default();
        for f in faults {
            self.bus.emit(
                turn.as_str(),
                BusEvent::WorkerFault { reason: f.reason.clone(), restart_in_ms: f.restart_in_ms },
            );
            let recorded = self.engine.in_turn(turn, |e| e.record_fault("proposer-worker", &f.reason, f.restart_in_ms));
            if let Err(e) = recorded {
                tracing::error!(error = %e, "could not ledger a worker fault");
            }
        }
    }

    /// Starts the model worker ahead of the first utterance.
    pub async fn warm_up(&mut self) -> Result<String, AssistantError> {
        let corr = TurnId::new();
        let result = self.started_model(corr.as_str()).await.map(|(_, info)| info.name);
        self.record_faults(&corr);
        result
    }

    /// The supervisor with its worker running and the model loaded, and what the model said
    /// about itself. The supervisor is created on first use: an utterance a template answers
    /// never needs a model.
    async fn started_model(&mut self, corr: &str) -> Result<(&mut Supervisor, ModelInfo), AssistantError> {
        let sup = match &mut self.supervisor {
            Some(sup) => sup,
            slot @ None => slot.insert(Supervisor::new((self.spec)()?)),
        };
        let starting = sup.model().is_none();
        if starting {
            self.bus.emit(corr, BusEvent::WorkerStarting);
        }
        let info = sup.ensure_started().await?.clone();
        if starting {
            self.bus.emit(
                corr,
                BusEvent::WorkerReady {
                    model: info.name.clone(),
                    format: format!("{:?}", info.format),
                    load_ms: info.load_ms,
                },
            );
        }
        Ok((sup, info))
    }

    /// The text path for one utterance.
    pub async fn say(&mut self, text: &str, opts: &SayOptions) -> Result<SayReport, AssistantError> {
        self.guarded_turn(&TurnId::new(), text, opts, Said::Typed).await
    }

    /// One turn, with everything the engine ledgers meanwhile under its id.
    async fn guarded_turn(
        &mut self,
        turn: &TurnId,
        text: &str,
        opts: &SayOptions,
        said: Said<'_, '_>,
    ) -> Result<SayReport, AssistantError> {
        // Assistant turns do not nest, so the turn is closed, not an outer one restored: a turn
        // future dropped before its end (no caller drops one) leaves its id open only until the
        // next turn opens and closes.
        self.engine.enter_turn(turn.clone());
        let corr = turn.as_str();
        let result = self.turn(turn, text, opts, said).await;
        self.record_faults(turn);
        if result.is_err() && self.interaction.state() != State::Idle {
            self.fire(corr, Trigger::Fault);
        }
        self.engine.leave_turn(None);
        result
    }

    /// What the voice worker reports moves the state machine: speech (or a key press, or the
    /// wake phrase) starts listening, its end starts transcribing. Levels move nothing.
    pub fn voice_event(&mut self, corr: &str, event: &VoiceEvent, trigger: Trigger) {
        match event {
            // In wake mode speech is not a turn until the phrase is heard: a conversation in
            // the room leaves the machine idle.
            VoiceEvent::SpeechStart { .. }
                if trigger != Trigger::WakeWord && self.interaction.state() == State::Idle =>
            {
                self.fire(corr, trigger);
            }
            VoiceEvent::Wake { .. } if self.interaction.state() == State::Idle => {
                self.fire(corr, Trigger::WakeWord);
            }
            VoiceEvent::SpeechEnd { .. } if self.interaction.state() == State::Listening => {
                self.fire(corr, Trigger::EndOfSpeech);
            }
            _ => {}
        }
        if let Some(e) = BusEvent::from_voice(event) {
            self.bus.emit(corr, e);
        }
    }

    /// One transcript from the voice worker. An empty one ends the interaction; an emergency
    /// word goes to the kernel's emergency gate as the person's signed signal and never to the
    /// proposer; anything else is a turn like typed text.
    pub async fn hear(&mut self, transcript: &Transcript, opts: &SayOptions) -> Result<Heard, AssistantError> {
        self.hear_with(&TurnId::new(), transcript, opts, None).await
    }

    /// [`Assistant::hear`] as the request `turn` (made where the speech began, so the HUD's live
    /// line and the ledger agree), with a way to hear the utterance again should its reading be
    /// a question (`crate::rehearing`).
    pub async fn hear_with(
        &mut self,
        turn: &TurnId,
        transcript: &Transcript,
        opts: &SayOptions,
        mut rehear: Option<&mut dyn Rehear>,
    ) -> Result<Heard, AssistantError> {
        let corr = turn.as_str();
        // A transcript can arrive without its speech events (a worker restarted mid-utterance):
        // the machine is walked to Transcribing through the table, never jumped.
        if self.interaction.state() == State::Idle {
            self.fire(corr, Trigger::VoiceActivity);
        }
        if self.interaction.state() == State::Listening {
            self.fire(corr, Trigger::EndOfSpeech);
        }
        let text = transcript.text.trim();
        if text.is_empty() {
            self.fire(corr, Trigger::EmptyTranscript);
            return Ok(Heard::Nothing);
        }
        if let Some(word) = smart_voice::emergency_word(text) {
            self.bus.emit(corr, BusEvent::Utterance { text: text.to_string() });
            self.fire(corr, Trigger::Cancel);
            if opts.propose_only {
                return Ok(Heard::Emergency { word: word.to_string(), report: None });
            }
            let reason = format!("emergency word \"{word}\" heard");
            let report = self.engine.in_turn(turn, |e| e.stop(&reason))?;
            self.bus.emit(corr, BusEvent::Emergency { word: word.to_string() });
            return Ok(Heard::Emergency { word: word.to_string(), report: Some(report) });
        }
        self.fire(corr, Trigger::TranscriptReady);
        let tree = self.heard_tree();
        // Weighed only where the utterance can be listened to again (`hear` has no way to).
        let weighed = match (rehear.as_deref_mut(), &tree) {
            (Some(again), Some(tree)) => {
                let ways = ways_it_may_have_been_meant(text, tree, !self.understand_opts.unweighed_openings);
                if ways.is_empty() { None } else { weigh(transcript, again, ways).await }
            }
            _ => None,
        };
        let taken = weighed.as_ref().and_then(|w| w.taken.as_deref()).unwrap_or(text);
        let request = self.heard_in(taken, opts, tree.as_ref());
        let mut report = self.guarded_turn(turn, &request, opts, Said::Heard { first: transcript, rehear }).await?;
        report.weighed = weighed;
        Ok(Heard::Turn(report))
    }

    /// What hearing puts a transcript right against: the names and paths under the roots (the
    /// nearest first, at most `smart_voice::heard_names::MAX_NAMES`). `None` under open hearing,
    /// which puts nothing right. Walked once per hearing, for weighing and reading alike.
    fn heard_tree(&self) -> Option<HeardTree> {
        if self.understand_opts.open_hearing {
            return None;
        }
        let limits =
            crate::understanding::WalkLimits { entries: smart_voice::heard_names::MAX_NAMES, ..Default::default() };
        let walked = crate::understanding::vocabulary(self.engine.roots(), limits);
        let names: Vec<&str> = walked.entries.iter().map(|e| e.name()).collect();
        Some(HeardTree {
            lexicon: smart_voice::heard_names::Lexicon::of_names(&names),
            paths: walked.entries.iter().map(|e| e.rel.clone()).filter(|r| !r.is_empty()).collect(),
        })
    }

    /// [`heard_as_request`] against the names of the person's working folder.
    fn heard_in(&self, text: &str, opts: &SayOptions, tree: Option<&HeardTree>) -> String {
        let names = self.working_folder(opts).map(|b| crate::model_choice::folder_vocabulary(&b)).unwrap_or_default();
        heard_as_request(text, &names, tree)
    }

    /// A heard search's topic put right against the words the library index holds
    /// (`smart_voice::heard_topics`): "search my files for mistake" searches for "mosaic" when
    /// no document says "mistake" and one says "mosaic". Without an index, or when it cannot be
    /// read, the topic stays as heard (the search itself then says what is wrong).
    fn heard_topic(&self, args: &mut Value) {
        let Some(query) = args.get("query").and_then(Value::as_str) else { return };
        let Some(Ok(vocabulary)) = self.library_index().map(|i| i.vocabulary()) else { return };
        let words = smart_voice::heard_topics::TopicWords::of(&vocabulary.terms);
        let topic = smart_voice::heard_topics::correct(query, |w| vocabulary.contains(w), &words);
        if topic != query {
            args["query"] = Value::String(topic);
        }
    }

    /// Whether the library index holds a word of a search's topic (`understand::cues`); no
    /// index, or one that cannot be read, holds nothing.
    fn topic_is_indexed(&self, query: &str) -> bool {
        let Some(index) = self.library_index() else { return false };
        understand::cues::topic_is_indexed(query, &|w| index.holds(w).unwrap_or(false))
    }

    /// The data dir's library index, when there is one that opens: what understanding asks of
    /// it is a hint, so no index is no hint, not an error.
    fn library_index(&self) -> Option<smart_index::Index> {
        let places = self.engine.places();
        places.index.is_file().then(|| smart_index::Index::open(&places.index).ok()).flatten()
    }

    /// A patch's words to find fitted to the file's own text (`understand::patch_words`). Only a regular file inside an allowed
    /// folder is read, at most [`PATCH_TEXT_LIMIT`] bytes of it, and only to choose among the
    /// words the person said: nothing of it reaches a model or the proposal beyond those words.
    /// A heard patch's words to find that the file does not hold are first put right against
    /// the words it does, and its new words take the case of the old (`smart_voice::heard_edit`:
    /// "swap walnut for marble" heard "… wallet for Marble").
    fn fit_patch(&self, args: &mut Value, heard: bool) {
        let (Some(path), Some(find)) =
            (args.get("path").and_then(Value::as_str), args.get("find").and_then(Value::as_str))
        else {
            return;
        };
        // Resolved, so a link on the way cannot lead out of the allowed folders.
        let Ok(path) = dunce::canonicalize(path) else { return };
        let inside =
            self.engine.roots().iter().filter_map(|r| dunce::canonicalize(r).ok()).any(|r| path.starts_with(r));
        if !inside || !path.is_file() {
            return;
        }
        let Ok(file) = std::fs::File::open(&path) else { return };
        let mut bytes = vec![];
        if std::io::Read::read_to_end(&mut std::io::Read::take(file, PATCH_TEXT_LIMIT), &mut bytes).is_err() {
            return;
        }
        let text = String::from_utf8_lossy(&bytes);
        let put_right = if heard && understand::patch_words::fit_find(find, &text).is_none() {
            Some(smart_voice::heard_edit::find_put_right(find, &text))
                .filter(|f| understand::patch_words::fit_find(f, &text).is_some())
        } else {
            None
        };
        let fitted = understand::patch_words::fit(put_right.as_deref().unwrap_or(find), &text);
        if heard && let Some(replace) = args.get("replace").and_then(Value::as_str) {
            args["replace"] = Value::String(smart_voice::heard_edit::cased_like(replace, &fitted));
        }
        args["find"] = Value::String(fitted);
    }

    /// Where relative names point: the person's folder when it is inside a root, else the
    /// first root.
    fn working_folder(&self, opts: &SayOptions) -> Option<PathBuf> {
        opts.base
            .clone()
            .filter(|b| self.engine.roots().iter().any(|r| b.starts_with(r)))
            .or_else(|| self.engine.roots().first().map(PathBuf::from))
    }

    /// One turn, as named steps: the words in (`begin`), bootstrap's claim on them
    /// (`bootstrap_first`), one answer — a call, a question or a reply — heard again if it is a
    /// question about something heard (`answer`, `hear_again`), then either the reply
    /// (`reply`), the proposal shown only (`--propose-only`), or the kernel's decision
    /// (`submit`); every way out closes through `finish` and the `closing` table.
    async fn turn(
        &mut self,
        turn: &TurnId,
        text: &str,
        opts: &SayOptions,
        said: Said<'_, '_>,
    ) -> Result<SayReport, AssistantError> {
        let corr = turn.as_str();
        let text = self.begin(corr, text, &said)?;
        let (request, handed_over) = match self.bootstrap_first(turn, text, opts)? {
            Start::Answered(report) => return self.finish(*report, None, opts),
            Start::Request { text, handed_over } => (text, handed_over),
        };
        let text = request.as_str();
        let tools = self.engine.visible_tools()?;
        if tools.is_empty() {
            return Err(AssistantError::NoScope);
        }
        let base = self.working_folder(opts).unwrap_or_else(|| PathBuf::from("/"));
        let mut report = SayReport::new(turn, text, handed_over);

        let answer = self.answer(corr, text, &tools, &base, opts, &mut report).await?;
        let heard = matches!(said, Said::Heard { .. });
        // A question about what was heard is asked only after hearing it again; a turn that
        // bootstrap handed over reads an earlier intent, not this audio.
        let answer = match (answer, said) {
            (ask @ Answer::Ask(_), Said::Heard { first, rehear: Some(rehear) }) if report.bootstrap.is_none() => {
                self.hear_again(corr, ask, first, rehear, &tools, &base, opts, &mut report).await
            }
            (answer, _) => answer,
        };
        let Answer::Call { source, tool, mut args, timings } = answer else {
            return self.reply(report, answer, text, opts);
        };
        if heard && tool == "rag.search" {
            self.heard_topic(&mut args);
        }
        let home = crate::paths::home_dir();
        crate::paths::absolutize_args(&tool, &mut args, &base, home.as_deref());
        if tool == "propose.patch" {
            self.fit_patch(&mut args, heard);
        }
        self.bus.emit(corr, BusEvent::Proposal { source, tool: tool.clone(), args: args.clone() });
        self.fire(corr, Trigger::ToolCallsGenerated);
        let proposal = Proposal { tool, args };
        if opts.propose_only {
            report.steps.push(Step { source, proposal, report: None, raw: None, timings });
            report.ended = TurnEnd::ProposeOnly;
            return self.finish(report, None, opts);
        }
        self.submit(report, source, proposal, timings, opts)
    }

    /// The words arrive: announced, and a typed turn moves the machine (a heard one already did,
    /// from its speech events).
    fn begin<'t>(&mut self, corr: &str, text: &'t str, said: &Said<'_, '_>) -> Result<&'t str, AssistantError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(AssistantError::Empty);
        }
        self.bus.emit(corr, BusEvent::Utterance { text: text.to_string() });
        if matches!(said, Said::Typed) {
            self.fire(corr, Trigger::TextSubmitted);
        }
        Ok(text)
    }

    /// While bootstrap listens, what the person says is its answer, not a request — unless it
    /// ends with "dive in" to an explicit request, which is then carried out as this turn.
    fn bootstrap_first(&mut self, turn: &TurnId, text: &str, opts: &SayOptions) -> Result<Start, AssistantError> {
        if opts.propose_only || !self.engine.bootstrap_listening() {
            return Ok(Start::Request { text: text.to_string(), handed_over: None });
        }
        let b = self.engine.bootstrap_say(text)?;
        if let Some(intent) = b.proceed_with.clone() {
            return Ok(Start::Request { text: intent, handed_over: Some(Box::new(b)) });
        }
        let reply =
            b.prompt.clone().unwrap_or_else(|| b.report.reason.clone().unwrap_or_else(|| "I'm listening.".into()));
        self.bus.emit(turn.as_str(), BusEvent::Reply { text: reply.clone() });
        let mut report = SayReport::new(turn, text, Some(Box::new(b)));
        report.reply = Some(reply);
        report.ended = TurnEnd::Bootstrap;
        Ok(Start::Answered(Box::new(report)))
    }

    /// No call: the question, the reply, or — when understanding had nothing — what the read
    /// policy already knows (seed 001: inference before inquiry).
    fn reply(
        &mut self,
        mut report: SayReport,
        answer: Answer,
        text: &str,
        opts: &SayOptions,
    ) -> Result<SayReport, AssistantError> {
        let (reply, ended) = match answer {
            Answer::Ask(q) => (q, TurnEnd::Asked),
            Answer::Say(r) => (r, TurnEnd::NoCall),
            Answer::NoCall | Answer::Call { .. } => {
                let inquiry = smart_advisors::infer(self.engine.state(), text);
                let r = inquiry.reply();
                report.understanding = Some(Box::new(inquiry));
                (r, TurnEnd::NoCall)
            }
        };
        self.bus.emit(report.corr.as_str(), BusEvent::Reply { text: reply.clone() });
        report.reply = Some(reply);
        report.ended = ended;
        self.finish(report, None, opts)
    }

    /// The kernel decides; only it runs anything.
    fn submit(
        &mut self,
        mut report: SayReport,
        source: ProposalSource,
        proposal: Proposal,
        timings: Option<Timings>,
        opts: &SayOptions,
    ) -> Result<SayReport, AssistantError> {
        let corr = report.corr.clone();
        self.fire(corr.as_str(), Trigger::PlanApproved);
        let call_source = match source {
            ProposalSource::Template => CallSource::Template,
            ProposalSource::Model => CallSource::Model,
        };
        // "Undo that" is the person's own request for the kernel's undo (itself judged, with
        // its layer and freshness checks); it never comes from a model.
        let target = proposal.args.get("target_seq").and_then(Value::as_u64);
        let outcome = match (proposal.tool.as_str(), target) {
            ("undo", Some(seq)) if source == ProposalSource::Template => self.engine.undo(seq)?,
            _ => self.engine.call(&proposal.tool, proposal.args.clone(), call_source)?,
        };
        self.bus.emit(
            corr.as_str(),
            BusEvent::Outcome {
                tool: proposal.tool.clone(),
                report: serde_json::to_value(&outcome).unwrap_or(Value::Null),
            },
        );
        report.ended = outcome.outcome.into();
        let tier = outcome.tier;
        report.steps.push(Step { source, proposal, report: Some(outcome), raw: None, timings });
        self.finish(report, tier, opts)
    }

    /// The first hearing's reading was a question: the utterance heard again, and the second
    /// reading taken if it is a call (`crate::rehearing`). Otherwise the question stands, and
    /// the report says what the first reading found.
    #[allow(clippy::too_many_arguments)]
    async fn hear_again(
        &mut self,
        corr: &str,
        answer: Answer,
        first: &Transcript,
        rehear: &mut dyn Rehear,
        tools: &[smart_kernel::ToolSpec],
        base: &Path,
        opts: &SayOptions,
        report: &mut SayReport,
    ) -> Answer {
        let Some(again) = rehear.rehear(first).await else { return answer };
        let said = again.text.trim();
        // An emergency word is the first hearing's to find (`hear`); a second hearing is only
        // ever read as a request, and this one is not. Nor one that lost a word of the first
        // saying what to do: a second hearing mends names, not verbs (`rehearing`).
        if said.is_empty()
            || smart_voice::emergency_word(said).is_some()
            || !crate::rehearing::keeps_the_request(&first.text, said)
        {
            return answer;
        }
        let request = self.heard_in(said, opts, self.heard_tree().as_ref());
        if request.trim().eq_ignore_ascii_case(report.utterance.trim()) {
            return answer;
        }
        let (ranking, model) = (report.ranking.take(), report.model.take());
        let second = match self.answer(corr, &request, tools, base, opts, report).await {
            Ok(second @ Answer::Call { .. }) => second,
            other => {
                if let Err(e) = other {
                    tracing::warn!(error = %e, "the second hearing could not be read; the first stands");
                }
                (report.ranking, report.model) = (ranking, model);
                return answer;
            }
        };
        self.bus.emit(
            corr,
            BusEvent::Heard { text: said.to_string(), confidence: again.confidence, stt_ms: again.timings.stt_ms },
        );
        self.bus.emit(corr, BusEvent::Utterance { text: request.clone() });
        report.utterance = request;
        report.reheard =
            Some(Reheard { text: said.to_string(), stt_ms: again.timings.stt_ms, audio_ctx: again.timings.audio_ctx });
        second
    }

    /// Every turn's way out: the machine closed by the ending's row of `closing`, the evaluator
    /// (for a turn that reached the kernel or answered, not for one only proposing or answering
    /// bootstrap), and the machine back to idle.
    fn finish(
        &mut self,
        mut report: SayReport,
        tier: Option<u8>,
        opts: &SayOptions,
    ) -> Result<SayReport, AssistantError> {
        let corr = report.corr.clone();
        for trigger in closing(report.ended, tier) {
            self.fire(corr.as_str(), *trigger);
        }
        if !opts.propose_only && report.ended != TurnEnd::Bootstrap {
            report.advisories = self.evaluate_turn(&report)?;
        }
        self.fire(corr.as_str(), Trigger::ResponseDelivered);
        self.fire(corr.as_str(), Trigger::MemoryUpdated);
        Ok(report)
    }

    /// What to do with one utterance: "undo that" → the kernel's undo; a phrase template when
    /// one matches exactly and every file it names exists; otherwise understanding — the tool
    /// the model ranks best for the sentence, its arguments from the names that exist — which
    /// may also answer with a question or a reply instead of a call.
    async fn answer(
        &mut self,
        corr: &str,
        text: &str,
        tools: &[smart_kernel::ToolSpec],
        base: &Path,
        opts: &SayOptions,
        report: &mut SayReport,
    ) -> Result<Answer, AssistantError> {
        if let Some(seq) = self.undo_request(text) {
            return Ok(Answer::Call {
                source: ProposalSource::Template,
                tool: "undo".into(),
                args: json!({ "target_seq": seq }),
                timings: None,
            });
        }
        // "can u list Letters pls": texting shorthand read as the words it stands for, by every
        // rule below (the statement rule reads the sentence itself).
        let spelled = understand::reading::spelled_out(text);
        let text = spelled.as_str();
        let reading = understand::read(text);
        if reading.is_empty() {
            return Ok(Answer::NoCall);
        }
        let ctx = understanding::context(&self.engine, base, understanding::WalkLimits::default())?;
        let mentions = understand::mentions::find(&reading, &ctx.vocab);
        let is_name = |said: &str| !ctx.vocab.lookup(said).is_empty();
        // Before the templates: "move guest_list.pdf into Taxes… no wait, forget it" matches one.
        if understand::retracted::taken_back(&reading, &mentions, &is_name) {
            return Ok(Answer::Say(understand::retracted::REPLY.into()));
        }
        // "compress Pictures no hold on Letters" is read as "compress Letters" from here on.
        let corrected = understand::corrected::corrected(&reading, &mentions);
        let (text, reading, mentions) = match &corrected {
            Some(said) => {
                let reading = understand::read(said);
                let mentions = understand::mentions::find(&reading, &ctx.vocab);
                (said.as_str(), reading, mentions)
            }
            None => (text, reading, mentions),
        };
        // "bet", "alright go" right after a plan, a patch or a list was drafted: carry it out.
        if let Some((tool, args)) = understand::assent::applies(&reading, &ctx) {
            return Ok(Answer::Call { source: ProposalSource::Template, tool, args, timings: None });
        }
        let mut cued = understand::cues::cued(&reading, &mentions, &is_name);
        // "what's in the Clients file drawer" asks for the listing, as a cue word would.
        let is_dir = |m: &understand::Mention| {
            m.sure().and_then(|i| ctx.vocab.entries.get(i)).is_some_and(|e| e.kind == understand::EntryKind::Dir)
        };
        let asks_whats_in = understand::cues::asks_whats_in(&reading, &mentions, &is_dir);
        if asks_whats_in && !cued.contains(&"fs.scan") {
            cued.push("fs.scan");
        }
        // "I'm sure I wrote something about photosynthesis", "anything in the catalogue to do
        // with beekeeping": a search's shape, as a search's word would be — for the statement
        // rule too ("i know i wrote something up on mosaic a while back where did it go" opens
        // every clause on "i", a thirty-sixth author).
        if understand::cues::asks_what_was_written(&reading, &mentions) && !cued.contains(&"rag.search") {
            cued.push("rag.search");
        }
        // "my jeans need a patch on the knee" tells; the model would apply the last patch. "how
        // do I undo a commit" asks to be taught, not for an act.
        if understand::statement::tells(text, &mentions, &cued)
            || understand::statement::asks_how_to(text, &mentions, &cued)
        {
            return Ok(Answer::NoCall);
        }
        // "Clients is such a mess lol": something said of one named thing, asking nothing.
        if understand::statement::describes_a_named_thing(text, &reading, &mentions, &cued) {
            return Ok(Answer::NoCall);
        }
        let visible: Vec<String> = tools.iter().map(|t| t.name.clone()).collect();
        if !opts.no_templates {
            let phrase = PhraseContext {
                base: ctx.base.clone(),
                last_plan: ctx.newest.as_ref().map(|(_, h)| h.clone()),
                plan_tool: ctx.newest.as_ref().map(|(t, _)| t.clone()),
                last_list: ctx.artifacts.get("fs.quarantine").cloned(),
                visible: visible.clone(),
            };
            match template(&reading, &phrase, &ctx) {
                Some(Templated::Call { tool, args }) => {
                    return Ok(Answer::Call { source: ProposalSource::Template, tool, args, timings: None });
                }
                Some(Templated::Ask(question)) => return Ok(Answer::Ask(question)),
                None => {}
            }
        }
        let decls = understanding::rank_tools(tools);
        let style = self.understand_opts.style;
        let (sup, info) = self.started_model(corr).await?;
        let shown = understand::mentions::canonical(&reading, &mentions, &ctx.vocab);
        let (model_ranking, timings) = understanding::rank(sup, info.format, &decls, &shown, style).await?;
        let thresholds = &self.understand_opts.thresholds;
        let fill = |tool: &str| understand::fill(tool, &reading, &mentions, &ctx);
        let unserved = understand::beyond::asked_for(&reading, &mentions, &is_name);
        // A topic is evidence for a search, unless the sentence asks for what no tool does ("set
        // an alarm for seven" with "seven" in a document); with the search's own words too, the
        // search is asked for twice ("did I ever save anything on pottery? search for it" ranked
        // two reports above the search, cued once). Not when the sentence asks what a folder
        // holds: "please list the contents of Clients/raw; for the avoidance of doubt, nothing
        // therein is to be altered" has no topic in "doubt" (a forty-second author).
        let topic = unserved.is_none()
            && !asks_whats_in
            && matches!(fill("rag.search"), understand::Filled::Args(search)
                if search.get("query").and_then(Value::as_str).is_some_and(|q| self.topic_is_indexed(q)));
        let searched_twice = topic && cued.contains(&"rag.search");
        if topic && !searched_twice {
            cued.push("rag.search");
        }
        // A record's place said in the store's own shape ("in your reminders, under boiler") asks
        // for a record as its words would: once if no word did, twice if one did.
        let record = understand::args::names_a_record(&reading);
        let record_worded = cued.contains(&"db.upsert");
        if record && !record_worded {
            cued.push("db.upsert");
        }
        // A tool only the person's own words ask for is left out when they were not said (a
        // batch's name alone is not them: "restore batch 0123…" is no purge).
        let unsaid = understand::cues::unsaid(&reading, &mentions, &is_name, &cued);
        // A tool asked for in two ways is lifted twice.
        let mut twice = understand::cues::said_twice(&reading, &mentions, &is_name, &cued);
        if searched_twice && !twice.contains(&"rag.search") {
            twice.push("rag.search");
        }
        if record && record_worded && !twice.contains(&"db.upsert") {
            twice.push("db.upsert");
        }
        // The same for a redirect's shape, a file gone and then a file that is there. A note of
        // such a move is the redirect ("It was Photos/scratch 2019.pdf and now it's
        // Photos/portfolio.mp3. Kindly make a note of the forwarding address" ranked the note
        // 0.73, a thirtieth author), as "record that Scans/old.pdf moved to todo.xlsx" is.
        if understand::args::names_a_move_that_happened(&mentions, &ctx) {
            cued.retain(|t| *t != "db.upsert");
            twice.retain(|t| *t != "db.upsert");
            if cued.contains(&"propose.redirects") {
                if !twice.contains(&"propose.redirects") {
                    twice.push("propose.redirects");
                }
            } else {
                cued.push("propose.redirects");
            }
        }
        // What a folder holds, asked with a verb of listing too.
        if asks_whats_in && understand::cues::says_listing(&reading) && !twice.contains(&"fs.scan") {
            twice.push("fs.scan");
        }
        // A proposal asked to be drafted in so many words ("prepare the redline"), its contents
        // said too, is asked for twice.
        if let Some(tool) = understand::cues::drafted(&reading, &mentions, &is_name)
            && cued.contains(&tool)
            && !twice.contains(&tool)
            && matches!(fill(tool), understand::Filled::Args(_))
        {
            twice.push(tool);
        }
        // A prepared thing's hash said names what applies it, as its words said twice would.
        if let Some(tool) = understand::args::prepared_by_hash(&reading, &ctx) {
            if !cued.contains(&tool) {
                cued.push(tool);
            }
            if !twice.contains(&tool) {
                twice.push(tool);
            }
        }
        let lifts: Vec<&str> = cued.iter().chain(&twice).copied().collect();
        let ranking = understand::cues::weigh(&model_ranking, &lifts, thresholds.cue_boost);
        let ranking = understand::cues::without(&ranking, &unsaid);
        report.model = Some(info.name);
        report.ranking = Some(understanding::RankingView::with_cues(&model_ranking, &ranking, &cued));
        let named = understand::mentions::names_existing(&mentions);
        // The person's words ask for the best tool, and the model ranks it among its best two.
        let worded = ranking.tools.first().is_some_and(|(best, _)| {
            cued.contains(&best.as_str()) && model_ranking.tools.iter().take(2).any(|(t, _)| t == best)
        });
        // What no tool does turns only a call into a reply: chat below the least chance of a
        // call stays no call.
        let understood = match understand::decide_worded(&ranking, &fill, named, worded, &ctx.base, thresholds) {
            Understood::Call { tool, args } => match understand::beyond::overrule(&tool, &cued, unserved, &fill) {
                Some(reply) => reply,
                // The status report no word asked for: the model's answer to what it cannot place.
                None if understand::beyond::unasked_status(&tool, &reading, &mentions, &is_name) => {
                    understand::beyond::cued_instead_of_status(&ranking, &cued, &fill)
                        .or_else(|| understand::beyond::edit_instead_of_status(&fill))
                        .or_else(|| understand::beyond::applied_instead_of_status(&reading, &fill))
                        .unwrap_or(Understood::NoCall)
                }
                None => Understood::Call { tool, args },
            },
            Understood::Ask { question } => match understand::beyond::instead_of_asking(unserved) {
                Some(reply) => reply,
                None => understand::decide::cued_when_the_best_cannot(
                    Understood::Ask { question },
                    &ranking,
                    &cued,
                    &fill,
                    named,
                ),
            },
            other => other,
        };
        // A call to carry out what was prepared, said of nothing prepared, for files a cued
        // tool takes.
        let understood = match understood {
            call @ Understood::Call { .. } => {
                understand::decide::cued_when_the_best_cannot(call, &ranking, &cued, &fill, named)
            }
            other => other,
        };
        let understood = understand::decide::drafted_when_the_edit_is_said(understood, &reading, &fill);
        let newest = ctx.newest.as_ref().map(|(tool, _)| tool.as_str());
        let understood = understand::decide::the_newest_when_unsaid(understood, &reading, &fill, named, newest);
        let understood = understand::decide::unasked_carrying_out(understood, &reading, &fill);
        let understood =
            understand::decide::unsure_of_the_default(understood, &fill, named, &cued, model_ranking.best_call);
        Ok(match understood {
            Understood::Call { tool, args } => {
                Answer::Call { source: ProposalSource::Model, tool, args, timings: Some(timings) }
            }
            Understood::Ask { question } => Answer::Ask(question),
            Understood::Say { reply } => Answer::Say(reply),
            Understood::NoCall => Answer::NoCall,
        })
    }

    /// Has the model worker evaluate the static part of the ranking prompt for the tools the
    /// scope shows now, so the next utterance pays only for its own words. The app runs this at
    /// start and after a scope change; a one-shot command finds it on disk afterwards.
    pub async fn prepare(&mut self) -> Result<Timings, AssistantError> {
        let corr = TurnId::new();
        let tools = self.engine.visible_tools()?;
        if tools.is_empty() {
            return Err(AssistantError::NoScope);
        }
        let decls = understanding::rank_tools(&tools);
        let style = self.understand_opts.style;
        let result = match self.started_model(corr.as_str()).await {
            Ok((sup, info)) => {
                understanding::prepare(sup, info.format, &decls, style).await.map_err(AssistantError::from)
            }
            Err(e) => Err(e),
        };
        self.record_faults(&corr);
        result
    }

    /// How understanding decides (the eval compares settings).
    pub fn set_understanding(&mut self, opts: UnderstandOptions) {
        self.understand_opts = opts;
    }

    /// The end of a turn: the continuous evaluator looks at the recent turns, its findings go to
    /// the kernel as proposals and signals, and the gate controller reads the buffer.
    fn evaluate_turn(&mut self, report: &SayReport) -> Result<Vec<String>, AssistantError> {
        let path = crate::paths::DataDir::new(self.engine.data_dir()).recent_turns();
        let mut window = crate::slow_loop::TurnWindow::load(&path);
        window.push(turn_record(report, self.engine.now()));
        let findings = smart_advisors::evaluate(window.turns(), self.engine.now());
        if let Err(e) = window.save(&path) {
            tracing::warn!(error = %e, "could not keep the evaluator's window");
        }
        self.engine.apply_findings(&findings)?;
        self.engine.read_proposals(smart_kernel::ReadTrigger::EndOfTurn)?;
        Ok(findings.iter().map(|f| f.rule.to_string()).collect())
    }

    /// Perception (seed 001): one fresh-context call of the model worker reads the recent turns
    /// and reports; the report is checked again here (no worker is trusted), and what it
    /// suggests goes to the kernel as proposals, which the gate controller reads at once (the
    /// person asked for this look).
    pub async fn perceive(&mut self) -> Result<PerceiveReport, AssistantError> {
        use smart_proposer::protocol::{PerceiveRequest, Speaker, TranscriptLine};
        let corr = TurnId::new();
        let path = crate::paths::DataDir::new(self.engine.data_dir()).recent_turns();
        let window = crate::slow_loop::TurnWindow::load(&path);
        if window.turns().is_empty() {
            return Err(AssistantError::NothingToPerceive);
        }
        let mut transcript = Vec::new();
        for t in window.turns() {
            if let Some(u) = &t.utterance {
                transcript.push(TranscriptLine { speaker: Speaker::Person, text: u.clone() });
            }
            let did = match (&t.tool, &t.outcome) {
                (_, smart_advisors::TurnOutcome::NoCall) => "asked a question instead of acting".to_string(),
                (Some(tool), smart_advisors::TurnOutcome::Refused { code }) => {
                    format!("proposed {tool}; refused ({code})")
                }
                (Some(tool), o) => format!("proposed {tool}; {}", o.name()),
                (None, _) => "did nothing".to_string(),
            };
            transcript.push(TranscriptLine { speaker: Speaker::Assistant, text: did });
        }
        let state = self.engine.state();
        let frame = state.lease.as_ref().map(|l| l.draft.frame.clone()).unwrap_or_else(|| "none".into());
        let context = format!("stance: {}; commitment: {frame}", state.stance);
        let req = PerceiveRequest { transcript, context, max_tokens: 320 };
        let (sup, _) = self.started_model(corr.as_str()).await?;
        let p = sup.perceive(&req).await?;
        let reports = smart_advisors::perception::parse(&p.report).map_err(WorkerError::Garbage)?;
        let findings = smart_advisors::perception::findings(&reports, self.engine.now());
        // The person asked for this look: what it records, and the read, are one request.
        let recorded = self.engine.in_turn(&corr, |e| -> Result<_, RuntimeError> {
            let recorded = e.apply_findings(&findings)?;
            e.read_proposals(smart_kernel::ReadTrigger::Request)?;
            Ok(recorded)
        })?;
        Ok(PerceiveReport {
            reports,
            findings: findings.iter().map(|f| f.rule.to_string()).collect(),
            recorded,
            generation_ms: p.timings.generation_ms,
            prompt_ms: p.timings.prompt_ms,
        })
    }

    /// Stops the worker and gives the engine back.
    pub async fn into_engine(mut self) -> Engine {
        self.shutdown().await;
        self.engine
    }

    /// Stops the worker cleanly.
    pub async fn shutdown(&mut self) {
        if let Some(s) = self.supervisor.as_mut() {
            s.shutdown().await;
        }
    }
}

impl Assistant {
    /// The event "undo that" means: the newest committed reversible call not yet undone. `None`
    /// when the sentence is not an undo request; an undo request with nothing to undo becomes
    /// an undo of event 0, which the kernel refuses with its reason ("not a committed reversible
    /// call"), so the person hears why.
    fn undo_request(&self, text: &str) -> Option<u64> {
        let lower = phrases::normalise(text).to_lowercase();
        const UNDO: &[&str] = &[
            "undo",
            "undo that",
            "undo it",
            "undo the last change",
            "undo the last thing",
            "undo what you just did",
            "take that back",
            "revert that",
            "put it back",
            "put them back",
        ];
        if !UNDO.contains(&lower.as_str()) {
            return None;
        }
        let state = self.engine.state();
        Some(state.reversible.iter().rev().find(|(_, m)| !m.undone).map(|(seq, _)| *seq).unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    /// Every ending's row of `closing`, after the steps `turn` takes to that ending — typed or
    /// heard, a reply, a proposal shown only, or a call the kernel decided at any tier — is a
    /// legal walk that `finish` takes back to Idle. A new ending without a row does not compile;
    /// a row the table does not allow fails here.
    #[test]
    fn every_turn_ending_walks_the_machine_back_to_idle() {
        use crate::outcome::TurnEnd as E;
        let endings = [
            E::Committed,
            E::Refused,
            E::Pending,
            E::Failed,
            E::Denied,
            E::Recorded,
            E::ProposeOnly,
            E::Asked,
            E::NoCall,
            E::Bootstrap,
        ];
        let typed = [Trigger::TextSubmitted];
        // Heard: speech found by the VAD, a push-to-talk press, the wake phrase (`voice_event`),
        // then the transcript (`hear_with`).
        let heard = [Trigger::VoiceActivity, Trigger::EndOfSpeech, Trigger::TranscriptReady];
        let pressed = [Trigger::PushToTalk, Trigger::EndOfSpeech, Trigger::TranscriptReady];
        let woken = [Trigger::WakeWord, Trigger::EndOfSpeech, Trigger::TranscriptReady];
        for way_in in [&typed[..], &heard[..], &pressed[..], &woken[..]] {
            for end in endings {
                // What `turn` fires between the words and the ending.
                let before: &[Trigger] = match end {
                    E::Asked | E::NoCall | E::Bootstrap => &[],
                    E::ProposeOnly => &[Trigger::ToolCallsGenerated],
                    _ => &[Trigger::ToolCallsGenerated, Trigger::PlanApproved],
                };
                for tier in [None, Some(1), Some(2), Some(3)] {
                    let mut m = Interaction::default();
                    let walk = way_in
                        .iter()
                        .chain(before)
                        .chain(closing(end, tier))
                        .chain(&[Trigger::ResponseDelivered, Trigger::MemoryUpdated]);
                    for t in walk {
                        if let Err(e) = m.fire(*t) {
                            panic!("{end:?} (tier {tier:?}): {e}");
                        }
                    }
                    assert_eq!(m.state(), State::Idle, "{end:?} (tier {tier:?})");
                }
            }
        }
    }

    #[test]
    fn a_prompt_preview_shows_every_visible_tool_in_every_format() {
        let specs = smart_tools::specs();
        let previews = prompt_previews(&specs);
        let styles = [Style::Compact, Style::CompactShots, Style::NativeShots, Style::Verbs];
        assert_eq!(previews.len(), 3 * styles.len());
        // One preview per (format, style), styles innermost: each names every tool as that style shows it.
        for (i, p) in previews.iter().enumerate() {
            let style = styles[i % styles.len()];
            for s in &specs {
                let shown = understand::rank::shown_name(&s.name, style);
                assert!(p.contains(shown), "{} (shown as {shown}) is not in:\n{p}", s.name);
            }
        }
    }

    #[test]
    fn only_existing_inputs_let_a_template_stand() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("a.txt");
        std::fs::write(&f, "x").unwrap();
        let f = f.to_string_lossy().to_string();
        let gone = d.path().join("b.txt").to_string_lossy().to_string();
        assert!(named_paths_exist(&json!({"path": f})));
        assert!(!named_paths_exist(&json!({"path": gone})));
        // A move's destination need not exist; its source must, and so must its folder.
        assert!(named_paths_exist(&json!({"moves": [{"from": f, "to": gone}]})));
        assert!(!named_paths_exist(&json!({"paths": [f, gone]})));
        std::fs::create_dir(d.path().join("Scans")).unwrap();
        let into =
            |dir: &str| json!({"moves": [{"from": f, "to": d.path().join(dir).join("a.txt").to_string_lossy()}]});
        assert!(named_paths_exist(&into("Scans")));
        assert!(!named_paths_exist(&into("scans")), "the destination folder is spelt otherwise");
    }

    /// Regression: "quarantine keep.log" with the file in `docs/` went past the template (no
    /// `keep.log` in the working folder) to the model, which ranked `quarantine.purge` first.
    #[test]
    fn a_template_s_tool_takes_the_names_that_exist_when_it_guessed_the_place_wrong() {
        let d = tempfile::tempdir().unwrap();
        let root = dunce::canonicalize(d.path()).unwrap();
        for f in ["docs/keep.log", "docs/a/notes.txt", "old/notes.txt"] {
            std::fs::create_dir_all(root.join(f).parent().unwrap()).unwrap();
            std::fs::write(root.join(f), "x").unwrap();
        }
        std::fs::create_dir_all(root.join("Pictures")).unwrap();
        // As the engine has them: the root spelt natively, the base `/`-separated.
        let native = root.to_string_lossy().to_string();
        let base = smart_kernel::slash_path(&root);
        let ctx = understand::Context {
            vocab: understanding::vocabulary(std::slice::from_ref(&native), understanding::WalkLimits::default()),
            base: base.clone(),
            artifacts: Default::default(),
            newest: None,
            batches: vec![],
            recent: vec![],
            recent_tool: None,
            just_prepared: None,
        };
        let phrase = PhraseContext {
            base: base.clone(),
            last_plan: None,
            plan_tool: None,
            last_list: None,
            visible: ["fs.quarantine", "fs.scan", "quarantine.purge"].map(String::from).to_vec(),
        };
        let t = |text: &str| template(&understand::read(text), &phrase, &ctx);
        let at = |p: &str| format!("{base}/{p}");
        assert_eq!(
            t("quarantine keep.log"),
            Some(Templated::Call { tool: "fs.quarantine".into(), args: json!({"paths": [at("docs/keep.log")]}) })
        );
        assert_eq!(
            t("scan the pictures folder"),
            Some(Templated::Call { tool: "fs.scan".into(), args: json!({"path": at("Pictures")}) })
        );
        // Two files of that name: the template's tool asks which, it does not pick one.
        assert!(matches!(t("quarantine notes.txt"), Some(Templated::Ask(q)) if q.contains("notes.txt")));
        // A name that is nowhere is left to understanding, which says so.
        assert_eq!(t("quarantine missing.log"), None);
        // Spelt exactly where the template looks: the template's own answer, unchanged.
        assert_eq!(
            t("quarantine docs/keep.log"),
            Some(Templated::Call { tool: "fs.quarantine".into(), args: json!({"paths": [at("docs/keep.log")]}) })
        );
    }
}
