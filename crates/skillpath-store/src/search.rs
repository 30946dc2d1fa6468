//! Search queries and ranking, shared by the backends.
//!
//! Any user text is a valid query: it is cut into words (so quotes, operators and unbalanced
//! syntax are just characters between words), common English function words are dropped, and
//! a skill matches when any word does. Ranking is by tiers, as the design asks: skills whose
//! name has more of the words first, then those whose description has more of them, then the
//! backend's full-text relevance (BM25 on SQLite). Column weights alone cannot do this: BM25
//! caps the benefit of a word repeated in one field, so a body that says a word forty times
//! can outweigh a name that says it once.

use crate::model::SearchHit;

/// Words that carry no topic. Only dropped when the query has other words.
const STOPWORDS: &[&str] = &[
    "a", "an", "and", "any", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from",
    "how", "i", "in", "into", "is", "it", "me", "my", "need", "of", "on", "or", "please", "some",
    "that", "the", "this", "to", "use", "using", "want", "we", "what", "when", "with", "you",
    "your",
];

/// The query's words, lowercased, without stopwords (unless the query is only stopwords).
pub fn query_words(text: &str) -> Vec<String> {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let topical: Vec<String> = words
        .iter()
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
        .cloned()
        .collect();
    let mut words = if topical.is_empty() { words } else { topical };
    words.dedup();
    words
}

/// An FTS5 query: every word quoted, any may match, the last (when 3 letters or more) also as a
/// prefix so a query typed halfway still finds. `None` when there is no word at all.
pub fn fts5_query(words: &[String]) -> Option<String> {
    let (last, rest) = words.split_last()?;
    let mut terms: Vec<String> = rest.iter().map(|w| format!("\"{w}\"")).collect();
    terms.push(if last.chars().count() >= 3 {
        format!("\"{last}\"*")
    } else {
        format!("\"{last}\"")
    });
    Some(terms.join(" OR "))
}

/// A match before ranking: what the backend found, with its own relevance (higher is better).
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The skill's name.
    pub name: String,
    /// Its description.
    pub description: String,
    /// The matching text, matches in `[` `]`.
    pub snippet: String,
    /// The backend's relevance.
    pub relevance: f64,
}

/// Ranks candidates by tier (words in the name, then words in the description, then
/// relevance), keeps the best `limit`. Each hit's score is `100 × name words + 10 ×
/// description words + relevance`, so scores order the same way.
pub fn rank(mut candidates: Vec<Candidate>, words: &[String], limit: usize) -> Vec<SearchHit> {
    candidates.sort_by(|a, b| {
        a.name
            .cmp(&b.name)
            .then(b.relevance.total_cmp(&a.relevance))
    });
    candidates.dedup_by(|a, b| a.name == b.name);
    let mut hits: Vec<(usize, usize, SearchHit)> = candidates
        .into_iter()
        .map(|candidate| {
            let in_name = count_matches(words, &candidate.name);
            let in_description = count_matches(words, &candidate.description);
            let score = 100.0 * in_name as f64 + 10.0 * in_description as f64 + candidate.relevance;
            let snippet = candidate
                .snippet
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            (
                in_name,
                in_description,
                SearchHit {
                    name: candidate.name,
                    description: candidate.description,
                    snippet,
                    score,
                },
            )
        })
        .collect();
    hits.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(b.1.cmp(&a.1))
            .then(b.2.score.total_cmp(&a.2.score))
            .then(a.2.name.cmp(&b.2.name))
    });
    hits.into_iter()
        .take(limit)
        .map(|(_, _, hit)| hit)
        .collect()
}

/// How many of `words` occur in `text` as a word or a word's start (`pdf` in `pdftk`,
/// `server` in `servers`), case-insensitively.
fn count_matches(words: &[String], text: &str) -> usize {
    let tokens: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
        .collect();
    words
        .iter()
        .filter(|word| {
            tokens.iter().any(|token| {
                token == *word
                    || (word.chars().count() >= 3 && token.starts_with(word.as_str()))
                    || (token.chars().count() >= 4 && word.starts_with(token.as_str()))
            })
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_without_stopwords_and_a_safe_query() {
        assert_eq!(
            query_words("Create an MCP server!"),
            ["create", "mcp", "server"]
        );
        assert_eq!(query_words("the and"), ["the", "and"]);
        assert_eq!(
            fts5_query(&query_words("\"unbalanced AND (NEAR")).as_deref(),
            Some("\"unbalanced\" OR \"near\"*")
        );
        assert_eq!(
            fts5_query(&query_words("don't")).as_deref(),
            Some("\"don\" OR \"t\"")
        );
        assert_eq!(fts5_query(&query_words("  *** ")), None);
    }

    #[test]
    fn names_outrank_descriptions_outrank_bodies() {
        let candidate = |name: &str, description: &str, relevance: f64| Candidate {
            name: name.into(),
            description: description.into(),
            snippet: "x\n y".into(),
            relevance,
        };
        let words = query_words("otter");
        let hits = rank(
            vec![
                candidate("river-guide", "Rivers.", 50.0),
                candidate("animals", "About otters.", 1.0),
                candidate("otter", "Otters.", 0.5),
            ],
            &words,
            10,
        );
        let names: Vec<&str> = hits.iter().map(|h| h.name.as_str()).collect();
        assert_eq!(names, ["otter", "animals", "river-guide"]);
        assert_eq!(hits[0].snippet, "x y");
    }
}
