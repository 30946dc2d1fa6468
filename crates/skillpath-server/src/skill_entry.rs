//! A skill as an entry of MCP's Skills extension (`skills/list`, `skills/get`), or why the
//! extension cannot carry it. The catalog works the entry out once per skill when it loads, so
//! this module needs nothing of the server but the URIs.

use rmcp::model::{SkillFrontmatter, SkillResource, SkillResources};
use skillpath_audit::AuditRecord;
use skillpath_core::skill_md::SkillMd;
use skillpath_model::FileMetadata;

use crate::uri;

/// Why the Skills extension cannot carry a skill: what `list_skills` and the studio say of a
/// skill that `skills/list` leaves out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unlisted {
    /// An architecture package, which the extension has no entry for.
    #[error("`{0}` is an architecture package, not a skill")]
    Package(String),
    /// A frontmatter that is no mapping.
    #[error("its frontmatter is not a mapping")]
    NotAMapping,
    /// A `description` that is not text.
    #[error("its `description` is not text")]
    DescriptionNotText,
    /// A `name` that is not text.
    #[error("its `name` is not text")]
    NameNotText,
    /// A description longer than the specification allows.
    #[error("its description is {chars} characters, over the specification's {max}")]
    DescriptionTooLong {
        /// Its length in characters.
        chars: usize,
        /// The specification's limit.
        max: usize,
    },
    /// A name outside the letters the extension's clients match.
    #[error(
        "its name `{0}` is not lowercase ASCII letters, digits and single hyphens, as the extension's clients require"
    )]
    NameNotAscii(String),
    /// An empty `compatibility`.
    #[error("its `compatibility` is empty")]
    CompatibilityEmpty,
    /// A `compatibility` longer than the specification allows.
    #[error("its `compatibility` is {chars} characters, over the specification's {max}")]
    CompatibilityTooLong {
        /// Its length in characters.
        chars: usize,
        /// The specification's limit.
        max: usize,
    },
    /// A `compatibility` that is not text: what it is (`json_kind`).
    #[error("its `compatibility` is {0}, not text")]
    CompatibilityNotText(&'static str),
    /// A `metadata` value that is not text.
    #[error("its `metadata.{key}` is {kind}, and `metadata` must map strings to strings")]
    MetadataValueNotText {
        /// The value's key.
        key: String,
        /// What the value is (`json_kind`).
        kind: &'static str,
    },
    /// A `metadata` that is no mapping: what it is (`json_kind`).
    #[error("its `metadata` is {0}, not a map of strings to strings")]
    MetadataNotAMap(&'static str),
    /// A `__proto__` field.
    #[error("its frontmatter has a `__proto__` field, which JavaScript clients cannot hold")]
    ProtoField,
    /// What [`rmcp::model::Skill::validate`] refuses.
    #[error("the Skills extension refuses it: {0}")]
    Refused(#[source] rmcp::model::SkillValidationError),
}

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
) -> Option<Unlisted> {
    use serde_json::Value;
    // The length is `Skill::validate`'s to check.
    let ascii_name = name.split('-').all(|part| {
        !part.is_empty()
            && part
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    });
    if !ascii_name {
        return Some(Unlisted::NameNotAscii(name.to_owned()));
    }
    let max = skillpath_core::validate::MAX_COMPATIBILITY_CHARS;
    match fields.get("compatibility") {
        None => {}
        Some(Value::String(text)) if text.is_empty() => {
            return Some(Unlisted::CompatibilityEmpty);
        }
        Some(Value::String(text)) if text.chars().count() > max => {
            let chars = text.chars().count();
            return Some(Unlisted::CompatibilityTooLong { chars, max });
        }
        Some(Value::String(_)) => {}
        Some(other) => {
            return Some(Unlisted::CompatibilityNotText(json_kind(other)));
        }
    }
    match fields.get("metadata") {
        None => {}
        Some(Value::Object(map)) => {
            if let Some((key, value)) = map.iter().find(|(_, value)| !value.is_string()) {
                return Some(Unlisted::MetadataValueNotText {
                    key: key.clone(),
                    kind: json_kind(value),
                });
            }
        }
        Some(other) => {
            return Some(Unlisted::MetadataNotAMap(json_kind(other)));
        }
    }
    if fields.contains_key("__proto__") {
        return Some(Unlisted::ProtoField);
    }
    None
}

/// The `_meta` key of a Skills-extension entry that carries the skill's audit findings
/// ([`AuditRecord::summary_json`]).
pub(crate) const AUDIT_META: &str = "io.skillpath/audit";

/// The `_meta` key of a Skills-extension entry served at a release: `{"version", "channel"}`,
/// the release's version and the channel that serves it.
pub(crate) const RELEASE_META: &str = "io.skillpath/release";

/// `entry` as served on `channel`: with the version served under [`RELEASE_META`] when the
/// channel serves a release of it (an item without releases is served its current revision,
/// and says nothing).
pub(crate) fn served_entry(
    entry: &rmcp::model::Skill,
    channel: &skillpath_app::Channel,
    release: Option<&skillpath_model::release::Release>,
) -> rmcp::model::Skill {
    let mut entry = entry.clone();
    if let Some(release) = release {
        let meta = entry.meta.get_or_insert_with(Default::default);
        meta.0.insert(
            RELEASE_META.to_owned(),
            serde_json::json!({"version": release.version.to_string(), "channel": channel.to_string()}),
        );
    }
    entry
}

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
) -> Result<rmcp::model::Skill, Unlisted> {
    let uri = uri::uri("skill", name, "SKILL.md");
    // The frontmatter names the skill as its namespace does (`deploy` of `@team-a/deploy`);
    // its resources are addressed by the store's key, as `resources/list` lists them.
    let key = name;
    let name = skillpath_model::name_of_key(key);
    // Verbatim, as hosts compare it field by field with the file: the store's description is
    // trimmed (a block scalar `description: |` keeps its final newline in the file).
    let serde_json::Value::Object(mut fields) = skill_md.frontmatter_json() else {
        return Err(Unlisted::NotAMapping);
    };
    let text = |value: Option<serde_json::Value>| match value {
        Some(serde_json::Value::String(text)) => Some(text),
        _ => None,
    };
    let description = text(fields.remove("description")).ok_or(Unlisted::DescriptionNotText)?;
    if text(fields.remove("name")).as_deref() != Some(name) {
        return Err(Unlisted::NameNotText);
    }
    if !skillpath_core::validate::description_within_limits(&description) {
        return Err(Unlisted::DescriptionTooLong {
            chars: description.chars().count(),
            max: skillpath_core::validate::MAX_DESCRIPTION_CHARS,
        });
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
            .map(|file| resource(uri::uri("skill", key, &file.path), file)),
    );
    let mut entry = rmcp::model::Skill::new(uri, frontmatter, SkillResources::Files(resources));
    // A skill with findings says so in the listing, where a host chooses what to load.
    if let Some(audit) = audit.filter(|audit| !audit.findings.is_empty()) {
        let mut meta = serde_json::Map::new();
        meta.insert(AUDIT_META.to_owned(), audit.summary_json());
        entry = entry.with_meta(rmcp::model::MetaObject(meta));
    }
    entry.validate().map(|()| entry).map_err(Unlisted::Refused)
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
