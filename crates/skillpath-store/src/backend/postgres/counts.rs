//! The counts a search weighs its words by ([`crate::search::weights`]), kept between searches
//! while the store follows changes.
//!
//! Counting costs PostgreSQL a query per word over the names and descriptions, and the library's
//! size an index scan: a few milliseconds a search at 10,000 skills, where SQLite reads them
//! from FTS5's own tables for nothing. The counts change only when a skill does, and a store
//! whose change listener is listening hears of every committed write (its own too, through the
//! same notifications), so while it listens the counts are kept, and every change signal drops
//! them. While it does not listen (a one-off command, or a listener reconnecting) every search
//! counts afresh, as before.
//!
//! A search takes the generation of the counts before its transaction reads anything, and a
//! change signal starts a new generation: a search whose snapshot may predate a change neither
//! reads counts kept since nor keeps what it counted. The counts may lag a write by the time its
//! notification takes to arrive, which only weighs a word as it was a moment before; the hits
//! are always read from the index as it is.

use std::collections::HashMap;
use std::sync::Mutex;

/// The most words whose counts are kept: past it they are all dropped and counted again as
/// searches ask for them (a word's entry is a few dozen bytes, so at most a megabyte or so).
const MAX_WORDS: usize = 20_000;

/// Counts of the names and descriptions, kept while the store follows changes.
#[derive(Default)]
pub(super) struct SearchCounts {
    kept: Mutex<Kept>,
}

#[derive(Default)]
struct Kept {
    /// Bumped by every change signal: counts read in an earlier generation are not kept.
    generation: u64,
    /// How many names and descriptions the index holds.
    total: Option<u64>,
    /// How many of them say each word, counted up to [`crate::search::common`] of `total`.
    words: HashMap<String, u64>,
}

/// What is known of a search's words.
pub(super) struct Known {
    pub(super) total: Option<u64>,
    /// Each word's count, where it is known.
    pub(super) words: Vec<Option<u64>>,
}

impl SearchCounts {
    /// Drops every count: something may have changed.
    pub(super) fn changed(&self) {
        if let Ok(mut kept) = self.kept.lock() {
            kept.generation = kept.generation.wrapping_add(1);
            kept.total = None;
            kept.words.clear();
        }
    }

    /// The current generation, which a search takes before it reads anything.
    pub(super) fn generation(&self) -> Option<u64> {
        self.kept.lock().ok().map(|kept| kept.generation)
    }

    /// What is known of `words` in `generation` (nothing after a change).
    pub(super) fn known(&self, generation: u64, words: &[String]) -> Known {
        match self.kept.lock() {
            Ok(kept) if kept.generation == generation => Known {
                total: kept.total,
                words: words
                    .iter()
                    .map(|word| kept.words.get(word).copied())
                    .collect(),
            },
            // Changed since, or a search panicked while keeping: count afresh.
            _ => Known {
                total: None,
                words: vec![None; words.len()],
            },
        }
    }

    /// Keeps `total` and the `counted` words, read in `generation`, unless a change was
    /// signalled since.
    pub(super) fn keep(&self, generation: u64, total: u64, counted: Vec<(String, u64)>) {
        let Ok(mut kept) = self.kept.lock() else {
            return;
        };
        if kept.generation != generation {
            return;
        }
        if kept.words.len() + counted.len() > MAX_WORDS {
            kept.words.clear();
        }
        kept.total = Some(total);
        kept.words.extend(counted);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|word| (*word).to_owned()).collect()
    }

    #[test]
    fn counts_are_kept_until_a_change_and_never_from_before_it() {
        let counts = SearchCounts::default();
        let first = counts.generation().expect("a generation");
        let known = counts.known(first, &words(&["pdf", "form"]));
        assert_eq!(
            (known.total, known.words.as_slice()),
            (None, &[None, None][..])
        );
        counts.keep(first, 100, vec![("pdf".into(), 3)]);
        let again = counts.known(first, &words(&["pdf", "form"]));
        assert_eq!(
            (again.total, again.words.as_slice()),
            (Some(100), &[Some(3), None][..])
        );

        // A search that began before a change reads nothing kept since and keeps nothing.
        counts.changed();
        let second = counts.generation().expect("a generation");
        counts.keep(second, 101, vec![("form".into(), 7)]);
        let stale = counts.known(first, &words(&["form"]));
        assert_eq!((stale.total, stale.words.as_slice()), (None, &[None][..]));
        counts.keep(first, 100, vec![("pdf".into(), 3)]);
        let fresh = counts.known(second, &words(&["pdf", "form"]));
        assert_eq!(
            (fresh.total, fresh.words.as_slice()),
            (Some(101), &[None, Some(7)][..])
        );
    }

    #[test]
    fn past_the_bound_the_kept_words_start_again() {
        let counts = SearchCounts::default();
        let generation = counts.generation().expect("a generation");
        let many: Vec<(String, u64)> = (0..MAX_WORDS).map(|n| (format!("w{n}"), 1)).collect();
        counts.keep(generation, 10, many);
        counts.keep(generation, 10, vec![("last".into(), 2)]);
        let known = counts.known(generation, &words(&["w0", "last"]));
        assert_eq!(known.words, [None, Some(2)]);
    }
}
