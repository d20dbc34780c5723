//! A hash of a set that is updated one element at a time.
//!
//! The state hash is recorded before and after every ledger event, so it has to cost the same on
//! the first event of a lease epoch and on the ten-thousandth — yet it has to cover maps that grow
//! with every call (repeat counts, reversible commits, artifacts). Hashing the whole map again on
//! every event made a decision cost O(calls in the epoch).
//!
//! A lattice hash (LtHash, Bellare–Micciancio; the parameters of Lewi et al., "Securing Update
//! Propagation with Homomorphic Hashing", 2019) is a sum: each element's hash is stretched to
//! 1,024 16-bit lanes and the set's hash is their lane-wise sum modulo 2^16. Adding an element
//! adds its lanes, removing one subtracts them, and the order in which the set was built does not
//! matter — so a map that changes by one entry changes its hash by one entry's work, and two maps
//! with the same entries have the same hash however they got there. With 1,024 lanes of 16 bits
//! finding two different sets with the same sum is as hard as the short-integer-solution problem
//! the paper sizes for ~200-bit security; a plain 256-bit modular sum would not do (Wagner's
//! generalised birthday attack breaks it with a few thousand elements).
//!
//! The 2 KiB of lanes are finalised into an ordinary 32-byte blake3 hash for the state hash.

use crate::canonical::Hash;

/// Lanes per hash.
pub const LANES: usize = 1024;

/// The blake3 key-derivation context that stretches an element to its lanes. Changing it changes
/// every recorded state hash of the scheme that uses it.
const ELEMENT_CONTEXT: &str = "SMART 2026-11 state lthash16 element";
const DIGEST_CONTEXT: &str = "SMART 2026-11 state lthash16 digest";

/// The lane-wise sum of the hashes of a set's elements.
#[derive(Clone, PartialEq, Eq)]
pub struct LtHash {
    lanes: Box<[u16; LANES]>,
}

impl Default for LtHash {
    fn default() -> Self {
        LtHash { lanes: Box::new([0; LANES]) }
    }
}

impl std::fmt::Debug for LtHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LtHash({})", self.digest().short())
    }
}

impl LtHash {
    /// Adds the element whose canonical bytes are `element`.
    pub fn add(&mut self, element: &[u8]) {
        let bytes = stretch(element);
        for (lane, pair) in self.lanes.iter_mut().zip(bytes.chunks_exact(2)) {
            *lane = lane.wrapping_add(u16::from_le_bytes([pair[0], pair[1]]));
        }
    }

    /// Removes an element added before (removing one that was never added leaves a sum no set
    /// has, which is what a caller that breaks the pairing deserves to see).
    pub fn remove(&mut self, element: &[u8]) {
        let bytes = stretch(element);
        for (lane, pair) in self.lanes.iter_mut().zip(bytes.chunks_exact(2)) {
            *lane = lane.wrapping_sub(u16::from_le_bytes([pair[0], pair[1]]));
        }
    }

    /// The 32-byte hash of the sum.
    pub fn digest(&self) -> Hash {
        let mut bytes = [0u8; 2 * LANES];
        for (pair, lane) in bytes.chunks_exact_mut(2).zip(self.lanes.iter()) {
            pair.copy_from_slice(&lane.to_le_bytes());
        }
        let mut h = blake3::Hasher::new_derive_key(DIGEST_CONTEXT);
        h.update(&bytes);
        Hash(*h.finalize().as_bytes())
    }
}

/// An element's hash, stretched to the lanes' 2,048 bytes by blake3's extendable output.
fn stretch(element: &[u8]) -> [u8; 2 * LANES] {
    let mut out = [0u8; 2 * LANES];
    let mut h = blake3::Hasher::new_derive_key(ELEMENT_CONTEXT);
    h.update(element);
    h.finalize_xof().fill(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn adding_then_removing_an_element_gives_back_the_empty_sum() {
        let mut h = LtHash::default();
        let empty = h.digest();
        h.add(b"one");
        assert_ne!(h.digest(), empty);
        h.remove(b"one");
        assert_eq!(h.digest(), empty);
    }

    #[test]
    fn an_element_added_twice_is_not_the_element_added_once() {
        let (mut once, mut twice) = (LtHash::default(), LtHash::default());
        once.add(b"x");
        twice.add(b"x");
        twice.add(b"x");
        assert_ne!(once.digest(), twice.digest());
    }

    proptest! {
        #[test]
        fn the_sum_does_not_depend_on_the_order_elements_came_in(
            mut items in proptest::collection::vec("[a-z]{0,8}", 0..20),
            seed in any::<u64>(),
        ) {
            let mut a = LtHash::default();
            for i in &items {
                a.add(i.as_bytes());
            }
            // A deterministic shuffle, then the same elements the other way round.
            let n = items.len().max(1);
            items.rotate_left((seed as usize) % n);
            items.reverse();
            let mut b = LtHash::default();
            for i in &items {
                b.add(i.as_bytes());
            }
            prop_assert_eq!(a.digest(), b.digest());
        }

        #[test]
        fn different_sets_of_up_to_a_few_elements_have_different_sums(
            a in proptest::collection::btree_set("[a-c]{1,3}", 0..5),
            b in proptest::collection::btree_set("[a-c]{1,3}", 0..5),
        ) {
            let sum = |s: &std::collections::BTreeSet<String>| {
                let mut h = LtHash::default();
                for i in s {
                    h.add(i.as_bytes());
                }
                h.digest()
            };
            prop_assert_eq!(a == b, sum(&a) == sum(&b));
        }
    }
}
