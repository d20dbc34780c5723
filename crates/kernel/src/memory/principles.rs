//! Principles and North Stars (seed 001, slow memory): the few things that hold across leases.
//!
//! Principles are non-negotiables, review-cadence norms and global constraints; they change
//! rarely and only at the evaluation gate. North Stars are the person's declared values; the
//! bootstrap conversation may *infer* candidates, but a North Star exists only once the person
//! ratifies it at the framing gate ("what matters"), and every ratification of the same name
//! is a new version — seed 001: "explicit, consented, ratified, versioned".

use crate::time::Millis;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum PrincipleKind {
    NonNegotiable,
    ReviewCadence,
    Constraint,
}

impl std::str::FromStr for PrincipleKind {
    type Err = String;
    fn from_str(s: &str) -> Result<PrincipleKind, String> {
        match s {
            "non_negotiable" | "non-negotiable" => Ok(PrincipleKind::NonNegotiable),
            "review_cadence" | "review-cadence" => Ok(PrincipleKind::ReviewCadence),
            "constraint" => Ok(PrincipleKind::Constraint),
            _ => Err(format!("principle kind {s:?} must be non_negotiable, review_cadence or constraint")),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Principle {
    pub kind: PrincipleKind,
    pub text: String,
    pub set_at: Millis,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct NorthStar {
    pub text: String,
    pub version: u32,
    pub ratified_at: Millis,
}

pub const MAX_NAME_CHARS: usize = 60;
pub const MAX_TEXT_CHARS: usize = 300;
pub const MAX_PRINCIPLES: usize = 32;

/// Checks a name/text pair for either kind of entry.
pub fn check_entry(name: &str, text: &str) -> Result<(), String> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME_CHARS {
        return Err(format!("a name is 1 to {MAX_NAME_CHARS} characters"));
    }
    if text.trim().is_empty() || text.chars().count() > MAX_TEXT_CHARS {
        return Err(format!("a text is 1 to {MAX_TEXT_CHARS} characters"));
    }
    Ok(())
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Principles {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    principles: BTreeMap<String, Principle>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    north_stars: BTreeMap<String, NorthStar>,
}

impl Principles {
    pub fn is_empty(&self) -> bool {
        self.principles.is_empty() && self.north_stars.is_empty()
    }

    pub fn principles(&self) -> &BTreeMap<String, Principle> {
        &self.principles
    }

    pub fn north_stars(&self) -> &BTreeMap<String, NorthStar> {
        &self.north_stars
    }

    pub fn check_principle(&self, name: &str, text: &str) -> Result<(), String> {
        check_entry(name, text)?;
        if !self.principles.contains_key(name.trim()) && self.principles.len() >= MAX_PRINCIPLES {
            return Err(format!("there are already {MAX_PRINCIPLES} principles; retire one first"));
        }
        Ok(())
    }

    pub(crate) fn set_principle(&mut self, name: &str, kind: PrincipleKind, text: &str, at: Millis) {
        self.principles.insert(name.trim().to_string(), Principle { kind, text: text.trim().to_string(), set_at: at });
    }

    pub(crate) fn retire_principle(&mut self, name: &str) -> bool {
        self.principles.remove(name.trim()).is_some()
    }

    pub fn check_north_star(&self, name: &str, text: &str) -> Result<(), String> {
        check_entry(name, text)?;
        if !self.north_stars.contains_key(name.trim()) && self.north_stars.len() >= MAX_PRINCIPLES {
            return Err(format!("there are already {MAX_PRINCIPLES} North Stars"));
        }
        Ok(())
    }

    /// A new North Star, or a new version of one.
    pub(crate) fn ratify_north_star(&mut self, name: &str, text: &str, at: Millis) -> u32 {
        let version = self.north_stars.get(name.trim()).map_or(1, |n| n.version + 1);
        self.north_stars
            .insert(name.trim().to_string(), NorthStar { text: text.trim().to_string(), version, ratified_at: at });
        version
    }
}
