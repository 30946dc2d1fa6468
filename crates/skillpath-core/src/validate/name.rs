//! The rules for a skill's `name`, shared by every mode (each mode words them its own way).

use unicode_normalization::UnicodeNormalization;

use crate::python_unicode;

/// Most characters a name may have.
pub(crate) const MAX_NAME_CHARS: usize = 64;

/// One thing wrong with a name, in the order the reference validator checks them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NameProblem {
    TooLong(usize),
    NotLowercase,
    HyphenAtEdge,
    ConsecutiveHyphens,
    InvalidCharacters,
    DirectoryMismatch,
}

/// The name after NFKC normalization, and its problems.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NameCheck {
    pub(crate) normalized: String,
    pub(crate) problems: Vec<NameProblem>,
}

/// Checks `name` (already stripped by the caller if the mode strips) against the format's
/// rules, and against `directory` when given. Both are compared after NFKC normalization, as
/// the reference does: `ｆｕｌｌ` is `full`, and a decomposed `cafe\u{301}` matches `café`.
pub(crate) fn check_name(name: &str, directory: Option<&str>) -> NameCheck {
    let normalized: String = name.nfkc().collect();
    let mut problems = Vec::new();
    let length = normalized.chars().count();
    if length > MAX_NAME_CHARS {
        problems.push(NameProblem::TooLong(length));
    }
    if normalized != normalized.to_lowercase() {
        problems.push(NameProblem::NotLowercase);
    }
    if normalized.starts_with('-') || normalized.ends_with('-') {
        problems.push(NameProblem::HyphenAtEdge);
    }
    if normalized.contains("--") {
        problems.push(NameProblem::ConsecutiveHyphens);
    }
    if !normalized
        .chars()
        .all(|c| c == '-' || python_unicode::is_alnum(c))
    {
        problems.push(NameProblem::InvalidCharacters);
    }
    if let Some(directory) = directory
        && directory.nfkc().collect::<String>() != normalized
    {
        problems.push(NameProblem::DirectoryMismatch);
    }
    NameCheck {
        normalized,
        problems,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(name: &str) -> Vec<NameProblem> {
        check_name(name, None).problems
    }

    #[test]
    fn valid_names_in_any_script() {
        for name in [
            "pdf-processing",
            "技能",
            "мой-навык",
            "ß",
            "٣",
            "x²",
            "ⅻ",
            "ｆｕｌｌ",
        ] {
            assert_eq!(problems(name), [], "{name}");
        }
    }

    #[test]
    fn each_rule_fires_alone() {
        assert_eq!(problems(&"a".repeat(65)), [NameProblem::TooLong(65)]);
        assert_eq!(problems(&"ﬁ".repeat(33)), [NameProblem::TooLong(66)]);
        assert_eq!(problems("Upper"), [NameProblem::NotLowercase]);
        assert_eq!(problems("ǅ"), [NameProblem::NotLowercase]);
        assert_eq!(problems("trail-"), [NameProblem::HyphenAtEdge]);
        assert_eq!(problems("a--b"), [NameProblem::ConsecutiveHyphens]);
        assert_eq!(problems("a_b"), [NameProblem::InvalidCharacters]);
        assert_eq!(problems("हिंदी"), [NameProblem::InvalidCharacters]);
        assert_eq!(problems("½"), [NameProblem::InvalidCharacters]);
    }

    #[test]
    fn directory_comparison_is_normalized() {
        assert_eq!(check_name("cafe\u{301}", Some("café")).problems, []);
        assert_eq!(check_name("full", Some("ｆｕｌｌ")).problems, []);
        assert_eq!(
            check_name("a", Some("b")).problems,
            [NameProblem::DirectoryMismatch]
        );
    }
}
