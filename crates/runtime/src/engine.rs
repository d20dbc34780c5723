//! [`Engine`]: one data dir's kernel, ledger, key and executors, and the operations on them.

use crate::clock::Clock;
use crate::error::RuntimeError;
use crate::in_flight;
use crate::outcome::CallOutcome;
use crate::paths::DataDir;
use crate::turn_id::TurnId;
use crate::world::LedgerWorld;
use serde::Serialize;
use serde_json::{Value, json};
use smart_kernel::kernel::{Decision, Outcome, ToolOutput};
use smart_kernel::lease::LeaseDraft;
use smart_kernel::orbit::ScopeRequest;
use smart_kernel::{
    AdmittedCall, CallSource, GateAct, Hash, Kernel, KernelEvent, KernelState, Millis, Policy, ProposedCall, Registry,
    UserSignal,
};
use smart_ledger::{HeadSigner, Ledger, NewEvent, StoredEvent};
use smart_signals::{DeviceKey, KeyStoreKind};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How often an operation is retried on the newest state after another process appended first.
const MAX_CONFLICT_RETRIES: u32 = 64;

/// How long a signature made for a click stays valid: long enough to reach the kernel, short
/// enough that a captured one is useless later.
const SIGNAL_TTL_MS: u64 = 60_000;

struct KeySigner<'a>(&'a DeviceKey);

impl HeadSigner for KeySigner<'_> {
    fn sign_hex(&self, msg: &[u8]) -> String {
        self.0.sign_hex(msg)
    }
    fn seal_hex(&self, hash: &smart_kernel::Hash) -> String {
        self.0.seal_hex(&hash.0)
    }
    fn seal_matches(&self, hash: &smart_kernel::Hash, stored: &str) -> bool {
        self.0.seal_matches(&hash.0, stored)
    }
    fn detached(&self) -> Option<smart_ledger::cosign::Detached> {
        Some(Box::new(self.0.detached_signer()))
    }
}

/// The device key as the ledger's sealer, for `verify`.
pub fn sealer(key: &DeviceKey) -> impl HeadSigner + '_ {
    KeySigner(key)
}

pub struct InitOptions {
    pub roots: Vec<PathBuf>,
    pub policy: Option<Policy>,
    /// Force a key store; `None` tries the OS keyring, then the owner-only file.
    pub key_store: Option<KeyStoreKind>,
}

#[derive(Debug, Serialize)]
pub struct InitReport {
    pub data_dir: PathBuf,
    pub roots: Vec<String>,
    pub public_key: String,
    pub key_store: KeyStoreKind,
    pub warning: Option<String>,
    pub events: u64,
}

/// What `smart status --json` prints and the app's `get_status` returns: the kernel's status
/// view and the data dir it is of.
#[derive(Clone, Debug, PartialEq, Serialize, ts_rs::TS)]
pub struct Status {
    #[serde(flatten)]
    pub view: smart_kernel::status::StatusView,
    pub data_dir: String,
}

/// What happened to a call, for the CLI's output and exit code.
#[derive(Debug, Serialize)]
pub struct CallReport {
    pub outcome: CallOutcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending_id: Option<String>,
    /// The sequence of the decisive event (receipt, refusal, pending).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tier: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
    /// The proposal artifact an L2 call produced (what `apply.*` takes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub artifact: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admissible_in_ms: Option<u64>,
    /// Tier 2: the person should be told.
    pub notify: bool,
}

impl CallReport {
    pub fn bare(outcome: CallOutcome) -> CallReport {
        CallReport {
            outcome,
            code: None,
            reason: None,
            pending_id: None,
            seq: None,
            tier: None,
            output: None,
            artifact: None,
            admissible_in_ms: None,
            notify: false,
        }
    }
}

pub struct Engine {
    dir: DataDir,
    ledger: Ledger,
    kernel: Kernel,
    state: KernelState,
    key: Result<DeviceKey, String>,
    clock: Box<dyn Clock + Send>,
    /// The seq of the newest state snapshot this engine wrote or started from.
    snapshot_seq: u64,
    /// The ledger file's schema version when this engine verified (or created) it: a later change
    /// means the append-only triggers may have been dropped, and this engine marks nothing more
    /// as verified (see `smart_ledger::verified`).
    verified_schema: Option<i64>,
    /// The request this engine is working for, while one is open (`in_turn`, `enter_turn`):
    /// its decisions are ledgered under the request's id. Outside one, each operation is a
    /// request of its own.
    turn: Option<TurnId>,
}

/// A snapshot is written once the state is this many events past the last one — or, for a large
/// state, past an eighth of its map entries — so writing snapshots costs the same per event however
/// large the state grows, and opening replays a bounded tail. An engine also leaves one behind when
/// it closes.
const SNAPSHOT_EVERY: u64 = 64;
const SNAPSHOT_ENTRIES_PER_EVENT: u64 = 8;

fn registry() -> Result<Registry, RuntimeError> {
    Registry::new(smart_tools::specs()).map_err(|e| RuntimeError::BadInput(format!("tool registry: {e}")))
}

fn io(path: &Path, e: impl std::fmt::Display) -> RuntimeError {
    RuntimeError::Io { path: path.to_path_buf(), reason: e.to_string() }
}

impl Engine {
    /// Initialises a data dir: validates roots and policy, creates the device key and the ledger
    /// with its genesis event and a first scope token. On any failure nothing is left behind.
    pub fn init(
        data_dir: &Path,
        opts: InitOptions,
        clock: Box<dyn Clock + Send>,
    ) -> Result<(Engine, InitReport), RuntimeError> {
        let dir = DataDir::new(data_dir);
        if dir.ledger().exists() {
            return Err(RuntimeError::AlreadyInitialised(data_dir.to_path_buf()));
        }
        let mut policy = opts.policy.unwrap_or_default();
        let mut raw_roots: Vec<PathBuf> = policy.roots.iter().map(PathBuf::from).collect();
        raw_roots.extend(opts.roots);
        if raw_roots.is_empty() {
            return Err(RuntimeError::BadInput("give at least one --root: the folders SMART may work in".into()));
        }
        let created_dir = !data_dir.exists();
        std::fs::create_dir_all(data_dir).map_err(|e| io(data_dir, e))?;
        let data_canon = dunce::canonicalize(data_dir).map_err(|e| io(data_dir, e))?;
        let cleanup = |created: bool| {
            if created {
                let _ = std::fs::remove_dir_all(data_dir);
            }
        };
        let mut roots = Vec::new();
        for r in &raw_roots {
            let canon = match dunce::canonicalize(r) {
                Ok(c) if c.is_dir() => c,
                Ok(_) => {
                    cleanup(created_dir);
                    return Err(RuntimeError::BadInput(format!("root {} is not a directory", r.display())));
                }
                Err(e) => {
                    cleanup(created_dir);
                    return Err(RuntimeError::BadInput(format!("root {}: {e}", r.display())));
                }
            };
            if canon.parent().is_none() {
                cleanup(created_dir);
                return Err(RuntimeError::BadInput("the filesystem root cannot be an allowed root".into()));
            }
            if data_canon.starts_with(&canon) {
                cleanup(created_dir);
                return Err(RuntimeError::BadInput(format!(
                    "the data dir {} is inside root {}: the tools could then move the ledger itself",
                    data_canon.display(),
                    canon.display()
                )));
            }
            if canon.starts_with(&data_canon) {
                cleanup(created_dir);
                return Err(RuntimeError::BadInput(format!(
                    "root {} is inside the data dir {}: the tools could then change the ledger, the key \
                     and what is in quarantine",
                    canon.display(),
                    data_canon.display()
                )));
            }
            let s = canon
                .to_str()
                .map(str::to_string)
                .ok_or_else(|| RuntimeError::BadInput(format!("root {} is not valid UTF-8", canon.display())))?;
            if !roots.contains(&s) {
                roots.push(s);
            }
        }
        policy.roots = roots.clone();
        let kernel = Kernel::new(policy.clone(), registry()?);

        let (key, warning) = match smart_signals::create_device_key(data_dir, opts.key_store) {
            Ok(k) => k,
            Err(e) => {
                cleanup(created_dir);
                return Err(e.into());
            }
        };
        let store = smart_signals::store_info(data_dir).map(|(k, _)| k).unwrap_or(KeyStoreKind::File);
        let made = (|| -> Result<Engine, RuntimeError> {
            let ledger = Ledger::create(&dir.ledger())?;
            let mut engine = Engine {
                dir: DataDir::new(data_dir),
                ledger,
                kernel,
                state: KernelState::default(),
                key: Ok(key),
                clock,
                snapshot_seq: 0,
                verified_schema: None,
                turn: None,
            };
            engine.verified_schema = engine.ledger.schema_version().ok();
            let now = Millis(engine.clock.now_ms());
            let genesis = engine.kernel.genesis(&engine.public_key()?)?;
            let c = TurnId::new();
            engine.commit(&c, vec![genesis], now)?;
            let d = engine.kernel.issue_scope(&engine.state, &ScopeRequest::default(), now)?;
            engine.commit(&c, d.events, now)?;
            if let Ok(text) = policy.to_toml() {
                let _ = std::fs::write(engine.dir.policy_copy(), text);
            }
            Ok(engine)
        })();
        match made {
            Ok(engine) => {
                let report = InitReport {
                    data_dir: data_dir.to_path_buf(),
                    roots,
                    public_key: engine.public_key()?,
                    key_store: store,
                    warning,
                    events: engine.state.seq,
                };
                Ok((engine, report))
            }
            Err(e) => {
                // Leave no half-initialised dir: the key and the ledger go together.
                for f in ["ledger.db", "ledger.db-wal", "ledger.db-shm", "device.key", "keystore.json", "policy.toml"] {
                    let _ = std::fs::remove_file(data_dir.join(f));
                }
                cleanup(created_dir);
                Err(e)
            }
        }
    }

    /// Opens an initialised data dir. Refuses a ledger that does not verify — every event's
    /// hash, link and seal, the signed head and the anchor outside the file
    /// ([`smart_ledger::Depth::Authentic`]) — with `smart ledger verify`'s reason, and one that
    /// does not replay. An engine must never decide on a history
    /// that was edited, cut short or put back: what it records next would be signed over it.
    pub fn open(data_dir: &Path, clock: Box<dyn Clock + Send>) -> Result<Engine, RuntimeError> {
        let dir = DataDir::new(data_dir);
        if !dir.ledger().is_file() {
            return Err(RuntimeError::NotInitialised(data_dir.to_path_buf()));
        }
        let ledger = Ledger::open(&dir.ledger())?;
        let broken = |reason: String| RuntimeError::BrokenLedger { path: dir.ledger(), reason };
        let key = smart_signals::load_device_key(data_dir).map_err(|e| e.to_string());
        let public = public_key(data_dir, key.as_ref().ok());
        let sealer = key.as_ref().ok().map(KeySigner);
        let (mark, report) =
            verify_since_mark(&ledger, public.as_deref(), sealer.as_ref().map(|s| s as &dyn HeadSigner))?;
        if !report.ok {
            return Err(broken(format!(
                "event {}: {}",
                report.first_bad_seq.unwrap_or(0),
                report.reason.as_deref().unwrap_or("it does not verify")
            )));
        }
        let genesis = ledger.get(1)?.ok_or_else(|| broken("it has no genesis event".into()))?;
        let policy = match genesis.event() {
            Ok(KernelEvent::Genesis { policy, .. }) => policy,
            Ok(_) => return Err(broken("its first event is not genesis".into())),
            Err(e) => return Err(broken(e)),
        };
        let kernel = Kernel::new(policy, registry()?);
        let (state, snapshot_seq) =
            load_state(&ledger, sealer.as_ref().map(|s| s as &dyn HeadSigner), None).map_err(broken)?;
        let verified_schema = ledger.schema_version().ok();
        let mut engine = Engine { dir, ledger, kernel, state, key, clock, snapshot_seq, verified_schema, turn: None };
        if let Some(head) = &report.head
            && mark.as_ref().is_none_or(|m| m.seq < report.events)
        {
            engine.mark_verified(report.events, head);
        }
        engine.recover_in_flight()?;
        Ok(engine)
    }

    /// Calls admitted before a crash have no receipt: record them as interrupted. A call that
    /// another live process is running is left alone (see [`crate::in_flight`]): its receipt is
    /// on the way. What dead processes left in `in-flight/` goes too — a step log outlives its
    /// call when the process died between the receipt and the tidying up.
    fn recover_in_flight(&mut self) -> Result<(), RuntimeError> {
        if self.key.is_err() {
            return Ok(());
        }
        self.retrying(|e| {
            // Holds first, then the ledger: a call admitted after the holds were taken is some
            // live process's (it took its lock before its `admitted` was written), and no call
            // held here can be admitted meanwhile.
            let mut holds: BTreeMap<Hash, in_flight::Running> = in_flight::left_behind(&e.dir)
                .into_iter()
                .filter_map(|hash| in_flight::Running::try_take(&e.dir, &hash).map(|h| (hash, h)))
                .collect();
            e.refresh()?;
            let dead: Vec<(Hash, String)> = e
                .state
                .inflight
                .iter()
                .filter(|(hash, _)| holds.contains_key(hash) || !in_flight::is_running(&e.dir, hash))
                .map(|(hash, f)| (*hash, f.tool.clone()))
                .collect();
            // Files first, then the ledger: a crash in between rolls back again (finding nothing
            // left to do) and records it then.
            let executor = smart_tools::Executor::new(e.places());
            let events: Vec<KernelEvent> = dead
                .iter()
                .map(|(hash, tool)| KernelEvent::Failed {
                    call_hash: *hash,
                    tool: tool.clone(),
                    error: interrupted(executor.roll_back(hash)),
                })
                .collect();
            if !events.is_empty() {
                let now = e.now();
                e.commit(&TurnId::new(), events, now)?;
            }
            // Every call held here now has its receipt (just recorded, or written before its
            // process died) or was never admitted: nothing in `in-flight/` is still needed.
            for (hash, _) in &dead {
                executor.forget_steps(hash);
                in_flight::forget(&e.dir, hash);
            }
            for (hash, hold) in std::mem::take(&mut holds) {
                executor.forget_steps(&hash);
                drop(hold);
            }
            Ok(())
        })
    }

    /// Runs `op` as a step of the request `turn`: every event it ledgers carries the turn's id
    /// (see `crate::turn_id`). Turns nest by replacing: the innermost id is the one recorded,
    /// and the outer one is back afterwards.
    pub fn in_turn<T>(&mut self, turn: &TurnId, op: impl FnOnce(&mut Engine) -> T) -> T {
        let outer = self.enter_turn(turn.clone());
        let out = op(self);
        self.leave_turn(outer);
        out
    }

    /// Opens the request `turn` for what follows, until [`Engine::leave_turn`] is given what
    /// this returned (the turn that was open before). For callers that cannot wrap their work in
    /// a closure — the assistant's turn awaits its workers between engine calls.
    pub fn enter_turn(&mut self, turn: TurnId) -> Option<TurnId> {
        self.turn.replace(turn)
    }

    pub fn leave_turn(&mut self, outer: Option<TurnId>) {
        self.turn = outer;
    }

    /// The open request's id, or a fresh one: an operation outside any turn is a request of its
    /// own.
    pub(crate) fn turn_id(&self) -> TurnId {
        self.turn.clone().unwrap_or_default()
    }

    /// The turn a decision on `pending_id` belongs to: the one that made the call wait, when the
    /// ledger still shows it; otherwise the open one (or a fresh one). A label never stops a
    /// decision: a lookup that fails is logged and the decision goes on under the open turn.
    fn turn_of_pending(&self, pending_id: &str) -> TurnId {
        if pending_id.is_empty() {
            return self.turn_id();
        }
        let recorded = self.ledger.corr_of_pending(pending_id).unwrap_or_else(|e| {
            tracing::warn!(error = %e, pending_id, "could not look up the request a pending call belongs to");
            None
        });
        recorded.and_then(|c| TurnId::parse(&c).ok()).unwrap_or_else(|| self.turn_id())
    }

    /// Runs `op` again, on the ledger's newest state, when another process appended between its
    /// reading and its writing (`Conflict`: nothing of `op`'s was written). Many processes share
    /// one ledger — the app, `smart` commands, scripts — and a collision is theirs to sort out,
    /// not the person's to retry. Only for operations that write one decision: a conflict at a
    /// later step of a multi-step one would repeat the steps before it.
    fn retrying<T>(&mut self, mut op: impl FnMut(&mut Engine) -> Result<T, RuntimeError>) -> Result<T, RuntimeError> {
        let mut attempt = 0u32;
        loop {
            match op(self) {
                Err(RuntimeError::Ledger(smart_ledger::LedgerError::Conflict { .. }))
                    if attempt < MAX_CONFLICT_RETRIES =>
                {
                    attempt += 1;
                    // A little apart, so that writers that collided do not collide again in step.
                    std::thread::sleep(std::time::Duration::from_millis(u64::from(attempt % 8) * 3));
                }
                other => return other,
            }
        }
    }

    pub fn data_dir(&self) -> &Path {
        self.dir.path()
    }

    pub fn state(&self) -> &KernelState {
        &self.state
    }

    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    pub fn key_status(&self) -> Result<String, String> {
        self.key.as_ref().map(|k| k.public_hex()).map_err(Clone::clone)
    }

    fn public_key(&self) -> Result<String, RuntimeError> {
        self.key.as_ref().map(|k| k.public_hex()).map_err(|e| RuntimeError::NoKey(e.clone()))
    }

    /// The time for a decision: the clock, but never before the last recorded event.
    pub fn now(&self) -> Millis {
        Millis(self.clock.now_ms()).max(self.state.last_at)
    }

    /// Appends a decision's events atomically and applies them. On error nothing changes.
    fn commit(&mut self, turn: &TurnId, events: Vec<KernelEvent>, at: Millis) -> Result<Vec<u64>, RuntimeError> {
        if events.is_empty() {
            return Ok(Vec::new());
        }
        let key = self.key.as_ref().map_err(|e| RuntimeError::NoKey(e.clone()))?;
        let wall = crate::clock::SystemClock.now_ms();
        // A ledger begun under an older state hash scheme moves to today's in front of the first
        // decision committed on it, in the same transaction (see `smart_kernel::state_hash`).
        let migration = self.kernel.hash_scheme_migration(&self.state);
        let migrated = usize::from(migration.is_some());
        let all: Vec<&KernelEvent> = migration.iter().chain(&events).collect();
        let corr = turn.as_str();
        // `next` is discarded on any error, so events are applied without per-event copies, and
        // each event's state-before is the previous one's state-after.
        let mut next = self.state.clone();
        let mut hashes = Vec::with_capacity(all.len());
        let mut before = next.hash()?;
        for ev in &all {
            next.apply_mut(ev, at)?;
            let after = next.hash()?;
            hashes.push((before, after));
            before = after;
        }
        let batch: Vec<NewEvent<'_>> = all
            .iter()
            .zip(&hashes)
            .map(|(event, (b, a))| NewEvent { corr, event, at, wall_ms: wall, state_before: *b, state_after: *a })
            .collect();
        let mut seqs = self.ledger.append(self.state.seq, &batch, &KeySigner(key))?;
        self.state = next;
        if self.snapshot_due() {
            self.save_snapshot();
        }
        for ev in &all {
            tracing::info!(corr, kind = ev.kind(), "ledgered");
        }
        seqs.drain(..migrated.min(seqs.len()));
        Ok(seqs)
    }

    /// Records that events up to `seq` (whose hash is `hash`) are authentic: they were verified
    /// when this engine opened the ledger, checked when it caught up with them, or written by it.
    /// Nothing is marked once the file's schema changed under this engine.
    fn mark_verified(&self, seq: u64, hash: &str) {
        let (Ok(key), Some(schema)) = (&self.key, self.verified_schema) else { return };
        if self.ledger.schema_version().ok() != Some(schema) {
            tracing::warn!("the ledger's schema changed while it was open: nothing more is marked as verified");
            return;
        }
        let mark = smart_ledger::Mark { seq, hash: hash.to_string(), schema };
        if let Err(e) = self.ledger.mark_verified(&mark, &KeySigner(key)) {
            tracing::warn!(error = %e, "could not record how far the ledger was verified");
        }
    }

    fn snapshot_due(&self) -> bool {
        let gap = self.state.seq.saturating_sub(self.snapshot_seq);
        gap >= SNAPSHOT_EVERY.max(self.state.entries() as u64 / SNAPSHOT_ENTRIES_PER_EVENT)
    }

    /// The snapshot is a cache; failing to write it costs only a longer replay next time.
    fn save_snapshot(&mut self) {
        match serde_json::to_string(&self.state) {
            Ok(json) => match self.ledger.save_snapshot(self.state.seq, &json) {
                Ok(()) => self.snapshot_seq = self.state.seq,
                Err(e) => tracing::warn!(error = %e, "could not save the state snapshot"),
            },
            Err(e) => tracing::warn!(error = %e, "could not encode the state snapshot"),
        }
    }

    /// Records a decision and reports its outcome; runs an admitted call and records the receipt.
    pub(crate) fn settle(&mut self, turn: &TurnId, d: Decision, now: Millis) -> Result<CallReport, RuntimeError> {
        // The hold on an admitted call is taken before its `admitted` event is durable, so no
        // other process ever sees it in flight without a live holder.
        let running = match &d.outcome {
            Outcome::Admitted(a) => Some(in_flight::Running::take(&self.dir, &a.hash())?),
            _ => None,
        };
        let seqs = self.commit(turn, d.events, now)?;
        let last = seqs.last().copied();
        Ok(match d.outcome {
            Outcome::Refused(r) => CallReport {
                code: Some(r.code.as_str().to_string()),
                reason: Some(r.reason),
                seq: last,
                ..CallReport::bare(CallOutcome::Refused)
            },
            Outcome::Pending { id, admissible_at } => {
                let tier = self.state.pending.get(&id).map(|p| u8::from(p.tier));
                CallReport {
                    pending_id: Some(id),
                    seq: last,
                    tier,
                    admissible_in_ms: Some(admissible_at.since(now)),
                    ..CallReport::bare(CallOutcome::Pending)
                }
            }
            Outcome::Done => CallReport { seq: last, ..CallReport::bare(CallOutcome::Recorded) },
            Outcome::Admitted(admitted) => self.execute(turn, &admitted, running)?,
        })
    }

    /// Runs an admitted call and appends its receipt at whatever the ledger's head is by then:
    /// other processes may have appended while the call ran (the chain still links the receipt
    /// to them), and a receipt must never be lost to that. The hold on the call is released
    /// only once the receipt is durable.
    fn execute(
        &mut self,
        turn: &TurnId,
        admitted: &AdmittedCall,
        running: Option<in_flight::Running>,
    ) -> Result<CallReport, RuntimeError> {
        let result: Result<ToolOutput, String> = self.executor(admitted.tool()).execute(admitted);
        let receipt = self.kernel.receipt(admitted, result);
        let seqs = self
            .retrying(|e| {
                e.refresh()?;
                let now = e.now();
                e.commit(turn, vec![receipt.clone()], now)
            })
            // Past this point the call has run: no caller may retry the whole operation. Its step
            // log stays, so the next open rolls it back and records that.
            .map_err(|e| RuntimeError::ReceiptNotRecorded {
                tool: admitted.tool().to_string(),
                reason: e.to_string(),
            })?;
        self.executor(admitted.tool()).forget_steps(&admitted.hash());
        drop(running);
        let tier = Some(u8::from(admitted.tier()));
        Ok(match receipt {
            KernelEvent::Committed { output, artifact, notify, .. } => CallReport {
                seq: seqs.last().copied(),
                tier,
                notify,
                artifact: artifact.as_ref().and_then(|a| smart_kernel::hash_of(a).ok()).map(|h| h.to_hex()),
                output: Some(output),
                ..CallReport::bare(CallOutcome::Committed)
            },
            KernelEvent::Failed { error, .. } => CallReport {
                seq: seqs.last().copied(),
                tier,
                reason: Some(error),
                ..CallReport::bare(CallOutcome::Failed)
            },
            _ => CallReport::bare(CallOutcome::Recorded),
        })
    }

    /// The executor for this data dir and the time; for `orbit.get_context` (only — the status
    /// is not built for every call), the kernel's status and the visible tools.
    fn executor(&self, tool: &str) -> smart_tools::Executor {
        let now = self.now();
        let executor = smart_tools::Executor::new(self.places()).with_now(now.0);
        if tool != "orbit.get_context" {
            return executor;
        }
        let view = smart_kernel::status::status(&self.state, self.kernel.policy(), now);
        let mut context = serde_json::to_value(view).unwrap_or(Value::Null);
        if let Some(obj) = context.as_object_mut() {
            let visible: Vec<&String> = self.state.scope.as_ref().map(|t| t.tools.iter().collect()).unwrap_or_default();
            obj.insert("visible_tools".into(), json!(visible));
        }
        executor.with_context(context)
    }

    /// The kernel's view of the world: the filesystem, this ledger's artifacts, the record store.
    fn world(&self) -> LedgerWorld<'_> {
        LedgerWorld { ledger: &self.ledger, state: &self.state, records: self.dir.records() }
    }

    /// Where executors work, for this data dir.
    pub fn places(&self) -> smart_tools::Places {
        self.dir.places(self.kernel.policy().roots.iter().map(PathBuf::from).collect())
    }

    /// Catches up with events another process (the app, another `smart`) appended since this
    /// engine last looked, so every decision is made on the ledger's latest state.
    pub fn refresh(&mut self) -> Result<(), RuntimeError> {
        let (tail, _) = self.ledger.tail()?;
        if tail < self.state.seq {
            return Err(RuntimeError::BrokenLedger {
                path: self.dir.ledger(),
                reason: format!(
                    "it went back from {} events to {tail} while this process had it open: events were removed from its end",
                    self.state.seq
                ),
            });
        }
        if tail != self.state.seq {
            let sealer = self.key.as_ref().ok().map(KeySigner);
            // Carry on from the state this engine holds when the row it last applied still records
            // it; otherwise (a history that changed under it) load again from scratch.
            let ours = self.state.hash()?.to_hex();
            let from = match self.ledger.get(self.state.seq)? {
                Some(row) if row.state_after == ours => Some((self.state.clone(), row.hash)),
                _ => None,
            };
            let (state, _) = load_state(&self.ledger, sealer.as_ref().map(|s| s as &dyn HeadSigner), from)
                .map_err(|reason| RuntimeError::BrokenLedger { path: self.dir.ledger(), reason })?;
            self.state = state;
        }
        Ok(())
    }

    /// Catches up with the ledger, then lets time-based events happen (pending and lease expiry)
    /// before anything else.
    pub fn tick(&mut self) -> Result<(), RuntimeError> {
        self.refresh()?;
        let now = self.now();
        let d = self.kernel.tick(&self.state, now)?;
        if !d.events.is_empty() && self.key.is_ok() {
            // Time's doing, not the request's: these events keep an id of their own.
            self.commit(&TurnId::new(), d.events, now)?;
        }
        Ok(())
    }

    /// Proposes a call on behalf of `source`.
    pub fn call(&mut self, tool: &str, args: Value, source: CallSource) -> Result<CallReport, RuntimeError> {
        self.call_as(tool, args, source, None)
    }

    /// Proposes a call, for a scoped work order when one is named.
    pub fn call_as(
        &mut self,
        tool: &str,
        args: Value,
        source: CallSource,
        work_order: Option<String>,
    ) -> Result<CallReport, RuntimeError> {
        self.retrying(|e| e.call_once(tool, args.clone(), source, work_order.clone()))
    }

    fn call_once(
        &mut self,
        tool: &str,
        args: Value,
        source: CallSource,
        work_order: Option<String>,
    ) -> Result<CallReport, RuntimeError> {
        self.tick()?;
        let now = self.now();
        let scope_id = self.state.scope.as_ref().map(|t| t.id.to_hex()).unwrap_or_default();
        let call = ProposedCall {
            tool: tool.to_string(),
            args,
            scope_id,
            source,
            risk_hint: None,
            snapshot: None,
            work_order,
        };
        let d = {
            let world = self.world();
            self.kernel.propose(&self.state, call, now, &world)?
        };
        self.settle(&self.turn_id(), d, now)
    }

    /// The person's decision on a pending call, signed with the device key.
    pub fn decide(&mut self, pending_id: &str, approve: bool) -> Result<CallReport, RuntimeError> {
        self.tick()?;
        let now = self.now();
        let key = self.key.as_ref().map_err(|e| RuntimeError::NoKey(e.clone()))?;
        let call_hash = self.state.pending.get(pending_id).map(|p| p.call.hash);
        let decision = if approve { smart_kernel::Decision::Approve } else { smart_kernel::Decision::Deny };
        let signal = key.sign_signal(pending_id, call_hash, decision, now, SIGNAL_TTL_MS)?;
        self.submit_signal(signal)
    }

    /// Submits a user signal as given (already signed, or not). Used by `decide` and by the
    /// app's dialog, which signs in the backend; tests use it to submit forgeries.
    pub fn submit_signal(&mut self, signal: UserSignal) -> Result<CallReport, RuntimeError> {
        self.retrying(|e| e.submit_signal_once(signal.clone()))
    }

    fn submit_signal_once(&mut self, signal: UserSignal) -> Result<CallReport, RuntimeError> {
        self.tick()?;
        let now = self.now();
        let denied = signal.decision == smart_kernel::Decision::Deny;
        let turn = self.turn_of_pending(&signal.pending_id);
        let d = {
            let world = self.world();
            self.kernel.signal(&self.state, signal, now, &world)?
        };
        let mut report = self.settle(&turn, d, now)?;
        if report.outcome == CallOutcome::Recorded && denied {
            report.outcome = CallOutcome::Denied;
        }
        Ok(report)
    }

    /// The emergency gate, signed with the device key.
    pub fn stop(&mut self, reason: &str) -> Result<CallReport, RuntimeError> {
        self.refresh()?;
        let now = self.now();
        let key = self.key.as_ref().map_err(|e| RuntimeError::NoKey(e.clone()))?;
        let signal = key.sign_signal("", None, smart_kernel::Decision::Emergency, now, SIGNAL_TTL_MS)?;
        self.submit_emergency(signal, reason)
    }

    /// Submits an emergency signal as given; the kernel verifies it like any other.
    pub fn submit_emergency(&mut self, signal: UserSignal, reason: &str) -> Result<CallReport, RuntimeError> {
        self.retrying(|e| {
            e.refresh()?;
            let now = e.now();
            let d = e.kernel.emergency(&e.state, signal.clone(), reason, now)?;
            e.settle(&e.turn_id(), d, now)
        })
    }

    pub fn draft_lease(&mut self, draft: LeaseDraft) -> Result<CallReport, RuntimeError> {
        self.tick()?;
        let now = self.now();
        let d = self.kernel.draft_lease(&self.state, draft, now)?;
        self.settle(&self.turn_id(), d, now)
    }

    /// Passes one or more gates in order, stopping at the first refusal.
    pub fn gates(&mut self, acts: &[GateAct]) -> Result<CallReport, RuntimeError> {
        self.gates_writing(acts, Vec::new())
    }

    /// Passes gates in order; the slow-memory writes go with the last one (where the person
    /// means them), and a write that gate does not allow refuses it.
    pub fn gates_writing(
        &mut self,
        acts: &[GateAct],
        writes: Vec<smart_kernel::memory::SlowWrite>,
    ) -> Result<CallReport, RuntimeError> {
        self.tick()?;
        let c = self.turn_id();
        let mut report = CallReport::bare(CallOutcome::Recorded);
        let mut writes = Some(writes);
        for (i, act) in acts.iter().enumerate() {
            let now = self.now();
            let w = if i + 1 == acts.len() { writes.take().unwrap_or_default() } else { Vec::new() };
            let d = self.kernel.pass_gate(&self.state, *act, w, now)?;
            report = self.settle(&c, d, now)?;
            if report.outcome == CallOutcome::Refused {
                break;
            }
        }
        Ok(report)
    }

    pub fn issue_scope(&mut self, read_only: bool) -> Result<CallReport, RuntimeError> {
        self.tick()?;
        let now = self.now();
        let req = ScopeRequest { read_only, ..ScopeRequest::default() };
        let d = self.kernel.issue_scope(&self.state, &req, now)?;
        self.settle(&self.turn_id(), d, now)
    }

    pub fn revoke_scope(&mut self, reason: &str) -> Result<CallReport, RuntimeError> {
        self.tick()?;
        let now = self.now();
        let d = self.kernel.revoke_scope(&self.state, reason, now)?;
        self.settle(&self.turn_id(), d, now)
    }

    /// Undoes the committed reversible call at `seq`, through the kernel.
    pub fn undo(&mut self, seq: u64) -> Result<CallReport, RuntimeError> {
        self.retrying(|e| e.undo_once(seq))
    }

    fn undo_once(&mut self, seq: u64) -> Result<CallReport, RuntimeError> {
        self.tick()?;
        let now = self.now();
        let committed = match self.ledger.get(seq)?.map(|r| r.event()) {
            Some(Ok(ev)) => ev,
            Some(Err(e)) => {
                return Err(RuntimeError::BrokenLedger {
                    path: self.dir.ledger(),
                    reason: format!("event {seq}: {e}"),
                });
            }
            // Let the kernel refuse (and record) an undo of something that is not there.
            None => KernelEvent::UndoRequested { target_seq: seq },
        };
        let d = {
            let world = self.world();
            self.kernel.propose_undo(&self.state, seq, &committed, now, &world)?
        };
        self.settle(&self.turn_id(), d, now)
    }

    /// The person's decision on the pending call they were shown: refused before anything is
    /// signed when the call hash on their screen is not the pending call's (it was replaced, or
    /// the screen is stale). The signature binds exactly the hash the person saw.
    pub fn decide_shown(
        &mut self,
        pending_id: &str,
        shown_hash: &str,
        approve: bool,
    ) -> Result<CallReport, RuntimeError> {
        self.tick()?;
        match self.state.pending.get(pending_id) {
            None => Err(RuntimeError::BadInput(format!(
                "no pending call {pending_id}: it was decided, expired or never existed"
            ))),
            Some(p) if !p.call.hash.to_hex().eq_ignore_ascii_case(shown_hash.trim()) => {
                Err(RuntimeError::BadInput(format!(
                    "the call shown ({}) is not the pending call {pending_id} ({}): nothing was signed",
                    shown_hash.get(..12).unwrap_or(shown_hash),
                    &p.call.hash.to_hex()[..12]
                )))
            }
            Some(_) => self.decide(pending_id, approve),
        }
    }

    /// Verifies the whole ledger with this device's key and seal (what `smart ledger verify`
    /// does).
    pub fn verify_ledger(&mut self) -> Result<smart_ledger::VerifyReport, RuntimeError> {
        self.refresh()?;
        let public = self.key.as_ref().ok().map(DeviceKey::public_hex);
        let signer = self.key.as_ref().ok().map(KeySigner);
        Ok(smart_ledger::verify(&self.ledger, public.as_deref(), signer.as_ref().map(|s| s as &dyn HeadSigner))?)
    }

    /// Checks the events after the last verified one (the whole chain when there is no mark that
    /// still holds: see `smart_ledger::verified`) with every check an open makes, and moves the mark
    /// on when they pass. Returns the report and the seq the check started after (0: the whole
    /// chain). The events before the mark are the background check's (`crate::chain_check`).
    pub fn verify_new(&mut self) -> Result<(smart_ledger::VerifyReport, u64), RuntimeError> {
        self.refresh()?;
        let public = self.key.as_ref().ok().map(DeviceKey::public_hex);
        let signer = self.key.as_ref().ok().map(KeySigner);
        let (mark, report) =
            verify_since_mark(&self.ledger, public.as_deref(), signer.as_ref().map(|s| s as &dyn HeadSigner))?;
        if let Some(head) = &report.head {
            self.mark_verified(report.events, head);
        }
        Ok((report, mark.map_or(0, |m| m.seq)))
    }

    /// Every integrity check about one event (see `smart_ledger::inspect`).
    pub fn inspect(&self, seq: u64) -> Result<Option<smart_ledger::EventCheck>, RuntimeError> {
        let signer = self.key.as_ref().ok().map(KeySigner);
        Ok(smart_ledger::inspect(
            &self.ledger,
            seq,
            &self.state.device_key,
            signer.as_ref().map(|s| s as &dyn HeadSigner),
        )?)
    }

    /// A proposal artifact (a move plan) by its hash, as recorded when it was made.
    pub fn artifact(&self, hash: &smart_kernel::Hash) -> Result<Option<smart_kernel::Artifact>, RuntimeError> {
        let Some(meta) = self.state.artifacts.get(hash) else {
            return Ok(None);
        };
        Ok(self.ledger.get(meta.seq)?.and_then(|row| match row.event() {
            Ok(KernelEvent::Committed { artifact, .. }) => artifact,
            _ => None,
        }))
    }

    /// Records a supervised component's fault in the ledger.
    pub fn record_fault(&mut self, component: &str, reason: &str, restart_in_ms: u64) -> Result<u64, RuntimeError> {
        self.refresh()?;
        let now = self.now();
        let d = self.kernel.record_fault(&self.state, component, reason, restart_in_ms, now)?;
        let seqs = self.commit(&self.turn_id(), d.events, now)?;
        Ok(seqs.last().copied().unwrap_or(0))
    }

    /// The tools Orbit shows in the live scope — all a proposer may be told about. None when
    /// there is no live token (revoked or expired): then nothing may be proposed.
    pub fn visible_tools(&mut self) -> Result<Vec<smart_kernel::ToolSpec>, RuntimeError> {
        self.tick()?;
        let now = self.now();
        let Some(token) = self.state.scope.as_ref().filter(|t| !t.revoked && t.expires_at > now) else {
            return Ok(vec![]);
        };
        Ok(self.kernel.registry().specs().filter(|s| token.tools.contains(&s.name)).cloned().collect())
    }

    /// The folders SMART may work in.
    pub fn roots(&self) -> &[String] {
        &self.kernel.policy().roots
    }

    /// The status view (see `smart_kernel::status`), with where the data lives.
    pub fn status(&mut self) -> Result<Status, RuntimeError> {
        self.retrying(Engine::tick)?;
        let now = self.now();
        let view = smart_kernel::status::status(&self.state, self.kernel.policy(), now);
        Ok(Status { view, data_dir: self.dir.path().display().to_string() })
    }
}

/// What an interrupted call's receipt says: whether what it had done was rolled back.
fn interrupted(rolled_back: Option<Result<smart_tools::exec::steps::RolledBack, String>>) -> String {
    let head = "interrupted: SMART stopped before this call finished";
    match rolled_back {
        None => format!("{head}; check the files it names"),
        Some(Ok(r)) if r.problems.is_empty() => match r.undone {
            0 => format!("{head}; it had changed nothing yet"),
            1 => format!("{head}; the 1 step it had taken was rolled back, so nothing changed"),
            n => format!("{head}; the {n} steps it had taken were rolled back, so nothing changed"),
        },
        Some(Ok(r)) => format!(
            "{head}; rolling it back undid {} steps but not all: {}; check the files it names",
            r.undone,
            r.problems.join("; ")
        ),
        Some(Err(why)) => format!("{head}; it could not be rolled back ({why}); check the files it names"),
    }
}

/// Checks a row is what this device wrote: its hash recomputes, it links to the row before, and,
/// where the device key is at hand, its seal is the device's.
fn authentic(row: &StoredEvent, prev: &str, sealer: Option<&dyn HeadSigner>) -> Result<(), String> {
    let hash = row.compute_hash()?;
    if hash.to_hex() != row.hash {
        return Err(format!("event {} does not match its hash", row.seq));
    }
    if row.prev_hash != prev {
        return Err(format!("event {} does not link to the event before it", row.seq));
    }
    if let Some(s) = sealer
        && !s.seal_matches(&hash, &row.seal)
    {
        return Err(format!("event {} does not carry this device's seal", row.seq));
    }
    Ok(())
}

/// Verifies what an open verifies ([`smart_ledger::Depth::Authentic`]): the events after the
/// last verified one, where that mark still holds (see `smart_ledger::verified`), else all of
/// them. Returns the mark it started from, and the report.
fn verify_since_mark(
    ledger: &Ledger,
    public: Option<&str>,
    sealer: Option<&dyn HeadSigner>,
) -> Result<(Option<smart_ledger::Mark>, smart_ledger::VerifyReport), smart_ledger::LedgerError> {
    let mark = sealer.and_then(|s| ledger.verified_mark(s).ok().flatten());
    let report = smart_ledger::verify_from(ledger, public, sealer, smart_ledger::Depth::Authentic, mark.as_ref())?;
    Ok((mark, report))
}

/// The device's public key: from the key itself where it loaded, else from the key store's record.
pub(crate) fn public_key(data_dir: &Path, key: Option<&DeviceKey>) -> Option<String> {
    match key {
        Some(k) => Some(k.public_hex()),
        None => smart_signals::store_info(data_dir).map(|(_, k)| k),
    }
}

impl Drop for Engine {
    /// Leaves a snapshot of the newest state behind, so the next process to open the ledger
    /// replays only what was appended after this one closed, and marks every event this engine
    /// checked or wrote as verified, so the next open re-reads only what came after.
    fn drop(&mut self) {
        if self.key.is_err() {
            return;
        }
        if self.state.seq > self.snapshot_seq {
            self.save_snapshot();
        }
        if let Ok(Some(row)) = self.ledger.get(self.state.seq) {
            self.mark_verified(row.seq, &row.hash);
        }
    }
}

/// Kernel state: the snapshot where an authentic event vouches for it, then every event after
/// it, each checked (hash, link, seal) before it is applied — so an edited file cannot feed the
/// kernel a forged state. Without a usable snapshot, the same from genesis. `from` is a state the
/// caller already trusts and the hash of the row that recorded it, to carry on from instead.
/// Returns the state and the seq of the snapshot it started from (0 for none).
fn load_state(
    ledger: &Ledger,
    sealer: Option<&dyn HeadSigner>,
    from: Option<(KernelState, String)>,
) -> Result<(KernelState, u64), String> {
    let zero = Hash::ZERO.to_hex();
    let mut snapshot_seq = 0;
    let start = from.or_else(|| {
        let loaded = smart_ledger::vouched_snapshot(ledger, sealer);
        snapshot_seq = loaded.as_ref().map_or(0, |(s, _)| s.seq);
        loaded
    });
    let (mut state, mut prev) = start.unwrap_or_else(|| (KernelState::default(), zero));
    let mut current = state.hash().map_err(|e| e.to_string())?.to_hex();
    let mut err = None;
    ledger
        .for_each_from(state.seq + 1, |row| {
            let step = (|| {
                authentic(&row, &prev, sealer)?;
                if row.state_before != current {
                    return Err(format!("event {} was recorded against another state", row.seq));
                }
                state.apply_mut(&row.event()?, Millis(row.at_ms)).map_err(|e| e.to_string())?;
                current = state.hash().map_err(|e| e.to_string())?.to_hex();
                if current != row.state_after {
                    return Err(format!("event {} does not replay to its recorded state", row.seq));
                }
                Ok(())
            })();
            prev = row.hash;
            err = step.err();
            err.is_none()
        })
        .map_err(|e| e.to_string())?;
    match err {
        None => Ok((state, snapshot_seq)),
        Some(e) => Err(e),
    }
}
