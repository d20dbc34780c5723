//! `smart quarantine`, `smart index` and `smart record`: the person's view of what SMART set
//! aside, what it remembers about their files, and the records it keeps.

use crate::cli::{Args, IndexCmd, QuarantineCmd, open};
use crate::output::{exit_code, print_json, print_report};
use anyhow::Result;
use serde_json::json;
use smart_kernel::CallSource;
use smart_kernel::time::format_duration;

pub fn quarantine(args: &Args, cmd: &QuarantineCmd) -> Result<i32> {
    let json = args.json;
    let mut e = open(args)?;
    match cmd {
        QuarantineCmd::List => {
            let list = e.quarantine_list()?;
            if json {
                print_json(&json!({ "batches": list, "retention_days": smart_runtime::quarantine::RETENTION_DAYS }));
                return Ok(0);
            }
            if list.is_empty() {
                say!("the quarantine is empty");
            }
            let now = e.now().0;
            for b in &list {
                let age = b
                    .made_at_ms
                    .map(|t| format!("{} ago", format_duration(now.saturating_sub(t))))
                    .unwrap_or_else(|| "age unknown".into());
                let by = match (&b.tool, b.seq) {
                    (Some(t), Some(s)) => format!("{t} at event {s}"),
                    _ => "not in this ledger".into(),
                };
                say!(
                    "{}  {} item(s), {} bytes, {age}, by {by}{}",
                    b.batch,
                    b.items,
                    b.bytes,
                    if b.due_for_purge { " (due for purge)" } else { "" }
                );
                for o in b.originals.iter().take(5) {
                    say!("    {o}");
                }
                if b.originals.len() > 5 {
                    say!("    … and {} more", b.originals.len() - 5);
                }
                if let Some(a) = &b.compacted_into {
                    say!("    packed into {a}");
                }
                say!("    restore: smart quarantine restore {}   purge: smart quarantine purge {}", b.batch, b.batch);
            }
            Ok(0)
        }
        QuarantineCmd::Restore { batch } => {
            let r = e.quarantine_restore(batch)?;
            print_report(&r, &format!("restore of batch {batch}"), json);
            Ok(exit_code(&r))
        }
        QuarantineCmd::Purge { batches, due } => {
            let names: Vec<String> = if *due {
                e.quarantine_list()?.into_iter().filter(|b| b.due_for_purge).map(|b| b.batch).collect()
            } else {
                batches.clone()
            };
            if names.is_empty() {
                say!(
                    "{}",
                    if *due {
                        "no batch is due for purging"
                    } else {
                        "name the batches to purge (see `smart quarantine list`)"
                    }
                );
                return Ok(if *due { 0 } else { 2 });
            }
            let mut code = 0;
            for b in names {
                let r = e.call("quarantine.purge", json!({ "batch": b }), CallSource::Person)?;
                print_report(&r, &format!("purge of batch {b}"), json);
                code = code.max(exit_code(&r));
            }
            Ok(code)
        }
    }
}

pub fn index(args: &Args, cmd: &IndexCmd) -> Result<i32> {
    let json = args.json;
    let e = open(args)?;
    match cmd {
        IndexCmd::Update => {
            let mut last = std::time::Instant::now();
            let r = e.index_update(None, &mut |done, path| {
                if !json && last.elapsed().as_millis() >= 1000 {
                    last = std::time::Instant::now();
                    eprintln!("indexing: {done} files looked at ({path})");
                }
            })?;
            if json {
                print_json(&r);
            } else {
                say!(
                    "index updated ({}): {} looked at, {} added, {} updated, {} removed, {} unchanged, {} skipped, in {} ms",
                    r.mode,
                    r.scanned,
                    r.added,
                    r.updated,
                    r.removed,
                    r.unchanged,
                    r.skipped,
                    r.ms
                );
            }
            Ok(0)
        }
        IndexCmd::Status => {
            let s = e.index_stats()?;
            if json {
                print_json(&s);
            } else if let Ok(text) = serde_json::to_string_pretty(&s) {
                say!("{text}");
            }
            Ok(0)
        }
    }
}

pub fn record(args: &Args, collection: &str, key: &str) -> Result<i32> {
    let e = open(args)?;
    match smart_tools::record(&e.places().records, collection, key).map_err(anyhow::Error::msg)? {
        Some(v) => {
            if args.json {
                print_json(&json!({ "collection": collection, "key": key, "value": v }));
            } else {
                say!("{v}");
            }
            Ok(0)
        }
        None => {
            eprintln!("no record {collection}/{key}");
            Ok(1)
        }
    }
}
