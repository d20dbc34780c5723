//! Hearing the command language: whisper told, while it decodes, which words to expect.
//!
//! whisper is an open-vocabulary recogniser trained on everything people say, and a small one
//! guesses: "rebuild the index" comes back as "I'm revealed in the index", "archive the Payslips
//! folder into a tarball" as "Arch, I'm a base lip, folder into a tire mall". Correcting the
//! text afterwards ([`crate::heard_names`]) mends names, but cannot bring back a verb that was
//! never written. Yet what a person says to SMART is not open: it is the command words
//! ([`crate::command_words`]) and the names that exist under the allowed folders. This module
//! carries that knowledge into decoding itself, the way contextual biasing does in speech
//! recognisers (shallow fusion with a prefix tree of the expected phrases):
//!
//! - every expected phrase (a command word, a file or folder name as it is written and as it is
//!   said) is tokenized by the worker and put in a [`PhraseTrie`];
//! - at every decoding step, the tokens that *begin* an expected phrase get a small bonus
//!   ([`Boost::start`]) and the tokens that *continue* one the transcript has begun get a larger
//!   one ([`Boost::follow`]) — "Pay" then "sl" makes "ips" likelier when `Payslips` exists;
//! - nothing is forbidden: a bonus is a few logits, so what whisper clearly hears still wins,
//!   and a sentence with no command words in it is transcribed as before (open transcription is
//!   the fallback, always).
//!
//! Only the logits of the next token change; whisper's own search does the rest. The trie is
//! pure data over token ids, so it is tested here without whisper; the worker owns the
//! tokenizer and the hook into whisper.cpp.

use std::collections::BTreeMap;

/// How strongly expected phrases are preferred, in logits (natural-log odds).
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Boost {
    /// Added to a token that begins an expected phrase.
    pub start: f32,
    /// Added to a token that continues an expected phrase already begun.
    pub follow: f32,
}

impl Default for Boost {
    /// Measured on the spoken dev split (`smart-eval --spoken --every 3 --bias-start/
    /// --bias-follow`, whisper tiny.en, five voices/speeds/noise): right calls 43.5 % open
    /// (WER 49 %), 49.6 % at 1/2, 52.3 % at 2/2 (WER 40 %), 52.3 % at 3/2 (WER 37 %, but a
    /// sentence that needs no call started to be heard as one). Past a follow bonus of about 2
    /// a name begun by chance drags the words after it into the name.
    fn default() -> Boost {
        Boost { start: 2.0, follow: 2.0 }
    }
}

/// How a phrase may be begun (see [`PhraseTrie::insert`]).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Opening {
    /// Its first token gets the start bonus anywhere: only a whole word of three letters or
    /// more, else a phrase beginning with "a" or "the" would pull every sentence towards it.
    pub boosted: bool,
    /// Its second token gets the follow bonus when only the first token has been heard. Not
    /// when the first is a short everyday word that is no evidence of the phrase: with a file
    /// `todo.xlsx`, every "to" became "todo" ("move roadmap.png todo.yn voices" for "… to
    /// invoices" — what broke). An extension after it ("a" ".pdf") still follows.
    pub continued: bool,
}

/// The phrases to expect, as token ids: a prefix tree, so that one look at the last few tokens
/// finds every phrase they begin.
#[derive(Clone, Debug, Default)]
pub struct PhraseTrie {
    /// Node 0 is the root; each node maps a next token to its child.
    children: Vec<BTreeMap<i32, usize>>,
    /// Second-token nodes that some phrase lets follow its first token alone
    /// ([`Opening::continued`]).
    continued: std::collections::BTreeSet<usize>,
    /// Root children that may get the start bonus (a phrase whose first token is a function
    /// word or a lone letter would otherwise pull whisper towards "a" and "the" everywhere).
    starts: BTreeMap<i32, bool>,
    depth: usize,
}

impl PhraseTrie {
    pub fn new() -> PhraseTrie {
        PhraseTrie { children: vec![BTreeMap::new()], continued: Default::default(), starts: BTreeMap::new(), depth: 0 }
    }

    /// Adds one phrase, begun as `opening` says.
    pub fn insert(&mut self, tokens: &[i32], opening: Opening) {
        let Some(&first) = tokens.first() else { return };
        let entry = self.starts.entry(first).or_insert(false);
        *entry |= opening.boosted;
        let mut node = 0;
        for (depth, &t) in tokens.iter().enumerate() {
            let next = self.children.len();
            let child = match self.children.get_mut(node) {
                Some(map) => *map.entry(t).or_insert(next),
                None => return,
            };
            if child == next {
                self.children.push(BTreeMap::new());
            }
            if depth == 1 && opening.continued {
                self.continued.insert(child);
            }
            node = child;
        }
        self.depth = self.depth.max(tokens.len());
    }

    /// Phrases held (nodes other than the root).
    pub fn len(&self) -> usize {
        self.children.len().saturating_sub(1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The node reached from the root by `tokens`, if they are the start of a phrase.
    fn walk(&self, tokens: &[i32]) -> Option<usize> {
        let mut node = 0;
        for t in tokens {
            node = *self.children.get(node)?.get(t)?;
        }
        Some(node)
    }

    /// The bonus for each token after `history` (the tokens decoded so far): the start bonus for
    /// every phrase's first token, the follow bonus for the next token of every phrase that the
    /// end of `history` has begun. A token gets the largest bonus that applies, once.
    pub fn bonuses(&self, history: &[i32], boost: Boost) -> BTreeMap<i32, f32> {
        let mut out: BTreeMap<i32, f32> = BTreeMap::new();
        let mut give = |t: i32, b: f32| {
            let e = out.entry(t).or_insert(b);
            if b > *e {
                *e = b;
            }
        };
        if boost.start != 0.0 {
            for (&t, &ok) in &self.starts {
                if ok {
                    give(t, boost.start);
                }
            }
        }
        let longest = self.depth.saturating_sub(1).min(history.len());
        for len in 1..=longest {
            let Some(suffix) = history.get(history.len() - len..) else { continue };
            if let Some(node) = self.walk(suffix)
                && let Some(next) = self.children.get(node)
            {
                for (&t, child) in next {
                    if len > 1 || self.continued.contains(child) {
                        give(t, boost.follow);
                    }
                }
            }
        }
        out
    }

    /// Adds [`PhraseTrie::bonuses`] to `logits` (indexed by token id; ids outside it are
    /// skipped).
    pub fn apply(&self, history: &[i32], boost: Boost, logits: &mut [f32]) {
        for (t, b) in self.bonuses(history, boost) {
            if let Some(l) = usize::try_from(t).ok().and_then(|i| logits.get_mut(i)) {
                *l += b;
            }
        }
    }
}

/// A block of up to this many tokens repeated [`LOOP_REPEATS`] times back to back is a loop.
pub const MAX_LOOP_PERIOD: usize = 8;
pub const LOOP_REPEATS: usize = 3;

/// Whisper, like any small decoder, can fall into a loop and repeat a few tokens until its
/// budget runs out ("quarantine old.t.t.t.t.t.t.t", "Hash, note, not DXT. DXD. Hash, note…"):
/// when the decoded tokens end with a block said [`LOOP_REPEATS`] times, this is the token that
/// would start it once more, which the worker then rules out. A person does not say the same
/// words four times in one command; the fourth time is whisper's.
pub fn loop_continuation(history: &[i32]) -> Option<i32> {
    for period in 1..=MAX_LOOP_PERIOD {
        let span = period * LOOP_REPEATS;
        let Some(tail) = history.len().checked_sub(span).and_then(|from| history.get(from..)) else { break };
        if (period..span).all(|i| tail.get(i) == tail.get(i - period)) {
            return tail.get(span - period).copied();
        }
    }
    None
}

/// The ways whisper may write each expected phrase, each with a leading space (whisper's words
/// start with one): as given, lower case, and capitalised as a sentence's first word; a file
/// name also without its extension and with `_`/`-` as spaces ("guest_list.zip" is said
/// "guest list"). Duplicates are dropped, order is kept.
pub fn surface_forms<S: AsRef<str>>(phrases: &[S]) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    let mut add = |s: &str| {
        let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
        if s.is_empty() {
            return;
        }
        for form in [s.clone(), s.to_lowercase(), capitalised(&s)] {
            let form = format!(" {form}");
            if !out.contains(&form) {
                out.push(form);
            }
        }
    };
    for p in phrases {
        let p = p.as_ref().trim();
        add(p);
        let stem = match p.rsplit_once('.') {
            Some((stem, ext)) if !stem.is_empty() && (1..=5).contains(&ext.len()) => stem,
            _ => p,
        };
        add(stem);
        add(&stem.replace(['_', '-'], " "));
    }
    out
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trie() -> PhraseTrie {
        let mut t = PhraseTrie::new();
        t.insert(&[10, 11, 12], OPEN); // " Pay" "sl" "ips"
        t.insert(&[10, 13], OPEN); // " Pay" "ment"
        t.insert(&[20], OPEN); // " rebuild"
        t.insert(&[30, 31], Opening { boosted: false, continued: true }); // " a" ".pdf": not a start anywhere
        t.insert(&[40, 41], Opening { boosted: false, continued: false }); // " to" "do"
        t
    }

    const OPEN: Opening = Opening { boosted: true, continued: true };

    const B: Boost = Boost { start: 1.0, follow: 3.0 };

    #[test]
    fn phrase_starts_get_the_start_bonus_everywhere_but_not_function_word_starts() {
        let b = trie().bonuses(&[], B);
        assert_eq!(b.get(&10), Some(&1.0));
        assert_eq!(b.get(&20), Some(&1.0));
        assert_eq!(b.get(&30), None);
        assert_eq!(b.get(&11), None);
    }

    #[test]
    fn a_phrase_begun_makes_its_next_tokens_likelier() {
        let b = trie().bonuses(&[5, 6, 10], B);
        assert_eq!(b.get(&11), Some(&3.0));
        assert_eq!(b.get(&13), Some(&3.0));
        let b = trie().bonuses(&[10, 11], B);
        assert_eq!(b.get(&12), Some(&3.0));
        assert_eq!(b.get(&13), None, "'Pay sl' is not the start of 'Payment'");
        // A phrase whose first token gets no start bonus still continues once begun.
        assert_eq!(trie().bonuses(&[30], B).get(&31), Some(&3.0));
    }

    #[test]
    fn a_short_everyday_word_alone_does_not_begin_a_name() {
        // What broke: with `todo.xlsx` expected, "to" was continued into "todo".
        assert_eq!(trie().bonuses(&[5, 40], B).get(&41), None);
        let mut t = trie();
        t.insert(&[7, 40, 41], OPEN); // a longer phrase through the same tokens still follows
        assert_eq!(t.bonuses(&[7, 40], B).get(&41), Some(&3.0));
        assert_eq!(t.bonuses(&[5, 40], B).get(&41), None);
    }

    #[test]
    fn a_token_gets_the_largest_bonus_once() {
        let mut t = trie();
        t.insert(&[20, 10], OPEN); // "rebuild Pay…": 10 is both a start and a follow after 20
        let mut logits = vec![0.0f32; 40];
        t.apply(&[20], B, &mut logits);
        assert_eq!(logits[10], 3.0);
        assert_eq!(logits[20], 1.0);
        assert_eq!(logits[0], 0.0);
    }

    #[test]
    fn nothing_expected_changes_nothing() {
        let mut logits = vec![0.5f32; 8];
        PhraseTrie::new().apply(&[1, 2, 3], B, &mut logits);
        assert!(logits.iter().all(|&l| l == 0.5));
        assert!(PhraseTrie::new().is_empty());
        // Ids outside the logits are skipped, not a panic.
        let mut t = PhraseTrie::new();
        t.insert(&[1_000], OPEN);
        t.apply(&[], B, &mut logits);
        assert!(logits.iter().all(|&l| l == 0.5));
    }

    #[test]
    fn a_block_repeated_three_times_is_not_continued_a_fourth() {
        // What broke: whisper-base heard "quarantine old dot log" as "quarantine old.t.t.t.t…".
        let (t, dot) = (83, 13);
        assert_eq!(loop_continuation(&[5, 6, t, dot, t, dot, t, dot]), Some(t));
        assert_eq!(loop_continuation(&[9, 9, 9]), Some(9), "one token three times");
        assert_eq!(loop_continuation(&[1, 2, 3, 1, 2, 3, 1, 2, 3]), Some(1));
        // Twice is speech ("very very", "no no"); a block that only nearly repeats is too.
        assert_eq!(loop_continuation(&[5, t, dot, t, dot]), None);
        assert_eq!(loop_continuation(&[1, 2, 3, 1, 2, 4, 1, 2, 3]), None);
        assert_eq!(loop_continuation(&[]), None);
        assert_eq!(loop_continuation(&[4]), None);
    }

    #[test]
    fn names_are_expected_as_written_and_as_said() {
        let f = surface_forms(&["guest_list.zip", "Payslips", "rebuild"]);
        for want in
            [" guest_list.zip", " guest_list", " guest list", " Guest list", " Payslips", " payslips", " Rebuild"]
        {
            assert!(f.contains(&want.to_string()), "{want:?} in {f:?}");
        }
        assert_eq!(f.iter().filter(|s| *s == " rebuild").count(), 1);
        assert!(surface_forms(&["  "]).is_empty());
    }
}
