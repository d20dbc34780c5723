//! The runtime the app hosts: one `Assistant` (kernel, ledger, tools, proposer worker) per data
//! directory, opened on first use and shared by every command.
//!
//! One lock guards it. The kernel is a single writer by design (each decision extends the hash
//! chain from the state it was made in), so commands take turns rather than racing; a model
//! turn holds the lock for its seconds, and the HUD's countdowns keep running on the UI's own
//! clock meanwhile (it offsets from the last `now_ms` it was given). If opening fails — no data
//! dir yet, a broken ledger — the error text goes to the UI, and the next command tries again,
//! so repairing the data dir from a terminal needs no restart.
//!
//! The first successful opening in an app run is also when SMART speaks first: it starts or
//! resumes bootstrap (`Engine::greet`). Only the first — a runtime reopened after an error is
//! the same run, not a new session to welcome back.

use smart_runtime::model_choice::proposer_spec;
use smart_runtime::{Assistant, Bus, Engine, SystemClock};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::sync::{MappedMutexGuard, Mutex, MutexGuard};

pub struct Session {
    /// The data directory, or why it could not be determined (shown in the UI's banner).
    data_dir: Result<PathBuf, String>,
    bus: Bus,
    assistant: Mutex<Option<Assistant>>,
    /// Bootstrap was started or resumed for this run (or did not need to be).
    greeted: AtomicBool,
    /// False while understanding gets ready in the background (`crate::readiness`).
    ready: tokio::sync::watch::Sender<bool>,
    /// The background whole-chain check (see `timeline::verify_ledger`).
    chain_check: smart_runtime::chain_check::ChainCheck,
}

impl Session {
    pub fn new(data_dir: Result<PathBuf, String>, bus: Bus) -> Session {
        let (ready, _) = tokio::sync::watch::channel(true);
        Session {
            data_dir,
            bus,
            assistant: Mutex::new(None),
            greeted: AtomicBool::new(false),
            ready,
            chain_check: smart_runtime::chain_check::ChainCheck::new(),
        }
    }

    /// Marks understanding as getting ready (false) or ready (true).
    pub fn set_ready(&self, ready: bool) {
        self.ready.send_replace(ready);
    }

    /// Waits until understanding is ready — a turn that needs the model would otherwise evaluate
    /// the prompt a second time beside the background work — but never longer than `at_most`:
    /// slow is better than stuck.
    pub async fn until_ready(&self, at_most: std::time::Duration) {
        let mut rx = self.ready.subscribe();
        let _ = tokio::time::timeout(at_most, rx.wait_for(|r| *r)).await;
    }

    pub fn chain_check(&self) -> smart_runtime::chain_check::ChainCheck {
        self.chain_check.clone()
    }

    pub fn bus(&self) -> &Bus {
        &self.bus
    }

    pub fn data_dir(&self) -> &Result<PathBuf, String> {
        &self.data_dir
    }

    /// Drops the runtime (and stops its worker); the next command opens it afresh.
    pub async fn close(&self) {
        *self.assistant.lock().await = None;
    }

    /// The runtime if no command holds it right now (the watchdog must not wait behind a turn),
    /// `Err(())` when one does; `Ok(None)` when it is not open.
    pub fn try_lock(&self) -> Result<MutexGuard<'_, Option<Assistant>>, ()> {
        self.assistant.try_lock().map_err(|_| ())
    }

    /// The assistant, opened if it is not yet.
    pub async fn open(&self) -> Result<MappedMutexGuard<'_, Assistant>, String> {
        let mut guard = self.assistant.lock().await;
        if guard.is_none() {
            let dir = self.data_dir.clone()?;
            let mut engine = Engine::open(&dir, Box::new(SystemClock)).map_err(|e| e.to_string())?;
            // A failed greeting is not a failed start: the HUD works, and the panel shows
            // bootstrap as it is.
            if !self.greeted.swap(true, Ordering::SeqCst)
                && let Err(e) = engine.greet()
            {
                tracing::warn!(error = %e, "bootstrap could not be started or resumed");
            }
            *guard = Some(Assistant::new(engine, self.bus.clone(), proposer_spec(dir)));
        }
        MutexGuard::try_map(guard, Option::as_mut).map_err(|_| "the runtime could not be opened".to_string())
    }

    /// Runs `f` on the engine. An error about the store (not bad input) closes the runtime, to
    /// be opened afresh next time: the data dir may be repaired or initialised meanwhile.
    pub async fn with_engine<T>(
        &self,
        f: impl FnOnce(&mut Engine) -> Result<T, smart_runtime::RuntimeError>,
    ) -> Result<T, String> {
        let result = {
            let mut a = self.open().await?;
            f(a.engine())
        };
        match result {
            Ok(v) => Ok(v),
            Err(e) => {
                if !matches!(e, smart_runtime::RuntimeError::BadInput(_)) {
                    *self.assistant.lock().await = None;
                }
                Err(e.to_string())
            }
        }
    }
}
