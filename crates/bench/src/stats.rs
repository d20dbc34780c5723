//! Latency distributions and formatting.

use std::time::Duration;

/// Nearest-rank percentiles over per-operation nanoseconds.
pub struct Dist {
    pub n: usize,
    pub total_ns: u128,
    pub p50: u64,
    pub p99: u64,
    pub p999: u64,
    pub max: u64,
}

impl Dist {
    pub fn of(mut ns: Vec<u64>) -> Dist {
        ns.sort_unstable();
        let n = ns.len();
        let rank = |q: f64| -> u64 {
            if n == 0 {
                return 0;
            }
            let i = ((q * n as f64).ceil() as usize).clamp(1, n) - 1;
            ns.get(i).copied().unwrap_or(0)
        };
        Dist {
            n,
            total_ns: ns.iter().map(|&x| u128::from(x)).sum(),
            p50: rank(0.50),
            p99: rank(0.99),
            p999: rank(0.999),
            max: ns.last().copied().unwrap_or(0),
        }
    }

    pub fn mean_ns(&self) -> f64 {
        if self.n == 0 { 0.0 } else { self.total_ns as f64 / self.n as f64 }
    }

    /// Operations per second if run back to back (from the summed latencies).
    pub fn per_sec(&self) -> f64 {
        per_sec(self.n as u64, self.total_ns)
    }

    /// `p50 … max` in µs.
    pub fn line(&self) -> String {
        format!(
            "p50 {} µs  p99 {} µs  p99.9 {} µs  max {} µs  (mean {} µs)",
            us(self.p50),
            us(self.p99),
            us(self.p999),
            us(self.max),
            us_f(self.mean_ns())
        )
    }

    pub fn short(&self) -> String {
        format!("{} / {} / {} / {}", us(self.p50), us(self.p99), us(self.p999), us(self.max))
    }
}

pub fn per_sec(n: u64, ns: u128) -> f64 {
    if ns == 0 { 0.0 } else { n as f64 * 1e9 / ns as f64 }
}

pub fn us(ns: u64) -> String {
    us_f(ns as f64)
}

pub fn us_f(ns: f64) -> String {
    let us = ns / 1_000.0;
    if us >= 100.0 {
        format!("{us:.0}")
    } else if us >= 10.0 {
        format!("{us:.1}")
    } else {
        format!("{us:.2}")
    }
}

/// Thousands separators: 1234567 → "1,234,567".
pub fn int(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A rate, rounded to 3 significant-ish figures with separators.
pub fn rate(r: f64) -> String {
    if r >= 1_000.0 {
        int(r.round() as u64)
    } else if r >= 10.0 {
        format!("{r:.0}")
    } else {
        format!("{r:.2}")
    }
}

pub fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

pub fn bytes(n: u64) -> String {
    let mb = n as f64 / (1024.0 * 1024.0);
    if mb >= 1.0 { format!("{mb:.1} MiB") } else { format!("{:.1} KiB", n as f64 / 1024.0) }
}
