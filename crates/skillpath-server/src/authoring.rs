//! The built-in tools that author skills: `plan_skill` and `validate_skill` to prepare one,
//! `create_skill`, `update_skill`, `delete_skill` and `rollback_skill` to write, each with its
//! parameter type. A skill is written from a [`SkillSpec`], validated like `skillpath validate`
//! would, and stored — or, from an author's key on a server that reviews (`Caller::drafts`),
//! saved as the author's draft ([`crate::review_tools`]); every failure the model can fix is an
//! `isError` result that says what to do.

use std::borrow::Cow;

use rmcp::model::JsonObject;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Deserialize;
use serde_json::Value;
use skillpath_app::Written;
use skillpath_core::golden_path::spec::SkillSpec;
use skillpath_model::{Namespace, Placement, Provenance, Visibility};
use skillpath_store::forks::ForkRequest;

use crate::arguments::{Params, Revision};
use crate::review_tools::draft_saved;
use crate::schemas::spec_schema;
use crate::state::SkillServer;
use crate::tool_error::{ArgumentError, ToolError};
use skillpath_app::Permit;

/// A skill's structured data as a tool's argument, refused as the application refuses it.
fn parse_spec(value: Value) -> Result<SkillSpec, ToolError> {
    Ok(skillpath_app::read_spec(value)?)
}

/// `plan_skill`: the format guide and a plan template for a goal.
#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct PlanSkill {
    #[schemars(description = "What the skill should let an agent do")]
    goal: String,
}

impl Params for PlanSkill {
    async fn run(self, _: &SkillServer, _: &Permit) -> Result<String, ToolError> {
        Ok(plan(&self.goal))
    }
}

/// `validate_skill`: every problem of a skill in structured form, before it is created.
#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct ValidateSkill {
    #[schemars(schema_with = "spec_schema")]
    skill: SkillSpec,
}

impl Params for ValidateSkill {
    /// The skill as [`parse_spec`] reads it, so that its errors read as `create_skill`'s.
    fn parse(arguments: &JsonObject) -> Result<Self, ToolError> {
        let skill = parse_spec(arguments.get("skill").cloned().unwrap_or(Value::Null))?;
        Ok(ValidateSkill { skill })
    }

    async fn run(self, server: &SkillServer, permit: &Permit) -> Result<String, ToolError> {
        let checked = server.app().validate_skill(permit, &self.skill)?;
        Ok(checked.to_string())
    }
}

/// `create_skill`: a new skill from structured data; its parameters are a [`SkillSpec`] (so
/// its schema is the spec's own), for a package's member the package, and where it goes: its
/// namespace and visibility.
#[derive(Deserialize)]
pub(crate) struct CreateSkill {
    spec: SkillSpec,
    package: Option<String>,
    /// Read by [`placement`] from `namespace` and `visibility`.
    #[serde(skip, default = "Placement::global")]
    placement: Placement,
}

impl JsonSchema for CreateSkill {
    fn schema_name() -> Cow<'static, str> {
        "CreateSkill".into()
    }

    /// The spec's schema, and `package`.
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut schema = spec_schema(generator);
        if let Some(Value::Object(properties)) = schema.get_mut("properties") {
            properties.insert(
                "package".to_owned(),
                serde_json::json!({
                    "type": "string",
                    "description": "The architecture package the skill belongs to (see `list_architectures`): it is listed by the package, and takes the package's options as arguments",
                }),
            );
            properties.insert(
                "namespace".to_owned(),
                serde_json::json!({
                    "type": "string",
                    "description": "The namespace the skill joins, `@name` (default: `@global`; a package's member joins the package's)",
                }),
            );
            properties.insert("visibility".to_owned(), visibility_schema());
        }
        schema
    }
}

impl Params for CreateSkill {
    fn parse(arguments: &JsonObject) -> Result<Self, ToolError> {
        let mut fields = arguments.clone();
        let package = match fields.remove("package") {
            None | Some(Value::Null) => None,
            Some(Value::String(name)) => Some(name),
            Some(other) => {
                return Err(ArgumentError::Field {
                    path: "package".to_owned(),
                    problem: format!("a package's name is a string, not `{other}`"),
                }
                .into());
            }
        };
        let placement = placement(&mut fields)?;
        let spec = parse_spec(Value::Object(fields))?;
        Ok(CreateSkill {
            spec,
            package,
            placement,
        })
    }

    async fn run(self, server: &SkillServer, permit: &Permit) -> Result<String, ToolError> {
        let created = server
            .app()
            .create_skill(permit, &self.spec, self.package.as_deref(), self.placement)
            .await?;
        let warnings = with_warnings(&created.checked.warnings);
        Ok(match created.written {
            Written::Drafted(saved) => format!("{}{warnings}", draft_saved(&saved)),
            Written::Stored(stored) => format!(
                "Created `{}` at revision {}; {}.{warnings}",
                stored.name,
                stored.revision,
                callable_as(&server.catalog_for(permit.caller()), &stored.name),
            ),
        })
    }
}

/// The warnings of a write, after its result; nothing when there are none.
fn with_warnings(warnings: &str) -> String {
    if warnings.is_empty() {
        String::new()
    } else {
        format!("\nWarnings:\n{warnings}")
    }
}

/// `update_skill`: the fields given replace the skill's, at the revision the caller read.
#[derive(Deserialize)]
pub(crate) struct UpdateSkill {
    name: String,
    expected_revision: Revision,
    /// The fields to replace (`name` among them, unchanged).
    #[serde(flatten)]
    fields: JsonObject,
}

impl JsonSchema for UpdateSkill {
    fn schema_name() -> Cow<'static, str> {
        "UpdateSkill".into()
    }

    /// Every field of a [`SkillSpec`], and the revision changed; only the name and the
    /// revision are required.
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut schema = spec_schema(generator);
        let revision = generator.subschema_for::<Revision>().to_value();
        if let Some(Value::Object(properties)) = schema.get_mut("properties") {
            properties.insert("expected_revision".to_owned(), revision);
            properties.insert("visibility".to_owned(), visibility_schema());
        }
        schema.insert(
            "required".to_owned(),
            serde_json::json!(["name", "expected_revision"]),
        );
        schema
    }
}

impl Params for UpdateSkill {
    async fn run(self, server: &SkillServer, permit: &Permit) -> Result<String, ToolError> {
        let expected = self.expected_revision.get();
        let mut fields = self.fields;
        let visibility = match fields.remove("visibility") {
            None | Some(Value::Null) => None,
            Some(Value::String(text)) => Some(visibility_argument(&text)?),
            Some(other) => return Err(not_a_string("visibility", &other)),
        };
        let updated = server
            .app()
            .update_fields(permit, &self.name, expected, fields)
            .await?;
        // Who sees the item is no content to review: it changes at once, drafted or not.
        if let Some(visibility) = visibility {
            server
                .app()
                .set_visibility(permit, &self.name, visibility)
                .await?;
        }
        let warnings = with_warnings(&updated.checked.warnings);
        Ok(match updated.written {
            Written::Drafted(saved) => format!("{}{warnings}", draft_saved(&saved)),
            Written::Stored(stored) => format!(
                "Updated `{}` to revision {}.{warnings}",
                stored.name, stored.revision
            ),
        })
    }
}

/// `delete_skill`: the skill deleted at the revision the caller read; it stays in history.
#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct DeleteSkill {
    name: String,
    expected_revision: Revision,
}

impl Params for DeleteSkill {
    async fn run(self, server: &SkillServer, permit: &Permit) -> Result<String, ToolError> {
        let stored = server
            .app()
            .delete(permit, &self.name, self.expected_revision.get(), None)
            .await?;
        Ok(format!(
            "Deleted `{}` (revision {}); it stays in history.",
            stored.name, stored.revision
        ))
    }
}

/// `rollback_skill`: an earlier revision's content current again, as a new revision.
#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct RollbackSkill {
    name: String,
    to_revision: Revision,
    expected_revision: Revision,
}

impl Params for RollbackSkill {
    async fn run(self, server: &SkillServer, permit: &Permit) -> Result<String, ToolError> {
        let to = self.to_revision.get();
        let written = server
            .app()
            .rollback(permit, &self.name, to, self.expected_revision.get(), None)
            .await?;
        let stored = match written {
            Written::Drafted(saved) => return Ok(draft_saved(&saved)),
            Written::Stored(stored) => stored,
        };
        Ok(format!(
            "`{}` is at revision {}, with the content of revision {to}.",
            stored.name, stored.revision
        ))
    }
}

/// `fork_skill`: a skill or a package copied under a new name, recording where it came from.
#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct ForkSkill {
    #[schemars(description = "The skill or package to copy")]
    from: String,
    #[schemars(description = "Its revision to copy (default: the current one)")]
    revision: Option<Revision>,
    #[schemars(description = "The copy's name: kebab-case, used by no skill or package")]
    name: String,
    #[schemars(
        description = "For a package, whose member skills are copied with it: what their copies' names start with (default: the copy's name and `-`)"
    )]
    member_prefix: Option<String>,
    #[schemars(
        description = "The namespace the copies go into, `@name` (default: the source's), visible to its members"
    )]
    namespace: Option<String>,
}

impl Params for ForkSkill {
    async fn run(self, server: &SkillServer, permit: &Permit) -> Result<String, ToolError> {
        let into = match self.namespace {
            Some(text) => Some(Placement {
                namespace: namespace_argument("namespace", &text)?,
                visibility: Visibility::default(),
            }),
            None => None,
        };
        let request = ForkRequest {
            from: self.from,
            revision: self.revision.map(|revision| revision.get()),
            name: self.name,
            member_prefix: self.member_prefix,
            into,
        };
        let written = server.app().fork(permit, request, None).await?;
        let catalog = server.catalog_for(permit.caller());
        let mut text = String::new();
        for item in &written {
            if let Provenance::Forked { from, revision } = &item.provenance {
                text.push_str(&format!(
                    "Forked `{from}` (revision {revision}) as `{}`; {}.\n",
                    item.name,
                    callable_as(&catalog, &item.name)
                ));
            }
        }
        Ok(text)
    }
}

/// The format guide and plan template `plan_skill` returns.
fn plan(goal: &str) -> String {
    format!(
        "# Planning a skill for: {goal}

## The format

A skill is a `SKILL.md`: YAML frontmatter, then markdown. Golden Path skills add typed arguments
and a structured body, and become MCP tools whose parameters are the arguments.

- `name`: kebab-case (`add-caching`); `description`: what it does and when to use it (\"Use when …\").
- `args`: each `{{name (snake_case), description, required, type: string|boolean|number, enum, default (a string)}}`.
  `service_name` is written `{{ServiceName}}` in the body, targets and templates.
- Body: `# Title`, a summary paragraph, then sections: `prerequisites` (checklist), `execution-steps`
  (phases `### Phase N: name` with steps and template references), `success-criteria` (checklist),
  and `free` sections anywhere.
- Template reference in a phase: `template` (a file you also give in `templates`), `target` (where it
  goes, with placeholders), optional `condition` (`EndpointStyle=controller`, `Var!=x`, `Var=a|b`, `Var`).
- Template files may keep or drop line blocks: `// {{{{#if redis}}}}` … `// {{{{/if}}}}`.

## Plan template

1. The task the skill performs, in one sentence; when an agent should use it.
2. The arguments: which values change between uses (names, options with a fixed set of values → `enum`).
3. Prerequisites: what must be true before starting.
4. Phases: the steps in order; which files each creates (templates) and where (targets).
5. Success criteria: how to check the result.

Then call `validate_skill` with the structured skill, fix what it reports, and call `create_skill`.
"
    )
}

/// How the skill `name` can be called now, by the catalog's tool table: as its tool, or,
/// when it has none (its tool name is another skill's, a built-in's, or no tool name at all),
/// through `load_skill`, saying why.
fn callable_as(catalog: &crate::catalog::Catalog, name: &str) -> String {
    if let Some((tool, _)) = catalog.tools().find(|(_, skill)| skill.name == name) {
        return format!("it is callable now as the tool `{tool}`");
    }
    match catalog
        .collisions
        .iter()
        .find(|collision| collision.loser == name)
    {
        Some(collision) => format!(
            "it has no tool of its own: the tool name `{}` belongs to {} ({}); call it with `load_skill`",
            collision.tool_name,
            collision.holder(),
            collision.reason.rule()
        ),
        None => "call it with `load_skill`".to_owned(),
    }
}

/// The `namespace` and `visibility` arguments taken out of `fields`: where a new item goes
/// (`@global`, visible to its members, when neither is given).
pub(crate) fn placement(fields: &mut JsonObject) -> Result<Placement, ToolError> {
    let mut placement = Placement::global();
    if let Some(value) = fields.remove("namespace") {
        match value {
            Value::Null => {}
            Value::String(text) => placement.namespace = namespace_argument("namespace", &text)?,
            other => return Err(not_a_string("namespace", &other)),
        }
    }
    if let Some(value) = fields.remove("visibility") {
        match value {
            Value::Null => {}
            Value::String(text) => placement.visibility = visibility_argument(&text)?,
            other => return Err(not_a_string("visibility", &other)),
        }
    }
    Ok(placement)
}

/// A namespace argument, `@name` or `name`.
pub(crate) fn namespace_argument(path: &str, text: &str) -> Result<Namespace, ToolError> {
    Namespace::parse(text).map_err(|error| {
        ArgumentError::Field {
            path: path.to_owned(),
            problem: error.to_string(),
        }
        .into()
    })
}

/// A visibility argument.
pub(crate) fn visibility_argument(text: &str) -> Result<Visibility, ToolError> {
    Visibility::parse(text).ok_or_else(|| {
        ArgumentError::Field {
            path: "visibility".to_owned(),
            problem: format!("`{text}` is no visibility: use `private`, `namespace` or `public`"),
        }
        .into()
    })
}

fn not_a_string(path: &str, value: &Value) -> ToolError {
    ArgumentError::Field {
        path: path.to_owned(),
        problem: format!("a {path} is a string, not `{value}`"),
    }
    .into()
}

/// The schema of a `visibility` argument.
fn visibility_schema() -> Value {
    serde_json::json!({
        "type": "string",
        "enum": ["private", "namespace", "public"],
        "description": "Who sees it: `private` (its author and the namespace's maintainers), `namespace` (its members; what a new item is) or `public` (everyone)",
    })
}
