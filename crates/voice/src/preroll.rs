//! The last moments of audio, kept so the first syllable is never cut.
//!
//! People start talking as they press the key, and a VAD only confirms speech after
//! `min_speech_ms` of it — by then the first word is partly gone. (This is a top complaint about
//! voice assistants: "elete the file".) So capture always runs into a fixed ring of the most
//! recent samples, and an utterance begins with that ring's contents: the audio from *before*
//! the press or the detected onset.

use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct PreRoll {
    ring: VecDeque<f32>,
    capacity: usize,
}

impl PreRoll {
    /// Keeps `ms` milliseconds at `rate` samples per second.
    pub fn new(ms: u32, rate: u32) -> PreRoll {
        let capacity = (u64::from(ms) * u64::from(rate) / 1000) as usize;
        PreRoll { ring: VecDeque::with_capacity(capacity), capacity }
    }

    pub fn push(&mut self, samples: &[f32]) {
        if self.capacity == 0 {
            return;
        }
        let keep = samples.len().min(self.capacity);
        let overflow = (self.ring.len() + keep).saturating_sub(self.capacity);
        self.ring.drain(..overflow);
        self.ring.extend(&samples[samples.len() - keep..]);
    }

    /// The kept samples, oldest first.
    pub fn contents(&self) -> Vec<f32> {
        self.ring.iter().copied().collect()
    }

    /// The newest `n` kept samples (fewer if fewer are kept), oldest first.
    pub fn last(&self, n: usize) -> Vec<f32> {
        self.ring.iter().skip(self.ring.len().saturating_sub(n)).copied().collect()
    }

    pub fn len(&self) -> usize {
        self.ring.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ring.is_empty()
    }

    pub fn clear(&mut self) {
        self.ring.clear();
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn it_keeps_the_newest_samples_in_order_across_pushes_of_any_size() {
        let mut p = PreRoll::new(1, 5000); // 5 samples
        p.push(&[1.0, 2.0]);
        p.push(&[3.0]);
        assert_eq!(p.contents(), vec![1.0, 2.0, 3.0]);
        p.push(&[4.0, 5.0, 6.0]);
        assert_eq!(p.contents(), vec![2.0, 3.0, 4.0, 5.0, 6.0]);
        p.push(&(10..30).map(|x| x as f32).collect::<Vec<_>>());
        assert_eq!(p.contents(), vec![25.0, 26.0, 27.0, 28.0, 29.0]);
        assert_eq!(p.last(2), vec![28.0, 29.0]);
        assert_eq!(p.last(99).len(), 5);
    }

    #[test]
    fn a_zero_length_preroll_keeps_nothing() {
        let mut p = PreRoll::new(0, 16_000);
        p.push(&[1.0; 100]);
        assert!(p.is_empty());
    }
}
