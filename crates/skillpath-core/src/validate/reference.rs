//! The reference validator's rules (`skills-ref` 0.1.1, `validator.py`), message for message
//! and in its order. Every frontmatter value is a string here, as strictyaml makes it.

use crate::diagnostic::{Code, Diagnostic};
use crate::python_unicode;
use crate::skill_md::SkillMd;
use crate::validate::name::{NameProblem, check_name};
use crate::yaml::{Node, NodeKind};

/// The fields the reference allows, sorted by code point as its message prints them.
const ALLOWED_FIELDS: [&str; 6] = [
    "allowed-tools",
    "compatibility",
    "description",
    "license",
    "metadata",
    "name",
];

/// Python's `isinstance(value, str)` for a strictyaml value: every scalar is a string.
fn as_str(node: &Node) -> Option<&str> {
    node.as_scalar().map(|scalar| scalar.text.as_str())
}

/// `validate_metadata(frontmatter, skill_dir)`: the rules that run once the frontmatter parsed.
/// `directory_name` is `Path(skill_dir).name` of the path as the user gave it.
pub(crate) fn check(skill: &SkillMd, directory_name: &str) -> Vec<Diagnostic> {
    let Some(root) = skill.frontmatter.as_ref() else {
        return Vec::new();
    };
    let NodeKind::Mapping(entries) = &root.kind else {
        return Vec::new();
    };
    let file = &skill.file;
    let mut out = Vec::new();

    let mut extra: Vec<&str> = entries
        .iter()
        .filter_map(|entry| as_str(&entry.key))
        .filter(|key| !ALLOWED_FIELDS.contains(key))
        .collect();
    if !extra.is_empty() {
        extra.sort_unstable();
        let first = entries
            .iter()
            .find(|e| as_str(&e.key).is_some_and(|k| !ALLOWED_FIELDS.contains(&k)));
        let allowed = ALLOWED_FIELDS
            .iter()
            .map(|f| format!("'{f}'"))
            .collect::<Vec<_>>()
            .join(", ");
        let diagnostic = Diagnostic::error(
            Code::FieldUnknown,
            format!(
                "Unexpected fields in frontmatter: {}. Only [{allowed}] are allowed.",
                extra.join(", ")
            ),
        );
        out.push(match first {
            Some(entry) => diagnostic.at(file, entry.key.range.clone()),
            None => diagnostic,
        });
    }

    match root.get("name") {
        None => out.push(
            Diagnostic::error(
                Code::NameMissing,
                "Missing required field in frontmatter: name",
            )
            .at(file, 0..0),
        ),
        Some(entry) => {
            let at = entry.value.range.clone();
            match as_str(&entry.value).map(python_unicode::strip) {
                Some(name) if !name.is_empty() => {
                    let name_check = check_name(name, Some(directory_name));
                    let n = &name_check.normalized;
                    for problem in name_check.problems {
                        let (code, message) = match problem {
                            NameProblem::TooLong(length) => (
                                Code::NameTooLong,
                                format!(
                                    "Skill name '{n}' exceeds 64 character limit ({length} chars)"
                                ),
                            ),
                            NameProblem::NotLowercase => (
                                Code::NameNotLowercase,
                                format!("Skill name '{n}' must be lowercase"),
                            ),
                            NameProblem::HyphenAtEdge => (
                                Code::NameHyphenEdge,
                                "Skill name cannot start or end with a hyphen".to_owned(),
                            ),
                            NameProblem::ConsecutiveHyphens => (
                                Code::NameConsecutiveHyphens,
                                "Skill name cannot contain consecutive hyphens".to_owned(),
                            ),
                            NameProblem::InvalidCharacters => (
                                Code::NameInvalidCharacters,
                                format!(
                                    "Skill name '{n}' contains invalid characters. Only letters, digits, and hyphens are allowed."
                                ),
                            ),
                            NameProblem::DirectoryMismatch => (
                                Code::NameDirectoryMismatch,
                                format!(
                                    "Directory name '{directory_name}' must match skill name '{n}'"
                                ),
                            ),
                        };
                        out.push(Diagnostic::error(code, message).at(file, at.clone()));
                    }
                }
                _ => out.push(
                    Diagnostic::error(Code::NameEmpty, "Field 'name' must be a non-empty string")
                        .at(file, at),
                ),
            }
        }
    }

    match root.get("description") {
        None => out.push(
            Diagnostic::error(
                Code::DescriptionMissing,
                "Missing required field in frontmatter: description",
            )
            .at(file, 0..0),
        ),
        Some(entry) => {
            let at = entry.value.range.clone();
            match as_str(&entry.value) {
                Some(description) if !python_unicode::strip(description).is_empty() => {
                    let length = description.chars().count();
                    if length > 1024 {
                        out.push(
                            Diagnostic::error(
                                Code::DescriptionTooLong,
                                format!(
                                    "Description exceeds 1024 character limit ({length} chars)"
                                ),
                            )
                            .at(file, at),
                        );
                    }
                }
                _ => out.push(
                    Diagnostic::error(
                        Code::DescriptionEmpty,
                        "Field 'description' must be a non-empty string",
                    )
                    .at(file, at),
                ),
            }
        }
    }

    if let Some(entry) = root.get("compatibility") {
        let at = entry.value.range.clone();
        match as_str(&entry.value) {
            None => out.push(
                Diagnostic::error(
                    Code::CompatibilityNotString,
                    "Field 'compatibility' must be a string",
                )
                .at(file, at),
            ),
            Some(compatibility) => {
                let length = compatibility.chars().count();
                if length > 500 {
                    out.push(
                        Diagnostic::error(
                            Code::CompatibilityTooLong,
                            format!("Compatibility exceeds 500 character limit ({length} chars)"),
                        )
                        .at(file, at),
                    );
                }
            }
        }
    }
    out
}

/// The frontmatter as the reference's Python data: every scalar a string, mappings in order.
pub(crate) fn python_value(node: &Node) -> serde_json::Value {
    use serde_json::Value;
    match &node.kind {
        NodeKind::Scalar(scalar) => Value::String(scalar.text.clone()),
        NodeKind::Sequence(items) => Value::Array(items.iter().map(python_value).collect()),
        NodeKind::Mapping(entries) => Value::Object(
            entries
                .iter()
                .map(|entry| {
                    (
                        as_str(&entry.key).unwrap_or_default().to_owned(),
                        python_value(&entry.value),
                    )
                })
                .collect(),
        ),
    }
}

/// Python's `str(value)` of a strictyaml value: strings as they are, lists and dicts as `repr`.
pub(crate) fn python_str(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        other => python_repr(other),
    }
}

fn python_repr(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::String(s) => python_unicode::repr_str(s),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(python_repr).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(map) => format!(
            "{{{}}}",
            map.iter()
                .map(|(k, v)| format!("{}: {}", python_unicode::repr_str(k), python_repr(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        // strictyaml produces only strings, lists and dicts.
        other => other.to_string(),
    }
}
