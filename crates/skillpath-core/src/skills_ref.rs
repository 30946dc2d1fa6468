//! What the reference CLI (`agentskills read-properties` and `to-prompt`) prints, byte for byte.

use std::path::Path;

use crate::catalog::CatalogEntry;
use crate::load::{self, LoadOptions};
use crate::mode::Mode;
use crate::pathlib;
use crate::python_unicode;
use crate::skill_md::SkillMd;
use crate::validate::reference::{python_str, python_value};

/// The properties of a skill as the reference reads them (`read_properties`): no name rules,
/// no length limits, unknown fields ignored.
pub struct Properties {
    /// `name`, stripped.
    pub name: String,
    /// `description`, stripped.
    pub description: String,
    /// The `read-properties` JSON object, keys in the reference's order.
    pub json: serde_json::Value,
}

/// Why the reference refuses to read a skill's properties. Each message is the text the reference
/// prints after `Error: `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReferenceError {
    /// No `SKILL.md` (or `skill.md`) in the folder, displayed as Python would.
    #[error("SKILL.md not found in {0}")]
    NoSkillMd(String),
    /// The file cannot be read or parsed: the first diagnostic's message.
    #[error("{0}")]
    Unreadable(String),
    /// The frontmatter is not a mapping.
    #[error("SKILL.md frontmatter must be a YAML mapping")]
    NotAMapping,
    /// `name` or `description` is missing.
    #[error("Missing required field in frontmatter: {0}")]
    MissingField(&'static str),
    /// `name` or `description` is empty or not a string.
    #[error("Field '{0}' must be a non-empty string")]
    EmptyField(&'static str),
}

/// `read_properties(skill_dir)`. `Err` is the message the reference prints after `Error: `
/// (for a file the reference crashes on, such as invalid UTF-8, what went wrong in our words);
/// `dir` appears in it as Python would display it.
pub fn read_properties(dir: &Path, max_file_size: u64) -> Result<Properties, ReferenceError> {
    let Some((path, _)) = crate::disk::find_skill_md(dir) else {
        return Err(ReferenceError::NoSkillMd(pathlib::display(dir)));
    };
    let text = load::read_text(&path, max_file_size)
        .map_err(|diagnostic| ReferenceError::Unreadable(diagnostic.message))?;
    let skill = crate::skill_md::parse(path, text, Mode::SkillsRef);
    if let Some(diagnostic) = skill.diagnostics.first() {
        return Err(ReferenceError::Unreadable(diagnostic.message.clone()));
    }
    properties(&skill)
}

fn properties(skill: &SkillMd) -> Result<Properties, ReferenceError> {
    let root = skill
        .frontmatter
        .as_ref()
        .ok_or(ReferenceError::NotAMapping)?;
    for key in ["name", "description"] {
        root.get(key).ok_or(ReferenceError::MissingField(key))?;
    }
    let non_empty = |key: &'static str| -> Result<String, ReferenceError> {
        root.get(key)
            .and_then(|entry| entry.value.as_scalar())
            .map(|scalar| python_unicode::strip(&scalar.text))
            .filter(|value| !value.is_empty())
            .map(str::to_owned)
            .ok_or(ReferenceError::EmptyField(key))
    };
    let name = non_empty("name")?;
    let description = non_empty("description")?;

    let mut json = serde_json::Map::new();
    json.insert("name".into(), name.clone().into());
    json.insert("description".into(), description.clone().into());
    for key in ["license", "compatibility", "allowed-tools"] {
        if let Some(entry) = root.get(key) {
            json.insert(key.into(), python_value(&entry.value));
        }
    }
    if let Some(entry) = root.get("metadata") {
        let metadata = match python_value(&entry.value) {
            serde_json::Value::Object(map) => serde_json::Value::Object(
                map.into_iter()
                    .map(|(k, v)| (k, python_str(&v).into()))
                    .collect(),
            ),
            other => other,
        };
        let truthy = match &metadata {
            serde_json::Value::Object(map) => !map.is_empty(),
            serde_json::Value::Array(items) => !items.is_empty(),
            serde_json::Value::String(s) => !s.is_empty(),
            _ => true,
        };
        if truthy {
            json.insert("metadata".into(), metadata);
        }
    }
    Ok(Properties {
        name,
        description,
        json: serde_json::Value::Object(json),
    })
}

/// The output of `agentskills read-properties`: Python's `json.dumps(indent=2)` of the properties.
pub fn properties_json(properties: &Properties) -> String {
    python_unicode::json_dumps_indent2(&properties.json)
}

/// One skill in the `to-prompt` block.
pub struct PromptEntry {
    /// The skill's properties.
    pub properties: Properties,
    /// Absolute path of its `SKILL.md`.
    pub location: String,
}

/// Reads the skill at `dir` for `to-prompt`: the path is resolved (symlinks too) first, as the
/// reference does, so messages and locations are absolute.
pub fn prompt_entry(dir: &Path) -> Result<PromptEntry, ReferenceError> {
    let resolved = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let properties = read_properties(&resolved, LoadOptions::default().max_file_size)?;
    let location = crate::disk::find_skill_md(&resolved)
        .map(|(path, _)| path.display().to_string())
        .unwrap_or_default();
    Ok(PromptEntry {
        properties,
        location,
    })
}

/// The `<available_skills>` block of `agentskills to-prompt`, without the final line feed.
pub fn to_prompt(entries: &[PromptEntry]) -> String {
    available_skills(
        entries.iter().map(|entry| {
            (
                entry.properties.name.as_str(),
                entry.properties.description.as_str(),
                entry.location.as_str(),
            )
        }),
        false,
    )
}

/// The reference's `to-prompt` layout for skillpath's own modes, with the location escaped too
/// (the reference leaves it raw, which breaks the XML for a folder named `a&b`); without the
/// final line feed.
pub fn to_prompt_escaped(entries: &[CatalogEntry]) -> String {
    available_skills(
        entries.iter().map(|entry| {
            (
                entry.name.as_str(),
                entry.description.as_str(),
                entry.location.as_str(),
            )
        }),
        true,
    )
}

/// The reference's `<available_skills>` layout, one tag or value a line, of each skill's name,
/// description and location; the location escaped only when `escape_location`.
fn available_skills<'a>(
    entries: impl Iterator<Item = (&'a str, &'a str, &'a str)>,
    escape_location: bool,
) -> String {
    let mut lines = vec!["<available_skills>".to_owned()];
    for (name, description, location) in entries {
        let location = if escape_location {
            python_unicode::html_escape(location)
        } else {
            location.to_owned()
        };
        lines.extend([
            "<skill>".to_owned(),
            "<name>".to_owned(),
            python_unicode::html_escape(name),
            "</name>".to_owned(),
            "<description>".to_owned(),
            python_unicode::html_escape(description),
            "</description>".to_owned(),
            "<location>".to_owned(),
            location,
            "</location>".to_owned(),
            "</skill>".to_owned(),
        ]);
    }
    lines.push("</available_skills>".to_owned());
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_layout_with_the_location_raw_or_escaped() {
        let entry = CatalogEntry {
            name: "a&b".into(),
            description: "Use <x>".into(),
            location: "/s/a&b/SKILL.md".into(),
        };
        let escaped = to_prompt_escaped(std::slice::from_ref(&entry));
        assert_eq!(
            escaped,
            "<available_skills>\n<skill>\n<name>\na&amp;b\n</name>\n<description>\nUse &lt;x&gt;\n</description>\n<location>\n/s/a&amp;b/SKILL.md\n</location>\n</skill>\n</available_skills>"
        );
        let raw = to_prompt(&[PromptEntry {
            properties: Properties {
                name: entry.name.clone(),
                description: entry.description.clone(),
                json: serde_json::Value::Null,
            },
            location: entry.location.clone(),
        }]);
        assert_eq!(raw, escaped.replace("/s/a&amp;b/", "/s/a&b/"));
    }
}
