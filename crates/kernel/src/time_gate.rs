//! Time gates: maturation delays between layers (seed 000 §4.3, design.md §4).
//!
//! After a call at layer k commits, no call at layer k+1 is admissible until the gate of layer
//! k has elapsed. Two L4 calls are also kept apart by the L4 cooldown. Escalation happens at the
//! pace of the world settling, not at the pace of the model typing.

use crate::layer::Layer;
use crate::policy::Gates;
use crate::time::Millis;
use std::collections::BTreeMap;

/// The earliest time a call at `layer` passes its gate, given the latest commit per layer.
pub fn admissible_at(layer: Layer, last_commit: &BTreeMap<Layer, Millis>, gates: &Gates) -> Millis {
    let mut at = Millis(0);
    if let Some(below) = layer.below()
        && let Some(t) = last_commit.get(&below)
    {
        at = at.max(t.plus(gates.after(below)));
    }
    if layer == Layer::L4
        && let Some(t) = last_commit.get(&Layer::L4)
    {
        at = at.max(t.plus(gates.l4_cooldown_ms));
    }
    at
}

/// Milliseconds until a call at `layer` passes its gate (0 when it already does).
pub fn remaining(layer: Layer, last_commit: &BTreeMap<Layer, Millis>, gates: &Gates, now: Millis) -> u64 {
    admissible_at(layer, last_commit, gates).since(now)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn l3_waits_fifteen_seconds_after_l2_at_the_seed_defaults() {
        let gates = Gates::default();
        let commits = BTreeMap::from([(Layer::L2, Millis(1_000))]);
        assert_eq!(admissible_at(Layer::L3, &commits, &gates), Millis(6_000), "L2's gate is 5 s");
        let commits = BTreeMap::from([(Layer::L3, Millis(1_000))]);
        assert_eq!(admissible_at(Layer::L4, &commits, &gates), Millis(16_000), "L3's gate is 15 s");
    }

    #[test]
    fn l4_cooldown_spaces_two_l4_calls() {
        let gates = Gates::default();
        let commits = BTreeMap::from([(Layer::L3, Millis(0)), (Layer::L4, Millis(20_000))]);
        assert_eq!(admissible_at(Layer::L4, &commits, &gates), Millis(50_000));
    }

    #[test]
    fn nothing_committed_below_means_no_wait() {
        assert_eq!(remaining(Layer::L2, &BTreeMap::new(), &Gates::default(), Millis(5)), 0);
        assert_eq!(remaining(Layer::L0, &BTreeMap::from([(Layer::L4, Millis(9))]), &Gates::default(), Millis(0)), 0);
    }

    proptest! {
        // The gate opens exactly at commit + delay: one millisecond earlier it is still shut.
        #[test]
        fn the_gate_opens_exactly_on_time(layer in 1u8..4, commit in 0u64..1_000_000, delay in 0u64..100_000) {
            let layer = Layer::try_from(layer).unwrap();
            let below = layer.below().unwrap();
            let mut gates = Gates::default();
            match below { Layer::L0 => gates.after_l0_ms = delay, Layer::L1 => gates.after_l1_ms = delay, Layer::L2 => gates.after_l2_ms = delay, _ => gates.after_l3_ms = delay }
            let commits = BTreeMap::from([(below, Millis(commit))]);
            prop_assert_eq!(remaining(layer, &commits, &gates, Millis(commit + delay)), 0);
            if delay > 0 {
                prop_assert_eq!(remaining(layer, &commits, &gates, Millis(commit + delay - 1)), 1);
            }
        }
    }
}
