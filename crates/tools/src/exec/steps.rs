//! The step log: what a running mutation is about to do, on disk before it does it.
//!
//! The journal makes a batch all or nothing *while the process lives*: a failure at the 23rd
//! move puts the first 22 back. A process killed at the 23rd move puts nothing back, and before
//! this log existed that left a quarantine of 1,050 of 2,500 files in a batch folder with no
//! manifest — `quarantine list` empty, `restore` with nothing to find — and a cross-disk move
//! with a truncated copy under the real name.
//!
//! So every step a journal takes (make a folder, move an entry, write a file) is first appended
//! to `in-flight/<call hash>.steps` in the data dir and synced. The runtime deletes the log once
//! the call's receipt is durable. A log that is still there when SMART opens belongs to a call
//! that was cut off; [`roll_back`] walks it backwards against the files as they are, puts back
//! what was moved, removes what was made, and says what it did — and the call is recorded as
//! interrupted and rolled back. A step logged but never begun, or half done (a cross-disk copy
//! that stopped, left under its temporary name), is recognised from what is on disk.

use crate::confine::{Confined, Kind, ReadFs, Writer, is_missing};
use crate::exec::transfer::{move_path, partial_name, restore_missing};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// One step a journal is about to take.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    Mkdir {
        path: PathBuf,
    },
    Move {
        from: PathBuf,
        to: PathBuf,
    },
    Write {
        path: PathBuf,
    },
    /// An empty folder removed (an undo removes the folders the call it reverses made); rolled
    /// back by making it again, so the moves logged before it have somewhere to go back to.
    Rmdir {
        path: PathBuf,
    },
}

/// An open step log, appended to and synced before each step.
#[derive(Debug)]
pub struct StepLog {
    file: std::fs::File,
}

impl StepLog {
    /// Creates (or continues) the log at `path`.
    pub fn create(path: &Path) -> Result<StepLog, String> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot make the folder for the step log {}: {e}", parent.display()))?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| format!("cannot open the step log {}: {e}", path.display()))?;
        Ok(StepLog { file })
    }

    /// Records `step` durably; the step may be taken once this returns.
    pub fn intend(&mut self, step: &Step) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(step).map_err(std::io::Error::other)?;
        line.push(b'\n');
        self.file.write_all(&line)?;
        self.file.sync_data()
    }
}

/// The steps in the log at `path`, oldest first. A last line cut off by the crash is a step that
/// was never begun (its intent was not durable), and is skipped.
pub fn read(path: &Path) -> Result<Vec<Step>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read the step log {}: {e}", path.display()))?;
    let ends_whole = bytes.ends_with(b"\n");
    let lines: Vec<&[u8]> = bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()).collect();
    let mut steps = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        match serde_json::from_slice::<Step>(line) {
            Ok(s) => steps.push(s),
            Err(_) if i + 1 == lines.len() && !ends_whole => {}
            // Only the last line can be torn; a bad line anywhere else is a log we did not write,
            // and guessing at it could move the person's files wrongly.
            Err(e) => return Err(format!("the step log {} has a line that is not a step ({e})", path.display())),
        }
    }
    Ok(steps)
}

/// What [`roll_back`] did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct RolledBack {
    /// Steps undone (an entry moved back, a folder or file removed).
    pub undone: usize,
    /// What could not be put back, in words; empty when everything was.
    pub problems: Vec<String>,
}

/// Walks the log at `path` backwards over the folders `areas` (the roots and the quarantine) and
/// undoes every step that was taken, judging each from what is on disk now.
pub fn roll_back(areas: &[PathBuf], path: &Path) -> Result<RolledBack, String> {
    let steps = read(path)?;
    let confined = Confined::open(areas)?;
    let w = confined.writer();
    let mut done = RolledBack::default();
    for step in steps.iter().rev() {
        match undo_step(w, step) {
            Ok(true) => done.undone += 1,
            Ok(false) => {}
            Err(why) => done.problems.push(why),
        }
    }
    Ok(done)
}

fn exists(w: Writer<'_>, p: &Path) -> Result<bool, String> {
    match w.meta(p) {
        Ok(_) => Ok(true),
        Err(e) if is_missing(&e) => Ok(false),
        Err(e) => Err(format!("cannot inspect {}: {e}", p.display())),
    }
}

/// Undoes one step if it was taken; `Ok(false)` when there was nothing to undo.
fn undo_step(w: Writer<'_>, step: &Step) -> Result<bool, String> {
    match step {
        Step::Move { from, to } => {
            let partial = partial_name(to);
            if exists(w, &partial)? {
                // A cross-disk copy that never finished: the original is untouched.
                w.remove_any(&partial)
                    .map_err(|e| format!("cannot remove the partial copy {}: {e}", partial.display()))?;
            }
            match (exists(w, from)?, exists(w, to)?) {
                (false, true) => move_path(w, to, from).map(|()| true),
                (true, false) | (false, false) => Ok(false),
                // Copied across disks, the original not (wholly) removed yet: complete the
                // original from the verified copy, then take the copy out.
                (true, true) => {
                    restore_missing(w, to, from)?;
                    w.remove_any(to).map_err(|e| format!("cannot remove the copy {}: {e}", to.display()))?;
                    Ok(true)
                }
            }
        }
        Step::Write { path } => {
            if !exists(w, path)? {
                return Ok(false);
            }
            w.remove_any(path).map_err(|e| format!("cannot remove {}: {e}", path.display()))?;
            Ok(true)
        }
        Step::Rmdir { path } => {
            if exists(w, path)? {
                return Ok(false);
            }
            w.create_dir(path).map_err(|e| format!("cannot make the folder {} again: {e}", path.display()))?;
            Ok(true)
        }
        Step::Mkdir { path } => match w.meta(path) {
            Ok(m) if m.kind == Kind::Dir => {
                w.remove_dir(path).map_err(|e| format!("cannot remove the folder {}: {e}", path.display()))?;
                Ok(true)
            }
            Ok(_) => Ok(false),
            Err(e) if is_missing(&e) => Ok(false),
            Err(e) => Err(format!("cannot inspect {}: {e}", path.display())),
        },
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use std::fs;

    fn log(path: &Path, steps: &[Step]) {
        let mut l = StepLog::create(path).unwrap();
        for s in steps {
            l.intend(s).unwrap();
        }
    }

    #[test]
    fn a_cut_off_batch_is_rolled_back_from_what_is_on_disk() {
        let t = tempfile::tempdir().unwrap();
        let r = dunce::canonicalize(t.path()).unwrap();
        let root = r.join("root");
        fs::create_dir_all(root.join("docs")).unwrap();
        for name in ["a", "b", "c"] {
            fs::write(root.join("docs").join(name), name).unwrap();
        }
        // The batch: a folder made, a and b moved into it, c logged but never begun, and a
        // cross-disk copy of c that stopped under its partial name.
        let q = root.join("q");
        let steps = vec![
            Step::Mkdir { path: q.clone() },
            Step::Move { from: root.join("docs/a"), to: q.join("0-a") },
            Step::Move { from: root.join("docs/b"), to: q.join("1-b") },
            Step::Move { from: root.join("docs/c"), to: q.join("2-c") },
        ];
        fs::create_dir(&q).unwrap();
        fs::rename(root.join("docs/a"), q.join("0-a")).unwrap();
        fs::rename(root.join("docs/b"), q.join("1-b")).unwrap();
        fs::write(partial_name(&q.join("2-c")), "c half").unwrap();
        let path = r.join("x.steps");
        log(&path, &steps);
        // A torn last line (the crash came while logging a fifth step) is a step never taken.
        fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(b"{\"move\":{\"from\":").unwrap();

        let done = roll_back(std::slice::from_ref(&root), &path).unwrap();
        assert_eq!(done, RolledBack { undone: 3, problems: vec![] });
        for name in ["a", "b", "c"] {
            assert_eq!(fs::read(root.join("docs").join(name)).unwrap(), name.as_bytes());
        }
        assert!(!q.exists(), "the batch folder it made is gone");
        // Rolling back again finds nothing left to do.
        assert_eq!(roll_back(std::slice::from_ref(&root), &path).unwrap(), RolledBack::default());
    }

    /// Regression (found by the SIGKILL trials of `smart-cli`'s crash_batches): the undo of a
    /// move put every file back and removed the folder the move had made, and was killed before
    /// its receipt; rolling the undo back could put no file back, for the folder was gone and
    /// its removal not logged.
    #[test]
    fn an_undo_cut_off_after_removing_the_folder_it_emptied_is_rolled_back_into_it() {
        let t = tempfile::tempdir().unwrap();
        let root = dunce::canonicalize(t.path()).unwrap();
        fs::create_dir_all(root.join("in")).unwrap();
        fs::create_dir_all(root.join("out")).unwrap();
        for name in ["f0", "f1"] {
            fs::write(root.join("out").join(name), name).unwrap();
        }
        let steps = vec![
            Step::Move { from: root.join("out/f1"), to: root.join("in/f1") },
            Step::Move { from: root.join("out/f0"), to: root.join("in/f0") },
            Step::Rmdir { path: root.join("out") },
        ];
        for name in ["f1", "f0"] {
            fs::rename(root.join("out").join(name), root.join("in").join(name)).unwrap();
        }
        fs::remove_dir(root.join("out")).unwrap();
        let path = root.join("u.steps");
        log(&path, &steps);
        let done = roll_back(std::slice::from_ref(&root), &path).unwrap();
        assert_eq!(done, RolledBack { undone: 3, problems: vec![] });
        for name in ["f0", "f1"] {
            assert_eq!(fs::read(root.join("out").join(name)).unwrap(), name.as_bytes());
        }
        // An Rmdir logged but never taken leaves the folder as it is.
        assert_eq!(roll_back(std::slice::from_ref(&root), &path).unwrap(), RolledBack::default());
    }

    #[test]
    fn a_copy_whose_original_was_half_removed_is_completed_back_then_removed() {
        let t = tempfile::tempdir().unwrap();
        let root = dunce::canonicalize(t.path()).unwrap();
        fs::create_dir_all(root.join("from/sub")).unwrap();
        fs::write(root.join("from/sub/one"), "1").unwrap();
        fs::write(root.join("from/two"), "2").unwrap();
        // The verified copy is complete; removing the original stopped after "two".
        fs::create_dir_all(root.join("to/sub")).unwrap();
        fs::write(root.join("to/sub/one"), "1").unwrap();
        fs::write(root.join("to/two"), "2").unwrap();
        fs::remove_file(root.join("from/two")).unwrap();
        let path = root.join("y.steps");
        log(&path, &[Step::Move { from: root.join("from"), to: root.join("to") }]);
        let done = roll_back(std::slice::from_ref(&root), &path).unwrap();
        assert_eq!(done.undone, 1, "{done:?}");
        assert_eq!(fs::read(root.join("from/two")).unwrap(), b"2");
        assert_eq!(fs::read(root.join("from/sub/one")).unwrap(), b"1");
        assert!(!root.join("to").exists());
    }

    #[test]
    fn a_log_with_a_foreign_line_in_the_middle_is_not_guessed_at() {
        let t = tempfile::tempdir().unwrap();
        let path = t.path().join("z.steps");
        fs::write(&path, "{\"write\":{\"path\":\"/a\"}}\nnot a step\n{\"write\":{\"path\":\"/b\"}}\n").unwrap();
        assert!(read(&path).unwrap_err().contains("not a step"));
    }
}
