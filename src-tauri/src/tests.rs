//! The app through its real IPC path, display-less (Tauri's mock runtime): the commands the HUD
//! calls, over a real data dir and ledger, and the capability files' window restrictions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::*;
use serde_json::json;
use smart_kernel::{CallSource, GateAct, Horizon, Policy};
use smart_runtime::CallOutcome;
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{INVOKE_KEY, MockRuntime, get_ipc_response, mock_builder, mock_context, noop_assets};
use tauri::webview::InvokeRequest;

type TestResult = Result<(), Box<dyn std::error::Error>>;
type Reply = Result<Value, Value>;

/// Where the bundled frontend is served from: a custom scheme on Linux and macOS, a host of
/// http on Windows (WebView2 serves custom schemes that way).
const FRONTEND_ORIGIN: &str = if cfg!(windows) { "http://tauri.localhost" } else { "tauri://localhost" };

/// Invokes `cmd` with `args` from `webview`, as the web view's `invoke` would.
fn invoke(webview: &tauri::WebviewWindow<MockRuntime>, cmd: &str, args: Value) -> Reply {
    let response = get_ipc_response(
        webview,
        InvokeRequest {
            cmd: cmd.into(),
            callback: CallbackFn(0),
            error: CallbackFn(1),
            url: FRONTEND_ORIGIN.parse().unwrap(),
            body: InvokeBody::Json(args),
            headers: Default::default(),
            invoke_key: INVOKE_KEY.to_string(),
        },
    );
    match response {
        Ok(body) => Ok(body.deserialize::<Value>().unwrap()),
        Err(e) => Err(e),
    }
}

/// The plugins' section of the committed `tauri.conf.json` (the updater's public key and feed),
/// which the app's plugins read at start.
pub(crate) fn committed_plugins() -> serde_json::Map<String, Value> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tauri.conf.json")).unwrap();
    let conf: Value = serde_json::from_str(&text).unwrap();
    conf["plugins"].as_object().unwrap().clone()
}

/// Tauri's display-less context with the committed plugin settings.
pub(crate) fn context() -> tauri::Context<MockRuntime> {
    let mut ctx = mock_context(noop_assets());
    ctx.config_mut().plugins.0.extend(committed_plugins());
    ctx
}

/// A mock app without the app's ACL (every command allowed), with a "main" window.
fn app(data_dir: Result<PathBuf, String>) -> (tauri::App<MockRuntime>, tauri::WebviewWindow<MockRuntime>) {
    let app = setup(mock_builder(), data_dir, |_| ()).build(context()).unwrap();
    let webview = tauri::WebviewWindowBuilder::new(&app, "main", tauri::WebviewUrl::default()).build().unwrap();
    (app, webview)
}

fn err_text(r: Reply) -> String {
    match r {
        Err(v) => v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string()),
        Ok(v) => panic!("expected an error, got {v}"),
    }
}

/// A data dir whose frontier is L3 (a plan applied), so an L4 quarantine waits for the person.
struct Data {
    _tmp: tempfile::TempDir,
    data: PathBuf,
    root: PathBuf,
}

fn data_at_l3() -> Data {
    let tmp = tempfile::tempdir().unwrap();
    let root = dunce::canonicalize(tmp.path()).unwrap().join("root");
    let docs = root.join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(docs.join("old.log"), "0123456789").unwrap();
    std::fs::write(docs.join("a.txt"), "a").unwrap();
    let data = tmp.path().join("data");
    let mut policy = Policy::default();
    policy.gates.after_l1_ms = 0;
    policy.gates.after_l2_ms = 0;
    policy.gates.after_l3_ms = 0;
    let opts = smart_runtime::InitOptions {
        roots: vec![root.clone()],
        policy: Some(policy),
        key_store: Some(smart_signals::KeyStoreKind::File),
    };
    let (mut e, _) = smart_runtime::Engine::init(&data, opts, Box::new(smart_runtime::SystemClock)).unwrap();
    let draft = smart_kernel::lease::LeaseDraft {
        frame: "tidy docs".into(),
        horizon: Horizon::Short,
        duration_ms: 3_600_000,
        success_criteria: vec![],
        non_goals: vec![],
        renewal_prompt: String::new(),
    };
    e.draft_lease(draft).unwrap();
    e.gates(&[GateAct::Commitment]).unwrap();
    for tool in ["fs.scan", "cluster.duplicates"] {
        assert_eq!(e.call(tool, json!({"path": docs}), CallSource::Script).unwrap().outcome, CallOutcome::Committed);
    }
    let plan = e
        .call(
            "propose.move",
            json!({"moves": [{"from": docs.join("a.txt"), "to": docs.join("b.txt")}]}),
            CallSource::Script,
        )
        .unwrap()
        .artifact
        .unwrap();
    assert_eq!(
        e.call("apply.move", json!({"proposal": plan}), CallSource::Script).unwrap().outcome,
        CallOutcome::Committed
    );
    Data { _tmp: tmp, data, root }
}

#[test]
fn get_status_explains_an_uninitialised_data_dir() {
    let dir = tempfile::tempdir().unwrap();
    let (_app, w) = app(Ok(dir.path().to_path_buf()));
    let text = err_text(invoke(&w, "get_status", json!({})));
    assert!(text.contains("smart init") && text.contains(&dir.path().display().to_string()), "{text}");
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
    smart_runtime::Engine::init(&data, opts, Box::new(smart_runtime::SystemClock))?;
    let (_app, w) = app(Ok(data));
    let v = invoke(&w, "get_status", json!({})).map_err(|e| format!("get_status failed: {e}"))?;
    assert_eq!(v["stance"], "sensemaking");
    assert_eq!(v["frontier"], 0);
    assert_eq!(v["gates"].as_array().map(Vec::len), Some(4));
    assert_eq!(v["budget"]["limit"], 1000);
    assert!(v["pending"].as_array().is_some_and(Vec::is_empty));
    Ok(())
}

#[test]
fn get_status_reports_an_unresolved_data_dir() {
    let (_app, w) = app(Err("no home directory".into()));
    assert_eq!(invoke(&w, "get_status", json!({})), Err(Value::String("no home directory".into())));
}

/// The confirmation flow the HUD drives: a typed command that needs approval, its preview, a
/// decision bound to the shown hash, the commit and its signed approval in the timeline, undo.
#[test]
fn a_typed_quarantine_waits_shows_its_files_and_commits_only_when_approved_with_the_shown_hash() {
    let d = data_at_l3();
    let victim = d.root.join("docs/old.log");
    let (_app, w) = app(Ok(d.data.clone()));

    let said = invoke(&w, "say", json!({"text": "quarantine docs/old.log"})).unwrap();
    assert_eq!(said["steps"][0]["source"], "template", "{said}");
    assert_eq!(said["steps"][0]["outcome"]["outcome"], "pending", "{said}");
    assert!(victim.exists(), "a pending call changed files");

    let list = invoke(&w, "pending_calls", json!({})).unwrap();
    let call = &list["calls"][0];
    assert_eq!(call["tool"], "fs.quarantine");
    assert_eq!((call["layer"].as_u64(), call["tier"].as_u64()), (Some(4), Some(3)));
    assert_eq!(call["preview"]["kind"], "files");
    assert_eq!(std::path::Path::new(call["preview"]["files"][0]["path"].as_str().unwrap()), victim);
    assert_eq!(call["preview"]["files"][0]["bytes"], 10);
    assert_eq!(call["preview"]["total_bytes"], 10);
    assert!(call["admissible_at_ms"].as_u64() <= list["now_ms"].as_u64(), "no gate in this policy: {list}");
    let id = call["id"].as_str().unwrap().to_string();
    let hash = call["call_hash"].as_str().unwrap().to_string();

    // A decision for a hash the dialog did not show signs nothing.
    let wrong = err_text(invoke(&w, "decide", json!({"pendingId": id, "callHash": "ab".repeat(32), "approve": true})));
    assert!(wrong.contains("nothing was signed"), "{wrong}");
    assert!(victim.exists());

    let done = invoke(&w, "decide", json!({"pendingId": id, "callHash": hash, "approve": true})).unwrap();
    assert_eq!(done["outcome"], "committed", "{done}");
    assert!(!victim.exists(), "approved quarantine did not run");

    // The timeline shows the approval (signed, valid) and the commit (undoable).
    let page = invoke(&w, "timeline", json!({"filter": {}, "offset": 0, "limit": 50})).unwrap();
    let rows = page["rows"].as_array().unwrap();
    assert_eq!(page["total"].as_u64(), Some(rows.len() as u64));
    let approved = rows.iter().find(|r| r["kind"] == "approved").unwrap();
    let detail = invoke(&w, "event_detail", json!({"seq": approved["seq"]})).unwrap();
    assert_eq!(detail["signature_ok"], true, "{detail}");
    assert_eq!((detail["hash_ok"].as_bool(), detail["link_ok"].as_bool()), (Some(true), Some(true)));
    assert_eq!(detail["payload"]["signal"]["call_hash"], hash);
    let commit = rows.iter().find(|r| r["kind"] == "committed" && r["tool"] == "fs.quarantine").unwrap();
    assert_eq!(commit["undoable"], true, "{commit}");
    let badge = invoke(&w, "verify_ledger", json!({})).unwrap();
    assert_eq!(badge["ok"], true, "{badge}");

    let undone = invoke(&w, "undo", json!({"seq": commit["seq"]})).unwrap();
    assert_eq!(undone["outcome"], "committed", "{undone}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "0123456789", "undo restored the file");
}

#[test]
fn deny_leaves_the_files_and_records_a_signed_denial() {
    let d = data_at_l3();
    let victim = d.root.join("docs/old.log");
    let (_app, w) = app(Ok(d.data.clone()));
    invoke(&w, "say", json!({"text": "quarantine docs/old.log"})).unwrap();
    let list = invoke(&w, "pending_calls", json!({})).unwrap();
    let call = &list["calls"][0];
    let r = invoke(&w, "decide", json!({"pendingId": call["id"], "callHash": call["call_hash"], "approve": false}))
        .unwrap();
    assert_eq!(r["outcome"], "denied", "{r}");
    assert!(victim.exists());
    assert!(invoke(&w, "pending_calls", json!({})).unwrap()["calls"].as_array().unwrap().is_empty());
    let denied = invoke(&w, "timeline", json!({"filter": {"kinds": ["denied"]}, "offset": 0, "limit": 5})).unwrap();
    assert_eq!(denied["total"], 1, "{denied}");
}

#[test]
fn emergency_stop_falls_back_to_sensemaking_and_drops_the_lease() {
    let d = data_at_l3();
    let (_app, w) = app(Ok(d.data.clone()));
    assert_ne!(invoke(&w, "get_status", json!({})).unwrap()["stance"], "sensemaking");
    let r = invoke(&w, "emergency_stop", json!({})).unwrap();
    assert_eq!(r["outcome"], "recorded", "{r}");
    let s = invoke(&w, "get_status", json!({})).unwrap();
    assert_eq!(s["stance"], "sensemaking", "{s}");
    assert!(s["lease"].is_null(), "{s}");
}

#[test]
fn the_timeline_pages_filters_and_charts_what_the_ledger_holds() {
    let d = data_at_l3();
    let (_app, w) = app(Ok(d.data.clone()));
    let all = invoke(&w, "timeline", json!({"filter": {}, "offset": 0, "limit": 3})).unwrap();
    let total = all["total"].as_u64().unwrap();
    assert_eq!(all["rows"].as_array().unwrap().len(), 3);
    assert_eq!(all["rows"][0]["seq"].as_u64(), Some(total), "newest first");
    let scans = invoke(&w, "timeline", json!({"filter": {"tool": "fs.scan"}, "offset": 0, "limit": 50})).unwrap();
    assert!(scans["rows"].as_array().unwrap().iter().all(|r| r["tool"] == "fs.scan"), "{scans}");
    let bars = invoke(&w, "activity", json!({"filter": {}, "bucketMs": 60_000})).unwrap();
    let sum: u64 = bars.as_array().unwrap().iter().map(|b| b["events"].as_u64().unwrap()).sum();
    assert_eq!(sum, total);
    let tools = invoke(&w, "ledger_tools", json!({})).unwrap();
    assert!(tools.as_array().unwrap().contains(&json!("apply.move")), "{tools}");
    // Bad input is refused with words and changes nothing.
    let missing = err_text(invoke(&w, "event_detail", json!({"seq": total + 10})));
    assert!(missing.contains("no event"), "{missing}");
    let bad = err_text(invoke(&w, "timeline", json!({"filter": {"kinds": "committed"}, "offset": 0, "limit": 5})));
    assert!(bad.contains("filter"), "{bad}");
}

/// With the app's real capability files: any window may read, only the HUD ("main") may decide.
#[test]
fn only_the_hud_window_may_decide_stop_or_undo() {
    let d = data_at_l3();
    let app = setup(mock_builder(), Ok(d.data.clone()), |_| ()).build(tauri::generate_context!(test = true)).unwrap();
    let main = app.get_webview_window("main").unwrap_or_else(|| {
        tauri::WebviewWindowBuilder::new(&app, "main", tauri::WebviewUrl::default()).build().unwrap()
    });
    let other = tauri::WebviewWindowBuilder::new(&app, "other", tauri::WebviewUrl::default()).build().unwrap();

    assert!(invoke(&other, "get_status", json!({})).is_ok());
    assert!(invoke(&other, "timeline", json!({"filter": {}, "offset": 0, "limit": 5})).is_ok());
    for (cmd, args) in [
        ("decide", json!({"pendingId": "x", "callHash": "y", "approve": true})),
        ("emergency_stop", json!({})),
        ("undo", json!({"seq": 1})),
        ("renew_lease", json!({})),
        ("say", json!({"text": "scan docs"})),
        ("init_data_dir", json!({"roots": ["/tmp"]})),
        ("pick_folder", json!({})),
        (
            "set_settings",
            json!({"settings": {"hotkey": "Alt+F9", "wake_word": false, "wake_phrase": "hey smart", "voice_output": false}}),
        ),
        ("slow_loop_view", json!({})),
        ("propose_gate", json!({"gate": "commitment", "severity": "low", "reason": "r"})),
        ("perceive", json!({})),
        ("bootstrap_check_in", json!({})),
        ("bootstrap_answer", json!({"text": "fine"})),
        ("bootstrap_consent", json!({"consent": "listen_only"})),
        ("bootstrap_skip", json!({})),
        ("check_for_update", json!({})),
        ("install_update", json!({"version": "0.2.0", "progress": "__CHANNEL__:1"})),
    ] {
        let e = err_text(invoke(&other, cmd, args.clone()));
        assert!(e.contains("not allowed"), "{cmd} from another window: {e}");
        // From the HUD the same call reaches the backend (and fails there, on its merits).
        if let Err(e) = invoke(&main, cmd, args) {
            assert!(!e.to_string().contains("not allowed"), "{cmd} from the HUD: {e}");
        }
    }
    assert_eq!(invoke(&main, "get_status", json!({})).unwrap()["stance"], "sensemaking", "the HUD's stop went through");
    // The updater plugin's own commands are granted to no window: updates go through
    // `updates.rs`, which installs only what the person was shown.
    for cmd in [
        "plugin:updater|check",
        "plugin:updater|download",
        "plugin:updater|install",
        "plugin:updater|download_and_install",
    ] {
        let e = err_text(invoke(&main, cmd, json!({})));
        assert!(e.contains("not allowed"), "{cmd} from the HUD: {e}");
    }
}

/// The overlay (`overlay.rs`) reads like any window and may bring up the HUD, nothing more.
#[test]
fn the_overlay_may_bring_up_the_hud_but_decide_nothing() {
    let d = data_at_l3();
    let app = setup(mock_builder(), Ok(d.data.clone()), |_| ()).build(tauri::generate_context!(test = true)).unwrap();
    let overlay = app.get_webview_window(crate::overlay::LABEL).unwrap_or_else(|| {
        tauri::WebviewWindowBuilder::new(&app, crate::overlay::LABEL, tauri::WebviewUrl::default()).build().unwrap()
    });
    let other = tauri::WebviewWindowBuilder::new(&app, "other", tauri::WebviewUrl::default()).build().unwrap();
    let stance = invoke(&overlay, "get_status", json!({})).unwrap()["stance"].clone();
    assert!(invoke(&overlay, "voice_status", json!({})).is_ok());
    assert!(invoke(&overlay, "show_main", json!({})).is_ok(), "the overlay's one command");
    let e = err_text(invoke(&other, "show_main", json!({})));
    assert!(e.contains("not allowed"), "show_main from a window that is not the overlay: {e}");
    for (cmd, args) in [
        ("decide", json!({"pendingId": "x", "callHash": "y", "approve": true})),
        ("emergency_stop", json!({})),
        ("undo", json!({"seq": 1})),
        ("say", json!({"text": "scan docs"})),
        ("push_to_talk", json!({"down": true})),
        ("check_for_update", json!({})),
        ("install_update", json!({"version": "0.2.0", "progress": "__CHANNEL__:1"})),
        (
            "set_settings",
            json!({"settings": {"hotkey": "Alt+F9", "wake_word": false, "wake_phrase": "hey smart", "voice_output": false}}),
        ),
    ] {
        let e = err_text(invoke(&overlay, cmd, args));
        assert!(e.contains("not allowed"), "{cmd} from the overlay: {e}");
    }
    assert_eq!(invoke(&overlay, "get_status", json!({})).unwrap()["stance"], stance, "nothing was stopped");
}

#[test]
fn first_launch_creates_the_data_dir_only_for_existing_full_paths() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let root = dunce::canonicalize(tmp.path()).unwrap().join("docs");
    std::fs::create_dir_all(&root).unwrap();
    let (_app, w) = app(Ok(data.clone()));
    let s = invoke(&w, "setup_state", json!({})).unwrap();
    assert_eq!(s["initialised"], false, "{s}");
    assert_eq!(s["data_dir"], data.to_str().unwrap());
    assert!(s["models"].as_array().unwrap().iter().any(|m| m["default"] == true), "the catalog is listed: {s}");

    for (roots, says) in [
        (json!([]), "at least one folder"),
        (json!(["  "]), "at least one folder"),
        (json!(["docs"]), "not a full path"),
        (json!([root.join("missing").to_str().unwrap()]), "not an existing folder"),
    ] {
        let e = err_text(invoke(&w, "init_data_dir", json!({ "roots": roots })));
        assert!(e.contains(says), "{roots}: {e}");
        assert!(!data.exists(), "a refused setup created {}", data.display());
    }
    let s = invoke(&w, "init_data_dir", json!({"roots": [root.to_str().unwrap()]})).unwrap();
    assert_eq!(s["initialised"], true, "{s}");
    assert_eq!(s["roots"], json!([root.to_str().unwrap()]));
    // The HUD works at once, without a restart.
    assert_eq!(invoke(&w, "get_status", json!({})).unwrap()["stance"], "sensemaking");
    let again = err_text(invoke(&w, "init_data_dir", json!({"roots": [root.to_str().unwrap()]})));
    assert!(again.contains("already"), "{again}");
}

#[test]
fn settings_are_validated_saved_and_read_back() {
    let d = data_at_l3();
    let (_app, w) = app(Ok(d.data.clone()));
    let s = invoke(&w, "get_settings", json!({})).unwrap();
    assert_eq!(s["hotkey"], crate::settings::DEFAULT_HOTKEY);
    let mut changed = s.clone();
    changed["hotkey"] = json!("Alt+Shift+K");
    changed["wake_word"] = json!(true);
    assert_eq!(invoke(&w, "set_settings", json!({ "settings": changed })).unwrap(), changed);
    assert_eq!(invoke(&w, "get_settings", json!({})).unwrap(), changed);
    for (field, value, says) in
        [("hotkey", json!("Banana+Q"), "not a shortcut"), ("wake_phrase", json!("!"), "wake phrase")]
    {
        let mut bad = changed.clone();
        bad[field] = value;
        let e = err_text(invoke(&w, "set_settings", json!({ "settings": bad })));
        assert!(e.contains(says), "{field}: {e}");
    }
    assert_eq!(invoke(&w, "get_settings", json!({})).unwrap(), changed, "a refused change saved nothing");
    let e = err_text(invoke(&w, "pick_folder", json!({})));
    assert!(e.contains("type the folder"), "{e}");
    assert!(invoke(&w, "heartbeat", json!({})).is_ok());
}

#[test]
fn a_pending_confirmation_survives_an_app_restart() {
    let d = data_at_l3();
    let (id, hash) = {
        let (app, w) = app(Ok(d.data.clone()));
        invoke(&w, "say", json!({"text": "quarantine docs/old.log"})).unwrap();
        let call = invoke(&w, "pending_calls", json!({})).unwrap()["calls"][0].clone();
        drop(app);
        (call["id"].clone(), call["call_hash"].clone())
    };
    // A new app over the same data dir: the same call waits, with the same hash, and can be approved.
    let (_app, w) = app(Ok(d.data.clone()));
    let list = invoke(&w, "pending_calls", json!({})).unwrap();
    assert_eq!(
        (list["calls"][0]["id"].clone(), list["calls"][0]["call_hash"].clone()),
        (id.clone(), hash.clone()),
        "{list}"
    );
    let r = invoke(&w, "decide", json!({"pendingId": id, "callHash": hash, "approve": true})).unwrap();
    assert_eq!(r["outcome"], "committed", "{r}");
}

#[test]
fn renewing_the_lease_moves_its_expiry_forward_and_keeps_execution() {
    let d = data_at_l3();
    let (_app, w) = app(Ok(d.data.clone()));
    let before = invoke(&w, "get_status", json!({})).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let r = invoke(&w, "renew_lease", json!({})).unwrap();
    assert_eq!(r["outcome"], "recorded", "{r}");
    let after = invoke(&w, "get_status", json!({})).unwrap();
    assert_eq!(after["stance"], "execution", "{after}");
    assert!(after["lease"]["expires_at_ms"].as_u64() > before["lease"]["expires_at_ms"].as_u64(), "{before} → {after}");
    // Without a lease there is nothing to renew: refused, in words.
    invoke(&w, "emergency_stop", json!({})).unwrap();
    let r = invoke(&w, "renew_lease", json!({})).unwrap();
    assert_eq!(r["outcome"], "refused", "{r}");
    assert!(r["reason"].as_str().is_some_and(|s| !s.is_empty()), "{r}");
}

/// Polls `voice_status` until it leaves "starting" (the worker loads whisper in the background).
fn settled_voice(webview: &tauri::WebviewWindow<MockRuntime>) -> Value {
    for _ in 0..240 {
        let s = invoke(webview, "voice_status", json!({})).unwrap();
        if s["state"] != "starting" && s["state"] != "off" {
            return s;
        }
        std::thread::sleep(std::time::Duration::from_millis(250));
    }
    panic!("the voice path did not settle within a minute");
}

#[test]
fn without_a_sound_card_the_app_reports_no_microphone_and_typing_still_works() {
    // This machine (and CI) has no sound card: the voice worker loads whisper, finds no input
    // device, and the app says so — and the typed path is unaffected.
    let models_dir = smart_models::Models::open_default().unwrap().dir().to_path_buf();
    let d = data_at_l3();
    let (_app, webview) = app(Ok(d.data.clone()));
    let s = settled_voice(&webview);
    assert_eq!(
        s["state"],
        "no_microphone",
        "{s} (the voice models must be in {}: smart models fetch whisper-tiny.en silero-vad)",
        models_dir.display()
    );
    assert!(s["detail"].as_str().unwrap().contains("no microphone"), "{s}");
    assert_eq!(s["whisper"], "ggml-tiny.en.bin", "{s}");
    let err = err_text(invoke(&webview, "push_to_talk", json!({"down": true})));
    assert!(err.contains("voice input is not available") && err.contains("no microphone"), "{err}");
    let said = invoke(&webview, "say", json!({"text": "scan docs"})).unwrap();
    assert_eq!(said["steps"][0]["outcome"]["outcome"], "committed", "{said}");

    // New settings restart the voice path with them at once.
    let settings = json!({"hotkey": "Alt+F9", "wake_word": false, "wake_phrase": "hey smart", "voice_output": true});
    invoke(&webview, "set_settings", json!({ "settings": settings })).unwrap();
    assert_eq!(invoke(&webview, "voice_status", json!({})).unwrap()["state"], "starting");
    assert_eq!(settled_voice(&webview)["state"], "no_microphone");
}

/// A data dir made by `smart init` and nothing else: a fresh ledger, first contact.
fn fresh_data() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = dunce::canonicalize(tmp.path()).unwrap().join("root");
    std::fs::create_dir_all(&root).unwrap();
    let data = tmp.path().join("data");
    let opts = smart_runtime::InitOptions {
        roots: vec![root],
        policy: None,
        key_store: Some(smart_signals::KeyStoreKind::File),
    };
    smart_runtime::Engine::init(&data, opts, Box::new(smart_runtime::SystemClock)).unwrap();
    (tmp, data)
}

#[test]
fn a_fresh_ledger_starts_bootstrap_and_the_next_run_resumes_it() {
    let (_tmp, data) = fresh_data();
    {
        let (_app, w) = app(Ok(data.clone()));
        let v = invoke(&w, "slow_loop_view", json!({})).unwrap();
        let b = &v["memory"]["bootstrap"];
        assert_eq!(b["stage"], "ladder", "{v}");
        assert_eq!(b["propose_only"], true, "{v}");
        assert!(b["prompt"].as_str().unwrap().contains("ladder"), "{v}");
        assert_eq!(v["existing_user"], false);
        // The view reads again without starting anything twice.
        let again = invoke(&w, "slow_loop_view", json!({})).unwrap();
        assert_eq!(again["memory"]["bootstrap"]["sessions"], 1, "{again}");

        let r = invoke(&w, "bootstrap_answer", json!({"text": "about a 6"})).unwrap();
        assert_eq!((r["outcome"]["outcome"].as_str(), r["stage"].as_str()), (Some("recorded"), Some("anchor")), "{r}");
        assert!(r["prompt"].as_str().unwrap().contains("slipping"), "{r}");
        assert_eq!(r["propose_only"], true);
        assert!(r["turn"].is_null(), "{r}");
        let bad = err_text(invoke(&w, "bootstrap_consent", json!({"consent": "maybe"})));
        assert!(bad.contains("listen_only, propose_structure or ready_for_commitment"), "{bad}");
        // Consent before the permission question is the machine's to refuse, in words.
        let early = invoke(&w, "bootstrap_consent", json!({"consent": "ready_for_commitment"})).unwrap();
        assert_eq!(early["outcome"]["outcome"], "refused", "{early}");
        assert_eq!(early["stage"], "anchor");
    }
    // A new run of the app over the same data dir picks the conversation up where it was.
    let (_app, w) = app(Ok(data.clone()));
    let v = invoke(&w, "slow_loop_view", json!({})).unwrap();
    let b = &v["memory"]["bootstrap"];
    assert_eq!((b["stage"].as_str(), b["sessions"].as_u64()), (Some("anchor"), Some(2)), "{v}");
    assert!(b["prompt"].as_str().unwrap().starts_with("Welcome back."), "{v}");
    for answer in ["my morning walk", "I would sleep better", "a reminder at ten"] {
        invoke(&w, "bootstrap_answer", json!({ "text": answer })).unwrap();
    }
    let v = invoke(&w, "slow_loop_view", json!({})).unwrap();
    assert_eq!(v["memory"]["bootstrap"]["stage"], "permission", "{v}");
    let r = invoke(&w, "bootstrap_consent", json!({"consent": "propose_structure"})).unwrap();
    assert_eq!((r["stage"].as_str(), r["propose_only"].as_bool()), (Some("done"), Some(true)), "{r}");
    // Done: an answer is no longer bootstrap's, and the card's commands say so.
    let e = err_text(invoke(&w, "bootstrap_answer", json!({"text": "scan docs"})));
    assert!(e.contains("not listening"), "{e}");
    let snapshot = &invoke(&w, "slow_loop_view", json!({})).unwrap()["memory"]["bootstrap"]["snapshot"];
    assert_eq!(snapshot["stabilizers"], "my morning walk", "{snapshot}");
}

#[test]
fn skipping_the_introduction_lifts_propose_only() {
    let (_tmp, data) = fresh_data();
    let (_app, w) = app(Ok(data));
    let r = invoke(&w, "bootstrap_skip", json!({})).unwrap();
    assert_eq!((r["stage"].as_str(), r["propose_only"].as_bool()), (Some("done"), Some(false)), "{r}");
    assert!(r["prompt"].is_null(), "{r}");
}

#[test]
fn an_existing_user_is_not_started_proposes_as_the_person_and_can_check_in() {
    let d = data_at_l3();
    let (_app, w) = app(Ok(d.data.clone()));
    let v = invoke(&w, "slow_loop_view", json!({})).unwrap();
    assert!(v["memory"]["bootstrap"].is_null(), "a returning person is not interviewed: {v}");
    assert_eq!(v["existing_user"], true);
    assert!(v["gates"].as_array().unwrap().iter().any(|g| g["to"] == "execution"), "{v}");
    // Made a moment ago in one go: one session, from genesis, with the calls it carried out.
    let sessions = v["sessions"].as_array().unwrap();
    assert_eq!((sessions.len(), sessions[0]["first_seq"].as_u64()), (1, Some(1)), "{v}");
    assert!(sessions[0]["committed"].as_u64().unwrap() >= 2, "{v}");
    assert_eq!(v["session_gap_ms"], 1_800_000);

    // Committing again while committed: the controller rejects it, with the reason.
    let r = invoke(&w, "propose_gate", json!({"gate": "commitment", "severity": "medium", "reason": "lock it in"}))
        .unwrap();
    assert_eq!(r["outcome"]["outcome"], "recorded", "{r}");
    assert_eq!(r["verdict"], "rejected", "{r}");
    assert!(r["reason"].as_str().unwrap().contains("already committed"), "{r}");
    // The person's own evaluation proposal pauses execution.
    let r = invoke(&w, "propose_gate", json!({"gate": "evaluation", "severity": "low", "reason": "let's look back"}))
        .unwrap();
    assert_eq!(r["verdict"], "accepted", "{r}");
    assert_eq!(invoke(&w, "get_status", json!({})).unwrap()["stance"], "evaluation");
    let v = invoke(&w, "slow_loop_view", json!({})).unwrap();
    let verdict = &v["reads"][0]["verdicts"][0];
    assert_eq!(
        (verdict["verdict"].as_str(), verdict["proposal"]["origin"].as_str()),
        (Some("accepted"), Some("person"))
    );
    assert_eq!(v["reads"][1]["verdicts"][0]["verdict"], "rejected", "newest first: {v}");
    // Bad words are refused before anything is recorded.
    let e = err_text(invoke(&w, "propose_gate", json!({"gate": "lunch", "severity": "low", "reason": "r"})));
    assert!(e.contains("framing, commitment or evaluation"), "{e}");
    let r = invoke(&w, "propose_gate", json!({"gate": "framing", "severity": "low", "reason": "  "})).unwrap();
    assert_eq!(r["outcome"]["outcome"], "refused", "{r}");
    assert!(r["verdict"].is_null(), "{r}");

    // Nothing said yet: perception has nothing to read, and says so as its answer.
    let p = invoke(&w, "perceive", json!({})).unwrap();
    assert!(p["error"].as_str().unwrap().contains("no conversation"), "{p}");
    assert!(p["summary"].is_null(), "{p}");

    let c = invoke(&w, "bootstrap_check_in", json!({})).unwrap();
    assert_eq!((c["stage"].as_str(), c["propose_only"].as_bool()), (Some("check_in"), Some(false)), "{c}");
    let done = invoke(&w, "bootstrap_answer", json!({"text": "still on track"})).unwrap();
    assert_eq!(done["stage"], "done", "{done}");
    let again = invoke(&w, "bootstrap_check_in", json!({})).unwrap();
    assert_eq!(again["outcome"]["outcome"], "refused", "bootstrap comes back only by re-entry: {again}");
}
