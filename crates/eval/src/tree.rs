//! The folder tree an eval run talks about, made fresh from a seed.
//!
//! An eval is only honest if the names it asks about are names the proposer has never seen in
//! its own prompt: a prompt once said "for example Pictures/cat.jpg", the eval tree held
//! `Pictures/cat.jpg`, and a model that answered `Pictures/cat.jpg` to everything looked right.
//! So the tree is drawn at random from pools of ordinary names (folders with and without
//! spaces, nested folders, files with spaces, underscores, dashes and a dozen extensions), a
//! different tree for every seed, and the harness refuses to run when any name of the tree
//! appears in the prompt ([`Tree::names_in`]).
//!
//! Cases name what they need by slot (`{D1}` a top-level folder, `{N1}` a nested file, `{T1}`
//! a nested text file with known words, …); [`Tree::bind`] picks, per case, which entries fill
//! them, so one run asks about many different names.

use std::collections::BTreeMap;
use std::path::Path;

/// A small, seeded, dependency-free generator (splitmix64): the same seed makes the same tree.
#[derive(Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() { None } else { items.get(self.below(items.len())) }
    }

    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

const TOP_DIRS: &[&str] = &[
    "Invoices",
    "Recipes",
    "Screenshots",
    "Taxes",
    "Podcasts",
    "Wallpapers",
    "Band Practice",
    "Garden Plans",
    "Receipts",
    "Lectures",
    "Contracts",
    "Sketches",
    "Travel",
    "Scans",
    "Letters",
    "Flyers",
    "Manuals",
    "Budgets",
    "Vacation Photos",
    "School",
    "Clients",
    "Homework",
    "Payslips",
    "Mixtapes",
    "Blueprints",
    "Pictures",
    "Music",
    "Videos",
    "Projects",
    "Work",
    "Photos",
    "Downloads",
];

const SUB_DIRS: &[&str] = &[
    "2019",
    "2021",
    "2022",
    "finished",
    "raw",
    "edited",
    "spring",
    "summer",
    "misc",
    "kids",
    "paperwork",
    "old",
    "holiday",
    "scanned",
];

const STEMS: &[&str] = &[
    "packing list",
    "shopping_list",
    "resume",
    "meeting notes",
    "todo",
    "invoice-0412",
    "cover letter",
    "roadmap",
    "minutes",
    "checklist",
    "inventory",
    "lease agreement",
    "itinerary",
    "syllabus",
    "summary",
    "changelog",
    "wishlist",
    "playlist",
    "ideas",
    "journal",
    "estimate",
    "timetable",
    "warranty",
    "contacts",
    "guest_list",
    "tax-return",
    "receipt",
    "floor plan",
    "portfolio",
    "transcript",
    "newsletter",
    "agenda",
    "diary",
    "quote",
    "statement",
    "recipe_card",
    "chores",
    "reading list",
    "birthday",
    "schedule",
    "manual",
];

const BINARY_EXTS: &[&str] = &["pdf", "docx", "xlsx", "jpg", "png", "mp3", "csv", "json", "zip"];
const TEXT_EXTS: &[&str] = &["txt", "md"];

/// Words that make a text file findable: each text file gets its own.
const TOPICS: &[&str] = &[
    "kayak",
    "sourdough",
    "mortgage",
    "photosynthesis",
    "volcano",
    "saxophone",
    "orchid",
    "lighthouse",
    "marathon",
    "compost",
    "telescope",
    "origami",
    "beekeeping",
    "glacier",
    "harpsichord",
    "mosaic",
    "pottery",
    "falconry",
];

/// Words a patch can find exactly once, and what it can put in their place.
const FIND_WORDS: &[&str] =
    &["tuesday", "seventeen", "purple", "octopus", "granite", "velvet", "walnut", "copper", "maple", "cobalt"];
const REPLACE_WORDS: &[&str] = &["thursday", "nineteen", "orange", "squid", "marble", "linen", "cedar", "bronze"];

/// Free words for notes and codes ("remember that the wifi password is …").
const FREE_WORDS: &[&str] = &["pancake7", "bluebird", "tangerine", "zebra42", "moonlight", "quokka", "nimbus9"];

/// Names for files that do not exist yet (rename targets).
const NEW_STEMS: &[&str] = &["scratch", "keepsake", "backup_copy", "final version", "old-notes", "spare"];

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Dir,
    File,
}

#[derive(Clone, Debug)]
pub struct Entry {
    /// Relative to the root, with `/`.
    pub path: String,
    pub kind: Kind,
    /// A text file's words (topic, find word), for slots that need them.
    pub topic: Option<String>,
    pub find: Option<String>,
}

impl Entry {
    pub fn name(&self) -> &str {
        self.path.rsplit('/').next().unwrap_or(&self.path)
    }

    pub fn depth(&self) -> usize {
        self.path.matches('/').count()
    }

    fn is_text(&self) -> bool {
        self.kind == Kind::File && self.topic.is_some()
    }
}

pub struct Tree {
    pub entries: Vec<Entry>,
    /// The contents of every file, by path.
    pub files: BTreeMap<String, Vec<u8>>,
}

impl Tree {
    /// A new tree: about six top-level folders (three with a subfolder), a handful of loose
    /// files, duplicates, older versions, and text files with words to find.
    pub fn generate(seed: u64) -> Tree {
        let mut rng = Rng::new(seed);
        let mut tops: Vec<&str> = TOP_DIRS.to_vec();
        rng.shuffle(&mut tops);
        let tops = &tops[..6];
        let mut subs: Vec<&str> = SUB_DIRS.to_vec();
        rng.shuffle(&mut subs);
        let mut stems: Vec<&str> = STEMS.to_vec();
        rng.shuffle(&mut stems);
        let mut stems = stems.into_iter();
        let mut topics: Vec<&str> = TOPICS.to_vec();
        rng.shuffle(&mut topics);
        let mut topics = topics.into_iter();
        let mut finds: Vec<&str> = FIND_WORDS.to_vec();
        rng.shuffle(&mut finds);
        let mut finds = finds.into_iter();

        let mut tree = Tree { entries: vec![], files: BTreeMap::new() };
        let mut folders: Vec<String> = vec![];
        for (i, top) in tops.iter().enumerate() {
            tree.dir(top);
            folders.push(top.to_string());
            if i < 3 {
                let sub = format!("{top}/{}", subs[i]);
                tree.dir(&sub);
                folders.push(sub);
            }
        }
        // Files: every stem is used once in the whole tree, so a name said alone is unambiguous.
        let mut place = |tree: &mut Tree, folder: &str, text: bool, rng: &mut Rng| {
            let Some(stem) = stems.next() else { return };
            let ext = if text { rng.pick(TEXT_EXTS) } else { rng.pick(BINARY_EXTS) }.copied().unwrap_or("txt");
            let path = if folder.is_empty() { format!("{stem}.{ext}") } else { format!("{folder}/{stem}.{ext}") };
            if text {
                let topic = topics.next().unwrap_or("lantern");
                let find = finds.next().unwrap_or("amber");
                let body = format!(
                    "Notes on {topic}.\nWe talked about the {topic} plan on a {find} afternoon.\nNothing else to add.\n"
                );
                tree.file(&path, body.into_bytes(), Some(topic), Some(find));
            } else {
                let body = format!("{ext} file {stem} {}", rng.next()).into_bytes();
                tree.file(&path, body, None, None);
            }
        };
        for _ in 0..5 {
            place(&mut tree, "", false, &mut rng);
        }
        for _ in 0..2 {
            place(&mut tree, "", true, &mut rng);
        }
        for folder in &folders {
            let n = 2 + rng.below(2);
            for _ in 0..n {
                place(&mut tree, folder, false, &mut rng);
            }
            if folder.contains('/') || rng.below(2) == 0 {
                place(&mut tree, folder, true, &mut rng);
            }
        }
        // Duplicates and older versions, for the tools that look for them.
        let originals: Vec<(String, Vec<u8>)> =
            tree.files.iter().filter(|(p, _)| p.contains('/')).map(|(p, b)| (p.clone(), b.clone())).take(4).collect();
        for (path, body) in originals.iter().take(2) {
            let (stem, ext) = path.rsplit_once('.').unwrap_or((path, "bin"));
            tree.file(&format!("{stem} (1).{ext}"), body.clone(), None, None);
        }
        if let Some(folder) = folders.get(1) {
            tree.file(&format!("{folder}/proposal_v1.docx"), b"PK proposal first draft".to_vec(), None, None);
            tree.file(&format!("{folder}/proposal_v2.docx"), b"PK proposal second draft".to_vec(), None, None);
        }
        tree.entries.sort_by(|a, b| a.path.cmp(&b.path));
        tree
    }

    fn dir(&mut self, path: &str) {
        self.entries.push(Entry { path: path.into(), kind: Kind::Dir, topic: None, find: None });
    }

    fn file(&mut self, path: &str, body: Vec<u8>, topic: Option<&str>, find: Option<&str>) {
        self.entries.push(Entry {
            path: path.into(),
            kind: Kind::File,
            topic: topic.map(str::to_string),
            find: find.map(str::to_string),
        });
        self.files.insert(path.into(), body);
    }

    /// Writes the tree under `root`.
    pub fn write(&self, root: &Path) -> std::io::Result<()> {
        for e in self.entries.iter().filter(|e| e.kind == Kind::Dir) {
            std::fs::create_dir_all(root.join(&e.path))?;
        }
        for (path, body) in &self.files {
            let p = root.join(path);
            if let Some(parent) = p.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(p, body)?;
        }
        Ok(())
    }

    /// Every name of the tree (each path component, and each file's stem) that occurs in `text`
    /// as a word, ignoring case. The harness refuses to evaluate on a tree that shares a name
    /// with the proposer's prompt.
    pub fn names_in(&self, text: &str) -> Vec<String> {
        let lower = text.to_lowercase();
        let mut found = std::collections::BTreeSet::new();
        for e in &self.entries {
            for part in e.path.split('/') {
                let stem = part.rsplit_once('.').map_or(part, |(s, _)| s);
                for name in [part, stem] {
                    // Years and two-letter names are words any prompt may contain.
                    if name.len() < 4 || name.chars().all(|c| c.is_ascii_digit()) {
                        continue;
                    }
                    if contains_word(&lower, &name.to_lowercase()) {
                        found.insert(name.to_string());
                    }
                }
            }
        }
        found.into_iter().collect()
    }

    /// Chooses, for one case, the entries and words its slots name.
    pub fn bind(&self, rng: &mut Rng, extra: &BTreeMap<String, String>) -> Binding {
        let dirs: Vec<&Entry> = self.entries.iter().filter(|e| e.kind == Kind::Dir && e.depth() == 0).collect();
        let subs: Vec<&Entry> = self.entries.iter().filter(|e| e.kind == Kind::Dir && e.depth() == 1).collect();
        let plain = |e: &&Entry| !e.name().contains(' ') && !e.name().contains(" (1)");
        let root_files: Vec<&Entry> = self
            .entries
            .iter()
            .filter(|e| e.kind == Kind::File && e.depth() == 0 && !e.is_text() && plain(e))
            .collect();
        let nested: Vec<&Entry> =
            self.entries.iter().filter(|e| e.kind == Kind::File && e.depth() >= 1 && plain(e)).collect();
        let spaced: Vec<&Entry> =
            self.entries.iter().filter(|e| e.kind == Kind::File && e.name().contains(' ')).collect();
        let texts_nested: Vec<&Entry> = self.entries.iter().filter(|e| e.is_text() && e.depth() >= 1).collect();
        let texts_root: Vec<&Entry> = self.entries.iter().filter(|e| e.is_text() && e.depth() == 0).collect();

        let mut b = Binding::default();
        let two = |rng: &mut Rng, from: &[&Entry]| -> (Option<String>, Option<String>) {
            let mut v: Vec<&Entry> = from.to_vec();
            rng.shuffle(&mut v);
            (v.first().map(|e| e.path.clone()), v.get(1).map(|e| e.path.clone()))
        };
        let (d1, d2) = two(rng, &dirs);
        let (f1, f2) = two(rng, &root_files);
        b.paths.extend([("D1", d1), ("D2", d2), ("F1", f1), ("F2", f2)].map(|(k, v)| (k.to_string(), v)));
        b.paths.insert("S1".into(), rng.pick(&subs).map(|e| e.path.clone()));
        b.paths.insert("N1".into(), rng.pick(&nested).map(|e| e.path.clone()));
        b.paths.insert("P1".into(), rng.pick(&spaced).map(|e| e.path.clone()));
        let t1 = rng.pick(&texts_nested).copied();
        b.paths.insert("T1".into(), t1.map(|e| e.path.clone()));
        b.paths.insert("T2".into(), rng.pick(&texts_root).map(|e| e.path.clone()));
        b.paths.insert("ROOT".into(), Some(String::new()));
        let taken: Vec<&str> = self.entries.iter().map(|e| e.name()).collect();
        let new_stem = NEW_STEMS.iter().copied().find(|s| !taken.iter().any(|t| t.starts_with(s))).unwrap_or("spare");
        let ext = rng.pick(&["txt", "pdf", "md"]).copied().unwrap_or("txt");
        b.paths.insert("NEW".into(), Some(format!("{new_stem}.{ext}")));
        let gone_dir = rng.pick(&dirs).map(|e| e.path.clone()).unwrap_or_default();
        b.paths.insert("GONE".into(), Some(format!("{gone_dir}/{new_stem} 2019.pdf")));

        b.words.insert("TOPIC".into(), t1.and_then(|e| e.topic.clone()).unwrap_or_default());
        b.words.insert("FIND".into(), t1.and_then(|e| e.find.clone()).unwrap_or_default());
        b.words.insert("REPL".into(), rng.pick(REPLACE_WORDS).map(|w| w.to_string()).unwrap_or_default());
        b.words.insert("WORD".into(), rng.pick(FREE_WORDS).map(|w| w.to_string()).unwrap_or_default());
        for (k, v) in extra {
            b.words.insert(k.clone(), v.clone());
        }
        b
    }
}

fn contains_word(haystack: &str, word: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    haystack.match_indices(word).any(|(i, _)| {
        let before = haystack[..i].chars().next_back();
        let after = haystack[i + word.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

/// What one case's slots stand for: paths relative to the root, and plain words.
#[derive(Clone, Debug, Default)]
pub struct Binding {
    pub paths: BTreeMap<String, Option<String>>,
    pub words: BTreeMap<String, String>,
}

/// How a name is said or typed, for `{X.form}`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Form {
    /// As written: `Taxes/2021`, `budget.xlsx`.
    Path,
    Name,
    Parent,
    Stem,
    Lower,
    /// "taxes slash 2021", "budget dot xlsx", "shopping list dot md".
    Spoken,
    /// As [`Form::Spoken`] with the extension spelled out: "notes dot t x t".
    Letters,
}

impl Form {
    pub fn parse(s: &str) -> Option<Form> {
        Some(match s {
            "" => Form::Path,
            "name" => Form::Name,
            "parent" => Form::Parent,
            "stem" => Form::Stem,
            "lower" => Form::Lower,
            "spoken" => Form::Spoken,
            "letters" => Form::Letters,
            _ => return None,
        })
    }
}

/// `path` said or typed in `form`.
pub fn render(path: &str, form: Form) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    match form {
        Form::Path => path.to_string(),
        Form::Name => name.to_string(),
        // The whole folder it is in: "Lectures/summer" for a file two folders down (the last
        // part alone, "summer", named a folder at the top that is not there).
        Form::Parent => path.rsplit_once('/').map_or("", |(parent, _)| parent).to_string(),
        Form::Stem => name.rsplit_once('.').map_or(name, |(s, _)| s).to_string(),
        Form::Lower => path.to_lowercase(),
        Form::Spoken | Form::Letters => path
            .split('/')
            .map(|part| spoken_name(part, form == Form::Letters))
            .collect::<Vec<_>>()
            .join(" slash ")
            .to_lowercase(),
    }
}

/// "shopping_list.md" → "shopping list dot md" (or "… dot m d").
pub fn spoken_name(name: &str, letters: bool) -> String {
    let (stem, ext) = match name.rsplit_once('.') {
        Some((s, e)) if !s.is_empty() => (s, Some(e)),
        _ => (name, None),
    };
    let stem = stem.replace(['_', '-'], " ");
    match ext {
        None => stem,
        Some(e) if letters => {
            format!("{stem} dot {}", e.chars().map(|c| c.to_string()).collect::<Vec<_>>().join(" "))
        }
        Some(e) => format!("{stem} dot {e}"),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    #[test]
    fn no_tree_shares_a_name_with_any_prompt() {
        // What each run checks before it scores (and refuses to go on when it fails), over many
        // seeds at once: a pool name that a prompt also says would stop some future run.
        let previews = smart_runtime::assistant::prompt_previews(&smart_tools::specs());
        for seed in 0..300 {
            let t = Tree::generate(seed);
            for p in &previews {
                let shared = t.names_in(p);
                assert!(shared.is_empty(), "seed {seed}: {shared:?} is in a prompt");
            }
        }
    }

    #[test]
    fn a_seed_makes_one_tree_and_another_seed_another() {
        let a = Tree::generate(1);
        let b = Tree::generate(1);
        let c = Tree::generate(2);
        let paths = |t: &Tree| t.entries.iter().map(|e| e.path.clone()).collect::<Vec<_>>();
        assert_eq!(paths(&a), paths(&b));
        assert_ne!(paths(&a), paths(&c));
    }

    #[test]
    fn every_slot_is_filled_from_the_tree() {
        for seed in 0..50 {
            let t = Tree::generate(seed);
            let b = t.bind(&mut Rng::new(seed), &BTreeMap::new());
            for (slot, p) in &b.paths {
                let p = p.as_ref().unwrap_or_else(|| panic!("seed {seed}: {slot} unfilled"));
                if !matches!(slot.as_str(), "NEW" | "GONE" | "ROOT") {
                    assert!(t.entries.iter().any(|e| &e.path == p), "seed {seed}: {slot}={p}");
                } else if slot != "ROOT" {
                    assert!(!t.entries.iter().any(|e| &e.path == p), "seed {seed}: {slot}={p} exists");
                }
            }
            for w in ["TOPIC", "FIND", "REPL", "WORD"] {
                assert!(!b.words[w].is_empty(), "seed {seed}: {w}");
            }
            // The find word occurs exactly once in its file, so a patch can name it.
            let t1 = b.paths["T1"].clone().unwrap();
            let body = String::from_utf8(t.files[&t1].clone()).unwrap();
            assert_eq!(body.matches(b.words["FIND"].as_str()).count(), 1, "{body}");
        }
    }

    #[test]
    fn names_are_said_the_way_people_say_them() {
        assert_eq!(render("Taxes/2021", Form::Spoken), "taxes slash 2021");
        assert_eq!(render("shopping_list.md", Form::Spoken), "shopping list dot md");
        assert_eq!(render("notes.txt", Form::Letters), "notes dot t x t");
        assert_eq!(render("Band Practice/set list.pdf", Form::Name), "set list.pdf");
        assert_eq!(render("Band Practice/set list.pdf", Form::Parent), "Band Practice");
        assert_eq!(render("Lectures/summer/packing list.xlsx", Form::Parent), "Lectures/summer");
        assert_eq!(render("budget.xlsx", Form::Stem), "budget");
    }

    #[test]
    fn a_name_in_the_prompt_is_found_as_a_word_only() {
        let t = Tree::generate(3);
        let some = t.entries.iter().find(|e| e.kind == Kind::Dir).unwrap().path.clone();
        assert_eq!(t.names_in(&format!("for example {some}/x")), vec![some.clone()]);
        assert!(t.names_in("nothing here").is_empty());
        assert!(!contains_word("subudgets", "budget"));
    }
}
