//! A kernel harness: an in-memory world, a small tool set covering every layer, a real Ed25519
//! device key, and helpers that apply decisions the way the runtime does.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use ed25519_dalek::{Signer, SigningKey};
use serde_json::{Value, json};
use smart_kernel::kernel::{Decision, ToolOutput};
use smart_kernel::orbit::ScopeRequest;
use smart_kernel::*;
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

#[derive(Default, Clone)]
pub struct MapWorld {
    pub files: BTreeMap<String, Hash>,
    /// Symlinks: path → target.
    pub links: BTreeMap<String, String>,
    pub artifacts: BTreeMap<Hash, Artifact>,
}

impl World for MapWorld {
    fn resolve(&self, raw: &str) -> Result<PathBuf, WorldError> {
        let mut out = PathBuf::new();
        for c in Path::new(raw).components() {
            match c {
                Component::Prefix(_) | Component::RootDir => out.push(c.as_os_str()),
                Component::Normal(n) => {
                    out.push(n);
                    if let Some(t) = self.links.get(out.to_str().unwrap()) {
                        out = PathBuf::from(t);
                    }
                }
                Component::ParentDir => {
                    out.pop();
                }
                _ => {}
            }
        }
        Ok(out)
    }
    fn file_hash(&self, path: &Path) -> Result<Option<Hash>, WorldError> {
        Ok(self.files.get(path.to_str().unwrap()).copied())
    }
    fn artifact(&self, hash: &Hash) -> Result<Option<Artifact>, WorldError> {
        Ok(self.artifacts.get(hash).cloned())
    }
}

/// A path of the test world, written as on Unix (`/r/a.txt`): the same path on Unix, and on
/// Windows on drive C: (`C:\r\a.txt`) — a path without a drive is not absolute there, so the
/// kernel would rightly refuse it.
pub fn abs(unix: &str) -> String {
    if cfg!(windows) { format!("C:{}", unix.replace('/', "\\")) } else { unix.to_string() }
}

pub fn tool(name: &str, layer: Layer, rev: Reversibility, cap: &str) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        description: String::new(),
        layer,
        reversibility: rev,
        cost: 1,
        expected_ms: 1,
        capabilities: vec![cap.parse().unwrap()],
        args_schema: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"], "additionalProperties": false}),
        path_args: vec!["path".into()],
        artifact_arg: None,
        artifact_paths: vec![],
    }
}

pub fn registry() -> Registry {
    let mut apply = tool("t.apply_plan", Layer::L3, Reversibility::Reversible, "fs:move:*");
    apply.args_schema =
        json!({"type": "object", "properties": {"proposal": {"type": "string"}}, "required": ["proposal"]});
    apply.path_args = vec![];
    apply.artifact_arg = Some("proposal".into());
    apply.artifact_paths = vec!["moves/*/from".into(), "moves/*/to".into()];
    Registry::new(vec![
        tool("t.l0", Layer::L0, Reversibility::ReadOnly, "fs:read:*"),
        tool("t.l1", Layer::L1, Reversibility::ReadOnly, "fs:read:*"),
        tool("t.l2", Layer::L2, Reversibility::ProposeOnly, "plan:write:*"),
        tool("t.l3", Layer::L3, Reversibility::Reversible, "fs:move:*"),
        tool("t.l4", Layer::L4, Reversibility::Reversible, "fs:quarantine:*"),
        apply,
        tool("net.get", Layer::L0, Reversibility::ReadOnly, "net:http:*"),
    ])
    .unwrap()
}

pub fn policy() -> Policy {
    Policy { roots: vec![abs("/r")], ..Policy::default() }
}

pub const T0: Millis = Millis(1_700_000_000_000);

pub struct Harness {
    pub kernel: Kernel,
    pub state: KernelState,
    pub world: MapWorld,
    pub key: SigningKey,
    pub now: Millis,
    /// Every event applied, with its time: the ledger, in memory.
    pub log: Vec<(KernelEvent, Millis)>,
}

impl Harness {
    pub fn new() -> Harness {
        Harness::with(policy())
    }

    pub fn with(policy: Policy) -> Harness {
        let kernel = Kernel::new(policy, registry());
        let key = SigningKey::from_bytes(&[7u8; 32]);
        let mut h =
            Harness { kernel, state: KernelState::default(), world: MapWorld::default(), key, now: T0, log: vec![] };
        let g = h.kernel.genesis(&hex::encode(h.key.verifying_key().to_bytes())).unwrap();
        h.apply_all(vec![g]);
        let d = h.kernel.issue_scope(&h.state, &ScopeRequest::default(), h.now).unwrap();
        h.apply(d);
        h.world.files.insert(abs("/r/a.txt"), Hash::of_bytes(b"a"));
        h
    }

    pub fn apply_all(&mut self, events: Vec<KernelEvent>) {
        for ev in events {
            self.state.apply(&ev, self.now).unwrap();
            self.log.push((ev, self.now));
        }
    }

    pub fn apply(&mut self, d: Decision) -> Outcome {
        self.apply_all(d.events);
        d.outcome
    }

    pub fn advance(&mut self, ms: u64) {
        self.now = self.now.plus(ms);
    }

    pub fn scope_id(&self) -> String {
        self.state.scope.as_ref().map(|t| t.id.to_hex()).unwrap_or_default()
    }

    pub fn call(&self, tool: &str, args: Value) -> ProposedCall {
        ProposedCall {
            tool: tool.into(),
            args,
            scope_id: self.scope_id(),
            source: CallSource::Script,
            risk_hint: None,
            snapshot: None,
            work_order: None,
        }
    }

    /// Proposes and, if admitted, commits with an empty output.
    pub fn propose(&mut self, call: ProposedCall) -> Outcome {
        let d = self.kernel.propose(&self.state, call, self.now, &self.world).unwrap();
        let outcome = self.apply(d);
        if let Outcome::Admitted(a) = &outcome {
            self.commit(a, ToolOutput { rollback: Some(json!({"inputs": {}})), ..ToolOutput::default() });
        }
        outcome
    }

    pub fn commit(&mut self, a: &AdmittedCall, out: ToolOutput) {
        let ev = self.kernel.receipt(a, Ok(out));
        self.apply_all(vec![ev]);
    }

    pub fn run(&mut self, tool: &str) -> Outcome {
        let c = self.call(tool, json!({"path": abs("/r/a.txt")}));
        self.propose(c)
    }

    pub fn gate(&mut self, act: GateAct) -> Outcome {
        let d = self.kernel.gate(&self.state, act, self.now).unwrap();
        self.apply(d)
    }

    /// Drafts a 1-hour lease ("tidy the docs folder"); returns the kernel's outcome.
    pub fn draft_lease(&mut self) -> Outcome {
        let draft = smart_kernel::lease::LeaseDraft {
            frame: "tidy the docs folder".into(),
            horizon: Horizon::Short,
            duration_ms: 3_600_000,
            success_criteria: vec![],
            non_goals: vec![],
            renewal_prompt: String::new(),
        };
        let d = self.kernel.draft_lease(&self.state, draft, self.now).unwrap();
        self.apply(d)
    }

    /// Drafts a 1-hour lease and passes the commitment gate: stance Execution.
    pub fn commit_lease(&mut self) {
        assert!(matches!(self.draft_lease(), Outcome::Done));
        assert!(matches!(self.gate(GateAct::Commitment), Outcome::Done));
        assert_eq!(self.state.stance, Stance::Execution);
    }

    /// Climbs L0 → L3 with the gates waited out, ready for an L4 call.
    pub fn climb_to_l3(&mut self) {
        for (tool, wait) in [("t.l0", 0), ("t.l1", 0), ("t.l2", 2_000), ("t.l3", 5_000)] {
            self.advance(wait);
            assert!(matches!(self.run(tool), Outcome::Admitted(_)), "{tool}");
        }
        self.advance(15_000);
    }

    pub fn signal(&self, pending_id: &str, call_hash: Option<Hash>, decision: Decision_) -> UserSignal {
        let mut s = UserSignal {
            pending_id: pending_id.into(),
            call_hash,
            nonce: hex::encode(&Hash::of_bytes(format!("{pending_id}{}{:?}", self.now.0, decision).as_bytes()).0[..16]),
            issued_at: self.now,
            expires_at: self.now.plus(60_000),
            decision: decision.0,
            public_key: hex::encode(self.key.verifying_key().to_bytes()),
            signature: None,
        };
        sign(&mut s, &self.key);
        s
    }

    pub fn pending_hash(&self, id: &str) -> Hash {
        self.state.pending.get(id).unwrap().call.hash
    }

    /// Replays the in-memory log from nothing and returns the final state hash.
    pub fn replayed_hash(&self) -> Hash {
        let mut s = KernelState::default();
        for (ev, at) in &self.log {
            s.apply(ev, *at).unwrap();
        }
        s.hash().unwrap()
    }
}

#[derive(Copy, Clone, Debug)]
pub struct Decision_(pub smart_kernel::Decision);
pub const APPROVE: Decision_ = Decision_(smart_kernel::Decision::Approve);
pub const DENY: Decision_ = Decision_(smart_kernel::Decision::Deny);
pub const STOP: Decision_ = Decision_(smart_kernel::Decision::Emergency);

pub fn sign(s: &mut UserSignal, key: &SigningKey) {
    let sig = key.sign(&s.signing_bytes().unwrap());
    s.signature = Some(hex::encode(sig.to_bytes()));
}

pub fn refused(o: &Outcome) -> RefusalCode {
    match o {
        Outcome::Refused(r) => r.code,
        other => panic!("expected a refusal, got {other:?}"),
    }
}
