//! The tools: the only code in SMART that touches the person's files.
//!
//! The kernel decides whether a call may run; this crate is what runs it. That split only keeps
//! its promise if the two halves agree exactly, so the crate holds both: the declarations the
//! kernel admits against ([`specs`]) and the executors that run what was admitted
//! ([`Executor`]). An executor accepts nothing but a [`smart_kernel::AdmittedCall`], whose paths
//! the kernel has already resolved and confined to the allowed roots, so no code path here can
//! run a call that skipped admission.
//!
//! Three rules shape every executor:
//! - Proposals are data. `propose.move` only writes a plan (an artifact); `apply.move` runs a
//!   plan the kernel verified is unchanged, and re-checks every file it is about to move.
//! - All or nothing. A mutation that fails part-way puts back what it already did, so the
//!   person never has to work out which half of a request happened.
//! - Undo is planned at the moment of doing. Every mutation returns the rollback data the
//!   kernel's undo needs, including what the files look like right after the call, so an undo
//!   that would overwrite a later change is refused before it starts.
//!
//! [`fs_world`] holds the two filesystem facts the kernel's `World` asks for (where a path
//! really points, and a content hash), so the host's `World` and the executors agree on them.

pub mod confine;
pub mod exec;
pub mod fs_world;
pub mod specs;

pub use exec::{Executor, Places, db_upsert_record as record, record_hash};
pub use fs_world::{content_hash, resolve};
pub use specs::specs;
