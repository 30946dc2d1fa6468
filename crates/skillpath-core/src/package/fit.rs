//! Which packages fit a project: `analyze_requirements` ranks packages against a description of
//! the project, the team and its constraints, and says why each fits. The score is the share of
//! the package's distinctive words (from its name, description, layers, tech stack and option
//! values) that the description names, each word weighted by how few of the packages have it
//! (a word every package has tells them apart from nothing); a package that names none of the
//! description's words does not fit at all. Pure and deterministic: the same packages and
//! description always rank alike.

use std::collections::{BTreeMap, BTreeSet};

use super::Package;

/// A package that fits, with its score and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Fit<'a> {
    /// The package.
    pub package: &'a Package,
    /// Higher fits better; above 0.
    pub score: f64,
    /// The words of the description the package has, in the order of the package's fields
    /// (tech stack first, then layers, options, name, description).
    pub matched: Vec<String>,
}

impl Fit<'_> {
    /// Why the package fits, for a person.
    pub fn why(&self) -> String {
        format!(
            "`{}` matches {}: {}",
            self.package.name,
            if self.matched.len() == 1 {
                "one term"
            } else {
                "these terms"
            },
            self.matched.join(", ")
        )
    }
}

/// Words too common to tell packages apart.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "into", "is", "it",
    "its", "of", "on", "or", "our", "that", "the", "their", "this", "to", "use", "we", "when",
    "with", "you", "your", "new", "existing",
];

/// The words of `text`: lowercase runs of letters, digits, `#`, `+` and `.` inside a word
/// (`.net`, `c#`, `c++`, `ef`), without stop words.
fn words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !(c.is_alphanumeric() || matches!(c, '#' | '+' | '.')))
        .map(|word| word.trim_end_matches('.').to_lowercase())
        .filter(|word| !word.is_empty() && !STOP_WORDS.contains(&word.as_str()))
        .collect()
}

/// The words of a package, each field's in order.
fn package_words(package: &Package) -> Vec<String> {
    let mut fields: Vec<String> = package.tech_stack.clone();
    fields.extend(package.layers.iter().map(|layer| layer.name.clone()));
    for option in &package.options {
        fields.extend(option.allowed.iter().flatten().cloned());
    }
    fields.push(package.name.replace('-', " "));
    fields.push(package.description.clone());
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for field in fields {
        for word in words(&field) {
            if seen.insert(word.clone()) {
                out.push(word);
            }
        }
    }
    out
}

/// The packages of `packages` that fit `description`, best first (ties by name).
pub fn rank<'a>(packages: &'a [Package], description: &str) -> Vec<Fit<'a>> {
    let wanted = words(description);
    let per_package: Vec<Vec<String>> = packages.iter().map(package_words).collect();
    let mut frequency: BTreeMap<&str, usize> = BTreeMap::new();
    for package_words in &per_package {
        for word in package_words {
            *frequency.entry(word.as_str()).or_default() += 1;
        }
    }
    let count = packages.len() as f64;
    let weight = |word: &str| (1.0 + count / frequency.get(word).copied().unwrap_or(1) as f64).ln();
    let mut fits: Vec<Fit<'a>> = packages
        .iter()
        .zip(&per_package)
        .filter_map(|(package, package_words)| {
            let matched: Vec<String> = package_words
                .iter()
                .filter(|word| wanted.contains(word.as_str()))
                .cloned()
                .collect();
            if matched.is_empty() {
                return None;
            }
            let total: f64 = package_words.iter().map(|word| weight(word)).sum();
            let hit: f64 = matched.iter().map(|word| weight(word)).sum();
            // The share of the description the package covers counts as much as the share of
            // the package the description names.
            let coverage = matched.len() as f64 / wanted.len().max(1) as f64;
            Some(Fit {
                package,
                score: hit / total.max(f64::EPSILON) + coverage,
                matched,
            })
        })
        .collect();
    fits.sort_by(|a, b| {
        b.score
            .partial_cmp(&a.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.package.name.cmp(&b.package.name))
    });
    fits
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::package::Layer;

    fn package(name: &str, description: &str, stack: &[&str]) -> Package {
        Package {
            name: name.to_owned(),
            description: description.to_owned(),
            layers: vec![Layer {
                name: "Api".to_owned(),
                description: None,
            }],
            tech_stack: stack.iter().map(|s| (*s).to_owned()).collect(),
            options: Vec::new(),
            skills: Vec::new(),
            docs: Vec::new(),
        }
    }

    #[test]
    fn the_fitting_package_ranks_first_and_an_unrelated_description_fits_none() {
        let packages = [
            package(
                "dotnet-clean-architecture",
                "A .NET service in clean architecture with EF Core on PostgreSQL.",
                &[".NET 8", "EF Core", "PostgreSQL"],
            ),
            package(
                "python-fastapi-service",
                "A Python HTTP service with FastAPI and SQLAlchemy.",
                &["Python", "FastAPI", "SQLAlchemy"],
            ),
            package(
                "react-spa",
                "A single-page web front end in React and TypeScript.",
                &["React", "TypeScript", "Vite"],
            ),
        ];
        let fits = rank(
            &packages,
            "Our team of C# developers needs a .NET backend on PostgreSQL with EF Core",
        );
        assert_eq!(
            fits[0].package.name, "dotnet-clean-architecture",
            "{fits:?}"
        );
        assert!(
            fits[0].matched.contains(&".net".to_owned())
                && fits[0].matched.contains(&"postgresql".to_owned())
        );
        assert!(fits[0].why().contains("postgresql"), "{}", fits[0].why());
        let fits = rank(&packages, "a FastAPI service in Python");
        assert_eq!(fits[0].package.name, "python-fastapi-service");
        assert!(rank(&packages, "knitting patterns for winter scarves").is_empty());
        // The same input ranks the same way.
        assert_eq!(rank(&packages, "service"), rank(&packages, "service"));
    }
}
