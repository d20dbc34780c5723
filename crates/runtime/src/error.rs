//! Errors the runtime reports: each says what went wrong and, where there is one, what to do.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    #[error("no SMART data at {0}: run `smart init --root DIR` first")]
    NotInitialised(PathBuf),
    #[error("{0} is already initialised; use another --data-dir or remove it")]
    AlreadyInitialised(PathBuf),
    #[error("{0}")]
    BadInput(String),
    #[error("the ledger at {path} cannot be used: {reason}. Run `smart ledger verify` for details")]
    BrokenLedger { path: PathBuf, reason: String },
    #[error("the device key is unavailable, so nothing can be signed or recorded: {0}")]
    NoKey(String),
    #[error(transparent)]
    Ledger(#[from] smart_ledger::LedgerError),
    #[error(transparent)]
    Signals(#[from] smart_signals::SignalsError),
    #[error("kernel: {0}")]
    Kernel(#[from] smart_kernel::KernelError),
    #[error("{path}: {reason}")]
    Io { path: PathBuf, reason: String },
    #[error(
        "{tool} ran, but its receipt could not be recorded ({reason}); the next start of SMART records it as interrupted — check the files it names"
    )]
    ReceiptNotRecorded { tool: String, reason: String },
}
