//! Skillpath's things as MCP types: a skill as a tool, a prompt, a Skills-extension entry and
//! loaded content; the resource templates; tool results, a store's errors among them; and the
//! server's instructions.

use std::sync::Arc;

use rmcp::ErrorData as McpError;
use rmcp::model::{
    CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult, CompletionInfo,
    ContentBlock, Prompt, PromptArgument, Reference, ResourceTemplate, Tool, ToolAnnotations,
};
use skillpath_core::golden_path::schema;
use skillpath_core::tool_names;

use crate::catalog::{Addressed, Catalog, CatalogSkill};
use crate::skill_entry::Unlisted;
use crate::state::SkillServer;
use crate::uri::{encoded_path, uri};

impl SkillServer {
    /// The skills the Skills extension (`skills/list`, `skills/get`) leaves out, each with why.
    pub fn unlisted_skills(&self) -> Vec<(String, Unlisted)> {
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
            let uri = uri("package", package, page);
            text.push_str(&format!("<doc>{uri}</doc>\n"));
        }
        text.push_str("</package_docs>\n");
    }
    text.push_str("</skill_content>\n");
    text
}

/// A skill's files as `get_skill` lists them: path, size and digest, never the bytes.
pub(crate) fn files_json(files: &[skillpath_model::SkillFile]) -> Vec<serde_json::Value> {
    files
        .iter()
        .map(|f| serde_json::json!({"path": f.path, "size": f.bytes.len(), "sha256": f.sha256()}))
        .collect()
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

/// The most skills without a tool of their own the instructions name
/// ([`without_tools`]); the rest are counted.
const MOST_NAMED_WITHOUT_TOOLS: usize = 10;

/// The instructions: how to use skills, then as many `- name: description` lines as fit the
/// budget (descriptions cut to 120 characters), the skills most worth naming first
/// ([`named_first`]), and how many more there are; then the skills that lost their tool name
/// to another ([`without_tools`]), so that the client knows to call them with `load_skill`.
pub(crate) fn instructions(catalog: &Catalog) -> String {
    let mut text = String::from(INSTRUCTIONS);
    if catalog.is_empty() {
        return text;
    }
    text.push_str("\n\nSkills:\n");
    let more = |count: usize| format!("… and {count} more; find them with `search_skills`.\n");
    let lost = without_tools(catalog);
    // The budget holds for the whole text: room is kept for the line that says how many more
    // there are (at its longest), unless every skill is listed, and for the skills without
    // tools.
    let reserve = more(catalog.len()).chars().count() + lost.chars().count();
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
    text.push_str(&lost);
    text
}

/// What the instructions say of the skills whose tool name another skill (or a built-in tool)
/// has, by the collision rule among the skills this client is served (two namespaces' skills
/// of one name, say): a line for each of the first [`MOST_NAMED_WITHOUT_TOOLS`], naming the
/// holder and the rule; empty when every skill has its tool.
fn without_tools(catalog: &Catalog) -> String {
    let lost: Vec<_> = catalog
        .collisions
        .iter()
        .filter(|collision| collision.reason != tool_names::Reason::NotAToolName)
        .collect();
    if lost.is_empty() {
        return String::new();
    }
    let mut text = String::from("\nWithout a tool of their own (call them with `load_skill`):\n");
    for collision in lost.iter().take(MOST_NAMED_WITHOUT_TOOLS) {
        text.push_str(&format!(
            "- {}: the tool name `{}` belongs to {} ({})\n",
            collision.loser,
            collision.tool_name,
            collision.holder(),
            collision.reason.rule()
        ));
    }
    if lost.len() > MOST_NAMED_WITHOUT_TOOLS {
        text.push_str(&format!(
            "… and {} more.\n",
            lost.len() - MOST_NAMED_WITHOUT_TOOLS
        ));
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

#[cfg(test)]
mod tests {
    use serde_json::json;
    use skillpath_store::StoreError;

    use crate::skill_entry::refused_by_clients;
    use crate::tool_error::store_error;

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
                refused_by_clients(name, &fields(other))
                    .map(|why| why.to_string())
                    .as_deref(),
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
            assert_eq!(store_error(&error), format!("{message}\nhint: {hint}"));
        }
        let text = store_error(&StoreError::NoDatabase("/tmp/none.db".into()));
        let (before, _) = text.split_once("`skillpath ").expect("the command");
        assert!(before.ends_with("the user can: "), "{text}");
        assert_eq!(
            store_error(&StoreError::InvalidCursor("x".into())),
            "the cursor `x` is not valid; start again without one"
        );
    }
}
