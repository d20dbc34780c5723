//! Running admitted calls.
//!
//! The executor is the narrow door between the kernel's "yes" and the person's files. It takes
//! only an [`AdmittedCall`] — which only the kernel can make — so a call that skipped admission
//! has no way in, and it dispatches on the tool name to one module per tool so that each tool's
//! effects can be read (and reviewed) in one place. Every failure comes back as a message meant
//! for the person: which path, what was wrong, and what state the files were left in.

mod apply_move;
mod apply_patch;
mod compact;
mod context;
mod db_upsert;
mod duplicates;
mod hash;
mod journal;
mod patch_text;
pub mod plan;
mod propose_move;
mod propose_patch;
mod propose_quarantine;
mod propose_redirects;
mod purge;
mod quarantine;
mod rag;
mod read;
mod rebuild_index;
mod scan;
pub mod steps;
mod superseded;
mod transfer;
mod undo;
mod walk;

pub use compact::compacted_into;
pub use db_upsert::{record as db_upsert_record, record_hash};
pub use quarantine::MANIFEST as QUARANTINE_MANIFEST;
pub use read::MAX_READ_BYTES;
pub use scan::MAX_ENTRIES as SCAN_MAX_ENTRIES;

use crate::confine::Confined;
use serde_json::Value;
use smart_kernel::kernel::ToolOutput;
use smart_kernel::{AdmittedCall, Layer};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The tools `undo` can reverse: every `Reversible` one (a test keeps the two lists equal).
pub const UNDOABLE: &[&str] = &["apply.patch", "apply.move", "db.upsert", "fs.quarantine", "fs.compact"];

/// The first layer whose tools change something (the person's files, the quarantine, the records
/// or the index); every tool below it only reads, and runs under [`Executor::with_deadline`]. An
/// undo carries the layer of the call it reverses, so it counts as a writer too. The layer is the
/// one the kernel resolved from the registry, so there is no second list to keep in step.
pub const FIRST_WRITING_LAYER: Layer = Layer::L3;

/// How long a call that only reads may take before it is given up. Generous: hashing a large
/// tree legitimately takes minutes; this is for reads that never return (a hung network share,
/// a device file), so that a call always ends with a receipt.
pub const READ_DEADLINE: Duration = Duration::from_secs(600);

/// The tool that applies a proposal tool's artifact (`propose.move` → `apply.move`).
pub fn applied_by(proposal_tool: &str) -> Option<&'static str> {
    match proposal_tool {
        "propose.move" => Some("apply.move"),
        "propose.patch" => Some("apply.patch"),
        "propose.quarantine" => Some("fs.quarantine"),
        _ => None,
    }
}

/// Where an executor may work: the allowed roots, and SMART's own places in its data dir.
#[derive(Clone, Debug)]
pub struct Places {
    /// The allowed roots, canonical (the kernel's policy).
    pub roots: Vec<PathBuf>,
    /// Where `fs.quarantine` and `fs.compact` put things; created when first needed.
    pub quarantine: PathBuf,
    /// The RAG++ index (`rag.*`, `rebuild.index`).
    pub index: PathBuf,
    /// The record store `db.upsert` writes.
    pub records: PathBuf,
    /// Where a running mutation's step log is kept (`<call hash>.steps`), so that one cut off by
    /// a crash can be rolled back; `None`: no log (a crash mid-batch is then not recoverable).
    pub steps: Option<PathBuf>,
}

/// Runs admitted calls.
#[derive(Clone, Debug)]
pub struct Executor {
    places: Places,
    /// What `orbit.get_context` reports: the host's view of the current situation.
    context: Value,
    /// The host's clock when the call runs (recency ranking, index timestamps). Executors never
    /// read a clock themselves.
    now_ms: u64,
    /// See [`READ_DEADLINE`].
    deadline: Duration,
}

impl Executor {
    pub fn new(places: Places) -> Executor {
        Executor { places, context: Value::Null, now_ms: 0, deadline: READ_DEADLINE }
    }

    /// The situation `orbit.get_context` reports (the runtime passes the kernel's status).
    pub fn with_context(mut self, context: Value) -> Executor {
        self.context = context;
        self
    }

    /// The time the host runs calls at.
    pub fn with_now(mut self, now_ms: u64) -> Executor {
        self.now_ms = now_ms;
        self
    }

    /// How long a call that only reads may run (default [`READ_DEADLINE`]).
    pub fn with_deadline(mut self, deadline: Duration) -> Executor {
        self.deadline = deadline;
        self
    }

    pub fn places(&self) -> &Places {
        &self.places
    }

    pub fn quarantine_dir(&self) -> &Path {
        &self.places.quarantine
    }

    /// The step log of the call `call_hash`, where one is kept.
    pub fn step_log(&self, call_hash: &smart_kernel::Hash) -> Option<PathBuf> {
        self.places.steps.as_ref().map(|d| d.join(format!("{}.steps", call_hash.to_hex())))
    }

    /// Rolls back a call that was cut off, from its step log; `None` when it left no log (it
    /// changed nothing, or it is a tool that keeps none). The log stays until [`Self::forget_steps`].
    pub fn roll_back(&self, call_hash: &smart_kernel::Hash) -> Option<Result<steps::RolledBack, String>> {
        let log = self.step_log(call_hash).filter(|p| p.exists())?;
        Some(self.areas().and_then(|(areas, _)| steps::roll_back(&areas, &log)))
    }

    /// Deletes the call's step log: its receipt is durable, or it was rolled back.
    pub fn forget_steps(&self, call_hash: &smart_kernel::Hash) {
        if let Some(p) = self.step_log(call_hash) {
            let _ = std::fs::remove_file(p);
        }
    }

    /// The roots and the canonical quarantine folder (made when missing).
    fn areas(&self) -> Result<(Vec<PathBuf>, PathBuf), String> {
        if !self.places.quarantine.exists() {
            std::fs::create_dir_all(&self.places.quarantine).map_err(|e| {
                format!("cannot create the quarantine folder {}: {e}", self.places.quarantine.display())
            })?;
        }
        let q = dunce::canonicalize(&self.places.quarantine)
            .map_err(|e| format!("cannot open the quarantine folder {}: {e}", self.places.quarantine.display()))?;
        let mut areas = self.places.roots.clone();
        areas.push(q.clone());
        Ok((areas, q))
    }

    /// Opens the roots and the quarantine folder as capabilities; nothing else is reachable.
    /// Returns the quarantine folder's canonical path with them. A tool that moves the person's
    /// files in batches writes its steps to the call's step log first.
    fn confine(&self, call: &AdmittedCall) -> Result<(Confined, PathBuf), String> {
        let (areas, q) = self.areas()?;
        let confined = Confined::open(&areas)?;
        let batches = matches!(call.tool(), "apply.move" | "fs.quarantine" | "fs.compact" | "undo");
        match self.step_log(&call.hash()).filter(|_| batches) {
            Some(log) => Ok((confined.with_step_log(steps::StepLog::create(&log)?), q)),
            None => Ok((confined, q)),
        }
    }

    /// Runs an admitted call and reports its output, artifact and rollback data. Read-only tools
    /// get a read-only view of the files; only the apply/transform tools and undo can write.
    ///
    /// A call that only reads runs on a thread of its own and is given up at the deadline: a
    /// read that never returns must not keep the call — and the person — waiting forever, and
    /// abandoning a reader changes nothing. A call that writes is never abandoned halfway; its
    /// work is bounded by its plan and its steps are logged (see [`steps`]).
    pub fn execute(&self, call: &AdmittedCall) -> Result<ToolOutput, String> {
        if call.call().layer >= FIRST_WRITING_LAYER {
            return self.run(call);
        }
        let (tx, rx) = mpsc::channel();
        let (executor, admitted) = (self.clone(), call.clone());
        std::thread::Builder::new()
            .name(format!("smart {}", call.tool()))
            .spawn(move || {
                let _ = tx.send(executor.run(&admitted));
            })
            .map_err(|e| format!("cannot start {}: {e}", call.tool()))?;
        match rx.recv_timeout(self.deadline) {
            Ok(result) => result,
            Err(mpsc::RecvTimeoutError::Timeout) => Err(format!(
                "{} was given up after {}: something it was reading did not answer (a hung network share or device?); it only reads, so nothing was changed",
                call.tool(),
                duration_words(self.deadline)
            )),
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(format!(
                "{} stopped without an answer (an internal error); it only reads, so nothing was changed",
                call.tool()
            )),
        }
    }

    fn run(&self, call: &AdmittedCall) -> Result<ToolOutput, String> {
        let started = Instant::now();
        let (c, q) = self.confine(call)?;
        let q = q.as_path();
        let (r, w) = (c.reader(), c.writer());
        let p = &self.places;
        let mut out = match call.tool() {
            "fs.scan" => scan::run(call, r)?,
            "fs.hash" => hash::run(call, r)?,
            "fs.read" => read::run(call, r)?,
            "rag.search" => rag::search(call, &p.index, self.now_ms)?,
            "orbit.get_context" => context::run(&self.context)?,
            "cluster.duplicates" => duplicates::run(call, r)?,
            "infer.superseded_docs" => superseded::run(call, r)?,
            "rag.assemble_context" => rag::assemble(call, r, &p.index)?,
            "rag.validate_applicability" => rag::validate(call, r, &p.index)?,
            "propose.patch" => propose_patch::run(call, r)?,
            "propose.move" => propose_move::run(call, r)?,
            "propose.redirects" => propose_redirects::run(call, r)?,
            "propose.quarantine" => propose_quarantine::run(call, r)?,
            "apply.patch" => apply_patch::run(call, w)?,
            "apply.move" => apply_move::run(call, w)?,
            "db.upsert" => db_upsert::run(call, &p.records)?,
            "fs.quarantine" => quarantine::run(call, w, q)?,
            "fs.compact" => compact::run(call, w, q)?,
            "rebuild.index" => rebuild_index::run(&p.roots, &p.index, self.now_ms)?,
            "quarantine.purge" => purge::run(call, w, q)?,
            "undo" => undo::run(call, w, &p.records)?,
            other => return Err(format!("there is no executor for the tool {other:?}")),
        };
        out.duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        Ok(out)
    }
}

/// "10 minutes", "3 s", "250 ms": a duration as a person reads it.
fn duration_words(d: Duration) -> String {
    match d.as_millis() {
        ms if ms >= 120_000 && ms % 60_000 == 0 => format!("{} minutes", ms / 60_000),
        ms if ms >= 1_000 => format!("{:.0} s", d.as_secs_f64()),
        ms => format!("{ms} ms"),
    }
}

/// A string argument the schema guarantees; its absence means the call does not match its tool.
pub(crate) fn str_arg<'a>(args: &'a Value, key: &str, tool: &str) -> Result<&'a str, String> {
    args.get(key).and_then(Value::as_str).ok_or_else(|| format!("{tool} needs a string argument {key:?}"))
}

/// A path as text for outputs (lossless for the UTF-8 paths the kernel hands over).
pub(crate) fn text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}
