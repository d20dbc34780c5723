//! The stance machine (seed 001), as an explicit transition table.
//!
//! Exactly one stance is active. Stances change only through gate acts, and only along the rows
//! of [`TRANSITIONS`]; anything else is `gate_forbidden`. The table is the whole machine: the
//! tests enumerate every (stance, act) pair and check it against the table, so a row cannot be
//! added or lost silently.
//!
//! Our reading of seed 001's diagram:
//! - Sensemaking → Discovery through the framing gate; Discovery → Execution through the
//!   commitment gate (which activates the drafted lease).
//! - Execution → Evaluation through the evaluation gate. There is no Execution → Discovery.
//! - From Evaluation the evaluation gate decides: renew (same lease, new expiry, back to
//!   Execution), revise (the lease goes back to a draft, stance Sensemaking), release (the lease
//!   ends, stance Sensemaking).
//! - Lease expiry moves Execution to Evaluation (the expiry is an evaluation proposal, seed 001's
//!   decay rules).
//! - The emergency gate moves any stance to Sensemaking.

use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Stance {
    Sensemaking,
    Discovery,
    Execution,
    Evaluation,
}

impl Stance {
    pub const ALL: [Stance; 4] = [Stance::Sensemaking, Stance::Discovery, Stance::Execution, Stance::Evaluation];

    pub fn name(self) -> &'static str {
        match self {
            Stance::Sensemaking => "sensemaking",
            Stance::Discovery => "discovery",
            Stance::Execution => "execution",
            Stance::Evaluation => "evaluation",
        }
    }
}

impl fmt::Display for Stance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What can move a stance.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum GateAct {
    Framing,
    Commitment,
    Evaluate,
    Renew,
    Revise,
    Release,
    LeaseExpiry,
    Emergency,
}

impl GateAct {
    pub const ALL: [GateAct; 8] = [
        GateAct::Framing,
        GateAct::Commitment,
        GateAct::Evaluate,
        GateAct::Renew,
        GateAct::Revise,
        GateAct::Release,
        GateAct::LeaseExpiry,
        GateAct::Emergency,
    ];
}

impl fmt::Display for GateAct {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            GateAct::Framing => "framing",
            GateAct::Commitment => "commitment",
            GateAct::Evaluate => "evaluate",
            GateAct::Renew => "renew",
            GateAct::Revise => "revise",
            GateAct::Release => "release",
            GateAct::LeaseExpiry => "lease_expiry",
            GateAct::Emergency => "emergency",
        };
        f.write_str(s)
    }
}

use GateAct::*;
use Stance::*;

/// Every allowed transition. Any (stance, act) pair not listed is forbidden.
pub const TRANSITIONS: &[(Stance, GateAct, Stance)] = &[
    (Sensemaking, Framing, Discovery),
    (Discovery, Framing, Discovery),
    (Discovery, Commitment, Execution),
    (Execution, Evaluate, Evaluation),
    (Execution, LeaseExpiry, Evaluation),
    (Evaluation, Renew, Execution),
    (Evaluation, Revise, Sensemaking),
    (Evaluation, Release, Sensemaking),
    (Sensemaking, Emergency, Sensemaking),
    (Discovery, Emergency, Sensemaking),
    (Execution, Emergency, Sensemaking),
    (Evaluation, Emergency, Sensemaking),
];

/// Where `act` takes `from`, or `None` when the table forbids it.
pub fn next(from: Stance, act: GateAct) -> Option<Stance> {
    TRANSITIONS.iter().find(|(f, a, _)| *f == from && *a == act).map(|(_, _, to)| *to)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The machine written out independently of `TRANSITIONS`: every one of the 32 pairs.
    fn expected(from: Stance, act: GateAct) -> Option<Stance> {
        match (from, act) {
            (_, Emergency) => Some(Sensemaking),
            (Sensemaking, Framing) => Some(Discovery),
            (Discovery, Framing) => Some(Discovery),
            (Discovery, Commitment) => Some(Execution),
            (Execution, Evaluate) | (Execution, LeaseExpiry) => Some(Evaluation),
            (Evaluation, Renew) => Some(Execution),
            (Evaluation, Revise) | (Evaluation, Release) => Some(Sensemaking),
            _ => None,
        }
    }

    #[test]
    fn every_pair_is_covered_allowed_and_forbidden() {
        let mut allowed = 0;
        let mut forbidden = 0;
        for from in Stance::ALL {
            for act in GateAct::ALL {
                assert_eq!(next(from, act), expected(from, act), "({from}, {act})");
                if next(from, act).is_some() { allowed += 1 } else { forbidden += 1 }
            }
        }
        assert_eq!((allowed, forbidden), (TRANSITIONS.len(), 32 - TRANSITIONS.len()));
    }

    #[test]
    fn the_table_has_no_duplicate_rows() {
        let keys: BTreeSet<(Stance, GateAct)> = TRANSITIONS.iter().map(|(f, a, _)| (*f, *a)).collect();
        assert_eq!(keys.len(), TRANSITIONS.len());
    }

    #[test]
    fn execution_never_goes_straight_to_discovery() {
        for act in GateAct::ALL {
            assert_ne!(next(Execution, act), Some(Discovery), "{act}");
        }
    }

    #[test]
    fn emergency_reaches_sensemaking_from_everywhere() {
        for from in Stance::ALL {
            assert_eq!(next(from, Emergency), Some(Sensemaking));
        }
    }
}
