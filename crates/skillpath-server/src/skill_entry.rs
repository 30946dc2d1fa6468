//! A skill as an entry of MCP's Skills extension (`skills/list`, `skills/get`), or why the
//! extension cannot carry it. The catalog works the entry out once per skill when it loads, so
//! this module needs nothing of the server but the URIs.

use rmcp::model::{SkillFrontmatter, SkillResource, SkillResources};
use skillpath_audit::AuditRecord;
use skillpath_core::skill_md::SkillMd;
use skillpath_model::FileMetadata;

use crate::uri;

/// Why the Skills extension's clients would refuse a skill's entry, if they would, by its
/// frontmatter's other `fields` (without `name` and `description`). These are the rules the
/// official TypeScript SDK's `SkillsClient.list()` checks every entry against beyond
/// [`rmcp::model::Skill::validate`]'s, and it refuses the whole listing at the first entry that
/// breaks one: a name of lowercase ASCII letters, digits and single hyphens (the
/// specification's letters, as clients match them), a `compatibility` of 1 to 500 characters,
/// `metadata` that maps strings to strings, and no `__proto__` field (a JavaScript object
/// cannot hold one).
pub(crate) fn refused_by_clients(
    name: &str,
    fields: &serde_json::Map<String, serde_json::Value>,
) -> Option<String> {
    use serde_json::Value;
    // The length is `Skill::validate`'s to check.
    let ascii_name = name.split('-').all(|part| {
        !part.is_empty()
            && part
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    });
    if !ascii_name {
        return Some(format!(
            "its name `{name}` is not lowercase ASCII letters, digits and single hyphens, as the extension's clients require"
        ));
    }
    let max = skillpath_core::validate::MAX_COMPATIBILITY_CHARS;
    match fields.get("compatibility") {
        None => {}
        Some(Value::String(text)) if text.is_empty() => {
            return Some("its `compatibility` is empty".to_owned());
        }
        Some(Value::String(text)) if text.chars().count() > max => {
            return Some(format!(
                "its `compatibility` is {} characters, over the specification's {max}",
                text.chars().count()
            ));
        }
        Some(Value::String(_)) => {}
        Some(other) => {
            return Some(format!(
                "its `compatibility` is {}, not text",
                json_kind(other)
            ));
        }
    }
    match fields.get("metadata") {
        None => {}
        Some(Value::Object(map)) => {
            if let Some((key, value)) = map.iter().find(|(_, value)| !value.is_string()) {
                return Some(format!(
                    "its `metadata.{key}` is {}, and `metadata` must map strings to strings",
                    json_kind(value)
                ));
            }
        }
        Some(other) => {
            return Some(format!(
                "its `metadata` is {}, not a map of strings to strings",
                json_kind(other)
            ));
        }
    }
    if fields.contains_key("__proto__") {
        return Some(
            "its frontmatter has a `__proto__` field, which JavaScript clients cannot hold"
                .to_owned(),
        );
    }
    None
}

/// The `_meta` key of a Skills-extension entry that carries the skill's audit findings
/// ([`AuditRecord::summary_json`]).
pub(crate) const AUDIT_META: &str = "io.skillpath/audit";

/// The Skills-extension entry of a skill: its `SKILL.md` URI, its frontmatter verbatim, and a
/// digest of every file; or why the extension cannot carry it. The extension carries skills
/// of the Agent Skills specification, whose hard rules its clients check on every entry
/// (a name outside its rules, a description over 1,024 characters, [`refused_by_clients`]);
/// such a skill stays reachable as a tool, a prompt and resources, and `serve` and
/// `list_skills` say why it is left out.
pub(crate) fn skill_entry(
    name: &str,
    skill_md: &SkillMd,
    skill_md_file: &FileMetadata,
    files: &[FileMetadata],
    audit: Option<&AuditRecord>,
) -> Result<rmcp::model::Skill, String> {
    let uri = uri::uri("skill", name, "SKILL.md");
    // Verbatim, as hosts compare it field by field with the file: the store's description is
    // trimmed (a block scalar `description: |` keeps its final newline in the file).
    let serde_json::Value::Object(mut fields) = skill_md.frontmatter_json() else {
        return Err("its frontmatter is not a mapping".to_owned());
    };
    let text = |value: Option<serde_json::Value>| match value {
        Some(serde_json::Value::String(text)) => Some(text),
        _ => None,
    };
    let description = text(fields.remove("description"))
        .ok_or_else(|| "its `description` is not text".to_owned())?;
    if text(fields.remove("name")).as_deref() != Some(name) {
        return Err("its `name` is not text".to_owned());
    }
    if !skillpath_core::validate::description_within_limits(&description) {
        return Err(format!(
            "its description is {} characters, over the specification's {}",
            description.chars().count(),
            skillpath_core::validate::MAX_DESCRIPTION_CHARS
        ));
    }
    if let Some(why) = refused_by_clients(name, &fields) {
        return Err(why);
    }
    let mut frontmatter = SkillFrontmatter::new(name, description);
    for (key, value) in fields {
        frontmatter = frontmatter.with_field(key, value);
    }
    let resource =
        |uri: String, file: &FileMetadata| SkillResource::new(uri, file.sha256.clone(), file.size);
    let mut resources = vec![resource(uri.clone(), skill_md_file)];
    resources.extend(
        files
            .iter()
            .map(|file| resource(uri::uri("skill", name, &file.path), file)),
    );
    let mut entry = rmcp::model::Skill::new(uri, frontmatter, SkillResources::Files(resources));
    // A skill with findings says so in the listing, where a host chooses what to load.
    if let Some(audit) = audit.filter(|audit| !audit.findings.is_empty()) {
        let mut meta = serde_json::Map::new();
        meta.insert(AUDIT_META.to_owned(), audit.summary_json());
        entry = entry.with_meta(rmcp::model::MetaObject(meta));
    }
    entry
        .validate()
        .map(|()| entry)
        .map_err(|error| format!("the Skills extension refuses it: {error}"))
}

/// What kind of JSON value `value` is, for a sentence.
fn json_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "empty",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "text",
        serde_json::Value::Array(_) => "a list",
        serde_json::Value::Object(_) => "a mapping",
    }
}
