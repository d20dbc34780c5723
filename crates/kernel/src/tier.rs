//! Risk tiers (seed 003): 1 runs, 2 runs and tells the person, 3 waits for the person.
//!
//! The classifier is static and deterministic: the tool's layer and reversibility, whether the
//! call touches a sensitive path, and how many paths it touches. An outside opinion (a model's
//! risk guess) is folded in with `max`, so it can raise a tier and never lower one.

use crate::layer::Layer;
use crate::policy::RiskPolicy;
use crate::tool::Reversibility;
use serde::{Deserialize, Serialize};
use std::path::Path;

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(into = "u8", try_from = "u8")]
pub enum Tier {
    /// Runs without interrupting the person.
    One = 1,
    /// Runs, and the person is told.
    Two = 2,
    /// Waits for a signed approval.
    Three = 3,
}

impl From<Tier> for u8 {
    fn from(t: Tier) -> u8 {
        t as u8
    }
}

impl TryFrom<u8> for Tier {
    type Error = String;
    fn try_from(v: u8) -> Result<Tier, String> {
        match v {
            1 => Ok(Tier::One),
            2 => Ok(Tier::Two),
            3 => Ok(Tier::Three),
            _ => Err(format!("risk tier {v} does not exist (tiers are 1, 2, 3)")),
        }
    }
}

impl Tier {
    fn raised(self) -> Tier {
        match self {
            Tier::One => Tier::Two,
            Tier::Two | Tier::Three => Tier::Three,
        }
    }
}

/// Whether a path touches something the policy calls sensitive.
pub fn is_sensitive(path: &str, policy: &RiskPolicy) -> bool {
    Path::new(path).components().any(|c| {
        let name = c.as_os_str().to_string_lossy();
        policy.sensitive.iter().any(|pat| match pat.strip_prefix('*') {
            Some(suffix) => name.ends_with(suffix) && name.len() > suffix.len(),
            None => name == pat.as_str(),
        })
    })
}

/// The tier of a call: static classification, then the outside opinion can only raise it.
pub fn classify(layer: Layer, rev: Reversibility, paths: &[String], policy: &RiskPolicy, hint: Option<Tier>) -> Tier {
    let mut tier = match rev {
        Reversibility::ReadOnly | Reversibility::ProposeOnly => Tier::One,
        Reversibility::Reversible => Tier::Two,
        Reversibility::Irreversible => Tier::Three,
    };
    if layer == Layer::L4 {
        tier = Tier::Three;
    }
    if paths.iter().any(|p| is_sensitive(p, policy)) {
        tier = if rev.mutates() { Tier::Three } else { tier.max(Tier::Two) };
    }
    if rev.mutates() && paths.len() > policy.bulk_paths {
        tier = tier.raised();
    }
    match hint {
        Some(h) => tier.max(h),
        None => tier,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn p(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| (*s).to_string()).collect()
    }

    #[test]
    fn base_tiers_follow_reversibility() {
        let rp = RiskPolicy::default();
        assert_eq!(classify(Layer::L0, Reversibility::ReadOnly, &p(&["/h/a"]), &rp, None), Tier::One);
        assert_eq!(classify(Layer::L2, Reversibility::ProposeOnly, &p(&["/h/a"]), &rp, None), Tier::One);
        assert_eq!(classify(Layer::L3, Reversibility::Reversible, &p(&["/h/a"]), &rp, None), Tier::Two);
        assert_eq!(classify(Layer::L3, Reversibility::Irreversible, &p(&["/h/a"]), &rp, None), Tier::Three);
    }

    #[test]
    fn every_l4_call_is_tier_three_even_if_reversible() {
        let rp = RiskPolicy::default();
        assert_eq!(classify(Layer::L4, Reversibility::Reversible, &[], &rp, None), Tier::Three);
        assert_eq!(classify(Layer::L4, Reversibility::ReadOnly, &[], &rp, None), Tier::Three);
    }

    #[test]
    fn sensitive_paths_raise_mutations_to_three_and_reads_to_two() {
        let rp = RiskPolicy::default();
        assert_eq!(classify(Layer::L3, Reversibility::Reversible, &p(&["/h/.ssh/config"]), &rp, None), Tier::Three);
        assert_eq!(classify(Layer::L0, Reversibility::ReadOnly, &p(&["/h/keys/server.pem"]), &rp, None), Tier::Two);
        assert!(!is_sensitive("/h/notes/ssh.txt", &rp));
        assert!(!is_sensitive("/h/.pem", &rp), "a bare suffix is not a match");
    }

    #[test]
    fn bulk_mutations_are_raised() {
        let rp = RiskPolicy { bulk_paths: 2, ..RiskPolicy::default() };
        let many = p(&["/h/a", "/h/b", "/h/c"]);
        assert_eq!(classify(Layer::L3, Reversibility::Reversible, &many, &rp, None), Tier::Three);
        assert_eq!(classify(Layer::L0, Reversibility::ReadOnly, &many, &rp, None), Tier::One);
    }

    proptest! {
        #[test]
        fn a_hint_never_lowers_a_tier(layer in 0u8..5, rev in 0usize..4, hint in 1u8..4, sens in any::<bool>()) {
            let rp = RiskPolicy::default();
            let layer = Layer::try_from(layer).unwrap();
            let rev = [Reversibility::ReadOnly, Reversibility::ProposeOnly, Reversibility::Reversible, Reversibility::Irreversible][rev];
            let paths = if sens { p(&["/h/.ssh/k"]) } else { p(&["/h/k"]) };
            let base = classify(layer, rev, &paths, &rp, None);
            let hinted = classify(layer, rev, &paths, &rp, Some(Tier::try_from(hint).unwrap()));
            prop_assert!(hinted >= base);
            prop_assert_eq!(hinted, base.max(Tier::try_from(hint).unwrap()));
        }
    }
}
