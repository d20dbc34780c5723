//! The app keeps the library index current while it runs.
//!
//! A watcher over the allowed roots collects changed paths; every few seconds they are folded
//! into the index on a blocking thread, without holding the kernel (the index is the runtime's
//! housekeeping, not a kernel decision). At start, and whenever the watcher reports lost events,
//! a full sync re-reads only what changed by size or time. Until a data dir exists this waits.

use crate::session::Session;
use smart_runtime::watch::{Dirty, RootWatcher};
use smart_runtime::{Clock, SystemClock};
use std::time::Duration;
use tauri::{AppHandle, Manager, Runtime};

const EVERY: Duration = Duration::from_secs(3);

pub async fn library_loop<R: Runtime>(app: AppHandle<R>) {
    let places = loop {
        let session = app.state::<Session>();
        match session.with_engine(|e| Ok(e.places())).await {
            Ok(p) => break p,
            Err(_) => tokio::time::sleep(Duration::from_secs(5)).await,
        }
    };
    let watcher = match RootWatcher::start(&places.roots) {
        Ok(w) => Some(w),
        Err(e) => {
            tracing::warn!(error = %e, "no file watcher; the index is synced in full instead");
            None
        }
    };
    let mut pending: Option<Dirty> = None; // None = a full sync is due
    loop {
        let p = places.clone();
        let dirty = pending.take();
        let full = dirty.is_none();
        let result = tauri::async_runtime::spawn_blocking(move || {
            smart_runtime::library::update_index(&p, SystemClock.now_ms(), dirty, &mut |_, _| {})
        })
        .await;
        match result {
            Ok(Ok(r)) if full || r.added + r.updated + r.removed > 0 => {
                tracing::info!(
                    mode = r.mode,
                    added = r.added,
                    updated = r.updated,
                    removed = r.removed,
                    ms = r.ms,
                    "index"
                )
            }
            Ok(Ok(_)) => {}
            Ok(Err(e)) => tracing::warn!(error = %e, "index update failed"),
            Err(e) => tracing::warn!(error = %e, "index task failed"),
        }
        loop {
            tokio::time::sleep(if watcher.is_some() { EVERY } else { EVERY * 20 }).await;
            match &watcher {
                Some(w) => {
                    let d = w.drain();
                    if !d.is_empty() {
                        pending = if d.overflowed { None } else { Some(d) };
                        break;
                    }
                }
                None => break,
            }
        }
    }
}
