//! The closed vocabulary of names: the files and folders that exist where SMART may work.
//!
//! A small model asked to *write* a path copies whatever is nearest — the prompt's example, a
//! description, a capitalisation it guessed ("Notes.txt" for notes.txt, "archive_folder" for
//! archive). But the names that can be meant are known: they are the entries under the allowed
//! folders. So a path argument is *chosen* from this vocabulary (or, for a destination, built
//! from an existing folder and a new name), never generated.
//!
//! Each entry is findable by the ways people say it: its path, its name, its name without the
//! extension, singular or plural, with spaces for underscores and dashes, ignoring case. The
//! [`key`] function is that equivalence; [`Vocabulary::lookup`] answers "which entries could
//! these words be, and how surely".

use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum EntryKind {
    Dir,
    File,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The absolute path, `/`-separated on every system (`C:/Users/ana/notes.txt` on Windows).
    pub abs: String,
    /// Relative to the root it is under, `/`-separated; empty for a root itself.
    pub rel: String,
    pub kind: EntryKind,
}

impl Entry {
    pub fn name(&self) -> &str {
        let p = if self.rel.is_empty() { &self.abs } else { &self.rel };
        p.trim_end_matches('/').rsplit('/').next().unwrap_or(p)
    }

    /// The folder it is in, relative (empty at the top of a root).
    pub fn parent_rel(&self) -> &str {
        self.rel.rsplit_once('/').map_or("", |(p, _)| p)
    }
}

/// How a piece of an utterance matched an entry, best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Match {
    /// The whole relative (or absolute) path.
    Path,
    /// The end of the path ("2021/soup.md" for Recipes/2021/soup.md).
    PathEnd,
    /// The name, extension included.
    Name,
    /// Singular for plural or the other way ("the download folder").
    Plural,
    /// A file's name without its extension ("hash budget").
    Stem,
    /// The word said just before "folder" begins exactly one folder's name: the first word of
    /// it ("the vacation folder" for Vacation Photos) or most of a one-word name ("my invoicing
    /// folder" for Invoices). Only asked for by [`Vocabulary::folder_begun_by`].
    Begun,
}

impl Match {
    /// How sure a match of this kind is, 0..1.
    pub fn weight(self) -> f32 {
        match self {
            Match::Path => 1.0,
            Match::PathEnd => 0.97,
            Match::Name => 0.95,
            Match::Plural => 0.85,
            Match::Stem => 0.8,
            Match::Begun => 0.7,
        }
    }
}

/// The matching form of a name: lower case, underscores and dashes as spaces, one space between
/// words, no slash at the end (a folder as a shell completes it: "mv contacts.docx Garden
/// Plans/" had no destination). "Band_Practice" and "band practice/" are the same key;
/// "soup.md" keeps its dot.
pub fn key(s: &str) -> String {
    let lowered = s.trim_end_matches(['/', '\\']).to_lowercase().replace(['_', '-'], " ");
    lowered.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Everything the names in one place can be called.
#[derive(Clone, Debug, Default)]
pub struct Vocabulary {
    pub entries: Vec<Entry>,
    /// key → (entry index, how).
    index: BTreeMap<String, Vec<(usize, Match)>>,
}

impl Vocabulary {
    pub fn new(entries: Vec<Entry>) -> Vocabulary {
        let mut v = Vocabulary { entries, index: BTreeMap::new() };
        for i in 0..v.entries.len() {
            let e = v.entries[i].clone();
            if !e.rel.is_empty() {
                v.add(key(&e.rel), i, Match::Path);
            }
            v.add(key(e.abs.trim_end_matches('/')), i, Match::Path);
            let name = key(e.name());
            v.add(name.clone(), i, Match::Name);
            let stem = match name.rsplit_once('.') {
                Some((s, ext)) if e.kind == EntryKind::File && !s.is_empty() && !ext.contains(' ') => {
                    Some(s.to_string())
                }
                _ => None,
            };
            for base in [Some(name.clone()), stem.clone()].into_iter().flatten() {
                // Plurals only for words: "reports" ↔ "report", never "2021s".
                if base.chars().last().is_some_and(char::is_alphabetic) {
                    let other = match base.strip_suffix('s') {
                        Some(single) if single.len() >= 3 => single.to_string(),
                        _ => format!("{base}s"),
                    };
                    v.add(other, i, Match::Plural);
                }
            }
            if let Some(s) = stem {
                v.add(s, i, Match::Stem);
            }
        }
        v
    }

    fn add(&mut self, k: String, i: usize, how: Match) {
        if k.is_empty() {
            return;
        }
        let slot = self.index.entry(k).or_default();
        match slot.iter_mut().find(|(j, _)| *j == i) {
            Some(existing) => existing.1 = existing.1.min(how),
            None => slot.push((i, how)),
        }
    }

    /// The entries `words` could name, each with how it matched (best match per entry).
    pub fn lookup(&self, words: &str) -> Vec<(usize, Match)> {
        let k = key(words);
        let mut found: Vec<(usize, Match)> = self.index.get(&k).cloned().unwrap_or_default();
        // "2021/soup.md": the end of a longer path.
        if k.contains('/') {
            let tail = format!("/{}", k.trim_start_matches('/'));
            for (i, e) in self.entries.iter().enumerate() {
                if key(&e.abs).ends_with(&tail) && !found.iter().any(|(j, _)| *j == i) {
                    found.push((i, Match::PathEnd));
                }
            }
        }
        found.sort_by_key(|(i, how)| (*how, *i));
        found
    }

    /// The one folder whose name `word` begins, when `word` was said as "the `word` folder":
    /// people shorten a folder's name to its first word ("the vacation folder" for Vacation
    /// Photos), and a recogniser bends a one-word name's ending ("invoicing" for Invoices). So
    /// a folder matches when `word` is the first of its name's several words, or when the two
    /// share their first five letters or more, three quarters of the name at least, and `word`
    /// is not much longer. `None` when no folder or more than one matches — a guess between two
    /// folders is no answer.
    pub fn folder_begun_by(&self, word: &str) -> Option<usize> {
        let word = key(word);
        if word.chars().count() < 4 || word.contains(' ') {
            return None;
        }
        let mut found =
            self.entries.iter().enumerate().filter(|(_, e)| e.kind == EntryKind::Dir && !e.rel.is_empty()).filter(
                |(_, e)| {
                    let name = key(e.name());
                    match name.split_once(' ') {
                        Some((first, _)) => first == word,
                        None => {
                            let shared = name.chars().zip(word.chars()).take_while(|(a, b)| a == b).count();
                            let (n, w) = (name.chars().count(), word.chars().count());
                            name != word && shared >= 5 && shared * 4 >= n * 3 && w <= n + 3
                        }
                    }
                },
            );
        match (found.next(), found.next()) {
            (Some((i, _)), None) => Some(i),
            _ => None,
        }
    }

    /// The entries directly inside `dir` (an entry index).
    pub fn children(&self, dir: usize) -> impl Iterator<Item = usize> + '_ {
        let parent = self.entries.get(dir).map(|d| d.abs.trim_end_matches('/').to_string()).unwrap_or_default();
        self.entries.iter().enumerate().filter_map(move |(i, e)| {
            let p = e.abs.rsplit_once('/').map(|(p, _)| p);
            (p == Some(parent.as_str())).then_some(i)
        })
    }

    /// Whether entry `i` lies somewhere under entry `dir`.
    pub fn is_under(&self, i: usize, dir: usize) -> bool {
        match (self.entries.get(i), self.entries.get(dir)) {
            (Some(e), Some(d)) => e.abs.starts_with(&format!("{}/", d.abs.trim_end_matches('/'))),
            _ => false,
        }
    }
}

/// A vocabulary of `(relative path, kind)` under the root `/r`, for the understanding tests.
#[cfg(test)]
pub(crate) fn under_r(entries: &[(&str, EntryKind)]) -> Vocabulary {
    Vocabulary::new(
        entries.iter().map(|(rel, kind)| Entry { abs: format!("/r/{rel}"), rel: (*rel).into(), kind: *kind }).collect(),
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    pub fn vocab() -> Vocabulary {
        let e = |rel, kind| (rel, kind);
        under_r(&[
            e("Band Practice", EntryKind::Dir),
            e("Recipes", EntryKind::Dir),
            e("Recipes/2021", EntryKind::Dir),
            e("Recipes/2021/soup.md", EntryKind::File),
            e("shopping_list.md", EntryKind::File),
            e("budget.xlsx", EntryKind::File),
            e("Downloads", EntryKind::Dir),
        ])
    }

    fn names(v: &Vocabulary, words: &str) -> Vec<(String, Match)> {
        v.lookup(words).into_iter().map(|(i, m)| (v.entries[i].rel.clone(), m)).collect()
    }

    #[test]
    fn an_entry_is_found_the_ways_people_name_it() {
        let v = vocab();
        // At the top of a root a name is its whole relative path.
        assert_eq!(names(&v, "band practice"), [("Band Practice".to_string(), Match::Path)]);
        assert_eq!(names(&v, "shopping list.md"), [("shopping_list.md".to_string(), Match::Path)]);
        assert_eq!(names(&v, "soup.md"), [("Recipes/2021/soup.md".to_string(), Match::Name)]);
        assert_eq!(names(&v, "shopping list"), [("shopping_list.md".to_string(), Match::Stem)]);
        assert_eq!(names(&v, "budget"), [("budget.xlsx".to_string(), Match::Stem)]);
        assert_eq!(names(&v, "download"), [("Downloads".to_string(), Match::Plural)]);
        assert_eq!(names(&v, "recipes/2021"), [("Recipes/2021".to_string(), Match::Path)]);
        assert_eq!(names(&v, "2021/soup.md"), [("Recipes/2021/soup.md".to_string(), Match::PathEnd)]);
        assert_eq!(names(&v, "/r/budget.xlsx"), [("budget.xlsx".to_string(), Match::Path)]);
        assert!(names(&v, "soups.md").is_empty(), "no plural across an extension");
        assert!(names(&v, "2021s").is_empty());
    }

    #[test]
    fn a_word_before_folder_names_the_one_folder_it_begins() {
        let v = under_r(&[
            ("Vacation Photos", EntryKind::Dir),
            ("Invoices", EntryKind::Dir),
            ("Band Practice", EntryKind::Dir),
            ("Band Notes", EntryKind::Dir),
            ("Recipes", EntryKind::Dir),
            ("vacation.md", EntryKind::File),
        ]);
        let rel = |w: &str| v.folder_begun_by(w).map(|i| v.entries[i].rel.clone());
        // What broke: whisper heard "vacation photos" as "vacation folder".
        assert_eq!(rel("vacation").as_deref(), Some("Vacation Photos"));
        assert_eq!(rel("Invoicing").as_deref(), Some("Invoices"));
        // Two folders begin with "band": no guess.
        assert_eq!(rel("band"), None);
        // Too little of the name, or the name itself (that is a plain match, not this one).
        assert_eq!(rel("invo"), None);
        assert_eq!(rel("recital"), None, "four letters shared");
        assert_eq!(rel("invoicingstuff"), None, "much longer than the name");
        assert_eq!(rel("invoke"), None);
        assert_eq!(rel("invoices"), None);
        assert_eq!(rel("photos"), None, "a later word does not begin the name");
    }

    #[test]
    fn children_and_ancestry_follow_the_paths() {
        let v = vocab();
        let recipes = v.entries.iter().position(|e| e.rel == "Recipes").unwrap();
        let kids: Vec<&str> = v.children(recipes).map(|i| v.entries[i].rel.as_str()).collect();
        assert_eq!(kids, ["Recipes/2021"]);
        let soup = v.entries.iter().position(|e| e.rel.ends_with("soup.md")).unwrap();
        assert!(v.is_under(soup, recipes));
        assert!(!v.is_under(recipes, soup));
    }
}
