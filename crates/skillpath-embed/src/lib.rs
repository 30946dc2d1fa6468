//! Static embedding models, for ranking skills by what they mean beside the full-text search.
//!
//! A static model has one vector per token of a WordPiece vocabulary; a text's vector is the
//! mean of its tokens' vectors, scaled to unit length, so two texts compare by the cosine of
//! their vectors (a dot product). No neural network runs at query time: a query costs a
//! tokenization and one row lookup per token. `bench/embedding/distill.py` makes such a model
//! from a BERT sentence encoder shipped on PyPI; its folder is what [`StaticModel::open`]
//! reads:
//!
//! - `config.json`: `{"rows": R, "dims": D, …}`;
//! - `vocab.txt`: R tokens, one per line (BERT's uncased WordPiece vocabulary);
//! - `embeddings.f32`: R × D little-endian `f32`, row by row.
//!
//! [`fused`] combines the model's ranking with the search's by reciprocal rank.

use std::path::{Path, PathBuf};

mod tokenize;

use tokenize::Vocabulary;

/// The largest `embeddings.f32` read (1 GiB): a model of 250,000 tokens × 1,024 dimensions.
pub const MAX_MODEL_BYTES: u64 = 1 << 30;

/// Why a model folder cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read.
    #[error("cannot read `{}`: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A file's content is not what the format says.
    #[error("`{}` {problem}; make the model again with bench/embedding/distill.py", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong, as a sentence's end.
        problem: String,
    },
}

/// A static embedding model.
pub struct StaticModel {
    vocabulary: Vocabulary,
    dims: usize,
    /// Row-major, one row of `dims` per vocabulary token.
    vectors: Vec<f32>,
}

#[derive(serde::Deserialize)]
struct Config {
    rows: usize,
    dims: usize,
}

impl StaticModel {
    /// Reads the model in `folder`, checking that its three files agree.
    pub fn open(folder: &Path) -> Result<StaticModel, Error> {
        let read = |name: &str| -> Result<(PathBuf, Vec<u8>), Error> {
            let path = folder.join(name);
            let size = std::fs::metadata(&path)
                .map_err(|source| Error::Read {
                    path: path.clone(),
                    source,
                })?
                .len();
            if size > MAX_MODEL_BYTES {
                return Err(Error::Format {
                    path,
                    problem: format!("is {size} bytes, over the {MAX_MODEL_BYTES} read"),
                });
            }
            let bytes = std::fs::read(&path).map_err(|source| Error::Read {
                path: path.clone(),
                source,
            })?;
            Ok((path, bytes))
        };
        let (config_path, config) = read("config.json")?;
        let config: Config = serde_json::from_slice(&config).map_err(|error| Error::Format {
            path: config_path.clone(),
            problem: format!("is not a model's configuration ({error})"),
        })?;
        if config.dims == 0 {
            return Err(Error::Format {
                path: config_path,
                problem: "says `dims` is 0".into(),
            });
        }
        let (vocab_path, vocab) = read("vocab.txt")?;
        let vocab = String::from_utf8(vocab).map_err(|_| Error::Format {
            path: vocab_path.clone(),
            problem: "is not UTF-8".into(),
        })?;
        let tokens: Vec<&str> = vocab.lines().collect();
        if tokens.len() != config.rows {
            return Err(Error::Format {
                path: vocab_path,
                problem: format!(
                    "has {} tokens where config.json says {}",
                    tokens.len(),
                    config.rows
                ),
            });
        }
        let (vectors_path, bytes) = read("embeddings.f32")?;
        let expected = config
            .rows
            .checked_mul(config.dims)
            .and_then(|n| n.checked_mul(4));
        if expected != Some(bytes.len()) {
            return Err(Error::Format {
                path: vectors_path,
                problem: format!(
                    "is {} bytes where {} rows of {} f32 take {}",
                    bytes.len(),
                    config.rows,
                    config.dims,
                    expected.map_or_else(|| "more than memory holds".to_owned(), |n| n.to_string())
                ),
            });
        }
        let vectors = bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        Ok(StaticModel {
            vocabulary: Vocabulary::new(tokens),
            dims: config.dims,
            vectors,
        })
    }

    /// `text`'s vector: the mean of its tokens' rows at unit length; all zeros when it has no
    /// known token.
    pub fn embed(&self, text: &str) -> Vec<f32> {
        let rows = self.vocabulary.rows(text);
        let mut sum = vec![0.0f32; self.dims];
        for row in &rows {
            let start = row * self.dims;
            for (total, value) in sum.iter_mut().zip(&self.vectors[start..start + self.dims]) {
                *total += value;
            }
        }
        let norm = sum.iter().map(|v| v * v).sum::<f32>().sqrt();
        if norm > 0.0 {
            sum.iter_mut().for_each(|v| *v /= norm);
        }
        sum
    }
}

/// The cosine of two vectors [`StaticModel::embed`] made (a dot product: both are unit length
/// or zero).
pub fn similarity(a: &[f32], b: &[f32]) -> f32 {
    // Eight running sums, so that the compiler can use vector instructions (a single sum must
    // add in order): a search compares the query with every skill of the catalog.
    let mut sums = [0.0f32; 8];
    let (a_lanes, b_lanes) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = a_lanes
        .remainder()
        .iter()
        .zip(b_lanes.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in a_lanes.zip(b_lanes) {
        for lane in 0..8 {
            sums[lane] += x[lane] * y[lane];
        }
    }
    sums.iter().sum::<f32>() + tail
}

/// How many of the search's hits, and of the model's nearest skills, a hybrid ranking fuses.
pub const POOL: usize = 50;

/// Reciprocal-rank fusion's `k` and the weight of the search's ranks (the model's weigh 1): the
/// best of the settings measured on the labelled queries (BENCHMARKS.md).
pub const FUSION: (f64, f64) = (3.0, 2.0);

impl StaticModel {
    /// A skill's vector as the model compares it with queries: the words of its name (hyphens
    /// read as spaces), then its description.
    pub fn embed_skill(&self, name: &str, description: &str) -> Vec<f32> {
        self.embed(&format!("{}. {description}", name.replace('-', " ")))
    }
}

/// The [`POOL`] names of `items` (a name and its vector each) nearest to `query` (a vector
/// [`StaticModel::embed`] made), nearest first, then by name. Only names the query is closer to
/// than to an unrelated text (a cosine above 0) are named: a query of no known token is near
/// nothing.
pub fn nearest<'a>(
    query: &[f32],
    items: impl IntoIterator<Item = (&'a str, &'a [f32])>,
) -> Vec<String> {
    let mut scored: Vec<(f32, &str)> = items
        .into_iter()
        .map(|(name, vector)| (similarity(query, vector), name))
        .filter(|(score, _)| *score > 0.0)
        .collect();
    let order = |a: &(f32, &str), b: &(f32, &str)| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1));
    // The nearest POOL in any order (linear in the library), then only those sorted.
    if scored.len() > POOL {
        scored.select_nth_unstable_by(POOL - 1, order);
        scored.truncate(POOL);
    }
    scored.sort_by(order);
    scored
        .into_iter()
        .map(|(_, name)| name.to_owned())
        .collect()
}

/// Reciprocal-rank fusion of the search's ranking and the model's, with the measured setting
/// `(k, search_weight)` of [`FUSION`]: a name scores `search_weight / (k + rank)` in the first
/// and `1 / (k + rank)` in the second (ranks from 1), and the fused ranking is by score, then by
/// name. On the labelled queries of `bench/search-quality`, k from 3 to 10 with the search
/// counted two or three times gains over either alone (BENCHMARKS.md).
pub fn fused(search: &[String], model: &[String]) -> Vec<String> {
    let (k, search_weight) = FUSION;
    let mut scores: std::collections::HashMap<&str, f64> = std::collections::HashMap::new();
    for (ranking, weight) in [(search, search_weight), (model, 1.0)] {
        for (at, name) in ranking.iter().enumerate() {
            *scores.entry(name).or_default() += weight / (k + at as f64 + 1.0);
        }
    }
    let mut fused: Vec<(&str, f64)> = scores.into_iter().collect();
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    fused.into_iter().map(|(name, _)| name.to_owned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model of five tokens in two dimensions: `deploy` and `ship` point one way, `bake`
    /// and `bread` the other.
    fn model(folder: &Path) {
        std::fs::write(folder.join("config.json"), r#"{"rows": 5, "dims": 2}"#).expect("write");
        std::fs::write(
            folder.join("vocab.txt"),
            "[UNK]\ndeploy\nship\nbake\nbread\n",
        )
        .expect("write");
        let rows: [[f32; 2]; 5] = [[0.0, 0.0], [1.0, 0.1], [0.9, 0.0], [0.0, 1.0], [0.1, 0.9]];
        let bytes: Vec<u8> = rows
            .iter()
            .flatten()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        std::fs::write(folder.join("embeddings.f32"), bytes).expect("write");
    }

    #[test]
    fn texts_about_one_thing_are_closer_than_texts_about_another() {
        let folder = tempfile::tempdir().expect("tempdir");
        model(folder.path());
        let model = StaticModel::open(folder.path()).expect("open");
        let deploy = model.embed("Deploy it");
        let ship = model.embed("ship!");
        let bread = model.embed("bake bread");
        assert!(similarity(&deploy, &ship) > 0.99);
        assert!(similarity(&deploy, &bread) < 0.2);
        assert_eq!(model.embed("nothing known"), [0.0, 0.0]);
    }

    #[test]
    fn the_fusion_ranks_what_the_search_missed_by_meaning() {
        let folder = tempfile::tempdir().expect("tempdir");
        model(folder.path());
        let model = StaticModel::open(folder.path()).expect("open");
        let skills: Vec<(&str, Vec<f32>)> = [
            ("bakery", "Bake bread."),
            ("release", "Ship it."),
            ("other", "Nothing known."),
        ]
        .into_iter()
        .map(|(name, description)| (name, model.embed_skill(name, description)))
        .collect();
        let nearest = |query: &str| {
            let vectors = skills.iter().map(|(name, v)| (*name, v.as_slice()));
            super::nearest(&model.embed(query), vectors)
        };
        assert_eq!(nearest("deploy")[0], "release");
        // A skill of no known word, and a query of none, are near nothing.
        assert!(!nearest("deploy").contains(&"other".to_owned()));
        assert!(nearest("nothing known").is_empty());
        // The search found nothing for "deploy"; the model's nearest come first.
        assert_eq!(fused(&[], &nearest("deploy"))[0], "release");
        // The search's first stays first when the model agrees or does not know.
        let search = vec!["bakery".to_owned()];
        assert_eq!(fused(&search, &nearest("bread"))[0], "bakery");
    }

    #[test]
    fn a_model_whose_files_disagree_is_refused_naming_the_file() {
        let folder = tempfile::tempdir().expect("tempdir");
        model(folder.path());
        std::fs::write(folder.path().join("embeddings.f32"), [0u8; 12]).expect("write");
        let error = message_of(StaticModel::open(folder.path()));
        assert!(
            error.contains("embeddings.f32` is 12 bytes where 5 rows of 2 f32 take 40"),
            "{error}"
        );
        std::fs::write(folder.path().join("vocab.txt"), "a\nb\n").expect("write");
        let error = message_of(StaticModel::open(folder.path()));
        assert!(
            error.contains("vocab.txt` has 2 tokens where config.json says 5"),
            "{error}"
        );
        std::fs::write(folder.path().join("config.json"), "[]").expect("write");
        let error = message_of(StaticModel::open(folder.path()));
        assert!(
            error.contains("config.json` is not a model's configuration"),
            "{error}"
        );
        let missing = message_of(StaticModel::open(&folder.path().join("absent")));
        assert!(missing.starts_with("cannot read `"), "{missing}");
    }

    /// The message of the error `open` gave.
    fn message_of(result: Result<StaticModel, Error>) -> String {
        match result {
            Ok(_) => panic!("the model opened"),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn fusion_adds_reciprocal_ranks_with_the_search_counted_more() {
        let names = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        // k = 3, the search counted twice: a = 2/4 + 1/6 = 0.667, b = 2/5 + 1/4 = 0.65,
        // c (only the model's second) = 1/5.
        let ranking = fused(&names(&["a", "b"]), &names(&["b", "c", "a"]));
        assert_eq!(ranking, ["a", "b", "c"]);
        // The model alone decides what the search did not find.
        let ranking = fused(&names(&[]), &names(&["x", "y"]));
        assert_eq!(ranking, ["x", "y"]);
    }
}
