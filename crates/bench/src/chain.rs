//! Section 3: a large ledger built through the real kernel, then verified and replayed.

use crate::Summary;
use crate::sim::{BenchKey, Generator, Row};
use crate::stats::{bytes, int, per_sec, rate, secs};
use anyhow::{Result, bail};
use smart_ledger::{Ledger, NewEvent};
use std::path::Path;
use std::time::{Duration, Instant};

/// Events per append transaction while generating (whole decisions, so a batch may run over).
const BATCH: usize = 1_000;

fn flush(ledger: &mut Ledger, buf: &mut Vec<Row>, appended: &mut u64, key: &BenchKey) -> Result<()> {
    if buf.is_empty() {
        return Ok(());
    }
    let batch: Vec<NewEvent<'_>> = buf
        .iter()
        .map(|r| NewEvent {
            corr: &r.corr,
            event: &r.event,
            at: r.at,
            wall_ms: r.wall_ms,
            state_before: r.before,
            state_after: r.after,
        })
        .collect();
    let seqs = ledger.append(*appended, &batch, key)?;
    *appended += seqs.len() as u64;
    buf.clear();
    Ok(())
}

fn file_len(p: &Path) -> u64 {
    std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)
}

/// Events appended since the last open or close, for the open-from-a-mark figure.
const NEW_SINCE_MARK: u64 = 1_000;

pub fn run(n: u64, epoch: u64, dir: &Path, s: &mut Summary) -> Result<()> {
    println!("\n== 3. verify and replay a {}-event ledger built through the real kernel ==", int(n));
    // A data dir as `smart init` leaves it (the key in a 0600 file), so that the engine itself
    // can be opened on the ledger at the end.
    let data = dir.join("data");
    std::fs::create_dir_all(&data)?;
    let path = smart_runtime::DataDir::new(&data).ledger();
    let key = BenchKey::new();
    key.write_key_file(&data)?;
    // The state as the engine last saved it: NEW_SINCE_MARK events before the end, as if
    // another process had appended those since (an engine saves one every 64 events and on
    // close, so this is the most an open replays after a busy day elsewhere).
    let snapshot_due = n.saturating_sub(NEW_SINCE_MARK).max(1);
    // Where it was saved: the first decision's end at or after `snapshot_due`.
    let mut snapshot_at = 0;
    let mut generator = Generator::new(epoch)?;
    let mut ledger = Ledger::create(&path)?;
    let mut buf: Vec<Row> = Vec::with_capacity(BATCH + 16);
    let mut appended = 0u64;
    let (mut kernel_t, mut append_t) = (Duration::ZERO, Duration::ZERO);
    let step = (n / 10).max(1);
    let mut next_report = step;
    let started = Instant::now();
    while generator.seq() < n {
        let t = Instant::now();
        generator.next(n - generator.seq(), &mut buf)?;
        kernel_t += t.elapsed();
        if buf.len() >= BATCH {
            let t = Instant::now();
            flush(&mut ledger, &mut buf, &mut appended, &key)?;
            append_t += t.elapsed();
        }
        if snapshot_at == 0 && generator.seq() >= snapshot_due {
            let t = Instant::now();
            flush(&mut ledger, &mut buf, &mut appended, &key)?;
            append_t += t.elapsed();
            ledger.save_snapshot(appended, &serde_json::to_string(&generator.sim.state)?)?;
            snapshot_at = appended;
        }
        if generator.seq() >= next_report {
            eprintln!("   … {} events generated ({:.1} s)", int(generator.seq()), started.elapsed().as_secs_f64());
            next_report += step;
        }
    }
    let t = Instant::now();
    flush(&mut ledger, &mut buf, &mut appended, &key)?;
    append_t += t.elapsed();
    let generated = started.elapsed();
    if appended != n {
        bail!("generated {appended} events, asked for {n}");
    }
    let final_hash = generator.sim.state.hash()?.to_hex();
    let wal_before_close = file_len(&path.with_extension("db-wal"));
    drop(ledger);
    let size = file_len(&path);
    let wal = file_len(&path.with_extension("db-wal"));
    let mix: Vec<String> = generator.kinds.iter().map(|(k, v)| format!("{k} {}", int(*v))).collect();
    println!(
        "   workload: {} fs.hash calls; lease epochs of {} calls; batches of ~{BATCH} events per transaction",
        int(generator.calls),
        if epoch == 0 { "unbounded".to_string() } else { int(epoch) }
    );
    println!("   event mix: {}", mix.join(", "));
    println!(
        "   generation: {} total ({} events/s): kernel + state hashes {}, Ledger::append {}",
        secs(generated),
        rate(per_sec(n, generated.as_nanos())),
        secs(kernel_t),
        secs(append_t)
    );
    println!(
        "   file: {} ({} bytes/event){}",
        bytes(size + wal),
        int((size + wal) / n.max(1)),
        if wal > 0 { format!(", of which WAL {}", bytes(wal)) } else { String::new() }
    );
    if wal_before_close > 0 {
        println!("   (WAL was {} before the writer closed; closing checkpointed it)", bytes(wal_before_close));
    }

    let ledger = Ledger::open(&path)?;
    let public = key.public_hex();
    // The floor under verify: reading every row, nothing checked.
    let t = Instant::now();
    let mut read = 0u64;
    ledger.for_each(|_| {
        read += 1;
        true
    })?;
    let read_t = t.elapsed();
    println!(
        "   read every row, nothing checked (verify's floor): {} → {} events/s",
        secs(read_t),
        rate(per_sec(read, read_t.as_nanos()))
    );
    let t = Instant::now();
    let v = smart_ledger::verify(&ledger, Some(&public), Some(&key))?;
    let verify_t = t.elapsed();
    if !v.ok || v.events != n {
        bail!(
            "verify: ok={} events={} (expected {n}); first bad {:?}: {:?}",
            v.ok,
            v.events,
            v.first_bad_seq,
            v.reason
        );
    }
    println!(
        "   verify (chain, seals, signatures, signed head): {} → {} events/s",
        secs(verify_t),
        rate(per_sec(n, verify_t.as_nanos()))
    );

    let t = Instant::now();
    let v = smart_ledger::verify_to(&ledger, Some(&public), Some(&key), smart_ledger::Depth::Authentic)?;
    let authentic_t = t.elapsed();
    if !v.ok || v.events != n {
        bail!("verify on open: ok={} events={} (expected {n}); {:?}", v.ok, v.events, v.reason);
    }
    println!(
        "   verify on open (chain, seals, signed head, anchor; payloads not re-read): {} → {} events/s",
        secs(authentic_t),
        rate(per_sec(n, authentic_t.as_nanos()))
    );

    // What an open does when an earlier open or close left its mark: the events after it, the
    // genesis event, the signed head and the anchor.
    let fresh = NEW_SINCE_MARK.min(n.saturating_sub(1));
    let marked_seq = n - fresh;
    let marked_hash = ledger.get(marked_seq)?.map(|r| r.hash).unwrap_or_default();
    let mark = smart_ledger::Mark { seq: marked_seq, hash: marked_hash, schema: ledger.schema_version()? };
    ledger.mark_verified(&mark, &key)?;
    let t = Instant::now();
    let held = ledger.verified_mark(&key)?;
    let v =
        smart_ledger::verify_from(&ledger, Some(&public), Some(&key), smart_ledger::Depth::Authentic, held.as_ref())?;
    let marked_t = t.elapsed();
    if !v.ok || v.events != n || held.is_none() {
        bail!(
            "verify on open from a mark: ok={} events={} mark held={}; {:?}",
            v.ok,
            v.events,
            held.is_some(),
            v.reason
        );
    }
    println!(
        "   verify on open from the last verified mark ({} new events): {:.1} ms",
        int(fresh),
        marked_t.as_secs_f64() * 1e3
    );

    let t = Instant::now();
    let (_state, r) = smart_ledger::replay(&ledger)?;
    let replay_t = t.elapsed();
    if !r.ok || r.events != n {
        bail!(
            "replay: ok={} events={} (expected {n}); first divergent {:?}: {:?}",
            r.ok,
            r.events,
            r.first_divergent_seq,
            r.reason
        );
    }
    if r.state_hash.as_deref() != Some(final_hash.as_str()) {
        bail!("replay ended at state {:?}, the generator at {final_hash}", r.state_hash);
    }
    println!(
        "   replay (apply every event, recompute every state hash): {} → {} events/s",
        secs(replay_t),
        rate(per_sec(n, replay_t.as_nanos()))
    );
    println!("   both reports ok, {} events each; replayed state hash = generator's", int(n));

    // Replay as `smart ledger replay` runs it by default: from the newest snapshot an
    // authentic event vouches for.
    let t = Instant::now();
    let (_state, r) = smart_ledger::replay_from_snapshot(&ledger, &key)?;
    let replay_snap_t = t.elapsed();
    if !r.ok || r.events != n || r.from_seq != snapshot_at || r.state_hash.as_deref() != Some(final_hash.as_str()) {
        bail!(
            "replay from the snapshot at {snapshot_at}: ok={} events={} from {} state {:?}; {:?}",
            r.ok,
            r.events,
            r.from_seq,
            r.state_hash,
            r.reason
        );
    }
    println!(
        "   replay from the snapshot at event {} ({} events after it): {:.1} ms",
        int(snapshot_at),
        int(n - snapshot_at),
        replay_snap_t.as_secs_f64() * 1e3
    );

    // What the app (and every CLI command) does first: open the engine on the data dir — the
    // key, the new events since the verified mark, the snapshot and the events after it, the
    // calls left in flight.
    let t = Instant::now();
    let engine = smart_runtime::Engine::open(&data, Box::new(smart_runtime::SystemClock))?;
    let open_t = t.elapsed();
    if engine.state().hash()?.to_hex() != final_hash {
        bail!("the opened engine's state is not the generator's");
    }
    drop(engine);
    println!(
        "   Engine::open on the data dir (verified mark {} and snapshot {} events back): {:.1} ms",
        int(fresh),
        int(n - snapshot_at),
        open_t.as_secs_f64() * 1e3
    );

    // The timeline as the app asks for it: the matching count and the newest page of 100.
    let rarest = generator.kinds.iter().min_by_key(|(_, v)| **v).map(|(k, _)| k.to_string()).unwrap_or_default();
    let newest_corr = ledger.get(n)?.map(|r| r.corr.chars().take(8).collect::<String>()).unwrap_or_default();
    let filters = [
        ("all events", smart_ledger::EventFilter::default()),
        (
            &*format!("kind {rarest} (the rarest)"),
            smart_ledger::EventFilter { kinds: vec![rarest.clone()], ..Default::default() },
        ),
        ("tool fs.hash", smart_ledger::EventFilter { tool: Some("fs.hash".into()), ..Default::default() }),
        ("the newest event's corr prefix", smart_ledger::EventFilter { corr: Some(newest_corr), ..Default::default() }),
    ];
    let mut timeline = vec![];
    for (name, filter) in &filters {
        let t = Instant::now();
        let total = ledger.count(filter)?;
        let rows = ledger.page(filter, 0, 100)?;
        let took = t.elapsed();
        if total == 0 || rows.is_empty() {
            bail!("timeline, {name}: nothing matched");
        }
        println!(
            "   timeline, {name}: count {} + newest page of {}: {:.1} ms",
            int(total),
            rows.len(),
            took.as_secs_f64() * 1e3
        );
        timeline.push((format!("count + first page, {name}"), took));
    }

    let t = Instant::now();
    let tools = ledger.tools()?;
    let tools_t = t.elapsed();
    if tools.is_empty() {
        bail!("the timeline's tool menu is empty");
    }
    println!("   timeline's tool menu ({} tools): {:.1} ms", tools.len(), tools_t.as_secs_f64() * 1e3);
    timeline.push((format!("tool menu ({} tools)", tools.len()), tools_t));

    // Where replay's time goes: reading rows, reading payloads back as events, applying them,
    // hashing the state after each.
    let (mut parse_ns, mut apply_ns, mut hash_ns) = (0u128, 0u128, 0u128);
    let mut st = smart_kernel::KernelState::default();
    let t = Instant::now();
    let mut failed = None;
    ledger.for_each(|row| {
        let t = Instant::now();
        let ev = row.event();
        parse_ns += t.elapsed().as_nanos();
        let t = Instant::now();
        let applied = ev
            .map_err(|e| e.to_string())
            .and_then(|ev| st.apply_mut(&ev, smart_kernel::Millis(row.at_ms)).map_err(|e| e.to_string()));
        apply_ns += t.elapsed().as_nanos();
        let t = Instant::now();
        let h = st.hash();
        hash_ns += t.elapsed().as_nanos();
        if let Err(e) = applied.and(h.map_err(|e| e.to_string())) {
            failed = Some(e);
        }
        failed.is_none()
    })?;
    let all_ns = t.elapsed().as_nanos();
    if let Some(e) = failed {
        bail!("replay breakdown: {e}");
    }
    let per = |ns: u128| ns as f64 / n.max(1) as f64 / 1e3;
    println!(
        "   replay per event: {:.2} µs = read {:.2} + payload → event {:.2} + apply {:.2} + state hash {:.2}",
        per(all_ns),
        per(all_ns.saturating_sub(parse_ns + apply_ns + hash_ns)),
        per(parse_ns),
        per(apply_ns),
        per(hash_ns)
    );

    // The HUD's history card and `smart sessions` walk the ledger newest first until they have
    // the sessions they show: one session holding the whole ledger is the worst case.
    let t = Instant::now();
    let sessions = ledger.sessions(30 * 60_000, usize::MAX)?;
    let sessions_t = t.elapsed();
    let covered: u64 = sessions.iter().map(|x| x.events).sum();
    if covered != n {
        bail!("sessions cover {covered} events of {n}");
    }
    // The generator's clock moves 1 ms per decision: with no gap allowed, every decision is a
    // session, so the 5 newest show what the newest-first walk reads when sessions are short.
    let t = Instant::now();
    let recent = ledger.sessions(0, 5)?;
    let recent_t = t.elapsed();
    println!(
        "   sessions, all (30 min gap): {:.1} ms for {} covering all {} events; the 5 newest (0 ms gap): {:.2} ms for {} events",
        sessions_t.as_secs_f64() * 1e3,
        int(sessions.len() as u64),
        int(n),
        recent_t.as_secs_f64() * 1e3,
        int(recent.iter().map(|x| x.events).sum())
    );

    s.add(
        &format!("ledger of {} events: generation through the kernel", int(n)),
        format!("{} ({} events/s)", secs(generated), rate(per_sec(n, generated.as_nanos()))),
    );
    s.add("ledger file size", format!("{} ({} bytes/event)", bytes(size + wal), int((size + wal) / n.max(1))));
    s.add("read every row (events/s)", format!("{} ({})", rate(per_sec(read, read_t.as_nanos())), secs(read_t)));
    s.add("verify (events/s)", format!("{} ({})", rate(per_sec(n, verify_t.as_nanos())), secs(verify_t)));
    s.add("verify on open (events/s)", format!("{} ({})", rate(per_sec(n, authentic_t.as_nanos())), secs(authentic_t)));
    s.add(
        &format!("verify on open from the last verified mark, {} new events", int(fresh)),
        format!("{:.1} ms", marked_t.as_secs_f64() * 1e3),
    );
    s.add("replay (events/s)", format!("{} ({})", rate(per_sec(n, replay_t.as_nanos())), secs(replay_t)));
    s.add(
        &format!("replay from a snapshot {} events back", int(n - snapshot_at)),
        format!("{:.1} ms", replay_snap_t.as_secs_f64() * 1e3),
    );
    s.add(
        &format!("Engine::open, verified mark {} and snapshot {} events back", int(fresh), int(n - snapshot_at)),
        format!("{:.1} ms", open_t.as_secs_f64() * 1e3),
    );
    for (name, took) in &timeline {
        s.add(&format!("timeline, {name}"), format!("{:.1} ms", took.as_secs_f64() * 1e3));
    }
    s.add("sessions over the whole ledger", format!("{:.1} ms", sessions_t.as_secs_f64() * 1e3));
    s.add("the 5 newest sessions", format!("{:.2} ms", recent_t.as_secs_f64() * 1e3));

    // What the first open after upgrading to schema 4 pays once: building the tool index over
    // every event (the index as the migration made it, rebuilt last: it changes the schema).
    let c = ledger.connection();
    let sql: String = c.query_row("SELECT sql FROM sqlite_master WHERE name = 'events_tool'", [], |r| r.get(0))?;
    c.execute_batch("DROP INDEX events_tool")?;
    let t = Instant::now();
    c.execute_batch(&sql)?;
    let index_t = t.elapsed();
    println!("   upgrading a ledger of this size to schema 4 (the tool index, once): {}", secs(index_t));
    s.add("upgrade to schema 4: building the tool index, once", secs(index_t));
    Ok(())
}
