//! The one place the runtime reads the time.
//!
//! Everything below the runtime takes time as an argument. Tests and recorded fixtures use a
//! [`FixedClock`] so that a scenario through the real CLI is as deterministic as a unit test.

use std::time::{SystemTime, UNIX_EPOCH};

pub trait Clock {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> u64;
}

pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> u64 {
        SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
    }
}

pub struct FixedClock(pub u64);

impl Clock for FixedClock {
    fn now_ms(&self) -> u64 {
        self.0
    }
}
