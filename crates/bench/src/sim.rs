//! The workload: a real kernel with the real tool registry, an in-memory world, a real Ed25519
//! key, and a generator that produces a ledger's worth of decisions the way the runtime would.

use anyhow::{Context, Result, bail};
use ed25519_dalek::{Signer, SigningKey};
use serde_json::json;
use smart_kernel::kernel::{Decision, Outcome, ToolOutput};
use smart_kernel::lease::{Horizon, LeaseDraft};
use smart_kernel::orbit::ScopeRequest;
use smart_kernel::policy::{Budget, Gates, Monotone};
use smart_kernel::{
    AdmittedCall, Artifact, CallSource, GateAct, Hash, Kernel, KernelEvent, KernelState, Millis, Policy, ProposedCall,
    Registry, World, WorldError,
};
use smart_ledger::HeadSigner;
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// The allowed root every call works under.
pub const ROOT: &str = "/bench";

/// Logical start time (the kernel never reads a clock; time is an argument).
pub const T0: Millis = Millis(1_700_000_000_000);

/// A lease long enough for any epoch the bench runs (1 ms of logical time per call).
const LEASE_MS: u64 = 4 * 3_600_000;

pub fn bench_path(i: u64) -> String {
    format!("{ROOT}/f{i}")
}

/// The world as a map: lexical path resolution (no symlinks) and known file hashes.
#[derive(Default)]
pub struct MapWorld {
    pub files: BTreeMap<String, Hash>,
}

impl MapWorld {
    /// A world holding files `/bench/f0 .. /bench/f{n-1}`, each hashed over its own name.
    pub fn with_files(n: u64) -> MapWorld {
        let files = (0..n).map(|i| {
            let p = bench_path(i);
            let h = Hash::of_bytes(p.as_bytes());
            (p, h)
        });
        MapWorld { files: files.collect() }
    }
}

impl World for MapWorld {
    fn resolve(&self, raw: &str) -> Result<PathBuf, WorldError> {
        let mut out = PathBuf::from("/");
        for c in Path::new(raw).components() {
            match c {
                Component::Normal(n) => out.push(n),
                Component::ParentDir => {
                    out.pop();
                }
                _ => {}
            }
        }
        Ok(out)
    }

    fn file_hash(&self, path: &Path) -> Result<Option<Hash>, WorldError> {
        let key = path.to_str().ok_or_else(|| WorldError(format!("{} is not UTF-8", path.display())))?;
        Ok(self.files.get(key).copied())
    }

    fn artifact(&self, _hash: &Hash) -> Result<Option<Artifact>, WorldError> {
        Ok(None)
    }
}

/// The device key for the bench: a fixed Ed25519 key. Signs the head and seals events exactly as
/// `smart_signals::DeviceKey` does (same seal-key derivation, derived once), so the ledger's
/// costs are the production ones.
pub struct BenchKey {
    signing: SigningKey,
    seal: [u8; 32],
}

impl BenchKey {
    pub fn new() -> BenchKey {
        BenchKey {
            signing: SigningKey::from_bytes(&[7u8; 32]),
            seal: blake3::derive_key("smart ledger event seal v1", &[7u8; 32]),
        }
    }

    pub fn public_hex(&self) -> String {
        hex::encode(self.signing.verifying_key().to_bytes())
    }

    /// Stores this key in `data_dir` as `smart init` stores a device key in a file (the
    /// record naming the store, the secret in a 0600 file), so the engine opens with it.
    pub fn write_key_file(&self, data_dir: &std::path::Path) -> anyhow::Result<()> {
        use std::io::Write;
        let record = serde_json::json!({"store": "file", "account": "", "public_key": self.public_hex()});
        std::fs::write(data_dir.join("keystore.json"), serde_json::to_string_pretty(&record)?)?;
        let mut opts = std::fs::OpenOptions::new();
        opts.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.mode(0o600);
        }
        opts.open(data_dir.join("device.key"))?.write_all(hex::encode(self.signing.to_bytes()).as_bytes())?;
        Ok(())
    }
}

impl HeadSigner for BenchKey {
    fn sign_hex(&self, msg: &[u8]) -> String {
        hex::encode(self.signing.sign(msg).to_bytes())
    }

    fn seal_hex(&self, hash: &Hash) -> String {
        blake3::keyed_hash(&self.seal, &hash.0).to_hex().to_string()
    }

    fn seal_matches(&self, hash: &Hash, stored: &str) -> bool {
        blake3::keyed_hash(&self.seal, &hash.0).to_hex().as_str() == stored
    }

    fn detached(&self) -> Option<smart_ledger::cosign::Detached> {
        let signing = self.signing.clone();
        Some(Box::new(move |msg: &[u8]| hex::encode(signing.sign(msg).to_bytes())))
    }
}

/// Root `/bench`, every time gate 0, budget/steps/identical bounds that never bind: nothing but
/// the kernel's own checks decides.
pub fn policy() -> Policy {
    Policy {
        roots: vec![ROOT.to_string()],
        gates: Gates { after_l0_ms: 0, after_l1_ms: 0, after_l2_ms: 0, after_l3_ms: 0, l4_cooldown_ms: 0 },
        budget: Budget { per_lease: u64::MAX },
        monotone: Monotone { max_identical: u32::MAX, max_steps: u32::MAX },
        ..Policy::default()
    }
}

pub fn wall_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// A kernel, its state, a world and a key: the runtime minus the SQLite file.
pub struct Sim {
    pub kernel: Kernel,
    pub state: KernelState,
    pub world: MapWorld,
    pub key: BenchKey,
    pub now: Millis,
    /// Hash of `state`, when known (kept across hashed applies so each event hashes once).
    state_hash: Option<Hash>,
}

impl Sim {
    pub fn new(world: MapWorld) -> Result<Sim> {
        let registry = Registry::new(smart_tools::specs()).context("the real tool registry")?;
        Ok(Sim {
            kernel: Kernel::new(policy(), registry),
            state: KernelState::default(),
            world,
            key: BenchKey::new(),
            now: T0,
            state_hash: None,
        })
    }

    /// Genesis and a first scope token, applied (unhashed). For the in-memory benches.
    pub fn start(&mut self) -> Result<()> {
        let g = self.genesis()?;
        self.apply(&g)?;
        let d = self.issue_scope()?;
        self.apply(&d)
    }

    pub fn scope_id(&self) -> String {
        self.state.scope.as_ref().map(|t| t.id.to_hex()).unwrap_or_default()
    }

    /// An `fs.hash` call as the model would propose it.
    pub fn call(&self, path: &str) -> ProposedCall {
        ProposedCall {
            tool: "fs.hash".into(),
            args: json!({ "path": path }),
            scope_id: self.scope_id(),
            source: CallSource::Model,
            risk_hint: None,
            snapshot: None,
            work_order: None,
        }
    }

    /// Applies events at `now`, without hashing.
    pub fn apply(&mut self, events: &[KernelEvent]) -> Result<()> {
        self.state_hash = None;
        for ev in events {
            self.state.apply(ev, self.now)?;
        }
        Ok(())
    }

    /// Applies events at `now`, returning each one's (state before, state after) hash as the
    /// ledger records them.
    pub fn apply_hashed(&mut self, events: &[KernelEvent]) -> Result<Vec<(Hash, Hash)>> {
        let mut before = match self.state_hash {
            Some(h) => h,
            None => self.state.hash()?,
        };
        let mut out = Vec::with_capacity(events.len());
        for ev in events {
            self.state.apply(ev, self.now)?;
            let after = self.state.hash()?;
            out.push((before, after));
            before = after;
        }
        self.state_hash = Some(before);
        Ok(out)
    }

    pub fn genesis(&self) -> Result<Vec<KernelEvent>> {
        Ok(vec![self.kernel.genesis(&self.key.public_hex())?])
    }

    pub fn issue_scope(&self) -> Result<Vec<KernelEvent>> {
        let d = self.kernel.issue_scope(&self.state, &ScopeRequest::default(), self.now)?;
        done(d, "scope issue")
    }

    pub fn draft(&self) -> Result<Vec<KernelEvent>> {
        let draft = LeaseDraft {
            frame: "hash every file in the bench folder".into(),
            horizon: Horizon::Short,
            duration_ms: LEASE_MS,
            success_criteria: vec!["every file has a recorded hash".into()],
            non_goals: vec![],
            renewal_prompt: String::new(),
        };
        done(self.kernel.draft_lease(&self.state, draft, self.now)?, "lease draft")
    }

    pub fn gate(&self, act: GateAct) -> Result<Vec<KernelEvent>> {
        done(self.kernel.gate(&self.state, act, self.now)?, "gate")
    }

    /// Draft + commitment: a new lease epoch (frontier, budget, steps and repeats reset).
    pub fn open_epoch(&mut self) -> Result<()> {
        let d = self.draft()?;
        self.apply(&d)?;
        let c = self.gate(GateAct::Commitment)?;
        self.apply(&c)
    }

    /// Evaluate + release: the lease ends, stance back to Sensemaking.
    pub fn close_epoch(&mut self) -> Result<()> {
        let e = self.gate(GateAct::Evaluate)?;
        self.apply(&e)?;
        let r = self.gate(GateAct::Release)?;
        self.apply(&r)
    }

    /// The receipt an `fs.hash` executor would produce for `path`.
    pub fn receipt(&self, admitted: &AdmittedCall, path: &str, i: u64) -> KernelEvent {
        let out = ToolOutput {
            output: json!({ "path": path, "blake3": Hash::of_bytes(path.as_bytes()).to_hex(), "size": 1_000 + (i % 100_000) }),
            artifact: None,
            rollback: None,
            duration_ms: 1,
        };
        self.kernel.receipt(admitted, Ok(out))
    }
}

fn done(d: Decision, what: &str) -> Result<Vec<KernelEvent>> {
    match d.outcome {
        Outcome::Done => Ok(d.events),
        Outcome::Refused(r) => bail!("{what} refused: {}: {}", r.code, r.reason),
        other => bail!("{what}: unexpected outcome {other:?}"),
    }
}

/// One decision as the ledger stores it.
pub struct Row {
    pub corr: String,
    pub event: KernelEvent,
    pub at: Millis,
    pub wall_ms: u64,
    pub before: Hash,
    pub after: Hash,
}

/// Produces exactly the number of events asked for, through the real kernel: genesis, a scope
/// token, then lease epochs of `epoch` `fs.hash` calls (propose → proposed + admitted; receipt →
/// committed), each epoch opened by draft + commitment and closed by evaluate + release. With
/// `epoch == 0` there is no lease and all calls fall in one epoch. The last few events are
/// filled with a refused call (2 events) or a scope re-issue (1) so the count is exact.
pub struct Generator {
    pub sim: Sim,
    epoch: u64,
    in_lease: bool,
    epoch_calls: u64,
    pub calls: u64,
    units: u64,
    /// Events per kind produced so far.
    pub kinds: BTreeMap<&'static str, u64>,
}

impl Generator {
    pub fn new(epoch: u64) -> Result<Generator> {
        Ok(Generator {
            sim: Sim::new(MapWorld::default())?,
            epoch,
            in_lease: false,
            epoch_calls: 0,
            calls: 0,
            units: 0,
            kinds: BTreeMap::new(),
        })
    }

    pub fn seq(&self) -> u64 {
        self.sim.state.seq
    }

    fn corr(&self) -> String {
        blake3::hash(&self.units.to_le_bytes()).to_hex()[..16].to_string()
    }

    /// Applies one decision's events (hashed) and appends them to `out`.
    fn push(&mut self, corr: &str, events: Vec<KernelEvent>, out: &mut Vec<Row>) -> Result<()> {
        let hashes = self.sim.apply_hashed(&events)?;
        let wall = wall_ms();
        for (event, (before, after)) in events.into_iter().zip(hashes) {
            *self.kinds.entry(event.kind()).or_insert(0) += 1;
            out.push(Row { corr: corr.to_string(), event, at: self.sim.now, wall_ms: wall, before, after });
        }
        Ok(())
    }

    /// The next unit of work (one or more decisions), using at most `remaining` events.
    pub fn next(&mut self, remaining: u64, out: &mut Vec<Row>) -> Result<()> {
        if remaining == 0 {
            return Ok(());
        }
        self.units += 1;
        let corr = self.corr();
        let start = out.len();
        let expected: usize;
        if self.seq() == 0 {
            let g = self.sim.genesis()?;
            self.push(&corr, g, out)?;
            expected = 1;
        } else if self.sim.state.scope.is_none() {
            let s = self.sim.issue_scope()?;
            self.push(&corr, s, out)?;
            expected = 1;
        } else if self.epoch > 0 && self.in_lease && (self.epoch_calls >= self.epoch || remaining < 8) && remaining >= 5
        {
            let e = self.sim.gate(GateAct::Evaluate)?;
            self.push(&corr, e, out)?;
            let r = self.sim.gate(GateAct::Release)?;
            self.push(&corr, r, out)?;
            self.in_lease = false;
            expected = 5;
        } else if self.epoch > 0 && !self.in_lease && remaining >= 13 {
            let d = self.sim.draft()?;
            self.push(&corr, d, out)?;
            let c = self.sim.gate(GateAct::Commitment)?;
            self.push(&corr, c, out)?;
            self.in_lease = true;
            self.epoch_calls = 0;
            expected = 5;
        } else if remaining >= 3 {
            self.sim.now = self.sim.now.plus(1);
            let path = bench_path(self.calls);
            let d = self.sim.kernel.propose(&self.sim.state, self.sim.call(&path), self.sim.now, &self.sim.world)?;
            let Outcome::Admitted(admitted) = d.outcome else {
                bail!("fs.hash {path} was not admitted: {:?}", d.outcome);
            };
            self.push(&corr, d.events, out)?;
            let receipt = self.sim.receipt(&admitted, &path, self.calls);
            self.push(&corr, vec![receipt], out)?;
            self.calls += 1;
            self.epoch_calls += 1;
            expected = 3;
        } else if remaining == 2 {
            let d = self.sim.kernel.propose(
                &self.sim.state,
                self.sim.call("/outside/filler"),
                self.sim.now,
                &self.sim.world,
            )?;
            if !matches!(d.outcome, Outcome::Refused(_)) {
                bail!("the filler call outside the roots was not refused: {:?}", d.outcome);
            }
            self.push(&corr, d.events, out)?;
            expected = 2;
        } else {
            let s = self.sim.issue_scope()?;
            self.push(&corr, s, out)?;
            expected = 1;
        }
        let got = out.len() - start;
        if got != expected {
            bail!(
                "a workload unit produced {got} events, the plan counts {expected}: the kernel's decisions changed shape; update the bench"
            );
        }
        Ok(())
    }

    /// Exactly `n` events, in memory.
    pub fn events(&mut self, n: u64) -> Result<Vec<Row>> {
        let mut out = Vec::with_capacity(n as usize);
        while self.seq() < n {
            self.next(n - self.seq(), &mut out)?;
        }
        Ok(out)
    }
}
