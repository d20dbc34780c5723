//! Everything in SMART that may only advise.
//!
//! Seed 001's hardest line is "evaluators and classifiers propose only; never decide". This
//! crate holds every part of the slow loop that *looks* at the conversation — the
//! [`evaluator`] that notices drift and friction, [`perception`] and its contrast report, and
//! the [`read_policy`] that builds an understanding before the assistant asks anything — and
//! makes the line structural: the crate depends on the kernel only for its types, has no
//! ledger and no runtime, and every public function returns data — gate proposals, signal
//! suggestions, a reply text. Whatever it says reaches the agent's state only if the runtime
//! hands it to the kernel, where the gate controller judges it.
//!
//! Architecture invariant: nothing here takes `&mut` of kernel state or returns a kernel event.

pub mod evaluator;
pub mod perception;
pub mod read_policy;

pub use evaluator::{Finding, TurnOutcome, TurnRecord, evaluate};
pub use perception::{ContrastReport, PerceptionReport, Reports};
pub use read_policy::{Inquiry, Source, infer};
