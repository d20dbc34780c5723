//! How hits are ordered, in one formula a person can be told.
//!
//! `score = bm25 × (1 + RECENCY_WEIGHT × recency)`, ties broken by path (byte order).
//!
//! - **bm25** is FTS5's relevance of the match (sign flipped so that higher is better), with
//!   the columns weighted [`NAME_WEIGHT`] for the file's name, [`FOLDERS_WEIGHT`] for the folders
//!   it is in and [`BODY_WEIGHT`] for its text: a word in a name says far more about what a
//!   file is than the same word somewhere in its text.
//! - **recency** is `0.5^(age / HALF_LIFE)`, age being `now − modified` (a future modification
//!   time counts as now): 1 for a file changed just now, ½ after 30 days, ¼ after 60.
//! - **RECENCY_WEIGHT** bounds what recency can do: at most ×1.5 for a file changed now, ×1.25
//!   at a month, ≈×1 after a year. Recency reorders results of similar relevance; it cannot lift
//!   a weak match above a strong one.
//!
//! Every hit carries `bm25` and `recency` next to `score`, so a rank can always be explained.
//!
//! **Embeddings (not implemented).** A semantic score would enter here as a third factor
//! computed from a vector stored per entry (a `vectors` table keyed by `docs.id`, filled by an
//! optional embedder during sync); the formula would become a weighted sum of normalised bm25
//! and cosine similarity before the recency factor. Nothing else in the crate needs to change:
//! the candidate set would come from FTS5 plus a nearest-neighbour search, merged by doc id.

/// Half-life of the recency factor: 30 days.
pub const HALF_LIFE_MS: u64 = 30 * 24 * 60 * 60 * 1000;
/// The most recency can add to a score, as a fraction of its bm25.
pub const RECENCY_WEIGHT: f64 = 0.5;
/// bm25 column weights.
pub const NAME_WEIGHT: f64 = 10.0;
pub const FOLDERS_WEIGHT: f64 = 3.0;
pub const BODY_WEIGHT: f64 = 1.0;

/// The recency factor of an entry modified at `modified_ms`, seen at `now_ms`.
pub fn recency(modified_ms: u64, now_ms: u64) -> f64 {
    let age = now_ms.saturating_sub(modified_ms) as f64;
    0.5f64.powf(age / HALF_LIFE_MS as f64)
}

/// The combined score.
pub fn score(bm25: f64, recency: f64) -> f64 {
    bm25 * (1.0 + RECENCY_WEIGHT * recency)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recency_halves_every_half_life_and_the_future_counts_as_now() {
        assert!((recency(0, 0) - 1.0).abs() < 1e-12);
        assert!((recency(0, HALF_LIFE_MS) - 0.5).abs() < 1e-12);
        assert!((recency(0, 2 * HALF_LIFE_MS) - 0.25).abs() < 1e-12);
        assert!((recency(10, 5) - 1.0).abs() < 1e-12);
        assert!((score(2.0, 1.0) - 3.0).abs() < 1e-12);
    }
}
