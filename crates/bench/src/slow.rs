//! Section 7: what the slow loop costs the kernel.
//!
//! Every event is followed by a hash of the whole kernel state (the ledger records it), and the
//! slow loop's memory is part of that state. So the figures that matter are: how long the gate
//! controller takes to read a full proposal buffer, how a state carrying the memory's caps (2,000
//! artifacts, 500 decisions) changes the per-event hash and an admission, and what the decay
//! pass at every gateway pass costs when nothing, or everything, is due.

use crate::Summary;
use crate::sim::{MapWorld, Sim, bench_path};
use crate::stats::{Dist, int};
use anyhow::{Result, bail};
use smart_kernel::kernel::{Decision, Outcome};
use smart_kernel::memory::{ArtifactDraft, ArtifactKind, Confidence, DecisionDraft, SlowWrite};
use smart_kernel::{GateAct, GateProposal, GateSource, ReadTrigger, Severity, SuggestedGate};
use std::time::Instant;

fn ns(t: Instant) -> u64 {
    t.elapsed().as_nanos() as u64
}

fn apply(sim: &mut Sim, d: Decision, what: &str) -> Result<()> {
    if let Outcome::Refused(r) = &d.outcome {
        bail!("{what} refused: {r}");
    }
    sim.apply(&d.events)
}

/// A state with `artifacts` registered entries and `decisions` frame decisions.
fn with_memory(artifacts: u64, decisions: u64) -> Result<Sim> {
    let mut sim = Sim::new(MapWorld::with_files(100))?;
    sim.start()?;
    for i in 0..artifacts {
        let a = ArtifactDraft {
            name: format!("artifact {i}"),
            kind: ArtifactKind::Doc,
            pointer: format!("/bench/docs/artifact-{i}.md"),
            dependencies: vec![],
        };
        let d = sim.kernel.register_artifact(&sim.state, a, None, sim.now)?;
        apply(&mut sim, d, "artifact")?;
    }
    for i in 0..decisions {
        let w = SlowWrite::FrameDecision {
            decision: DecisionDraft {
                decision: format!("decision {i}: keep the reports in one folder per quarter"),
                rationale: vec!["they are read by quarter".into()],
                tradeoffs: String::new(),
                confidence: Confidence::Med,
                revisit_triggers: vec![],
                supersedes: None,
            },
        };
        let d = sim.kernel.pass_gate(&sim.state, GateAct::Framing, vec![w], sim.now)?;
        apply(&mut sim, d, "decision")?;
    }
    sim.open_epoch()?;
    Ok(sim)
}

pub fn run(quick: bool, s: &mut Summary) -> Result<()> {
    let reps = if quick { 200 } else { 2_000 };
    println!("\n== 7. slow loop: the gate controller, memory in the state hash, the decay pass ==");

    // 7a. A full buffer (64 proposals, every source and gate), read at a gateway pass.
    let mut sim = with_memory(0, 0)?;
    let mut read = Vec::with_capacity(reps);
    let sources = GateSource::ALL;
    let gates = [SuggestedGate::Framing, SuggestedGate::Commitment, SuggestedGate::Evaluation];
    for r in 0..reps {
        for i in 0..smart_kernel::gate_proposal::MAX_BUFFERED {
            let p = GateProposal::new(
                sources[i % sources.len()],
                gates[i % gates.len()],
                if i % 7 == 0 { Severity::High } else { Severity::Low },
                format!("proposal {r}/{i}"),
                sim.now,
            );
            let d = sim.kernel.propose_gate(&sim.state, p, sim.now)?;
            apply(&mut sim, d, "proposal")?;
        }
        let t = Instant::now();
        let d = sim.kernel.read_proposals(&sim.state, ReadTrigger::EndOfTurn, sim.now)?;
        sim.apply(&d.events)?;
        read.push(ns(t));
        // Back to Execution for the next round, untimed.
        if sim.state.stance != smart_kernel::Stance::Execution {
            let d = sim.kernel.gate(&sim.state, GateAct::Renew, sim.now)?;
            apply(&mut sim, d, "renew")?;
        }
    }
    let read = Dist::of(read);
    println!(
        "   7a. read of a full buffer ({} proposals) + apply, x{}: {}",
        smart_kernel::gate_proposal::MAX_BUFFERED,
        int(reps as u64),
        read.line()
    );
    s.add("gate controller: read 64 proposals + apply p50/p99/p99.9/max (µs)", read.short());

    // 7b. The per-event state hash and one admission, empty memory vs the caps.
    for (artifacts, decisions) in [(0, 0), (200, 50), (2_000, 500)] {
        let mut sim = with_memory(artifacts, decisions)?;
        let bytes = smart_kernel::canonical_bytes(&sim.state)?.len();
        let mut hash = Vec::with_capacity(reps);
        let mut admit = Vec::with_capacity(reps);
        for i in 0..reps as u64 {
            let t = Instant::now();
            let _ = sim.state.hash()?;
            hash.push(ns(t));
            let call = sim.call(&bench_path(i % 100));
            let t = Instant::now();
            let d = sim.kernel.propose(&sim.state, call, sim.now, &sim.world)?;
            admit.push(ns(t));
            if let Outcome::Admitted(a) = &d.outcome {
                let receipt = sim.receipt(a, &bench_path(i % 100), i);
                sim.apply(&d.events)?;
                sim.apply(&[receipt])?;
            }
        }
        let (hash, admit) = (Dist::of(hash), Dist::of(admit));
        println!(
            "   7b. memory {} artifacts + {} decisions (state {} KiB): state hash {}",
            int(artifacts),
            int(decisions),
            bytes / 1024,
            hash.line()
        );
        println!("       admission (Kernel::propose): {}", admit.line());
        s.add(
            &format!("state hash, {artifacts} artifacts + {decisions} decisions, p50/p99/p99.9/max (µs)"),
            hash.short(),
        );
        s.add(
            &format!("admission, {artifacts} artifacts + {decisions} decisions, p50/p99/p99.9/max (µs)"),
            admit.short(),
        );
    }

    // 7c. The decay pass (Kernel::tick) over 2,000 artifacts: nothing due, then all due.
    let mut sim = with_memory(2_000, 0)?;
    let mut idle = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = Instant::now();
        let d = sim.kernel.tick(&sim.state, sim.now)?;
        idle.push(ns(t));
        if !d.events.is_empty() {
            bail!("nothing should be due yet");
        }
    }
    sim.now = sim.now.plus(smart_kernel::memory::artifact_index::STALE_AFTER_MS);
    let t = Instant::now();
    let d = sim.kernel.tick(&sim.state, sim.now)?;
    let due_ns = ns(t);
    let n = d.events.len();
    let idle = Dist::of(idle);
    println!("   7c. decay pass over 2,000 artifacts, nothing due: {}", idle.line());
    println!("       everything due (lease expiry + {} artifact events): {} µs", int(n as u64), due_ns / 1_000);
    s.add("decay pass, 2,000 artifacts, nothing due p50/p99/p99.9/max (µs)", idle.short());
    s.add("decay pass, 2,000 artifacts all due (µs)", format!("{} ({} events)", due_ns / 1_000, n));
    Ok(())
}
