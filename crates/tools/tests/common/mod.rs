//! A real kernel over a real temporary folder: the tools' declarations in its registry, a
//! `World` backed by `fs_world` plus an in-memory artifact store, a real Ed25519 device key, and
//! helpers that run calls the way the runtime does (propose → execute → receipt → apply).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ed25519_dalek::{Signer, SigningKey};
use serde_json::{Value, json};
use smart_kernel::kernel::{Decision, ToolOutput};
use smart_kernel::lease::LeaseDraft;
use smart_kernel::orbit::ScopeRequest;
use smart_kernel::policy::Gates;
use smart_kernel::*;
use smart_tools::{Executor, Places, content_hash, resolve, specs};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

#[derive(Default)]
pub struct FsWorld {
    pub artifacts: BTreeMap<Hash, Artifact>,
    /// The record store the executor's `db.upsert` writes.
    pub records: PathBuf,
}

impl World for FsWorld {
    fn resolve(&self, raw: &str) -> Result<PathBuf, WorldError> {
        resolve(raw)
    }
    fn file_hash(&self, path: &Path) -> Result<Option<Hash>, WorldError> {
        content_hash(path)
    }
    fn sensitive_within(&self, path: &Path, sensitive: &dyn Fn(&str) -> bool) -> Result<Option<PathBuf>, WorldError> {
        smart_tools::fs_world::sensitive_within(path, sensitive)
    }
    fn artifact(&self, hash: &Hash) -> Result<Option<Artifact>, WorldError> {
        Ok(self.artifacts.get(hash).cloned())
    }
    fn record_hash(&self, id: &str) -> Result<Option<Hash>, WorldError> {
        let (c, k) = id.split_once('/').ok_or_else(|| WorldError(format!("bad record id {id}")))?;
        smart_tools::record_hash(&self.records, c, k).map_err(WorldError)
    }
}

/// The places an executor uses under a test's temporary folder.
pub fn places(root: &Path, qdir: &Path, data: &Path) -> Places {
    Places {
        roots: vec![root.to_path_buf()],
        quarantine: qdir.to_path_buf(),
        index: data.join("index.db"),
        records: data.join("records.db"),
        steps: Some(data.join("in-flight")),
    }
}

/// Why a call did not produce an output.
#[derive(Debug)]
pub enum Fail {
    Refused(RefusalCode, String),
    Failed(String),
}

impl Fail {
    pub fn failed(self) -> String {
        match self {
            Fail::Failed(why) => why,
            other => panic!("expected the executor to fail, got {other:?}"),
        }
    }
    pub fn refused(self) -> RefusalCode {
        match self {
            Fail::Refused(code, _) => code,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }
}

/// A committed call: its output and the sequence of its `committed` event.
#[derive(Debug)]
pub struct Done {
    pub output: Value,
    pub seq: u64,
}

pub struct Harness {
    pub tmp: TempDir,
    /// The allowed root (canonical).
    pub root: PathBuf,
    /// Outside the root: where quarantined files go.
    pub qdir: PathBuf,
    /// Outside the root: the index and the record store.
    pub data: PathBuf,
    pub kernel: Kernel,
    pub state: KernelState,
    pub world: FsWorld,
    pub key: SigningKey,
    pub exec: Executor,
    pub now: Millis,
    pub log: Vec<KernelEvent>,
    nonces: u64,
}

impl Harness {
    pub fn new() -> Harness {
        Harness::with_specs(specs())
    }

    pub fn with_specs(tools: Vec<ToolSpec>) -> Harness {
        let tmp = tempfile::tempdir().unwrap();
        let base = dunce::canonicalize(tmp.path()).unwrap();
        let root = base.join("root");
        fs::create_dir(&root).unwrap();
        let qdir = base.join("quarantine");
        let data = base.join("data");
        fs::create_dir(&data).unwrap();
        let gates = Gates { after_l0_ms: 0, after_l1_ms: 0, after_l2_ms: 0, after_l3_ms: 0, l4_cooldown_ms: 0 };
        let policy = Policy { roots: vec![root.to_str().unwrap().to_string()], gates, ..Policy::default() };
        let kernel = Kernel::new(policy, Registry::new(tools).unwrap());
        let key = SigningKey::from_bytes(&[7u8; 32]);
        let exec = Executor::new(places(&root, &qdir, &data)).with_now(1_700_000_000_000);
        let mut h = Harness {
            tmp,
            root,
            exec,
            qdir,
            data: data.clone(),
            kernel,
            state: KernelState::default(),
            world: FsWorld { records: data.join("records.db"), ..FsWorld::default() },
            key,
            now: Millis(1_700_000_000_000),
            log: vec![],
            nonces: 0,
        };
        let g = h.kernel.genesis(&hex::encode(h.key.verifying_key().to_bytes())).unwrap();
        h.apply_events(vec![g]);
        let d = h.kernel.issue_scope(&h.state, &ScopeRequest::default(), h.now).unwrap();
        h.apply(d);
        h
    }

    /// An absolute path under the root, as a string.
    pub fn p(&self, rel: &str) -> String {
        self.at(rel).to_str().unwrap().to_string()
    }

    /// `rel` is `/`-separated; the path has the system's separators (Windows takes `/` too, but
    /// the kernel and the tools report paths as the system writes them).
    pub fn at(&self, rel: &str) -> PathBuf {
        rel.split('/').filter(|c| !c.is_empty()).fold(self.root.clone(), |p, c| p.join(c))
    }

    /// Writes a file under the root, creating its folders.
    pub fn write(&self, rel: &str, bytes: &[u8]) {
        let path = self.root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }

    pub fn read(&self, rel: &str) -> Vec<u8> {
        fs::read(self.root.join(rel)).unwrap()
    }

    pub fn exists(&self, rel: &str) -> bool {
        fs::symlink_metadata(self.root.join(rel)).is_ok()
    }

    /// The hash of the whole root tree: equal hashes mean nothing under the root changed.
    pub fn snapshot(&self) -> Hash {
        content_hash(&self.root).unwrap().unwrap()
    }

    fn apply_events(&mut self, events: Vec<KernelEvent>) {
        for ev in events {
            self.state.apply(&ev, self.now).unwrap();
            self.log.push(ev);
        }
    }

    pub fn apply(&mut self, d: Decision) -> Outcome {
        self.apply_events(d.events);
        d.outcome
    }

    pub fn call(&self, tool: &str, args: Value) -> ProposedCall {
        let scope_id = self.state.scope.as_ref().map(|t| t.id.to_hex()).unwrap_or_default();
        ProposedCall {
            tool: tool.into(),
            args,
            scope_id,
            source: CallSource::Person,
            risk_hint: None,
            snapshot: None,
            work_order: None,
        }
    }

    /// Proposes a call; a Tier 3 call is approved with a signed signal; an admitted call is run
    /// by the executor and its receipt applied.
    pub fn run(&mut self, tool: &str, args: Value) -> Result<Done, Fail> {
        self.now = self.now.plus(1);
        let c = self.call(tool, args);
        let d = self.kernel.propose(&self.state, c, self.now, &self.world).unwrap();
        let admitted = match self.apply(d) {
            Outcome::Admitted(a) => a,
            Outcome::Pending { id, .. } => {
                let hash = self.state.pending.get(&id).unwrap().call.hash;
                let s = self.signal(&id, hash);
                let d = self.kernel.signal(&self.state, s, self.now, &self.world).unwrap();
                match self.apply(d) {
                    Outcome::Admitted(a) => a,
                    Outcome::Refused(r) => return Err(Fail::Refused(r.code, r.reason)),
                    other => panic!("approval gave {other:?}"),
                }
            }
            Outcome::Refused(r) => return Err(Fail::Refused(r.code, r.reason)),
            Outcome::Done => panic!("a proposal was answered with Done"),
        };
        self.execute(&admitted)
    }

    fn execute(&mut self, a: &AdmittedCall) -> Result<Done, Fail> {
        let result = self.exec.execute(a);
        let failed = result.as_ref().err().cloned();
        if let Ok(out) = &result
            && let Some(artifact) = &out.artifact
        {
            self.world.artifacts.insert(hash_of(artifact).unwrap(), artifact.clone());
        }
        let output = result.as_ref().map(|o: &ToolOutput| o.output.clone()).unwrap_or(Value::Null);
        let ev = self.kernel.receipt(a, result);
        self.apply_events(vec![ev]);
        match failed {
            Some(why) => Err(Fail::Failed(why)),
            None => Ok(Done { output, seq: self.state.seq }),
        }
    }

    /// Undoes the committed call at `seq` through the kernel.
    pub fn undo(&mut self, seq: u64) -> Result<Done, Fail> {
        self.now = self.now.plus(1);
        let committed = self.log[(seq - 1) as usize].clone();
        let d = self.kernel.propose_undo(&self.state, seq, &committed, self.now, &self.world).unwrap();
        match self.apply(d) {
            Outcome::Admitted(a) => {
                assert_eq!(a.tool(), "undo");
                self.execute(&a)
            }
            Outcome::Refused(r) => Err(Fail::Refused(r.code, r.reason)),
            other => panic!("undo gave {other:?}"),
        }
    }

    pub fn signal(&mut self, pending_id: &str, call_hash: Hash) -> UserSignal {
        self.nonces += 1;
        let mut s = UserSignal {
            pending_id: pending_id.into(),
            call_hash: Some(call_hash),
            nonce: format!("{:032x}", self.nonces),
            issued_at: self.now,
            expires_at: self.now.plus(60_000),
            decision: smart_kernel::Decision::Approve,
            public_key: hex::encode(self.key.verifying_key().to_bytes()),
            signature: None,
        };
        let sig = self.key.sign(&s.signing_bytes().unwrap());
        s.signature = Some(hex::encode(sig.to_bytes()));
        s
    }

    /// Drafts a lease and passes the commitment gate: stance Execution, mutation permitted.
    pub fn commit_lease(&mut self) {
        let draft = LeaseDraft {
            frame: "tidy the folder".into(),
            horizon: Horizon::Short,
            duration_ms: 3_600_000,
            success_criteria: vec![],
            non_goals: vec![],
            renewal_prompt: String::new(),
        };
        let d = self.kernel.draft_lease(&self.state, draft, self.now).unwrap();
        assert!(matches!(self.apply(d), Outcome::Done));
        let d = self.kernel.gate(&self.state, GateAct::Commitment, self.now).unwrap();
        assert!(matches!(self.apply(d), Outcome::Done));
        assert_eq!(self.state.stance, Stance::Execution);
    }

    /// Commits a lease and climbs to L1 (a scan and a duplicate search of the root).
    pub fn climb_to_l1(&mut self) {
        self.commit_lease();
        let root = self.root.to_str().unwrap().to_string();
        self.run("fs.scan", json!({"path": root})).unwrap();
        self.run("cluster.duplicates", json!({"path": root})).unwrap();
        assert_eq!(self.state.frontier, Layer::L1);
    }

    /// Proposes a plan and returns its artifact hash.
    pub fn propose_moves(&mut self, moves: &[(&str, &str)]) -> Result<String, Fail> {
        let list: Vec<Value> = moves.iter().map(|(f, t)| json!({"from": self.p(f), "to": self.p(t)})).collect();
        let done = self.run("propose.move", json!({ "moves": list }))?;
        Ok(done.output["artifact"].as_str().unwrap().to_string())
    }

    /// Climbs to L3 with a real move of a file of its own (`climb/seed` → `climb/seed.moved`).
    pub fn climb_to_l3(&mut self) {
        self.climb_to_l1();
        self.write("climb/seed", b"seed");
        let plan = self.propose_moves(&[("climb/seed", "climb/seed.moved")]).unwrap();
        self.run("apply.move", json!({ "proposal": plan })).unwrap();
        assert_eq!(self.state.frontier, Layer::L3);
    }
}
