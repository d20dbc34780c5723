//! The path-escape suite: every way we know to name something outside the allowed root, tried
//! against every tool that takes a path, through the real kernel and the real executors.
//!
//! Root confinement is SMART's first promise — a voice command about `~/Downloads` can never
//! read, list, move or overwrite anything else — and it is kept by two independent walls. The
//! kernel resolves every path argument (following `..` and every symlink that exists) and
//! refuses what lands outside the roots (`path_outside_roots`) or cannot be resolved honestly
//! (`path_invalid`); the executors then reach files only through `cap-std` handles opened on the
//! roots, so a folder swapped for a symlink *after* the kernel said yes still cannot be walked
//! through. Either wall alone has holes that the other closes: a string check cannot see a swap
//! that happens later, and a handle cannot tell a person's path from a hostile one. This file
//! attacks both, separately and together, so a regression in either shows up as a failing row
//! naming the tool and the pattern.
//!
//! Every fixture keeps a sentinel tree *outside* the root (a secret file, a folder with a
//! private note, symlinks pointing back in, a sibling folder whose name extends the root's) and
//! after every single attempt checks that the tree is byte-for-byte unchanged, that nothing new
//! appeared next to the root, that no file under the root, the quarantine folder or the data
//! folder (the index included, archives decompressed) holds the secret's bytes, and that no tool
//! output, failure message or ledger event carries them. Where a look-alike path legitimately
//! resolves *inside* the root (a fullwidth solidus is just a character in a name), the call may
//! succeed — and then the follow-up apply and undo run too — but the same checks hold.
//!
//! The tables are the suite: `patterns` (what is tried), `slots` (where: every path argument of
//! every tool), `RACES` (a symlink swapped in after admission, before the executor runs), and
//! `STALE` (a swap before admission, which the kernel must notice). `escape_attempt_summary`
//! counts them for the figure "N escape attempts, 0 escapes".
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;
use serde_json::{Value, json};
use smart_kernel::kernel::Decision as KernelDecision;
use smart_kernel::{AdmittedCall, Hash, KernelEvent, Outcome, RefusalCode as C};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Read;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

/// The secret file's bytes: a unique word to search for, and a mark no call ever carries, so
/// finding the mark anywhere means the content itself leaked (a search for the word echoes it).
const SECRET: &str = "xqzsentinel the outside secret 5f1c\n";
const SECRET_MARK: &str = "the outside secret 5f1c";
const SECRET_NAME: &str = "secret-5f1c.txt";
/// A private note in a folder outside the root.
const VAULT_TEXT: &str = "xqzvault private notes 5f1c\n";
const VAULT_MARK: &str = "private notes 5f1c";
const VAULT_NAME: &str = "vault-entry-5f1c.md";
/// Names inside the root that look like escapes; the fixture creates them as real files.
const LOOK_ALIKES: &[&str] = &[
    "..／outside／secret-5f1c.txt",
    "..∕..∕outside∕secret-5f1c.txt",
    "\u{2024}\u{2024}/outside/secret-5f1c.txt",
    "\u{ff0e}\u{ff0e}/outside/secret-5f1c.txt",
    "..\\outside\\secret-5f1c.txt",
    "docs/\u{202e}txt.exe",
    "docs/a.txt\n/etc/passwd",
];
const LOOK_ALIKE_TEXT: &str = "alpha, a look-alike inside the root\n";
/// What dangling links outside point at: must never come into existence.
const NOT_YET: &str = "not-yet-5f1c.txt";

/// A harness with the sentinel tree around it and the baseline to compare against.
struct Fx {
    h: Harness,
    /// The temporary folder holding root, quarantine, data and the sentinels.
    base: PathBuf,
    /// The sentinel folder outside the root.
    out: PathBuf,
    baseline: Vec<(PathBuf, Option<Hash>)>,
    tops: BTreeSet<String>,
    passwd: Option<Hash>,
}

impl Fx {
    fn new() -> Fx {
        let h = Harness::new();
        let base = h.root.parent().unwrap().to_path_buf();
        let out = base.join("outside");
        let r = h.root.clone();
        fs::create_dir_all(out.join("vault")).unwrap();
        fs::write(out.join(SECRET_NAME), SECRET).unwrap();
        fs::write(out.join("vault").join(VAULT_NAME), VAULT_TEXT).unwrap();
        symlink(r.join("docs/a.txt"), out.join("back-in")).unwrap();
        // A sibling whose name extends the root's: a string prefix check would let it in.
        fs::create_dir(base.join("root2")).unwrap();
        fs::write(base.join("root2/secret2.txt"), SECRET).unwrap();
        // A link outside that points in: following it lands inside, which is fine.
        symlink(&r, base.join("alias")).unwrap();

        h.write("docs/a.txt", b"alpha\n");
        h.write("docs/b.txt", b"beta\n");
        h.write("docs/caf\u{e9}.txt", b"nfc\n");
        h.write("sub/keep.txt", b"keep\n");
        h.write("proj/main.rs", b"fn main() {}\n");
        h.write("proj/src/lib.rs", b"pub fn f() {}\n");
        h.write("work/proj/notes.md", b"# notes\n");
        fs::create_dir(r.join("dest")).unwrap();
        // Look-alikes of the escape patterns that are real names inside the root.
        for rel in LOOK_ALIKES {
            h.write(rel, LOOK_ALIKE_TEXT.as_bytes());
        }
        symlink(out.join(SECRET_NAME), r.join("link-file-abs")).unwrap();
        symlink(format!("../outside/{SECRET_NAME}"), r.join("link-file-rel")).unwrap();
        symlink(out.join("vault"), r.join("link-dir-abs")).unwrap();
        symlink("../outside/vault", r.join("link-dir-rel")).unwrap();
        symlink("chain-b", r.join("chain-a")).unwrap();
        symlink(format!("../outside/{SECRET_NAME}"), r.join("chain-b")).unwrap();
        symlink("loop-b", r.join("loop-a")).unwrap();
        symlink("loop-a", r.join("loop-b")).unwrap();
        symlink("self-loop", r.join("self-loop")).unwrap();
        symlink(out.join(NOT_YET), r.join("dangling-abs")).unwrap();
        symlink(format!("../outside/{NOT_YET}"), r.join("dangling-rel")).unwrap();
        symlink(out.join("back-in"), r.join("bounce")).unwrap();

        let mut fx = Fx { h, base, out, baseline: Vec::new(), tops: BTreeSet::new(), passwd: None };
        fx.rebaseline();
        fx
    }

    /// Records what the outside looks like now (after a test added twins to it).
    fn rebaseline(&mut self) {
        self.baseline = self.outside_paths().into_iter().map(|p| (p.clone(), content_hash(&p))).collect();
        self.tops = names_in(&self.base);
        self.passwd = content_hash(Path::new("/etc/passwd"));
    }

    fn outside_paths(&self) -> Vec<PathBuf> {
        vec![self.out.clone(), self.base.join("root2"), self.base.join("alias")]
    }

    fn climb(mut self) -> Fx {
        self.h.climb_to_l3();
        self
    }

    /// Builds the library index over the root (the `rag.*` tools need one).
    fn index(mut self) -> Fx {
        let mut idx = smart_index::Index::open(&self.h.data.join("index.db")).unwrap();
        idx.sync_roots(
            std::slice::from_ref(&self.h.root),
            &smart_index::Limits::default(),
            1_700_000_000_000,
            &mut |_| {},
        )
        .unwrap();
        self.rebaseline();
        self
    }

    fn r(&self) -> String {
        self.h.root.to_str().unwrap().to_string()
    }

    /// Copies a folder or file under the root to `outside/<name>`: a twin with identical content,
    /// so an executor that followed a swapped-in link would find exactly the hashes it expects.
    fn twin(&mut self, name: &str, rel: &str) -> PathBuf {
        let to = self.out.join(name);
        copy_tree(&self.h.root.join(rel), &to);
        self.rebaseline();
        to
    }

    /// Replaces `rel` under the root by a symlink to `target`; the original is kept beside it.
    fn swap(&self, rel: &str, target: &Path) {
        let at = self.h.root.join(rel);
        let mut kept = at.clone().into_os_string();
        kept.push(".orig");
        fs::rename(&at, &kept).unwrap();
        symlink(target, &at).unwrap();
    }

    /// Replaces the root itself by a symlink to `target` (the attack run exchanged them in a
    /// loop); the original is kept beside it, and that is the new normal for the checks.
    fn swap_root(&mut self, target: &Path) {
        let mut kept = self.h.root.clone().into_os_string();
        kept.push(".orig");
        fs::rename(&self.h.root, &kept).unwrap();
        symlink(target, &self.h.root).unwrap();
        self.rebaseline();
    }

    /// Puts the real root back (after the executor ran), so the checks walk it and not the link.
    fn unswap_root(&self) {
        let mut kept = self.h.root.clone().into_os_string();
        kept.push(".orig");
        fs::remove_file(&self.h.root).unwrap();
        fs::rename(&kept, &self.h.root).unwrap();
    }

    /// A twin of the root's `docs` folder outside, as `outside/twin-root/docs`.
    fn twin_root(&mut self) -> PathBuf {
        let to = self.out.join("twin-root");
        copy_tree(&self.h.root.join("docs"), &to.join("docs"));
        self.rebaseline();
        to
    }

    /// Every way something could have escaped, checked now. Returns what is wrong.
    fn escapes(&self) -> Vec<String> {
        let mut wrong = Vec::new();
        for (p, before) in &self.baseline {
            if content_hash(p) != *before {
                wrong.push(format!("{} changed", p.display()));
            }
        }
        let mut allowed = self.tops.clone();
        allowed.insert("quarantine".into());
        for name in names_in(&self.base) {
            if !allowed.contains(&name) {
                wrong.push(format!("{name:?} appeared next to the root"));
            }
        }
        if content_hash(Path::new("/etc/passwd")) != self.passwd {
            wrong.push("/etc/passwd changed".into());
        }
        if fs::symlink_metadata(self.out.join(NOT_YET)).is_ok() {
            wrong.push(format!("{NOT_YET} was created through a dangling link"));
        }
        for dir in [&self.h.root, &self.h.qdir, &self.h.data] {
            for f in files_holding(dir, &[SECRET_MARK.as_bytes(), VAULT_MARK.as_bytes()]) {
                wrong.push(format!("{} holds the outside secret's bytes", f.display()));
            }
        }
        let log = serde_json::to_string(&self.h.log).unwrap();
        if log.contains(SECRET_MARK) || log.contains(VAULT_MARK) {
            wrong.push("the ledger holds the outside secret's bytes".into());
        }
        for ev in &self.h.log {
            let (paths, what) = match ev {
                KernelEvent::Admitted { call, .. } => (&call.paths, "admitted"),
                KernelEvent::Pending { pending } => (&pending.call.paths, "pending"),
                _ => continue,
            };
            for p in paths {
                if !Path::new(p).starts_with(&self.h.root) {
                    wrong.push(format!("the kernel {what} {} with the path {p}", ev_tool(ev)));
                }
            }
        }
        wrong
    }

    /// What a tool said must carry nothing from outside: not the secret's bytes, not its hash,
    /// not the outside paths, not the outside folder's listing.
    fn leaks_in(&self, text: &str) -> Vec<String> {
        let secret_hash = Hash::of_bytes(SECRET.as_bytes()).to_hex();
        let vault_hash = Hash::of_bytes(VAULT_TEXT.as_bytes()).to_hex();
        let out_str = self.out.to_str().unwrap().to_string();
        let needles = [
            ("the secret's text", SECRET_MARK.to_string()),
            ("the vault note's text", VAULT_MARK.to_string()),
            ("the secret's hash", secret_hash),
            ("the vault note's hash", vault_hash),
            ("the vault note's name", VAULT_NAME.to_string()),
            ("the outside folder's path", format!("{out_str}/")),
        ];
        needles
            .iter()
            .filter(|(_, n)| text.contains(n.as_str()))
            .map(|(what, _)| format!("output holds {what}"))
            .collect()
    }
}

fn ev_tool(ev: &KernelEvent) -> String {
    match ev {
        KernelEvent::Admitted { call, .. } => call.tool.clone(),
        KernelEvent::Pending { pending } => pending.call.tool.clone(),
        _ => String::new(),
    }
}

fn content_hash(p: &Path) -> Option<Hash> {
    smart_tools::content_hash(p).unwrap()
}

fn names_in(dir: &Path) -> BTreeSet<String> {
    fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
}

fn copy_tree(from: &Path, to: &Path) {
    let meta = fs::symlink_metadata(from).unwrap();
    if meta.is_dir() {
        fs::create_dir_all(to).unwrap();
        for e in fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            copy_tree(&e.path(), &to.join(e.file_name()));
        }
    } else if meta.file_type().is_symlink() {
        symlink(fs::read_link(from).unwrap(), to).unwrap();
    } else {
        fs::copy(from, to).unwrap();
    }
}

/// Regular files below `dir` (not following links) whose bytes — decompressed, for archives —
/// contain any of `needles`.
fn files_holding(dir: &Path, needles: &[&[u8]]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(listing) = fs::read_dir(&d) else { continue };
        for e in listing {
            let p = e.unwrap().path();
            let Ok(m) = fs::symlink_metadata(&p) else { continue };
            if m.is_dir() {
                stack.push(p);
            } else if m.is_file() {
                let mut bytes = fs::read(&p).unwrap_or_default();
                if p.to_string_lossy().ends_with(".gz") {
                    let mut plain = Vec::new();
                    if flate2::read::GzDecoder::new(&bytes[..]).read_to_end(&mut plain).is_ok() {
                        bytes.extend(plain);
                    }
                }
                if needles.iter().any(|n| bytes.windows(n.len()).any(|w| w == *n)) {
                    found.push(p);
                }
            }
        }
    }
    found
}

// ---------------------------------------------------------------------------------------------
// The patterns.

#[derive(Copy, Clone, Debug, PartialEq)]
enum Expect {
    /// The kernel refuses the call with this code, whatever the tool.
    Refused(C),
    /// The path resolves inside the root (a different name that only looks like an escape):
    /// the call may run, and nothing outside may be touched.
    Inside,
}

struct Pattern {
    name: &'static str,
    value: Value,
    expect: Expect,
}

fn pat(name: &'static str, value: impl Into<Value>, expect: Expect) -> Pattern {
    Pattern { name, value: value.into(), expect }
}

/// Every escape we try, as the path argument's value.
fn patterns(fx: &Fx) -> Vec<Pattern> {
    use Expect::{Inside, Refused};
    let r = fx.r();
    let o = fx.out.to_str().unwrap().to_string();
    let base = fx.base.to_str().unwrap().to_string();
    let outside = Refused(C::PathOutsideRoots);
    let invalid = Refused(C::PathInvalid);
    let schema = Refused(C::SchemaInvalid);
    let long_name = "x".repeat(255);
    let too_long_name = "x".repeat(256);
    let too_long_path = format!("{r}/{}", "a/".repeat(2100));
    let mut v = vec![
        // `..` and absolute paths elsewhere.
        pat("`..` to a file outside", format!("{r}/../outside/{SECRET_NAME}"), outside),
        pat("`..` through a real sub-folder", format!("{r}/sub/../../outside"), outside),
        pat("`..` to a new name outside", format!("{r}/../outside/new-5f1c.txt"), outside),
        pat("`..` far past the filesystem root", format!("{r}{}/etc/passwd", "/..".repeat(40)), outside),
        pat("absolute /etc/passwd", "/etc/passwd", outside),
        pat("absolute outside folder", o.clone(), outside),
        pat("absolute outside file", format!("{o}/{SECRET_NAME}"), outside),
        pat("the filesystem root", "/", outside),
        pat("the root's parent", base.clone(), outside),
        pat("a sibling whose name extends the root's", format!("{r}2/secret2.txt"), outside),
        pat("SMART's quarantine folder", fx.h.qdir.to_str().unwrap().to_string(), outside),
        pat("SMART's data folder", fx.h.data.to_str().unwrap().to_string(), outside),
        pat("/dev/null", "/dev/null", outside),
        pat("/proc/self/root/etc/passwd", "/proc/self/root/etc/passwd", outside),
        // Symlinks out of the root.
        pat("file symlink, absolute target", format!("{r}/link-file-abs"), outside),
        pat("file symlink, relative target", format!("{r}/link-file-rel"), outside),
        pat("folder symlink, absolute target", format!("{r}/link-dir-abs"), outside),
        pat("folder symlink, relative target", format!("{r}/link-dir-rel"), outside),
        pat("a file through a folder symlink", format!("{r}/link-dir-rel/{VAULT_NAME}"), outside),
        pat("a new name through a folder symlink", format!("{r}/link-dir-abs/new-5f1c.txt"), outside),
        pat("symlink chain a→b→outside", format!("{r}/chain-a"), outside),
        // Spelling tricks that still resolve outside.
        pat("trailing /. on an outside path", format!("{r}/../outside/."), outside),
        pat("doubled slashes around `..`", format!("{r}//..//outside//{SECRET_NAME}"), outside),
        pat("a doubled leading slash", "//etc/passwd", outside),
        pat("backslashes glued to the root's name", format!("{r}\\..\\outside\\{SECRET_NAME}"), outside),
        pat("an absolute path, a newline, then the root", format!("/etc/passwd\n{r}/docs/a.txt"), outside),
        // Paths that cannot be resolved honestly.
        pat("`..` after a missing folder", format!("{r}/missing/../../outside/{SECRET_NAME}"), invalid),
        pat("`..` right after a missing folder", format!("{r}/missing/.."), invalid),
        pat("`..` after a file", format!("{r}/docs/a.txt/../../../outside"), invalid),
        pat("a path through a file", format!("{r}/docs/a.txt/x"), invalid),
        pat("a path through a dangling symlink", format!("{r}/dangling-abs/x"), invalid),
        pat("a symlink loop", format!("{r}/loop-a"), invalid),
        pat("a symlink to itself", format!("{r}/self-loop"), invalid),
        pat("a path through a symlink loop", format!("{r}/loop-b/x"), invalid),
        pat("a NUL in a name", format!("{r}/docs/a\0b"), invalid),
        pat("a NUL smuggling a second path", format!("{r}/docs/a.txt\0/../../outside/{SECRET_NAME}"), invalid),
        // `docs/a.txt\n` is a real folder in the fixture, so its `..` resolves — to outside.
        pat(
            "a newline smuggling `..` past a real folder",
            format!("{r}/docs/a.txt\n/../../../outside/{SECRET_NAME}"),
            outside,
        ),
        pat("a carriage return smuggling `..`", format!("{r}/docs/a.txt\r/../../../outside/{SECRET_NAME}"), invalid),
        pat("a path over 4096 bytes", too_long_path, invalid),
        pat("a 256-byte name", format!("{r}/{too_long_name}"), invalid),
        pat("a relative path", format!("outside/{SECRET_NAME}"), invalid),
        pat("a relative `..` path", format!("../outside/{SECRET_NAME}"), invalid),
        pat("a ./ path", "./docs/a.txt", invalid),
        pat("a bare ~", "~", invalid),
        pat("a ~/ path", format!("~/{SECRET_NAME}"), invalid),
        pat("a file: URL", "file:///etc/passwd", invalid),
        pat("a Windows drive path", "C:\\Windows\\System32", invalid),
        pat("a UNC path", "\\\\server\\share\\secret", invalid),
        // Not a path at all.
        pat("an empty path", "", schema),
        pat("a number", 42, schema),
        pat("null", Value::Null, schema),
        pat("a list of paths", json!(["/etc/passwd"]), schema),
        pat("an object", json!({"path": "/etc/passwd"}), schema),
        // Look-alikes and legitimate spellings: names inside the root.
        pat("fullwidth solidus ／ (an existing name)", format!("{r}/..／outside／{SECRET_NAME}"), Inside),
        pat("fullwidth solidus ／ (a new name)", format!("{r}/..／outside／new-5f1c.txt"), Inside),
        pat("division slash ∕ (an existing name)", format!("{r}/..∕..∕outside∕{SECRET_NAME}"), Inside),
        pat("division slash ∕ (a new name)", format!("{r}/..∕..∕outside∕new-5f1c.txt"), Inside),
        pat("one-dot leaders ․․ (an existing name)", format!("{r}/\u{2024}\u{2024}/outside/{SECRET_NAME}"), Inside),
        pat("one-dot leaders ․․ (a new name)", format!("{r}/\u{2024}\u{2024}/outside/new-5f1c.txt"), Inside),
        pat("a two-dot leader ‥ (a new name)", format!("{r}/\u{2025}/outside/{SECRET_NAME}"), Inside),
        pat(
            "fullwidth full stops ．． (an existing name)",
            format!("{r}/\u{ff0e}\u{ff0e}/outside/{SECRET_NAME}"),
            Inside,
        ),
        pat("three dots is a name (a new one)", format!("{r}/.../outside/{SECRET_NAME}"), Inside),
        pat("percent-encoded dots (a new name)", format!("{r}/%2e%2e/outside/{SECRET_NAME}"), Inside),
        pat("backslashes below the root (an existing name)", format!("{r}/..\\outside\\{SECRET_NAME}"), Inside),
        pat("backslashes below the root (a new name)", format!("{r}/..\\outside\\new-5f1c.txt"), Inside),
        pat("a right-to-left override (an existing name)", format!("{r}/docs/\u{202e}txt.exe"), Inside),
        pat("a right-to-left override (a new name)", format!("{r}/docs/\u{202e}gnp.exe"), Inside),
        pat("NFD é beside an existing NFC é (a new name)", format!("{r}/docs/cafe\u{301}.txt"), Inside),
        pat("a newline, then an absolute path (an existing name)", format!("{r}/docs/a.txt\n/etc/passwd"), Inside),
        pat("a carriage return, then an absolute path (a new name)", format!("{r}/docs/a.txt\r/etc/passwd"), Inside),
        pat("a 255-byte name", format!("{r}/{long_name}"), Inside),
        pat("trailing /.", format!("{r}/docs/."), Inside),
        pat("a trailing slash on a file", format!("{r}/docs/a.txt/"), Inside),
        pat("doubled slashes inside", format!("{r}//docs//a.txt"), Inside),
        pat("the root itself", r.clone(), Inside),
        pat("the root with /.", format!("{r}/."), Inside),
        pat("`..` back up to the root", format!("{r}/docs/.."), Inside),
        pat("a dangling symlink to outside (absolute)", format!("{r}/dangling-abs"), Inside),
        pat("a dangling symlink to outside (relative)", format!("{r}/dangling-rel"), Inside),
        pat("a chain that leaves and comes back", format!("{r}/bounce"), Inside),
        pat("an alias outside that points in", format!("{base}/alias/docs/a.txt"), Inside),
    ];
    if cfg!(target_os = "linux") {
        v.push(pat("/proc/self/root before the root", format!("/proc/self/root{r}/docs/a.txt"), Inside));
    }
    v
}

// ---------------------------------------------------------------------------------------------
// The slots: every path argument of every tool.

struct Slot {
    tool: &'static str,
    /// The argument, as the tool's spec names it in `path_args`.
    arg: &'static str,
    build: fn(&Fx, Value) -> Value,
}

fn slots() -> Vec<Slot> {
    vec![
        Slot { tool: "fs.scan", arg: "path", build: |_, p| json!({ "path": p }) },
        Slot { tool: "fs.hash", arg: "path", build: |_, p| json!({ "path": p }) },
        Slot { tool: "fs.read", arg: "path", build: |_, p| json!({ "path": p }) },
        Slot {
            tool: "rag.search",
            arg: "path_prefix",
            build: |_, p| json!({ "query": "xqzsentinel", "path_prefix": p }),
        },
        Slot { tool: "cluster.duplicates", arg: "path", build: |_, p| json!({ "path": p }) },
        Slot { tool: "infer.superseded_docs", arg: "path", build: |_, p| json!({ "path": p }) },
        Slot {
            tool: "rag.assemble_context",
            arg: "ids/*",
            build: |fx, p| json!({ "ids": [fx.h.p("docs/b.txt"), p], "budget_tokens": 1000 }),
        },
        Slot {
            tool: "rag.validate_applicability",
            arg: "ids/*",
            build: |fx, p| json!({ "ids": [fx.h.p("docs/b.txt"), p] }),
        },
        Slot {
            tool: "propose.patch",
            arg: "path",
            build: |_, p| json!({ "path": p, "find": "alpha", "replace": "omega" }),
        },
        Slot {
            tool: "propose.move",
            arg: "moves/*/from",
            build: |fx, p| json!({ "moves": [{ "from": p, "to": fx.h.p("moved-here") }] }),
        },
        Slot {
            tool: "propose.move",
            arg: "moves/*/to",
            build: |fx, p| json!({ "moves": [{ "from": fx.h.p("docs/a.txt"), "to": p }] }),
        },
        Slot {
            tool: "propose.redirects",
            arg: "moves/*/from",
            build: |fx, p| json!({ "moves": [{ "from": p, "to": fx.h.p("moved-here") }] }),
        },
        Slot {
            tool: "propose.redirects",
            arg: "moves/*/to",
            build: |fx, p| json!({ "moves": [{ "from": fx.h.p("docs/gone.txt"), "to": p }] }),
        },
        Slot {
            tool: "propose.quarantine",
            arg: "paths/*",
            build: |fx, p| json!({ "paths": [fx.h.p("docs/b.txt"), p] }),
        },
        Slot { tool: "fs.quarantine", arg: "paths/*", build: |fx, p| json!({ "paths": [fx.h.p("docs/b.txt"), p] }) },
        Slot { tool: "fs.compact", arg: "path", build: |_, p| json!({ "path": p }) },
    ]
}

/// One call's result as text, for the leak checks.
fn result_text(r: &Result<Done, Fail>) -> String {
    match r {
        Ok(d) => d.output.to_string(),
        Err(Fail::Failed(m)) => m.clone(),
        Err(Fail::Refused(_, reason)) => reason.clone(),
    }
}

/// Runs every pattern through one slot. Refusals are tried on one climbed fixture (a refused
/// call changes nothing). Paths that resolve inside run too; when one produces a proposal or a
/// change, the apply and the undo follow, and all the same checks hold after each step.
fn run_slot(tool: &str, arg: &str) {
    let slot = slots().into_iter().find(|s| s.tool == tool && s.arg == arg).unwrap();
    let mut problems = Vec::new();
    let mut attempts = 0;
    let mut fx = Fx::new().climb();
    let count = patterns(&fx).len();
    for pattern in patterns(&fx) {
        let Expect::Refused(code) = pattern.expect else { continue };
        attempts += 1;
        let what = format!("{tool} {arg} ← {}", pattern.name);
        let result = fx.h.run(tool, (slot.build)(&fx, pattern.value.clone()));
        match &result {
            Err(Fail::Refused(got, _)) if *got == code => {}
            other => problems.push(format!("{what}: expected {code:?}, got {other:?}")),
        }
        if let Ok(d) = &result {
            problems.extend(fx.leaks_in(&d.output.to_string()).into_iter().map(|l| format!("{what}: {l}")));
        }
        problems.extend(fx.escapes().into_iter().map(|e| format!("{what}: ESCAPE: {e}")));
    }
    let inside: Vec<usize> = (0..count).filter(|&i| patterns(&fx)[i].expect == Expect::Inside).collect();
    let fixture = || {
        let fx = Fx::new().climb();
        if tool.starts_with("rag.") { fx.index() } else { fx }
    };
    // Calls that can lead to a change (a proposal is applied, a change undone) get a fresh
    // fixture each; the read-only ones share one.
    let changes =
        matches!(tool, "propose.patch" | "propose.move" | "propose.quarantine" | "fs.quarantine" | "fs.compact");
    let mut shared: Option<Fx> = None;
    for i in inside {
        let mut fresh;
        let fx: &mut Fx = if changes {
            fresh = fixture();
            &mut fresh
        } else {
            shared.get_or_insert_with(fixture)
        };
        // The kernel admits the very same call at most three times per lease, and several
        // look-alikes resolve to the same file: each attempt is judged as the first of its kind.
        fx.h.state.repeats.clear();
        let pattern = patterns(fx).swap_remove(i);
        attempts += 1;
        let what = format!("{tool} {arg} ← {}", pattern.name);
        let args = (slot.build)(fx, pattern.value.clone());
        let result = fx.h.run(tool, args);
        if let Err(Fail::Refused(code, reason)) = &result {
            problems.push(format!("{what}: resolves inside the root but was refused: {code:?} {reason}"));
        }
        problems.extend(fx.leaks_in(&result_text(&result)).into_iter().map(|l| format!("{what}: {l}")));
        if let Ok(done) = &result
            && tool == "rag.search"
            && done.output["results"] != json!([])
        {
            problems.push(format!(
                "{what}: the search for a word that exists only outside found {}",
                done.output["results"]
            ));
        }
        if let Ok(done) = &result {
            for (step, r) in follow_up(fx, tool, done) {
                if let Err(Fail::Refused(code, reason)) = &r {
                    problems.push(format!("{what} then {step}: refused {code:?} {reason}"));
                }
                problems.extend(fx.leaks_in(&result_text(&r)).into_iter().map(|l| format!("{what} then {step}: {l}")));
            }
        }
        problems.extend(fx.escapes().into_iter().map(|e| format!("{what}: ESCAPE: {e}")));
    }
    assert!(problems.is_empty(), "{} problem(s):\n{}", problems.len(), problems.join("\n"));
    eprintln!("{tool} {arg}: {attempts} escape attempts, 0 escapes");
}

/// What happens after a successful call: a proposal is applied, a change is undone.
fn follow_up(fx: &mut Fx, tool: &str, done: &Done) -> Vec<(&'static str, Result<Done, Fail>)> {
    let mut steps = Vec::new();
    let apply = match tool {
        "propose.move" => Some("apply.move"),
        "propose.patch" => Some("apply.patch"),
        "propose.quarantine" => Some("fs.quarantine"),
        _ => None,
    };
    let undoable = match apply {
        Some(apply) => {
            let plan = done.output["artifact"].as_str().unwrap().to_string();
            let r = fx.h.run(apply, json!({ "proposal": plan }));
            let seq = r.as_ref().ok().map(|d| d.seq);
            steps.push((apply, r));
            seq
        }
        None if matches!(tool, "fs.quarantine" | "fs.compact") => Some(done.seq),
        None => None,
    };
    if let Some(seq) = undoable {
        steps.push(("undo", fx.h.undo(seq)));
    }
    steps
}

#[test]
fn fs_scan_never_lists_outside_the_root() {
    run_slot("fs.scan", "path");
}

#[test]
fn fs_hash_never_hashes_outside_the_root() {
    run_slot("fs.hash", "path");
}

#[test]
fn fs_read_never_reads_outside_the_root() {
    run_slot("fs.read", "path");
}

#[test]
fn rag_search_path_prefix_never_reaches_outside_the_root() {
    run_slot("rag.search", "path_prefix");
}

#[test]
fn cluster_duplicates_never_walks_outside_the_root() {
    run_slot("cluster.duplicates", "path");
}

#[test]
fn infer_superseded_docs_never_walks_outside_the_root() {
    run_slot("infer.superseded_docs", "path");
}

#[test]
fn rag_assemble_context_ids_never_name_anything_outside_the_root() {
    run_slot("rag.assemble_context", "ids/*");
}

#[test]
fn rag_validate_applicability_ids_never_name_anything_outside_the_root() {
    run_slot("rag.validate_applicability", "ids/*");
}

#[test]
fn propose_patch_never_targets_a_file_outside_the_root() {
    run_slot("propose.patch", "path");
}

#[test]
fn propose_move_never_takes_a_source_from_outside_the_root() {
    run_slot("propose.move", "moves/*/from");
}

#[test]
fn propose_move_never_lands_a_destination_outside_the_root() {
    run_slot("propose.move", "moves/*/to");
}

#[test]
fn propose_redirects_never_records_an_old_path_outside_the_root() {
    run_slot("propose.redirects", "moves/*/from");
}

#[test]
fn propose_redirects_never_records_a_new_path_outside_the_root() {
    run_slot("propose.redirects", "moves/*/to");
}

#[test]
fn propose_quarantine_never_lists_anything_outside_the_root() {
    run_slot("propose.quarantine", "paths/*");
}

#[test]
fn fs_quarantine_never_takes_anything_from_outside_the_root() {
    run_slot("fs.quarantine", "paths/*");
}

#[test]
fn fs_compact_never_archives_or_moves_anything_outside_the_root() {
    run_slot("fs.compact", "path");
}

// ---------------------------------------------------------------------------------------------
// Arguments that are not paths cannot be made into one.

/// (tool, arguments, whether the call needs the L3 climb) — all refused by the schema.
fn not_paths(fx: &Fx) -> Vec<(&'static str, Value)> {
    let o = fx.out.to_str().unwrap().to_string();
    let r = fx.r();
    let hex = "ab".repeat(32);
    vec![
        ("orbit.get_context", json!({ "path": "/etc/passwd" })),
        ("rebuild.index", json!({ "roots": ["/"] })),
        ("quarantine.purge", json!({ "batch": "../../outside" })),
        ("quarantine.purge", json!({ "batch": "0123456789abcdef/../../../outside" })),
        ("quarantine.purge", json!({ "batch": format!("{o}/{SECRET_NAME}") })),
        ("db.upsert", json!({ "collection": "../outside", "key": "k", "value": 1 })),
        ("db.upsert", json!({ "collection": "notes", "key": "k", "value": 1, "path": o })),
        ("apply.move", json!({ "proposal": "../../etc/passwd" })),
        ("apply.move", json!({ "proposal": hex, "moves": [{ "from": format!("{r}/docs/a.txt"), "to": o }] })),
        ("apply.patch", json!({ "proposal": format!("{o}/{SECRET_NAME}") })),
        ("fs.quarantine", json!({ "proposal": format!("{o}/{SECRET_NAME}") })),
        ("fs.quarantine", json!({ "proposal": hex, "paths": [o] })),
        ("fs.scan", json!({ "path": format!("{r}/docs"), "follow_symlinks": true })),
        ("fs.read", json!({ "path": format!("{r}/docs/a.txt"), "also": format!("{o}/{SECRET_NAME}") })),
        (
            "propose.move",
            json!({ "moves": [{ "from": format!("{r}/docs/a.txt"), "to": format!("{r}/x"), "overwrite": o }] }),
        ),
        ("fs.compact", json!({ "path": format!("{r}/proj"), "archive": format!("{o}/stolen.tar.gz") })),
    ]
}

#[test]
fn arguments_that_are_not_paths_cannot_carry_one() {
    let mut fx = Fx::new().climb();
    let mut problems = Vec::new();
    for (tool, args) in not_paths(&fx) {
        let what = format!("{tool} {args}");
        match fx.h.run(tool, args) {
            Err(Fail::Refused(C::SchemaInvalid, _)) => {}
            other => problems.push(format!("{what}: expected SchemaInvalid, got {other:?}")),
        }
        problems.extend(fx.escapes().into_iter().map(|e| format!("{what}: ESCAPE: {e}")));
    }
    // A record key is not a path: one that looks like one is stored as a key, nowhere else.
    let done = fx.h.run(
        "db.upsert",
        json!({ "collection": "notes", "key": format!("../../outside/{SECRET_NAME}"), "value": "x" }),
    );
    assert!(done.is_ok(), "{done:?}");
    problems.extend(fx.escapes());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// Swaps after admission: the kernel said yes to a path inside; before the executor runs, a folder
// on the way becomes a symlink out. The executor must fail and touch nothing outside.

/// Proposes through the kernel (approving a Tier 3 call with a signed signal) and returns the
/// admitted call without running it.
fn admit(h: &mut Harness, tool: &str, args: Value) -> Box<AdmittedCall> {
    h.now = h.now.plus(1);
    let c = h.call(tool, args);
    let d = h.kernel.propose(&h.state, c, h.now, &h.world).unwrap();
    match h.apply(d) {
        Outcome::Admitted(a) => a,
        Outcome::Pending { id, .. } => {
            let hash = h.state.pending.get(&id).unwrap().call.hash;
            let s = h.signal(&id, hash);
            let d = h.kernel.signal(&h.state, s, h.now, &h.world).unwrap();
            match h.apply(d) {
                Outcome::Admitted(a) => a,
                other => panic!("{tool}: the approval gave {other:?}"),
            }
        }
        other => panic!("{tool} was not admitted: {other:?}"),
    }
}

/// Admits the undo of the committed call at `seq` without running it.
fn admit_undo(h: &mut Harness, seq: u64) -> Box<AdmittedCall> {
    h.now = h.now.plus(1);
    let committed = h.log[(seq - 1) as usize].clone();
    let d = h.kernel.propose_undo(&h.state, seq, &committed, h.now, &h.world).unwrap();
    match h.apply(d) {
        Outcome::Admitted(a) => a,
        other => panic!("the undo of {seq} was not admitted: {other:?}"),
    }
}

/// Runs an admitted call and records its receipt.
fn execute(h: &mut Harness, a: &AdmittedCall) -> Result<Value, String> {
    let result = h.exec.execute(a);
    let out = result.as_ref().map(|o| o.output.clone()).map_err(Clone::clone);
    let ev = h.kernel.receipt(a, result);
    h.apply(KernelDecision { events: vec![ev], outcome: Outcome::Done });
    out
}

/// The executor must have refused, and nothing may have escaped.
fn must_fail(fx: &Fx, what: &str, result: Result<Value, String>) {
    let text = match &result {
        Ok(v) => v.to_string(),
        Err(e) => e.clone(),
    };
    let mut problems: Vec<String> = fx.leaks_in(&text);
    if let Ok(v) = &result {
        problems.push(format!("the executor ran through the swapped-in link: {v}"));
    }
    problems.extend(fx.escapes().into_iter().map(|e| format!("ESCAPE: {e}")));
    assert!(problems.is_empty(), "{what}: {}", problems.join("; "));
}

/// A read-only call may succeed after a swap (reporting the link as a link), but what it says
/// must hold nothing from outside.
fn must_not_leak(fx: &Fx, what: &str, result: Result<Value, String>) {
    let text = match &result {
        Ok(v) => v.to_string(),
        Err(e) => e.clone(),
    };
    let mut problems: Vec<String> = fx.leaks_in(&text);
    problems.extend(fx.escapes().into_iter().map(|e| format!("ESCAPE: {e}")));
    assert!(problems.is_empty(), "{what}: {}", problems.join("; "));
}

fn race_move_source_folder_abs() {
    let mut fx = Fx::new().climb();
    let plan = fx.h.propose_moves(&[("docs/a.txt", "sorted/a.txt")]).unwrap();
    let twin = fx.twin("twin-docs", "docs");
    let args = json!({ "proposal": plan });
    let a = admit(&mut fx.h, "apply.move", args);
    fx.swap("docs", &twin);
    let r = execute(&mut fx.h, &a);
    assert!(!fx.h.exists("sorted"), "no folder was made for the move");
    must_fail(&fx, "apply.move, source folder swapped (absolute link)", r);
}

fn race_move_source_folder_rel() {
    let mut fx = Fx::new().climb();
    let plan = fx.h.propose_moves(&[("docs/a.txt", "sorted/a.txt")]).unwrap();
    fx.twin("twin-docs", "docs");
    let args = json!({ "proposal": plan });
    let a = admit(&mut fx.h, "apply.move", args);
    fx.swap("docs", Path::new("../outside/twin-docs"));
    let r = execute(&mut fx.h, &a);
    must_fail(&fx, "apply.move, source folder swapped (relative link)", r);
}

fn race_move_source_file_itself() {
    let mut fx = Fx::new().climb();
    let plan = fx.h.propose_moves(&[("docs/a.txt", "sorted/a.txt")]).unwrap();
    let twin = fx.twin("twin-a.txt", "docs/a.txt");
    let args = json!({ "proposal": plan });
    let a = admit(&mut fx.h, "apply.move", args);
    fx.swap("docs/a.txt", &twin);
    let r = execute(&mut fx.h, &a);
    must_fail(&fx, "apply.move, the source file swapped for a link to its twin", r);
}

fn race_move_destination_folder() {
    let mut fx = Fx::new().climb();
    let plan = fx.h.propose_moves(&[("docs/a.txt", "dest/a.txt")]).unwrap();
    let args = json!({ "proposal": plan });
    let a = admit(&mut fx.h, "apply.move", args);
    let vault = fx.out.join("vault");
    fx.swap("dest", &vault);
    let r = execute(&mut fx.h, &a);
    assert_eq!(fx.h.read("docs/a.txt"), b"alpha\n", "the source stayed");
    must_fail(&fx, "apply.move, destination folder swapped", r);
}

fn race_move_destination_folder_appears_as_link() {
    let mut fx = Fx::new().climb();
    let plan = fx.h.propose_moves(&[("docs/a.txt", "newdir/deeper/a.txt")]).unwrap();
    let args = json!({ "proposal": plan });
    let a = admit(&mut fx.h, "apply.move", args);
    symlink("../outside/vault", fx.h.root.join("newdir")).unwrap();
    let r = execute(&mut fx.h, &a);
    must_fail(&fx, "apply.move, a missing destination folder created as a link", r);
}

fn race_quarantine_folder_itself() {
    let mut fx = Fx::new().climb();
    let twin = fx.twin("twin-docs", "docs");
    let args = json!({ "paths": [fx.h.p("docs")] });
    let a = admit(&mut fx.h, "fs.quarantine", args);
    fx.swap("docs", &twin);
    let r = execute(&mut fx.h, &a);
    must_fail(&fx, "fs.quarantine, the folder swapped for a link to its twin", r);
}

fn race_quarantine_parent_folder() {
    let mut fx = Fx::new().climb();
    let twin = fx.twin("twin-docs", "docs");
    let args = json!({ "paths": [fx.h.p("docs/a.txt"), fx.h.p("docs/b.txt")] });
    let a = admit(&mut fx.h, "fs.quarantine", args);
    fx.swap("docs", &twin);
    let r = execute(&mut fx.h, &a);
    must_fail(&fx, "fs.quarantine, the files' folder swapped", r);
}

fn race_compact_folder_itself() {
    let mut fx = Fx::new().climb();
    let twin = fx.twin("twin-proj", "proj");
    let args = json!({ "path": fx.h.p("proj") });
    let a = admit(&mut fx.h, "fs.compact", args);
    fx.swap("proj", &twin);
    let r = execute(&mut fx.h, &a);
    assert!(!fx.h.exists("proj.tar.gz"), "no archive was left");
    must_fail(&fx, "fs.compact, the folder swapped for a link to its twin", r);
}

fn race_compact_parent_folder() {
    let mut fx = Fx::new().climb();
    fx.twin("twin-work", "work");
    let args = json!({ "path": fx.h.p("work/proj") });
    let a = admit(&mut fx.h, "fs.compact", args);
    fx.swap("work", Path::new("../outside/twin-work"));
    let r = execute(&mut fx.h, &a);
    must_fail(&fx, "fs.compact, the parent folder swapped", r);
}

fn propose_patch(fx: &mut Fx) -> String {
    let done =
        fx.h.run("propose.patch", json!({ "path": fx.h.p("docs/a.txt"), "find": "alpha", "replace": "omega" }))
            .unwrap();
    done.output["artifact"].as_str().unwrap().to_string()
}

fn race_patch_parent_folder() {
    let mut fx = Fx::new().climb();
    let patch = propose_patch(&mut fx);
    let twin = fx.twin("twin-docs", "docs");
    let args = json!({ "proposal": patch });
    let a = admit(&mut fx.h, "apply.patch", args);
    fx.swap("docs", &twin);
    let r = execute(&mut fx.h, &a);
    must_fail(&fx, "apply.patch, the file's folder swapped", r);
}

fn race_patch_file_itself_abs() {
    let mut fx = Fx::new().climb();
    let patch = propose_patch(&mut fx);
    let twin = fx.twin("twin-a.txt", "docs/a.txt");
    let args = json!({ "proposal": patch });
    let a = admit(&mut fx.h, "apply.patch", args);
    fx.swap("docs/a.txt", &twin);
    let r = execute(&mut fx.h, &a);
    must_fail(&fx, "apply.patch, the file swapped for an absolute link to its twin", r);
}

fn race_patch_file_itself_rel() {
    let mut fx = Fx::new().climb();
    let patch = propose_patch(&mut fx);
    fx.twin("twin-a.txt", "docs/a.txt");
    let args = json!({ "proposal": patch });
    let a = admit(&mut fx.h, "apply.patch", args);
    fx.swap("docs/a.txt", Path::new("../../outside/twin-a.txt"));
    let r = execute(&mut fx.h, &a);
    must_fail(&fx, "apply.patch, the file swapped for a relative link to its twin", r);
}

fn race_undo_move_restore_parent() {
    let mut fx = Fx::new().climb();
    let plan = fx.h.propose_moves(&[("docs/a.txt", "sorted/a.txt")]).unwrap();
    let done = fx.h.run("apply.move", json!({ "proposal": plan })).unwrap();
    let a = admit_undo(&mut fx.h, done.seq);
    let vault = fx.out.join("vault");
    fx.swap("docs", &vault);
    let r = execute(&mut fx.h, &a);
    assert_eq!(fx.h.read("sorted/a.txt"), b"alpha\n", "the moved file stayed where it was");
    must_fail(&fx, "undo of apply.move, the restore folder swapped", r);
}

fn race_undo_quarantine_restore_parent() {
    let mut fx = Fx::new().climb();
    let done = fx.h.run("fs.quarantine", json!({ "paths": [fx.h.p("docs/a.txt")] })).unwrap();
    let a = admit_undo(&mut fx.h, done.seq);
    fx.swap("docs", Path::new("../outside/vault"));
    let r = execute(&mut fx.h, &a);
    must_fail(&fx, "undo of fs.quarantine, the restore folder swapped", r);
}

fn race_undo_patch_folder() {
    let mut fx = Fx::new().climb();
    let patch = propose_patch(&mut fx);
    let done = fx.h.run("apply.patch", json!({ "proposal": patch })).unwrap();
    let twin = fx.twin("twin-docs", "docs");
    let a = admit_undo(&mut fx.h, done.seq);
    fx.swap("docs", &twin);
    let r = execute(&mut fx.h, &a);
    must_fail(&fx, "undo of apply.patch, the file's folder swapped for its twin", r);
}

fn race_read_root_swapped() {
    let mut fx = Fx::new().climb();
    let args = json!({ "path": fx.h.p("docs/a.txt") });
    let a = admit(&mut fx.h, "fs.read", args);
    let twin = fx.twin_root();
    fs::write(twin.join("docs/a.txt"), SECRET).unwrap();
    fx.rebaseline();
    fx.swap_root(&twin);
    let r = execute(&mut fx.h, &a);
    fx.unswap_root();
    must_fail(&fx, "fs.read, the root itself swapped for a link to a twin holding the secret", r);
}

fn race_patch_root_swapped() {
    let mut fx = Fx::new().climb();
    let patch = propose_patch(&mut fx);
    let twin = fx.twin_root();
    let a = admit(&mut fx.h, "apply.patch", json!({ "proposal": patch }));
    fx.swap_root(&twin);
    let r = execute(&mut fx.h, &a);
    fx.unswap_root();
    must_fail(&fx, "apply.patch, the root itself swapped for a link to its twin", r);
}

fn race_undo_compact_folder() {
    let mut fx = Fx::new().climb();
    let done = fx.h.run("fs.compact", json!({ "path": fx.h.p("work/proj") })).unwrap();
    let twin = fx.twin("twin-work", "work");
    let a = admit_undo(&mut fx.h, done.seq);
    fx.swap("work", &twin);
    let r = execute(&mut fx.h, &a);
    must_fail(&fx, "undo of fs.compact, the folder holding the archive swapped for its twin", r);
}

fn race_read_file_swapped() {
    let mut fx = Fx::new().climb();
    let args = json!({ "path": fx.h.p("docs/a.txt") });
    let a = admit(&mut fx.h, "fs.read", args);
    let secret = fx.out.join(SECRET_NAME);
    fx.swap("docs/a.txt", &secret);
    let r = execute(&mut fx.h, &a);
    assert!(r.is_err(), "{r:?}");
    must_not_leak(&fx, "fs.read, the file swapped for a link to the secret", r);
}

fn race_read_folder_swapped() {
    let mut fx = Fx::new().climb();
    let args = json!({ "path": fx.h.p("sub/keep.txt") });
    let a = admit(&mut fx.h, "fs.read", args);
    fx.twin("twin-sub", "sub");
    fs::write(fx.out.join("twin-sub/keep.txt"), SECRET).unwrap();
    fx.rebaseline();
    fx.swap("sub", Path::new("../outside/twin-sub"));
    let r = execute(&mut fx.h, &a);
    assert!(r.is_err(), "{r:?}");
    must_not_leak(&fx, "fs.read, the file's folder swapped", r);
}

fn race_hash_file_swapped() {
    let mut fx = Fx::new().climb();
    let args = json!({ "path": fx.h.p("docs/a.txt") });
    let a = admit(&mut fx.h, "fs.hash", args);
    let secret = fx.out.join(SECRET_NAME);
    fx.swap("docs/a.txt", &secret);
    let r = execute(&mut fx.h, &a);
    must_not_leak(&fx, "fs.hash, the file swapped for a link to the secret", r);
}

fn race_scan_folder_swapped() {
    let mut fx = Fx::new().climb();
    let args = json!({ "path": fx.h.p("sub") });
    let a = admit(&mut fx.h, "fs.scan", args);
    let vault = fx.out.join("vault");
    fx.swap("sub", &vault);
    let r = execute(&mut fx.h, &a);
    must_not_leak(&fx, "fs.scan, the folder swapped for a link out", r);
}

fn race_duplicates_folder_swapped() {
    let mut fx = Fx::new().climb();
    let args = json!({ "path": fx.h.p("sub") });
    let a = admit(&mut fx.h, "cluster.duplicates", args);
    fx.swap("sub", Path::new("../outside/vault"));
    let r = execute(&mut fx.h, &a);
    must_not_leak(&fx, "cluster.duplicates, the folder swapped for a link out", r);
}

fn race_superseded_folder_swapped() {
    let mut fx = Fx::new().climb();
    let args = json!({ "path": fx.h.p("sub") });
    let a = admit(&mut fx.h, "infer.superseded_docs", args);
    let vault = fx.out.join("vault");
    fx.swap("sub", &vault);
    let r = execute(&mut fx.h, &a);
    must_not_leak(&fx, "infer.superseded_docs, the folder swapped for a link out", r);
}

fn race_propose_patch_file_swapped() {
    let mut fx = Fx::new().climb();
    let args = json!({ "path": fx.h.p("docs/a.txt"), "find": "alpha", "replace": "omega" });
    let a = admit(&mut fx.h, "propose.patch", args);
    let secret = fx.out.join(SECRET_NAME);
    fx.swap("docs/a.txt", &secret);
    let r = execute(&mut fx.h, &a);
    assert!(r.is_err(), "{r:?}");
    must_not_leak(&fx, "propose.patch, the file swapped for a link to the secret", r);
}

fn race_propose_quarantine_folder_swapped() {
    let mut fx = Fx::new().climb();
    let args = json!({ "paths": [fx.h.p("sub/keep.txt")] });
    let a = admit(&mut fx.h, "propose.quarantine", args);
    fx.swap("sub", Path::new("../outside/vault"));
    let r = execute(&mut fx.h, &a);
    must_not_leak(&fx, "propose.quarantine, the folder swapped", r);
}

fn race_validate_file_swapped() {
    let fx = Fx::new().climb().index();
    let mut fx = fx;
    let args = json!({ "ids": [fx.h.p("docs/a.txt")] });
    let a = admit(&mut fx.h, "rag.validate_applicability", args);
    let secret = fx.out.join(SECRET_NAME);
    fx.swap("docs/a.txt", &secret);
    let r = execute(&mut fx.h, &a);
    must_not_leak(&fx, "rag.validate_applicability, the file swapped for a link to the secret", r);
}

fn race_assemble_file_swapped() {
    let fx = Fx::new().climb().index();
    let mut fx = fx;
    let args = json!({ "ids": [fx.h.p("docs/a.txt")], "budget_tokens": 1000 });
    let a = admit(&mut fx.h, "rag.assemble_context", args);
    let secret = fx.out.join(SECRET_NAME);
    fx.swap("docs/a.txt", &secret);
    let r = execute(&mut fx.h, &a);
    must_not_leak(&fx, "rag.assemble_context, the file swapped for a link to the secret", r);
}

fn race_move_to_a_dangling_link_out() {
    let mut fx = Fx::new().climb();
    let plan = fx.h.propose_moves(&[("docs/a.txt", "fresh-name.txt")]).unwrap();
    // Appears before admission, but as a dangling link the path still resolves to itself.
    symlink(fx.out.join(NOT_YET), fx.h.root.join("fresh-name.txt")).unwrap();
    let r = match fx.h.run("apply.move", json!({ "proposal": plan })) {
        Ok(d) => Ok(d.output),
        Err(Fail::Failed(m)) => Err(m),
        Err(Fail::Refused(code, reason)) => Err(format!("{code:?}: {reason}")),
    };
    must_fail(&fx, "apply.move onto a dangling link pointing out", r);
}

/// Every swap-after-admission case.
const RACES: &[(&str, fn())] = &[
    ("apply.move: source folder → absolute link to a twin outside", race_move_source_folder_abs),
    ("apply.move: source folder → relative link to a twin outside", race_move_source_folder_rel),
    ("apply.move: source file → link to its twin outside", race_move_source_file_itself),
    ("apply.move: destination folder → link out", race_move_destination_folder),
    ("apply.move: missing destination folder appears as a link out", race_move_destination_folder_appears_as_link),
    ("apply.move: destination appears as a dangling link out", race_move_to_a_dangling_link_out),
    ("fs.quarantine: the folder → link to its twin outside", race_quarantine_folder_itself),
    ("fs.quarantine: the files' folder → link to a twin outside", race_quarantine_parent_folder),
    ("fs.compact: the folder → link to its twin outside", race_compact_folder_itself),
    ("fs.compact: the parent folder → link to a twin outside", race_compact_parent_folder),
    ("apply.patch: the file's folder → link to a twin outside", race_patch_parent_folder),
    ("apply.patch: the file → absolute link to its twin", race_patch_file_itself_abs),
    ("apply.patch: the file → relative link to its twin", race_patch_file_itself_rel),
    ("undo of apply.move: the restore folder → link out", race_undo_move_restore_parent),
    ("undo of fs.quarantine: the restore folder → link out", race_undo_quarantine_restore_parent),
    ("undo of apply.patch: the file's folder → link to a twin", race_undo_patch_folder),
    ("undo of fs.compact: the archive's folder → link to a twin", race_undo_compact_folder),
    ("fs.read: the root itself → link to a twin holding the secret", race_read_root_swapped),
    ("apply.patch: the root itself → link to its twin", race_patch_root_swapped),
    ("fs.read: the file → link to the secret", race_read_file_swapped),
    ("fs.read: the file's folder → link out", race_read_folder_swapped),
    ("fs.hash: the file → link to the secret", race_hash_file_swapped),
    ("fs.scan: the folder → link out", race_scan_folder_swapped),
    ("cluster.duplicates: the folder → link out", race_duplicates_folder_swapped),
    ("infer.superseded_docs: the folder → link out", race_superseded_folder_swapped),
    ("propose.patch: the file → link to the secret", race_propose_patch_file_swapped),
    ("propose.quarantine: the folder → link out", race_propose_quarantine_folder_swapped),
    ("rag.validate_applicability: the file → link to the secret", race_validate_file_swapped),
    ("rag.assemble_context: the file → link to the secret", race_assemble_file_swapped),
];

/// Runs each case, collecting failures so one broken case does not hide the others.
fn run_table(table: &[(&str, fn())]) {
    let failed: Vec<String> = table
        .iter()
        .filter_map(|(name, case)| {
            std::panic::catch_unwind(case).err().map(|e| {
                let why = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| (*s).to_string()))
                    .unwrap_or_default();
                format!("{name}: {why}")
            })
        })
        .collect();
    assert!(failed.is_empty(), "{} of {} failed:\n{}", failed.len(), table.len(), failed.join("\n"));
}

#[test]
fn a_symlink_swapped_in_after_admission_never_lets_an_executor_out() {
    run_table(RACES);
}

// ---------------------------------------------------------------------------------------------
// Swaps before admission: resolution is re-checked, so a plan whose paths now lead elsewhere is
// refused by the kernel before anything runs.

fn refused_with(fx: &Fx, what: &str, r: Result<Done, Fail>, codes: &[C]) {
    match &r {
        Err(Fail::Refused(code, _)) if codes.contains(code) => {}
        other => panic!("{what}: expected one of {codes:?}, got {other:?}"),
    }
    let escapes = fx.escapes();
    assert!(escapes.is_empty(), "{what}: ESCAPE: {}", escapes.join("; "));
}

fn stale_move_destination_out() {
    let mut fx = Fx::new().climb();
    let plan = fx.h.propose_moves(&[("docs/a.txt", "dest/a.txt")]).unwrap();
    let vault = fx.out.join("vault");
    fx.swap("dest", &vault);
    let r = fx.h.run("apply.move", json!({ "proposal": plan }));
    refused_with(&fx, "apply.move, destination folder now a link out", r, &[C::PathOutsideRoots]);
}

fn stale_move_destination_inside() {
    let mut fx = Fx::new().climb();
    let plan = fx.h.propose_moves(&[("docs/a.txt", "dest/a.txt")]).unwrap();
    let sub = fx.h.root.join("sub");
    fx.swap("dest", &sub);
    let r = fx.h.run("apply.move", json!({ "proposal": plan }));
    refused_with(&fx, "apply.move, destination folder now a link elsewhere inside", r, &[C::SnapshotStale]);
    assert!(!fx.h.exists("sub/a.txt"));
}

fn stale_move_source_out() {
    let mut fx = Fx::new().climb();
    let plan = fx.h.propose_moves(&[("docs/a.txt", "sorted/a.txt")]).unwrap();
    let twin = fx.twin("twin-docs", "docs");
    fx.swap("docs", &twin);
    let r = fx.h.run("apply.move", json!({ "proposal": plan }));
    refused_with(&fx, "apply.move, source folder now a link to its twin", r, &[C::PathOutsideRoots]);
}

fn stale_patch_folder_out() {
    let mut fx = Fx::new().climb();
    let patch = propose_patch(&mut fx);
    let twin = fx.twin("twin-docs", "docs");
    fx.swap("docs", &twin);
    let r = fx.h.run("apply.patch", json!({ "proposal": patch }));
    refused_with(&fx, "apply.patch, the folder now a link to its twin", r, &[C::PathOutsideRoots]);
}

fn stale_patch_file_out() {
    let mut fx = Fx::new().climb();
    let patch = propose_patch(&mut fx);
    fx.twin("twin-a.txt", "docs/a.txt");
    fx.swap("docs/a.txt", Path::new("../../outside/twin-a.txt"));
    let r = fx.h.run("apply.patch", json!({ "proposal": patch }));
    refused_with(&fx, "apply.patch, the file now a link to its twin", r, &[C::PathOutsideRoots]);
}

fn stale_quarantine_plan_out() {
    let mut fx = Fx::new().climb();
    let done = fx.h.run("propose.quarantine", json!({ "paths": [fx.h.p("docs/a.txt")] })).unwrap();
    let plan = done.output["artifact"].as_str().unwrap().to_string();
    let twin = fx.twin("twin-docs", "docs");
    fx.swap("docs", &twin);
    let r = fx.h.run("fs.quarantine", json!({ "proposal": plan }));
    refused_with(&fx, "fs.quarantine of a reviewed list, the folder now a link to its twin", r, &[C::PathOutsideRoots]);
}

/// Proposes a Tier 3 call, swaps, then approves: the approval re-runs every check.
fn approve_after_swap(fx: &mut Fx, tool: &str, args: Value, swap: impl FnOnce(&Fx)) -> Result<Done, Fail> {
    fx.h.now = fx.h.now.plus(1);
    let c = fx.h.call(tool, args);
    let d = fx.h.kernel.propose(&fx.h.state, c, fx.h.now, &fx.h.world).unwrap();
    let Outcome::Pending { id, .. } = fx.h.apply(d) else { panic!("{tool} was not held for approval") };
    swap(fx);
    let hash = fx.h.state.pending.get(&id).unwrap().call.hash;
    let s = fx.h.signal(&id, hash);
    let d = fx.h.kernel.signal(&fx.h.state, s, fx.h.now, &fx.h.world).unwrap();
    match fx.h.apply(d) {
        Outcome::Refused(r) => Err(Fail::Refused(r.code, r.reason)),
        other => panic!("{tool}: approval after the swap gave {other:?}"),
    }
}

fn stale_quarantine_pending() {
    let mut fx = Fx::new().climb();
    let twin = fx.twin("twin-docs", "docs");
    let args = json!({ "paths": [fx.h.p("docs/a.txt")] });
    let r = approve_after_swap(&mut fx, "fs.quarantine", args, |fx| fx.swap("docs", &twin));
    refused_with(&fx, "fs.quarantine approved after its folder became a link", r, &[C::PathOutsideRoots]);
    assert!(fx.h.state.pending.len() == 1, "the call stays pending, unapproved");
}

fn stale_compact_pending() {
    let mut fx = Fx::new().climb();
    let twin = fx.twin("twin-proj", "proj");
    let args = json!({ "path": fx.h.p("proj") });
    let r = approve_after_swap(&mut fx, "fs.compact", args, |fx| fx.swap("proj", &twin));
    refused_with(&fx, "fs.compact approved after the folder became a link", r, &[C::PathOutsideRoots]);
}

fn stale_undo_move() {
    let mut fx = Fx::new().climb();
    let plan = fx.h.propose_moves(&[("docs/a.txt", "sorted/a.txt")]).unwrap();
    let done = fx.h.run("apply.move", json!({ "proposal": plan })).unwrap();
    let vault = fx.out.join("vault");
    fx.swap("docs", &vault);
    let r = fx.h.undo(done.seq);
    refused_with(&fx, "undo of apply.move, the restore folder now a link out", r, &[C::SnapshotStale]);
}

fn stale_undo_quarantine() {
    let mut fx = Fx::new().climb();
    let done = fx.h.run("fs.quarantine", json!({ "paths": [fx.h.p("docs/a.txt")] })).unwrap();
    fx.swap("docs", Path::new("../outside/vault"));
    let r = fx.h.undo(done.seq);
    refused_with(&fx, "undo of fs.quarantine, the restore folder now a link out", r, &[C::SnapshotStale]);
}

fn stale_undo_patch() {
    let mut fx = Fx::new().climb();
    let patch = propose_patch(&mut fx);
    let done = fx.h.run("apply.patch", json!({ "proposal": patch })).unwrap();
    let twin = fx.twin("twin-docs", "docs");
    fx.swap("docs", &twin);
    let r = fx.h.undo(done.seq);
    refused_with(&fx, "undo of apply.patch, the folder now a link to its twin", r, &[C::SnapshotStale]);
}

fn stale_undo_compact() {
    let mut fx = Fx::new().climb();
    let done = fx.h.run("fs.compact", json!({ "path": fx.h.p("work/proj") })).unwrap();
    let twin = fx.twin("twin-work", "work");
    fx.swap("work", &twin);
    let r = fx.h.undo(done.seq);
    refused_with(&fx, "undo of fs.compact, the archive's folder now a link to its twin", r, &[C::SnapshotStale]);
}

/// Every swap-before-admission case.
const STALE: &[(&str, fn())] = &[
    ("apply.move: destination folder became a link out", stale_move_destination_out),
    ("apply.move: destination folder became a link inside", stale_move_destination_inside),
    ("apply.move: source folder became a link to a twin", stale_move_source_out),
    ("apply.patch: folder became a link to a twin", stale_patch_folder_out),
    ("apply.patch: file became a link to its twin", stale_patch_file_out),
    ("fs.quarantine (reviewed list): folder became a link to a twin", stale_quarantine_plan_out),
    ("fs.quarantine: folder became a link while pending", stale_quarantine_pending),
    ("fs.compact: folder became a link while pending", stale_compact_pending),
    ("undo of apply.move: restore folder became a link out", stale_undo_move),
    ("undo of fs.quarantine: restore folder became a link out", stale_undo_quarantine),
    ("undo of apply.patch: folder became a link to a twin", stale_undo_patch),
    ("undo of fs.compact: folder became a link to a twin", stale_undo_compact),
];

#[test]
fn a_symlink_swapped_in_before_admission_is_refused_by_the_kernel() {
    run_table(STALE);
}

// ---------------------------------------------------------------------------------------------
// Names: the strange ones are data, and two spellings of one word are two names.

#[test]
fn nfc_and_nfd_names_are_never_confused_for_a_write() {
    let mut fx = Fx::new().climb();
    let nfc = "docs/caf\u{e9}.txt";
    let nfd = "docs/cafe\u{301}.txt";
    if fx.h.exists(nfd) {
        eprintln!("skipped: this filesystem treats NFC and NFD names as one");
        return;
    }
    // Moving onto the NFD spelling creates a second file; the NFC one is untouched.
    let plan = fx.h.propose_moves(&[("docs/a.txt", nfd)]).unwrap();
    let applied = fx.h.run("apply.move", json!({ "proposal": plan })).unwrap();
    assert_eq!(fx.h.read(nfc), b"nfc\n");
    assert_eq!(fx.h.read(nfd), b"alpha\n");
    // Now both exist: neither spelling can be moved onto.
    for target in [nfc, nfd] {
        let err = fx.h.propose_moves(&[("docs/b.txt", target)]).unwrap_err().failed();
        assert!(err.contains("already exists"), "{err}");
    }
    // Each spelling reads, hashes and quarantines its own file.
    let read =
        |fx: &mut Fx, rel: &str| fx.h.run("fs.read", json!({ "path": fx.h.p(rel) })).unwrap().output["text"].clone();
    assert_eq!(read(&mut fx, nfc), "nfc\n");
    assert_eq!(read(&mut fx, nfd), "alpha\n");
    let q = fx.h.run("fs.quarantine", json!({ "paths": [fx.h.p(nfd)] })).unwrap();
    assert!(!fx.h.exists(nfd));
    assert_eq!(fx.h.read(nfc), b"nfc\n");
    fx.h.undo(q.seq).unwrap();
    fx.h.undo(applied.seq).unwrap();
    assert_eq!(fx.h.read("docs/a.txt"), b"alpha\n");
    assert_eq!(fx.h.read(nfc), b"nfc\n");
    assert!(!fx.h.exists(nfd));
    let escapes = fx.escapes();
    assert!(escapes.is_empty(), "{escapes:?}");
}

#[test]
fn names_with_newlines_and_control_characters_come_back_intact_as_data() {
    let mut fx = Fx::new().climb();
    let mut names = vec![
        "a\nb",
        "c\rd",
        "tab\there",
        "\u{202e}gnp.exe",
        " leading space",
        "trailing space ",
        "-rf",
        "--help",
        "$(rm -rf ~)",
        "`id`",
        "* ?",
        "...",
        "back\\slash",
        "..／escape",
        "\u{2024}\u{2024}",
        "caf\u{e9}",
        "cafe\u{301}",
        "emoji 🗂️",
        "quote\"d",
    ];
    if fx.h.exists("docs/cafe\u{301}.txt") {
        // This filesystem folds NFC and NFD into one name (the fixture holds the NFC one).
        names.retain(|n| *n != "cafe\u{301}");
    }
    for (i, n) in names.iter().enumerate() {
        fs::create_dir_all(fx.h.root.join("names")).unwrap();
        fs::write(fx.h.root.join("names").join(n), format!("content {i}\n")).unwrap();
    }
    let before = fx.h.snapshot();
    let scan = fx.h.run("fs.scan", json!({ "path": fx.h.p("names") })).unwrap();
    let listed: BTreeSet<String> = scan.output["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap().strip_prefix(&format!("{}/", fx.h.p("names"))).unwrap().to_string())
        .collect();
    let expected: BTreeSet<String> = names.iter().map(|s| (*s).to_string()).collect();
    assert_eq!(listed, expected, "every name comes back exactly, one entry each");
    for (i, n) in names.iter().enumerate() {
        let path = fx.h.p(&format!("names/{n}"));
        let read = fx.h.run("fs.read", json!({ "path": path })).unwrap();
        assert_eq!(read.output["text"], format!("content {i}\n"), "{n:?}");
        assert_eq!(read.output["path"], path, "{n:?}");
    }
    // A newline name moves and comes back like any other.
    let plan = fx.h.propose_moves(&[("names/a\nb", "names/moved\n/etc/passwd")]).unwrap();
    let applied = fx.h.run("apply.move", json!({ "proposal": plan })).unwrap();
    assert_eq!(fx.h.read("names/moved\n/etc/passwd"), b"content 0\n");
    fx.h.undo(applied.seq).unwrap();
    assert_eq!(fx.h.snapshot(), before);
    let escapes = fx.escapes();
    assert!(escapes.is_empty(), "{escapes:?}");
}

/// The redirects file is `old new` per line. A name holding a newline must not smuggle in a
/// second redirect the person never asked for (here `/etc/passwd → /new.txt`): the tool may
/// refuse the name or encode it, but one redirect stays one line.
#[test]
fn a_newline_in_a_moved_name_cannot_add_a_line_to_the_redirects_file() {
    let mut fx = Fx::new().climb();
    let from = fx.h.p("old\n/etc/passwd");
    let to = fx.h.p("new.txt");
    fx.h.write("new.txt", b"moved here");
    match fx.h.run("propose.redirects", json!({ "moves": [{ "from": from, "to": to }] })) {
        Ok(done) => {
            let file = done.output["file"].as_str().unwrap();
            assert_eq!(file.lines().count(), 1, "one redirect must be one line of the redirects file: {file:?}");
        }
        Err(Fail::Failed(why)) => assert!(why.contains("old"), "{why}"),
        Err(other) => panic!("{other:?}"),
    }
}

#[test]
fn very_long_and_deeply_nested_paths_inside_the_root_work_or_fail_cleanly() {
    let mut fx = Fx::new().climb();
    // 100 levels, about 2.4 KB of path: everything works.
    let deep: String = (0..100).map(|i| format!("level-{i:03}-abcdefghijklm/")).collect();
    fx.h.write(&format!("{deep}bottom.txt"), b"bottom\n");
    let scan = fx.h.run("fs.scan", json!({ "path": fx.h.p("level-000-abcdefghijklm") })).unwrap();
    assert_eq!(scan.output["files"], 1);
    assert_eq!(scan.output["dirs"], 99);
    let read = fx.h.run("fs.read", json!({ "path": fx.h.p(&format!("{deep}bottom.txt")) })).unwrap();
    assert_eq!(read.output["text"], "bottom\n");
    let before = fx.h.snapshot();
    let q = fx.h.run("fs.quarantine", json!({ "paths": [fx.h.p("level-000-abcdefghijklm")] })).unwrap();
    assert!(!fx.h.exists("level-000-abcdefghijklm"));
    fx.h.undo(q.seq).unwrap();
    assert_eq!(fx.h.snapshot(), before);

    // A 255-byte name (the most a component may have): quarantine and compact either work and
    // undo, or fail with nothing changed.
    let long = "n".repeat(255);
    fx.h.write(&format!("{long}/inner.txt"), b"inner\n");
    fx.h.write(&format!("flat/{long}"), b"flat\n");
    let before = fx.h.snapshot();
    for (tool, args) in [
        ("fs.quarantine", json!({ "paths": [fx.h.p(&format!("flat/{long}"))] })),
        ("fs.compact", json!({ "path": fx.h.p(&long) })),
    ] {
        match fx.h.run(tool, args) {
            Ok(done) => {
                fx.h.undo(done.seq).unwrap();
                eprintln!("{tool} of a 255-byte name: worked and was undone");
            }
            Err(Fail::Failed(why)) => eprintln!("{tool} of a 255-byte name: failed cleanly: {why}"),
            Err(other) => panic!("{tool}: {other:?}"),
        }
        assert_eq!(fx.h.snapshot(), before, "{tool} left the tree as it was");
    }
    let escapes = fx.escapes();
    assert!(escapes.is_empty(), "{escapes:?}");
}

#[test]
fn compacting_a_folder_that_holds_links_out_archives_the_links_not_their_targets() {
    let mut fx = Fx::new().climb();
    symlink(fx.out.join(SECRET_NAME), fx.h.root.join("proj/leak-abs")).unwrap();
    symlink(format!("../../../outside/{SECRET_NAME}"), fx.h.root.join("proj/src/leak-rel")).unwrap();
    symlink("../../../outside/vault", fx.h.root.join("proj/src/vault-link")).unwrap();
    fx.rebaseline();
    let done = fx.h.run("fs.compact", json!({ "path": fx.h.p("proj") })).unwrap();
    assert!(fx.h.exists("proj.tar.gz"));
    let escapes = fx.escapes();
    assert!(escapes.is_empty(), "{escapes:?}");
    fx.h.undo(done.seq).unwrap();
    let escapes = fx.escapes();
    assert!(escapes.is_empty(), "{escapes:?}");
}

#[test]
fn the_library_index_never_follows_a_link_out_of_the_root() {
    let mut fx = Fx::new().climb().index();
    let escapes = fx.escapes();
    assert!(escapes.is_empty(), "{escapes:?}");
    for word in ["xqzsentinel", "xqzvault"] {
        let done = fx.h.run("rag.search", json!({ "query": word })).unwrap();
        assert_eq!(done.output["results"], json!([]), "{word} exists only outside the root");
    }
    for word in ["secret", "vault", "5f1c", "outside"] {
        let done = fx.h.run("rag.search", json!({ "query": word })).unwrap();
        let leaks = fx.leaks_in(&done.output.to_string());
        assert!(leaks.is_empty(), "{word}: {leaks:?} in {}", done.output);
    }
}

// ---------------------------------------------------------------------------------------------
// Coverage and the figure.

/// Tools whose arguments hold no path, and where their paths come from instead.
const NO_PATH_ARGS: &[&str] = &["orbit.get_context", "db.upsert", "rebuild.index", "quarantine.purge"];

#[test]
fn every_path_argument_of_every_tool_is_in_the_suite() {
    let slots = slots();
    let tried_after_admission: BTreeSet<&str> =
        RACES.iter().chain(STALE).map(|(name, _)| name.split(':').next().unwrap_or_default()).collect();
    for spec in smart_tools::specs() {
        for arg in &spec.path_args {
            assert!(
                slots.iter().any(|s| s.tool == spec.name && s.arg == arg),
                "{} {arg} takes a path but no slot tries escapes through it",
                spec.name
            );
        }
        if !spec.artifact_paths.is_empty() {
            assert!(
                tried_after_admission.iter().any(|t| t.contains(spec.name.as_str())),
                "{} applies a proposal's paths but no swap case tries it",
                spec.name
            );
        }
        if spec.path_args.is_empty() && spec.artifact_paths.is_empty() {
            assert!(NO_PATH_ARGS.contains(&spec.name.as_str()), "{} is in no table", spec.name);
        }
    }
}

#[test]
fn escape_attempt_summary() {
    let fx = Fx::new();
    let patterns = patterns(&fx).len();
    let mut per_tool: BTreeMap<&str, usize> = BTreeMap::new();
    for s in slots() {
        *per_tool.entry(s.tool).or_default() += patterns;
    }
    for (tool, _) in not_paths(&fx) {
        *per_tool.entry(tool).or_default() += 1;
    }
    for (name, _) in RACES.iter().chain(STALE) {
        let tool = if name.starts_with("undo") { "undo" } else { name.split([':', ' ']).next().unwrap_or_default() };
        *per_tool.entry(tool).or_default() += 1;
    }
    let total: usize = per_tool.values().sum();
    // The figure quoted is only honest if every tool that takes a path got every pattern, and
    // both kinds of swap were tried.
    for spec in smart_tools::specs().iter().filter(|s| !s.path_args.is_empty()) {
        let n = per_tool.get(spec.name.as_str()).copied().unwrap_or(0);
        assert!(n >= patterns, "{} got {n} escape attempts, fewer than the {patterns} patterns", spec.name);
    }
    assert!(!RACES.is_empty() && !STALE.is_empty(), "the swap suites are empty");
    eprintln!("escape attempts per tool:");
    for (tool, n) in &per_tool {
        eprintln!("  {tool:28} {n}");
    }
    eprintln!(
        "{total} escape attempts ({patterns} patterns × {} path arguments, {} non-path arguments, {} swaps after admission, {} swaps before), 0 escapes",
        slots().len(),
        not_paths(&fx).len(),
        RACES.len(),
        STALE.len()
    );
}
