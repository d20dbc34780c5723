//! One utterance through the whole text path: Orbit's scope → a proposer → the kernel →
//! execute, refuse or hold for approval — and, after a committed step, back to the proposer
//! with the tool's response.
//!
//! The assistant owns no authority of its own. It asks Orbit (through the engine) which tools
//! the live scope shows, and tells a proposer about those and nothing else; it hands whatever
//! comes back to the kernel as a proposal; it reports what the kernel decided. Two proposers
//! answer, in order: the phrase templates (exact and instant, for the commands people say most)
//! and the model worker. Neither can do more than propose.
//!
//! Multi-step turns are bounded by the kernel, not by the model: the loop continues only while
//! the kernel commits what the model proposes, and the kernel's budget and repeat bound end any
//! loop a model would not. The one rule added here is deterministic: a proposal identical to an
//! earlier step of the same turn ends the turn instead of being submitted again.
//!
//! Every stage moves the interaction state machine and is announced on the bus with the turn's
//! correlation id.

use crate::bus::{Bus, BusEvent, ProposalSource};
use crate::engine::{CallReport, Engine, corr};
use crate::error::RuntimeError;
use crate::interaction::{Interaction, State, Trigger};
use crate::worker::{Supervisor, WorkerError, WorkerSpec};
use serde::Serialize;
use serde_json::{Value, json};
use smart_kernel::CallSource;
use smart_proposer::phrases::{self, PhraseContext};
use smart_proposer::protocol::{ModelInfo, ProposeRequest, Timings, Turn};
use smart_proposer::{ModelOutput, ToolDecl};
use smart_voice::protocol::{Event as VoiceEvent, Transcript};
use std::path::{Path, PathBuf};

/// How much of a tool's output goes back to the model, in characters.
const RESPONSE_CHARS: usize = 800;

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
    pub corr: String,
    pub utterance: String,
    pub steps: Vec<Step>,
    /// The proposer's answer when it made no call (or no further call).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reply: Option<String>,
    /// Why the turn ended where it did.
    pub ended: String,
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

/// A finished turn as the continuous evaluator sees it: what was said, the last call and what
/// the kernel made of it.
fn turn_record(report: &SayReport, at: smart_kernel::Millis) -> smart_advisors::TurnRecord {
    use smart_advisors::TurnOutcome as O;
    let last = report.steps.last();
    let outcome = match last.and_then(|s| s.report.as_ref()) {
        None => O::NoCall,
        Some(r) => match r.outcome {
            "committed" => O::Committed,
            "refused" => O::Refused { code: r.code.clone().unwrap_or_default() },
            "pending" => O::Pending,
            "denied" => O::Denied,
            _ => O::Failed,
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

/// Whether every file a proposal's arguments name as its input exists: `path`, each of
/// `paths`, and each move's `from` (a destination need not exist yet).
fn named_paths_exist(args: &Value) -> bool {
    let mut named: Vec<&str> = vec![];
    named.extend(args.get("path").and_then(Value::as_str));
    if let Some(paths) = args.get("paths").and_then(Value::as_array) {
        named.extend(paths.iter().filter_map(Value::as_str));
    }
    if let Some(moves) = args.get("moves").and_then(Value::as_array) {
        named.extend(moves.iter().filter_map(|m| m.get("from").and_then(Value::as_str)));
    }
    named.iter().all(|p| Path::new(p).exists())
}

/// Builds the worker spec when the model is first needed: a template-answered utterance never
/// loads a model, and a missing model is only an error when one is needed.
pub type SpecFn = Box<dyn FnMut() -> Result<WorkerSpec, AssistantError> + Send>;

pub struct Assistant {
    engine: Engine,
    bus: Bus,
    interaction: Interaction,
    spec: SpecFn,
    supervisor: Option<Supervisor>,
}

/// How the allowed folders are put to a proposer. The working folder itself is never spelled
/// out: its absolute name is noise to a small model (it copies pieces of it — a temp folder's
/// `.tmpXYZ` once turned `old.log` into `.old.log`), and it would make the prompt, the cached
/// prefix and therefore the proposal differ from machine to machine. Paths come back relative
/// and the runtime joins them to the working folder; only roots elsewhere are named.
fn folders_context(base: &Path, roots: &[String]) -> String {
    let others: Vec<&str> = roots.iter().map(String::as_str).filter(|r| !base.starts_with(r)).collect();
    let mut c = String::from("The working folder is allowed; write paths inside it relative to it.");
    if !others.is_empty() {
        c.push_str(&format!(" Other allowed folders: {}.", others.join(", ")));
    }
    c
}

impl Assistant {
    pub fn new(engine: Engine, bus: Bus, spec: SpecFn) -> Assistant {
        Assistant { engine, bus, interaction: Interaction::default(), spec, supervisor: None }
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
        let corr = corr();
        if self.interaction.state() == State::Idle {
            return Ok(());
        }
        self.fire(&corr, Trigger::Fault);
        self.engine.record_fault("interaction", reason, 0)?;
        Ok(())
    }

    /// The watchdog's remedy for a worker that died between requests: start it again now
    /// (rather than on the person's next utterance) and ledger the fault. `Ok(false)` when
    /// there was nothing to revive.
    pub async fn revive_worker(&mut self) -> Result<bool, AssistantError> {
        if !self.worker_exited() {
            return Ok(false);
        }
        let corr = corr();
        let result = self.started_model(&corr).await.map(|_| true);
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
    fn record_faults(&mut self, corr: &str) {
        let faults = self.supervisor.as_mut().map(Supervisor::take_faults).unwrap_or_default();
        for f in faults {
            self.bus.emit(corr, BusEvent::WorkerFault { reason: f.reason.clone(), restart_in_ms: f.restart_in_ms });
            if let Err(e) = self.engine.record_fault("proposer-worker", &f.reason, f.restart_in_ms) {
                tracing::error!(error = %e, "could not ledger a worker fault");
            }
        }
    }

    /// The facts a proposer needs to fill in arguments. `offered_plan` is the plan hash a
    /// proposer may apply (see [`declarations`]), if any.
    fn context(&self, base: &Path, offered_plan: Option<(&str, &str)>) -> String {
        let mut c = folders_context(base, self.engine.roots());
        if let Some((tool, plan)) = offered_plan {
            c.push_str(&format!(" The latest proposal is {plan}; {tool} applies it."));
        }
        c
    }

    /// Starts the model worker ahead of the first utterance.
    pub async fn warm_up(&mut self) -> Result<String, AssistantError> {
        let corr = corr();
        let result = self.started_model(&corr).await.map(|(_, info)| info.name);
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
        let corr = corr();
        self.guarded_turn(&corr, text, opts, true).await
    }

    async fn guarded_turn(
        &mut self,
        corr: &str,
        text: &str,
        opts: &SayOptions,
        typed: bool,
    ) -> Result<SayReport, AssistantError> {
        let result = self.turn(corr, text, opts, typed).await;
        self.record_faults(corr);
        if result.is_err() && self.interaction.state() != State::Idle {
            self.fire(corr, Trigger::Fault);
        }
        result
    }

    /// What the voice worker reports moves the state machine: speech (or a key press, or the
    /// wake phrase) starts listening, its end starts transcribing. Levels move nothing.
    pub fn voice_event(&mut self, corr: &str, event: &VoiceEvent, trigger: Trigger) {
        match event {
            VoiceEvent::SpeechStart { .. } | VoiceEvent::Wake { .. } if self.interaction.state() == State::Idle => {
                self.fire(corr, trigger);
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
        let corr = corr();
        // A transcript can arrive without its speech events (a worker restarted mid-utterance):
        // the machine is walked to Transcribing through the table, never jumped.
        if self.interaction.state() == State::Idle {
            self.fire(&corr, Trigger::VoiceActivity);
        }
        if self.interaction.state() == State::Listening {
            self.fire(&corr, Trigger::EndOfSpeech);
        }
        let text = transcript.text.trim();
        if text.is_empty() {
            self.fire(&corr, Trigger::EmptyTranscript);
            return Ok(Heard::Nothing);
        }
        if let Some(word) = smart_voice::emergency_word(text) {
            self.bus.emit(&corr, BusEvent::Utterance { text: text.to_string() });
            self.fire(&corr, Trigger::Cancel);
            if opts.propose_only {
                return Ok(Heard::Emergency { word: word.to_string(), report: None });
            }
            let report = self.engine.stop(&format!("emergency word \"{word}\" heard"))?;
            self.bus.emit(&corr, BusEvent::Emergency { word: word.to_string() });
            return Ok(Heard::Emergency { word: word.to_string(), report: Some(report) });
        }
        self.fire(&corr, Trigger::TranscriptReady);
        let names = self.working_folder(opts).map(|b| crate::model_choice::folder_vocabulary(&b)).unwrap_or_default();
        let request = smart_voice::spoken::as_request(text, &names);
        self.guarded_turn(&corr, &request, opts, false).await.map(Heard::Turn)
    }

    /// Where relative names point: the person's folder when it is inside a root, else the
    /// first root.
    fn working_folder(&self, opts: &SayOptions) -> Option<PathBuf> {
        opts.base
            .clone()
            .filter(|b| self.engine.roots().iter().any(|r| b.starts_with(r)))
            .or_else(|| self.engine.roots().first().map(PathBuf::from))
    }

    async fn turn(
        &mut self,
        corr: &str,
        text: &str,
        opts: &SayOptions,
        typed: bool,
    ) -> Result<SayReport, AssistantError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(AssistantError::Empty);
        }
        self.bus.emit(corr, BusEvent::Utterance { text: text.to_string() });
        if typed {
            self.fire(corr, Trigger::TextSubmitted);
        }

        // While bootstrap listens, what the person says is its answer, not a request — unless it
        // ends with "dive in" to an explicit request, which is then carried out as this turn.
        let mut from_bootstrap = None;
        let intent;
        let text = if !opts.propose_only && self.engine.bootstrap_listening() {
            let b = self.engine.bootstrap_say(text)?;
            match b.proceed_with.clone() {
                Some(i) => {
                    from_bootstrap = Some(Box::new(b));
                    intent = i;
                    intent.as_str()
                }
                None => {
                    let reply = b.prompt.clone().unwrap_or_else(|| match b.report.reason.clone() {
                        Some(why) => why,
                        None => "I'm listening.".to_string(),
                    });
                    self.bus.emit(corr, BusEvent::Reply { text: reply.clone() });
                    self.fire(corr, Trigger::NoCall);
                    self.fire(corr, Trigger::ResponseDelivered);
                    self.fire(corr, Trigger::MemoryUpdated);
                    return Ok(SayReport {
                        corr: corr.to_string(),
                        utterance: text.to_string(),
                        steps: vec![],
                        reply: Some(reply),
                        ended: "bootstrap".into(),
                        model: None,
                        bootstrap: Some(Box::new(b)),
                        understanding: None,
                        advisories: vec![],
                    });
                }
            }
        } else {
            text
        };

        let tools = self.engine.visible_tools()?;
        if tools.is_empty() {
            return Err(AssistantError::NoScope);
        }
        let plan = self.engine.last_plan()?;
        let last_plan = plan.as_ref().map(|(t, h)| (t.as_str(), h.as_str()));
        let decls = declarations(&tools, text, last_plan);
        let offered_plan = last_plan.filter(|_| mentions_plan(text));
        let visible: Vec<String> = decls.iter().map(|d| d.name.clone()).collect();
        let base = self.working_folder(opts).unwrap_or_else(|| PathBuf::from("/"));
        let home = std::env::var_os("HOME").map(PathBuf::from);

        let mut report = SayReport {
            corr: corr.to_string(),
            utterance: text.to_string(),
            steps: vec![],
            reply: None,
            ended: String::new(),
            model: None,
            bootstrap: from_bootstrap,
            understanding: None,
            advisories: vec![],
        };
        let mut turns = vec![Turn::User { text: text.to_string() }];
        loop {
            // 1. A proposal: the templates first (only for the utterance itself), then the model.
            let undo = if report.steps.is_empty() { self.undo_request(text) } else { None };
            let template = if let Some(seq) = undo {
                Some(("undo".to_string(), json!({ "target_seq": seq })))
            } else if report.steps.is_empty() && !opts.no_templates {
                let ctx = PhraseContext {
                    base: base.to_string_lossy().into_owned(),
                    last_plan: plan.as_ref().map(|(_, h)| h.clone()),
                    plan_tool: plan.as_ref().map(|(t, _)| t.clone()),
                    visible: visible.clone(),
                };
                // A template is exact for typed text: a name that does not exist is the person's
                // to get refused. A transcript may carry whisper's extra words into the name
                // ("scan the download is folded"), so a heard template whose files do not exist
                // is not trusted, and the model reads the sentence instead.
                phrases::propose(text, &ctx).filter(|(_, args)| typed || named_paths_exist(args))
            } else {
                None
            };
            let (source, output, raw, timings) = match template {
                Some((tool, args)) => (ProposalSource::Template, ModelOutput::Call { tool, args }, None, None),
                None => {
                    let req = ProposeRequest {
                        tools: decls.clone(),
                        context: self.context(&base, offered_plan),
                        turns: turns.clone(),
                        max_tokens: 192,
                        no_cache: false,
                    };
                    let (sup, info) = self.started_model(corr).await?;
                    let p = sup.propose(&req).await?;
                    report.model = Some(info.name);
                    // The worker's own parse is not trusted: the text is parsed again here
                    // against the tools this turn showed.
                    let names: Vec<&str> = visible.iter().map(String::as_str).collect();
                    match smart_proposer::parse::parse(info.format, &p.raw, &names) {
                        Ok(o) if o == p.output => {}
                        Ok(_) => {
                            return Err(WorkerError::Garbage(format!(
                                "it claimed {:?} but its text says otherwise: {:?}",
                                p.output, p.raw
                            ))
                            .into());
                        }
                        Err(e) => {
                            return Err(WorkerError::Garbage(format!("its answer does not parse: {e}")).into());
                        }
                    }
                    (ProposalSource::Model, p.output, Some(p.raw), Some(p.timings))
                }
            };

            let (tool, mut args) = match output {
                ModelOutput::NoCall { reply } => {
                    // Before asking anything, the assistant says what it already knows (the read
                    // policy); the model's own words stand only after a call it made.
                    let reply = if report.steps.is_empty() && !opts.propose_only {
                        let inquiry = smart_advisors::infer(self.engine.state(), text);
                        let r = inquiry.reply();
                        report.understanding = Some(Box::new(inquiry));
                        r
                    } else {
                        reply
                    };
                    self.bus.emit(corr, BusEvent::Reply { text: reply.clone() });
                    self.fire(corr, Trigger::NoCall);
                    report.reply = Some(reply);
                    report.ended = if report.steps.is_empty() { "no_call" } else { "done" }.into();
                    break;
                }
                ModelOutput::Call { tool, args } => (tool, args),
            };
            crate::paths::absolutize_args(&tool, &mut args, &base, home.as_deref());
            let proposal = Proposal { tool: tool.clone(), args: args.clone() };
            if report.steps.iter().any(|s| s.proposal == proposal) {
                self.fire(corr, Trigger::NoCall);
                report.ended = "repeated".into();
                break;
            }
            self.bus.emit(corr, BusEvent::Proposal { source, tool: tool.clone(), args: args.clone() });
            self.fire(corr, Trigger::ToolCallsGenerated);

            if opts.propose_only {
                self.fire(corr, Trigger::PlanDeferred);
                report.steps.push(Step { source, proposal, report: None, raw, timings });
                report.ended = "propose_only".into();
                break;
            }

            // 2. The kernel decides; only it runs anything.
            self.fire(corr, Trigger::PlanApproved);
            let call_source = match source {
                ProposalSource::Template => CallSource::Template,
                ProposalSource::Model => CallSource::Model,
            };
            // "Undo that" is the person's own request for the kernel's undo (itself judged, with
            // its layer and freshness checks); it never comes from a model.
            let outcome = match (tool.as_str(), args.get("target_seq").and_then(Value::as_u64)) {
                ("undo", Some(seq)) if source == ProposalSource::Template => self.engine.undo(seq)?,
                _ => self.engine.call(&tool, args, call_source)?,
            };
            self.bus.emit(
                corr,
                BusEvent::Outcome { tool: tool.clone(), report: serde_json::to_value(&outcome).unwrap_or(Value::Null) },
            );
            let (continue_with, ended): (Option<Value>, &str) = match outcome.outcome {
                "refused" => {
                    self.fire(corr, Trigger::Refused);
                    (None, "refused")
                }
                "pending" => {
                    self.fire(corr, Trigger::Tier3);
                    // The approval is the person's, through the dialog or `smart approve`.
                    self.fire(corr, Trigger::ConfirmTimeout);
                    (None, "pending")
                }
                "committed" | "failed" => {
                    self.fire(corr, if outcome.tier == Some(2) { Trigger::Tier2 } else { Trigger::Tier1 });
                    let body = match (&outcome.outcome, &outcome.output) {
                        (&"committed", Some(out)) => {
                            let mut b = json!({ "output": shorten(out) });
                            if let Some(a) = &outcome.artifact {
                                b["artifact"] = json!(a);
                            }
                            Some(b)
                        }
                        _ => None,
                    };
                    (body.filter(|_| source == ProposalSource::Model), outcome.outcome)
                }
                other => {
                    self.fire(corr, Trigger::Refused);
                    (None, other)
                }
            };
            report.steps.push(Step { source, proposal: proposal.clone(), report: Some(outcome), raw, timings });
            match continue_with {
                Some(body) => {
                    self.fire(corr, Trigger::StepCommitted);
                    turns.push(Turn::Call { tool: proposal.tool.clone(), args: proposal.args.clone() });
                    turns.push(Turn::Response { tool: proposal.tool, body });
                }
                None => {
                    if matches!(ended, "committed" | "failed") {
                        self.fire(corr, Trigger::ExecutionComplete);
                    }
                    report.ended = ended.to_string();
                    break;
                }
            }
        }
        if !opts.propose_only {
            report.advisories = self.evaluate_turn(&report)?;
        }
        self.fire(corr, Trigger::ResponseDelivered);
        self.fire(corr, Trigger::MemoryUpdated);
        Ok(report)
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
        let corr = corr();
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
        let (sup, _) = self.started_model(&corr).await?;
        let p = sup.perceive(&req).await?;
        let reports = smart_advisors::perception::parse(&p.report).map_err(WorkerError::Garbage)?;
        let findings = smart_advisors::perception::findings(&reports, self.engine.now());
        let recorded = self.engine.apply_findings(&findings)?;
        self.engine.read_proposals(smart_kernel::ReadTrigger::Request)?;
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

/// Whether the person is talking about a plan (applying one, carrying one out).
fn mentions_plan(utterance: &str) -> bool {
    let lower = utterance.to_lowercase();
    // "make a plan to move…" asks for a new plan, not to apply an old one.
    ["the plan", "that plan", "this plan", "move plan", "latest plan", "apply", "the moves", "those moves", "carry out"]
        .iter()
        .any(|w| lower.contains(w))
}

/// The tools a model is always shown (when visible): the everyday file work. They come first
/// (in the registry's order), so the prompt's cached prefix survives from one utterance to the
/// next whatever else is cued.
pub const CORE_TOOLS: &[&str] =
    &["fs.scan", "fs.hash", "cluster.duplicates", "propose.move", "apply.move", "fs.quarantine"];

/// The other tools, and the words that make an utterance about them. A small model on two cores
/// cannot read twenty tool declarations per sentence (prefill alone took over two minutes), and
/// reads a few far more accurately; so beyond the core, a tool is declared only when the
/// utterance mentions one of its cues. Orbit's scope still decides what may be *called*; this
/// only narrows what a model is *told* — the kernel judges whatever comes back.
pub const CUED_TOOLS: &[(&str, &[&str])] = &[
    ("fs.read", &["read", "open", "what does", "say", "contents of the file", "show me the file", "print"]),
    ("rag.search", &["find", "search", "look for", "about", "where is", "where did i", "mention"]),
    ("orbit.get_context", &["status", "context", "stance", "lease", "what can you", "situation", "allowed"]),
    (
        "infer.superseded_docs",
        &["old version", "older version", "outdated", "superseded", "latest version", "versions", "stale"],
    ),
    ("rag.assemble_context", &["context bundle", "assemble", "gather the text", "put together"]),
    ("rag.validate_applicability", &["still valid", "still current", "up to date", "applicable", "still true"]),
    ("propose.patch", &["fix", "replace", "change", "edit", "typo", "correct", "rewrite", "patch"]),
    ("propose.redirects", &["redirect"]),
    ("propose.quarantine", &["clean up", "tidy", "what would you delete", "review before deleting"]),
    ("apply.patch", &["apply", "the patch", "the change", "the edit"]),
    ("db.upsert", &["remember", "note that", "record", "save a note", "store"]),
    ("fs.compact", &["compact", "archive", "compress", "zip", "tarball"]),
    ("rebuild.index", &["rebuild the index", "reindex", "re-index", "rebuild the library"]),
    ("quarantine.purge", &["purge", "empty the quarantine", "permanently delete"]),
];

/// Whether a model is shown `tool` for this utterance.
fn offered(tool: &str, lower: &str) -> bool {
    CORE_TOOLS.contains(&tool)
        || CUED_TOOLS.iter().any(|(t, cues)| *t == tool && cues.iter().any(|c| lower.contains(c)))
}

/// What the proposers are told about the visible tools.
///
/// Only the core tools and those the utterance cues are declared (see [`CUED_TOOLS`]), core
/// first.
///
/// A tool that applies an artifact (`apply.move`) is declared only when the person is talking
/// about a plan and there is one, and then its artifact argument may be exactly that plan's
/// hash and nothing else. Without this a small model reads "move a.txt into archive", picks the
/// tool whose name says "move" and invents a hash — and the only real hash it could pick is a
/// plan the person never asked to apply. The kernel would judge either; this keeps the
/// proposals honest in the first place.
///
/// A tool that takes *either* paths or a proposal (`fs.quarantine`) is shown with its paths only:
/// a reviewed list is applied by "do it" through the templates, where the hash comes from the
/// ledger rather than from a model.
pub fn declarations(
    tools: &[smart_kernel::ToolSpec],
    utterance: &str,
    last_plan: Option<(&str, &str)>,
) -> Vec<ToolDecl> {
    let lower = utterance.to_lowercase();
    let mut chosen: Vec<&smart_kernel::ToolSpec> = tools.iter().filter(|s| offered(&s.name, &lower)).collect();
    // A stable sort: core first, each group in the order the tools came in.
    chosen.sort_by_key(|s| !CORE_TOOLS.contains(&s.name.as_str()));
    chosen
        .into_iter()
        .filter_map(|s| {
            let mut parameters = s.args_schema.clone();
            if let Some(arg) = &s.artifact_arg {
                let required = parameters["required"].as_array().is_some_and(|r| r.iter().any(|v| v == arg.as_str()));
                if required {
                    let (_, plan) = last_plan.filter(|(t, _)| *t == s.name && mentions_plan(utterance))?;
                    if let Some(p) = parameters.pointer_mut(&format!("/properties/{arg}")) {
                        p["enum"] = json!([plan]);
                    }
                } else if let Some(obj) = parameters.as_object_mut() {
                    obj.remove("oneOf");
                    if let Some(props) = obj.get_mut("properties").and_then(Value::as_object_mut) {
                        props.remove(arg.as_str());
                    }
                    let others: Vec<Value> = obj
                        .get("properties")
                        .and_then(Value::as_object)
                        .map(|p| p.keys().map(|k| json!(k)).collect())
                        .unwrap_or_default();
                    obj.insert("required".into(), Value::Array(others));
                }
            }
            Some(ToolDecl { name: s.name.clone(), description: s.description.clone(), parameters })
        })
        .collect()
}

/// A tool output cut to what fits in a small model's context.
fn shorten(v: &Value) -> Value {
    let text = v.to_string();
    if text.len() <= RESPONSE_CHARS {
        return v.clone();
    }
    let cut: String = text.chars().take(RESPONSE_CHARS).collect();
    json!({ "truncated": true, "start": cut })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    #[test]
    fn apply_is_declared_only_for_a_plan_the_person_talks_about_and_only_with_its_hash() {
        let specs = smart_tools::specs();
        let plan = "ab".repeat(32);
        let names = |d: &[ToolDecl]| d.iter().map(|t| t.name.clone()).collect::<Vec<_>>();
        // "move" is not "apply the plan": a model must not be offered a plan to apply.
        for text in ["move a.txt into archive", "plan moving a.txt into archive", "make a plan to move a.txt"] {
            let d = declarations(&specs, text, Some(("apply.move", &plan)));
            assert!(!names(&d).contains(&"apply.move".to_string()), "{text}");
        }
        let d = declarations(&specs, "move a.txt into archive", Some(("apply.move", &plan)));
        assert!(names(&d).contains(&"propose.move".to_string()));
        // No plan, nothing to apply.
        assert!(!names(&declarations(&specs, "apply the plan", None)).contains(&"apply.move".to_string()));
        // A plan, asked for: the hash is the only value the grammar will allow.
        let d = declarations(&specs, "apply the plan", Some(("apply.move", &plan)));
        assert!(!names(&d).contains(&"apply.patch".to_string()), "only the tool that applies the last proposal");
        // fs.quarantine is shown with its paths only.
        let q = d.iter().find(|t| t.name == "fs.quarantine").unwrap();
        assert_eq!(q.parameters["required"], json!(["paths"]));
        assert!(q.parameters["properties"].get("proposal").is_none() && q.parameters.get("oneOf").is_none());
        let apply = d.iter().find(|t| t.name == "apply.move").unwrap();
        assert_eq!(apply.parameters["properties"]["proposal"]["enum"], json!([plan]));
        let g = smart_proposer::grammar::build(smart_proposer::PromptFormat::ChatMl, &d).unwrap();
        assert!(g.contains(&format!("\"\\\"{plan}\\\"\"")), "{g}");
    }

    #[test]
    fn a_model_is_shown_the_core_tools_first_and_others_only_when_the_sentence_cues_them() {
        let specs = smart_tools::specs();
        let names = |text: &str| declarations(&specs, text, None).into_iter().map(|t| t.name).collect::<Vec<_>>();
        assert_eq!(
            names("list the files in Downloads"),
            ["fs.scan", "fs.hash", "cluster.duplicates", "propose.move", "fs.quarantine"]
        );
        let mut sorted = specs.clone();
        sorted.sort_by(|a, b| a.name.cmp(&b.name));
        let n =
            declarations(&sorted, "list the files in Downloads", None).into_iter().map(|t| t.name).collect::<Vec<_>>();
        assert_eq!(
            n,
            ["cluster.duplicates", "fs.hash", "fs.quarantine", "fs.scan", "propose.move"],
            "the order given is kept"
        );
        let n = names("find the notes about the budget");
        assert!(n.contains(&"rag.search".to_string()) && !n.contains(&"db.upsert".to_string()), "{n:?}");
        assert_eq!(
            &n[..5],
            ["fs.scan", "fs.hash", "cluster.duplicates", "propose.move", "fs.quarantine"],
            "core first"
        );
        assert_eq!(n.last().map(String::as_str), Some("rag.search"));
        assert!(names("fix the typo in the README").contains(&"propose.patch".to_string()));
        assert!(names("compress the old-project folder").contains(&"fs.compact".to_string()));
        // Every cued tool is a real tool.
        for (t, _) in CUED_TOOLS {
            assert!(specs.iter().any(|s| s.name == *t), "{t}");
        }
        for s in &specs {
            assert!(
                CORE_TOOLS.contains(&s.name.as_str()) || CUED_TOOLS.iter().any(|(t, _)| *t == s.name),
                "{} is never shown",
                s.name
            );
        }
    }

    #[test]
    fn the_prompt_never_names_the_working_folder_so_a_temp_folder_name_cannot_leak_into_paths() {
        let roots = vec!["/tmp/.tmpipf9N9/root".to_string(), "/media/usb".to_string()];
        let c = folders_context(Path::new("/tmp/.tmpipf9N9/root/inbox"), &roots);
        assert!(!c.contains(".tmpipf9N9"), "{c}");
        assert!(c.contains("/media/usb"), "a root elsewhere is still named: {c}");
        // The same prompt wherever the working folder is: proposals (and the cached prefix) do
        // not depend on the machine's temp folder names.
        let here = folders_context(Path::new("/home/ana"), &["/home/ana".to_string()]);
        let there = folders_context(Path::new("/tmp/x"), &["/tmp/x".to_string()]);
        assert_eq!(here, there);
    }
}
