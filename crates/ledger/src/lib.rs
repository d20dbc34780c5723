//! The ledger: every kernel event, in order, hash-chained, in one SQLite file.
//!
//! The ledger is how SMART earns trust with someone's files: every proposal, refusal, admission,
//! approval and receipt is here, nothing can be edited or removed without `verify` naming the
//! first sequence where the story breaks, and `replay` rebuilds the kernel's state from these
//! events alone and checks it against the state hashes recorded at the time.
//!
//! Layers of protection, each catching what the one before cannot:
//! 1. SQL triggers refuse UPDATE and DELETE on the event table (honest mistakes, other tools).
//! 2. Each event's hash covers its content and the previous hash (edits, deletions, reordering).
//! 3. A head record signed with the device key vouches for the last sequence (truncation).
//! 4. An anchor outside the file repeats the signed head (a file taken back in time: `anchor`).
//! 5. User signals carry Ed25519 signatures checked against the genesis key, and the genesis key
//!    is compared with the device's own key where it is available (a rewritten history).

pub mod anchor;
pub mod cosign;
pub mod inspect;
pub mod query;
pub mod record;
pub mod replay;
pub mod store;
pub mod verified;
pub mod verify;

mod migrations;
#[cfg(test)]
mod test_support;

pub use anchor::Anchor;
pub use inspect::{EventCheck, inspect};
pub use query::{ActivityBucket, EventFilter, SessionSummary, tool_of};
pub use record::{NewEvent, StoredEvent};
pub use replay::{ReplayReport, replay, replay_from_snapshot, vouched_snapshot};
pub use store::{HeadSigner, Ledger, LedgerError, ReadSnapshot};
pub use verified::Mark;
pub use verify::{Depth, VerifyReport, verify, verify_from, verify_to};
