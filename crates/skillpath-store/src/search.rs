//! Search queries and ranking, shared by the backends.
//!
//! Any user text is a valid query: it is cut into words (so quotes, operators and unbalanced
//! syntax are just characters between words), common English function words are dropped, and
//! a skill matches when any word does. Ranking is by how much of the query a skill's name and
//! description cover, each word weighing by how few names and descriptions say it (its inverse
//! document frequency, counted by the backend's index) and twice in the name, then by the
//! backend's full-text relevance (BM25 on SQLite); a match in a body alone ranks below every
//! name or description match ([`rank`]). Column weights alone cannot do this: BM25 caps the
//! benefit of a word repeated in one field, so a body that says a word forty times can outweigh
//! a name that says it once.

use std::borrow::Cow;

use crate::answers::SearchHit;
use crate::error::StoreResult;
use skillpath_model::Kind;

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

/// How many hits a search asked for `limit` gives (1 to 1000), and how many candidates a
/// backend reads from each scope for the tiers to reorder (the pool): enough of the best by
/// relevance that a skill relevance ranks a little low still reaches the tiers. Snippets, the
/// costly part, are made only for the hits kept.
pub(crate) fn sizes(limit: usize) -> (usize, i64) {
    let limit = limit.clamp(1, 1000);
    (limit, i64::try_from((limit * 4).max(32)).unwrap_or(4000))
}

/// How many index matches a search reads from one scope at most, however many of them the
/// store's view hides (skills of other projects, and those a project's own skill of the same
/// name shadows): the pool is read again four times larger while the view hides so many that
/// fewer than the pool are left, up to this.
const MAX_READ: i64 = 64 * 1024;

/// Where a search looks for candidates, in the order it looks. A skill with a query word in
/// its name or description ranks above every skill with it only in its body, so bodies are
/// consulted only while names and descriptions have not found a page. Each scope is a separate
/// index: names and descriptions are short, so their index holds little for a word that most
/// bodies use, and the bodies' index is read only for what the others cannot fill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Skills with a query word in their name, by relevance over name and description.
    Name,
    /// Skills with a query word in their name or description.
    Head,
    /// Skills with a query word in their body.
    Body,
}

/// A backend's search index, as [`candidates`] and [`weights`] read it.
pub(crate) trait SearchIndex {
    /// The best `count` matches of `scope` by the backend's relevance, with those the store's
    /// view shows as candidates: how many the index gave (up to `count`; fewer when it has no
    /// more), and the shown ones, in any order.
    async fn matches(&mut self, scope: Scope, count: i64) -> StoreResult<(usize, Vec<Candidate>)>;

    /// How many names and descriptions the index holds (every project's), and how many of them
    /// say each of `words` as the index matches it (the word, or as a prefix when it has 3
    /// letters or more, through the index's stemmer), counted up to [`common`] of the total.
    async fn head_frequencies(&mut self, words: &[String]) -> StoreResult<(u64, Vec<u64>)>;
}

/// How many of `total` names and descriptions say a word that is common: counting a word's
/// matches stops there, and every word at least that common weighs the same. A tenth: on the
/// labelled queries, weights capped there rank as well as uncapped ones, and a common word's
/// count (a page of heap rows per match on PostgreSQL) costs a tenth of the library at most.
pub(crate) fn common(total: u64) -> u64 {
    (total / 10).max(1)
}

/// How much each of `words` weighs in the ranking: its inverse document frequency over the
/// names and descriptions of the index, `ln(1 + N / df)`. A word few skills say tells them
/// apart (`jaeger`, `pacman`); one that many say (`file`, `code`) tells little, so a skill
/// that covers the rare words of a query outranks one that covers as many common ones.
pub(crate) async fn weights(
    index: &mut impl SearchIndex,
    words: &[String],
) -> StoreResult<Vec<f64>> {
    let (total, frequencies) = index.head_frequencies(words).await?;
    Ok(frequencies
        .into_iter()
        .map(|df| (1.0 + total.max(1) as f64 / df.max(1) as f64).ln())
        .collect())
}

/// The candidates of a search for `words` asked for `limit` hits: the best `pool` of each
/// scope in turn (names, so that a skill named for a query word is a candidate however its
/// description reads; names and descriptions; bodies only when those two have not found
/// `limit` skills, since a body match alone ranks below them). A skill found again by a later
/// scope keeps the relevance of the first.
pub(crate) async fn candidates(
    index: &mut impl SearchIndex,
    words: &[String],
    limit: usize,
    pool: i64,
) -> StoreResult<Vec<Candidate>> {
    let mut found: Vec<Candidate> = Vec::new();
    for scope in [Scope::Name, Scope::Head, Scope::Body] {
        let mut count = pool;
        let shown = loop {
            let (read, shown) = index.matches(scope, count).await?;
            let exhausted = i64::try_from(read).map_or(true, |read| read < count);
            if exhausted || shown.len() as i64 >= pool || count >= MAX_READ {
                break shown;
            }
            count = (count * 4).min(MAX_READ);
        };
        for candidate in shown {
            if !found.iter().any(|known| known.key == candidate.key) {
                found.push(candidate);
            }
        }
        // A skill with a query word in its name or description outranks every match in a body
        // alone: once names and descriptions have given a page of them, bodies are not read.
        let in_head = |c: &Candidate| said_by(words, c).iter().any(|(_, head)| *head);
        if scope == Scope::Head && found.iter().filter(|c| in_head(c)).count() >= limit {
            break;
        }
    }
    Ok(found)
}

/// A match before ranking: what the backend found, with its own relevance (higher is better).
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The backend's key for the skill (to fetch a snippet for the hits kept).
    pub key: i64,
    /// A skill or a package.
    pub kind: Kind,
    /// The skill's name.
    pub name: String,
    /// Its description.
    pub description: String,
    /// The backend's relevance.
    pub relevance: f64,
    /// The scope it was found in: its snippet is cut from what that scope searched (name and
    /// description, or body).
    pub scope: Scope,
}

/// Ranks candidates and keeps the best `limit`, each with its score. First by how much of the
/// query the name and description cover: each query word found in either counts its weight
/// (`weights`, one per word: see `weights`), and its weight once more when it is in the name
/// (the name says what the skill is); then by the weight of the words in the name; then by the
/// backend's relevance. Score: `100 × coverage + 10 × name words + relevance`.
///
/// Coverage rather than strict tiers (every name match above every description match): one
/// common word in a name (`minutes` in `meeting-minutes`) no longer outranks a skill whose
/// description says three of the query's words; and weighted coverage rather than a count of
/// words: the query's rare words decide. Measured on the labelled queries of
/// `bench/search-quality` (BENCHMARKS.md).
pub fn rank(
    mut candidates: Vec<Candidate>,
    words: &[String],
    weights: &[f64],
    limit: usize,
) -> Vec<(Candidate, f64)> {
    candidates.sort_by(|a, b| {
        a.name
            .cmp(&b.name)
            .then(b.relevance.total_cmp(&a.relevance))
    });
    candidates.dedup_by(|a, b| a.name == b.name);
    let mut ranked: Vec<(f64, f64, f64, Candidate)> = candidates
        .into_iter()
        .map(|candidate| {
            let (mut in_name, mut covered) = (0.0, 0.0);
            for ((name, head), weight) in said_by(words, &candidate).into_iter().zip(weights) {
                if name {
                    in_name += weight;
                }
                if head {
                    covered += weight;
                }
            }
            // Words matched in the name or the description, and those in the name once more:
            // the name says what the skill is.
            let weight = covered + in_name;
            let score = 100.0 * weight + 10.0 * in_name + candidate.relevance;
            (weight, in_name, score, candidate)
        })
        .collect();
    ranked.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then(b.1.total_cmp(&a.1))
            .then(b.2.total_cmp(&a.2))
            .then(a.3.name.cmp(&b.3.name))
    });
    ranked
        .into_iter()
        .take(limit)
        .map(|(_, _, score, candidate)| (candidate, score))
        .collect()
}

/// A search hit from a ranked candidate and its snippet (whitespace folded to single spaces).
pub fn hit(candidate: Candidate, score: f64, snippet: &str) -> SearchHit {
    SearchHit {
        kind: candidate.kind,
        name: candidate.name,
        description: candidate.description,
        snippet: snippet.split_whitespace().collect::<Vec<_>>().join(" "),
        score,
    }
}

/// For each of `words`: whether the candidate's name says it, and whether its name or its
/// description does (each text cut into words once, each word's length counted once).
fn said_by(words: &[String], candidate: &Candidate) -> Vec<(bool, bool)> {
    let name = tokens(&candidate.name);
    let description = tokens(&candidate.description);
    words
        .iter()
        .map(|word| {
            let word = (word.as_str(), word.chars().count());
            let in_name = says(&name, word);
            (in_name, in_name || says(&description, word))
        })
        .collect()
}

/// The words of `text`, lowercased (a word that is lowercase already is not copied), each with
/// its length in characters.
fn tokens(text: &str) -> Vec<(Cow<'_, str>, usize)> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(|t| {
            // Most words are ASCII: checked and counted by bytes.
            let lowercase = if t.is_ascii() {
                !t.bytes().any(|b| b.is_ascii_uppercase())
            } else {
                t.chars().flat_map(char::to_lowercase).eq(t.chars())
            };
            let token = if lowercase {
                Cow::Borrowed(t)
            } else {
                Cow::Owned(t.to_lowercase())
            };
            let length = if token.is_ascii() {
                token.len()
            } else {
                token.chars().count()
            };
            (token, length)
        })
        .collect()
}

/// Whether `tokens` say `word` (with its length in characters), as a word or a word's start
/// (`pdf` in `pdftk`, `server` in `servers`).
fn says(tokens: &[(Cow<'_, str>, usize)], (word, length): (&str, usize)) -> bool {
    tokens.iter().any(|(token, token_length)| {
        token == word
            || (length >= 3 && token.starts_with(word))
            || (*token_length >= 4 && word.starts_with(token.as_ref()))
    })
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
        let candidate = |key: i64, name: &str, description: &str, relevance: f64| Candidate {
            key,
            kind: Kind::Skill,
            name: name.into(),
            description: description.into(),
            relevance,
            scope: Scope::Head,
        };
        let words = query_words("otter");
        let ranked = rank(
            vec![
                candidate(1, "river-guide", "Rivers.", 50.0),
                candidate(2, "animals", "About otters.", 1.0),
                candidate(3, "otter", "Otters.", 0.5),
                candidate(3, "otter", "Otters.", 0.5),
            ],
            &words,
            &vec![1.0; words.len()],
            10,
        );
        let names: Vec<&str> = ranked.iter().map(|(c, _)| c.name.as_str()).collect();
        assert_eq!(names, ["otter", "animals", "river-guide"]);
        // One common word in a name does not outrank a description that says more of the query.
        let words = query_words("cut the ci pipeline minutes bill");
        let ranked = rank(
            vec![
                candidate(4, "meeting-minutes", "Notes of a meeting.", 9.0),
                candidate(
                    5,
                    "actions-efficiency",
                    "Cut CI pipeline costs and billed minutes.",
                    1.0,
                ),
            ],
            &words,
            &vec![1.0; words.len()],
            10,
        );
        assert_eq!(ranked[0].0.name, "actions-efficiency");
        // A rare word outweighs two common ones: the weights decide, not the count.
        let words = query_words("excalidraw signup flow chart");
        let pair = || {
            vec![
                candidate(6, "git-flow", "Chart a branch flow for signup work.", 9.0),
                candidate(7, "excalidraw-diagrams", "Diagrams.", 1.0),
            ]
        };
        let rare = rank(pair(), &words, &[6.0, 2.0, 1.0, 1.0], 10);
        assert_eq!(rare[0].0.name, "excalidraw-diagrams", "{rare:?}");
        let even = rank(pair(), &words, &[1.0; 4], 10);
        assert_eq!(even[0].0.name, "git-flow", "{even:?}");
        let (best, score) = ranked.into_iter().next().expect("a hit");
        assert_eq!(hit(best, score, "x\n y").snippet, "x y");
    }
}
