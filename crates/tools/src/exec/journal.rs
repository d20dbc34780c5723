//! All or nothing for a batch of filesystem steps.
//!
//! A request like "move these 40 files" is one decision for the person, so it must succeed or
//! fail as one: if the 23rd move hits a full disk, the first 22 are put back, the folders made
//! for them removed, and the person is told what failed and that nothing changed. The journal
//! records every step as it is taken so it can be walked backwards, and only ever removes what it
//! created itself. Each step is also written to the call's step log *before* it is taken
//! (`steps.rs`), so that a process killed mid-batch can be rolled back by the next one.

use crate::confine::{Kind, ReadFs, Writer, is_missing};
use crate::exec::steps::Step;
use crate::exec::transfer::move_path;
use std::path::{Path, PathBuf};

#[derive(Debug)]
pub(crate) struct Journal<'a> {
    w: Writer<'a>,
    /// Moves done, in order: (from, to).
    moved: Vec<(PathBuf, PathBuf)>,
    /// Folders this journal created, parents before children.
    created_dirs: Vec<PathBuf>,
    /// Files this journal wrote.
    created_files: Vec<PathBuf>,
}

impl<'a> Journal<'a> {
    pub(crate) fn new(w: Writer<'a>) -> Journal<'a> {
        Journal { w, moved: Vec::new(), created_dirs: Vec::new(), created_files: Vec::new() }
    }

    /// Creates the missing folders above `path`. An existing ancestor must be a real folder: a
    /// symlink that appeared since the kernel resolved the path is refused, not followed.
    pub(crate) fn create_parents(&mut self, path: &Path) -> Result<(), String> {
        match path.parent() {
            Some(parent) => self.create_dir_all(parent),
            None => Ok(()),
        }
    }

    /// Creates `dir` and any missing folders above it.
    pub(crate) fn create_dir_all(&mut self, dir: &Path) -> Result<(), String> {
        let mut missing = Vec::new();
        let mut current = Some(dir);
        while let Some(here) = current {
            match self.w.meta(here) {
                Ok(meta) if meta.kind == Kind::Dir => break,
                Ok(meta) if meta.kind == Kind::Symlink => {
                    return Err(format!("{} is a symlink now; refusing to go through it", here.display()));
                }
                Ok(_) => return Err(format!("{} is a file, not a folder", here.display())),
                Err(e) if is_missing(&e) => {
                    missing.push(here.to_path_buf());
                    current = here.parent();
                }
                Err(e) => return Err(format!("cannot inspect {}: {e}", here.display())),
            }
        }
        for d in missing.into_iter().rev() {
            self.intend(Step::Mkdir { path: d.clone() })?;
            self.w.create_dir(&d).map_err(|e| format!("cannot create the folder {}: {e}", d.display()))?;
            self.created_dirs.push(d);
        }
        Ok(())
    }

    /// Moves `from` to `to` (renaming, or copying across disks).
    pub(crate) fn transfer(&mut self, from: &Path, to: &Path) -> Result<(), String> {
        self.intend(Step::Move { from: from.to_path_buf(), to: to.to_path_buf() })?;
        move_path(self.w, from, to)?;
        self.moved.push((from.to_path_buf(), to.to_path_buf()));
        Ok(())
    }

    /// Writes a new file; fails if anything exists at `path`.
    pub(crate) fn write_new(&mut self, path: &Path, bytes: &[u8]) -> Result<(), String> {
        self.intend(Step::Write { path: path.to_path_buf() })?;
        self.w.write_new(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        self.created_files.push(path.to_path_buf());
        Ok(())
    }

    fn intend(&self, step: Step) -> Result<(), String> {
        self.w.intend(&step).map_err(|e| format!("cannot record the next step before taking it: {e}"))
    }

    pub(crate) fn moves(&self) -> usize {
        self.moved.len()
    }

    /// The folders created, parents first.
    pub(crate) fn created_dirs(&self) -> &[PathBuf] {
        &self.created_dirs
    }

    /// Walks everything back and returns the message for the person: what failed, and either
    /// that nothing was changed or exactly what could not be put back.
    pub(crate) fn abort(self, what: String) -> String {
        let done = self.moved.len();
        let problems = self.roll_back();
        if problems.is_empty() {
            let put_back = match done {
                0 => String::new(),
                1 => " (the 1 move already done was put back)".to_string(),
                n => format!(" (the {n} moves already done were put back)"),
            };
            format!("{what}; nothing was changed{put_back}")
        } else {
            format!("{what}; putting back what was already done also failed: {}", problems.join("; "))
        }
    }

    /// Undoes every step, newest first; returns what could not be undone.
    fn roll_back(self) -> Vec<String> {
        let mut problems = Vec::new();
        for (from, to) in self.moved.iter().rev() {
            if let Err(why) = move_path(self.w, to, from) {
                problems.push(why);
            }
        }
        for f in self.created_files.iter().rev() {
            if let Err(e) = self.w.remove_any(f) {
                problems.push(format!("cannot remove {}: {e}", f.display()));
            }
        }
        for d in self.created_dirs.iter().rev() {
            if let Err(e) = self.w.remove_dir(d) {
                problems.push(format!("cannot remove the folder {}: {e}", d.display()));
            }
        }
        problems
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use crate::confine::Confined;
    use std::fs;

    #[test]
    fn abort_puts_back_moves_files_and_folders() {
        let t = tempfile::tempdir().unwrap();
        let r = &dunce::canonicalize(t.path()).unwrap();
        let c = Confined::open(std::slice::from_ref(r)).unwrap();
        fs::write(r.join("a"), b"a").unwrap();
        let mut j = Journal::new(c.writer());
        j.create_parents(&r.join("x/y/a")).unwrap();
        j.transfer(&r.join("a"), &r.join("x/y/a")).unwrap();
        j.write_new(&r.join("x/note"), b"n").unwrap();
        assert_eq!(j.created_dirs(), [r.join("x"), r.join("x/y")]);
        let msg = j.abort("the second step failed".into());
        assert!(msg.contains("nothing was changed") && msg.contains("1 move"), "{msg}");
        assert_eq!(fs::read(r.join("a")).unwrap(), b"a");
        assert!(!r.join("x").exists());
    }

    #[test]
    fn parents_through_a_file_are_refused() {
        let t = tempfile::tempdir().unwrap();
        let r = dunce::canonicalize(t.path()).unwrap();
        let c = Confined::open(std::slice::from_ref(&r)).unwrap();
        fs::write(r.join("f"), b"").unwrap();
        let err = Journal::new(c.writer()).create_parents(&r.join("f/g/h")).unwrap_err();
        assert!(err.contains("is a file"), "{err}");
    }
}
