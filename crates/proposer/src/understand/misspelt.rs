//! Misspelt words: the few words understanding leans on, put right when a slip of the fingers
//! changed one of them.
//!
//! Every rule of understanding reads whole words: "document" points back at the file just
//! read, "library" with "still valid" asks for the index check, "permanently" with "delete"
//! asks for the purge, "replacing A with B" is an edit. A person who types fast or spells
//! with difficulty (a fiftieth author: "let me see what that docuemnt says", "is it still
//! valid in the libary", "permanantly delete batch …", "a patch replaceing copper with linen")
//! loses every one of those rules to one slipped letter, and the model alone ranks the
//! sentence — often wrongly.
//!
//! So a word that is one slip away from exactly one of [`WORDS`] is read as that word. A slip
//! is two neighbouring letters swapped, one letter left out or one put in, or — in a long
//! word — one vowel typed for another. It is deliberately narrow, because a real word must
//! never be "corrected" into another:
//!
//! - only lower-case words of four letters or more, as typed (a word with a capital, even one
//!   opening a sentence, may be a name: a folder may well be called "Libary"; typed in lower
//!   case, it is read as the word);
//! - the first letter and the last two are as the word has them, so an ending never changes
//!   ("deleted" stays "deleted", "replaces" never becomes "replaced", "older" never "folder");
//! - one word only: a slip that two of the words are as close to is left as typed;
//! - a word said as typed beside its right spelling is meant as typed ("replace libary with
//!   library in notes.txt" fixes a typo in the file), and so is a word inside quotes;
//! - the few real English words these rules would still change ("noting", "deplete") are
//!   listed, from a check of a 170,000-word English word list.
//!
//! A file's name is never touched: a token with a dot, a slash or a digit is no word here. A
//! folder's one-word name typed in lower case and one slip from a word below would be read as
//! that word; no such folder name is known to this reading (it runs before the folder tree is
//! looked at), and none has turned up.

/// The words understanding's rules lean on, each with the forms it is used in (a form of a word
/// in this list is never read as another form).
const WORDS: &[&str] = &[
    "actually",
    "anything",
    "anywhere",
    "apply",
    "archive",
    "archived",
    "assemble",
    "bundle",
    "change",
    "changed",
    "changes",
    "checksum",
    "combine",
    "compact",
    "compress",
    "compressed",
    "contain",
    "contains",
    "content",
    "contents",
    "context",
    "current",
    "delete",
    "deleted",
    "deleting",
    "document",
    "documents",
    "duplicate",
    "duplicates",
    "encoding",
    "everything",
    "execute",
    "fingerprint",
    "folder",
    "folders",
    "forever",
    "identical",
    "index",
    "inside",
    "instead",
    "library",
    "mention",
    "mentioning",
    "mentions",
    "nothing",
    "obsolete",
    "original",
    "originals",
    "outdated",
    "patch",
    "permanent",
    "permanently",
    "prepare",
    "proposal",
    "purge",
    "quarantine",
    "quarantined",
    "quarantining",
    "rebuild",
    "record",
    "redirect",
    "redirects",
    "regarding",
    "relocate",
    "remember",
    "remove",
    "rename",
    "renamed",
    "replace",
    "replaced",
    "replaces",
    "replacing",
    "replacement",
    "search",
    "searched",
    "searches",
    "searching",
    "situation",
    "something",
    "status",
    "superseded",
    "transfer",
    "validate",
    "version",
    "versions",
    "whatever",
    "without",
];

/// Real English words one slip away from one of [`WORDS`], found by putting every lower-case
/// word of a 170,000-word English word list (Debian's `wamerican-large`) through [`corrected`]:
/// each is meant as typed.
const REAL_WORDS: &[&str] =
    &["deplete", "depleted", "depleting", "northing", "notching", "noting", "reamed", "regrading", "stratus"];

/// The word from [`WORDS`] that `typed` is one slip away from, when exactly one is.
pub fn corrected(typed: &str) -> Option<&'static str> {
    if typed.len() < 4
        || !typed.bytes().all(|b| b.is_ascii_lowercase())
        || WORDS.contains(&typed)
        || REAL_WORDS.contains(&typed)
    {
        return None;
    }
    let mut close = WORDS.iter().filter(|word| one_slip(typed.as_bytes(), word.as_bytes()));
    match (close.next(), close.next()) {
        (Some(word), None) => Some(word),
        _ => None,
    }
}

/// Whether `typed` is `word` with one slip: two neighbouring letters swapped, one left out, one
/// put in, or (in a word of eight letters or more) one vowel typed for another ("permanantly",
/// "quarentine": how a word is spelt as it sounds; a consonant for another makes real words,
/// "contests", "replaying"); with the first letter and the last two as `word` has them.
fn one_slip(typed: &[u8], word: &[u8]) -> bool {
    if word.len() < 5 || typed.first() != word.first() || !typed.ends_with(&word[word.len() - 2..]) {
        return false;
    }
    let without = |longer: &[u8], shorter: &[u8]| {
        (0..longer.len()).any(|i| longer[..i] == shorter[..i] && longer[i + 1..] == shorter[i..])
    };
    if typed.len() + 1 == word.len() {
        return without(word, typed);
    }
    if typed.len() == word.len() + 1 {
        return without(typed, word);
    }
    if typed.len() != word.len() {
        return false;
    }
    let differ: Vec<usize> = (0..typed.len()).filter(|&i| typed[i] != word[i]).collect();
    match differ.as_slice() {
        [i, j] => *j == i + 1 && typed[*i] == word[*j] && typed[*j] == word[*i],
        [i] => word.len() >= 8 && vowel(typed[*i]) && vowel(word[*i]),
        _ => false,
    }
}

fn vowel(b: u8) -> bool {
    matches!(b, b'a' | b'e' | b'i' | b'o' | b'u')
}

#[cfg(test)]
mod tests {
    use super::corrected;

    #[test]
    fn a_slip_of_the_fingers_in_a_word_understanding_leans_on_is_put_right() {
        // What broke (a fiftieth author, who spells with difficulty): each of these lost the rule
        // its word carries.
        for (typed, meant) in [
            ("docuemnt", "document"),
            ("libary", "library"),
            ("permanantly", "permanently"),
            ("replaceing", "replacing"),
            ("serch", "search"),
            ("fodler", "folder"),
            ("evrything", "everything"),
            ("quarentine", "quarantine"),
            ("duplcates", "duplicates"),
            ("documant", "document"),
        ] {
            assert_eq!(corrected(typed), Some(meant), "{typed}");
        }
    }

    #[test]
    fn a_real_word_or_a_name_is_never_corrected() {
        for typed in [
            // Another ending of the same word, or a word of its own.
            "deletes",
            "replacer",
            "searcher",
            "older",
            "holder",
            "solder",
            "folded",
            "contest",
            "records",
            // Real words a slip away (a word list's), and a consonant for a consonant.
            "noting",
            "deplete",
            "regrading",
            "contests",
            "replaying",
            "starched",
            // Already right.
            "folder",
            "document",
            // A name, or no word.
            "Libary",
            "libary2",
            "notes.txt",
            "lib",
            // Two slips away.
            "quarenteen",
            "docmnt",
        ] {
            assert_eq!(corrected(typed), None, "{typed}");
        }
    }
}
