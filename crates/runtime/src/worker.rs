//! The model worker as the runtime sees it: a child process behind a line protocol, kept alive
//! by a supervisor.
//!
//! A model is the least trustworthy component SMART runs: a large C++ library on a file from the
//! internet. So it lives in its own process (`smart-proposer-worker`), and everything it sends is
//! suspect. This module is the fault boundary around it:
//!
//! - every request has a deadline; a worker that misses it is killed, not waited on. A ranking
//!   whose prompt prefix the worker does not hold yet evaluates that prefix first (thousands of
//!   tokens, tens of seconds on two busy cores), so it gets the preparation's deadline, not a
//!   warm ranking's: a deadline may make SMART slow under load, never wrong;
//! - a line that is not a protocol response, or a closed pipe, is a fault, never a proposal;
//! - a dead or killed worker is restarted on the next request, after a backoff that doubles with
//!   each consecutive fault (so a model that crashes at load cannot spin the CPU), and a request
//!   that found its worker dead is retried once on the fresh one;
//! - each fault is handed to the caller ([`Supervisor::take_faults`]), which ledgers it.
//!
//! What the worker answers is still only text: [`crate::assistant`] re-parses it and the kernel
//! judges it. A perception report ([`Supervisor::perceive`]) is checked against the report's
//! rules here before anyone sees it; it is advisory data and reaches no decision by itself.

use crate::process::ChildProcess;
use smart_proposer::protocol::{
    self, LoadRequest, ModelInfo, PROTOCOL_VERSION, PerceiveRequest, Perceived, PrepareRequest, Prepared, Proposal,
    ProposeRequest, RankRequest, Ranked, Request, RequestLine, Response, ResponseBody, WorkerErrorCode,
};
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WorkerError {
    #[error("cannot start the proposer worker {program}: {reason}")]
    Spawn { program: String, reason: String },
    #[error("the proposer worker died{detail}")]
    Crashed { detail: String },
    #[error("the proposer worker did not answer {op} within {after_ms} ms and was stopped")]
    Timeout { op: &'static str, after_ms: u64 },
    #[error("the proposer worker broke the protocol: {0}")]
    Garbage(String),
    /// The worker is healthy and answered with an error (no model, a bad model file, ...).
    #[error("{0}")]
    Answered(protocol::WorkerError),
}

impl WorkerError {
    /// A fault of the process (restart it), as opposed to an answer it gave.
    pub fn is_fault(&self) -> bool {
        matches!(self, WorkerError::Crashed { .. } | WorkerError::Timeout { .. } | WorkerError::Garbage(_))
    }
}

/// How to start a worker and which model it loads.
#[derive(Clone, Debug)]
pub struct WorkerSpec {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub load: LoadRequest,
}

/// The worker binary's name (its package's too).
pub const PROPOSER_WORKER: &str = "smart-proposer-worker";

/// The worker binary: `SMART_PROPOSER_WORKER`, or `smart-proposer-worker` beside this program.
pub fn locate_worker() -> Result<PathBuf, WorkerError> {
    crate::process::locate("SMART_PROPOSER_WORKER", PROPOSER_WORKER)
        .map_err(|reason| WorkerError::Spawn { program: PROPOSER_WORKER.into(), reason })
}

#[derive(Copy, Clone, Debug)]
pub struct Timeouts {
    pub load: Duration,
    /// A proposal, or a ranking whose prompt prefix the worker already holds. Generous all the
    /// same: a busy machine is slow.
    pub propose: Duration,
    /// Evaluating a ranking prompt's static part: ahead of need ([`Supervisor::prepare`]), or
    /// as the first part of a ranking whose prefix the worker does not hold (its first ranking,
    /// the first after a restart or a change of the visible tools). Two `smart say` processes on
    /// two busy cores once took longer than `propose` for that, and both answered nothing.
    pub prepare: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            load: Duration::from_secs(180),
            propose: Duration::from_secs(120),
            prepare: Duration::from_secs(300),
        }
    }
}

/// Restart delays: `base · 2^(faults−1)`, capped.
#[derive(Copy, Clone, Debug)]
pub struct Backoff {
    pub base: Duration,
    pub max: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff { base: Duration::from_millis(250), max: Duration::from_secs(30) }
    }
}

impl Backoff {
    /// The wait before the restart that follows `faults` consecutive faults (none before the
    /// first start).
    pub fn delay(&self, faults: u32) -> Duration {
        if faults == 0 {
            return Duration::ZERO;
        }
        let factor = 1u32.checked_shl(faults.saturating_sub(1).min(16)).unwrap_or(u32::MAX);
        self.base.saturating_mul(factor).min(self.max)
    }
}

/// One running worker process.
struct WorkerProcess {
    proc: ChildProcess,
    next_id: u64,
    /// The prompt prefix this process was last seen to keep evaluated ([`PrefixKey`]).
    holds: Option<PrefixKey>,
}

/// A prompt prefix, by the hash of its text: enough to tell whether a worker already holds the
/// one a ranking needs (a mistake costs only a deadline's length, never an answer).
type PrefixKey = u64;

fn prefix_key(prefix: &str) -> PrefixKey {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    prefix.hash(&mut h);
    h.finish()
}

/// What a request does to the prompt a worker keeps evaluated — and so which deadline it gets.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Prompt {
    /// Leaves it as it was (a perception report has a context of its own).
    Untouched,
    /// Replaces it with one the supervisor does not track (a free proposal renders its own).
    Replaced,
    /// Needs this prefix evaluated, and leaves it so (a ranking, a preparation).
    Prefix(PrefixKey),
}

impl WorkerProcess {
    fn spawn(program: &Path, args: &[String]) -> Result<WorkerProcess, WorkerError> {
        let proc = ChildProcess::spawn(program, args)
            .map_err(|reason| WorkerError::Spawn { program: program.display().to_string(), reason })?;
        Ok(WorkerProcess { proc, next_id: 1, holds: None })
    }

    fn pid(&self) -> Option<u32> {
        self.proc.pid()
    }

    async fn death(&mut self) -> WorkerError {
        WorkerError::Crashed { detail: self.proc.death_detail().await }
    }

    async fn request(
        &mut self,
        request: Request,
        op: &'static str,
        timeout: Duration,
    ) -> Result<Response, WorkerError> {
        let id = self.next_id;
        self.next_id += 1;
        let line = serde_json::to_string(&RequestLine { v: PROTOCOL_VERSION, id, request })
            .map_err(|e| WorkerError::Garbage(format!("cannot encode the request: {e}")))?;
        let exchange = async {
            if !self.proc.write_line(&line).await {
                return Err(self.death().await);
            }
            loop {
                let Some(text) = self.proc.next_line().await else {
                    return Err(self.death().await);
                };
                if text.trim().is_empty() {
                    continue;
                }
                let resp = protocol::decode_response(&text).map_err(WorkerError::Garbage)?;
                if resp.id != id {
                    // An answer to a request abandoned earlier; this one's is still coming.
                    continue;
                }
                return match resp.body {
                    ResponseBody::Ok(r) => Ok(r),
                    ResponseBody::Err(e) => Err(WorkerError::Answered(e)),
                };
            }
        };
        match tokio::time::timeout(timeout, exchange).await {
            Ok(r) => r,
            Err(_) => Err(WorkerError::Timeout { op, after_ms: timeout.as_millis() as u64 }),
        }
    }

    async fn kill(self) {
        self.proc.kill().await;
    }
}

/// A fault the supervisor handled, for the ledger.
#[derive(Clone, Debug, PartialEq)]
pub struct Fault {
    pub reason: String,
    /// How long the next start waits.
    pub restart_in_ms: u64,
}

/// Keeps one worker with one model loaded, restarting it after faults.
pub struct Supervisor {
    spec: WorkerSpec,
    worker: Option<WorkerProcess>,
    info: Option<ModelInfo>,
    consecutive_faults: u32,
    pub timeouts: Timeouts,
    /// The deadline of one perception report: up to 320 tokens under a grammar, in a context
    /// evaluated from scratch, which a 0.5B model on two busy cores needs tens of seconds for.
    pub perceive_timeout: Duration,
    pub backoff: Backoff,
    faults: Vec<Fault>,
    starts: u32,
}

impl Supervisor {
    pub fn new(spec: WorkerSpec) -> Supervisor {
        Supervisor {
            spec,
            worker: None,
            info: None,
            consecutive_faults: 0,
            timeouts: Timeouts::default(),
            perceive_timeout: Duration::from_secs(120),
            backoff: Backoff::default(),
            faults: vec![],
            starts: 0,
        }
    }

    /// The running worker's process id (tests kill it to check the restart).
    pub fn pid(&self) -> Option<u32> {
        self.worker.as_ref().and_then(WorkerProcess::pid)
    }

    /// What the loaded model said about itself.
    pub fn model(&self) -> Option<&ModelInfo> {
        self.info.as_ref()
    }

    /// How many times a worker was started.
    pub fn starts(&self) -> u32 {
        self.starts
    }

    /// Whether a worker was started and has since exited (crashed, or was killed) between
    /// requests. The next request would restart it; the app's watchdog restarts it sooner.
    pub fn worker_exited(&mut self) -> bool {
        self.worker.as_mut().is_some_and(|w| w.proc.has_exited())
    }

    /// Faults since the last call, oldest first.
    pub fn take_faults(&mut self) -> Vec<Fault> {
        std::mem::take(&mut self.faults)
    }

    async fn fault(&mut self, worker: Option<WorkerProcess>, err: &WorkerError) {
        if let Some(w) = worker {
            w.kill().await;
        }
        self.info = None;
        self.consecutive_faults += 1;
        let restart_in_ms = self.backoff.delay(self.consecutive_faults).as_millis() as u64;
        tracing::warn!(error = %err, restart_in_ms, "proposer worker fault");
        self.faults.push(Fault { reason: err.to_string(), restart_in_ms });
    }

    /// Starts a worker and loads the model, unless one is running.
    pub async fn ensure_started(&mut self) -> Result<&ModelInfo, WorkerError> {
        if let Some(w) = &mut self.worker
            && let Some(status) = w.proc.exit_status()
        {
            let w = self.worker.take();
            let err = WorkerError::Crashed { detail: format!(" between requests ({status})") };
            self.fault(w, &err).await;
        }
        if self.worker.is_none() {
            tokio::time::sleep(self.backoff.delay(self.consecutive_faults)).await;
            let mut w = WorkerProcess::spawn(&self.spec.program, &self.spec.args)?;
            self.starts += 1;
            match w.request(Request::Load(self.spec.load.clone()), "load", self.timeouts.load).await {
                Ok(Response::Loaded(info)) => {
                    self.info = Some(info);
                    self.worker = Some(w);
                }
                Ok(other) => {
                    let err = WorkerError::Garbage(format!("answered load with {other:?}"));
                    self.fault(Some(w), &err).await;
                    return Err(err);
                }
                Err(e) => {
                    if e.is_fault() {
                        self.fault(Some(w), &e).await;
                    } else {
                        w.kill().await;
                    }
                    return Err(e);
                }
            }
        }
        self.info.as_ref().ok_or_else(|| WorkerError::Crashed { detail: " during load".into() })
    }

    /// One proposal. A worker found dead is restarted and the request tried once more.
    pub async fn propose(&mut self, req: &ProposeRequest) -> Result<Proposal, WorkerError> {
        let timeout = self.timeouts.propose;
        self.exchange(Request::Propose(req.clone()), "propose", timeout, Prompt::Replaced, |r| match r {
            Response::Proposal(p) => Ok(p),
            other => Err(other),
        })
        .await
    }

    /// The scores of a ranking: one per candidate, each a finite log-probability (anything else
    /// is a broken worker, not a ranking).
    pub async fn rank(&mut self, req: &RankRequest) -> Result<Ranked, WorkerError> {
        let timeout = self.timeouts.propose;
        let prompt = Prompt::Prefix(prefix_key(&req.prefix));
        let ranked = self
            .exchange(Request::Rank(req.clone()), "rank", timeout, prompt, |r| match r {
                Response::Ranked(p) => Ok(p),
                other => Err(other),
            })
            .await?;
        let n = req.candidates.len();
        let sane = |v: &[f32]| v.len() == n && v.iter().all(|x| x.is_finite() && *x <= 1e-3);
        if !sane(&ranked.scores) || !sane(&ranked.first) {
            return Err(WorkerError::Garbage(format!(
                "a ranking of {n} candidates came back as {:?} / {:?}",
                ranked.scores, ranked.first
            )));
        }
        Ok(ranked)
    }

    /// Has the worker evaluate and keep a prompt's static part now.
    pub async fn prepare(&mut self, req: &PrepareRequest) -> Result<Prepared, WorkerError> {
        let timeout = self.timeouts.prepare;
        let prompt = Prompt::Prefix(prefix_key(&req.prefix));
        self.exchange(Request::Prepare(req.clone()), "prepare", timeout, prompt, |r| match r {
            Response::Prepared(p) => Ok(p),
            other => Err(other),
        })
        .await
    }

    /// One perception report on the conversation (seed 001's sensor), under
    /// [`Supervisor::perceive_timeout`], with the same restart and fault handling as a proposal.
    /// The worker's report is checked again here: a report that breaks its rules is refused as
    /// `unparsable`, never passed on.
    pub async fn perceive(&mut self, req: &PerceiveRequest) -> Result<Perceived, WorkerError> {
        let timeout = self.perceive_timeout;
        let perceived = self
            .exchange(Request::Perceive(req.clone()), "perceive", timeout, Prompt::Untouched, |r| match r {
                Response::Perceived(p) => Ok(p),
                other => Err(other),
            })
            .await?;
        smart_proposer::perception::validate(&perceived.report).map_err(|e| {
            WorkerError::Answered(protocol::WorkerError::new(
                WorkerErrorCode::Unparsable,
                format!("the worker's perception report breaks its rules: {e}"),
            ))
        })?;
        Ok(perceived)
    }

    /// One request answered by the `expected` kind of response, under `timeout` — or under the
    /// preparation's deadline if it needs a prefix the worker does not hold (decided per try: a
    /// restarted worker holds nothing). A worker found dead is restarted and the request tried
    /// once more; any other kind of answer is a fault.
    async fn exchange<T>(
        &mut self,
        request: Request,
        op: &'static str,
        timeout: Duration,
        prompt: Prompt,
        expected: impl Fn(Response) -> Result<T, Response>,
    ) -> Result<T, WorkerError> {
        let mut tries = 0;
        loop {
            tries += 1;
            self.ensure_started().await?;
            let Some(w) = self.worker.as_mut() else {
                return Err(WorkerError::Crashed { detail: " before the request".into() });
            };
            let deadline = match prompt {
                Prompt::Prefix(key) if w.holds != Some(key) => timeout.max(self.timeouts.prepare),
                _ => timeout,
            };
            let result = w.request(request.clone(), op, deadline).await.map(&expected);
            match result {
                Ok(Ok(answer)) => {
                    self.consecutive_faults = 0;
                    match prompt {
                        Prompt::Untouched => {}
                        Prompt::Replaced => w.holds = None,
                        Prompt::Prefix(key) => w.holds = Some(key),
                    }
                    return Ok(answer);
                }
                Ok(Err(other)) => {
                    let err = WorkerError::Garbage(format!("answered {op} with {other:?}"));
                    let w = self.worker.take();
                    self.fault(w, &err).await;
                    return Err(err);
                }
                Err(e) if e.is_fault() => {
                    let w = self.worker.take();
                    self.fault(w, &e).await;
                    if matches!(e, WorkerError::Crashed { .. }) && tries < 2 {
                        continue;
                    }
                    return Err(e);
                }
                Err(e) => {
                    // Refused, not broken: what it left evaluated is its own business.
                    if prompt != Prompt::Untouched {
                        w.holds = None;
                    }
                    return Err(e);
                }
            }
        }
    }

    /// Asks the worker to exit, then makes sure it has.
    pub async fn shutdown(&mut self) {
        if let Some(mut w) = self.worker.take() {
            let _ = w.request(Request::Shutdown, "shutdown", Duration::from_secs(2)).await;
            w.kill().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_from_the_second_fault_and_is_capped() {
        let b = Backoff { base: Duration::from_millis(100), max: Duration::from_secs(1) };
        let delays: Vec<u64> = (0..8).map(|n| b.delay(n).as_millis() as u64).collect();
        assert_eq!(delays, [0, 100, 200, 400, 800, 1000, 1000, 1000]);
        assert_eq!(b.delay(u32::MAX), Duration::from_secs(1));
    }
}
