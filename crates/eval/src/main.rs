//! `smart-eval`: how well SMART turns what people say into the call they meant.
//!
//! A proposer is only useful if its proposals are the ones a person intended — the kernel makes
//! a wrong proposal harmless, not helpful. This harness runs the eval sets (`tests/eval/dev.jsonl`
//! to tune on, `tests/eval/test.jsonl` only to report) through the real pipeline in
//! propose-only mode, against a real data dir and a folder tree generated for the run from a
//! seed ([`tree`]), so that no name it asks about is one the proposer's prompt contains (the
//! harness checks, and refuses to run otherwise).
//!
//! Modes: `templates` (the phrase templates alone; no answer means no call), `model` (each
//! chosen proposer model without the templates), `pipeline` (what `smart say` does), and with
//! `--spoken`, the pipeline over espeak-ng recordings heard by the voice worker. Each reports
//! tool accuracy, call accuracy, argument and path accuracy, no-call precision and recall,
//! clarifying questions, schema validity, p50/p90 latency, a per-tool table with what was
//! proposed instead, and (`--verbose`) every miss.

mod cases;
mod fixture;
mod score;
mod spoken;
mod tree;

use anyhow::{Context, Result, anyhow, bail};
use cases::Case;
use score::{Answer, Score};
use serde_json::{Value, json};
use smart_kernel::{CallSource, Registry};
use smart_models::{ModelStatus, Models};
use smart_proposer::phrases::PhraseContext;
use smart_proposer::protocol::LoadRequest;
use smart_proposer::understand;
use smart_runtime::assistant::{Heard, Templated};
use smart_runtime::model_choice::{VoiceChoice, folder_vocabulary, hearing_vocabulary, voice_load};
use smart_runtime::rehearing::{Recorded, Rehear};
use smart_runtime::voice::{Voice, VoiceTimeouts, locate_voice_worker};
use smart_runtime::worker::{WorkerSpec, locate_worker};
use smart_runtime::{Assistant, Bus, CallOutcome, Engine, ManualClock, SayOptions};
use smart_voice::protocol::{Event, Request, Transcript};
use smart_voice::weighed_names::Weight;
use std::collections::BTreeMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::time::Instant;

struct Opts {
    splits: Vec<String>,
    seed: u64,
    modes: Vec<String>,
    models: Option<Vec<String>>,
    every: usize,
    limit: Option<usize>,
    json: Option<PathBuf>,
    verbose: bool,
    require_schema_valid: bool,
    spoken: bool,
    variants: Option<usize>,
    /// How many folder trees (seeds `seed`, `seed + 1`, …) the cases are bound to.
    trees: usize,
    whisper: Option<String>,
    /// How strongly whisper prefers the command words and names (`None`: the default).
    boost: Option<smart_voice::bias::Boost>,
    understand: smart_runtime::understanding::UnderstandOptions,
    /// Transcripts recorded by an earlier `--spoken --json` run, read again without audio.
    replay_heard: Option<PathBuf>,
    /// Hear an utterance again when its first reading is a question.
    rehear: bool,
}

const USAGE: &str =
    "smart-eval [--split dev|test|dev,test] [--seed N] [--trees N] [--modes templates,model,pipeline] [--models a,b]
           [--every K] [--limit N] [--spoken] [--variants N] [--whisper NAME] [--json OUT] [--verbose]
           [--style S] [--best-call P] [--cue-boost B] [--margin M] [--fallback F] [--open-hearing] [--unweighed-openings]
           [--require-schema-valid]
           [--bias-start B] [--bias-follow B] [--replay-heard JSON] [--no-rehear]
Scores the phrase templates, the proposer models and the whole pipeline on a folder tree made
from the seed (a new one each run unless --seed is given).
  --split           which eval set(s): dev (tune on it) or test (report only); authors-dev and
                    authors-test (other authors' sentences: tuned on, report only); or a .jsonl
                    file of cases in the same format (a set kept elsewhere); default dev
  --modes           default templates,model,pipeline
  --models          proposer models for the model mode (default: the catalog's default)
  --every K         every K-th case (a spread over all tools for a quick run)
  --trees N         bind the cases to N trees (seeds seed, seed+1, …) and score them together
  --spoken          also the pipeline over espeak-ng recordings (2 voices × 2 speeds + noise)
  --variants N      only the first N spoken variants
  --whisper NAME    the whisper model for --spoken (default: the catalog's default)
  --style S         the ranking prompt: compact, compact-shots or native-shots
  --best-call P     the least chance that the answer is a call to the best tool (0..1)
  --cue-boost B     how many times likelier a tool whose cue words were said becomes (1: off)
  --margin M        the least log-probability gap between the best two tools not to ask
  --fallback F      how far behind (log-probability) a tool may be and still stand in for a
                    best tool whose arguments the sentence does not name
  --open-hearing    take transcripts as whisper wrote them (no names put right against the tree,
                    no command words or names expected while decoding)
  --unweighed-openings   weigh only names against the audio, not the words a request opens
                    with (the before of that lever; with --replay-heard, on the same hearing)
  --bias-start B    logits added to a token that begins a command word or name (default 2)
  --bias-follow B   logits added to a token that continues one already begun (default 2)
  --replay-heard J  the spoken passes again from the transcripts an earlier `--spoken --json J`
                    run recorded (same split, seed and --every), without audio or whisper:
                    what a change to reading does to what was heard (second hearings too,
                    where that run made them, and each text it weighed, with its weight, for
                    this build's rule to choose from again)
  --no-rehear       never hear an utterance again with whisper's whole window when its first
                    reading is a question (the app does)
  --require-schema-valid   exit 1 if any proposal fails its tool's schema, or any case errors";

fn parse_args() -> Result<Opts> {
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64)?;
    let mut o = Opts {
        splits: vec!["dev".into()],
        seed: seed % 1_000_000,
        modes: vec!["templates".into(), "model".into(), "pipeline".into()],
        models: None,
        every: 1,
        limit: None,
        json: None,
        verbose: false,
        require_schema_valid: false,
        spoken: false,
        variants: None,
        trees: 1,
        whisper: None,
        boost: None,
        understand: Default::default(),
        replay_heard: None,
        rehear: true,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().ok_or_else(|| anyhow!("{a} needs a value"));
        let list = |s: String| s.split(',').map(|x| x.trim().to_string()).filter(|x| !x.is_empty()).collect();
        match a.as_str() {
            "--split" => o.splits = list(val()?),
            "--set" => bail!("--set is gone: the sets are tests/eval/dev.jsonl and test.jsonl (--split)"),
            "--seed" => o.seed = val()?.parse().context("--seed")?,
            "--trees" => o.trees = val()?.parse::<usize>().context("--trees")?.max(1),
            "--modes" => o.modes = list(val()?),
            "--models" => o.models = Some(list(val()?)),
            "--every" => o.every = val()?.parse::<usize>().context("--every")?.max(1),
            "--limit" => o.limit = Some(val()?.parse().context("--limit")?),
            "--json" => o.json = Some(PathBuf::from(val()?)),
            "--replay-heard" => o.replay_heard = Some(PathBuf::from(val()?)),
            "--no-rehear" => o.rehear = false,
            "--verbose" | "-v" => o.verbose = true,
            "--require-schema-valid" => o.require_schema_valid = true,
            "--spoken" => o.spoken = true,
            "--variants" => o.variants = Some(val()?.parse().context("--variants")?),
            "--whisper" => o.whisper = Some(val()?),
            "--style" => {
                let v = val()?;
                o.understand.style = smart_proposer::understand::Style::parse(&v)
                    .ok_or_else(|| anyhow!("--style: {v:?} is not compact, compact-shots or native-shots"))?;
            }
            "--best-call" => o.understand.thresholds.best_call = val()?.parse().context("--best-call")?,
            "--cue-boost" => {
                let b: f32 = val()?.parse().context("--cue-boost")?;
                if !(b.is_finite() && b >= 1.0) {
                    bail!("--cue-boost must be a number of 1 or more (1 turns cues off), not {b}");
                }
                o.understand.thresholds.cue_boost = b;
            }
            "--fallback" => o.understand.thresholds.fallback = val()?.parse().context("--fallback")?,
            "--margin" => o.understand.thresholds.margin = val()?.parse().context("--margin")?,
            "--open-hearing" => o.understand.open_hearing = true,
            "--unweighed-openings" => o.understand.unweighed_openings = true,
            "--bias-start" => {
                o.boost.get_or_insert_with(Default::default).start = val()?.parse().context("--bias-start")?
            }
            "--bias-follow" => {
                o.boost.get_or_insert_with(Default::default).follow = val()?.parse().context("--bias-follow")?
            }
            "--help" | "-h" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => bail!("unknown argument {other:?}\n{USAGE}"),
        }
    }
    let here = sets_dir();
    for s in &o.splits {
        if !s.ends_with(".jsonl") && !here.join(format!("{s}.jsonl")).is_file() {
            bail!(
                "--split: {s:?} is not a set in tests/eval (dev, test, authors-dev, authors-test) or a .jsonl file of cases"
            );
        }
    }
    for m in &o.modes {
        if !matches!(m.as_str(), "templates" | "model" | "pipeline") {
            bail!("--modes: {m:?} is not templates, model or pipeline");
        }
    }
    Ok(o)
}

/// The words a proposer is shown besides the person's: every visible tool's declaration and
/// the prompt around it, in each format. No name of the eval tree may appear in them.
fn prompt_texts(engine: &mut Engine) -> Result<Vec<String>> {
    let tools = engine.visible_tools()?;
    Ok(smart_runtime::assistant::prompt_previews(&tools))
}

struct Run {
    root: PathBuf,
    cases: Vec<Case>,
    /// The fixture's plan, patch and list (`PLAN`, `PATCH`, `QLIST`), as the cases were bound.
    refs: BTreeMap<String, String>,
    /// The newest of each, where a case's call before it made a new one.
    newest: std::cell::RefCell<BTreeMap<String, String>>,
    /// The engine's clock (it stands still between cases).
    clock: ManualClock,
}

/// Which slot an artifact made by `tool` fills.
fn artifact_slot(tool: &str) -> Option<&'static str> {
    match tool {
        "propose.move" => Some("PLAN"),
        "propose.patch" => Some("PATCH"),
        "propose.quarantine" => Some("QLIST"),
        _ => None,
    }
}

/// How many seconds a call before a case may wait for a time gate (the default gates are 2 to
/// 30 s).
const TIME_GATE_SECONDS: usize = 40;

/// Commits the call a case says came just before it ("hash that file" after a read), and
/// returns the case as it must be answered now. A call before that drafts a plan, a patch or a
/// list makes that one "the plan" from then on — for this case ("draft it … now apply it") and
/// every later one, in every mode, as the engine is shared: the cases' `{PLAN}` is then the new
/// one. (What broke: after one such case, every later "apply the plan" was scored against the
/// fixture's older plan.)
fn commit_after(engine: &mut Engine, run: &Run, c: &Case) -> Result<Case> {
    if let Some((tool, args)) = &c.after {
        let mut r = engine.call(tool, args.clone(), CallSource::Script)?;
        // A person says the next thing seconds later: a call before the case that is too soon
        // after the case before it (a time gate, a few seconds; the eval's clock stands still)
        // is made a second later, and again, as a person's would be. (What broke: a fifteenth
        // author's patch drafted at the instant of the read the case before had made.)
        for _ in 0..TIME_GATE_SECONDS {
            if r.code.as_deref() != Some("time_gate") {
                break;
            }
            run.clock.advance(1_000);
            r = engine.call(tool, args.clone(), CallSource::Script)?;
        }
        if r.outcome != CallOutcome::Committed {
            bail!("case {}: the call before it ({tool}) was {}: {:?}", c.id, r.outcome, r.reason);
        }
        if let (Some(slot), Some(made)) = (artifact_slot(tool), r.artifact) {
            run.newest.borrow_mut().insert(slot.to_string(), made);
        }
    }
    let mut expected = c.clone();
    for (slot, made) in run.newest.borrow().iter() {
        if let Some(bound) = run.refs.get(slot) {
            cases::replace_strings(&mut expected.args, bound, made);
            // A sentence that names the hash ("commit patch 7cc1…") names the newest too. (What
            // broke: the text named the fixture's patch and the answer was scored against the
            // new one.)
            expected.text = expected.text.replace(bound.as_str(), made);
        }
    }
    Ok(expected)
}

fn answer_of(r: Result<smart_runtime::SayReport, smart_runtime::AssistantError>, ms: f64) -> Answer {
    match r {
        Ok(rep) => match rep.steps.first() {
            Some(s) => Answer {
                tool: Some(s.proposal.tool.clone()),
                args: s.proposal.args.clone(),
                ms,
                ranking: rep.ranking.clone(),
                ..Answer::default()
            },
            None => Answer {
                reply: rep.reply.clone(),
                asked: rep.asked(),
                ms,
                ranking: rep.ranking.clone(),
                ..Answer::default()
            },
        },
        Err(e) => Answer { ms, error: Some(e.to_string()), ..Answer::default() },
    }
}

async fn typed(a: &mut Assistant, run: &Run, no_templates: bool) -> Result<(Vec<Case>, Vec<Answer>)> {
    let opts = SayOptions { propose_only: true, no_templates, base: Some(run.root.clone()) };
    let (mut expected, mut answers) = (vec![], vec![]);
    for c in &run.cases {
        let now = commit_after(a.engine(), run, c)?;
        let t0 = Instant::now();
        let r = a.say(&now.text, &opts).await;
        expected.push(now);
        answers.push(answer_of(r, t0.elapsed().as_secs_f64() * 1000.0));
    }
    Ok((expected, answers))
}

/// A recording as heard: its transcripts joined into one utterance, the last of them (the one
/// the worker can hear again) and the text heard before that one.
struct FileHeard {
    joined: Transcript,
    last: Transcript,
    before: Option<String>,
}

/// One recording through the voice worker, as `smart listen --wav` does it; several
/// transcripts (a pause the VAD took for an end) are joined into one utterance.
async fn hear_file(voice: &mut Voice, wav: &Path) -> Result<Option<FileHeard>> {
    let id = voice
        .send(Request::TranscribeFile { path: wav.display().to_string(), wake: false, paced: false })
        .await
        .map_err(|e| anyhow!(e))?;
    let mut heard: Option<FileHeard> = None;
    loop {
        let Some(line) = voice.next_event(None).await.map_err(|e| anyhow!(e))? else { continue };
        if line.id != id {
            continue;
        }
        match line.event {
            Event::Transcript(t) => match &mut heard {
                None => heard = Some(FileHeard { joined: t.clone(), last: t, before: None }),
                Some(h) => {
                    h.before = Some(h.joined.text.clone());
                    h.joined.text = format!("{} {}", h.joined.text, t.text);
                    h.joined.end_ms = t.end_ms;
                    h.last = t;
                }
            },
            Event::Done { .. } => return Ok(heard),
            Event::Error(e) => bail!("{}: {e}", wav.display()),
            _ => {}
        }
    }
}

/// The worker's second hearing of a file's last utterance (`last`), after the text heard
/// before it, kept for the JSON (so `--replay-heard` can give it again).
struct Again<'v> {
    voice: &'v mut Voice,
    last: Transcript,
    before: Option<String>,
    heard: Option<String>,
}

impl Rehear for Again<'_> {
    fn rehear<'a>(&'a mut self, _: &'a Transcript) -> Pin<Box<dyn Future<Output = Option<Transcript>> + Send + 'a>> {
        Box::pin(async move {
            let mut t = Rehear::rehear(&mut *self.voice, &self.last).await?;
            if let Some(b) = &self.before {
                t.text = format!("{b} {}", t.text);
            }
            self.heard = Some(t.text.clone());
            Some(t)
        })
    }

    /// Only a file heard as one utterance is weighed: the texts are the whole transcript, the
    /// kept audio only its last utterance.
    fn weigh<'a>(
        &'a mut self,
        _: &'a Transcript,
        texts: &'a [String],
    ) -> Pin<Box<dyn Future<Output = Option<Vec<Weight>>> + Send + 'a>> {
        Box::pin(async move {
            if self.before.is_some() {
                return None;
            }
            Rehear::weigh(&mut *self.voice, &self.last, texts).await
        })
    }
}

/// A recorded run's second hearing and its weighing, given back. Where the run recorded every
/// weight, the texts weighed now get the weights whisper gave them then, so this build's rule
/// chooses among them as it would have live, with none of whisper's run-to-run wobble; a text
/// the run did not weigh (the ways offered have changed since) cannot be taken. An older
/// recording with only the text it took: that text is found likeliest again, and nothing else.
struct Replayed {
    again: Recorded,
    weighed: Option<String>,
    weights: Vec<(String, Weight)>,
}

impl Rehear for Replayed {
    fn rehear<'a>(
        &'a mut self,
        first: &'a Transcript,
    ) -> Pin<Box<dyn Future<Output = Option<Transcript>> + Send + 'a>> {
        self.again.rehear(first)
    }

    fn weigh<'a>(
        &'a mut self,
        _: &'a Transcript,
        texts: &'a [String],
    ) -> Pin<Box<dyn Future<Output = Option<Vec<Weight>>> + Send + 'a>> {
        let scores = if self.weights.is_empty() {
            let taken = self.weighed.as_deref();
            taken
                .filter(|t| texts.iter().any(|x| x == t))
                .map(|t| texts.iter().map(|x| Weight { logp: if x == t { 0.0 } else { -100.0 }, tokens: 10 }).collect())
        } else {
            // What was heard is always recorded; a text the run did not weigh is given what was
            // heard's own weight: a way so weighed is no likelier than the transcript, so it is
            // not taken, and a control so weighed compares its way with the transcript as
            // written — never a free pass — while the ways that were weighed are chosen from.
            let weight = |x: &String| self.weights.iter().find(|(t, _)| t == x).map(|(_, w)| *w);
            texts.first().and_then(weight).map(|heard| texts.iter().map(|x| weight(x).unwrap_or(heard)).collect())
        };
        Box::pin(async move { scores })
    }
}

async fn spoken_pass(
    a: &mut Assistant,
    run: &Run,
    voice: &mut Voice,
    variant: &spoken::Variant,
    dir: &Path,
    rehear: bool,
) -> Result<(Vec<Case>, Vec<Answer>)> {
    let opts = SayOptions { propose_only: true, no_templates: false, base: Some(run.root.clone()) };
    let (mut expected, mut answers) = (vec![], vec![]);
    for (i, c) in run.cases.iter().enumerate() {
        expected.push(commit_after(a.engine(), run, c)?);
        let wav = spoken::synthesize(dir, &format!("case{i}"), &c.speech, variant)?;
        let t0 = Instant::now();
        let heard = hear_file(voice, &wav).await?;
        let _ = std::fs::remove_file(&wav);
        let Some(FileHeard { joined: t, last, before }) = heard else {
            answers.push(Answer {
                ms: t0.elapsed().as_secs_f64() * 1000.0,
                heard: Some(String::new()),
                wer: Some(1.0),
                ..Answer::default()
            });
            continue;
        };
        let mut again = Again { voice: &mut *voice, last, before, heard: None };
        let r = a
            .hear_with(&smart_runtime::TurnId::new(), &t, &opts, rehear.then_some(&mut again as &mut dyn Rehear))
            .await;
        let reheard = again.heard;
        let mut ans = answer_of_heard(r, t0.elapsed().as_secs_f64() * 1000.0);
        ans.wer = Some(smart_voice::word_error_rate(&c.speech, &t.text));
        ans.confidence = Some(t.confidence);
        ans.read_as = ans.read_as.filter(|r| *r != t.text);
        ans.heard = Some(t.text);
        ans.reheard = reheard;
        answers.push(ans);
    }
    Ok((expected, answers))
}

/// What one heard utterance came to, `ms` after the audio (or the transcript) was given.
fn answer_of_heard(r: Result<Heard, smart_runtime::AssistantError>, ms: f64) -> Answer {
    match r {
        Ok(Heard::Turn(rep)) => {
            let read_as = Some(rep.utterance.clone());
            let weighed = rep.weighed.as_ref().and_then(|w| w.taken.clone());
            let weights = rep
                .weighed
                .as_ref()
                .map(|w| w.weights.iter().map(|t| (t.text.clone(), t.logp, t.tokens)).collect())
                .unwrap_or_default();
            Answer { read_as, weighed, weights, ..answer_of(Ok(rep), ms) }
        }
        Ok(Heard::Nothing) => Answer { ms, ..Answer::default() },
        Ok(Heard::Emergency { word, .. }) => {
            Answer { ms, reply: Some(format!("emergency: {word}")), ..Answer::default() }
        }
        Err(e) => Answer { ms, error: Some(e.to_string()), ..Answer::default() },
    }
}

/// What an earlier run heard for one case: the first hearing, and the second if it made one.
#[derive(Clone, Debug, PartialEq)]
struct Recording {
    heard: String,
    reheard: Option<String>,
    weighed: Option<String>,
    /// Every text weighed and its weight, what whisper wrote first (empty in older recordings).
    weights: Vec<(String, Weight)>,
}

/// The transcripts of each spoken pass an earlier `--json` run recorded, by mode, in case order.
/// The cases must be the same ones (the same split, seed and `--every`): a transcript read
/// against another sentence's expectations would measure nothing.
fn recorded_transcripts(path: &Path, cases: &[Case]) -> Result<Vec<(String, Vec<Recording>)>> {
    let body: Value = serde_json::from_str(&std::fs::read_to_string(path).with_context(|| path.display().to_string())?)
        .with_context(|| format!("{}: not an eval --json file", path.display()))?;
    let recorded: Vec<&str> = body["cases"].as_array().into_iter().flatten().filter_map(|c| c["id"].as_str()).collect();
    let ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    if recorded != ids {
        bail!(
            "{} recorded other cases ({} of them) than this run has ({}): use its split, seed and --every",
            path.display(),
            recorded.len(),
            ids.len()
        );
    }
    let mut out = vec![];
    for r in body["results"].as_array().into_iter().flatten() {
        let Some(mode) = r["score"]["mode"].as_str().filter(|m| m.starts_with("spoken")) else { continue };
        let heard = r["answers"].as_array().into_iter().flatten().map(|a| Recording {
            heard: a["heard"].as_str().unwrap_or("").to_string(),
            reheard: a["reheard"].as_str().map(str::to_string),
            weighed: a["weighed"].as_str().map(str::to_string),
            weights: a["weights"].as_array().into_iter().flatten().filter_map(recorded_weight).collect(),
        });
        out.push((format!("replayed {mode}"), heard.collect()));
    }
    if out.is_empty() {
        bail!("{} has no spoken passes (record one with --spoken --json)", path.display());
    }
    Ok(out)
}

/// One recorded `[text, logp, tokens]`.
fn recorded_weight(w: &Value) -> Option<(String, Weight)> {
    let text = w[0].as_str()?.to_string();
    let logp = w[1].as_f64()? as f32;
    let tokens = u32::try_from(w[2].as_u64()?).ok()?;
    Some((text, Weight { logp, tokens }))
}

/// A transcript of `text` with nothing else known about it (a replayed one).
fn transcript_of(text: &str) -> Transcript {
    Transcript {
        text: text.to_string(),
        confidence: 1.0,
        no_speech: 0.0,
        language: "en".into(),
        start_ms: 0,
        end_ms: 0,
        timings: Default::default(),
    }
}

/// A spoken pass from recorded transcripts: the same reading as [`spoken_pass`], no audio. A
/// second hearing is given back where the recorded run made one; a reading that doubts where
/// the recorded one did not has no second hearing to take.
async fn replayed_pass(
    a: &mut Assistant,
    run: &Run,
    heard: &[Recording],
    rehear: bool,
) -> Result<(Vec<Case>, Vec<Answer>)> {
    let opts = SayOptions { propose_only: true, no_templates: false, base: Some(run.root.clone()) };
    let (mut expected, mut answers) = (vec![], vec![]);
    for (c, rec) in run.cases.iter().zip(heard) {
        expected.push(commit_after(a.engine(), run, c)?);
        let t = transcript_of(&rec.heard);
        let t0 = Instant::now();
        let mut again = Replayed {
            again: Recorded(rec.reheard.as_deref().map(transcript_of)),
            weighed: rec.weighed.clone(),
            weights: rec.weights.clone(),
        };
        // Nothing was transcribed: nothing was heard (as when the worker sent no transcript).
        let r = if rec.heard.is_empty() {
            Ok(Heard::Nothing)
        } else {
            a.hear_with(&smart_runtime::TurnId::new(), &t, &opts, rehear.then_some(&mut again as &mut dyn Rehear)).await
        };
        let mut ans = answer_of_heard(r, t0.elapsed().as_secs_f64() * 1000.0);
        ans.wer = Some(smart_voice::word_error_rate(&c.speech, &rec.heard));
        ans.read_as = ans.read_as.filter(|r| *r != rec.heard);
        ans.heard = Some(rec.heard.clone());
        ans.reheard = rec.reheard.clone();
        answers.push(ans);
    }
    Ok((expected, answers))
}

/// An assistant over `engine` proposing with the model at `model_path`. Its evaluated prompt
/// prefix is kept where the app and `smart say` keep theirs (`prefix_cache`): the static prompt is
/// the same for every tree and run, so only the first run since it changed pays the half-minute
/// of evaluating it, and the cases' latencies are those of a warm assistant either way.
fn assistant_for(engine: Engine, model_path: &Path, prefix_cache: &Path) -> Result<Assistant> {
    let program = locate_worker()?;
    let load = LoadRequest {
        path: model_path.to_string_lossy().into_owned(),
        n_ctx: 4096,
        threads: None,
        gpu_layers: 0,
        format: None,
        cache_dir: Some(prefix_cache.to_string_lossy().into_owned()),
    };
    let spec = WorkerSpec { program, args: vec![], load };
    Ok(Assistant::new(engine, Bus::default(), Box::new(move || Ok(spec.clone()))))
}

/// One mode's answers over one tree's cases: (mode name, cases, answers in case order).
type ModeRun = (String, Vec<Case>, Vec<Answer>);

/// One folder tree from `seed`: its data dir, its cases, and every mode run over them.
fn run_tree(
    seed: u64,
    templates_all: &[cases::Template],
    opts: &Opts,
    models: &Models,
    rt: &tokio::runtime::Runtime,
) -> Result<Vec<ModeRun>> {
    // No dot in the folder names: tempfile's `.tmpXXXX` is not what a home folder looks like.
    let tmp = tempfile::Builder::new().prefix("smart-eval-").tempdir()?;
    let root = tmp.path().join("home");
    let t = tree::Tree::generate(seed);
    t.write(&root)?;
    let root = dunce::canonicalize(&root)?;
    let root_s = root.to_string_lossy().to_string();
    let fixture = fixture::build(&tmp.path().join("data"), &root, &t)?;
    let mut engine = fixture.engine;
    for prompt in prompt_texts(&mut engine)? {
        let shared = t.names_in(&prompt);
        if !shared.is_empty() {
            bail!(
                "the eval tree (seed {seed}) shares names with the proposer's prompt: {shared:?} — an eval on names the prompt shows measures copying, not understanding"
            );
        }
    }
    // The library index of the tree, as the app keeps it: what a heard search topic is put
    // right against.
    engine.index_update(None, &mut |_, _| {})?;
    let mut rng = tree::Rng::new(seed ^ 0x5eed);
    let cases: Vec<Case> =
        templates_all.iter().map(|c| c.bind(&t.bind(&mut rng, &fixture.refs), &root_s)).collect::<Result<_>>()?;
    let refs = fixture.refs.clone();
    let run = Run { root: root.clone(), cases, refs, newest: Default::default(), clock: fixture.clock.clone() };
    println!(
        "eval: {} ({} cases), seed {seed} — tree: {}",
        opts.splits.join("+"),
        run.cases.len(),
        t.entries.iter().filter(|e| e.depth() == 0).map(|e| e.path.as_str()).collect::<Vec<_>>().join(", ")
    );

    let mut results: Vec<ModeRun> = vec![];
    if opts.modes.iter().any(|m| m == "templates") {
        let visible: Vec<String> = engine.visible_tools()?.into_iter().map(|s| s.name).collect();
        let ctx = PhraseContext {
            base: root_s.clone(),
            last_plan: fixture.refs.get("PLAN").cloned(),
            plan_tool: Some("apply.move".into()),
            last_list: fixture.refs.get("QLIST").cloned(),
            visible,
        };
        let names = smart_runtime::understanding::context(&engine, &root, Default::default())?;
        let answers: Vec<Answer> = run
            .cases
            .iter()
            .map(|c| {
                let t0 = Instant::now();
                let got = smart_runtime::assistant::template(&understand::read(&c.text), &ctx, &names);
                let ms = t0.elapsed().as_secs_f64() * 1000.0;
                match got {
                    Some(Templated::Call { tool, args }) => Answer { tool: Some(tool), args, ms, ..Answer::default() },
                    Some(Templated::Ask(question)) => {
                        Answer { reply: Some(question), asked: true, ms, ..Answer::default() }
                    }
                    None => Answer { ms, ..Answer::default() },
                }
            })
            .collect();
        results.push(("templates".into(), run.cases.clone(), answers));
    }

    let default = models.catalog().default_for("proposer").map(|m| m.name.clone());
    let chosen: Vec<String> = opts.models.clone().unwrap_or_else(|| default.iter().cloned().collect());
    let want_model = opts.modes.iter().any(|m| m == "model");
    let want_pipeline = opts.modes.iter().any(|m| m == "pipeline") || opts.spoken || opts.replay_heard.is_some();
    for name in &chosen {
        let m = models.get(name).map_err(|e| anyhow!("{e}"))?;
        if models.status(m) == ModelStatus::Missing {
            bail!("{name} is not downloaded: smart models fetch {name}");
        }
        let is_default = Some(name) == default.as_ref();
        if !(want_model || (want_pipeline && is_default)) {
            continue;
        }
        let path = models.verified_path(m)?;
        let mut a = assistant_for(engine, &path, &models.prefix_cache_dir())?;
        a.set_understanding(opts.understand);
        let loaded = rt.block_on(a.warm_up()).map_err(|e| anyhow!("{name}: {e}"))?;
        // The static prompt is evaluated before the first case, as the app does at start: the
        // latencies are those of a warm assistant.
        let prepared = rt.block_on(a.prepare()).map_err(|e| anyhow!("{name}: preparing: {e}"))?;
        eprintln!(
            "{name} ({loaded}): prompt prefix of {} tokens ready in {:.0} ms{}; {} cases…",
            prepared.prompt_tokens,
            prepared.prompt_ms,
            if prepared.prefix_from_disk > 0 { " (from the disk cache)" } else { "" },
            run.cases.len()
        );
        if want_model {
            let (expected, answers) = rt.block_on(typed(&mut a, &run, true))?;
            results.push((format!("model {name}"), expected, answers));
        }
        if is_default && opts.modes.iter().any(|m| m == "pipeline") {
            let (expected, answers) = rt.block_on(typed(&mut a, &run, false))?;
            results.push(("pipeline".into(), expected, answers));
        }
        if is_default && let Some(recorded) = &opts.replay_heard {
            for (mode, heard) in recorded_transcripts(recorded, &run.cases)? {
                eprintln!("{mode} (replayed transcripts): {} cases…", run.cases.len());
                let (expected, answers) = rt.block_on(replayed_pass(&mut a, &run, &heard, opts.rehear))?;
                results.push((mode, expected, answers));
            }
        }
        if is_default && opts.spoken {
            spoken::available()?;
            let choice = VoiceChoice {
                whisper: opts.whisper.clone(),
                vocabulary: folder_vocabulary(&root),
                expected_names: hearing_vocabulary(&[root.display().to_string()]),
                // --open-hearing: whisper as it is, no expected words either.
                boost: if opts.understand.open_hearing {
                    Some(smart_voice::bias::Boost { start: 0.0, follow: 0.0 })
                } else {
                    opts.boost
                },
                ..VoiceChoice::default()
            };
            let load = voice_load(models, &choice).map_err(|e| anyhow!(e))?;
            let program = locate_voice_worker().map_err(|e| anyhow!(e))?;
            let (mut voice, loaded) =
                rt.block_on(Voice::start(&program, load, VoiceTimeouts::default())).map_err(|e| anyhow!(e))?;
            let audio = tmp.path().join("audio");
            std::fs::create_dir_all(&audio)?;
            let mut variants = spoken::default_variants();
            variants.truncate(opts.variants.unwrap_or(usize::MAX));
            for v in &variants {
                eprintln!("spoken ({}, {}): {} cases…", loaded.whisper, v.name, run.cases.len());
                let (expected, answers) = rt.block_on(spoken_pass(&mut a, &run, &mut voice, v, &audio, opts.rehear))?;
                results.push((format!("spoken {} · {}", loaded.whisper, v.name), expected, answers));
            }
            rt.block_on(voice.shutdown());
        }
        engine = rt.block_on(a.into_engine());
    }
    drop(engine);
    Ok(results)
}

/// Where the eval sets named by `--split` live (`tests/eval`).
fn sets_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/eval"))
}

fn main() -> Result<()> {
    let opts = parse_args()?;
    let here = sets_dir();
    let mut templates_all = vec![];
    for split in &opts.splits {
        // A set kept outside the repo (another author's sentences) is named by its file.
        let file = if split.ends_with(".jsonl") { PathBuf::from(split) } else { here.join(format!("{split}.jsonl")) };
        templates_all.extend(cases::load(&file, split)?);
    }
    let templates_all: Vec<_> = templates_all
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % opts.every == 0)
        .map(|(_, c)| c)
        .take(opts.limit.unwrap_or(usize::MAX))
        .collect();

    let registry = Registry::new(smart_tools::specs()).map_err(|e| anyhow!("{e}"))?;
    let models = Models::open_default()?;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    // Every mode's cases and answers, over all the trees of this run.
    let mut by_mode: Vec<ModeRun> = vec![];
    for k in 0..opts.trees {
        let seed = opts.seed + k as u64;
        for (mode, cases, answers) in run_tree(seed, &templates_all, &opts, &models, &rt)? {
            match by_mode.iter_mut().find(|(m, _, _)| *m == mode) {
                Some((_, c, a)) => {
                    c.extend(cases);
                    a.extend(answers);
                }
                None => by_mode.push((mode, cases, answers)),
            }
        }
    }
    let results: Vec<(Score, Vec<Answer>)> =
        by_mode.iter().map(|(m, c, a)| (score::score(m, c, a, &registry), a.clone())).collect();
    let all_cases: Vec<Case> = by_mode.first().map(|(_, c, _)| c.clone()).unwrap_or_default();

    println!();
    for (s, _) in &results {
        score::print(s);
    }
    for (s, answers) in &results {
        println!("\n== per tool: {}", s.mode);
        score::print_table(s);
        if opts.verbose
            && let Some((_, cases, _)) = by_mode.iter().find(|(m, _, _)| *m == s.mode)
        {
            score::print_misses(&s.mode, cases, answers);
        }
    }
    if let Some(out) = &opts.json {
        let body = json!({
            "splits": opts.splits, "seed": opts.seed, "trees": opts.trees, "cases": all_cases.iter().map(|c| json!({
                "id": c.id, "text": c.text, "speech": c.speech, "tool": c.tool, "args": c.args,
            })).collect::<Vec<_>>(),
            "results": results.iter().zip(&by_mode).map(|((s, a), (_, cases, _))| json!({
                "score": s,
                "answers": a,
                "right_call": a.iter().zip(cases).map(|(a, c)| a.right_call(c)).collect::<Vec<_>>(),
            })).collect::<Vec<Value>>(),
        });
        std::fs::write(out, serde_json::to_string_pretty(&body)?)?;
    }
    if opts.require_schema_valid {
        for (s, _) in &results {
            if s.schema_valid < 100.0 || s.errors > 0 {
                bail!(
                    "{}: schema-valid {:.1}%, {} errors — every proposal must be schema-valid",
                    s.mode,
                    s.schema_valid,
                    s.errors
                );
            }
        }
        if !results.iter().any(|(s, _)| s.mode != "templates") {
            bail!("no model was evaluated: fetch one with `smart models fetch`");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn case(id: &str) -> Case {
        Case {
            id: id.into(),
            text: "scan Flyers".into(),
            speech: "scan Flyers".into(),
            tool: Some("fs.scan".into()),
            args: json!({}),
            after: None,
            root: "/r".into(),
        }
    }

    #[test]
    fn recorded_transcripts_are_read_back_per_spoken_pass_and_only_for_the_same_cases() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("run.json");
        let body = json!({
            "cases": [{"id": "dev:1"}, {"id": "dev:4"}, {"id": "dev:9"}],
            "results": [
                {"score": {"mode": "pipeline"}, "answers": [{}, {}, {}]},
                {"score": {"mode": "spoken tiny · en-us 140 wpm"}, "answers": [
                    {"heard": "Scan fliers."},
                    {"heard": "Read the", "reheard": "Read the notes."},
                    {"heard": "Scan misk.", "weighed": "Scan misc.",
                     "weights": [["Scan misk.", -13.0, 5], ["Scan misc.", -11.5, 5], ["bad"]]},
                ]},
            ],
        });
        std::fs::write(&file, body.to_string()).unwrap();
        let got = recorded_transcripts(&file, &[case("dev:1"), case("dev:4"), case("dev:9")]).unwrap();
        assert_eq!(
            got,
            vec![(
                "replayed spoken tiny · en-us 140 wpm".to_string(),
                vec![
                    Recording { heard: "Scan fliers.".into(), reheard: None, weighed: None, weights: vec![] },
                    Recording {
                        heard: "Read the".into(),
                        reheard: Some("Read the notes.".into()),
                        weighed: None,
                        weights: vec![]
                    },
                    Recording {
                        heard: "Scan misk.".into(),
                        reheard: None,
                        weighed: Some("Scan misc.".into()),
                        // A weight that is not [text, logp, tokens] is left out.
                        weights: vec![
                            ("Scan misk.".into(), Weight { logp: -13.0, tokens: 5 }),
                            ("Scan misc.".into(), Weight { logp: -11.5, tokens: 5 }),
                        ]
                    },
                ]
            )]
        );
        // Other cases (another seed, split or --every): refused, nothing read against them.
        let err = recorded_transcripts(&file, &[case("dev:1"), case("dev:7")]).unwrap_err().to_string();
        assert!(err.contains("recorded other cases"), "{err}");
        std::fs::write(&file, json!({"cases": [{"id": "dev:1"}], "results": []}).to_string()).unwrap();
        let err = recorded_transcripts(&file, &[case("dev:1")]).unwrap_err().to_string();
        assert!(err.contains("no spoken passes"), "{err}");
    }

    /// What broke: a replay could only take again the text the recorded run took, so a new
    /// choice rule could not be compared with the old one on the same hearing.
    #[test]
    fn a_replayed_weighing_gives_each_text_the_weight_recorded_for_it() {
        let w = |logp| Weight { logp, tokens: 5 };
        let texts: Vec<String> = ["Scan misk.", "Scan misc."].iter().map(|t| t.to_string()).collect();
        let first = transcript_of("Scan misk.");
        let weigh = |mut r: Replayed, texts: &[String]| {
            tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(r.weigh(&first, texts))
        };
        let recorded = |weights: Vec<(String, Weight)>| Replayed {
            again: Recorded(None),
            weighed: Some("Scan misc.".into()),
            weights,
        };
        let all = vec![("Scan misc.".to_string(), w(-11.5)), ("Scan misk.".to_string(), w(-13.0))];
        assert_eq!(weigh(recorded(all.clone()), &texts), Some(vec![w(-13.0), w(-11.5)]));
        // A text the recorded run did not weigh (the ways offered have changed since) is as
        // likely as what was heard, so it is not taken; the others keep their weights.
        let more = [texts.clone(), vec!["Scan mist.".to_string()]].concat();
        assert_eq!(weigh(recorded(all.clone()), &more), Some(vec![w(-13.0), w(-11.5), w(-13.0)]));
        // What was heard not among them: nothing can be said of any.
        let unheard = vec!["Scan mist.".to_string(), "Scan misc.".to_string()];
        assert_eq!(weigh(recorded(all), &unheard), None);
        // An older recording: the text it took is the likeliest, the others far behind.
        let old = weigh(recorded(vec![]), &texts).unwrap();
        assert!(old[1].logp > old[0].logp + 10.0, "{old:?}");
    }

    #[test]
    fn every_case_of_every_set_binds_to_a_tree_and_expects_a_registry_tool() {
        let here = sets_dir();
        let tools: Vec<String> = smart_tools::specs().iter().map(|s| s.name.clone()).collect();
        let refs: std::collections::BTreeMap<String, String> =
            ["PLAN", "PATCH", "QLIST", "BATCH"].iter().map(|k| (k.to_string(), format!("{k}-ref"))).collect();
        for set in ["dev", "test", "authors-dev", "authors-test"] {
            let templates = cases::load(&here.join(format!("{set}.jsonl")), set).unwrap();
            assert!(templates.len() >= 96, "{set}: {} cases", templates.len());
            for seed in 0..5 {
                let t = tree::Tree::generate(seed);
                let b = t.bind(&mut tree::Rng::new(seed), &refs);
                for tpl in &templates {
                    let c = tpl.bind(&b, "/r").unwrap_or_else(|e| panic!("{}: {e}", tpl.id));
                    if let Some(tool) = &c.tool {
                        assert!(tools.contains(tool), "{}: {tool} is no tool", c.id);
                    }
                }
            }
        }
    }
}
