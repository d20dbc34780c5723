//! What a model is shown and what it may answer.
//!
//! SMART's rule is that a model can only propose. This crate is where that is made concrete on
//! the model's side of the line, with no model in it: the protocol a worker process speaks
//! ([`protocol`]), the prompt layouts for each model family ([`format`]), the grammar that
//! keeps a model's answer to well-formed calls of visible tools ([`grammar`]), the parser that
//! turns an answer back into a proposal and re-checks it ([`parse`]), a phrase-template
//! proposer that answers common commands without a model at all ([`phrases`]), and the prompt
//! and report grammar of the perception sensor, which describes a conversation and proposes
//! nothing ([`perception`]).
//!
//! It is pure — no llama.cpp, no files, no clock — so every rule here is tested in
//! milliseconds, and the worker binary is a thin loop around it.

pub mod call_syntax;
pub mod format;
pub mod gguf;
pub mod grammar;
pub mod parse;
pub mod perception;
pub mod phrases;
pub mod protocol;
pub mod tools;
pub mod understand;

pub use call_syntax::PromptFormat;
pub use parse::{ModelOutput, ParseError};
pub use protocol::{PerceiveRequest, ProposeRequest, Speaker, TranscriptLine, Turn};
pub use tools::ToolDecl;
