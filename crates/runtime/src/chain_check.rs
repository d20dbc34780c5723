//! The whole-chain check, in the background.
//!
//! Opening a ledger re-reads only the events after the last verified one (see
//! `smart_ledger::verified`): that keeps an open of a year's ledger under a second, and it is
//! enough against every edit made through SQLite. What it does not re-read — the events before the
//! mark — is re-verified here, in full (`smart ledger verify`'s every check), on a thread and a
//! database connection of its own, at the lowest CPU priority, so the app stays responsive and no
//! command waits for it. A failure names the event, like `smart ledger verify`; the app's badge
//! shows it, and when the whole chain was last found intact.

use crate::clock::{Clock, SystemClock};
use crate::error::RuntimeError;
use smart_ledger::{HeadSigner, Ledger, VerifyReport};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The outcome of one whole-chain pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pass {
    pub report: VerifyReport,
    /// Wall-clock time the pass finished.
    pub finished_ms: u64,
}

/// Where the background check stands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Status {
    pub running: bool,
    /// The last pass that finished (its error, if it could not run, is a failed report).
    pub last: Option<Pass>,
}

/// Runs whole-chain passes in the background, one at a time.
#[derive(Clone, Debug, Default)]
pub struct ChainCheck {
    status: Arc<Mutex<Status>>,
}

impl ChainCheck {
    pub fn new() -> ChainCheck {
        ChainCheck::default()
    }

    pub fn status(&self) -> Status {
        self.status.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// Starts a pass over the ledger in `data_dir` unless one is running or the last finished less
    /// than `every` ago; says whether it started one.
    pub fn start_if_due(&self, data_dir: &Path, every: Duration) -> bool {
        let now = SystemClock.now_ms();
        {
            let Ok(mut s) = self.status.lock() else { return false };
            let recent = s.last.as_ref().is_some_and(|p| now.saturating_sub(p.finished_ms) < every.as_millis() as u64);
            if s.running || recent {
                return false;
            }
            s.running = true;
        }
        let status = Arc::clone(&self.status);
        let dir: PathBuf = data_dir.to_path_buf();
        let spawned = std::thread::Builder::new().name("smart-chain-check".into()).spawn(move || {
            lower_priority();
            let report = whole_chain(&dir).unwrap_or_else(|e| VerifyReport {
                ok: false,
                events: 0,
                head: None,
                first_bad_seq: None,
                reason: Some(format!("the whole-chain check could not run: {e}")),
            });
            if let Ok(mut s) = status.lock() {
                s.running = false;
                s.last = Some(Pass { report, finished_ms: SystemClock.now_ms() });
            }
        });
        if spawned.is_err()
            && let Ok(mut s) = self.status.lock()
        {
            s.running = false;
        }
        spawned.is_ok()
    }
}

/// Verifies every event of the ledger in `data_dir` with every check `smart ledger verify` makes,
/// on a connection of its own.
pub fn whole_chain(data_dir: &Path) -> Result<VerifyReport, RuntimeError> {
    let ledger = Ledger::open(&crate::DataDir::new(data_dir).ledger())?;
    let key = smart_signals::load_device_key(data_dir).ok();
    let public = crate::engine::public_key(data_dir, key.as_ref());
    let sealer = key.as_ref().map(crate::engine::sealer);
    Ok(smart_ledger::verify(&ledger, public.as_deref(), sealer.as_ref().map(|s| s as &dyn HeadSigner))?)
}

/// The calling thread yields the CPU to everything else (on Linux a thread's nice value is its
/// own). Elsewhere the pass runs at normal priority.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    if let Err(e) = rustix::process::setpriority_process(None, 19) {
        tracing::debug!(error = %e, "could not lower the chain check's priority");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pass_that_cannot_run_is_a_failed_report_not_a_hang() {
        let dir = tempfile::tempdir().unwrap();
        let check = ChainCheck::new();
        assert!(check.start_if_due(dir.path(), Duration::from_secs(3600)));
        let start = std::time::Instant::now();
        while check.status().running && start.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(10));
        }
        let last = check.status().last.unwrap();
        assert!(!last.report.ok);
        assert!(last.report.reason.unwrap().contains("could not run"));
        // Just finished: not due again within the hour.
        assert!(!check.start_if_due(dir.path(), Duration::from_secs(3600)));
    }
}
