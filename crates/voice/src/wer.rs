//! Word error rate: how far a transcript is from what was said.
//!
//! The voice tests and the latency benchmark report it per model, so a model change that makes
//! transcripts worse shows as a number, not as a test that happens to still pass. Words are
//! compared after the same normalisation for both sides (lower case, punctuation dropped,
//! digits and their spelled forms treated alike for 0–20), since "2" versus "two" is not an
//! error a person would notice.

use crate::emergency::words;

const NUMBERS: [&str; 21] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
];

/// Words as compared: spelled numbers become digits, and a path like `docs/old.log` is split
/// where speech would pause ("docs slash old dot log" and "docs/old.log" compare equal).
pub fn normalise(text: &str) -> Vec<String> {
    let spaced = text.replace(['/', '.', '_', '-'], " ");
    words(&spaced)
        .into_iter()
        .filter(|w| !matches!(w.as_str(), "slash" | "dot" | "underscore" | "dash"))
        .map(|w| match NUMBERS.iter().position(|n| *n == w) {
            Some(i) => i.to_string(),
            None => w,
        })
        .collect()
}

/// (substitutions + deletions + insertions) / words in the reference. 0 for an empty reference
/// and an empty hypothesis; 1 per inserted word when only the reference is empty.
pub fn word_error_rate(reference: &str, hypothesis: &str) -> f64 {
    let r = normalise(reference);
    let h = normalise(hypothesis);
    let distance = edit_distance(&r, &h);
    if r.is_empty() {
        return h.len() as f64;
    }
    distance as f64 / r.len() as f64
}

fn edit_distance(a: &[String], b: &[String]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, x) in a.iter().enumerate() {
        let mut row = vec![i + 1; b.len() + 1];
        for (j, y) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(x != y);
            row[j + 1] = sub.min(prev[j + 1] + 1).min(row[j] + 1);
        }
        prev = row;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_transcripts_have_no_error_whatever_the_punctuation() {
        assert_eq!(word_error_rate("Quarantine docs/old.log.", "quarantine docs slash old dot log"), 0.0);
        assert_eq!(word_error_rate("move two files", "Move 2 files!"), 0.0);
    }

    #[test]
    fn substitutions_deletions_and_insertions_each_count_one() {
        assert_eq!(word_error_rate("scan the reports folder", "scan the report folder"), 0.25);
        assert_eq!(word_error_rate("scan the reports folder", "scan reports folder"), 0.25);
        assert_eq!(word_error_rate("scan the reports folder", "please scan the reports folder now"), 0.5);
        assert_eq!(word_error_rate("", ""), 0.0);
        assert_eq!(word_error_rate("", "you"), 1.0);
    }
}
