//! Integration tests of the index on real temporary trees and real SQLite files.
//!
//! One test binary with a module per concern, so the crate links once. Each module is named
//! after what it protects; each test after the promise it holds the crate to.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod kinds;
mod rebuild;
mod safety;
mod search;
mod sync;
mod util;
