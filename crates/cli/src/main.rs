//! `smart`: the kernel from a terminal.
//!
//! Every command here is a thin shell over [`smart_runtime::Engine`]; the CLI adds only what a
//! terminal needs: argument parsing, relative paths made absolute, readable output, `--json`
//! for scripts, and exit codes that say what happened (0 committed/ok, 3 refused, 4 pending,
//! 5 the tool failed, 6 the ledger failed verification or replay, 1 any other error, 2 usage).

/// `println!` that ends the process quietly when the reader has gone away (`smart ledger show |
/// head`), instead of panicking on the broken pipe. Exit code 141 is the shell's SIGPIPE
/// convention; whatever the command recorded in the ledger stays recorded.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if writeln!(std::io::stdout(), $($arg)*).is_err() {
            std::process::exit(141);
        }
    }};
}

mod assist;
mod cli;
mod library;
mod listen;
mod output;
mod slow_loop;

use clap::Parser;

fn main() {
    let args = cli::Args::parse();
    let json = args.json;
    let code = match cli::run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("smart: {e:#}");
            if json {
                output::print_json(&serde_json::json!({ "ok": false, "error": format!("{e:#}") }));
            }
            // A ledger the engine refused to open failed verification, whatever the command.
            let broken = e.chain().any(|c| {
                matches!(
                    c.downcast_ref::<smart_runtime::RuntimeError>(),
                    Some(smart_runtime::RuntimeError::BrokenLedger { .. })
                )
            });
            if broken { 6 } else { 1 }
        }
    };
    std::process::exit(code);
}
