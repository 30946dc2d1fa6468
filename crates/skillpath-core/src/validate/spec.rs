//! The specification's rules (`--mode spec`), and the client guide's relaxations of them
//! (`--mode lenient`: warn on a name that does not match its folder or is too long, and load).

use crate::diagnostic::{Code, Diagnostic, SourceFile};
use crate::mode::Mode;
use crate::skill_md::SkillMd;
use crate::validate::name::{MAX_NAME_CHARS, NameProblem, check_folder_name, check_name};
use crate::yaml::{self, Node, NodeKind, ScalarStyle};

/// The fields the specification defines.
pub(crate) const SPEC_FIELDS: [&str; 6] = [
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
];

/// Frontmatter keys that agents define beyond the specification, and which agents read them.
const AGENT_EXTENSIONS: &[(&str, &str)] = &[
    (
        "disable-model-invocation",
        "Claude Code, GitHub Copilot and Cursor",
    ),
    ("user-invocable", "Claude Code and GitHub Copilot"),
    ("argument-hint", "Claude Code and GitHub Copilot"),
    ("arguments", "Claude Code"),
    ("model", "Claude Code"),
    ("effort", "Claude Code"),
    ("context", "Claude Code"),
    ("agent", "Claude Code"),
    ("hooks", "Claude Code"),
    ("paths", "Claude Code"),
    ("shell", "Claude Code"),
    ("when_to_use", "Claude Code"),
];

/// The specification's limit on `description`, in characters (code points).
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// The specification's limit on `compatibility`, in characters (code points).
pub const MAX_COMPATIBILITY_CHARS: usize = 500;

/// Checks the frontmatter fields. `directory_name` is the real name of the skill's folder.
pub(crate) fn check(skill: &SkillMd, directory_name: Option<&str>, mode: Mode) -> Vec<Diagnostic> {
    let Some(root) = skill.frontmatter.as_ref() else {
        return Vec::new();
    };
    let NodeKind::Mapping(entries) = &root.kind else {
        return Vec::new();
    };
    let file = &skill.file;
    let lenient = mode == Mode::Lenient;
    // In lenient mode the guide says "warn, but load" for these.
    let relaxed = |diagnostic: Diagnostic| {
        if lenient {
            diagnostic.downgraded()
        } else {
            diagnostic
        }
    };
    let mut out = Vec::new();

    for entry in entries {
        let Some(key) = entry.key.as_scalar().map(|scalar| scalar.text.as_str()) else {
            continue;
        };
        if SPEC_FIELDS.contains(&key) || crate::golden_path::FIELDS.contains(&key) {
            continue;
        }
        let diagnostic = match AGENT_EXTENSIONS.iter().find(|(name, _)| *name == key) {
            Some((_, agents)) => Diagnostic::warning(
                Code::FieldExtension,
                format!("`{key}` is an extension read by {agents}, not a field of the specification"),
            )
            .with_hint("other agents ignore it; keep it if you target those agents"),
            None => Diagnostic::warning(Code::FieldUnknown, format!("unknown frontmatter field `{key}`"))
                .with_hint("agents ignore unknown fields; put custom data under `metadata:` as `key: \"value\"` pairs"),
        };
        out.push(diagnostic.at(file, entry.key.range.clone()));
    }

    match root.get("name") {
        None => out.push(
            Diagnostic::error(Code::NameMissing, "the required field `name` is missing")
                .with_hint("add `name: <folder-name>` to the frontmatter")
                .at(file, 0..0),
        ),
        Some(entry) => match string_value(file, &entry.value, "name", Code::NameNotString) {
            Err(diagnostic) => out.push(relaxed_type(diagnostic, &entry.value, lenient)),
            Ok(name) if name.trim().is_empty() => out.push(
                Diagnostic::error(Code::NameEmpty, "`name` is empty")
                    .with_hint("use the folder's name: lowercase letters, digits and hyphens")
                    .at(file, entry.value.range.clone()),
            ),
            Ok(name) => out.extend(check_name_value(
                file,
                &entry.value,
                name,
                directory_name,
                lenient,
            )),
        },
    }

    match root.get("description") {
        None => out.push(
            Diagnostic::error(
                Code::DescriptionMissing,
                "the required field `description` is missing",
            )
            .with_hint("add `description:` saying what the skill does and when to use it")
            .at(file, 0..0),
        ),
        Some(entry) => {
            match string_value(
                file,
                &entry.value,
                "description",
                Code::DescriptionNotString,
            ) {
                Err(diagnostic) => out.push(relaxed_type(diagnostic, &entry.value, lenient)),
                Ok(description) if description.trim().is_empty() => out.push(
                    Diagnostic::error(Code::DescriptionEmpty, "`description` is empty")
                        .with_hint("say what the skill does and when an agent should use it")
                        .at(file, entry.value.range.clone()),
                ),
                Ok(description) => {
                    if let Some(diagnostic) = length_error(
                        "description",
                        description,
                        MAX_DESCRIPTION_CHARS,
                        Code::DescriptionTooLong,
                    ) {
                        out.push(relaxed(
                        diagnostic
                            .with_hint("keep the description to what and when; move details into the body")
                            .at(file, entry.value.range.clone()),
                    ));
                    }
                }
            }
        }
    }

    if let Some(entry) = root.get("license")
        && let Err(diagnostic) = string_value(file, &entry.value, "license", Code::LicenseNotString)
    {
        out.push(relaxed_type(diagnostic, &entry.value, lenient));
    }

    if let Some(entry) = root.get("compatibility") {
        match string_value(
            file,
            &entry.value,
            "compatibility",
            Code::CompatibilityNotString,
        ) {
            Err(diagnostic) => out.push(relaxed_type(diagnostic, &entry.value, lenient)),
            Ok(text) if text.trim().is_empty() => out.push(relaxed(
                Diagnostic::error(
                    Code::CompatibilityEmpty,
                    "`compatibility` is empty; when given it must say something",
                )
                .with_hint("remove the field, or name the environment the skill needs")
                .at(file, entry.value.range.clone()),
            )),
            Ok(text) => {
                if let Some(diagnostic) = length_error(
                    "compatibility",
                    text,
                    MAX_COMPATIBILITY_CHARS,
                    Code::CompatibilityTooLong,
                ) {
                    out.push(relaxed(diagnostic.at(file, entry.value.range.clone())));
                }
            }
        }
    }

    if let Some(entry) = root.get("metadata") {
        match &entry.value.kind {
            NodeKind::Mapping(items) => {
                for item in items {
                    let key = item
                        .key
                        .as_scalar()
                        .map_or("?", |scalar| scalar.text.as_str());
                    if !yaml::to_json(&item.key).is_string() {
                        out.push(relaxed(
                            Diagnostic::error(
                                Code::MetadataKeyNotString,
                                format!(
                                    "`metadata` keys must be strings, but YAML reads `{key}` as {}",
                                    describe(&item.key)
                                ),
                            )
                            .with_hint(format!("quote it: \"{key}\""))
                            .at(file, item.key.range.clone()),
                        ));
                    }
                    let label = format!("metadata.{key}");
                    if let Err(diagnostic) =
                        string_value(file, &item.value, &label, Code::MetadataValueNotString)
                    {
                        out.push(relaxed(diagnostic));
                    }
                }
            }
            _ => out.push(relaxed(
                Diagnostic::error(
                    Code::MetadataNotMapping,
                    format!(
                        "`metadata` must be a mapping of strings to strings, found {}",
                        describe(&entry.value)
                    ),
                )
                .with_hint("write it as indented `key: \"value\"` lines under `metadata:`")
                .at(file, entry.value.range.clone()),
            )),
        }
    }

    if let Some(entry) = root.get("allowed-tools")
        && let Err(diagnostic) = string_value(
            file,
            &entry.value,
            "allowed-tools",
            Code::AllowedToolsNotString,
        )
    {
        let diagnostic = diagnostic.with_hint(
            "write the tools as one space-separated string: `allowed-tools: Read Bash(git:*)`",
        );
        out.push(relaxed(diagnostic));
    }
    out
}

/// The text of a value that must be a string: a quoted or block scalar, or a plain scalar that
/// YAML reads as a string (`1.0`, `true` and `null` are not).
fn string_value<'a>(
    file: &SourceFile,
    node: &'a Node,
    label: &str,
    code: Code,
) -> Result<&'a str, Diagnostic> {
    match &node.kind {
        NodeKind::Scalar(scalar) if scalar.style == ScalarStyle::Empty => Ok(""),
        NodeKind::Scalar(scalar) if yaml::to_json(node).is_string() => Ok(&scalar.text),
        NodeKind::Scalar(scalar) => Err(Diagnostic::error(
            code,
            format!(
                "`{label}` must be a string, but YAML reads `{}` as {}",
                scalar.text,
                describe(node)
            ),
        )
        .with_hint(format!(
            "quote it: \"{}\"",
            scalar.text.replace('"', "\\\"")
        ))
        .at(file, node.range.clone())),
        _ => Err(Diagnostic::error(
            code,
            format!("`{label}` must be a string, found {}", describe(node)),
        )
        .at(file, node.range.clone())),
    }
}

/// An error when `text` is over `max` characters (code points, as the specification's
/// reference counts them).
fn length_error(field: &str, text: &str, max: usize, code: Code) -> Option<Diagnostic> {
    let length = text.chars().count();
    (length > max).then(|| {
        Diagnostic::error(
            code,
            format!("`{field}` is {length} characters long; the limit is {max}"),
        )
    })
}

/// A typed scalar where a string belongs is a warning in lenient mode (loaders stringify it);
/// a list or mapping stays an error.
fn relaxed_type(diagnostic: Diagnostic, node: &Node, lenient: bool) -> Diagnostic {
    if lenient && node.as_scalar().is_some() {
        diagnostic.downgraded()
    } else {
        diagnostic
    }
}

fn describe(node: &Node) -> &'static str {
    match yaml::to_json(node) {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "a list",
        serde_json::Value::Object(_) => "a mapping",
    }
}

fn check_name_value(
    file: &SourceFile,
    node: &Node,
    name: &str,
    directory_name: Option<&str>,
    lenient: bool,
) -> Vec<Diagnostic> {
    let range = node.range.clone();
    let name_check = check_name(name, directory_name);
    let mut out: Vec<Diagnostic> = name_check
        .problems
        .into_iter()
        .map(|problem| {
            let diagnostic = match problem {
                NameProblem::TooLong(length) => Diagnostic::error(
                    Code::NameTooLong,
                    format!("`name` is {length} characters long; the limit is {MAX_NAME_CHARS}"),
                ),
                NameProblem::NotLowercase => Diagnostic::error(
                    Code::NameNotLowercase,
                    format!("`name` `{name}` must be lowercase"),
                )
                .with_hint(format!("use `{}`", name.to_lowercase())),
                NameProblem::HyphenAtEdge => Diagnostic::error(
                    Code::NameHyphenEdge,
                    "`name` must not start or end with a hyphen",
                ),
                NameProblem::ConsecutiveHyphens => {
                    Diagnostic::error(Code::NameConsecutiveHyphens, "`name` must not contain `--`")
                }
                NameProblem::InvalidCharacters => Diagnostic::error(
                    Code::NameInvalidCharacters,
                    format!(
                        "`name` `{name}` may only contain lowercase letters, digits and hyphens"
                    ),
                )
                .with_hint(format!("use `{}`", suggested_name(name))),
                NameProblem::DirectoryMismatch => Diagnostic::error(
                    Code::NameDirectoryMismatch,
                    format!(
                        "`name` `{name}` does not match the skill's folder `{}`",
                        directory_name.unwrap_or_default()
                    ),
                )
                .with_hint(
                    "rename the folder or change `name`; agents identify a skill by its folder",
                ),
            };
            let relaxable = matches!(
                diagnostic.code,
                Code::NameTooLong | Code::NameDirectoryMismatch
            );
            let diagnostic = if lenient && relaxable {
                diagnostic.downgraded()
            } else {
                diagnostic
            };
            diagnostic.at(file, range.clone())
        })
        .collect();
    // What a loader stores and writes a folder for is the name trimmed; no mode relaxes this.
    if let Err(problem) = check_folder_name(name.trim()) {
        out.push(
            Diagnostic::error(Code::NameNotAFolderName, problem.to_string())
                .with_hint("skillpath installs and exports a skill as a folder of its name: use lowercase letters, digits and hyphens")
                .at(file, range.clone()),
        );
    }
    if !name.is_ascii() && !out.iter().any(Diagnostic::is_error) {
        out.push(
            Diagnostic::warning(
                Code::NameNotAscii,
                format!(
                    "`name` `{name}` has non-ASCII characters, so it is no MCP tool name: without an ASCII `tool_name` the skill gets no tool of its own (it stays reachable through `load_skill` and its resources)"
                ),
            )
            .with_hint("use `a-z`, `0-9` and `-`, or give it an ASCII `tool_name`; some agents accept only those in names")
            .at(file, range),
        );
    }
    out
}

/// A name that would pass: lowercase, runs of other characters turned into single hyphens.
fn suggested_name(name: &str) -> String {
    let mut out = String::new();
    for c in name.to_lowercase().chars() {
        if c.is_ascii_alphanumeric() || (c.is_alphanumeric() && !c.is_ascii()) {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_owned()
}

/// Whether `description` keeps the specification's hard rules: not blank, and at most
/// [`MAX_DESCRIPTION_CHARS`] characters (counted as `check` counts them).
pub fn description_within_limits(description: &str) -> bool {
    !description.trim().is_empty() && description.chars().count() <= MAX_DESCRIPTION_CHARS
}
