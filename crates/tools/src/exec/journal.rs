//! All or nothing for a batch of filesystem steps.
//!
//! A request like "move these 40 files" is one decision for the person, so it must succeed or
//! fail as one: if the 23rd move hits a full disk, the first 22 are put back, the folders made
//! for them removed, and the person is told what failed and that nothing changed. The journal
//! records every step as it is taken so it can be walked backwards, and only ever removes what it
//! created itself.

use crate::exec::transfer::{move_path, remove_any};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

#[derive(Debug, Default)]
pub(crate) struct Journal {
    /// Moves done, in order: (from, to).
    moved: Vec<(PathBuf, PathBuf)>,
    /// Folders this journal created, parents before children.
    created_dirs: Vec<PathBuf>,
    /// Files this journal wrote.
    created_files: Vec<PathBuf>,
}

impl Journal {
    pub(crate) fn new() -> Journal {
        Journal::default()
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
            match fs::symlink_metadata(here) {
                Ok(meta) if meta.file_type().is_dir() => break,
                Ok(meta) if meta.file_type().is_symlink() => {
                    return Err(format!("{} is a symlink now; refusing to go through it", here.display()));
                }
                Ok(_) => return Err(format!("{} is a file, not a folder", here.display())),
                Err(e) if matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory) => {
                    missing.push(here.to_path_buf());
                    current = here.parent();
                }
                Err(e) => return Err(format!("cannot inspect {}: {e}", here.display())),
            }
        }
        for d in missing.into_iter().rev() {
            fs::create_dir(&d).map_err(|e| format!("cannot create the folder {}: {e}", d.display()))?;
            self.created_dirs.push(d);
        }
        Ok(())
    }

    /// Moves `from` to `to` (renaming, or copying across disks).
    pub(crate) fn transfer(&mut self, from: &Path, to: &Path) -> Result<(), String> {
        move_path(from, to)?;
        self.moved.push((from.to_path_buf(), to.to_path_buf()));
        Ok(())
    }

    /// Writes a new file; fails if anything exists at `path`.
    pub(crate) fn write_new(&mut self, path: &Path, bytes: &[u8]) -> Result<(), String> {
        use std::io::Write;
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        self.created_files.push(path.to_path_buf());
        f.write_all(bytes).and_then(|()| f.sync_all()).map_err(|e| format!("cannot write {}: {e}", path.display()))
    }

    /// How many moves were done.
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
            if let Err(why) = move_path(to, from) {
                problems.push(why);
            }
        }
        for f in self.created_files.iter().rev() {
            if let Err(e) = remove_any(f) {
                problems.push(format!("cannot remove {}: {e}", f.display()));
            }
        }
        for d in self.created_dirs.iter().rev() {
            if let Err(e) = fs::remove_dir(d) {
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

    #[test]
    fn abort_puts_back_moves_files_and_folders() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        fs::write(r.join("a"), b"a").unwrap();
        let mut j = Journal::new();
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
        fs::write(t.path().join("f"), b"").unwrap();
        let err = Journal::new().create_parents(&t.path().join("f/g/h")).unwrap_err();
        assert!(err.contains("is a file"), "{err}");
    }
}
