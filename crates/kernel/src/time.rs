//! Time as data.
//!
//! The kernel never reads a clock: whoever calls it says what time it is. That is what makes
//! replay possible (the ledger stores the time each event was decided at) and what lets tests
//! step through a 30-second gate in microseconds, the way tokio's `time::pause()` does.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Milliseconds since the Unix epoch, as handed to the kernel by its caller.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(transparent)]
pub struct Millis(pub u64);

impl Millis {
    pub fn plus(self, ms: u64) -> Millis {
        Millis(self.0.saturating_add(ms))
    }

    /// Milliseconds from `earlier` to `self`, zero if `earlier` is later.
    pub fn since(self, earlier: Millis) -> u64 {
        self.0.saturating_sub(earlier.0)
    }
}

impl fmt::Display for Millis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "t={}ms", self.0)
    }
}

/// Parses a human duration such as `500ms`, `15s`, `30m`, `2h` or `7d` into milliseconds.
pub fn parse_duration(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    if digits.is_empty() {
        return Err(format!("duration {text:?} must start with a number, e.g. 30m"));
    }
    let n: u64 = digits.parse().map_err(|_| format!("duration {text:?} is too large"))?;
    let scale: u64 = match unit {
        "ms" => 1,
        "s" | "" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        other => {
            return Err(format!("unknown duration unit {other:?} in {text:?}; use ms, s, m, h or d"));
        }
    };
    n.checked_mul(scale).ok_or_else(|| format!("duration {text:?} is too large"))
}

/// Formats milliseconds the way a person reads a countdown: `0s`, `14s`, `2m 05s`, `1h 00m`.
pub fn format_duration(ms: u64) -> String {
    let s = ms.div_ceil(1000);
    match s {
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m {:02}s", s / 60, s % 60),
        _ => format!("{}h {:02}m", s / 3600, (s % 3600) / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_with_every_unit() {
        assert_eq!(parse_duration("500ms"), Ok(500));
        assert_eq!(parse_duration("15s"), Ok(15_000));
        assert_eq!(parse_duration("30m"), Ok(1_800_000));
        assert_eq!(parse_duration("2h"), Ok(7_200_000));
        assert_eq!(parse_duration("1d"), Ok(86_400_000));
        assert_eq!(parse_duration("7"), Ok(7_000));
    }

    #[test]
    fn bad_durations_say_why() {
        assert!(parse_duration("m").unwrap_err().contains("number"));
        assert!(parse_duration("3 weeks").unwrap_err().contains("unit"));
        assert!(parse_duration("99999999999999999999s").unwrap_err().contains("large"));
    }

    #[test]
    fn countdowns_round_up_to_the_next_second() {
        assert_eq!(format_duration(0), "0s");
        assert_eq!(format_duration(1), "1s");
        assert_eq!(format_duration(125_000), "2m 05s");
        assert_eq!(format_duration(3_600_000), "1h 00m");
    }
}
