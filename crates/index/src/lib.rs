//! RAG++: SMART's read-only memory of the person's allowed folders.
//!
//! The assistant answers questions about a person's files ("what did I write about the Q3
//! budget?", "find the lease PDF") and assembles context for a model from them. Walking the disk
//! on every question is too slow and asking the model to guess paths is worse, so this crate
//! keeps a full-text index of the allowed roots in one SQLite file (FTS5) and answers ranked,
//! filtered queries from it in milliseconds.
//!
//! **It never changes what it indexes.** Files are opened read-only, by name, through
//! capability handles on each root (`cap_std::fs::Dir`), and symlinks are never followed: a link
//! is indexed as a link (name and metadata), and a folder swapped for a link mid-walk is not
//! entered (`walk`). The index file itself may not live inside a root, so nothing is ever
//! written there. What a file says is data: it is stored and returned as text and never
//! interpreted — a note saying "ignore previous instructions" is found by those words like any
//! other note, and it is for whoever reads the text to treat it as quoted material.
//!
//! **What is indexed** (`kind`, `extract`): text, markdown and code have their words indexed up
//! to `Limits::max_text_bytes` (1 MiB); larger text files, binaries (by content: a NUL in the
//! first 8 KiB or invalid UTF-8; or by a binary extension), symlinks and special files are
//! findable by name and metadata. Names and folders are searchable too: `budget_2024-final.md`
//! in `Documents/finance` is found by "budget", "final" or "finance".
//!
//! **Keeping up** (`sync`): [`Index::sync_roots`] walks everything and re-reads only what
//! changed (size or modification time); [`Index::update_paths`] re-checks just the paths a
//! watcher reported. [`rebuild`] builds a whole new file beside the old one, which keeps
//! answering, and renames it into place atomically, keeping the old one as `<name>.prev`
//! (`rebuild`).
//!
//! **Asking** (`query`, `search`, `rank`): a [`Query`]'s text is cut into plain words that
//! can never be FTS5 syntax; filters narrow by path prefix, [`Kind`] and modification time.
//! Hits are ranked by bm25 (name > folders > text) times a recency factor with a 30-day
//! half-life, and each [`Hit`] carries both parts so a rank can be explained. Embeddings are not
//! implemented; `rank` documents where they would enter.
//!
//! **The file** (`schema`): one SQLite file outside every root, in rollback-journal mode rather
//! than WAL — WAL's side files are found by name and would be shared between the old and the new
//! file when `rebuild` renames one over the other; `schema` explains. Readers read during a sync
//! and wait only for each batch's commit.
//!
//! Time is always an argument (`now_ms`): the crate never reads the clock, so every result is a
//! function of the files and the time given. File modification times are, of course, read.
//!
//! # API
//!
//! ```text
//! Index::open(path: &Path) -> Result<Index, IndexError>
//! Index::sync_roots(&mut self, roots: &[PathBuf], limits: &Limits, now_ms: u64,
//!                   progress: &mut dyn FnMut(&Progress)) -> Result<UpdateReport, IndexError>
//! Index::update_paths(&mut self, roots: &[PathBuf], paths: &[PathBuf], limits: &Limits,
//!                     now_ms: u64) -> Result<UpdateReport, IndexError>
//! Index::search(&self, q: &Query, now_ms: u64) -> Result<Vec<Hit>, IndexError>
//! Index::doc(&self, path: &str) -> Result<Option<Doc>, IndexError>
//! Index::text_of(&self, path: &str) -> Result<Option<String>, IndexError>
//! Index::stats(&self) -> Result<Stats, IndexError>
//! rebuild(index_path: &Path, roots: &[PathBuf], limits: &Limits, now_ms: u64,
//!         progress: &mut dyn FnMut(&Progress)) -> Result<UpdateReport, IndexError>
//! ```
//!
//! Paths in and out are absolute and spelled under each root's canonical path (as the kernel's
//! policy spells roots). An `Index` is one connection: `Send`, not `Sync`; open one per thread.

mod canonical_dir;
mod error;
mod extract;
mod index;
mod kind;
mod limits;
mod query;
pub mod rank;
mod rebuild;
mod report;
mod roots;
mod schema;
mod search;
mod snippet;
mod store;
mod sync;
mod vocabulary;
mod walk;

pub use canonical_dir::open_canonical_dir;
pub use error::IndexError;
pub use index::Index;
pub use kind::Kind;
pub use limits::Limits;
pub use query::{MAX_LIMIT, MAX_WORDS, Query};
pub use rebuild::{rebuild, sibling};
pub use report::{MAX_SKIPPED, Progress, UpdateReport};
pub use search::Hit;
pub use store::{Doc, Stats};
pub use vocabulary::Vocabulary;
