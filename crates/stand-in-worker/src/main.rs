//! `smart-stand-in-worker`: a model worker that does what its script says, for tests.
//!
//! The runtime's supervisor and the CLI are tested against workers that misbehave on purpose:
//! one that hangs, dies mid-request, prints garbage, scores too few candidates or answers a
//! ranking with a call of its own. Those stand-ins were shell scripts, which Windows cannot
//! start, so the tests of the fault boundary could not run there. This is the same thing as a
//! program: it answers `load` as the real worker does and every other request by a script.
//!
//! The script is the "model file": `load`'s path names a JSON file (the CLI tests choose it as
//! the proposer model by path, the supervisor tests put it in the load request), so no
//! environment or argument has to reach a worker the code under test starts itself.
//!
//! ```json
//! { "each":  { "propose": [ {"ok": {"kind": "proposal", ...}} ] },
//!   "first": { "propose": [ {"hang_s": 600} ] } }
//! ```
//!
//! For a request with op `X`, the steps of `first.X` run the first time any stand-in with this
//! script is asked `X` (a marker file beside the script remembers it across restarts, as a
//! supervisor restarts a hung worker), and `each.X` every time after. An op the script does not
//! name ends the worker, as a pipe closed by the real one would. Steps, one key each:
//!
//! - `{"ok": BODY}` answers `{"v":1,"id":<the request's>,"ok":BODY}`;
//! - `{"ranked_leaning": [FIRST, REST]}` answers a ranking of the request's candidates: `FIRST`
//!   for the first, `REST` for each other one (for `scores` and `first` alike);
//! - `{"stdout": TEXT}` / `{"stderr": TEXT}` prints a line as it is;
//! - `{"exit": CODE}` ends the worker with that code;
//! - `{"hang_s": N}` stops answering for N seconds.
//!
//! The worker's own failures (an unreadable script) are answered as the real worker answers a
//! missing model, so a test that got its script wrong fails with the reason in the message.

mod script;

use script::{Flow, loaded, read_script, run, steps_for};
use serde_json::{Value, json};
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    let mut script: Option<(PathBuf, Value)> = None;
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return ExitCode::SUCCESS };
        let Ok(request) = serde_json::from_str::<Value>(&line) else { continue };
        let id = request.get("id").cloned().unwrap_or(Value::Null);
        let op = request.get("op").and_then(Value::as_str).unwrap_or_default().to_owned();
        if op == "load" {
            let path = PathBuf::from(request.get("path").and_then(Value::as_str).unwrap_or_default());
            let answer = match read_script(&path) {
                Ok(value) => {
                    script = Some((path.clone(), value));
                    json!({"v": 1, "id": id, "ok": loaded(&path)})
                }
                Err(why) => json!({"v": 1, "id": id, "err": {"code": "model_missing", "message": why}}),
            };
            if !send(&mut out, &answer.to_string()) {
                return ExitCode::SUCCESS;
            }
            continue;
        }
        let Some((path, value)) = &script else { return ExitCode::SUCCESS };
        let Some(steps) = steps_for(path, value, &op) else { return ExitCode::SUCCESS };
        for step in steps {
            match run(&step, &id, &request, &mut out) {
                Flow::Next => {}
                Flow::Exit(code) => return ExitCode::from(code),
            }
        }
    }
    ExitCode::SUCCESS
}

/// One protocol line, flushed; false when the other end is gone.
pub fn send(out: &mut std::io::Stdout, line: &str) -> bool {
    writeln!(out, "{line}").and_then(|()| out.flush()).is_ok()
}
