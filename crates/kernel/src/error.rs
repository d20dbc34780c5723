//! Kernel errors: not refusals (those are decisions), but events that cannot be applied — a
//! sign that a ledger was tampered with or written by something other than this kernel.

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KernelError {
    #[error("event {seq} cannot be applied: {reason}")]
    Inapplicable { seq: u64, reason: String },
    #[error("cannot encode kernel data: {0}")]
    Encoding(String),
}

impl From<serde_json::Error> for KernelError {
    fn from(e: serde_json::Error) -> Self {
        KernelError::Encoding(e.to_string())
    }
}
