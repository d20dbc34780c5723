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

/// A clock a test or harness moves by hand: shared, so the engine reads what the driver set.
/// It is how a scenario walks through real time gates without sleeping.
#[derive(Clone, Default)]
pub struct ManualClock(std::sync::Arc<std::sync::atomic::AtomicU64>);

impl ManualClock {
    pub fn starting_at(ms: u64) -> ManualClock {
        ManualClock(std::sync::Arc::new(std::sync::atomic::AtomicU64::new(ms)))
    }

    pub fn advance(&self, ms: u64) {
        self.0.fetch_add(ms, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> u64 {
        self.0.load(std::sync::atomic::Ordering::SeqCst)
    }
}
