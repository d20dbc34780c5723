//! `smart-proposer-worker`: llama.cpp behind a pipe.
//!
//! The runtime spawns this binary and talks to it in the line protocol of
//! `smart_proposer::protocol`. It loads one GGUF, renders the prompt in the model's own format,
//! constrains generation with a grammar of the visible tools, and answers with the text it
//! generated and what that text parses to. It never sees the ledger, the kernel or the files;
//! the only thing it can do to the world is print a proposal on stdout. It also serves the
//! perception sensor (`perceive`): a report on the conversation, written in a context of its
//! own under the report's grammar — data for the slow loop, never a call.
//!
//! Two things make it fast enough on two cores:
//! - **Prefix reuse.** The KV cache keeps the tokens of the last prompt; a new prompt only
//!   evaluates what differs after their longest common prefix. The static part (instructions
//!   and tool declarations for a scope) comes first in every format, so a new utterance pays
//!   only for its own tokens.
//! - **Greedy-first grammar checks.** Filtering the whole vocabulary (262k tokens for Gemma)
//!   through the grammar at every step is slow; checking the greedy token alone is cheap and
//!   almost always accepted. Only when it is refused is the full vocabulary filtered, which
//!   gives exactly the constrained greedy answer either way.
//!
//! stdout carries protocol lines only. llama.cpp's own logging is silenced unless
//! `SMART_WORKER_LOG=1`, and then goes to stderr.

mod engine;
mod prefix_cache;

use smart_proposer::protocol::{
    PROTOCOL_VERSION, RequestLine, ResponseBody, ResponseLine, WorkerError, WorkerErrorCode,
};
use std::io::{BufRead, Write};
use std::process::ExitCode;

/// The two ends of the pipe.
pub struct Channel<R: BufRead, W: Write> {
    input: R,
    output: W,
}

impl<R: BufRead, W: Write> Channel<R, W> {
    /// The next request; `None` when the runtime closed the pipe. A line that is not a request
    /// is answered with an error here and skipped.
    pub fn receive(&mut self) -> Option<RequestLine> {
        loop {
            let mut line = String::new();
            match self.input.read_line(&mut line) {
                Ok(0) | Err(_) => return None,
                Ok(_) => {}
            }
            if line.trim().is_empty() {
                continue;
            }
            match smart_proposer::protocol::decode_request(&line) {
                Ok(req) => return Some(req),
                Err((id, err)) => {
                    if !self.send(id, ResponseBody::Err(err)) {
                        return None;
                    }
                }
            }
        }
    }

    /// Writes one answer; `false` when the runtime is gone.
    pub fn send(&mut self, id: u64, body: ResponseBody) -> bool {
        let line = ResponseLine { v: PROTOCOL_VERSION, id, body };
        let text = serde_json::to_string(&line).unwrap_or_else(|e| {
            let err = WorkerError::new(WorkerErrorCode::Internal, format!("cannot encode the answer: {e}"));
            let fallback = ResponseLine { v: PROTOCOL_VERSION, id, body: ResponseBody::Err(err) };
            serde_json::to_string(&fallback).unwrap_or_default()
        });
        writeln!(self.output, "{text}").and_then(|_| self.output.flush()).is_ok()
    }
}

fn main() -> ExitCode {
    if std::env::args().any(|a| a == "--version") {
        println!("smart-proposer-worker {} (protocol {PROTOCOL_VERSION})", env!("CARGO_PKG_VERSION"));
        return ExitCode::SUCCESS;
    }
    let argv: Vec<String> = std::env::args().collect();
    if argv.get(1).map(String::as_str) == Some("--raw-bench") {
        // llama.cpp with nothing of ours around it, for `smart-bench`'s comparison.
        let (Some(model), Some(prompt)) = (argv.get(2), argv.get(3)) else {
            eprintln!("usage: smart-proposer-worker --raw-bench MODEL PROMPT_FILE [TOKENS]");
            return ExitCode::from(2);
        };
        let n = argv.get(4).and_then(|n| n.parse().ok()).unwrap_or(32);
        return match engine::raw_bench(model, prompt, n) {
            Ok(json) => {
                println!("{json}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("smart-proposer-worker: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let stdin = std::io::stdin();
    let mut channel = Channel { input: stdin.lock(), output: std::io::stdout().lock() };
    match engine::run(&mut channel) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("smart-proposer-worker: {e}");
            ExitCode::FAILURE
        }
    }
}
