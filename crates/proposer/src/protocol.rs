//! The wire protocol between the runtime and a model worker: one JSON object per line on the
//! worker's stdin and stdout.
//!
//! Why a process and a protocol rather than a library call: llama.cpp is a large C++ library
//! that can crash, hang or exhaust memory on a bad file, and it cannot share a binary with
//! whisper.cpp. Behind a pipe a crash is a closed stream the supervisor restarts, and the
//! worker's powers are exactly these messages — it can answer with a proposal, never reach the
//! kernel or the ledger.
//!
//! Every line carries the protocol version and the request id it answers, so a worker built
//! from another version is refused at the first line instead of misread later, and a late
//! answer to a timed-out request is recognised and dropped.
//!
//! Besides proposals the worker answers one other question, `perceive` (seed 001's Perception
//! sensor): it reads the recent conversation in a context of its own and describes it as a
//! report. The report is advisory data for the slow loop, never a call, so it travels as a
//! separate op and a separate answer that nothing on the proposal path can mistake for a call.

use crate::tools::ToolDecl;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Bumped whenever a message changes shape.
pub const PROTOCOL_VERSION: u32 = 1;

/// A request line: `{"v":1,"id":7,"op":"propose",...}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RequestLine {
    pub v: u32,
    pub id: u64,
    #[serde(flatten)]
    pub request: Request,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// Load (or replace) the model. Everything else fails until one is loaded.
    Load(LoadRequest),
    Propose(ProposeRequest),
    /// A mean-pooled embedding of the text under the loaded model.
    Embed {
        text: String,
    },
    /// Describe the conversation (seed 001's Perception + Contrast reports). Evaluated in a
    /// fresh context: the proposer's cached prompt prefix is neither used nor disturbed.
    Perceive(PerceiveRequest),
    /// Score given continuations of a prompt instead of generating one (tool choice by
    /// ranking, see `crate::understand::rank`).
    Rank(RankRequest),
    /// Evaluate a prompt's static prefix now and keep it (in memory, and on disk when a cache
    /// dir was given), so the first request that uses it does not wait for it.
    Prepare(PrepareRequest),
    Health,
    Shutdown,
}

/// A prompt in two parts and the continuations to score after it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankRequest {
    /// The part shared by every utterance (cached).
    pub prefix: String,
    /// The utterance and the opening of the answer.
    pub rest: String,
    /// What might follow `rest`, to choose among (see `Ranked::scores`).
    pub candidates: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PrepareRequest {
    pub prefix: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoadRequest {
    pub path: String,
    /// Context length in tokens.
    #[serde(default = "default_ctx")]
    pub n_ctx: u32,
    /// CPU threads; `None` means the worker's default (cores − 1, two on a two-core machine).
    #[serde(default)]
    pub threads: Option<u32>,
    /// Layers to offload to a GPU when the worker was built with one.
    #[serde(default)]
    pub gpu_layers: u32,
    /// The prompt format to use instead of the one detected from the file (a GGUF whose
    /// metadata lacks its chat template, or a test of one format on another model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<crate::call_syntax::PromptFormat>,
    /// Where evaluated prompt prefixes may be kept between runs (a cache: deleting it costs
    /// only time). Without it the prefix is cached in memory only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_dir: Option<String>,
}

fn default_ctx() -> u32 {
    4096
}

/// One proposal request: what the person said, what happened so far in this turn, and the tools
/// the current scope shows. The worker sees nothing else.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProposeRequest {
    pub tools: Vec<ToolDecl>,
    /// Facts the model needs to fill arguments: allowed roots, the working folder.
    pub context: String,
    pub turns: Vec<Turn>,
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
    /// Turn off the prefix cache (benchmarks measure both).
    #[serde(default)]
    pub no_cache: bool,
}

fn default_max_tokens() -> u32 {
    160
}

/// What the perception sensor is shown: the recent conversation and the facts around it. It is
/// told nothing of tools, so there is nothing it could call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PerceiveRequest {
    /// Oldest first; the prompt keeps only the most recent lines (see `crate::perception`).
    pub transcript: Vec<TranscriptLine>,
    /// Free text the sensor may weigh: the working folder, the active stance, the commitment.
    pub context: String,
    #[serde(default = "default_perceive_tokens")]
    pub max_tokens: u32,
}

/// The report's fixed keys alone take about 150 tokens; the free strings the rest.
fn default_perceive_tokens() -> u32 {
    320
}

/// One line of the conversation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TranscriptLine {
    pub speaker: Speaker,
    pub text: String,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Speaker {
    Person,
    Assistant,
}

/// A turn of the conversation the model continues.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Turn {
    User {
        text: String,
    },
    /// A call the model proposed earlier in this turn.
    Call {
        tool: String,
        args: Value,
    },
    /// What the kernel and the tool made of it: an output, a refusal or a pending approval.
    Response {
        tool: String,
        body: Value,
    },
    /// A reply without a call.
    Assistant {
        text: String,
    },
}

/// A response line: `{"v":1,"id":7,"ok":{...}}` or `{"v":1,"id":7,"err":{...}}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResponseLine {
    pub v: u32,
    pub id: u64,
    #[serde(flatten)]
    pub body: ResponseBody,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResponseBody {
    Ok(Response),
    Err(WorkerError),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Response {
    Loaded(ModelInfo),
    Proposal(Proposal),
    Embedding { vector: Vec<f32> },
    Health { model: Option<ModelInfo> },
    Perceived(Perceived),
    Ranked(Ranked),
    Prepared(Prepared),
    Bye,
}

/// The scores of a `rank` request, in the order of its candidates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ranked {
    /// For each candidate, the natural log-probability of its tokens up to the one that sets it
    /// apart from every other candidate (its first token always counts): what tells the
    /// candidates apart. Tokens shared by all, and tokens after a candidate stands alone, are
    /// not scored.
    pub scores: Vec<f32>,
    /// The log-probability of each candidate's first token alone.
    pub first: Vec<f32>,
    /// How many tokens each candidate is.
    pub tokens: Vec<u32>,
    /// `generated_tokens` counts the candidate tokens evaluated (shared ones once).
    pub timings: Timings,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Prepared {
    pub tokens: u32,
    pub timings: Timings,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelInfo {
    pub path: String,
    /// `general.architecture` from the GGUF (gemma3, qwen2, llama, ...).
    pub architecture: String,
    pub name: String,
    pub format: crate::call_syntax::PromptFormat,
    pub n_params: u64,
    pub n_ctx: u32,
    pub threads: u32,
    pub load_ms: u64,
}

/// What the model proposed and what it cost.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Proposal {
    pub output: crate::parse::ModelOutput,
    /// The text the model generated, for the eval harness and for bug reports.
    pub raw: String,
    pub timings: Timings,
}

/// What the perception sensor reported. Advisory only: it goes to the slow loop as data and
/// decides nothing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Perceived {
    /// The report, `{"perception": {...}, "contrast": {...}}`, as the worker parsed and checked
    /// it (`crate::perception::validate`); a receiver that trusts no worker checks it again.
    pub report: Value,
    /// The text the model generated.
    pub raw: String,
    /// `cached_tokens` is always 0 (a fresh context); `prompt_ms` includes creating it.
    pub timings: Timings,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Timings {
    /// Tokens of the prompt in total, and how many of them came from the cache.
    pub prompt_tokens: u32,
    pub cached_tokens: u32,
    pub prompt_ms: f64,
    pub generated_tokens: u32,
    pub generation_ms: f64,
    /// Tokens whose greedy choice the grammar refused, so the whole vocabulary was filtered.
    pub grammar_fallbacks: u32,
    /// Tokens of the static prefix restored from the on-disk cache instead of evaluated.
    #[serde(default)]
    pub prefix_from_disk: u32,
}

/// Errors are data with a stable code the runtime can act on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkerError {
    pub code: WorkerErrorCode,
    pub message: String,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkerErrorCode {
    /// The line was not a request of this protocol version.
    BadRequest,
    VersionMismatch,
    NoModel,
    ModelMissing,
    /// The file exists but llama.cpp could not load it (corrupt, truncated, not a GGUF).
    ModelInvalid,
    /// A GGUF of an architecture this build cannot run.
    UnsupportedArchitecture,
    ContextTooSmall,
    /// The generated text did not parse (cannot happen under the grammar; kept for fallbacks),
    /// or a perception report ran out of tokens before it was complete.
    Unparsable,
    Internal,
}

impl WorkerError {
    pub fn new(code: WorkerErrorCode, message: impl Into<String>) -> WorkerError {
        WorkerError { code, message: message.into() }
    }
}

impl std::fmt::Display for WorkerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.message)
    }
}

/// Reads one request line, refusing other versions by name.
pub fn decode_request(line: &str) -> Result<RequestLine, (u64, WorkerError)> {
    let value: Value = serde_json::from_str(line)
        .map_err(|e| (0, WorkerError::new(WorkerErrorCode::BadRequest, format!("not JSON: {e}"))))?;
    let id = value.get("id").and_then(Value::as_u64).unwrap_or(0);
    match value.get("v").and_then(Value::as_u64) {
        Some(v) if v == u64::from(PROTOCOL_VERSION) => {}
        Some(v) => {
            return Err((
                id,
                WorkerError::new(
                    WorkerErrorCode::VersionMismatch,
                    format!("protocol version {v} requested; this worker speaks {PROTOCOL_VERSION}"),
                ),
            ));
        }
        None => return Err((id, WorkerError::new(WorkerErrorCode::BadRequest, "request has no version `v`"))),
    }
    serde_json::from_value(value).map_err(|e| (id, WorkerError::new(WorkerErrorCode::BadRequest, e.to_string())))
}

/// Reads one response line. Anything that is not a response of this version is an error the
/// supervisor treats as a broken worker.
pub fn decode_response(line: &str) -> Result<ResponseLine, String> {
    let parsed: ResponseLine = serde_json::from_str(line).map_err(|e| {
        let shown: String = line.chars().take(120).collect();
        format!("the worker printed something that is not a protocol line ({e}): {shown:?}")
    })?;
    if parsed.v != PROTOCOL_VERSION {
        return Err(format!("the worker speaks protocol version {}, expected {PROTOCOL_VERSION}", parsed.v));
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    #[test]
    fn a_request_round_trips_with_its_version_and_id() {
        let line = RequestLine { v: PROTOCOL_VERSION, id: 9, request: Request::Embed { text: "hi".into() } };
        let text = serde_json::to_string(&line).unwrap();
        assert_eq!(text, r#"{"v":1,"id":9,"op":"embed","text":"hi"}"#);
        assert_eq!(decode_request(&text).unwrap(), line);
    }

    #[test]
    fn another_version_is_refused_by_name() {
        let (id, err) = decode_request(r#"{"v":2,"id":4,"op":"health"}"#).unwrap_err();
        assert_eq!(id, 4);
        assert_eq!(err.code, WorkerErrorCode::VersionMismatch);
        let (_, err) = decode_request(r#"{"id":4,"op":"health"}"#).unwrap_err();
        assert_eq!(err.code, WorkerErrorCode::BadRequest);
        let (_, err) = decode_request("garbage").unwrap_err();
        assert_eq!(err.code, WorkerErrorCode::BadRequest);
    }

    #[test]
    fn a_perceive_request_round_trips_and_defaults_its_token_budget() {
        let line = RequestLine {
            v: PROTOCOL_VERSION,
            id: 3,
            request: Request::Perceive(PerceiveRequest {
                transcript: vec![
                    TranscriptLine { speaker: Speaker::Person, text: "no, that's wrong again".into() },
                    TranscriptLine { speaker: Speaker::Assistant, text: "Sorry.".into() },
                ],
                context: "Working folder: /home/ana".into(),
                max_tokens: 320,
            }),
        };
        let text = serde_json::to_string(&line).unwrap();
        assert_eq!(
            text,
            r#"{"v":1,"id":3,"op":"perceive","transcript":[{"speaker":"person","text":"no, that's wrong again"},{"speaker":"assistant","text":"Sorry."}],"context":"Working folder: /home/ana","max_tokens":320}"#
        );
        assert_eq!(decode_request(&text).unwrap(), line);
        let short = r#"{"v":1,"id":3,"op":"perceive","transcript":[],"context":""}"#;
        let Request::Perceive(p) = decode_request(short).unwrap().request else { panic!("not a perceive") };
        assert_eq!(p.max_tokens, 320);
        let (_, err) = decode_request(
            r#"{"v":1,"id":3,"op":"perceive","transcript":[{"speaker":"robot","text":"x"}],"context":""}"#,
        )
        .unwrap_err();
        assert_eq!(err.code, WorkerErrorCode::BadRequest);
    }

    #[test]
    fn a_perceived_answer_round_trips() {
        let line = ResponseLine {
            v: PROTOCOL_VERSION,
            id: 3,
            body: ResponseBody::Ok(Response::Perceived(Perceived {
                report: serde_json::json!({"perception": {"trajectory": "stuck"}, "contrast": {"severity": "high"}}),
                raw: "{...}".into(),
                timings: Timings { prompt_tokens: 400, generated_tokens: 150, ..Timings::default() },
            })),
        };
        let text = serde_json::to_string(&line).unwrap();
        assert!(text.starts_with(r#"{"v":1,"id":3,"ok":{"kind":"perceived","report":{"#), "{text}");
        assert_eq!(decode_response(&text).unwrap(), line);
    }

    #[test]
    fn lines_written_before_perceive_existed_still_decode() {
        // Adding an op changed no existing line, which is why the version stayed 1.
        let propose = r#"{"v":1,"id":2,"op":"propose","tools":[],"context":"c","turns":[{"role":"user","text":"hi"}]}"#;
        assert!(matches!(decode_request(propose).unwrap().request, Request::Propose(_)));
        let health = r#"{"v":1,"id":2,"ok":{"kind":"health","model":null}}"#;
        assert_eq!(decode_response(health).unwrap().body, ResponseBody::Ok(Response::Health { model: None }));
    }

    #[test]
    fn a_rank_request_and_its_answer_round_trip() {
        let line = RequestLine {
            v: PROTOCOL_VERSION,
            id: 5,
            request: Request::Rank(RankRequest {
                prefix: "p".into(),
                rest: "r".into(),
                candidates: vec!["a".into(), "b".into()],
            }),
        };
        let text = serde_json::to_string(&line).unwrap();
        assert_eq!(text, r#"{"v":1,"id":5,"op":"rank","prefix":"p","rest":"r","candidates":["a","b"]}"#);
        assert_eq!(decode_request(&text).unwrap(), line);
        let answer = ResponseLine {
            v: PROTOCOL_VERSION,
            id: 5,
            body: ResponseBody::Ok(Response::Ranked(Ranked {
                scores: vec![-0.5, -3.0],
                first: vec![-0.1, -0.1],
                tokens: vec![4, 5],
                timings: Timings::default(),
            })),
        };
        assert_eq!(decode_response(&serde_json::to_string(&answer).unwrap()).unwrap(), answer);
    }

    #[test]
    fn garbage_from_a_worker_is_an_error_not_a_response() {
        assert!(decode_response("llama_model_load: error loading model").is_err());
        assert!(decode_response(r#"{"v":3,"id":1,"ok":{"kind":"bye"}}"#).is_err());
        let ok = decode_response(r#"{"v":1,"id":1,"ok":{"kind":"bye"}}"#).unwrap();
        assert_eq!(ok.body, ResponseBody::Ok(Response::Bye));
    }
}
