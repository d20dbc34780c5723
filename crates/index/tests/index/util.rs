//! A temporary world: a root folder, a data folder beside it (never inside it) for the index
//! file, and helpers to shape the tree and look at the index.

use smart_index::{Hit, Index, Limits, Query, UpdateReport};
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

/// The fixed "now" every test runs at (2025-06-15).
pub const NOW: u64 = 1_750_000_000_000;
pub const DAY: u64 = 24 * 60 * 60 * 1000;

pub struct World {
    _tmp: tempfile::TempDir,
    /// The allowed root (canonical).
    pub root: PathBuf,
    /// A folder outside the root.
    pub outside: PathBuf,
    /// The index file (in a data folder outside the root).
    pub index: PathBuf,
}

impl World {
    pub fn new() -> World {
        let tmp = tempfile::tempdir().unwrap();
        let base = dunce::canonicalize(tmp.path()).unwrap();
        let root = base.join("root");
        let outside = base.join("outside");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::create_dir_all(base.join("data")).unwrap();
        World { index: base.join("data/index.sqlite"), _tmp: tmp, root, outside }
    }

    pub fn roots(&self) -> Vec<PathBuf> {
        vec![self.root.clone()]
    }

    /// The absolute path of `rel` in the root.
    /// `rel` is `/`-separated; the path has the system's separators.
    pub fn at(&self, rel: &str) -> PathBuf {
        rel.split('/').filter(|c| !c.is_empty()).fold(self.root.clone(), |p, c| p.join(c))
    }

    /// The stored path of `rel` in the root.
    pub fn p(&self, rel: &str) -> String {
        self.at(rel).to_str().unwrap().to_string()
    }

    /// Writes `rel` (creating folders), modified `age_days` before `NOW`.
    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>, age_days: u64) -> PathBuf {
        let path = self.at(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        set_mtime(&path, NOW - age_days * DAY);
        path
    }

    pub fn open(&self) -> Index {
        Index::open(&self.index).unwrap()
    }

    /// A full sync with default limits.
    pub fn sync(&self, index: &mut Index) -> UpdateReport {
        index.sync_roots(&self.roots(), &Limits::default(), NOW, &mut |_| {}).unwrap()
    }

    /// The hit paths, relative to the root and `/`-separated on every system.
    pub fn rel(&self, hits: &[Hit]) -> Vec<String> {
        hits.iter()
            .map(|h| match Path::new(&h.path).strip_prefix(&self.root) {
                Ok(rel) => rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"),
                Err(_) => h.path.clone(),
            })
            .collect()
    }

    /// Searches `text` with no filters and returns the relative hit paths.
    pub fn find(&self, index: &Index, text: &str) -> Vec<String> {
        self.rel(&index.search(&Query::new(text), NOW).unwrap())
    }
}

pub fn set_mtime(path: &Path, ms: u64) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(UNIX_EPOCH + Duration::from_millis(ms)).unwrap();
}

/// Every row of an index file, FTS columns included, in path order: what "the same index"
/// means when comparing two of them.
pub type Row = (String, String, i64, i64, Option<String>, bool, String, String, String);

pub fn dump(index_file: &Path) -> Vec<Row> {
    let conn = rusqlite::Connection::open(index_file).unwrap();
    let mut st = conn
        .prepare(
            "SELECT d.path, d.kind, d.size, d.mtime_ns, d.blake3, d.text_indexed, f.name, f.folders, f.body
             FROM docs d JOIN docs_fts f ON f.rowid = d.id ORDER BY d.path",
        )
        .unwrap();
    st.query_map([], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?))
    })
    .unwrap()
    .collect::<Result<Vec<_>, _>>()
    .unwrap()
}

/// FTS5's own consistency check of the index against its stored text.
pub fn fts_is_consistent(index_file: &Path) {
    let conn = rusqlite::Connection::open(index_file).unwrap();
    conn.execute_batch("INSERT INTO docs_fts(docs_fts) VALUES('integrity-check')").unwrap();
    let docs: i64 = conn.query_row("SELECT count(*) FROM docs", [], |r| r.get(0)).unwrap();
    let fts: i64 = conn.query_row("SELECT count(*) FROM docs_fts", [], |r| r.get(0)).unwrap();
    assert_eq!(docs, fts, "every doc has exactly one FTS row");
}

/// Every file under `dir` with its bytes and modification time: to show a tree was not touched.
pub fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>, std::time::SystemTime)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let meta = std::fs::symlink_metadata(e.path()).unwrap();
            if meta.is_dir() {
                stack.push(e.path());
            } else if meta.is_file() {
                out.push((e.path(), std::fs::read(e.path()).unwrap(), meta.modified().unwrap()));
            }
        }
    }
    out.sort();
    out
}
