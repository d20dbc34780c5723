//! Which admitted calls a live process is still running.
//!
//! An admitted call is in flight from its `admitted` event until its receipt. If SMART dies in
//! between, the next open finds the call still in flight and records it as interrupted, so the
//! ledger never claims a receipt nobody wrote. But "still in flight" in the ledger cannot tell a
//! dead process from a busy one: the app and the CLI share a data dir, and `smart status` run
//! while the app moved 3,000 files recorded that move as `failed: interrupted` — after which the
//! app's real receipt could not be appended and the move could not be undone.
//!
//! So the process that runs a call holds an exclusive lock on `in-flight/<call hash>.lock` in the
//! data dir from before its `admitted` event is written until after its receipt is. The operating
//! system releases the lock when the process ends, however it ends, which is exactly the question
//! asked: a call whose lock can be taken has nobody running it any more. A call in flight with no
//! lock file at all (a crash before this was written, a ledger from before it) has nobody either.

use crate::error::RuntimeError;
use crate::paths::DataDir;
use smart_kernel::Hash;
use std::fs::{File, OpenOptions, TryLockError};
use std::path::PathBuf;

/// The running process's hold on one call; released (and its file removed) when dropped.
#[derive(Debug)]
pub struct Running {
    file: Option<File>,
    path: PathBuf,
}

fn lock_path(dir: &DataDir, call: &Hash) -> PathBuf {
    dir.in_flight().join(format!("{}.lock", call.to_hex()))
}

impl Running {
    /// Takes the lock for `call`, waiting for another holder of the same call to finish first.
    pub fn take(dir: &DataDir, call: &Hash) -> Result<Running, RuntimeError> {
        let path = lock_path(dir, call);
        let io = |e: std::io::Error| RuntimeError::Io { path: path.clone(), reason: e.to_string() };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io)?;
        }
        loop {
            let file = OpenOptions::new().create(true).truncate(false).write(true).open(&path).map_err(io)?;
            file.lock().map_err(io)?;
            // A holder we waited for removes the file as it lets go: a lock on that file is a
            // lock on nothing anyone can find. Only a lock on the file at the path counts.
            if still_at(&file, &path) {
                return Ok(Running { file: Some(file), path });
            }
        }
    }
}

impl Running {
    /// Takes the lock for `call` only if nobody holds it now; `None` when a live process does
    /// (or the lock cannot be had).
    pub fn try_take(dir: &DataDir, call: &Hash) -> Option<Running> {
        let path = lock_path(dir, call);
        let file = OpenOptions::new().create(true).truncate(false).write(true).open(&path).ok()?;
        file.try_lock().ok()?;
        still_at(&file, &path).then_some(Running { file: Some(file), path })
    }
}

/// Every call that left a file in `in-flight/` (a lock, a step log): a process running it now,
/// or one that died before tidying up after itself.
pub fn left_behind(dir: &DataDir) -> Vec<Hash> {
    let Ok(entries) = std::fs::read_dir(dir.in_flight()) else {
        return Vec::new();
    };
    let mut calls: Vec<Hash> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let (hex, _) = name.split_once('.')?;
            Hash::from_hex(hex).ok()
        })
        .collect();
    calls.sort();
    calls.dedup();
    calls
}

/// Whether `file` is the file at `path` now (not one removed or replaced since it was opened).
fn still_at(file: &File, path: &std::path::Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (file.metadata(), std::fs::metadata(path)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }
    // Elsewhere an open file cannot be removed, so the file at the path is the one held.
    #[cfg(not(unix))]
    {
        let _ = (file, path);
        true
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // Removed while still held, so nobody takes a lock on a file that is about to go; a
        // process that opened it just before sees it locked, then finds the receipt. Only our
        // own file: after a wait the path may hold the next holder's.
        if let Some(file) = self.file.take() {
            if still_at(&file, &self.path) {
                let _ = std::fs::remove_file(&self.path);
            }
            drop(file);
        }
    }
}

/// Whether a live process holds `call`'s lock (is running it now).
pub fn is_running(dir: &DataDir, call: &Hash) -> bool {
    let Ok(file) = File::open(lock_path(dir, call)) else {
        return false;
    };
    match file.try_lock() {
        Ok(()) => false,
        Err(TryLockError::WouldBlock) => true,
        // A lock that cannot even be asked about is treated as held: recording a live call as
        // interrupted loses its receipt, while leaving a dead one in flight only waits for the
        // next open.
        Err(TryLockError::Error(_)) => true,
    }
}

/// Removes the lock file of a call nobody runs any more (after it was recorded as interrupted).
pub fn forget(dir: &DataDir, call: &Hash) {
    let _ = std::fs::remove_file(lock_path(dir, call));
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_is_running_and_a_released_one_is_not() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::new(tmp.path());
        let call = Hash([7; 32]);
        assert!(!is_running(&dir, &call), "no lock file: nobody runs it");
        let held = Running::take(&dir, &call).unwrap();
        assert!(is_running(&dir, &call));
        drop(held);
        assert!(!is_running(&dir, &call));
        assert!(!lock_path(&dir, &call).exists(), "the lock file is removed with the hold");
        // A lock file left behind by a process that died is not held.
        std::fs::write(lock_path(&dir, &call), "").unwrap();
        assert!(!is_running(&dir, &call));
        forget(&dir, &call);
        assert!(!lock_path(&dir, &call).exists());
    }

    #[test]
    fn only_a_lock_nobody_holds_can_be_tried() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::new(tmp.path());
        let (a, b) = (Hash([1; 32]), Hash([2; 32]));
        let held = Running::take(&dir, &a).unwrap();
        assert!(Running::try_take(&dir, &a).is_none(), "a live holder keeps it");
        std::fs::write(dir.in_flight().join(format!("{}.steps", b.to_hex())), "").unwrap();
        std::fs::write(dir.in_flight().join("notes.txt"), "").unwrap();
        assert_eq!(left_behind(&dir), vec![a, b], "a lock and a step log name their calls; other files name none");
        let tried = Running::try_take(&dir, &b).unwrap();
        assert!(is_running(&dir, &b));
        drop((tried, held));
        assert_eq!(left_behind(&dir), vec![b], "only the step log is left");
    }
}
