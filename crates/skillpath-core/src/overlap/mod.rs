//! Descriptions that compete: two skills whose descriptions say the same things will fight for
//! the same requests, and the agent picks one of them by chance. One rule for every place that
//! judges it: `skillpath validate` over several skills and `skillpath eval overlap`
//! ([`check_reports`], [`Library::overlaps`]), `create_skill` and `import` against the library a
//! skill joins ([`Library::competing`]).
//!
//! The similarity is the cosine of the descriptions' TF-IDF vectors over the library: each word
//! of a description (see `crate::words`) weighs `(1 + ln tf) · ln(1 + N / df)`, where `tf`
//! is how often the description says it, `df` how many descriptions of the library's `N` say it.
//! A word every skill uses weighs little, a word two skills share and no other weighs much, so
//! two skills that both "write tests" in a library of test skills are told apart by what else
//! they say. 1 is the same words in the same proportions; 0 is no word in common.
//!
//! Pairs are found through the words they share: a pair is compared when its descriptions
//! share at least one word that fewer than [`COMMON_DF`] of the library's descriptions (or a
//! tenth of them, whichever is more) say; pairs that share only words nearly every skill says
//! are not compared, since those words weigh next to nothing. That keeps a library of
//! thousands of skills within seconds.

use std::collections::{BTreeMap, HashMap};

use crate::diagnostic::{Code, Diagnostic};
use crate::validate::Report;
use words::words;

mod words;

/// Pairs at or above this similarity compete (`skillpath eval overlap`'s default threshold).
pub const COMPETE: f64 = 0.5;

/// Pairs at or above this similarity are near copies of each other.
pub const NEAR_COPY: f64 = 0.75;

/// The document frequency under which a shared word makes a pair worth comparing (or a tenth
/// of the library, whichever is more).
pub const COMMON_DF: usize = 50;

/// How many shared words an overlap names.
pub const SHARED_WORDS: usize = 8;

/// How many competitors the warnings about one skill name, the most similar; the rest are
/// counted in one more warning ([`Overlap::more`]), so a library of near-identical skills
/// does not bury everything else under a warning for each pair.
pub const NAMED: usize = 5;

/// Two skills whose descriptions compete.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Overlap {
    /// One skill (the first by name).
    pub a: String,
    /// The other.
    pub b: String,
    /// The cosine of their descriptions' vectors, from 0 to 1.
    pub similarity: f64,
    /// The words they share, weightiest first (at most [`SHARED_WORDS`]).
    pub shared: Vec<String>,
}

/// A library's descriptions as TF-IDF vectors.
pub struct Library {
    names: Vec<String>,
    vectors: Vec<Vector>,
    /// Each word's number.
    ids: HashMap<String, u32>,
    /// By number: the word, and how many descriptions say it.
    words: Vec<(String, usize)>,
}

/// A description's words (by number, in order) and their weights, and its length. Words of a
/// new description that the library does not know count in its length only: no other
/// description can share them.
struct Vector {
    terms: Vec<(u32, f64)>,
    norm: f64,
}

impl Library {
    /// The library of `skills`, `(name, description)` each.
    pub fn new<'a>(skills: impl IntoIterator<Item = (&'a str, &'a str)>) -> Library {
        let mut names = Vec::new();
        let mut counts: Vec<BTreeMap<u32, usize>> = Vec::new();
        let mut ids: HashMap<String, u32> = HashMap::new();
        let mut words_by_id: Vec<(String, usize)> = Vec::new();
        for (name, description) in skills {
            let mut tf: BTreeMap<u32, usize> = BTreeMap::new();
            for word in words(description) {
                let id = *ids.entry(word).or_insert_with_key(|word| {
                    words_by_id.push((word.clone(), 0));
                    // A description has fewer words than a u32 counts: the library's
                    // vocabulary is bounded by the descriptions' total length.
                    u32::try_from(words_by_id.len() - 1).unwrap_or(u32::MAX)
                });
                *tf.entry(id).or_default() += 1;
            }
            for id in tf.keys() {
                words_by_id[*id as usize].1 += 1;
            }
            names.push(name.to_owned());
            counts.push(tf);
        }
        let total = names.len();
        let vectors = counts
            .into_iter()
            .map(|tf| {
                let tf = tf.into_iter().map(|(id, count)| (Some(id), count));
                vector(tf, |id| words_by_id[id as usize].1, total)
            })
            .collect();
        Library {
            names,
            vectors,
            ids,
            words: words_by_id,
        }
    }

    /// How many skills the library holds.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Every pair at or above `threshold`, most similar first (then by names).
    pub fn overlaps(&self, threshold: f64) -> Vec<Overlap> {
        self.overlaps_involving(|_| true, threshold)
    }

    /// The pairs at or above `threshold` of which at least one skill is `involved`, most
    /// similar first (then by names): what `import` warns about for the skills it wrote.
    ///
    /// Each skill's dot products with the later skills it shares a word that is not too
    /// common with are summed through those words' postings (a sparse product, in one pass per
    /// skill); the common words' share of each such pair's dot product is added after, word by
    /// word. A skill that is not involved is paired only with involved ones.
    pub fn overlaps_involving(
        &self,
        involved: impl Fn(&str) -> bool,
        threshold: f64,
    ) -> Vec<Overlap> {
        let common = common(self.len());
        let rare = |id: u32| self.words[id as usize].1 < common;
        let involved: Vec<bool> = self.names.iter().map(|name| involved(name)).collect();
        // Which descriptions say each word that is not too common to pair on, with its weight
        // there, in the library's order; and the same for the involved descriptions alone.
        let mut postings: Vec<Vec<(usize, f64)>> = vec![Vec::new(); self.words.len()];
        let mut involved_postings: Vec<Vec<(usize, f64)>> = vec![Vec::new(); self.words.len()];
        for (index, vector) in self.vectors.iter().enumerate() {
            for &(id, weight) in vector.terms.iter().filter(|(id, _)| rare(*id)) {
                postings[id as usize].push((index, weight));
                if involved[index] {
                    involved_postings[id as usize].push((index, weight));
                }
            }
        }
        let mut dots = vec![0.0f64; self.len()];
        let mut paired = vec![false; self.len()];
        let mut touched: Vec<usize> = Vec::new();
        let mut found: Vec<Overlap> = Vec::new();
        for (a, vector) in self.vectors.iter().enumerate() {
            let partners = if involved[a] {
                &postings
            } else {
                &involved_postings
            };
            for &(id, weight) in vector.terms.iter().filter(|(id, _)| rare(*id)) {
                let posting = &partners[id as usize];
                let later = posting.partition_point(|(b, _)| *b <= a);
                for &(b, other) in &posting[later..] {
                    if !paired[b] {
                        paired[b] = true;
                        touched.push(b);
                    }
                    dots[b] += weight * other;
                }
            }
            for b in touched.drain(..) {
                paired[b] = false;
                let rare_dot = std::mem::take(&mut dots[b]);
                let common_dot: f64 = vector
                    .terms
                    .iter()
                    .filter(|(id, _)| !rare(*id))
                    .filter_map(|(id, weight)| Some(weight * self.vectors[b].weight(*id)?))
                    .sum();
                let similarity = vector.similarity(&self.vectors[b], rare_dot + common_dot);
                if similarity >= threshold {
                    found.push(self.overlap(a, b, similarity));
                }
            }
        }
        found.sort_by(|x, y| {
            y.similarity
                .total_cmp(&x.similarity)
                .then_with(|| (&x.a, &x.b).cmp(&(&y.a, &y.b)))
        });
        found
    }

    /// The skills of the library whose descriptions compete with `description` at or above
    /// `threshold`, most similar first: what a new skill would fight (`name` itself left out).
    /// The new description's words weigh as if it were one more skill of the library, and,
    /// as between the library's own skills, only skills that share a word with it that is
    /// not too common are compared.
    pub fn competing(&self, name: &str, description: &str, threshold: f64) -> Vec<Overlap> {
        let mut tf: BTreeMap<String, usize> = BTreeMap::new();
        for word in words(description) {
            *tf.entry(word).or_default() += 1;
        }
        let total = self.len() + 1;
        // The library's counts with the new description's words counted once more.
        let df = |id: u32| self.words[id as usize].1 + 1;
        let mut known: Vec<(Option<u32>, usize)> = tf
            .iter()
            .map(|(word, count)| (self.ids.get(word).copied(), *count))
            .collect();
        known.sort_by_key(|(id, _)| *id);
        let new = vector(known.into_iter(), df, total);
        let common = common(total);
        let pairs_on: Vec<u32> = new
            .terms
            .iter()
            .map(|(id, _)| *id)
            .filter(|id| df(*id) < common)
            .collect();
        let mut found: Vec<Overlap> = self
            .names
            .iter()
            .zip(&self.vectors)
            .filter(|(other, _)| other.as_str() != name)
            .filter(|(_, vector)| pairs_on.iter().any(|id| vector.weight(*id).is_some()))
            .filter_map(|(other, vector)| {
                let similarity = new.similarity(vector, new.dot(vector));
                (similarity >= threshold).then(|| Overlap {
                    a: name.to_owned(),
                    b: other.clone(),
                    similarity,
                    shared: self.shared(&new, vector),
                })
            })
            .collect();
        found.sort_by(|x, y| {
            y.similarity
                .total_cmp(&x.similarity)
                .then_with(|| x.b.cmp(&y.b))
        });
        found
    }

    /// The overlap of the skills at `a` and `b`, whose similarity is `similarity`.
    fn overlap(&self, a: usize, b: usize, similarity: f64) -> Overlap {
        let (first, second) = if self.names[a] <= self.names[b] {
            (a, b)
        } else {
            (b, a)
        };
        Overlap {
            a: self.names[first].clone(),
            b: self.names[second].clone(),
            similarity,
            shared: self.shared(&self.vectors[a], &self.vectors[b]),
        }
    }

    /// The words `a` and `b` share, weightiest first (then by word), at most [`SHARED_WORDS`].
    fn shared(&self, a: &Vector, b: &Vector) -> Vec<String> {
        let mut shared: Vec<(f64, &str)> = a
            .terms
            .iter()
            .filter_map(|(id, weight)| {
                let other = b.weight(*id)?;
                Some((weight * other, self.words[*id as usize].0.as_str()))
            })
            .collect();
        shared.sort_by(|x, y| y.0.total_cmp(&x.0).then_with(|| x.1.cmp(y.1)));
        shared
            .into_iter()
            .take(SHARED_WORDS)
            .map(|(_, word)| word.to_owned())
            .collect()
    }
}

impl Vector {
    /// The weight of word `id`, if the description says it.
    fn weight(&self, id: u32) -> Option<f64> {
        let at = self.terms.binary_search_by_key(&id, |(id, _)| *id).ok()?;
        Some(self.terms[at].1)
    }

    /// The dot product with `other`.
    fn dot(&self, other: &Vector) -> f64 {
        self.terms
            .iter()
            .filter_map(|(id, weight)| Some(weight * other.weight(*id)?))
            .sum()
    }

    /// The cosine with `other`, whose dot product with this is `dot`: from 0 to 1.
    fn similarity(&self, other: &Vector, dot: f64) -> f64 {
        if self.norm > 0.0 && other.norm > 0.0 {
            (dot / (self.norm * other.norm)).clamp(0.0, 1.0)
        } else {
            0.0
        }
    }
}

impl Overlap {
    /// The sentence that says `skill` competes with the other skill of the pair.
    pub fn sentence(&self, skill: &str) -> String {
        let other = if self.a == skill { &self.b } else { &self.a };
        format!(
            "the description of `{skill}` competes with `{other}`'s (similarity {:.2}; both say {}): an agent choosing between them picks one by chance",
            self.similarity,
            self.shared
                .iter()
                .map(|word| format!("`{word}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }

    /// The sentence that says `skill` competes with `more` skills beyond those named.
    pub fn more(skill: &str, more: usize) -> String {
        format!(
            "the description of `{skill}` competes with those of {more} more skill{} as well (`skillpath eval overlap` lists every pair)",
            if more == 1 { "" } else { "s" }
        )
    }

    /// The fix the warning suggests.
    pub fn hint(&self) -> &'static str {
        HINT
    }
}

/// The fix every `description-overlap` warning suggests.
const HINT: &str = "say in the description what this skill does that the other does not (its inputs, its tools, when to prefer it), or merge the two";

/// Adds a `description-overlap` warning to the report of every skill whose description
/// competes (at [`COMPETE`] or more) with another's of `reports`, on the second of the pair by
/// name. Only reports with a readable `name` and `description` take part. (`skillpath validate`
/// does not call it in `skills-ref` mode, whose output is the reference validator's.)
pub fn check_reports(reports: &mut [Report]) {
    let mut positions = HashMap::new();
    let described: Vec<(String, String)> = reports
        .iter()
        .enumerate()
        .filter_map(|(position, report)| {
            let skill = report.skill_md.as_ref()?;
            let name = report.name()?.to_owned();
            let description = skill.text_field("description")?.to_owned();
            positions.insert(name.clone(), position);
            Some((name, description))
        })
        .collect();
    let library = Library::new(described.iter().map(|(n, d)| (n.as_str(), d.as_str())));
    // Each report's competitors, most similar first.
    let mut competitors: BTreeMap<usize, Vec<Overlap>> = BTreeMap::new();
    for overlap in library.overlaps(COMPETE) {
        if let Some(&at) = positions.get(&overlap.b) {
            competitors.entry(at).or_default().push(overlap);
        }
    }
    for (at, overlaps) in competitors {
        let (shown, more) = named(&overlaps);
        for overlap in shown {
            warn(
                &mut reports[at],
                overlap.sentence(&overlap.b),
                overlap.hint(),
            );
        }
        if more > 0
            && let Some(name) = reports[at].name().map(str::to_owned)
        {
            warn(&mut reports[at], Overlap::more(&name, more), HINT);
        }
    }
}

/// Of a skill's competitors, most similar first: the [`NAMED`] its warnings name, and how
/// many more there are.
pub fn named(competitors: &[Overlap]) -> (&[Overlap], usize) {
    let shown = competitors.len().min(NAMED);
    (&competitors[..shown], competitors.len() - shown)
}

/// Adds a `description-overlap` warning, on the description, to `report`.
fn warn(report: &mut Report, sentence: String, hint: &str) {
    let Some(skill) = report.skill_md.as_ref() else {
        return;
    };
    let Some(field) = skill.field("description") else {
        return;
    };
    let diagnostic = Diagnostic::warning(Code::DescriptionOverlap, sentence)
        .with_hint(hint)
        .at(&skill.file, field.value.range.clone());
    report.diagnostics.push(diagnostic);
    report
        .diagnostics
        .sort_by_key(|d| d.location.as_ref().map(|l| (l.start, l.range.end)));
}

/// The document frequency at or over which a word is too common to pair two skills on, in a
/// library of `total` skills.
fn common(total: usize) -> usize {
    COMMON_DF.max(total / 10)
}

/// The TF-IDF vector of a description's word counts, `(word, count)` by word number (`None`
/// for a word the library does not know), in a library of `total` descriptions in which `df`
/// of them say a word (a word the library does not know: one, the description itself).
fn vector(
    tf: impl Iterator<Item = (Option<u32>, usize)>,
    df: impl Fn(u32) -> usize,
    total: usize,
) -> Vector {
    let mut terms = Vec::new();
    let mut norm = 0.0;
    for (id, count) in tf {
        let df = id.map_or(1, &df).max(1) as f64;
        let weight = (1.0 + (count as f64).ln()) * (1.0 + total as f64 / df).ln();
        norm += weight * weight;
        if let Some(id) = id {
            terms.push((id, weight));
        }
    }
    Vector {
        terms,
        norm: f64::sqrt(norm),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn library() -> Library {
        Library::new([
            (
                "pdf-forms",
                "Fill in PDF forms and extract form fields from PDF documents.",
            ),
            (
                "pdf-filler",
                "Fills PDF forms: reads the form fields of a PDF and fills them in.",
            ),
            ("slack-gif", "Creates animated GIFs for Slack."),
            (
                "changelog",
                "Writes a changelog from the commits since the last release.",
            ),
        ])
    }

    #[test]
    fn two_descriptions_of_one_job_compete_and_name_what_they_share() {
        let found = library().overlaps(COMPETE);
        assert_eq!(found.len(), 1, "{found:?}");
        let pair = &found[0];
        assert_eq!(
            (pair.a.as_str(), pair.b.as_str()),
            ("pdf-filler", "pdf-forms")
        );
        assert!(
            pair.similarity >= COMPETE && pair.similarity < 1.0,
            "{pair:?}"
        );
        for word in ["pdf", "form", "field"] {
            assert!(
                pair.shared.iter().any(|s| s == word),
                "{word} in {:?}",
                pair.shared
            );
        }
    }

    #[test]
    fn a_description_and_itself_are_the_same_and_strangers_share_nothing() {
        let library = Library::new([("a", "Deploy to Vercel"), ("b", "Deploy to Vercel")]);
        let found = library.overlaps(0.0);
        assert!((found[0].similarity - 1.0).abs() < 1e-9, "{found:?}");
        let strangers = Library::new([("a", "Deploy to Vercel"), ("b", "Bake bread")]);
        assert!(strangers.overlaps(0.0).is_empty());
    }

    #[test]
    fn a_new_skill_is_compared_with_the_library() {
        let found = library().competing(
            "pdf-forms-2",
            "Fill PDF forms and read their form fields.",
            COMPETE,
        );
        let names: Vec<&str> = found.iter().map(|o| o.b.as_str()).collect();
        assert_eq!(names.len(), 2, "{found:?}");
        assert!(names.contains(&"pdf-forms") && names.contains(&"pdf-filler"));
        assert!(
            library()
                .competing(
                    "pdf-forms",
                    "Fill in PDF forms and extract form fields from PDF documents.",
                    0.99
                )
                .iter()
                .all(|o| o.b != "pdf-forms")
        );
    }

    #[test]
    fn skills_that_share_only_words_most_skills_say_are_not_compared() {
        // Sixty skills that all "deploy the service", each somewhere of its own.
        let described: Vec<(String, String)> = (0..60)
            .map(|i| (format!("s{i}"), format!("Deploy the service to region{i}.")))
            .collect();
        let library = Library::new(described.iter().map(|(n, d)| (n.as_str(), d.as_str())));
        assert!(library.overlaps(0.0).is_empty());
        assert!(
            library
                .competing("new", "Deploy the service.", 0.0)
                .is_empty()
        );
        // A word only two of them say pairs them, the new one with the library as well.
        let found = library.competing("new", "Deploy the service to region7.", 0.0);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].b, "s7");
    }

    #[test]
    fn a_library_of_one_skill_has_no_pairs() {
        assert!(
            Library::new([("a", "Deploy to Vercel")])
                .overlaps(0.0)
                .is_empty()
        );
        assert!(Library::new(std::iter::empty()).overlaps(0.0).is_empty());
    }
}
