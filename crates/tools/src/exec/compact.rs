//! `fs.compact`: a folder becomes one compressed archive beside it; the originals go to
//! quarantine, not away.
//!
//! Old project folders with thousands of small files are what "compact" is for. It is an L4
//! transform, so it follows seed 000's rule for high-impact work: nothing irreversible without a
//! snapshot. The archive (`<folder>.tar.gz`, deterministic: entries in byte order, owner and
//! group zeroed) is written and then read back and checked file by file against the originals'
//! hashes before anything is moved; only then is the folder quarantined, with a manifest that
//! names the archive. Undo brings the folder back and removes the archive, once the kernel has
//! checked both are exactly as this call left them.

use crate::confine::{Kind, ReadFs, Reader, Writer};
use crate::exec::quarantine::quarantine;
use crate::exec::walk::walk;
use crate::exec::{str_arg, text};
use crate::fs_world::file_hash_in;
use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use serde_json::{Value, json};
use smart_kernel::AdmittedCall;
use smart_kernel::kernel::ToolOutput;
use std::collections::BTreeMap;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// The most entries one folder may have to be compacted.
const MAX_ENTRIES: usize = 200_000;

pub(crate) fn run(call: &AdmittedCall, w: Writer<'_>, quarantine_dir: &Path) -> Result<ToolOutput, String> {
    let folder = PathBuf::from(str_arg(call.args(), "path", "fs.compact")?);
    let meta = w.meta(&folder).map_err(|e| format!("cannot inspect {}: {e}", folder.display()))?;
    if meta.kind != Kind::Dir {
        return Err(format!("{} is not a folder; fs.compact archives a folder", folder.display()));
    }
    let name = folder.file_name().map(|n| n.to_string_lossy().into_owned()).ok_or("the folder has no name")?;
    let archive = folder.with_file_name(format!("{name}.tar.gz"));
    if w.exists(&archive).map_err(|e| e.to_string())? {
        return Err(format!("{} already exists; fs.compact never overwrites", archive.display()));
    }
    let tree = walk(&*w, &folder, MAX_ENTRIES + 1);
    if tree.entries.len() > MAX_ENTRIES {
        return Err(format!(
            "{} has more than {MAX_ENTRIES} entries; compact its sub-folders instead",
            folder.display()
        ));
    }
    if let Some((p, why)) = tree.unreadable.first() {
        return Err(format!("{} cannot be read ({why}); nothing was archived", p.display()));
    }
    let expected = match write_archive(w, &folder, &name, &archive, &tree.entries) {
        Ok(e) => e,
        Err(why) => {
            let _ = w.remove_file(&archive);
            return Err(format!("cannot write {}: {why}; nothing was changed", archive.display()));
        }
    };
    if let Err(why) = verify_archive(&w, &archive, &expected) {
        let _ = w.remove_file(&archive);
        return Err(format!(
            "the archive {} did not read back correctly ({why}); it was removed and nothing was changed",
            archive.display()
        ));
    }
    let archive_hash = file_hash_in(&*w, &archive).map_err(|e| e.0)?;
    let archive_bytes = w.meta(&archive).map(|m| m.len).unwrap_or(0);
    let batch = match quarantine(
        w,
        quarantine_dir,
        std::slice::from_ref(&folder),
        &call.hash(),
        call.inputs(),
        &json!({ "compacted_into": text(&archive) }),
    ) {
        Ok(b) => b,
        Err(why) => {
            let _ = w.remove_file(&archive);
            return Err(format!("{why}; the archive was removed again"));
        }
    };
    let listed = batch.listed();
    let (mut inputs, pairs) = batch.rollback();
    inputs.insert(text(&archive), json!(archive_hash.to_hex()));
    let original_bytes: u64 = batch.items.iter().map(|i| i.size).sum();
    Ok(ToolOutput {
        output: json!({
            "archive": text(&archive),
            "archive_bytes": archive_bytes,
            "original_bytes": original_bytes,
            "files": expected.len(),
            "batch": batch.name,
            "items": listed,
        }),
        rollback: Some(json!({
            "inputs": inputs,
            "items": pairs,
            "batch_dir": text(&batch.dir),
            "archive": text(&archive),
        })),
        ..ToolOutput::default()
    })
}

/// Writes the archive and returns each file's archived name → blake3.
fn write_archive(
    w: Writer<'_>,
    folder: &Path,
    name: &str,
    archive: &Path,
    entries: &[crate::exec::walk::Entry],
) -> Result<BTreeMap<String, String>, String> {
    // Logged first: an archive cut off by a crash would otherwise block every retry.
    w.intend(&crate::exec::steps::Step::Write { path: archive.to_path_buf() }).map_err(|e| e.to_string())?;
    let file = w.create_new(archive).map_err(|e| e.to_string())?;
    let mut tar = tar::Builder::new(GzEncoder::new(file, Compression::default()));
    tar.mode(tar::HeaderMode::Deterministic);
    tar.follow_symlinks(false);
    let mut hashes = BTreeMap::new();
    let top = header(tar::EntryType::Directory, 0o755, 0, None);
    append(&mut tar, top, name, io::empty())?;
    for e in entries {
        let rel = e.path.strip_prefix(folder).map_err(|_| format!("{} is not inside the folder", e.path.display()))?;
        let inner = archive_name(name, rel);
        match e.kind {
            Kind::Dir => {
                append(&mut tar, header(tar::EntryType::Directory, 0o755, 0, e.modified_ms), &inner, io::empty())?
            }
            Kind::File => {
                let src = w.open(&e.path).map_err(|err| format!("cannot open {}: {err}", e.path.display()))?;
                let mut reader = Hashing { inner: src, hasher: blake3::Hasher::new() };
                append(&mut tar, header(tar::EntryType::Regular, 0o644, e.size, e.modified_ms), &inner, &mut reader)?;
                hashes.insert(inner, reader.hasher.finalize().to_hex().to_string());
            }
            Kind::Symlink => {
                let target = w.read_link(&e.path).map_err(|err| format!("cannot read {}: {err}", e.path.display()))?;
                let mut h = header(tar::EntryType::Symlink, 0o777, 0, e.modified_ms);
                tar.append_link(&mut h, &inner, &target).map_err(|err| format!("{inner}: {err}"))?;
            }
            Kind::Other => return Err(format!("{} is a special file and cannot be archived", e.path.display())),
        }
    }
    let gz = tar.into_inner().map_err(|e| e.to_string())?;
    let file = gz.finish().map_err(|e| e.to_string())?;
    file.sync_all().map_err(|e| e.to_string())?;
    Ok(hashes)
}

fn header(kind: tar::EntryType, mode: u32, size: u64, modified_ms: Option<u64>) -> tar::Header {
    let mut h = tar::Header::new_gnu();
    h.set_entry_type(kind);
    h.set_mode(mode);
    h.set_size(size);
    h.set_mtime(modified_ms.unwrap_or(0) / 1000);
    h
}

/// A file's name inside the archive: `name/` and its path below the folder, joined with `/` —
/// tar's separator on every system (a Windows path would bring `\`).
fn archive_name(name: &str, rel: &Path) -> String {
    match smart_kernel::slash_path(rel) {
        rel if rel.is_empty() => name.to_string(),
        rel => format!("{name}/{rel}"),
    }
}

fn append<W: io::Write>(
    tar: &mut tar::Builder<W>,
    mut h: tar::Header,
    path: &str,
    data: impl Read,
) -> Result<(), String> {
    tar.append_data(&mut h, path, data).map_err(|e| format!("{path}: {e}"))
}

struct Hashing<R> {
    inner: R,
    hasher: blake3::Hasher,
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}

/// Reads the archive back: every file must be there with the content that was written.
fn verify_archive(r: &Reader<'_>, archive: &Path, expected: &BTreeMap<String, String>) -> Result<(), String> {
    let file = r.open(archive).map_err(|e| e.to_string())?;
    let mut tar = tar::Archive::new(GzDecoder::new(file));
    let mut seen = BTreeMap::new();
    for entry in tar.entries().map_err(|e| e.to_string())? {
        let mut entry = entry.map_err(|e| e.to_string())?;
        if entry.header().entry_type() != tar::EntryType::Regular {
            continue;
        }
        // The name as stored, `/`-separated on every system (a `Path` would be `\`-separated
        // on Windows and not match the names written).
        let path = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let mut hasher = blake3::Hasher::new();
        io::copy(&mut entry, &mut hasher).map_err(|e| format!("{path}: {e}"))?;
        seen.insert(path, hasher.finalize().to_hex().to_string());
    }
    if &seen != expected {
        let missing = expected.iter().find(|(k, v)| seen.get(*k) != Some(*v)).map(|(k, _)| k.clone());
        return Err(format!("{} differs", missing.unwrap_or_else(|| "an extra entry".into())));
    }
    Ok(())
}

/// For `smart quarantine list`: whether a manifest says its batch came from `fs.compact`.
pub fn compacted_into(manifest: &Value) -> Option<&str> {
    manifest.get("compacted_into").and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What broke under Wine: names were written with the system's separator ("old-project/
    /// empty\.keep") and read back with `/`, so every compaction of a nested folder on Windows
    /// failed its read-back.
    #[test]
    fn archive_names_are_slash_separated_on_every_system() {
        let rel = Path::new("empty").join("sub").join(".keep");
        assert_eq!(archive_name("old-project", &rel), "old-project/empty/sub/.keep");
        assert_eq!(archive_name("old-project", Path::new("")), "old-project");
    }
}
