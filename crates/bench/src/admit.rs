//! Section 1: what admission costs — `Kernel::propose` and applying its events to state.

use crate::Summary;
use crate::sim::{MapWorld, Sim, bench_path};
use crate::stats::{Dist, int, rate, us, us_f};
use anyhow::{Result, bail};
use smart_kernel::kernel::Outcome;
use smart_kernel::{RefusalCode, canonical_bytes};
use std::time::Instant;

fn elapsed_ns(t: Instant) -> u64 {
    t.elapsed().as_nanos() as u64
}

/// Admitted `fs.hash` calls on distinct paths, lease epochs of `epoch` calls (0: one epoch).
pub fn admitted(n: u64, epoch: u64, s: &mut Summary) -> Result<()> {
    println!("\n== 1a. admission: {} fs.hash calls on distinct paths, admitted ==", int(n));
    println!(
        "   real registry ({} tools), roots [/bench], gates 0, bounds unlimited, in-memory world;",
        smart_tools::specs().len()
    );
    if epoch > 0 {
        println!("   a new lease epoch every {epoch} calls (draft+commit / evaluate+release, untimed)");
    } else {
        println!("   one epoch for the whole run (no lease)");
    }
    println!("   timed separately: propose (Kernel::propose); apply (KernelState::apply of its 2 events);");
    println!("   hash (one KernelState::hash of the state after, what the ledger records per event). The");
    println!("   receipt (committed event) is made and applied untimed, so in-flight calls do not pile up.");
    let mut sim = Sim::new(MapWorld::with_files(n))?;
    sim.start()?;
    if epoch > 0 {
        sim.open_epoch()?;
    }
    let cap = n as usize;
    let (mut propose, mut apply, mut hash) =
        (Vec::with_capacity(cap), Vec::with_capacity(cap), Vec::with_capacity(cap));
    let mut in_epoch = 0u64;
    let wall = Instant::now();
    for i in 0..n {
        if epoch > 0 && in_epoch == epoch {
            sim.close_epoch()?;
            sim.open_epoch()?;
            in_epoch = 0;
        }
        sim.now = sim.now.plus(1);
        let path = bench_path(i);
        let call = sim.call(&path);

        let t = Instant::now();
        let d = sim.kernel.propose(&sim.state, call, sim.now, &sim.world)?;
        propose.push(elapsed_ns(t));

        let Outcome::Admitted(admitted) = d.outcome else {
            bail!("fs.hash {path} was not admitted: {:?}", d.outcome);
        };
        let t = Instant::now();
        sim.apply(&d.events)?;
        apply.push(elapsed_ns(t));

        let t = Instant::now();
        let h = sim.state.hash()?;
        hash.push(elapsed_ns(t));
        std::hint::black_box(h);

        let receipt = sim.receipt(&admitted, &path, i);
        sim.apply(&[receipt])?;
        in_epoch += 1;
    }
    let wall = wall.elapsed();
    let state_bytes = canonical_bytes(&sim.state)?.len();
    let repeats = sim.state.repeats.len();
    let both: Vec<u64> = propose.iter().zip(&apply).map(|(a, b)| a + b).collect();
    let full: Vec<u64> = both.iter().zip(&hash).map(|(a, b)| a + 2 * b).collect();
    let (p, a, h, pa, full) = (Dist::of(propose), Dist::of(apply), Dist::of(hash), Dist::of(both), Dist::of(full));
    println!("   propose           {}", p.line());
    println!("   apply (2 events)  {}", a.line());
    println!("   state hash        {}", h.line());
    println!("   propose+apply     {}", pa.line());
    println!(
        "   throughput: {} calls/s propose only; {} calls/s propose+apply;",
        rate(p.per_sec()),
        rate(pa.per_sec())
    );
    println!(
        "               {} calls/s propose+apply+2 state hashes (the runtime's CPU work per decision, before SQLite)",
        rate(full.per_sec())
    );
    println!(
        "   state at the end: {} repeat entries, {} bytes canonical JSON; loop wall {:.2} s",
        int(repeats as u64),
        int(state_bytes as u64),
        wall.as_secs_f64()
    );
    s.add("admission: propose p50 / p99 / p99.9 / max (µs)", p.short());
    s.add("admission: propose+apply p50 / p99 / p99.9 / max (µs)", pa.short());
    s.add("admission: throughput, propose+apply (calls/s)", rate(pa.per_sec()));
    s.add("admission: state hash per event p50 / p99 (µs)", format!("{} / {}", us(h.p50), us(h.p99)));
    s.add("admission: throughput incl. 2 state hashes (calls/s)", rate(full.per_sec()));
    Ok(())
}

/// The refusal path: paths outside the roots, refused at check 2.
pub fn refused(n: u64, s: &mut Summary) -> Result<()> {
    println!("\n== 1b. admission: {} fs.hash calls outside the roots, refused (path_outside_roots) ==", int(n));
    let mut sim = Sim::new(MapWorld::default())?;
    sim.start()?;
    let cap = n as usize;
    let (mut propose, mut apply) = (Vec::with_capacity(cap), Vec::with_capacity(cap));
    for i in 0..n {
        sim.now = sim.now.plus(1);
        let call = sim.call(&format!("/outside/f{i}"));
        let t = Instant::now();
        let d = sim.kernel.propose(&sim.state, call, sim.now, &sim.world)?;
        propose.push(elapsed_ns(t));
        match &d.outcome {
            Outcome::Refused(r) if r.code == RefusalCode::PathOutsideRoots => {}
            other => bail!("a call outside the roots was not refused as path_outside_roots: {other:?}"),
        }
        let t = Instant::now();
        sim.apply(&d.events)?;
        apply.push(elapsed_ns(t));
    }
    let both: Vec<u64> = propose.iter().zip(&apply).map(|(a, b)| a + b).collect();
    let (p, a, pa) = (Dist::of(propose), Dist::of(apply), Dist::of(both));
    println!("   propose           {}", p.line());
    println!("   apply (2 events)  {}", a.line());
    println!("   propose+apply     {}", pa.line());
    println!(
        "   throughput: {} refusals/s propose only; {} refusals/s propose+apply",
        rate(p.per_sec()),
        rate(pa.per_sec())
    );
    s.add("refusal: propose p50 / p99 / p99.9 / max (µs)", p.short());
    s.add("refusal: throughput, propose+apply (calls/s)", rate(pa.per_sec()));
    Ok(())
}

/// How admission cost grows when one epoch keeps growing: the state's per-epoch `repeats` map
/// holds every distinct call admitted in the epoch, and `propose`/`apply` clone the state.
pub fn growth(n: u64, s: &mut Summary) -> Result<()> {
    println!("\n== 1c. admission in one ever-growing epoch: {} distinct calls, no lease rotation ==", int(n));
    let mut sim = Sim::new(MapWorld::with_files(n))?;
    sim.start()?;
    let window = (n / 10).clamp(1, 1_000) as usize;
    let mut lat = Vec::with_capacity(n as usize);
    let mut hash = Vec::with_capacity(n as usize);
    for i in 0..n {
        sim.now = sim.now.plus(1);
        let path = bench_path(i);
        let call = sim.call(&path);
        let t = Instant::now();
        let d = sim.kernel.propose(&sim.state, call, sim.now, &sim.world)?;
        sim.apply(&d.events)?;
        lat.push(elapsed_ns(t));
        let t = Instant::now();
        std::hint::black_box(sim.state.hash()?);
        hash.push(elapsed_ns(t));
        let Outcome::Admitted(admitted) = d.outcome else {
            bail!("fs.hash {path} was not admitted: {:?}", d.outcome);
        };
        let receipt = sim.receipt(&admitted, &path, i);
        sim.apply(&[receipt])?;
    }
    let first = Dist::of(lat.iter().take(window).copied().collect());
    let last = Dist::of(lat.iter().rev().take(window).copied().collect());
    let hash_first = Dist::of(hash.iter().take(window).copied().collect());
    let hash_last = Dist::of(hash.iter().rev().take(window).copied().collect());
    let mut hashes = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        std::hint::black_box(sim.state.hash()?);
        hashes.push(elapsed_ns(t));
    }
    let h = Dist::of(hashes);
    let bytes = canonical_bytes(&sim.state)?.len() as u64;
    println!(
        "   propose+apply, first {window} calls: p50 {} µs; last {window} calls: p50 {} µs ({:.1}x)",
        us(first.p50),
        us(last.p50),
        last.p50 as f64 / first.p50.max(1) as f64
    );
    println!(
        "   state hash after each call, first {window}: p50 {} µs p99 {} µs; last {window}: p50 {} µs p99 {} µs",
        us(hash_first.p50),
        us(hash_first.p99),
        us(hash_last.p50),
        us(hash_last.p99)
    );
    println!(
        "   state after {} calls: {} repeat entries, {} bytes canonical JSON, one state hash {} µs (scheme {})",
        int(n),
        int(sim.state.repeats.len() as u64),
        int(bytes),
        us_f(h.p50 as f64),
        sim.state.hash_scheme
    );
    println!("   (the state is shared, not copied, by a decision, and hashed by change: see kernel/src/state_hash.rs)");
    s.add(
        &format!("one-epoch growth: propose+apply p50, call 1..{window} → last {window} of {} (µs)", int(n)),
        format!("{} → {}", us(first.p50), us(last.p50)),
    );
    s.add(
        &format!("one-epoch growth: state hash p99, call 1..{window} → last {window} of {} (µs)", int(n)),
        format!("{} → {}", us(hash_first.p99), us(hash_last.p99)),
    );
    s.add(&format!("one-epoch growth: state hash after {} calls (µs)", int(n)), us(h.p50));
    Ok(())
}
