//! First launch: choosing the folders SMART may work in, and fetching its models with progress.
//!
//! A person who has never used a terminal must be able to start from the app: with no data dir
//! yet, the HUD shows this flow instead of an error. It creates the data dir exactly as
//! `smart init` does (same checks, same messages: a root that does not exist, a data dir inside a
//! root) and fetches models exactly as `smart models fetch` does (resumable, checksummed), only
//! with a progress bar instead of a progress line.

use crate::session::Session;
use serde::{Deserialize, Serialize};
use smart_models::{ModelStatus, Models};
use smart_runtime::{Engine, InitOptions, SystemClock};
use std::path::PathBuf;
use tauri::State;
use tauri::ipc::Channel;

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ModelRow {
    pub name: String,
    pub description: String,
    pub purpose: String,
    pub bytes: u64,
    /// The model a fresh installation uses for its purpose.
    pub default: bool,
    /// missing | partial | verified | unverified
    pub status: String,
    /// Bytes already downloaded of an interrupted fetch.
    pub partial_bytes: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SetupState {
    pub data_dir: Option<String>,
    pub initialised: bool,
    pub roots: Vec<String>,
    pub models_dir: Option<String>,
    pub models: Vec<ModelRow>,
    /// Why something above is unknown (no home directory, unreadable models folder, …).
    pub problem: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct FetchProgress {
    pub model: String,
    pub stage: String,
    pub done: u64,
    pub total: u64,
}

fn model_rows(models: &Models) -> Vec<ModelRow> {
    models
        .catalog()
        .models
        .iter()
        .map(|m| {
            let (status, partial_bytes) = match models.status(m) {
                ModelStatus::Missing => ("missing", 0),
                ModelStatus::Partial(n) => ("partial", n),
                ModelStatus::Verified => ("verified", 0),
                ModelStatus::Unverified => ("unverified", 0),
            };
            ModelRow {
                name: m.name.clone(),
                description: m.description.clone(),
                purpose: m.purpose.clone(),
                bytes: m.bytes,
                default: m.default,
                status: status.into(),
                partial_bytes,
            }
        })
        .collect()
}

/// The setup view. `roots` are the open runtime's allowed folders (asked of the session, which
/// has the data dir open anyway), or why they could not be read.
pub fn setup_state_of(data_dir: &Result<PathBuf, String>, roots: Result<Vec<String>, String>) -> SetupState {
    let mut problem = None;
    let (data, initialised) = match data_dir {
        Ok(d) => (Some(d.display().to_string()), smart_runtime::DataDir::new(d).ledger().exists()),
        Err(e) => {
            problem = Some(e.clone());
            (None, false)
        }
    };
    let roots = match roots {
        Ok(r) => r,
        Err(e) => {
            problem.get_or_insert(e);
            vec![]
        }
    };
    let (models_dir, models) = match Models::open_default() {
        Ok(m) => (Some(m.dir().display().to_string()), model_rows(&m)),
        Err(e) => {
            problem.get_or_insert(e.to_string());
            (None, vec![])
        }
    };
    SetupState { data_dir: data, initialised, roots, models_dir, models, problem }
}

/// The allowed folders of an initialised data dir, from the session's runtime; none before
/// the first-run setup.
async fn allowed_folders(session: &Session) -> Result<Vec<String>, String> {
    match session.data_dir() {
        Ok(d) if smart_runtime::DataDir::new(d).ledger().exists() => {
            session.with_engine(|e| Ok(e.roots().to_vec())).await
        }
        _ => Ok(vec![]),
    }
}

#[tauri::command]
pub async fn setup_state(session: State<'_, Session>) -> Result<SetupState, String> {
    let roots = allowed_folders(&session).await;
    let dir = session.data_dir().clone();
    tauri::async_runtime::spawn_blocking(move || setup_state_of(&dir, roots)).await.map_err(|e| e.to_string())
}

/// `~/x` → the home directory's `x`; anything else as given.
fn expand(raw: &str) -> PathBuf {
    let raw = raw.trim();
    smart_runtime::paths::home_dir()
        .and_then(|home| smart_runtime::paths::expand_tilde(raw, &home))
        .unwrap_or_else(|| PathBuf::from(raw))
}

/// Creates the data dir with `roots` as the allowed folders (what `smart init --root` does).
#[tauri::command]
pub async fn init_data_dir(session: State<'_, Session>, roots: Vec<String>) -> Result<SetupState, String> {
    let dir = session.data_dir().clone()?;
    let roots: Vec<PathBuf> = roots.iter().filter(|r| !r.trim().is_empty()).map(|r| expand(r)).collect();
    if roots.is_empty() {
        return Err("choose at least one folder SMART may work in".into());
    }
    for r in &roots {
        if !r.is_absolute() {
            return Err(format!("{} is not a full path: start it with / or ~/", r.display()));
        }
        if !r.is_dir() {
            return Err(format!("{} is not an existing folder", r.display()));
        }
    }
    let opts = InitOptions { roots, policy: None, key_store: None };
    let d = dir.clone();
    tauri::async_runtime::spawn_blocking(move || Engine::init(&d, opts, Box::new(SystemClock)).map(|_| ()))
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())?;
    session.close().await;
    let roots = allowed_folders(&session).await;
    Ok(setup_state_of(&Ok(dir), roots))
}

/// Fetches the catalog model `name` into the models folder, reporting progress on `progress`
/// (a channel the caller passes); resumes an interrupted download.
#[tauri::command]
pub async fn fetch_model(name: String, progress: Channel<FetchProgress>) -> Result<ModelRow, String> {
    tauri::async_runtime::spawn_blocking(move || {
        let models = Models::open_default().map_err(|e| e.to_string())?;
        let m = models.get(&name).map_err(|e| e.to_string())?.clone();
        let mut last = std::time::Instant::now();
        let mut report = |p: &smart_models::fetch::Progress| {
            // A few updates a second are plenty for a progress bar.
            if last.elapsed().as_millis() >= 150 || p.done == p.total {
                last = std::time::Instant::now();
                let _ = progress.send(FetchProgress {
                    model: p.model.clone(),
                    stage: p.stage.clone(),
                    done: p.done,
                    total: p.total,
                });
            }
        };
        smart_models::fetch::fetch(&models, &m, None, &mut report).map_err(|e| e.to_string())?;
        model_rows(&models)
            .into_iter()
            .find(|r| r.name == name)
            .ok_or_else(|| format!("{name} vanished from the catalog"))
    })
    .await
    .map_err(|e| e.to_string())?
}
