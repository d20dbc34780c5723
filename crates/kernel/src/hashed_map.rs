//! A sorted map that knows its own hash and is cheap to copy.
//!
//! Kernel state holds maps that grow with use: every distinct call admitted in a lease epoch, every
//! reversible commit, every proposal artifact. Two things made them cost more the longer SMART ran:
//! every decision works on a copy of the state (the kernel's scratch builder, the engine's commit),
//! and every event's state hash serialised them whole. `HashedMap` answers both:
//!
//! - It is persistent (a red-black tree with shared, reference-counted nodes, `rpds`): a copy
//!   shares every node with the original, and a change copies only the path to the entry it
//!   changes — O(log n), not O(n).
//! - It keeps an [`LtHash`] of its entries, updated by each insert and remove with that one entry's
//!   canonical bytes, so its hash after a change costs one entry's work whatever its size. The
//!   32-byte digest is computed from the sum when asked for and cached until the next change.
//!
//! Architecture invariant: the entries change only through the methods here, so the sum always
//! matches the entries; there is no `get_mut`. To its serialiser a `HashedMap` is the `BTreeMap`
//! it replaced — the same JSON, in key order — so snapshots and the state hashes of the first
//! scheme (which serialise the whole state) are unchanged.

use crate::canonical::{Hash, canonical_bytes};
use crate::lthash::LtHash;
use rpds::RedBlackTreeMapSync;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Borrow;
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

#[derive(Clone)]
pub struct HashedMap<K: Ord, V> {
    entries: RedBlackTreeMapSync<K, V>,
    /// Shared between copies until one of them changes.
    sum: Arc<LtHash>,
    digest: OnceLock<Hash>,
}

impl<K: Ord, V> Default for HashedMap<K, V> {
    fn default() -> Self {
        HashedMap { entries: RedBlackTreeMapSync::new_sync(), sum: Arc::default(), digest: OnceLock::new() }
    }
}

/// One entry's bytes in the sum: the canonical JSON of `[key, value]`.
fn entry_bytes<K: Serialize, V: Serialize>(key: &K, value: &V) -> Result<Vec<u8>, serde_json::Error> {
    canonical_bytes(&(key, value))
}

impl<K, V> HashedMap<K, V>
where
    K: Ord + Clone + Serialize,
    V: Clone + Serialize,
{
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.entries.size()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.entries.get(key)
    }

    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.entries.contains_key(key)
    }

    /// Entries in key order (reversible with `.rev()`).
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&K, &V)> + '_ {
        self.entries.iter()
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &K> + '_ {
        self.entries.keys()
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + '_ {
        self.entries.values()
    }

    /// Sets `key` to `value`, returning what it held.
    pub fn insert(&mut self, key: K, value: V) -> Result<Option<V>, serde_json::Error> {
        let added = entry_bytes(&key, &value)?;
        let old = self.entries.get(&key).cloned();
        let removed = old.as_ref().map(|v| entry_bytes(&key, v)).transpose()?;
        let sum = self.sum_mut();
        if let Some(r) = removed {
            sum.remove(&r);
        }
        sum.add(&added);
        self.entries.insert_mut(key, value);
        Ok(old)
    }

    /// Removes `key`, returning what it held.
    pub fn remove<Q>(&mut self, key: &Q) -> Result<Option<V>, serde_json::Error>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        let Some((k, v)) = self.entries.get_key_value(key) else { return Ok(None) };
        let removed = entry_bytes(k, v)?;
        let old = v.clone();
        self.sum_mut().remove(&removed);
        self.entries.remove_mut(key);
        Ok(Some(old))
    }

    /// Changes the value under `key` in place, if there is one; says whether there was.
    pub fn update<Q>(&mut self, key: &Q, change: impl FnOnce(&mut V)) -> Result<bool, serde_json::Error>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        let Some((k, v)) = self.entries.get_key_value(key) else { return Ok(false) };
        let (k, mut v) = (k.clone(), v.clone());
        change(&mut v);
        self.insert(k, v)?;
        Ok(true)
    }

    /// Keeps only the entries `keep` says yes to.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &V) -> bool) -> Result<(), serde_json::Error> {
        let gone: Vec<K> = self.entries.iter().filter(|(k, v)| !keep(k, v)).map(|(k, _)| k.clone()).collect();
        for k in gone {
            self.remove(&k)?;
        }
        Ok(())
    }

    pub fn clear(&mut self) {
        *self = Self::default();
    }

    /// The hash of the entries: equal for equal entries, however they were built.
    pub fn digest(&self) -> Hash {
        *self.digest.get_or_init(|| self.sum.digest())
    }

    fn sum_mut(&mut self) -> &mut LtHash {
        self.digest = OnceLock::new();
        Arc::make_mut(&mut self.sum)
    }

    /// Builds a map from entries in any order.
    pub fn from_entries(entries: impl IntoIterator<Item = (K, V)>) -> Result<Self, serde_json::Error> {
        let mut map = Self::default();
        for (k, v) in entries {
            map.insert(k, v)?;
        }
        Ok(map)
    }
}

impl<K: Ord, V: PartialEq> PartialEq for HashedMap<K, V> {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries
    }
}

impl<K: Ord + std::fmt::Debug, V: std::fmt::Debug> std::fmt::Debug for HashedMap<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.entries.iter()).finish()
    }
}

impl<K: Ord + Serialize, V: Serialize> Serialize for HashedMap<K, V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.entries.iter())
    }
}

impl<'de, K, V> Deserialize<'de> for HashedMap<K, V>
where
    K: Ord + Clone + Serialize + Deserialize<'de>,
    V: Clone + Serialize + Deserialize<'de>,
{
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let plain = BTreeMap::<K, V>::deserialize(d)?;
        HashedMap::from_entries(plain).map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    enum Op {
        Insert(u8, u16),
        Remove(u8),
        Bump(u8),
        KeepEven,
        Clear,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => (any::<u8>(), any::<u16>()).prop_map(|(k, v)| Op::Insert(k % 16, v)),
            3 => any::<u8>().prop_map(|k| Op::Remove(k % 16)),
            3 => any::<u8>().prop_map(|k| Op::Bump(k % 16)),
            1 => Just(Op::KeepEven),
            1 => Just(Op::Clear),
        ]
    }

    proptest! {
        /// The sum kept by changes is the sum of the entries there are: whatever happened to the
        /// map, its digest is that of a map built fresh from its entries — and a copy taken
        /// midway keeps the digest of its own entries.
        #[test]
        fn the_digest_kept_by_changes_is_the_digest_of_the_entries(ops in proptest::collection::vec(op(), 0..60)) {
            let mut map: HashedMap<u64, u32> = HashedMap::new();
            let mut plain: BTreeMap<u64, u32> = BTreeMap::new();
            let mut copies = Vec::new();
            for (i, op) in ops.iter().enumerate() {
                match op {
                    Op::Insert(k, v) => {
                        prop_assert_eq!(map.insert(u64::from(*k), u32::from(*v)).unwrap(), plain.insert(u64::from(*k), u32::from(*v)));
                    }
                    Op::Remove(k) => prop_assert_eq!(map.remove(&u64::from(*k)).unwrap(), plain.remove(&u64::from(*k))),
                    Op::Bump(k) => {
                        let there = map.update(&u64::from(*k), |v| *v += 1).unwrap();
                        prop_assert_eq!(there, plain.get_mut(&u64::from(*k)).map(|v| *v += 1).is_some());
                    }
                    Op::KeepEven => {
                        map.retain(|_, v| v % 2 == 0).unwrap();
                        plain.retain(|_, v| *v % 2 == 0);
                    }
                    Op::Clear => {
                        map.clear();
                        plain.clear();
                    }
                }
                if i % 7 == 0 {
                    copies.push((map.clone(), plain.clone()));
                }
            }
            let fresh = HashedMap::from_entries(plain.clone()).unwrap();
            prop_assert_eq!(map.digest(), fresh.digest());
            prop_assert_eq!(map.iter().map(|(k, v)| (*k, *v)).collect::<BTreeMap<_, _>>(), plain);
            for (copy, entries) in copies {
                prop_assert_eq!(copy.digest(), HashedMap::from_entries(entries).unwrap().digest());
            }
        }
    }

    #[test]
    fn it_serialises_as_the_btreemap_it_replaced() {
        let plain: BTreeMap<u64, String> = [(10, "ten".to_string()), (2, "two".to_string())].into();
        let map = HashedMap::from_entries(plain.clone()).unwrap();
        assert_eq!(serde_json::to_string(&map).unwrap(), serde_json::to_string(&plain).unwrap());
        let back: HashedMap<u64, String> = serde_json::from_str(&serde_json::to_string(&plain).unwrap()).unwrap();
        assert_eq!(back, map);
        assert_eq!(back.digest(), map.digest());
    }

    #[test]
    fn a_value_changed_under_the_same_key_changes_the_digest() {
        let mut map: HashedMap<String, bool> = HashedMap::new();
        map.insert("a".into(), false).unwrap();
        let before = map.digest();
        assert!(map.update("a", |v| *v = true).unwrap());
        assert_ne!(map.digest(), before);
        assert!(!map.update("missing", |v| *v = true).unwrap());
    }
}
