//! The passage shown with a hit, cut in one linear pass.
//!
//! FTS5's own `snippet()` scores every window of every phrase instance in a document, which is
//! fine for notes and ruinous for a 1 MB one-line log that mentions the query ten thousand
//! times (30 s for one search in a debug build). A hit needs one good passage, not the best
//! possible one: this walks the text once, word by word, stops at the first word that matches a
//! query word (case-insensitively), and returns the words around it with the match marked
//! `«…»` and `…` where the text was cut — the same shape `snippet()` gave. Where the text holds
//! no query word (the name or folders matched), it is the text's first words.

/// Words shown before the first match.
const BEFORE: usize = 4;
/// Words shown in all.
const WINDOW: usize = 12;

/// The passage of `text` around the first word in `words` (already lower-cased).
pub(crate) fn snippet(text: &str, words: &[String]) -> String {
    let spans = word_spans(text);
    let mut first = None;
    let mut seen = Vec::with_capacity(WINDOW + BEFORE);
    for (i, span) in spans.enumerate() {
        seen.push(span);
        if first.is_none() && words.iter().any(|w| text[span.0..span.1].to_lowercase() == *w) {
            first = Some(i);
        }
        match first {
            Some(f) if i >= f + (WINDOW - BEFORE) - 1 => break,
            None if seen.len() > BEFORE + WINDOW => {
                seen.remove(0);
            }
            _ => {}
        }
    }
    if seen.is_empty() {
        return String::new();
    }
    let (start, end) = match first {
        Some(_) => {
            let hit = seen.iter().position(|s| words.iter().any(|w| text[s.0..s.1].to_lowercase() == *w)).unwrap_or(0);
            let from = hit.saturating_sub(BEFORE);
            (from, (from + WINDOW).min(seen.len()))
        }
        // No match in the text: its first words (the walk stopped keeping a window, so use the
        // start of the text again).
        None => return head(text),
    };
    let cut_before = text[..seen[start].0].chars().any(char::is_alphanumeric);
    let cut_after = text[seen[end - 1].1..].chars().any(char::is_alphanumeric);
    render(text, &seen[start..end], words, cut_before, cut_after)
}

fn head(text: &str) -> String {
    let spans: Vec<(usize, usize)> = word_spans(text).take(WINDOW + 1).collect();
    let shown = &spans[..spans.len().min(WINDOW)];
    if shown.is_empty() {
        return String::new();
    }
    render(text, shown, &[], false, spans.len() > WINDOW)
}

fn render(text: &str, spans: &[(usize, usize)], words: &[String], cut_before: bool, cut_after: bool) -> String {
    let mut out = String::new();
    if cut_before {
        out.push('…');
    }
    for (n, &(a, b)) in spans.iter().enumerate() {
        if n > 0 {
            out.push(' ');
        }
        let w = &text[a..b];
        if words.iter().any(|q| w.to_lowercase() == *q) {
            out.push('«');
            out.push_str(w);
            out.push('»');
        } else {
            out.push_str(w);
        }
    }
    if cut_after {
        out.push('…');
    }
    out
}

/// Byte ranges of the words (runs of letters and digits) in `text`, lazily.
fn word_spans(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut chars = text.char_indices().peekable();
    std::iter::from_fn(move || {
        let start = loop {
            let (i, c) = chars.next()?;
            if c.is_alphanumeric() {
                break i;
            }
        };
        let mut end = text.len();
        while let Some(&(i, c)) = chars.peek() {
            if !c.is_alphanumeric() {
                end = i;
                break;
            }
            chars.next();
        }
        Some((start, end))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_first_match_is_marked_with_words_around_it() {
        let text = "one two three four five six Budget seven eight nine ten eleven twelve thirteen fourteen";
        assert_eq!(
            snippet(text, &w(&["budget"])),
            "…three four five six «Budget» seven eight nine ten eleven twelve thirteen…"
        );
        assert_eq!(snippet("the budget.", &w(&["budget"])), "the «budget»");
        assert_eq!(snippet("no match here", &w(&["budget"])), "no match here");
        assert_eq!(snippet("", &w(&["budget"])), "");
    }

    #[test]
    fn a_huge_text_is_cut_in_one_pass() {
        let text = "alpha ".repeat(200_000) + "budget tail";
        let s = snippet(&text, &w(&["budget"]));
        assert!(s.contains("«budget»") && s.starts_with('…'), "{s}");
    }
}
