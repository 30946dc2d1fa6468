//! Skillpath's things as MCP types: a skill as a tool, a prompt, a Skills-extension entry and
//! loaded content; the resource templates; tool results, a store's errors among them; and the
//! server's instructions.

use std::sync::Arc;

use rmcp::ErrorData as McpError;
use rmcp::model::{
    CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult, CompletionInfo,
    ContentBlock, Prompt, PromptArgument, Reference, ResourceTemplate, SkillFrontmatter,
    SkillResource, SkillResources, Tool, ToolAnnotations,
};
use skillpath_app::AppError;
use skillpath_audit::AuditRecord;
use skillpath_core::golden_path::schema;
use skillpath_core::skill_md::SkillMd;
use skillpath_model::FileMetadata;
use skillpath_store::StoreError;

use crate::catalog::{Addressed, Catalog, CatalogSkill};
use crate::resources::{self, encoded_path};
use crate::state::SkillServer;

impl SkillServer {
    /// The skills the Skills extension (`skills/list`, `skills/get`) leaves out, each with why.
    pub fn unlisted_skills(&self) -> Vec<(String, String)> {
        self.catalog()
            .skills()
            .filter_map(|skill| {
                skill
                    .entry
                    .0
                    .as_ref()
                    .err()
                    .map(|why| (skill.name.clone(), why.clone()))
            })
            .collect()
    }
}

/// Why the Skills extension's clients would refuse a skill's entry, if they would, by its
/// frontmatter's other `fields` (without `name` and `description`). These are the rules the
/// official TypeScript SDK's `SkillsClient.list()` checks every entry against beyond
/// [`rmcp::model::Skill::validate`]'s, and it refuses the whole listing at the first entry that
/// breaks one: a name of lowercase ASCII letters, digits and single hyphens (the
/// specification's letters, as clients match them), a `compatibility` of 1 to 500 characters,
/// `metadata` that maps strings to strings, and no `__proto__` field (a JavaScript object
/// cannot hold one).
fn refused_by_clients(
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

/// The resource templates: a skill's `SKILL.md` and its other files.
pub(crate) fn resource_templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new("skill://{name}/SKILL.md", "skill")
            .with_description("A skill's SKILL.md, as stored (not rendered); the name percent-encoded")
            .with_mime_type("text/markdown"),
        ResourceTemplate::new("skill://{name}/{path}", "skill-file")
            .with_description("A file of a skill: a template, script or reference, as stored; the name and each segment of the path percent-encoded"),
    ]
}

/// A skill as MCP lists it as the prompt `name`: its arguments as the prompt's.
pub(crate) fn skill_prompt(name: &str, skill: &CatalogSkill) -> Prompt {
    let arguments: Vec<PromptArgument> = skill
        .args
        .iter()
        .map(|arg| {
            let mut argument = PromptArgument::new(arg.name.clone()).with_required(arg.required);
            if let Some(description) = &arg.description {
                argument = argument.with_description(description.clone());
            }
            argument
        })
        .collect();
    Prompt::new(
        name.to_owned(),
        Some(skill.description.clone()),
        Some(arguments),
    )
}

/// A skill's tool as MCP lists it: its description, and its arguments as the input schema.
pub(crate) fn skill_tool(tool_name: &str, skill: &CatalogSkill) -> Tool {
    let input = schema::input_schema(&skill.args);
    Tool::new(
        tool_name.to_owned(),
        skill.description.clone(),
        Arc::new(input.as_object().cloned().unwrap_or_default()),
    )
    .with_annotations(
        ToolAnnotations::new()
            .read_only(true)
            .idempotent(true)
            .open_world(false),
    )
}

/// The skill's content as a loaded skill: wrapped so clients can recognise and keep it, with
/// its base URI and the list of its files (not their content) as references relative to it.
pub(crate) fn skill_content(skill: &CatalogSkill, markdown: &str) -> String {
    let name = &skill.name;
    let directory = skill.uri("");
    let mut text = format!("<skill_content name=\"{name}\">\n{}", markdown.trim_end());
    text.push_str(&format!(
        "\n\nSkill directory: {directory}\nRelative paths in this skill are relative to the skill directory; read them as `{directory}<path>` resources.\n"
    ));
    if !skill.files.is_empty() {
        text.push_str("<skill_resources>\n");
        for file in &skill.files {
            text.push_str(&format!("<file>{}</file>\n", encoded_path(&file.path)));
        }
        text.push_str("</skill_resources>\n");
    }
    if let Some(membership) = &skill.package {
        let package = &membership.package;
        text.push_str(&format!(
            "\nThis skill is part of the architecture package `{package}` (`get_architecture` with name `{package}` describes it). Read its documentation first:\n<package_docs package=\"{package}\">\n"
        ));
        for page in &membership.docs {
            let uri = resources::uri("package", package, page);
            text.push_str(&format!("<doc>{uri}</doc>\n"));
        }
        text.push_str("</package_docs>\n");
    }
    text.push_str("</skill_content>\n");
    text
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
    let uri = resources::uri("skill", name, "SKILL.md");
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
            .map(|file| resource(resources::uri("skill", name, &file.path), file)),
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

pub(crate) fn text_result(text: impl Into<String>) -> CallToolResponse {
    CallToolResult::success(vec![ContentBlock::text(text.into())]).into()
}

pub(crate) fn error_result(text: impl Into<String>) -> CallToolResponse {
    CallToolResult::error(vec![ContentBlock::text(text.into())]).into()
}

const INSTRUCTIONS: &str = "This server holds skills: specialized instructions for specific tasks. \
When a task matches a skill's description, call the skill's tool (or `load_skill` with its name) \
before proceeding, and follow what it returns. Use `search_skills` to find a skill when you are \
not sure which applies. Skill content comes wrapped in <skill_content>; relative paths in it are \
relative to the skill directory, readable as skill://<name>/<path> resources. To author a skill, \
start with `plan_skill`.";

/// The most characters of the instructions, the skill listing included; the rest is found by
/// search.
const INSTRUCTIONS_BUDGET: usize = 4000;

/// The instructions: how to use skills, then as many `- name: description` lines as fit the
/// budget (descriptions cut to 120 characters), the skills most worth naming first
/// ([`named_first`]), and how many more there are.
pub(crate) fn instructions(catalog: &Catalog) -> String {
    let mut text = String::from(INSTRUCTIONS);
    if catalog.is_empty() {
        return text;
    }
    text.push_str("\n\nSkills:\n");
    let more = |count: usize| format!("… and {count} more; find them with `search_skills`.\n");
    // The budget holds for the whole text: room is kept for the line that says how many more
    // there are (at its longest), unless every skill is listed.
    let reserve = more(catalog.len()).chars().count();
    let mut used = text.chars().count();
    let mut listed = 0;
    for skill in named_first(catalog) {
        let description: String = skill
            .description
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let description = if description.chars().count() > 120 {
            format!("{}…", description.chars().take(119).collect::<String>())
        } else {
            description
        };
        let line = format!("- {}: {description}\n", skill.name);
        let length = line.chars().count();
        let last = listed + 1 == catalog.len();
        if used + length + if last { 0 } else { reserve } > INSTRUCTIONS_BUDGET {
            break;
        }
        used += length;
        listed += 1;
        text.push_str(&line);
    }
    if listed < catalog.len() {
        text.push_str(&more(catalog.len() - listed));
    }
    text
}

/// The skills the instructions may name, in the order they are named: only skills that can be
/// called by name (those with a tool name of their own: a tool, a prompt, `load_skill`), those
/// the Skills extension lists too first, then the most used, then by name. A skill without a
/// tool name is left for `search_skills` to find.
fn named_first(catalog: &Catalog) -> Vec<&Arc<CatalogSkill>> {
    let mut skills: Vec<&Arc<CatalogSkill>> = catalog.tools().map(|(_, skill)| skill).collect();
    skills.sort_by(|a, b| {
        (
            a.entry.0.is_err(),
            std::cmp::Reverse(catalog.uses(&a.name)),
            &a.name,
        )
            .cmp(&(
                b.entry.0.is_err(),
                std::cmp::Reverse(catalog.uses(&b.name)),
                &b.name,
            ))
    });
    skills
}

/// The completion values of `request`: the skill names for a resource's `name`, the files of
/// the skill named in its context for `path`, and a prompt argument's allowed values; those
/// that start with the value typed, at most as many as a result holds.
pub(crate) fn completion(
    catalog: &Catalog,
    request: &CompleteRequestParams,
) -> Result<CompleteResult, McpError> {
    let prefix = request.argument.value.as_str();
    let mut values: Vec<String> = match &request.r#ref {
        Reference::Resource(_) if request.argument.name == "name" => {
            catalog.skills().map(|skill| skill.name.clone()).collect()
        }
        Reference::Resource(_) if request.argument.name == "path" => {
            let name = request
                .context
                .as_ref()
                .and_then(|c| c.arguments.as_ref())
                .and_then(|a| a.get("name"));
            match name.and_then(|name| catalog.skill(name)) {
                Some(skill) => std::iter::once("SKILL.md".to_owned())
                    .chain(skill.files.iter().map(|f| f.path.clone()))
                    .collect(),
                None => Vec::new(),
            }
        }
        Reference::Prompt(prompt) => catalog
            .tool(&prompt.name)
            .and_then(|skill| {
                skill
                    .args
                    .iter()
                    .find(|arg| arg.name == request.argument.name)
            })
            .and_then(|arg| arg.allowed.clone())
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    values.retain(|value| value.starts_with(prefix));
    let total = values.len();
    values.truncate(CompletionInfo::MAX_VALUES);
    let info = CompletionInfo::with_pagination(
        values,
        Some(total as u32),
        total > CompletionInfo::MAX_VALUES,
    )
    .map_err(|error| McpError::internal_error(error, None))?;
    Ok(CompleteResult::new(info))
}

/// A store's error as a tool's error text, with a hint an agent can act on: a hint that names a
/// `skillpath` command (written for the command line) becomes the built-in tool that does the
/// same, or, where no tool does, says that the user can run the command.
pub(crate) fn store_error(error: StoreError) -> String {
    match agent_hint(&error) {
        Some(hint) => format!("{error}\nhint: {hint}"),
        None => error.to_string(),
    }
}

/// An operation's error as a tool's error text: a store's with the hint [`store_error`] gives
/// it, any other as the application says it. The studio shows the same text.
pub fn app_error(error: AppError) -> String {
    match error {
        AppError::Store(error) => store_error(error),
        error => error.to_string(),
    }
}

/// The hint for an agent that met `error`: the store's hint, in terms of this server's tools.
fn agent_hint(error: &StoreError) -> Option<String> {
    Some(match error {
        StoreError::StaleRevision { name, actual, .. } => format!(
            "read revision {actual} of `{name}` (`get_skill`), apply your change to it, and write again with that revision"
        ),
        StoreError::NotFound {
            revision: Some(_), ..
        } => "see its revisions with `skill_history`".to_owned(),
        StoreError::NotFound { .. } => "list the skills with `list_skills`".to_owned(),
        StoreError::KeyNotFound(_) => "list the keys with `list_api_keys`".to_owned(),
        StoreError::DraftNotFound { .. } => "list the drafts with `list_drafts`".to_owned(),
        StoreError::StaleDraft { actual, .. } => format!(
            "reject it with `reject_skill`, saying that it must be made again on revision {actual}"
        ),
        StoreError::AuditRefused { .. } => "change the content so that the findings above are gone (what is harmful there, e.g. a download piped into a shell, hidden characters, an instruction to hide actions from the user), then write it again; if it must stay as it is, the person who runs this server decides".to_owned(),
        StoreError::KeyExists(_) => {
            "choose another name, or revoke the old key first with `revoke_api_key`".to_owned()
        }
        _ => {
            let hint = error.hint()?;
            if hint.contains("`skillpath ") {
                format!("no tool of this server does it, but the user can: {hint}")
            } else {
                hint
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use skillpath_store::StoreError;

    use super::{refused_by_clients, store_error};

    /// The rules the TypeScript SDK's `SkillsClient` refuses an entry by, beyond the name and
    /// the description: each breach gives its reason, and a skill within them none.
    #[test]
    fn entries_the_extension_s_clients_refuse_say_why() {
        let fields = |value: serde_json::Value| value.as_object().cloned().unwrap_or_default();
        let within = fields(json!({
            "compatibility": "x".repeat(500),
            "metadata": {"version": "1.0"},
            "allowed-tools": "Read",
        }));
        assert_eq!(refused_by_clients("a-skill-2", &within), None);
        let cases = [
            (
                "café",
                json!({}),
                "its name `café` is not lowercase ASCII letters, digits and single hyphens, as the extension's clients require",
            ),
            (
                "a--b",
                json!({}),
                "its name `a--b` is not lowercase ASCII letters, digits and single hyphens, as the extension's clients require",
            ),
            (
                "a",
                json!({"compatibility": "é".repeat(501)}),
                "its `compatibility` is 501 characters, over the specification's 500",
            ),
            (
                "a",
                json!({"compatibility": ""}),
                "its `compatibility` is empty",
            ),
            (
                "a",
                json!({"compatibility": 3}),
                "its `compatibility` is a number, not text",
            ),
            (
                "a",
                json!({"metadata": {"version": 1.0}}),
                "its `metadata.version` is a number, and `metadata` must map strings to strings",
            ),
            (
                "a",
                json!({"metadata": null}),
                "its `metadata` is empty, not a map of strings to strings",
            ),
            (
                "a",
                json!({"metadata": ["x"]}),
                "its `metadata` is a list, not a map of strings to strings",
            ),
            (
                "a",
                json!({"__proto__": {"x": "y"}}),
                "its frontmatter has a `__proto__` field, which JavaScript clients cannot hold",
            ),
        ];
        for (name, other, why) in cases {
            assert_eq!(
                refused_by_clients(name, &fields(other)).as_deref(),
                Some(why),
                "{name}"
            );
        }
    }

    /// A hint written for the command line names `skillpath` commands, which an agent cannot
    /// run: it becomes the tool that does the same, or says that the user can run it.
    #[test]
    fn hints_name_tools_or_say_the_user_runs_the_command() {
        let name = || "demo".to_owned();
        let cases = [
            (
                StoreError::StaleRevision {
                    name: name(),
                    expected: 2,
                    actual: 3,
                },
                "read revision 3 of `demo` (`get_skill`), apply your change to it, and write again with that revision",
            ),
            (
                StoreError::NotFound {
                    name: name(),
                    revision: Some(9),
                },
                "see its revisions with `skill_history`",
            ),
            (
                StoreError::NotFound {
                    name: name(),
                    revision: None,
                },
                "list the skills with `list_skills`",
            ),
            (
                StoreError::KeyNotFound(name()),
                "list the keys with `list_api_keys`",
            ),
            (
                StoreError::KeyExists(name()),
                "choose another name, or revoke the old key first with `revoke_api_key`",
            ),
            (
                StoreError::AlreadyExists {
                    name: name(),
                    revision: 4,
                    deleted: true,
                },
                "no tool of this server does it, but the user can: restore it with `skillpath restore demo`",
            ),
            (
                StoreError::AlreadyExists {
                    name: name(),
                    revision: 4,
                    deleted: false,
                },
                "update it instead, giving the revision you read",
            ),
        ];
        for (error, hint) in cases {
            let message = error.to_string();
            assert_eq!(store_error(error), format!("{message}\nhint: {hint}"));
        }
        let text = store_error(StoreError::NoDatabase("/tmp/none.db".into()));
        let (before, _) = text.split_once("`skillpath ").expect("the command");
        assert!(before.ends_with("the user can: "), "{text}");
        assert_eq!(
            store_error(StoreError::InvalidCursor("x".into())),
            "the cursor `x` is not valid; start again without one"
        );
    }
}
