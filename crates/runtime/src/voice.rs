//! The voice worker as the runtime sees it: a child process that streams what it hears.
//!
//! Unlike the proposer, the voice worker speaks when nobody asked — a microphone produces
//! speech starts, levels and transcripts on its own schedule. So the handle here keeps two
//! things apart: [`Voice::call`] sends a request and waits (with a deadline) for the answer
//! bearing its id, and every other event that arrives meanwhile is kept, in order, for
//! [`Voice::next_event`]. Nothing is dropped while a request is in flight.
//!
//! It is a fault boundary like [`crate::worker`]: a closed pipe, a line that is not an event, a
//! missed deadline are faults with the worker's last stderr lines attached, never transcripts.
//! [`VoiceSupervisor`] restarts a dead worker with the same backoff as the proposer's and
//! reloads its models, so a crash in whisper.cpp costs one utterance, not the session.

use crate::process::ChildProcess;
use crate::worker::Backoff;
use smart_voice::protocol::{
    self, CaptureMode, Event, EventLine, LoadVoice, Loaded, Request, Transcript, VoiceError, VoiceErrorCode,
};
use smart_voice::weighed_names::Weight;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum VoiceWorkerError {
    #[error("cannot start the voice worker {program}: {reason}")]
    Spawn { program: String, reason: String },
    #[error("the voice worker died{detail}")]
    Crashed { detail: String },
    #[error("the voice worker did not answer {op} within {after_ms} ms and was stopped")]
    Timeout { op: &'static str, after_ms: u64 },
    #[error("the voice worker broke the protocol: {0}")]
    Garbage(String),
    /// The worker is healthy and answered with an error (a missing model, no microphone...).
    #[error("{0}")]
    Answered(VoiceError),
}

impl VoiceWorkerError {
    pub fn is_fault(&self) -> bool {
        matches!(
            self,
            VoiceWorkerError::Crashed { .. } | VoiceWorkerError::Timeout { .. } | VoiceWorkerError::Garbage(_)
        )
    }
}

/// The worker binary's name (its package's too).
pub const VOICE_WORKER: &str = "smart-voice-worker";

/// The voice worker binary: `SMART_VOICE_WORKER`, or `smart-voice-worker` beside this program.
pub fn locate_voice_worker() -> Result<PathBuf, VoiceWorkerError> {
    crate::process::locate("SMART_VOICE_WORKER", VOICE_WORKER)
        .map_err(|reason| VoiceWorkerError::Spawn { program: VOICE_WORKER.into(), reason })
}

/// Deadlines. Loading reads ~100 MB of whisper weights (and a vosk model); a file of a minute
/// takes a while on two cores; everything else is immediate.
#[derive(Copy, Clone, Debug)]
pub struct VoiceTimeouts {
    pub load: Duration,
    pub request: Duration,
    pub per_audio_second: Duration,
}

impl Default for VoiceTimeouts {
    fn default() -> Self {
        VoiceTimeouts {
            load: Duration::from_secs(120),
            request: Duration::from_secs(15),
            per_audio_second: Duration::from_secs(5),
        }
    }
}

pub struct Voice {
    proc: ChildProcess,
    next_id: u64,
    backlog: VecDeque<EventLine>,
    timeouts: VoiceTimeouts,
    program: PathBuf,
}

impl Voice {
    /// Starts the worker and loads the models.
    pub async fn start(
        program: &Path,
        load: LoadVoice,
        timeouts: VoiceTimeouts,
    ) -> Result<(Voice, Loaded), VoiceWorkerError> {
        let proc = ChildProcess::spawn(program, &[])
            .map_err(|reason| VoiceWorkerError::Spawn { program: program.display().to_string(), reason })?;
        let mut voice = Voice { proc, next_id: 1, backlog: VecDeque::new(), timeouts, program: program.to_path_buf() };
        match voice.call_within(Request::Load(Box::new(load)), "load", timeouts.load).await? {
            Event::Loaded(l) => Ok((voice, l)),
            other => Err(VoiceWorkerError::Garbage(format!("load was answered with {other:?}"))),
        }
    }

    pub fn program(&self) -> &Path {
        &self.program
    }

    pub fn has_exited(&mut self) -> bool {
        self.proc.has_exited()
    }

    async fn death(&mut self) -> VoiceWorkerError {
        VoiceWorkerError::Crashed { detail: self.proc.death_detail().await }
    }

    async fn read_line(&mut self) -> Result<EventLine, VoiceWorkerError> {
        loop {
            let Some(text) = self.proc.next_line().await else {
                return Err(self.death().await);
            };
            if text.trim().is_empty() {
                continue;
            }
            return protocol::decode_event(&text).map_err(VoiceWorkerError::Garbage);
        }
    }

    /// Sends a request without waiting; its events carry the returned id.
    pub async fn send(&mut self, request: Request) -> Result<u64, VoiceWorkerError> {
        let id = self.next_id;
        self.next_id += 1;
        let line = protocol::encode_request(id, request)
            .map_err(|e| VoiceWorkerError::Garbage(format!("cannot encode the request: {e}")))?;
        if !self.proc.write_line(&line).await {
            return Err(self.death().await);
        }
        Ok(id)
    }

    async fn call_within(
        &mut self,
        request: Request,
        op: &'static str,
        timeout: Duration,
    ) -> Result<Event, VoiceWorkerError> {
        let id = self.send(request).await?;
        let wait = async {
            loop {
                let line = self.read_line().await?;
                if line.id != id {
                    self.backlog.push_back(line);
                    continue;
                }
                return match line.event {
                    Event::Error(e) => Err(VoiceWorkerError::Answered(e)),
                    other => Ok(other),
                };
            }
        };
        match tokio::time::timeout(timeout, wait).await {
            Ok(r) => r,
            Err(_) => Err(VoiceWorkerError::Timeout { op, after_ms: timeout.as_millis() as u64 }),
        }
    }

    /// A request answered by `ok` (push-to-talk, capture, speech, earcons).
    pub async fn call(&mut self, request: Request) -> Result<(), VoiceWorkerError> {
        let op = op_name(&request);
        match self.call_within(request, op, self.timeouts.request).await? {
            Event::Ok => Ok(()),
            other => Err(VoiceWorkerError::Garbage(format!("{op} was answered with {other:?}"))),
        }
    }

    /// The utterance `first` was heard from, heard again with whisper's whole window
    /// ([`Request::Rehear`]): 30 seconds of encoder work, so it may take as long as a
    /// 30-second file.
    pub async fn rehear(&mut self, first: &Transcript) -> Result<Transcript, VoiceWorkerError> {
        let deadline = self.timeouts.request + self.timeouts.per_audio_second * 30;
        let request = Request::Rehear { start_ms: first.start_ms, end_ms: first.end_ms };
        match self.call_within(request, "rehear", deadline).await? {
            Event::Transcript(t) => Ok(t),
            other => Err(VoiceWorkerError::Garbage(format!("rehear was answered with {other:?}"))),
        }
    }

    /// How likely whisper finds each of `texts` as the transcript of the utterance `first`
    /// was heard from ([`Request::Weigh`]): one encoder pass over the utterance and a decoder
    /// pass per text.
    pub async fn weigh(&mut self, first: &Transcript, texts: &[String]) -> Result<Vec<Weight>, VoiceWorkerError> {
        let seconds = first.end_ms.saturating_sub(first.start_ms) / 1000 + 1;
        let deadline = self.timeouts.request + self.timeouts.per_audio_second * seconds.min(30) as u32;
        let request = Request::Weigh { start_ms: first.start_ms, end_ms: first.end_ms, texts: texts.to_vec() };
        match self.call_within(request, "weigh", deadline).await? {
            Event::Weighed { logp, tokens } if logp.len() == texts.len() && tokens.len() == texts.len() => {
                Ok(logp.into_iter().zip(tokens).map(|(logp, tokens)| Weight { logp, tokens }).collect())
            }
            other => Err(VoiceWorkerError::Garbage(format!("weigh was answered with {other:?}"))),
        }
    }

    /// The next event the worker produced on its own (or for a request sent with
    /// [`Voice::send`]); `Ok(None)` when `timeout` passes first.
    pub async fn next_event(&mut self, timeout: Option<Duration>) -> Result<Option<EventLine>, VoiceWorkerError> {
        if let Some(e) = self.backlog.pop_front() {
            return Ok(Some(e));
        }
        match timeout {
            None => self.read_line().await.map(Some),
            Some(t) => match tokio::time::timeout(t, self.read_line()).await {
                Ok(r) => r.map(Some),
                Err(_) => Ok(None),
            },
        }
    }

    /// Runs a WAV file through the listening path; `on_event` sees each event as it comes
    /// (speech start/end, transcripts). Returns the transcripts in order.
    pub async fn transcribe_file(
        &mut self,
        path: &Path,
        on_event: impl FnMut(&Event),
    ) -> Result<Vec<Transcript>, VoiceWorkerError> {
        self.transcribe_file_as(path, false, on_event).await
    }

    /// [`Voice::transcribe_file`] with the file fed at the microphone's pace: it takes as long
    /// as the recording, and each transcript says how long after the end of speech it was
    /// ready (`timings.after_end_ms`) — the latency a person would feel, measured.
    pub async fn transcribe_file_paced(
        &mut self,
        path: &Path,
        on_event: impl FnMut(&Event),
    ) -> Result<Vec<Transcript>, VoiceWorkerError> {
        self.transcribe_file_as(path, true, on_event).await
    }

    async fn transcribe_file_as(
        &mut self,
        path: &Path,
        paced: bool,
        mut on_event: impl FnMut(&Event),
    ) -> Result<Vec<Transcript>, VoiceWorkerError> {
        let seconds = std::fs::metadata(path).map(|m| m.len() / 32_000 + 1).unwrap_or(60).min(3_600) as u32;
        let mut deadline = self.timeouts.request + self.timeouts.per_audio_second * seconds;
        if paced {
            deadline += Duration::from_secs(u64::from(seconds));
        }
        let id = self.send(Request::TranscribeFile { path: path.display().to_string(), wake: false, paced }).await?;
        let mut out = vec![];
        let run = async {
            loop {
                let line = self.read_line().await?;
                if line.id != id {
                    self.backlog.push_back(line);
                    continue;
                }
                on_event(&line.event);
                match line.event {
                    Event::Transcript(t) => out.push(t),
                    Event::Done { .. } => return Ok(()),
                    Event::Error(e) => return Err(VoiceWorkerError::Answered(e)),
                    _ => {}
                }
            }
        };
        match tokio::time::timeout(deadline, run).await {
            Ok(r) => r.map(|_| out),
            Err(_) => Err(VoiceWorkerError::Timeout { op: "transcribe_file", after_ms: deadline.as_millis() as u64 }),
        }
    }

    pub async fn shutdown(mut self) {
        let _ = tokio::time::timeout(
            Duration::from_secs(2),
            self.call_within(Request::Shutdown, "shutdown", Duration::from_secs(2)),
        )
        .await;
        self.proc.kill().await;
    }
}

fn op_name(r: &Request) -> &'static str {
    match r {
        Request::Load(_) => "load",
        Request::TranscribeFile { .. } => "transcribe_file",
        Request::StartCapture { .. } => "start_capture",
        Request::PushToTalk { .. } => "push_to_talk",
        Request::StopCapture => "stop_capture",
        Request::Rehear { .. } => "rehear",
        Request::Weigh { .. } => "weigh",
        Request::Speak { .. } => "speak",
        Request::Earcon { .. } => "earcon",
        Request::Health => "health",
        Request::Shutdown => "shutdown",
    }
}

/// Keeps a voice worker running: starts it on first use, restarts it after a crash (with the
/// proposer's backoff) and reopens the microphone in the mode it was in.
pub struct VoiceSupervisor {
    program: PathBuf,
    load: LoadVoice,
    timeouts: VoiceTimeouts,
    backoff: Backoff,
    voice: Option<Voice>,
    loaded: Option<Loaded>,
    capture: Option<CaptureMode>,
    faults: u32,
    /// Faults not yet reported, for the ledger.
    pending_faults: Vec<String>,
}

impl VoiceSupervisor {
    pub fn new(program: PathBuf, load: LoadVoice) -> VoiceSupervisor {
        VoiceSupervisor {
            program,
            load,
            timeouts: VoiceTimeouts::default(),
            backoff: Backoff::default(),
            voice: None,
            loaded: None,
            capture: None,
            faults: 0,
            pending_faults: vec![],
        }
    }

    pub fn with_timeouts(mut self, timeouts: VoiceTimeouts, backoff: Backoff) -> VoiceSupervisor {
        self.timeouts = timeouts;
        self.backoff = backoff;
        self
    }

    /// What the worker reported at its last load.
    pub fn loaded(&self) -> Option<&Loaded> {
        self.loaded.as_ref()
    }

    pub fn take_faults(&mut self) -> Vec<String> {
        std::mem::take(&mut self.pending_faults)
    }

    /// The running worker, started (or restarted) if needed.
    pub async fn ensure(&mut self) -> Result<&mut Voice, VoiceWorkerError> {
        if self.voice.as_mut().is_some_and(Voice::has_exited)
            && let Some(mut dead) = self.voice.take()
        {
            let detail = dead.death().await;
            self.faults += 1;
            self.pending_faults.push(detail.to_string());
        }
        if self.voice.is_none() {
            tokio::time::sleep(self.backoff.delay(self.faults)).await;
            let (mut voice, loaded) = match Voice::start(&self.program, self.load.clone(), self.timeouts).await {
                Ok(v) => v,
                Err(e) => {
                    if e.is_fault() {
                        self.faults += 1;
                        self.pending_faults.push(e.to_string());
                    }
                    return Err(e);
                }
            };
            if let Some(mode) = self.capture {
                voice.call(Request::StartCapture { mode }).await?;
            }
            self.loaded = Some(loaded);
            self.voice = Some(voice);
        }
        self.voice.as_mut().ok_or(VoiceWorkerError::Crashed { detail: String::new() })
    }

    /// A request through the supervised worker; a fault drops the worker so the next use
    /// restarts it.
    pub async fn call(&mut self, request: Request) -> Result<(), VoiceWorkerError> {
        let remember = match &request {
            Request::StartCapture { mode } => Some(Some(*mode)),
            Request::StopCapture => Some(None),
            _ => None,
        };
        let result = self.ensure().await?.call(request).await;
        self.after(&result).await;
        if result.is_ok()
            && let Some(mode) = remember
        {
            self.capture = mode;
        }
        result
    }

    /// [`Voice::rehear`] through the supervised worker. A worker that is gone had the
    /// utterance with it: it is not restarted for a second hearing it could not give.
    pub async fn rehear(&mut self, first: &Transcript) -> Result<Transcript, VoiceWorkerError> {
        let alive = self.voice.as_mut().is_some_and(|v| !v.has_exited());
        let (true, Some(voice)) = (alive, self.voice.as_mut()) else {
            return Err(VoiceWorkerError::Answered(VoiceError::new(
                VoiceErrorCode::NotKept,
                "the voice worker stopped since the utterance was heard; nothing to hear again",
            )));
        };
        let result = voice.rehear(first).await;
        self.after(&result).await;
        result
    }

    /// [`Voice::weigh`] through the supervised worker; like a second hearing, not asked of a
    /// worker started since the utterance was heard.
    pub async fn weigh(&mut self, first: &Transcript, texts: &[String]) -> Result<Vec<Weight>, VoiceWorkerError> {
        let alive = self.voice.as_mut().is_some_and(|v| !v.has_exited());
        let (true, Some(voice)) = (alive, self.voice.as_mut()) else {
            return Err(VoiceWorkerError::Answered(VoiceError::new(
                VoiceErrorCode::NotKept,
                "the voice worker stopped since the utterance was heard; nothing to weigh",
            )));
        };
        let result = voice.weigh(first, texts).await;
        self.after(&result).await;
        result
    }

    pub async fn next_event(&mut self, timeout: Option<Duration>) -> Result<Option<EventLine>, VoiceWorkerError> {
        let result = self.ensure().await?.next_event(timeout).await;
        self.after(&result).await;
        result
    }

    async fn after<T>(&mut self, result: &Result<T, VoiceWorkerError>) {
        match result {
            Err(e) if e.is_fault() => {
                self.faults += 1;
                self.pending_faults.push(e.to_string());
                if let Some(v) = self.voice.take() {
                    v.proc.kill().await;
                }
            }
            Ok(_) => self.faults = 0,
            Err(_) => {}
        }
    }

    pub async fn shutdown(&mut self) {
        if let Some(v) = self.voice.take() {
            v.shutdown().await;
        }
    }
}
