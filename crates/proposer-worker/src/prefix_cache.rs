//! The prefix cache on disk: the evaluated state of a prompt's static prefix, kept between
//! processes.
//!
//! Evaluating the instructions and tool declarations that open every prompt takes seconds on
//! two cores; loading their saved KV state takes milliseconds. So a worker that evaluated a
//! prefix saves its state, and every worker of the same model that meets the same prefix loads
//! it (the app, `smart say`, the eval and the bench share one folder).
//!
//! Three rules keep that folder trustworthy and bounded:
//! - **Named by content.** A state is saved under a name no other process uses, then renamed to
//!   its key (model file, context size, prefix tokens: [`crate::engine`] makes it) followed by
//!   the blake3 of its bytes. A file cut short, or written by two processes at once, does not
//!   match its name; it is deleted, never loaded.
//! - **Checked on load.** A state that loads must hold exactly the prefix asked for.
//! - **Bounded.** Every prefix ever evaluated would otherwise stay: one per set of visible tools,
//!   per model file, per context size, tens of megabytes each, for as long as SMART is
//!   installed. After each save the least recently used states beyond [`KEEP_FILES`] or
//!   [`KEEP_BYTES`] are deleted (a load counts as a use: it sets the file's modified time), and
//!   so are temporary files a worker left when it died mid-save, once they are an hour old. The
//!   state just saved always stays. Deleting a state only costs speed: the next prompt that
//!   needs it evaluates its prefix again and saves it again.

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::token::LlamaToken;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The most saved states the folder keeps. A person's scopes make a handful of tool sets, and
/// a model change makes another handful; sixteen keeps them all and some evaluation runs.
pub const KEEP_FILES: usize = 16;
/// The most bytes the kept states may take together (the newest state stays whatever its size).
pub const KEEP_BYTES: u64 = 1024 * 1024 * 1024;
/// How old a temporary file must be before it is taken as left by a dead worker. Saving a state
/// takes well under a second; an hour leaves no doubt.
const STALE_TEMP: Duration = Duration::from_secs(60 * 60);

/// Loads the saved state of `prefix` for `key_path`. Every file for the key whose bytes do not
/// match the digest in its name is deleted; the first good one is loaded, must hold exactly
/// `prefix`, and is marked as used.
pub fn load(ctx: &mut LlamaContext<'_>, key_path: &Path, prefix: &[LlamaToken]) -> Result<(), String> {
    let dir = key_path.parent().ok_or("no cache dir")?;
    let stem = key_path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let mut candidates: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| e.to_string())?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().is_some_and(|n| {
                let n = n.to_string_lossy();
                n.starts_with(&format!("{stem}-")) && n.ends_with(".state")
            })
        })
        .collect();
    candidates.sort();
    for p in candidates {
        let named =
            p.file_stem().and_then(|s| s.to_string_lossy().rsplit('-').next().map(str::to_string)).unwrap_or_default();
        if digest_of(&p).ok().as_deref() != Some(named.as_str()) {
            let _ = std::fs::remove_file(&p);
            continue;
        }
        match ctx.state_load_file(&p, prefix.len() + 1) {
            Ok(saved) if saved == prefix => {
                mark_used(&p, SystemTime::now());
                return Ok(());
            }
            _ => {
                ctx.clear_kv_cache();
                let _ = std::fs::remove_file(&p);
            }
        }
    }
    Err("no saved state for this prefix".into())
}

/// Saves the context's state (which must hold exactly `prefix`) for `key_path`: written under
/// a name no other process uses, then renamed to one that carries its digest; then the folder
/// is swept (see the module's essay). Failing to save only costs the next process the time to
/// evaluate the prefix, so nothing here is an error.
pub fn save(ctx: &LlamaContext<'_>, key_path: &Path, prefix: &[LlamaToken]) {
    let now = SystemTime::now();
    let nanos = now.duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let tmp = key_path.with_extension(format!("{}.{nanos}.tmp", std::process::id()));
    if ctx.state_save_file(&tmp, prefix).is_err() {
        let _ = std::fs::remove_file(&tmp);
        return;
    }
    let saved = match digest_of(&tmp) {
        Ok(d) => state_file_name(key_path, &d),
        Err(_) => {
            let _ = std::fs::remove_file(&tmp);
            return;
        }
    };
    if std::fs::rename(&tmp, &saved).is_err() {
        let _ = std::fs::remove_file(&tmp);
        return;
    }
    if let Some(dir) = saved.parent() {
        sweep(dir, &saved, now, KEEP_FILES, KEEP_BYTES);
    }
}

/// The name a saved prefix state is kept under: its cache key and the blake3 of its bytes.
fn state_file_name(key_path: &Path, digest: &str) -> PathBuf {
    let stem = key_path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    key_path.with_file_name(format!("{stem}-{digest}.state"))
}

fn digest_of(path: &Path) -> std::io::Result<String> {
    let mut h = blake3::Hasher::new();
    std::io::copy(&mut std::fs::File::open(path)?, &mut h)?;
    Ok(h.finalize().to_hex()[..16].to_string())
}

/// Sets `path`'s modified time to `now`, the sweep's measure of when a state was last used. A
/// file that cannot be touched (read-only, or deleted meanwhile) is merely swept sooner.
fn mark_used(path: &Path, now: SystemTime) {
    if let Ok(f) = std::fs::OpenOptions::new().write(true).open(path) {
        let _ = f.set_modified(now);
    }
}

/// What a [`sweep`] deleted.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Swept {
    pub states: usize,
    pub bytes: u64,
    pub temps: usize,
}

/// Deletes, in `dir`, the least recently used saved states beyond `keep_files` or `keep_bytes`
/// (never `keep`, the state just saved) and the temporary files older than [`STALE_TEMP`] at
/// `now`. Only files named as this module names them are touched; anything that cannot be
/// read or deleted (another process's, on Windows an open one) is left for the next sweep.
pub fn sweep(dir: &Path, keep: &Path, now: SystemTime, keep_files: usize, keep_bytes: u64) -> Swept {
    let mut swept = Swept::default();
    let Ok(entries) = std::fs::read_dir(dir) else { return swept };
    let mut states: Vec<(SystemTime, PathBuf, u64)> = vec![];
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with("prefix-") {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        if !meta.is_file() {
            continue;
        }
        let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
        if name.ends_with(".tmp") {
            let age = now.duration_since(modified).unwrap_or_default();
            if age >= STALE_TEMP && std::fs::remove_file(entry.path()).is_ok() {
                swept.temps += 1;
            }
        } else if name.ends_with(".state") {
            states.push((modified, entry.path(), meta.len()));
        }
    }
    // The state just saved first (it counts against the limits), then the most recently used;
    // a tie is broken by name, so every process sweeping agrees.
    states.sort_by(|a, b| (a.1 != keep).cmp(&(b.1 != keep)).then_with(|| b.0.cmp(&a.0)).then_with(|| a.1.cmp(&b.1)));
    let (mut files, mut bytes) = (0usize, 0u64);
    for (_, path, len) in states {
        if path != keep && (files >= keep_files || bytes.saturating_add(len) > keep_bytes) {
            if std::fs::remove_file(&path).is_ok() {
                swept.states += 1;
                swept.bytes += len;
            }
            continue;
        }
        files += 1;
        bytes = bytes.saturating_add(len);
    }
    swept
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;

    const HOUR: Duration = Duration::from_secs(3600);

    /// A file of `len` bytes in `dir`, last modified `ago` before `now`.
    fn file(dir: &Path, name: &str, len: usize, now: SystemTime, ago: Duration) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, vec![7u8; len]).unwrap();
        mark_used(&p, now - ago);
        p
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }

    #[test]
    fn the_least_recently_used_states_beyond_the_count_go_and_the_one_just_saved_stays() {
        let dir = tempfile::tempdir().unwrap();
        let now = SystemTime::now();
        // The one just saved is given the oldest time of all: it stays regardless.
        let saved = file(dir.path(), "prefix-00-aa.state", 10, now, 10 * HOUR);
        for (i, hours) in [1u64, 5, 2, 4, 3].iter().enumerate() {
            file(dir.path(), &format!("prefix-{i:02}{hours}-bb.state"), 10, now, HOUR * *hours as u32);
        }
        let swept = sweep(dir.path(), &saved, now, 3, u64::MAX);
        assert_eq!(swept, Swept { states: 3, bytes: 30, temps: 0 });
        // Kept: the one just saved, then the two used last (1 and 2 hours ago).
        assert_eq!(names(dir.path()), ["prefix-00-aa.state", "prefix-001-bb.state", "prefix-022-bb.state"]);
    }

    #[test]
    fn states_beyond_the_byte_budget_go_oldest_first() {
        let dir = tempfile::tempdir().unwrap();
        let now = SystemTime::now();
        let saved = file(dir.path(), "prefix-new-aa.state", 600, now, Duration::ZERO);
        file(dir.path(), "prefix-mid-bb.state", 300, now, HOUR);
        file(dir.path(), "prefix-old-cc.state", 300, now, 2 * HOUR);
        file(dir.path(), "prefix-tiny-dd.state", 50, now, 3 * HOUR);
        let swept = sweep(dir.path(), &saved, now, 16, 1000);
        // 600 + 300 fit; the next 300 would pass 1000, the 50 after it still fits.
        assert_eq!(swept, Swept { states: 1, bytes: 300, temps: 0 });
        assert_eq!(names(dir.path()), ["prefix-mid-bb.state", "prefix-new-aa.state", "prefix-tiny-dd.state"]);
        // A state larger than the whole budget, just saved, stays; everything else goes.
        let huge = file(dir.path(), "prefix-huge-ee.state", 2000, now, Duration::ZERO);
        sweep(dir.path(), &huge, now, 16, 1000);
        assert_eq!(names(dir.path()), ["prefix-huge-ee.state"]);
    }

    #[test]
    fn a_temporary_file_goes_only_when_an_hour_old_and_other_files_are_never_touched() {
        let dir = tempfile::tempdir().unwrap();
        let now = SystemTime::now();
        let saved = file(dir.path(), "prefix-k-aa.state", 10, now, Duration::ZERO);
        file(dir.path(), "prefix-k.123.456.tmp", 10, now, 2 * HOUR);
        file(dir.path(), "prefix-k.124.457.tmp", 10, now, Duration::from_secs(5));
        file(dir.path(), "notes.txt", 10, now, 100 * HOUR);
        file(dir.path(), "other-zz.state", 10, now, 100 * HOUR);
        std::fs::create_dir(dir.path().join("prefix-dir.state")).unwrap();
        let swept = sweep(dir.path(), &saved, now, 0, 0);
        assert_eq!(swept, Swept { states: 0, bytes: 0, temps: 1 });
        assert_eq!(
            names(dir.path()),
            ["notes.txt", "other-zz.state", "prefix-dir.state", "prefix-k-aa.state", "prefix-k.124.457.tmp"]
        );
    }

    #[test]
    fn a_folder_that_cannot_be_read_sweeps_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("gone");
        assert_eq!(sweep(&missing, &missing.join("x.state"), SystemTime::now(), 0, 0), Swept::default());
    }

    #[test]
    fn a_state_is_named_by_its_key_and_digest_and_a_use_moves_its_time() {
        let dir = tempfile::tempdir().unwrap();
        let key = dir.path().join("prefix-0123456789abcdef.state");
        let named = state_file_name(&key, "feedbeef00112233");
        assert_eq!(named, dir.path().join("prefix-0123456789abcdef-feedbeef00112233.state"));
        std::fs::write(&named, b"state").unwrap();
        assert_eq!(digest_of(&named).unwrap(), blake3::hash(b"state").to_hex()[..16]);
        let then = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        mark_used(&named, then);
        assert_eq!(std::fs::metadata(&named).unwrap().modified().unwrap(), then);
    }
}
