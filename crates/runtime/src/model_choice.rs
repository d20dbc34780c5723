//! Which model file a data dir's proposer loads.
//!
//! The choice is a line in `<data dir>/models.toml` written by `smart models use`: a catalog
//! name (the file must then match its pinned checksum before it is loaded) or the path of a GGUF
//! the person brought themselves (FunctionGemma, say), which is loaded as given — its header is
//! still read and its architecture checked by the worker. With no choice, the catalog's default
//! proposer is used.

use crate::error::RuntimeError;
use serde::{Deserialize, Serialize};
use smart_models::Models;
use std::path::{Path, PathBuf};

use crate::assistant::SpecFn;
use crate::worker::{WorkerSpec, locate_worker};
use smart_proposer::protocol::LoadRequest;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelChoice {
    /// A catalog name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposer: Option<String>,
    /// A GGUF outside the catalog.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposer_file: Option<PathBuf>,
}

fn path(data_dir: &Path) -> PathBuf {
    data_dir.join("models.toml")
}

pub fn read_choice(data_dir: &Path) -> Result<ModelChoice, RuntimeError> {
    let p = path(data_dir);
    match std::fs::read_to_string(&p) {
        Ok(text) => toml::from_str(&text)
            .map_err(|e| RuntimeError::BadInput(format!("{} is not a valid model choice: {e}", p.display()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(ModelChoice { proposer: None, proposer_file: None }),
        Err(e) => Err(RuntimeError::Io { path: p, reason: e.to_string() }),
    }
}

pub fn write_choice(data_dir: &Path, choice: &ModelChoice) -> Result<(), RuntimeError> {
    if !data_dir.join("ledger.db").is_file() {
        return Err(RuntimeError::NotInitialised(data_dir.to_path_buf()));
    }
    let p = path(data_dir);
    let text = toml::to_string(choice).map_err(|e| RuntimeError::BadInput(e.to_string()))?;
    let tmp = data_dir.join("models.toml.tmp");
    std::fs::write(&tmp, text).map_err(|e| RuntimeError::Io { path: tmp.clone(), reason: e.to_string() })?;
    std::fs::rename(&tmp, &p).map_err(|e| RuntimeError::Io { path: p, reason: e.to_string() })
}

/// The model file to load and the name to show for it.
pub fn resolve_proposer(data_dir: &Path, models: &Models) -> Result<(PathBuf, String), RuntimeError> {
    let choice = read_choice(data_dir)?;
    if let Some(file) = choice.proposer_file {
        if !file.is_file() {
            return Err(RuntimeError::BadInput(format!(
                "the chosen model file {} does not exist; choose another with `smart models use`",
                file.display()
            )));
        }
        let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        return Ok((file, name));
    }
    let m = match &choice.proposer {
        Some(name) => models.get(name).map_err(|e| RuntimeError::BadInput(e.to_string()))?,
        None => models
            .catalog()
            .default_for("proposer")
            .ok_or_else(|| RuntimeError::BadInput("the catalog has no default proposer model".into()))?,
    };
    let p = models.verified_path(m).map_err(|e| RuntimeError::BadInput(e.to_string()))?;
    Ok((p, m.name.clone()))
}

/// The worker spec for `data_dir`'s chosen model, resolved when the model is first needed.
pub fn proposer_spec(data_dir: PathBuf) -> SpecFn {
    Box::new(move || {
        let models = Models::open_default().map_err(|e| RuntimeError::BadInput(e.to_string()))?;
        let (path, _) = resolve_proposer(&data_dir, &models)?;
        let program = locate_worker()?;
        let threads = std::env::var("SMART_THREADS").ok().and_then(|t| t.parse().ok());
        Ok(WorkerSpec {
            program,
            args: vec![],
            load: LoadRequest {
                path: path.to_string_lossy().into_owned(),
                n_ctx: 4096,
                threads,
                gpu_layers: 0,
                format: None,
                // Evaluated prompt prefixes survive between runs (`smart say`, the app).
                cache_dir: Some(models.prefix_cache_dir().to_string_lossy().into_owned()),
            },
        })
    })
}

/// Where the voice path's models come from: whisper (a catalog name or a ggml file), the
/// language, and the wake word: whether it is wanted, its phrase, and a vosk model folder to
/// hear it with (none: whisper hears it).
#[derive(Clone, Debug, Default)]
pub struct VoiceChoice {
    pub whisper: Option<String>,
    pub language: Option<String>,
    /// Listen for the wake phrase (push-to-talk is always there).
    pub wake: bool,
    pub wake_model: Option<String>,
    pub wake_phrase: Option<String>,
    /// Names whisper's prompt names besides the commands (the working folder's entries).
    pub vocabulary: Vec<String>,
    /// Names whisper should prefer while it decodes ([`hearing_vocabulary`]: every depth).
    pub expected_names: Vec<String>,
    /// How strongly whisper prefers the command words and names while it decodes; `None` is
    /// the measured default (`smart_voice::bias::Boost::default`).
    pub boost: Option<smart_voice::bias::Boost>,
}

/// At most this many names are expected while decoding (nearest first): a bounded token trie,
/// and a bias that stays about the folders a person is likely to name.
pub const MAX_EXPECTED_NAMES: usize = 2_000;

/// The names whisper should expect: every file and folder under the roots (breadth first, so
/// the top-level entries come first and a deep tree is cut at its deepest names), each once.
pub fn hearing_vocabulary(roots: &[String]) -> Vec<String> {
    let limits = crate::understanding::WalkLimits { entries: MAX_EXPECTED_NAMES * 2, ..Default::default() };
    let walked = crate::understanding::vocabulary(roots, limits);
    let mut seen = std::collections::BTreeSet::new();
    walked
        .entries
        .iter()
        .map(|e| e.name().to_string())
        .filter(|n| seen.insert(n.clone()))
        .take(MAX_EXPECTED_NAMES)
        .collect()
}

/// What whisper should expect while decoding: the command words, then the names.
pub fn expected(names: &[String], boost: Option<smart_voice::bias::Boost>) -> smart_voice::protocol::Expect {
    let mut phrases: Vec<String> = smart_voice::command_words::expected_words().map(str::to_string).collect();
    phrases.extend(names.iter().filter(|n| !n.trim().is_empty()).cloned());
    smart_voice::protocol::Expect { phrases, boost: boost.unwrap_or_default() }
}

/// What a person says to SMART: whisper is told to expect these (see `LoadVoice::prompt`).
const COMMAND_WORDS: &str = "scan, list, hash, quarantine, move, find duplicates, undo, approve, deny, stop";

/// The biasing prompt: the command words and up to 30 names, in the order given.
pub fn whisper_prompt(vocabulary: &[String]) -> String {
    let mut p = format!("Commands for a file assistant: {COMMAND_WORDS}.");
    let names: Vec<&str> = vocabulary.iter().map(String::as_str).filter(|n| !n.trim().is_empty()).take(30).collect();
    if !names.is_empty() {
        p.push_str(&format!(" Files and folders: {}.", names.join(", ")));
    }
    p
}

/// The names in a folder (not hidden), sorted, for [`whisper_prompt`].
pub fn folder_vocabulary(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(Result::ok).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    names.retain(|n| !n.starts_with('.'));
    names.sort();
    names
}

/// The phrase the wake word listens for when none is set.
pub const DEFAULT_WAKE_PHRASE: &str = "hey smart";

fn catalog_path(
    models: &Models,
    name_or_file: Option<&str>,
    purpose: &str,
    what: &str,
) -> Result<String, RuntimeError> {
    if let Some(n) = name_or_file
        && models.get(n).is_err()
    {
        return if Path::new(n).exists() {
            Ok(n.to_string())
        } else {
            Err(RuntimeError::BadInput(format!(
                "{n:?} is neither a catalog model ({}) nor an existing {what} file",
                models.catalog().names()
            )))
        };
    }
    let m = match name_or_file {
        Some(n) => models.get(n).map_err(|e| RuntimeError::BadInput(e.to_string()))?,
        None => models
            .catalog()
            .default_for(purpose)
            .ok_or_else(|| RuntimeError::BadInput(format!("the catalog has no default {what} model")))?,
    };
    let p = models.verified_path(m).map_err(|e| RuntimeError::BadInput(e.to_string()))?;
    Ok(p.to_string_lossy().into_owned())
}

/// The voice worker's load request for `choice`. A wake model that is missing is not an error:
/// the worker reports the wake word as unavailable and push-to-talk still works. Without a
/// vosk model, whisper listens for the phrase.
pub fn voice_load(models: &Models, choice: &VoiceChoice) -> Result<smart_voice::protocol::LoadVoice, RuntimeError> {
    let whisper = catalog_path(models, choice.whisper.as_deref(), "stt", "whisper")?;
    let vad = catalog_path(models, None, "vad", "VAD")?;
    let wake = choice.wake.then(|| smart_voice::protocol::WakeConfig {
        model: choice
            .wake_model
            .as_ref()
            .map(|m| catalog_path(models, Some(m), "wake", "vosk model folder").unwrap_or_else(|_| m.clone())),
        phrase: choice.wake_phrase.clone().unwrap_or_else(|| DEFAULT_WAKE_PHRASE.to_string()),
    });
    let threads = std::env::var("SMART_THREADS").ok().and_then(|t| t.parse().ok());
    Ok(smart_voice::protocol::LoadVoice {
        whisper,
        vad,
        language: choice.language.clone(),
        threads,
        prompt: Some(whisper_prompt(&choice.vocabulary)),
        expect: Some(expected(&choice.expected_names, choice.boost)),
        wake,
        endpoint: Default::default(),
        speak: false,
        preroll_ms: 500,
        partial_every_ms: None,
        transcribe_ahead: true,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    #[test]
    fn without_voice_models_the_error_names_the_model_to_fetch() {
        let empty = tempfile::tempdir().unwrap();
        let models = Models::new(empty.path(), smart_models::Catalog::built_in().unwrap());
        let err = voice_load(&models, &VoiceChoice::default()).unwrap_err().to_string();
        assert!(err.contains("smart models fetch whisper-tiny.en"), "{err}");
        let err =
            voice_load(&models, &VoiceChoice { whisper: Some("/no/such/model.bin".into()), ..Default::default() })
                .unwrap_err()
                .to_string();
        assert!(err.contains("neither a catalog model") && err.contains("/no/such/model.bin"), "{err}");
    }

    #[test]
    fn the_whisper_prompt_names_the_commands_and_at_most_thirty_names() {
        let names: Vec<String> = (0..50).map(|i| format!("f{i}")).collect();
        let p = whisper_prompt(&names);
        assert!(p.contains("quarantine") && p.contains("f0, f1") && p.contains("f29") && !p.contains("f30"), "{p}");
        assert!(!whisper_prompt(&[]).contains("Files and folders"));
    }

    #[test]
    fn whisper_expects_every_command_word_and_each_name_under_the_roots_once_shallowest_first() {
        let root = tempfile::tempdir().unwrap();
        for dir in ["Payslips/2019", "Flyers/summer", "Notes"] {
            std::fs::create_dir_all(root.path().join(dir)).unwrap();
        }
        for file in ["Payslips/2019/march.pdf", "Flyers/summer/playlist.txt", "Notes/march.pdf", "top.md"] {
            std::fs::write(root.path().join(file), b"x").unwrap();
        }
        let names = hearing_vocabulary(&[root.path().display().to_string()]);
        assert_eq!(names.iter().filter(|n| *n == "march.pdf").count(), 1, "{names:?}");
        let at = |n: &str| names.iter().position(|x| x == n).unwrap_or_else(|| panic!("{n} in {names:?}"));
        assert!(at("Payslips") < at("2019") && at("2019") < at("playlist.txt"), "{names:?}");
        assert!(at("top.md") < at("summer"));

        let e = expected(&names, None);
        assert!(e.phrases.iter().any(|p| p == "quarantine") && e.phrases.iter().any(|p| p == "playlist.txt"));
        assert_eq!(e.boost, smart_voice::bias::Boost::default());
        assert_eq!(e.validate(), Ok(()));
        let blank = expected(&["  ".to_string()], None);
        assert_eq!(blank.phrases.len(), smart_voice::command_words::expected_words().count());
    }

    #[test]
    fn a_huge_tree_gives_whisper_a_bounded_list_of_names() {
        let root = tempfile::tempdir().unwrap();
        for i in 0..(MAX_EXPECTED_NAMES + 50) {
            std::fs::write(root.path().join(format!("f{i:05}.txt")), b"").unwrap();
        }
        let names = hearing_vocabulary(&[root.path().display().to_string()]);
        assert_eq!(names.len(), MAX_EXPECTED_NAMES);
        assert_eq!(expected(&names, None).validate(), Ok(()));
    }
}
