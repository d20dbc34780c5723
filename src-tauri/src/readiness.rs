//! Getting ready: the app evaluates the ranking prompt before anyone speaks.
//!
//! Understanding ranks every visible tool over a prompt whose static part (instructions, one line
//! per tool, worked examples) is the same for every utterance in a scope. Evaluated cold it takes
//! tens of seconds on two cores; cached, an utterance costs only its own words. So at start, and
//! whenever the visible tools change, the app evaluates that part in a worker of its own — in the
//! background, without holding the runtime, so the HUD, the timeline and the dialogs stay live —
//! and leaves it in the models folder's prefix cache. Meanwhile the HUD says "getting ready" and
//! a turn waits for it (`Session::until_ready`) rather than evaluating the same prompt beside it.
//! Then the runtime's own worker is started and finds the prefix on disk.

use crate::session::Session;
use smart_runtime::BusEvent;
use smart_runtime::model_choice::proposer_spec;
use std::time::Duration;
use tauri::{AppHandle, Manager, Runtime};

/// The longest a turn waits for understanding to be ready before going ahead anyway.
pub const LONGEST_WAIT: Duration = Duration::from_secs(180);

/// How often the visible tools are checked for a change of scope.
const EVERY: Duration = Duration::from_secs(10);

pub async fn prepare_loop<R: Runtime>(app: AppHandle<R>) {
    let mut prepared_for: Option<Vec<String>> = None;
    loop {
        let session = app.state::<Session>();
        let found = session.with_engine(|e| Ok((e.visible_tools()?, e.data_dir().to_path_buf()))).await;
        if let Ok((tools, dir)) = found {
            let names: Vec<String> = tools.iter().map(|t| t.name.clone()).collect();
            // No model yet (onboarding offers to fetch it): templates still work, and the next
            // round looks again.
            let spec = (proposer_spec(dir))();
            if let (Ok(spec), false) = (spec, tools.is_empty() || prepared_for.as_ref() == Some(&names)) {
                session.set_ready(false);
                session.bus().emit("", BusEvent::Preparing);
                let result = smart_runtime::understanding::prepare_in_own_worker(spec, &tools, Default::default())
                    .await
                    .map_err(|e| e.to_string());
                match result {
                    Ok(t) => {
                        prepared_for = Some(names);
                        // The runtime's worker loads the model and the prefix from disk now, not
                        // at the person's first sentence.
                        if let Ok(mut a) = session.open().await
                            && let Err(e) = a.prepare().await
                        {
                            tracing::warn!(error = %e, "the runtime's worker could not load the prepared prompt");
                        }
                        session
                            .bus()
                            .emit("", BusEvent::Prepared { tokens: t.prompt_tokens, ms: t.prompt_ms.round() as u64 });
                    }
                    Err(e) => {
                        // A broken model or worker: templates still work, a turn that needs the
                        // model starts it (and says why it cannot), and a change of scope tries
                        // again here.
                        prepared_for = Some(names);
                        tracing::warn!(error = %e, "understanding could not get ready");
                        session
                            .bus()
                            .emit("", BusEvent::WorkerFault { reason: e, restart_in_ms: EVERY.as_millis() as u64 });
                    }
                }
                session.set_ready(true);
            }
        }
        tokio::time::sleep(EVERY).await;
    }
}
