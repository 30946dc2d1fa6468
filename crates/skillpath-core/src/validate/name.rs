//! The rules for a skill's `name`, shared by every mode (each mode words them its own way),
//! and the one rule for a name that becomes a folder ([`check_folder_name`]).

use std::fmt;

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

/// Most bytes a folder's name may have: the limit of ext4, XFS, btrfs and APFS.
pub const MAX_FOLDER_NAME_BYTES: usize = 255;

/// Why a skill's name cannot be the name of its folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotAFolderName {
    /// The name, its control characters escaped so that it can be printed.
    pub shown: String,
    /// Why, as a clause ("it is `..`, the folder above").
    pub why: String,
}

impl fmt::Display for NotAFolderName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the name `{}` cannot be a folder's name: {}",
            self.shown, self.why
        )
    }
}

impl std::error::Error for NotAFolderName {}

/// Whether `name` (as the store keeps it: trimmed) can be the one folder a skill is installed,
/// exported and written in: skillpath builds `<agent folder>/<name>` from it, so it must be a
/// single path component that every agent reads on every system. Not empty, `.` or `..`; no
/// `/` or `\` and no leading drive (`C:`), so never absolute or elsewhere on Windows; no NUL or
/// other control character; no leading `.` (a
/// hidden folder, which agents skip; `.claude` would also look like an agent's own folder); not
/// a Windows device name (`CON`, `PRN`, `AUX`, `NUL`, `COM0`–`COM9`, `LPT0`–`LPT9`, in any case,
/// with or without an extension); at most [`MAX_FOLDER_NAME_BYTES`] bytes. Spaces are allowed:
/// real skills have them. The specification's name rules are stricter; this is the rule a
/// loader cannot relax.
pub fn check_folder_name(name: &str) -> Result<(), NotAFolderName> {
    let why = if name.is_empty() {
        Some("it is empty".to_owned())
    } else if name == "." {
        Some("`.` is the folder itself".to_owned())
    } else if name == ".." {
        Some("`..` is the folder above".to_owned())
    } else if let Some(separator) = name.chars().find(|c| matches!(c, '/' | '\\')) {
        Some(format!(
            "it has a `{separator}`, which separates folders in a path"
        ))
    } else if let Some(control) = name.chars().find(|c| c.is_control()) {
        Some(format!(
            "it has the control character U+{:04X}",
            u32::from(control)
        ))
    } else if name.as_bytes().get(1) == Some(&b':') && name.as_bytes()[0].is_ascii_alphabetic() {
        Some("it starts with a drive (`C:`), which Windows reads as a path elsewhere".to_owned())
    } else if name.starts_with('.') {
        Some("it starts with `.`, which makes a hidden folder that agents skip".to_owned())
    } else if is_windows_device_name(name) {
        Some("it is a device name on Windows, where no folder can have it".to_owned())
    } else if name.len() > MAX_FOLDER_NAME_BYTES {
        Some(format!(
            "it is {} bytes long; a folder's name has at most {MAX_FOLDER_NAME_BYTES}",
            name.len()
        ))
    } else {
        None
    };
    match why {
        None => Ok(()),
        Some(why) => Err(NotAFolderName {
            shown: name.chars().flat_map(printable).collect(),
            why,
        }),
    }
}

/// Why a name cannot be a handle: a namespace's or a person's name, which follows the skill-name
/// rule ([`check_handle`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotAHandle {
    /// The name, its control characters escaped so that it can be printed.
    pub shown: String,
    /// Why, as a clause ("it has uppercase letters").
    pub why: &'static str,
}

impl fmt::Display for NotAHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` cannot name a namespace or a person: {}; use 1 to {MAX_NAME_CHARS} lowercase letters, digits and single hyphens, as a skill's name",
            self.shown, self.why
        )
    }
}

impl std::error::Error for NotAHandle {}

/// Whether `name` is a handle: the name of a namespace (`@team-a` without its `@`) or of a
/// person. The skill-name rule (lowercase letters and digits of any script, single hyphens
/// inside, at most `MAX_NAME_CHARS` characters), with the name already in its normal form
/// (NFKC), so that two handles that look alike are one handle, stored as it is typed.
pub fn check_handle(name: &str) -> Result<(), NotAHandle> {
    let checked = check_name(name, None);
    let why = if name.is_empty() {
        Some("it is empty")
    } else if checked.normalized != name {
        Some("it is not in its normal form (NFKC); type it as plain letters")
    } else {
        checked.problems.first().map(|problem| match problem {
            NameProblem::TooLong(_) => "it is too long",
            NameProblem::NotLowercase => "it has uppercase letters",
            NameProblem::HyphenAtEdge => "it starts or ends with a hyphen",
            NameProblem::ConsecutiveHyphens => "it has two hyphens in a row",
            NameProblem::InvalidCharacters | NameProblem::DirectoryMismatch => {
                "it has characters other than letters, digits and hyphens"
            }
        })
    };
    match why {
        None => Ok(()),
        Some(why) => Err(NotAHandle {
            shown: name.chars().flat_map(printable).collect(),
            why,
        }),
    }
}

/// `c`, or its escape when it is a control character.
fn printable(c: char) -> Vec<char> {
    if c.is_control() {
        c.escape_default().collect()
    } else {
        vec![c]
    }
}

/// Whether `part` (a file or folder name) names a device on Windows: `CON`, `PRN`, `AUX`,
/// `NUL`, `COM0`–`COM9` or `LPT0`–`LPT9` (Windows documents the `0`s too), in any case, with or
/// without an extension (`con.txt`), and with trailing spaces (which Windows drops).
pub(crate) fn is_windows_device_name(part: &str) -> bool {
    let stem = part
        .split('.')
        .next()
        .unwrap_or_default()
        .trim_end_matches(' ')
        .to_ascii_uppercase();
    ["CON", "PRN", "AUX", "NUL"].contains(&stem.as_str())
        || (stem.len() == 4
            && (stem.starts_with("COM") || stem.starts_with("LPT"))
            && stem.as_bytes()[3].is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_follow_the_skill_name_rule_in_their_normal_form() {
        for good in ["team-a", "platform", "ci2", "équipe", "a"] {
            assert_eq!(check_handle(good), Ok(()), "{good}");
        }
        for (bad, why) in [
            ("", "it is empty"),
            ("Team", "it has uppercase letters"),
            ("-team", "it starts or ends with a hyphen"),
            ("team--a", "it has two hyphens in a row"),
            (
                "team_a",
                "it has characters other than letters, digits and hyphens",
            ),
            (
                "@team",
                "it has characters other than letters, digits and hyphens",
            ),
            (
                "ｔｅａｍ",
                "it is not in its normal form (NFKC); type it as plain letters",
            ),
        ] {
            assert_eq!(check_handle(bad).map_err(|e| e.why), Err(why), "{bad:?}");
        }
        let long = "a".repeat(MAX_NAME_CHARS + 1);
        assert_eq!(
            check_handle(&long).map_err(|e| e.why),
            Err("it is too long")
        );
        assert!(check_handle(&"a".repeat(MAX_NAME_CHARS)).is_ok());
        let shown = check_handle("a\nb")
            .expect_err("a control character")
            .to_string();
        assert!(shown.starts_with("`a"), "{shown}");
    }

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

    #[test]
    fn folder_names_are_one_safe_component() {
        for name in [
            "pdf-tools",
            "My Skill",
            "x.",
            "plugin:skill",
            "a..b",
            "console",
            "lpt10",
            "auxiliary",
            "技能",
            &"a".repeat(255),
        ] {
            assert_eq!(check_folder_name(name), Ok(()), "{name:?}");
        }
        let why = |name: &str| check_folder_name(name).expect_err(name).why;
        assert_eq!(why(""), "it is empty");
        assert_eq!(why("."), "`.` is the folder itself");
        assert_eq!(why(".."), "`..` is the folder above");
        for name in ["a/b", "/abs/path", "../../../x", "./x"] {
            assert!(why(name).contains("`/`"), "{name}");
        }
        assert!(why("x\\y").contains("`\\`"));
        assert!(why("C:x").contains("drive"));
        assert!(why("c:").contains("drive"));
        assert_eq!(why("a\0b"), "it has the control character U+0000");
        assert_eq!(why("a\u{1b}[31m"), "it has the control character U+001B");
        for name in [".claude", "...x", ".hidden file"] {
            assert!(why(name).contains("hidden folder"), "{name}");
        }
        for name in [
            "CON",
            "con",
            "nul.txt",
            "Aux.tar.gz",
            "COM1",
            "com0",
            "lpt9.md",
            "prn ",
        ] {
            assert!(why(name).contains("device name"), "{name}");
        }
        assert!(why(&"é".repeat(128)).contains("256 bytes long"));
        let shown = check_folder_name("a\u{7}b").expect_err("bell").shown;
        assert_eq!(shown, "a\\u{7}b");
        assert_eq!(
            check_folder_name("..").expect_err("dotdot").to_string(),
            "the name `..` cannot be a folder's name: `..` is the folder above"
        );
    }
}
