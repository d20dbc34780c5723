//! The SMART desktop app: a Tauri shell around the runtime, showing its status in the HUD (`ui/`).

mod status;

use smart_runtime::Engine;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

pub use status::{DATA_DIR_ENV, data_dir, load_status};

/// What the commands need, resolved once at start-up.
struct AppState {
    /// The data directory, or why it could not be determined (shown in the UI's banner).
    data_dir: Result<PathBuf, String>,
    /// The runtime, opened on first use and kept while it works.
    engine: Arc<Mutex<Option<Engine>>>,
}

/// The HUD's status view (see `status.rs` for the JSON shape), or the error text to show.
#[tauri::command]
async fn get_status(state: tauri::State<'_, AppState>) -> Result<serde_json::Value, String> {
    let dir = state.data_dir.clone()?;
    let engine = Arc::clone(&state.engine);
    // Loading reads the data directory: keep it off the async workers.
    tauri::async_runtime::spawn_blocking(move || {
        let mut guard = engine.lock().map_err(|_| "the runtime lock is poisoned; restart SMART".to_string())?;
        status::load_status(&dir, &mut guard)
    })
    .await
    .map_err(|e| format!("status task failed: {e}"))?
}

/// Registers the app's state and commands on `builder`; shared by [`run`] and the tests, which
/// pass the data directory explicitly instead of going through the environment.
fn setup<R: tauri::Runtime>(builder: tauri::Builder<R>, data_dir: Result<PathBuf, String>) -> tauri::Builder<R> {
    builder
        .manage(AppState { data_dir, engine: Arc::new(Mutex::new(None)) })
        .invoke_handler(tauri::generate_handler![get_status])
}

/// Builds and runs the desktop app; returns when the last window closes.
pub fn run() {
    let result = setup(tauri::Builder::default(), data_dir()).run(tauri::generate_context!());
    if let Err(e) = result {
        eprintln!("smart-app: {e}");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tauri::ipc::{CallbackFn, InvokeBody};
    use tauri::test::{INVOKE_KEY, get_ipc_response, mock_builder, mock_context, noop_assets};
    use tauri::webview::InvokeRequest;

    type TestResult = Result<(), Box<dyn std::error::Error>>;

    /// Invokes `get_status` through the real IPC path of a display-less mock app.
    fn invoke_get_status(
        data_dir: Result<PathBuf, String>,
    ) -> Result<Result<serde_json::Value, serde_json::Value>, Box<dyn std::error::Error>> {
        let app = setup(mock_builder(), data_dir).build(mock_context(noop_assets()))?;
        let webview = tauri::WebviewWindowBuilder::new(&app, "main", tauri::WebviewUrl::default()).build()?;
        let response = get_ipc_response(
            &webview,
            InvokeRequest {
                cmd: "get_status".into(),
                callback: CallbackFn(0),
                error: CallbackFn(1),
                // Linux/macOS origin of the bundled frontend (Windows uses http://tauri.localhost).
                url: "tauri://localhost".parse()?,
                body: InvokeBody::default(),
                headers: Default::default(),
                invoke_key: INVOKE_KEY.to_string(),
            },
        );
        Ok(match response {
            Ok(body) => Ok(body.deserialize::<serde_json::Value>()?),
            Err(e) => Err(e),
        })
    }

    #[test]
    fn get_status_explains_an_uninitialised_data_dir() -> TestResult {
        let dir = tempfile::tempdir()?;
        let got = invoke_get_status(Ok(dir.path().to_path_buf()))?;
        let text = got.err().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        assert!(text.contains("smart init") && text.contains(&dir.path().display().to_string()), "{text}");
        Ok(())
    }

    #[test]
    fn get_status_returns_the_runtime_s_status_view() -> TestResult {
        let dir = tempfile::tempdir()?;
        let root = dir.path().join("root");
        std::fs::create_dir_all(&root)?;
        let data = dir.path().join("data");
        let opts = smart_runtime::InitOptions {
            roots: vec![root],
            policy: None,
            key_store: Some(smart_signals::KeyStoreKind::File),
        };
        Engine::init(&data, opts, Box::new(smart_runtime::SystemClock))?;
        let got = invoke_get_status(Ok(data))?;
        let v = got.map_err(|e| format!("get_status failed: {e}"))?;
        assert_eq!(v["stance"], "sensemaking");
        assert_eq!(v["frontier"], 0);
        assert_eq!(v["gates"].as_array().map(Vec::len), Some(4));
        assert_eq!(v["budget"]["limit"], 1000);
        assert!(v["pending"].as_array().is_some_and(Vec::is_empty));
        Ok(())
    }

    #[test]
    fn get_status_reports_an_unresolved_data_dir() -> TestResult {
        let got = invoke_get_status(Err("no home directory".into()))?;
        assert_eq!(got, Err(serde_json::Value::String("no home directory".into())));
        Ok(())
    }
}
