//! The kernel: the only component of SMART that can say yes.
//!
//! Everything else — the model that turns speech into a tool call, the retrieval library, the
//! evaluators, even the person's clicks — can only *propose*. This crate decides. It is written to
//! be boring: a fixed sequence of finite checks, an explicit stance transition table, and an
//! event-sourced state whose every change is a [`KernelEvent`] that the ledger stores and replay
//! re-applies.
//!
//! Architecture invariants (see ARCHITECTURE.md):
//! - No IO. Time arrives as [`Millis`] arguments, the filesystem as the [`World`] trait, and
//!   storage as events returned to the caller. The crate depends on nothing that opens a file,
//!   a socket or a clock.
//! - Deterministic: [`KernelState::apply`] is a pure function of (state, event, time, sequence);
//!   every map whose order can be observed is a `BTreeMap`; hashes are over canonical JSON.
//! - [`AdmittedCall`] can only be constructed here. Executors elsewhere accept nothing else, so a
//!   call that skipped admission cannot run.
//! - No panics: every failure is a value (a [`Refusal`], a [`KernelError`]).

pub mod approval;
pub mod bootstrap;
pub mod call;
pub mod canonical;
mod canonical_writer;
pub mod capability;
pub mod decay;
pub mod error;
pub mod event;
mod event_read;
pub mod gate_controller;
pub mod gate_proposal;
pub mod hashed_map;
pub mod input_bounds;
pub mod json_string;
pub mod kernel;
pub mod layer;
pub mod lease;
pub mod lthash;
pub mod memory;
pub mod orbit;
pub mod policy;
pub mod refusal;
pub mod scope;
pub mod slash_path;
pub mod stance;
pub mod state;
pub mod state_hash;
pub mod status;
pub mod tier;
pub mod time;
pub mod time_gate;
pub mod tool;
pub mod work_order;
pub mod world;

mod admission;

pub use approval::{Decision, SIGNAL_DOMAIN, UserSignal};
pub use call::{AdmittedCall, CallSource, ProposedCall, ResolvedCall};
pub use canonical::{Hash, canonical_bytes, hash_of};
pub use capability::Capability;
pub use error::KernelError;
pub use event::KernelEvent;
pub use gate_proposal::{GateProposal, GateSource, ProposedAction, ReadTrigger, Severity, SuggestedGate};
pub use kernel::{Kernel, Outcome};
pub use layer::Layer;
pub use lease::{Horizon, Lease, LeaseState};
pub use policy::Policy;
pub use refusal::{Refusal, RefusalCode};
pub use scope::ScopeToken;
pub use slash_path::slash_path;
pub use stance::{GateAct, Stance};
pub use state::KernelState;
pub use tier::Tier;
pub use time::Millis;
pub use tool::{Registry, Reversibility, ToolSpec};
pub use world::{Artifact, World, WorldError};
