//! The artifact index (seed 001, bridge memory): what has been produced, where it is, how
//! current it is — an index, never the content.
//!
//! Registered agents (the person, a scoped work order) add entries when they create or update
//! an artifact. Two things age an entry. Its *status* (draft → review → final → deprecated) is a
//! judgement, changed only at the evaluation gate. Its *freshness* decays by itself: an entry
//! nobody has touched for [`STALE_AFTER_MS`] becomes stale, and after [`REVIEW_AFTER_MS`]
//! review-needed (seed 001: "current → stale → review-needed"); touching it again makes it
//! current. Deprecated entries do not decay — there is nothing left to review.

use crate::time::Millis;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const STALE_AFTER_MS: u64 = 7 * 24 * 3_600_000;
pub const REVIEW_AFTER_MS: u64 = 30 * 24 * 3_600_000;
pub const MAX_ENTRIES: usize = 2_000;
pub const MAX_FIELD_CHARS: usize = 300;

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ArtifactKind {
    Doc,
    Spec,
    Code,
    Deck,
    Plan,
    Data,
}

impl std::str::FromStr for ArtifactKind {
    type Err = String;
    fn from_str(s: &str) -> Result<ArtifactKind, String> {
        match s {
            "doc" => Ok(ArtifactKind::Doc),
            "spec" => Ok(ArtifactKind::Spec),
            "code" => Ok(ArtifactKind::Code),
            "deck" => Ok(ArtifactKind::Deck),
            "plan" => Ok(ArtifactKind::Plan),
            "data" => Ok(ArtifactKind::Data),
            _ => Err(format!("artifact type {s:?} must be doc, spec, code, deck, plan or data")),
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ArtifactStatus {
    Draft,
    Review,
    Final,
    Deprecated,
}

impl std::str::FromStr for ArtifactStatus {
    type Err = String;
    fn from_str(s: &str) -> Result<ArtifactStatus, String> {
        match s {
            "draft" => Ok(ArtifactStatus::Draft),
            "review" => Ok(ArtifactStatus::Review),
            "final" => Ok(ArtifactStatus::Final),
            "deprecated" => Ok(ArtifactStatus::Deprecated),
            _ => Err(format!("artifact status {s:?} must be draft, review, final or deprecated")),
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Freshness {
    Current,
    Stale,
    ReviewNeeded,
}

/// What a registered agent says about an artifact.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ArtifactDraft {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: ArtifactKind,
    /// A path, a link or an id: where the artifact is, not what it says.
    pub pointer: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dependencies: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ArtifactEntry {
    #[serde(flatten)]
    pub draft: ArtifactDraft,
    pub status: ArtifactStatus,
    /// Bumped by every registration of the same pointer.
    pub version: u32,
    /// "person", or the work order that registered it.
    pub owner: String,
    pub updated_at: Millis,
    pub freshness: Freshness,
}

impl ArtifactDraft {
    pub fn check(&self) -> Result<(), String> {
        for (what, v) in [("name", &self.name), ("pointer", &self.pointer)] {
            if v.trim().is_empty() || v.chars().count() > MAX_FIELD_CHARS {
                return Err(format!("an artifact's {what} is 1 to {MAX_FIELD_CHARS} characters"));
            }
        }
        if self.dependencies.len() > 8 || self.dependencies.iter().any(|d| d.chars().count() > MAX_FIELD_CHARS) {
            return Err("an artifact lists at most 8 dependencies".into());
        }
        Ok(())
    }
}

/// The freshness an entry last touched at `updated_at` has decayed to by `now`.
pub fn freshness_at(status: ArtifactStatus, updated_at: Millis, now: Millis) -> Freshness {
    let age = now.0.saturating_sub(updated_at.0);
    if status == ArtifactStatus::Deprecated || age < STALE_AFTER_MS {
        Freshness::Current
    } else if age < REVIEW_AFTER_MS {
        Freshness::Stale
    } else {
        Freshness::ReviewNeeded
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArtifactIndex {
    entries: BTreeMap<String, ArtifactEntry>,
}

impl ArtifactIndex {
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn entries(&self) -> &BTreeMap<String, ArtifactEntry> {
        &self.entries
    }

    pub fn get(&self, pointer: &str) -> Option<&ArtifactEntry> {
        self.entries.get(pointer)
    }

    pub fn check_register(&self, draft: &ArtifactDraft) -> Result<(), String> {
        draft.check()?;
        if !self.entries.contains_key(&draft.pointer) && self.entries.len() >= MAX_ENTRIES {
            return Err(format!("the artifact index holds at most {MAX_ENTRIES} entries"));
        }
        Ok(())
    }

    pub(crate) fn register(&mut self, draft: ArtifactDraft, owner: &str, at: Millis) {
        let (version, status) = match self.entries.get(&draft.pointer) {
            Some(e) => (e.version + 1, e.status),
            None => (1, ArtifactStatus::Draft),
        };
        let pointer = draft.pointer.clone();
        let entry = ArtifactEntry {
            draft,
            status,
            version,
            owner: owner.to_string(),
            updated_at: at,
            freshness: Freshness::Current,
        };
        self.entries.insert(pointer, entry);
    }

    pub(crate) fn set_status(&mut self, pointer: &str, status: ArtifactStatus, at: Millis) -> bool {
        match self.entries.get_mut(pointer) {
            Some(e) => {
                e.status = status;
                e.updated_at = at;
                e.freshness = Freshness::Current;
                true
            }
            None => false,
        }
    }

    /// Entries whose freshness has decayed since it was last recorded, with the new value.
    pub fn due(&self, now: Millis) -> Vec<(String, Freshness)> {
        self.entries
            .iter()
            .filter_map(|(p, e)| {
                let f = freshness_at(e.status, e.updated_at, now);
                (f > e.freshness).then(|| (p.clone(), f))
            })
            .collect()
    }

    pub(crate) fn decay(&mut self, pointer: &str, to: Freshness) -> bool {
        match self.entries.get_mut(pointer) {
            Some(e) if to > e.freshness => {
                e.freshness = to;
                true
            }
            _ => false,
        }
    }
}
