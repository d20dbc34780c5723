//! Updates: a newer SMART from the release feed, installed only when the person asks.
//!
//! An update replaces the program that holds the kernel, the signing keys and the ledger, so it
//! is the one download this app must never take on trust. Three things make it safe to offer:
//!
//! - **The feed is off until a release sets it.** The committed `tauri.conf.json` names no
//!   endpoint; a release build adds its feed URL at packaging time (`scripts/updates.mjs`). A
//!   build without one never reaches the network for this and says "off" — a local-first
//!   assistant does not phone home because somebody forgot a setting.
//! - **Every package is checked against the release key before a byte of it is installed.** The
//!   public half of the key is in `tauri.conf.json` (`plugins.updater.pubkey`); the feed's
//!   signature for each package is a minisign signature by its private half, which never enters
//!   the repo. A package that does not match is refused and nothing is installed.
//! - **A feed cannot pass an old release off as a new one.** The feed's JSON is not signed, only
//!   the package is; so the signature must carry the version it was made for
//!   (`requireSignedVersion`), and a feed that announces 0.3.0 with 0.2.0's genuine package is
//!   refused.
//!
//! Checking and installing are the person's acts (two buttons in Settings, the HUD window only
//! by its capability), never a tool: nothing a model proposes reaches this file. What the person
//! was shown is what gets installed — the install step takes the update the last check found,
//! not whatever the feed says a moment later.

use serde::Serialize;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tauri::ipc::Channel;
use tauri::{AppHandle, Manager, Runtime};
use tauri_plugin_updater::{Error as PluginError, Update, UpdaterExt};

/// How long a check waits for the feed. A download has no such limit as a whole — a large
/// package on a slow link may take minutes, and the person sees its progress — but a connection
/// that sends nothing for [`STALL_TIMEOUT`] is given up, so a dropped link ends in an error the
/// person can retry rather than a progress bar that never moves.
const CHECK_TIMEOUT: Duration = Duration::from_secs(30);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);
const STALL_TIMEOUT: Duration = Duration::from_secs(60);

/// What a check found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum UpdateCheck {
    /// This build names no release feed, so nothing is checked.
    Off {
        current: String,
    },
    UpToDate {
        current: String,
    },
    Available {
        current: String,
        version: String,
        notes: Option<String>,
        date: Option<String>,
    },
}

/// Download progress of an update, for the progress bar.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct UpdateProgress {
    pub done: u64,
    pub total: Option<u64>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum UpdateError {
    #[error("the release feed could not be read: {0}")]
    Feed(String),
    #[error("the update could not be downloaded: {0}")]
    Download(String),
    #[error("the update is not signed by SMART's release key, so nothing was installed ({0})")]
    Signature(String),
    #[error(
        "the feed announces version {announced} but the package is signed as {signed}: an old release passed off as new, so nothing was installed"
    )]
    VersionMismatch { signed: String, announced: String },
    #[error("check for an update first")]
    NothingChecked,
    #[error("the update found was {found}, not {asked}: check again")]
    NotTheOneShown { found: String, asked: String },
    #[error("an update is being installed already")]
    Busy,
    #[error("the update could not be installed: {0}")]
    Install(String),
}

/// Which step a plugin error came from: it decides what the person is told.
#[derive(Clone, Copy)]
enum Step {
    Check,
    Download,
    Install,
}

impl UpdateError {
    /// Sorts the plugin's errors into what the person can act on: a feed or download that
    /// failed (try later), a package that is not ours (never install it), or an install that
    /// failed.
    fn from_plugin(e: PluginError, step: Step) -> UpdateError {
        match (e, step) {
            (
                e @ (PluginError::Minisign(_)
                | PluginError::Base64(_)
                | PluginError::SignatureUtf8(_)
                | PluginError::MissingSignedVersion),
                _,
            ) => UpdateError::Signature(e.to_string()),
            (PluginError::SignedVersionMismatch { signed, announced }, _) => {
                UpdateError::VersionMismatch { signed, announced }
            }
            (e, Step::Check) => UpdateError::Feed(e.to_string()),
            (e, Step::Download) => UpdateError::Download(e.to_string()),
            (e, Step::Install) => UpdateError::Install(e.to_string()),
        }
    }
}

/// The update the last check found, kept for the install step, and whether one is being
/// installed (a second press, or the panel shown again, must not start a second installer).
#[derive(Default)]
pub struct UpdateHost {
    found: Mutex<Option<Update>>,
    installing: AtomicBool,
    /// Reach the feed without a proxy. Only the tests set it: their feed is on 127.0.0.1, which
    /// a proxy named by the environment of the machine running them would not reach.
    direct: AtomicBool,
}

/// Holds [`UpdateHost::installing`] until dropped.
struct Installing<'a>(&'a AtomicBool);

impl Drop for Installing<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

impl UpdateHost {
    fn begin_install(&self) -> Result<Installing<'_>, UpdateError> {
        if self.installing.swap(true, Ordering::SeqCst) {
            return Err(UpdateError::Busy);
        }
        Ok(Installing(&self.installing))
    }

    fn keep(&self, update: Option<Update>) {
        if let Ok(mut found) = self.found.lock() {
            *found = update;
        }
    }

    fn found(&self) -> Option<Update> {
        self.found.lock().ok().and_then(|f| f.clone())
    }
}

fn current<R: Runtime>(app: &AppHandle<R>) -> String {
    app.package_info().version.to_string()
}

/// Asks the release feed whether there is a newer SMART; remembers what it found for
/// [`download`].
pub async fn check<R: Runtime>(app: &AppHandle<R>) -> Result<UpdateCheck, UpdateError> {
    let current = current(app);
    let host = app.state::<UpdateHost>();
    host.keep(None);
    // The client settings travel with the update found to its download.
    let mut builder = app
        .updater_builder()
        .timeout(CHECK_TIMEOUT)
        .configure_client(|c| c.connect_timeout(CONNECT_TIMEOUT).read_timeout(STALL_TIMEOUT));
    if host.direct.load(Ordering::SeqCst) {
        builder = builder.no_proxy();
    }
    let updater = match builder.build() {
        Ok(u) => u,
        Err(PluginError::EmptyEndpoints) => return Ok(UpdateCheck::Off { current }),
        Err(e) => return Err(UpdateError::from_plugin(e, Step::Check)),
    };
    match updater.check().await.map_err(|e| UpdateError::from_plugin(e, Step::Check))? {
        None => Ok(UpdateCheck::UpToDate { current }),
        Some(update) => {
            let found = UpdateCheck::Available {
                current,
                version: update.version.clone(),
                notes: update.body.clone(),
                date: update.date.map(|d| d.date().to_string()),
            };
            host.keep(Some(update));
            Ok(found)
        }
    }
}

/// Downloads the update the last check found — which must be `version`, the one the person was
/// shown — and verifies it against the release key and its announced version; returns it with
/// the verified package, or why it was refused.
pub async fn download<R: Runtime>(
    app: &AppHandle<R>,
    version: &str,
    mut progress: impl FnMut(UpdateProgress),
) -> Result<(Update, Vec<u8>), UpdateError> {
    let update = app.state::<UpdateHost>().found().ok_or(UpdateError::NothingChecked)?;
    if update.version != version {
        return Err(UpdateError::NotTheOneShown { found: update.version, asked: version.to_string() });
    }
    let mut done = 0u64;
    let bytes = update
        .download(
            |chunk, total| {
                done += chunk as u64;
                progress(UpdateProgress { done, total });
            },
            || (),
        )
        .await
        .map_err(|e| UpdateError::from_plugin(e, Step::Download))?;
    Ok((update, bytes))
}

#[tauri::command]
pub async fn check_for_update<R: Runtime>(app: AppHandle<R>) -> Result<UpdateCheck, String> {
    check(&app).await.map_err(|e| e.to_string())
}

/// Downloads, verifies and installs the update the last check found (the `version` the person
/// was shown), then restarts SMART.
#[tauri::command]
pub async fn install_update<R: Runtime>(
    app: AppHandle<R>,
    version: String,
    progress: Channel<UpdateProgress>,
) -> Result<(), String> {
    install(&app, &version, progress).await.map_err(|e| e.to_string())?;
    app.restart()
}

async fn install<R: Runtime>(
    app: &AppHandle<R>,
    version: &str,
    progress: Channel<UpdateProgress>,
) -> Result<(), UpdateError> {
    let host = app.state::<UpdateHost>();
    let _installing = host.begin_install()?;
    let mut last: Option<std::time::Instant> = None;
    let (update, bytes) = download(app, version, |p| {
        // A few updates a second are plenty for a progress bar (the whole is reported after).
        if last.is_none_or(|at| at.elapsed() >= Duration::from_millis(150)) {
            last = Some(std::time::Instant::now());
            let _ = progress.send(p);
        }
    })
    .await?;
    let whole = bytes.len() as u64;
    let _ = progress.send(UpdateProgress { done: whole, total: Some(whole) });
    // The workers run from files the installer replaces (on Windows it cannot while they run):
    // stop them first — voice before the session, which voice could open again. This is best
    // effort: a command may still open the session while the installer starts.
    let voice = app.state::<crate::voice::VoiceHost>();
    voice.stop();
    app.state::<crate::session::Session>().close().await;
    // `install` verifies the bytes again: what is installed is exactly what was checked. It
    // waits for the system's installer, which may ask for a password, so not on the runtime.
    let installed = tauri::async_runtime::spawn_blocking(move || update.install(bytes))
        .await
        .map_err(|e| UpdateError::Install(e.to_string()))
        .and_then(|r| r.map_err(|e| UpdateError::from_plugin(e, Step::Install)));
    if installed.is_err() {
        // The person may have refused the password: SMART goes on as it was. The session opens
        // again at the next command; voice is started here.
        voice.restart(app);
    }
    installed
}

#[cfg(test)]
mod tests;
