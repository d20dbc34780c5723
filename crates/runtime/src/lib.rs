//! The runtime: where the pure kernel meets disks, keys and clocks.
//!
//! The kernel decides and returns events; the ledger stores them; executors touch files. Someone
//! has to hold them together in the right order, and that order is the safety argument:
//!
//! 1. Read the clock once per operation and hand that time to the kernel.
//! 2. Ask the kernel for a decision.
//! 3. Append the decision's events and the state hashes around each, atomically, *before*
//!    anything runs. A call that is not in the ledger did not happen.
//! 4. Only for an admitted call: run the executor, then append the receipt.
//!
//! If the process dies between 3 and 4, the next open finds the call in flight and records it
//! as interrupted — the ledger never claims a result it did not see.
//!
//! [`Engine`] is used by the `smart` CLI and by the desktop app alike.
//!
//! Around it sits the interaction layer: the [`assistant`] that carries one utterance from the
//! proposers to the kernel, the supervised model [`worker`], the [`interaction`] state machine
//! and the event [`bus`] that reports each step.

pub mod assistant;
pub mod bus;
pub mod chain_check;
pub mod clock;
pub mod engine;
pub mod error;
pub mod in_flight;
pub mod interaction;
pub mod library;
pub mod model_choice;
pub mod outcome;
pub mod paths;
pub mod process;
pub mod quarantine;
pub mod rehearing;
pub mod slow_loop;
pub mod summary;
pub mod turn_id;
pub mod understanding;
pub mod voice;
pub mod voice_turns;
pub mod watch;
pub mod worker;
pub mod world;

pub use assistant::{Assistant, AssistantError, SayOptions, SayReport};
pub use bus::{Bus, BusEvent, Envelope};
pub use clock::{Clock, FixedClock, ManualClock, SystemClock};
pub use engine::{CallReport, Engine, InitOptions, InitReport, sealer};
pub use error::RuntimeError;
pub use outcome::{CallOutcome, TurnEnd};
pub use paths::{DataDir, default_data_dir};
pub use turn_id::TurnId;
pub use voice_turns::VoiceTurns;
