//! How a phrase sounds, roughly enough to tell what whisper misheard.
//!
//! whisper writes what it heard in English spelling, and a name it does not know comes out as
//! the English words nearest in sound: "notes dot t x t" becomes "note start DXD", "band
//! practice" becomes "ban practise". Comparing spellings cannot see that these are the same
//! sounds; comparing a coarse *sound code* can. The code here is a small Metaphone-like
//! reduction, built for the mistakes a speech recogniser makes rather than for surnames:
//!
//! - letters said one by one ("t x t", "DXD", "m.d.") are expanded to how their names sound
//!   ("tee ex tee"), so a spelled extension and whisper's guess at it compare;
//! - voiced and voiceless pairs are one sound (b/p, d/t, g/k, v/f, z/s), as are the hissing
//!   and hushing ones (sh, ch, j, soft g), because those are what a small model confuses;
//! - every run of vowels is one `A`, and a silent final e and an h are dropped, so "note" and
//!   "not", "practice" and "practise" code alike;
//! - word boundaries do not count: a phrase's code is its words' codes run together, since
//!   whisper splits and joins words freely ("note start" for "notes dot").
//!
//! [`distance`] is the edit distance between two codes, with a bound so that most pairs are
//! rejected after a few cells.

/// The sound code of a phrase: its words' codes run together, repeated sounds once.
pub fn code(phrase: &str) -> String {
    let mut out = String::new();
    for word in phrase.split(|c: char| c.is_whitespace() || matches!(c, '/' | '_' | '-' | ',')) {
        for piece in spoken_pieces(word) {
            for c in word_code(&piece).chars() {
                if !out.ends_with(c) {
                    out.push(c);
                }
            }
        }
    }
    out
}

/// A written word as the words that are said for it: "notes.txt" → notes, dot, tee ex tee;
/// "DXD" → dee ex dee; "(1)" → one; "2021" stays itself.
fn spoken_pieces(word: &str) -> Vec<String> {
    let w: String = word.chars().filter(|c| c.is_alphanumeric() || *c == '.' || *c == '\'').collect();
    let w = w.trim_matches(['.', '\'']);
    if w.is_empty() {
        return vec![];
    }
    // "m.d." and "d.x.d": letters with dots between them are letters said one by one.
    let parts: Vec<&str> = w.split('.').collect();
    if parts.len() > 1 && parts.iter().all(|p| p.chars().count() == 1) {
        return parts.iter().flat_map(|p| spelled(p)).collect();
    }
    if parts.len() > 1 {
        let mut out = vec![];
        for (i, p) in parts.iter().enumerate() {
            if i > 0 {
                out.push("dot".to_string());
            }
            out.extend(spoken_pieces(p));
        }
        return out;
    }
    // A digit alone is its word: a copy's "(1)" is said "one", and whisper writes it either way.
    if let [d] = w.as_bytes()
        && d.is_ascii_digit()
    {
        const DIGITS: [&str; 10] = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];
        return vec![DIGITS[usize::from(d - b'0')].to_string()];
    }
    if said_as_letters(w) { spelled(w) } else { vec![w.to_lowercase()] }
}

/// Short words with no vowel ("txt", "md", "PDF") and short capitals ("DXD", "MP") are said as
/// their letters; single letters always are.
fn said_as_letters(w: &str) -> bool {
    let n = w.chars().count();
    if w.chars().any(|c| c.is_ascii_digit()) || n > 4 {
        return false;
    }
    n == 1
        || !w.to_lowercase().chars().any(|c| matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'y'))
        || (n <= 3 && w.chars().all(|c| c.is_ascii_uppercase()))
}

fn spelled(w: &str) -> Vec<String> {
    w.to_lowercase()
        .chars()
        .map(|c| {
            match c {
                'a' => "ay",
                'b' => "bee",
                'c' => "see",
                'd' => "dee",
                'e' => "ee",
                'f' => "ef",
                'g' => "jee",
                'h' => "aych",
                'i' => "eye",
                'j' => "jay",
                'k' => "kay",
                'l' => "el",
                'm' => "em",
                'n' => "en",
                'o' => "oh",
                'p' => "pee",
                'q' => "cue",
                'r' => "ar",
                's' => "es",
                't' => "tee",
                'u' => "you",
                'v' => "vee",
                'w' => "double you",
                'x' => "ex",
                'y' => "why",
                'z' => "zee",
                other => return other.to_string(),
            }
            .to_string()
        })
        .collect()
}

fn is_vowel(c: char) -> bool {
    matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'y')
}

/// One spoken word's code (see the module essay for the rules).
fn word_code(word: &str) -> String {
    let s: Vec<char> = word.to_lowercase().chars().filter(|c| c.is_alphanumeric()).collect();
    let at = |i: usize| s.get(i).copied().unwrap_or(' ');
    let mut out = String::new();
    let push = |out: &mut String, c: char| {
        if !out.ends_with(c) {
            out.push(c);
        }
    };
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        let next = at(i + 1);
        match c {
            // A silent final e ("note", "file"), but not the only vowel ("the", "be").
            'e' if i + 1 == s.len() && i >= 2 && !is_vowel(at(i - 1)) && s[..i].iter().any(|&x| is_vowel(x)) => {}
            c if is_vowel(c) => push(&mut out, 'A'),
            'b' | 'p' if c == 'p' && next == 'h' => {
                push(&mut out, 'F');
                i += 1;
            }
            'b' | 'p' => push(&mut out, 'P'),
            // "-tch" is the ch alone ("scratch", "match").
            't' if next == 'c' && at(i + 2) == 'h' => {}
            't' if next == 'h' => {
                push(&mut out, 'T');
                i += 1;
            }
            // "-tion", "-tial": the t is a hush.
            't' if next == 'i' && matches!(at(i + 2), 'o' | 'a') => push(&mut out, 'X'),
            'd' | 't' => push(&mut out, 'T'),
            'c' if next == 'h' => {
                push(&mut out, 'X');
                i += 1;
            }
            'c' if matches!(next, 'e' | 'i' | 'y') => push(&mut out, 'S'),
            'c' if next == 'k' => {
                push(&mut out, 'K');
                i += 1;
            }
            'g' if next == 'h' => i += 1,
            'g' if matches!(next, 'e' | 'i' | 'y') => push(&mut out, 'X'),
            'c' | 'g' | 'k' | 'q' => push(&mut out, 'K'),
            'j' => push(&mut out, 'X'),
            's' if next == 'h' => {
                push(&mut out, 'X');
                i += 1;
            }
            's' | 'z' => push(&mut out, 'S'),
            'x' if i == 0 => push(&mut out, 'S'),
            'x' => {
                push(&mut out, 'K');
                push(&mut out, 'S');
            }
            'f' | 'v' => push(&mut out, 'F'),
            'w' if is_vowel(next) => push(&mut out, 'W'),
            'w' | 'h' => {}
            'l' => push(&mut out, 'L'),
            'r' => push(&mut out, 'R'),
            'm' => push(&mut out, 'M'),
            'n' => push(&mut out, 'N'),
            d if d.is_ascii_digit() => out.push(d),
            _ => {}
        }
        i += 1;
    }
    out
}

/// A vowel heard as a consonant is not a recogniser's slip but another word ("receipts",
/// "recipes"): that costs two, one sound for another one.
fn substitution(a: char, b: char) -> usize {
    match (a == b, a == 'A' || b == 'A') {
        (true, _) => 0,
        (false, true) => 2,
        (false, false) => 1,
    }
}

/// The edit distance between two codes if it is at most `bound`; `None` when it is more.
/// Inserting or dropping a sound costs one, swapping one for another one, a vowel for a
/// consonant two (see [`substitution`]), and swapping the very first sound one more.
pub fn distance(a: &str, b: &str, bound: usize) -> Option<usize> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > bound {
        return None;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        let mut best = cur[0];
        for (j, cb) in b.iter().enumerate() {
            // A different first sound is another word ("tomorrow", "summary"); a missing one
            // is a slip ("crash" for "scratch").
            let first = usize::from(i == 0 && j == 0 && ca != cb);
            let sub = prev[j] + substitution(*ca, *cb) + first;
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
            best = best.min(cur[j + 1]);
        }
        if best > bound {
            return None;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    let d = prev[b.len()];
    (d <= bound).then_some(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_whisper_mishears_codes_alike() {
        for (said, heard) in [
            ("practice", "practise"),
            ("notes dot txt", "notes dot t x t"),
            ("budget", "budgit"),
            ("Downloads", "down loads"),
            ("photos", "fotos"),
            ("soup.md", "soup dot m d"),
            ("receipts", "receipts"),
        ] {
            assert_eq!(code(said), code(heard), "{said} / {heard}");
        }
    }

    #[test]
    fn a_misheard_extension_is_one_or_two_sounds_away() {
        let d = |a: &str, b: &str| distance(&code(a), &code(b), 10).unwrap_or(99);
        assert!(d("notes.txt", "note start DXD") <= 2, "{} / {}", code("notes.txt"), code("note start DXD"));
        assert!(d("rebuild the search index", "reveal the search index") <= 2);
        assert!(d("band practice", "ban practise") <= 1);
    }

    #[test]
    fn different_words_stay_far_apart() {
        let d = |a: &str, b: &str| distance(&code(a), &code(b), 10).unwrap_or(99);
        assert!(d("report", "import") >= 2);
        assert!(d("receipts", "recipes") >= 2);
        assert!(d("scan", "hash") >= 3);
        assert!(d("tomorrow", "summary") >= 2);
        assert!(d("crash", "scratch") <= 1);
    }

    #[test]
    fn distance_is_bounded_and_exact_within_the_bound() {
        assert_eq!(distance("KAT", "KAT", 0), Some(0));
        assert_eq!(distance("KAT", "KAP", 1), Some(1));
        assert_eq!(distance("KAT", "KAP", 0), None);
        // The first sound swapped costs one more.
        assert_eq!(distance("KAT", "PAT", 1), None);
        assert_eq!(distance("KAT", "PAT", 2), Some(2));
        assert_eq!(distance("ABCDEF", "A", 2), None);
        assert_eq!(distance("", "AB", 2), Some(2));
        assert_eq!(distance("SATARTA", "STRT", 3), Some(3));
    }

    #[test]
    fn a_digit_alone_sounds_like_its_word() {
        // What broke: "guest list, one, not zip" was three sounds from `guest list (1).zip`,
        // whose "1" coded as itself, and was heard as `guest_list.zip`, the other file.
        assert_eq!(code("guest list (1).zip"), code("guest list one dot zip"));
        assert_eq!(code("guest list 1 dot zip"), code("guest list one dot zip"));
        assert_eq!(distance(&code("guest list, one, not zip"), &code("guest list (1).zip"), 2), Some(1));
        // A number of several digits is compared as written.
        assert_ne!(code("2019"), code("two zero one nine"));
    }

    #[test]
    fn odd_input_codes_to_something_or_nothing_without_panicking() {
        assert_eq!(code(""), "");
        assert_eq!(code("..."), "");
        assert_eq!(code("2021"), "2021");
        assert!(!code("Ünïcödé naïve").is_empty());
        assert_eq!(code("a"), code("ay"));
    }
}
