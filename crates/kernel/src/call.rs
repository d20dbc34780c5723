//! The three shapes a tool call takes on its way through the kernel.
//!
//! - [`ProposedCall`]: what a proposer (the model, the person, a script) asks for. Untrusted.
//! - [`ResolvedCall`]: the same call after the kernel validated it and resolved its paths, with
//!   the hash that identifies it from then on (what the person approves, what repeats count).
//! - [`AdmittedCall`]: a resolved call the kernel said yes to. Its constructor is private to this
//!   crate, so holding one is proof of admission; executors accept nothing else.

use crate::canonical::{Hash, hash_of};
use crate::layer::Layer;
use crate::tier::Tier;
use crate::tool::Reversibility;
use crate::world::Artifact;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Who is asking. Recorded, never trusted: the kernel's checks are the same for everyone.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum CallSource {
    #[default]
    Person,
    Model,
    Script,
    /// The phrase-template proposer: no model, but no more authority than one.
    Template,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProposedCall {
    pub tool: String,
    pub args: Value,
    /// The scope token the proposer was given by Orbit.
    pub scope_id: String,
    #[serde(default)]
    pub source: CallSource,
    /// A model's or classifier's risk opinion. It may only raise the tier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk_hint: Option<u8>,
    /// Path → content hash the proposer saw; if given, it must still hold (snapshot freshness).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<BTreeMap<String, Hash>>,
    /// The scoped work order proposing it: admitted only within the order's scope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work_order: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResolvedCall {
    pub tool: String,
    pub layer: Layer,
    pub reversibility: Reversibility,
    pub cost: u64,
    /// Arguments with every path replaced by its canonical absolute form.
    pub args: Value,
    /// The resolved paths, in argument order.
    pub paths: Vec<String>,
    /// The artifact this call consumes, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact: Option<Hash>,
    /// blake3 over (tool, args): what approvals are bound to and repeats are counted by.
    pub hash: Hash,
}

impl ResolvedCall {
    pub(crate) fn hash_parts(tool: &str, args: &Value) -> Result<Hash, serde_json::Error> {
        hash_of(&serde_json::json!({ "tool": tool, "args": args }))
    }
}

/// A call the kernel admitted. Only the kernel can make one.
#[derive(Clone, Debug, PartialEq)]
pub struct AdmittedCall {
    call: ResolvedCall,
    tier: Tier,
    artifact: Option<Artifact>,
    /// Content hashes of the call's input files at admission (the snapshot it runs against).
    inputs: BTreeMap<String, Option<Hash>>,
}

impl AdmittedCall {
    pub(crate) fn new(
        call: ResolvedCall,
        tier: Tier,
        artifact: Option<Artifact>,
        inputs: BTreeMap<String, Option<Hash>>,
    ) -> Self {
        AdmittedCall { call, tier, artifact, inputs }
    }

    pub fn call(&self) -> &ResolvedCall {
        &self.call
    }

    pub fn tool(&self) -> &str {
        &self.call.tool
    }

    pub fn args(&self) -> &Value {
        &self.call.args
    }

    pub fn hash(&self) -> Hash {
        self.call.hash
    }

    pub fn tier(&self) -> Tier {
        self.tier
    }

    /// The verified artifact body, for tools that apply a proposal.
    pub fn artifact(&self) -> Option<&Artifact> {
        self.artifact.as_ref()
    }

    pub fn inputs(&self) -> &BTreeMap<String, Option<Hash>> {
        &self.inputs
    }
}
