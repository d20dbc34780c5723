//! Watching the allowed roots: which paths changed since we last looked.
//!
//! Two things want to know when the person's files change: the library index (so a search
//! finds today's notes without a full re-walk) and the person (a plan they are about to apply
//! was made against files that have since changed). A `notify` watcher over every root marks
//! changed paths *dirty*; whoever needs them drains the set.
//!
//! A watcher is a hint, never the truth. Events get lost (the kernel's queue overflows, a
//! network drive reports nothing, the app was not running), so nothing correct depends on it:
//! the kernel re-hashes every file a proposal names before applying it, whatever the watcher
//! said, and a watcher that reports a rescan (or an error) marks the whole set *overflowed*, which
//! sends the index back to a full (stat-only, so cheap) sync.

use notify::{RecursiveMode, Watcher as _};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// What changed since the last drain.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dirty {
    pub paths: BTreeSet<PathBuf>,
    /// Events were lost: treat everything as possibly changed.
    pub overflowed: bool,
}

impl Dirty {
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty() && !self.overflowed
    }
}

/// The most paths remembered before the set is treated as overflowed (a bulk copy of 100k
/// files is cheaper to pick up with one full sync than with 100k single updates).
pub const MAX_DIRTY: usize = 20_000;

pub struct RootWatcher {
    _watcher: notify::RecommendedWatcher,
    dirty: Arc<Mutex<Dirty>>,
}

impl std::fmt::Debug for RootWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RootWatcher").finish_non_exhaustive()
    }
}

impl RootWatcher {
    /// Watches every root recursively. A root that cannot be watched is an error (the caller
    /// then relies on full syncs alone).
    pub fn start(roots: &[PathBuf]) -> Result<RootWatcher, String> {
        let dirty = Arc::new(Mutex::new(Dirty::default()));
        let sink = Arc::clone(&dirty);
        let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
            let Ok(mut d) = sink.lock() else { return };
            match res {
                Ok(event) if event.need_rescan() => d.overflowed = true,
                Ok(event) => {
                    if event.kind.is_access() {
                        return;
                    }
                    for p in event.paths {
                        if d.paths.len() >= MAX_DIRTY {
                            d.overflowed = true;
                            break;
                        }
                        d.paths.insert(p);
                    }
                }
                Err(_) => d.overflowed = true,
            }
        })
        .map_err(|e| format!("cannot start watching files: {e}"))?;
        for root in roots {
            watcher
                .watch(root, RecursiveMode::Recursive)
                .map_err(|e| format!("cannot watch {}: {e}", root.display()))?;
        }
        Ok(RootWatcher { _watcher: watcher, dirty })
    }

    /// Takes what changed since the last call.
    pub fn drain(&self) -> Dirty {
        match self.dirty.lock() {
            Ok(mut d) => std::mem::take(&mut *d),
            // A poisoned lock means a panic in the callback: assume the worst.
            Err(_) => Dirty { paths: BTreeSet::new(), overflowed: true },
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use std::time::{Duration, Instant};

    /// Polls until `f` holds or 5 s pass (watch events are asynchronous by nature).
    fn eventually(w: &RootWatcher, mut f: impl FnMut(&Dirty) -> bool) -> Dirty {
        let mut seen = Dirty::default();
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(5) {
            let d = w.drain();
            seen.paths.extend(d.paths);
            seen.overflowed |= d.overflowed;
            if f(&seen) {
                return seen;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        seen
    }

    /// The root's own entries and a folder made while watching. (Wine, which runs the Windows
    /// tests here, watches only these: its recursive watch misses folders that existed before
    /// it started, which Windows itself does not, so the test below is skipped under Wine.)
    #[test]
    fn changes_at_the_top_of_a_root_and_in_a_new_folder_mark_their_paths_dirty() {
        let t = tempfile::tempdir().unwrap();
        let root = dunce::canonicalize(t.path()).unwrap();
        let w = RootWatcher::start(std::slice::from_ref(&root)).unwrap();
        std::fs::write(root.join("a.txt"), b"a").unwrap();
        let d = eventually(&w, |d| d.paths.contains(&root.join("a.txt")));
        assert!(d.paths.contains(&root.join("a.txt")), "{d:?}");
        std::fs::create_dir(root.join("new")).unwrap();
        let d = eventually(&w, |d| d.paths.contains(&root.join("new")));
        assert!(d.paths.contains(&root.join("new")), "{d:?}");
        std::fs::write(root.join("new").join("b.txt"), b"b").unwrap();
        let d = eventually(&w, |d| d.paths.contains(&root.join("new").join("b.txt")));
        assert!(d.paths.contains(&root.join("new").join("b.txt")), "{d:?}");
        std::fs::rename(root.join("a.txt"), root.join("c.txt")).unwrap();
        let d = eventually(&w, |d| d.paths.contains(&root.join("c.txt")));
        assert!(d.paths.contains(&root.join("c.txt")), "{d:?}");
        std::fs::remove_file(root.join("c.txt")).unwrap();
        let d = eventually(&w, |d| d.paths.contains(&root.join("c.txt")));
        assert!(d.paths.contains(&root.join("c.txt")), "{d:?}");
    }

    #[test]
    fn changes_in_a_folder_that_was_there_before_the_watch_mark_their_paths_dirty() {
        let t = tempfile::tempdir().unwrap();
        let root = dunce::canonicalize(t.path()).unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        let w = RootWatcher::start(std::slice::from_ref(&root)).unwrap();
        std::fs::write(root.join("sub/a.txt"), b"a").unwrap();
        let d = eventually(&w, |d| d.paths.contains(&root.join("sub/a.txt")));
        assert!(d.paths.contains(&root.join("sub/a.txt")), "{d:?}");
        std::fs::rename(root.join("sub/a.txt"), root.join("b.txt")).unwrap();
        let d = eventually(&w, |d| d.paths.contains(&root.join("b.txt")));
        assert!(d.paths.contains(&root.join("b.txt")), "{d:?}");
        std::fs::remove_file(root.join("b.txt")).unwrap();
        let d = eventually(&w, |d| d.paths.contains(&root.join("b.txt")));
        assert!(d.paths.contains(&root.join("b.txt")), "{d:?}");
    }
}
