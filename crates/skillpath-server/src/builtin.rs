//! The built-in tools: catalog (`list_skills`, `search_skills`, `get_skill`, `load_skill`,
//! `skill_history`, `validate_skill`, `plan_skill`) and authoring (`create_skill`,
//! `update_skill`, `delete_skill`, `rollback_skill`), architecture packages, review (`list_drafts`,
//! `publish_skill`, `reject_skill`) and key management for admins
//! (`list_api_keys`, `create_api_key`, `revoke_api_key`): the one table of their names, what
//! each may do and who may use it, and their parameter types, from which each tool's input
//! schema is derived and its arguments are read.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use skillpath_app::{Operation, Permit};
use skillpath_store::keys::Role;

use crate::architecture_tools::{
    AnalyzeRequirements, CreateArchitecture, GetArchitecture, ListArchitectures, PlanArchitecture,
};
use crate::arguments::Params;
use crate::authoring::{
    CreateSkill, DeleteSkill, ForkSkill, PlanSkill, RollbackSkill, UpdateSkill, ValidateSkill,
};
use crate::catalog_tools::{
    GetSkill, ListSkills, LoadSkill, SearchSkills, SkillHistory, StarSkill, UnstarSkill,
};
use crate::key_tools::{CreateApiKey, ListApiKeys, RevokeApiKey};
use crate::release_tools::{ListReleases, ReleaseSkill};
use crate::review_tools::{ListDrafts, PublishSkill, RejectSkill};
use crate::schemas::input_schema;
use crate::state::SkillServer;
use crate::tool_error::ToolError;

/// A built-in tool being run: the text of its result, or an error the model can fix.
pub(crate) type Running<'a> = Pin<Box<dyn Future<Output = Result<String, ToolError>> + Send + 'a>>;

/// A built-in tool's name, description, whether it writes, the least role that may see and
/// call it, and its parameters.
pub(crate) struct Builtin {
    /// The operation the tool asks for: its name, the role it needs and whether it writes are
    /// the application's rules ([`skillpath_app::Operation`]).
    pub(crate) operation: Operation,
    pub(crate) description: &'static str,
    parameters: Parameters,
}

/// What a built-in tool takes, as functions of its parameter type (so that a table entry
/// names the type once).
struct Parameters {
    schema: fn() -> JsonObject,
    run: for<'a> fn(&'a SkillServer, &'a Permit, &'a JsonObject) -> Running<'a>,
}

/// The parameters of type `P`.
const fn parameters<P: Params + 'static>() -> Parameters {
    Parameters {
        schema: input_schema::<P>,
        run: run::<P>,
    }
}

impl Builtin {
    /// The tool's name: its operation's.
    pub(crate) fn name(&self) -> &'static str {
        self.operation.name()
    }

    /// Whether it writes (hidden and refused on a read-only server).
    pub(crate) fn writes(&self) -> bool {
        self.operation.writes()
    }

    /// The least role that may use it.
    pub(crate) fn role(&self) -> Role {
        self.operation.role()
    }

    /// The tool's input schema, derived from its parameter type.
    pub(crate) fn schema(&self) -> JsonObject {
        (self.parameters.schema)()
    }

    /// The tool as MCP lists it.
    pub(crate) fn tool(&self) -> Tool {
        Tool::new(self.name(), self.description, Arc::new(self.schema())).with_annotations(
            ToolAnnotations::new()
                .read_only(!self.writes())
                .destructive(false)
                .open_world(false),
        )
    }

    /// Reads `arguments` as the tool's parameters and runs it with `permit`, the rules'
    /// answer for its operation ([`skillpath_app::App::may`]).
    pub(crate) fn run<'a>(
        &self,
        server: &'a SkillServer,
        permit: &'a Permit,
        arguments: &'a JsonObject,
    ) -> Running<'a> {
        (self.parameters.run)(server, permit, arguments)
    }
}

fn run<'a, P: Params + 'static>(
    server: &'a SkillServer,
    permit: &'a Permit,
    arguments: &'a JsonObject,
) -> Running<'a> {
    Box::pin(async move { P::parse(arguments)?.run(server, permit).await })
}

/// Every built-in tool, in listing order.
pub(crate) const BUILTINS: &[Builtin] = &[
    Builtin {
        operation: Operation::ListSkills,
        description: "List the skills: name, description, tool name, revision. Paginated with `cursor`.",
        parameters: parameters::<ListSkills>(),
    },
    Builtin {
        operation: Operation::SearchSkills,
        description: "Find skills for a task by words; best first, name matches before description and body matches.",
        parameters: parameters::<SearchSkills>(),
    },
    Builtin {
        operation: Operation::GetSkill,
        description: "The raw `SKILL.md` of a skill (current or a given revision) and the list of its files.",
        parameters: parameters::<GetSkill>(),
    },
    Builtin {
        operation: Operation::LoadSkill,
        description: "Load a skill's instructions, rendered with `arguments` when it takes any. Use when a task matches a skill's description.",
        parameters: parameters::<LoadSkill>(),
    },
    Builtin {
        operation: Operation::SkillHistory,
        description: "Every revision of a skill: number, time, author, operation, message.",
        parameters: parameters::<SkillHistory>(),
    },
    Builtin {
        operation: Operation::ValidateSkill,
        description: "Check a skill before creating it: give `skill` (the structured form create_skill takes). Returns every problem with its code.",
        parameters: parameters::<ValidateSkill>(),
    },
    Builtin {
        operation: Operation::PlanSkill,
        description: "Start here to author a skill: returns the Golden Path format guide and a plan template for `goal`.",
        parameters: parameters::<PlanSkill>(),
    },
    Builtin {
        operation: Operation::CreateSkill,
        description: "Create a skill from structured data (name, description, args, title, summary, sections, phases, templates). It is callable as a tool at once.",
        parameters: parameters::<CreateSkill>(),
    },
    Builtin {
        operation: Operation::UpdateSkill,
        description: "Change a skill: give `expected_revision` (from get_skill or list_skills) and the fields to replace; lists are replaced whole.",
        parameters: parameters::<UpdateSkill>(),
    },
    Builtin {
        operation: Operation::DeleteSkill,
        description: "Delete a skill (kept in history; it can be restored).",
        parameters: parameters::<DeleteSkill>(),
    },
    Builtin {
        operation: Operation::RollbackSkill,
        description: "Make an earlier revision of a skill current again, as a new revision.",
        parameters: parameters::<RollbackSkill>(),
    },
    Builtin {
        operation: Operation::ForkSkill,
        description: "Copy a skill or an architecture package (with its member skills) under a new name to adapt it; the copy records what it was copied from (name and revision).",
        parameters: parameters::<ForkSkill>(),
    },
    Builtin {
        operation: Operation::StarSkill,
        description: "Star a skill you found (with search_skills) in another team's namespace: it is served to you as a tool from then on, following its published revisions. Give its full name, `@namespace/name`.",
        parameters: parameters::<StarSkill>(),
    },
    Builtin {
        operation: Operation::UnstarSkill,
        description: "Remove a star (see star_skill): the skill is no longer served to you, unless it is in one of your namespaces.",
        parameters: parameters::<UnstarSkill>(),
    },
    Builtin {
        operation: Operation::ReleaseSkill,
        description: "Release a revision of a skill or package as a semver version, with notes and tags (`stable`, `beta`): immutable, its files exactly the revision's. A maintainer of its namespace releases it (and releases or declines what authors proposed); an author where the namespace reviews proposes it (`status: proposed`) for a maintainer. A version is never reused; a minor or patch release whose arguments would break calls the previous release took is refused, naming what breaks.",
        parameters: parameters::<ReleaseSkill>(),
    },
    Builtin {
        operation: Operation::ListReleases,
        description: "An item's releases (version, revision, notes, author, yanked), where its tags point (`latest`, `stable`, …), and the releases authors proposed, waiting for a maintainer.",
        parameters: parameters::<ListReleases>(),
    },
    Builtin {
        operation: Operation::ListArchitectures,
        description: "List the architecture packages: name, description, layers, tech stack, options, member skills. Paginated with `cursor`.",
        parameters: parameters::<ListArchitectures>(),
    },
    Builtin {
        operation: Operation::GetArchitecture,
        description: "An architecture package in full: layers, tech stack, options (with defaults), member skills (and their tools), documentation pages (as `package://` resources to read) and overview.",
        parameters: parameters::<GetArchitecture>(),
    },
    Builtin {
        operation: Operation::AnalyzeRequirements,
        description: "Give a description of the project, the team and its constraints; returns the architecture packages that fit, best first, each with why. Use before starting a new service or feature.",
        parameters: parameters::<AnalyzeRequirements>(),
    },
    Builtin {
        operation: Operation::PlanArchitecture,
        description: "Start here to capture a repository's architecture as a package: discovery questions, the plan template, and what to extract as templates.",
        parameters: parameters::<PlanArchitecture>(),
    },
    Builtin {
        operation: Operation::CreateArchitecture,
        description: "Create an architecture package from structured data (name, description, layers, tech_stack, options, docs, overview); then add its skills with create_skill and `package`.",
        parameters: parameters::<CreateArchitecture>(),
    },
    Builtin {
        operation: Operation::ListDrafts,
        description: "The drafts waiting for review (on a server that reviews authors' writes): yours, or every author's for a maintainer; with base revision, author, message, and a rejection's reason. Paginated with `cursor`.",
        parameters: parameters::<ListDrafts>(),
    },
    Builtin {
        operation: Operation::PublishSkill,
        description: "Publish a draft of a skill or package (see `list_drafts`; read it with `get_skill` and `draft: true`): it becomes the next revision, served to everyone. Refused when someone published in between.",
        parameters: parameters::<PublishSkill>(),
    },
    Builtin {
        operation: Operation::RejectSkill,
        description: "Reject a draft of a skill or package with a message saying why and what to change; its author reads it with the draft.",
        parameters: parameters::<RejectSkill>(),
    },
    Builtin {
        operation: Operation::ListApiKeys,
        description: "List the API keys of this server: name, role, prefix, state, dates (never the keys).",
        parameters: parameters::<ListApiKeys>(),
    },
    Builtin {
        operation: Operation::CreateApiKey,
        description: "Create an API key for an HTTP client and return it (shown once). Roles: reader (see and call skills), author (also change skills; as drafts where review is required), maintainer (also publish and reject drafts), admin (also manage keys).",
        parameters: parameters::<CreateApiKey>(),
    },
    Builtin {
        operation: Operation::RevokeApiKey,
        description: "Revoke the active API key with this name; every server refuses it from its next request on.",
        parameters: parameters::<RevokeApiKey>(),
    },
];

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};
    use skillpath_core::golden_path::spec::SkillSpec;

    use super::BUILTINS;
    use crate::schemas::{input_schema, undocumented};

    /// The collision rule of `validate`, `scan` and the catalog uses core's list of built-in
    /// tool names; it must be exactly the tools this table serves, in the same order.
    #[test]
    fn builtin_names_are_cores_builtin_tools() {
        let names: Vec<&str> = BUILTINS.iter().map(|b| b.name()).collect();
        assert_eq!(names, skillpath_core::tool_names::BUILTIN_TOOLS);
    }

    fn schema_of(tool: &str) -> Value {
        let builtin = BUILTINS.iter().find(|b| b.name() == tool).expect("a tool");
        Value::Object(builtin.schema())
    }

    /// The names of the properties of `schema`, in order.
    fn properties(schema: &Value) -> Vec<String> {
        schema["properties"]
            .as_object()
            .map(|properties| properties.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// `create_skill`'s schema without its `package` (the package a member joins), `namespace`
    /// and `visibility` (where it goes).
    fn create_skill_spec() -> Value {
        let mut schema = schema_of("create_skill");
        for field in ["package", "namespace", "visibility"] {
            let removed = schema["properties"]
                .as_object_mut()
                .and_then(|properties| properties.remove(field));
            assert_eq!(
                removed.as_ref().map(|p| p["type"].clone()),
                Some(json!("string")),
                "{field}"
            );
        }
        schema
    }

    /// `create_skill` takes a `SkillSpec` and a `package`: its schema is the one derived from
    /// `SkillSpec` (descriptions aside) with `package`, and its properties are every field
    /// `SkillSpec` serializes, so a field added to the type is in the schema, and the schema
    /// has nothing the type does not read.
    #[test]
    fn create_skill_s_schema_is_skill_spec_s() {
        let schema = create_skill_spec();
        let (mut shape, mut derived) = (schema.clone(), Value::Object(input_schema::<SkillSpec>()));
        undocumented(&mut shape);
        undocumented(&mut derived);
        assert_eq!(shape, derived);
        let every_field = SkillSpec {
            name: "n".into(),
            description: "d".into(),
            tool_name: Some("t".into()),
            license: Some("l".into()),
            compatibility: Some("c".into()),
            allowed_tools: Some("a".into()),
            metadata: [("k".to_owned(), "v".to_owned())].into(),
            args: vec![serde_json::from_value(json!({"name": "a"})).expect("an argument")],
            title: Some("t".into()),
            summary: Some("s".into()),
            sections: vec![
                serde_json::from_value(json!({"type": "free", "heading": "h"})).expect("a section"),
            ],
            phases: vec![serde_json::from_value(json!({"name": "p"})).expect("a phase")],
            templates: vec![
                serde_json::from_value(json!({"path": "p", "content": "c"})).expect("a file"),
            ],
        };
        let fields: Vec<String> = serde_json::to_value(&every_field)
            .expect("serializes")
            .as_object()
            .map(|fields| fields.keys().cloned().collect())
            .unwrap_or_default();
        assert_eq!(properties(&schema), fields);
        assert_eq!(schema["required"], json!(["name", "description"]));
        assert_eq!(schema["additionalProperties"], json!(false));
    }

    /// `validate_skill` checks the same structured form, and `update_skill` takes its fields
    /// and the revision it changes.
    #[test]
    fn validate_and_update_take_the_spec_s_fields() {
        let spec = create_skill_spec();
        assert_eq!(schema_of("validate_skill")["properties"]["skill"], spec);
        let update = schema_of("update_skill");
        let mut expected = properties(&spec);
        expected.push("expected_revision".to_owned());
        expected.push("visibility".to_owned());
        assert_eq!(properties(&update), expected);
        for (field, schema) in spec["properties"].as_object().expect("properties") {
            assert_eq!(&update["properties"][field], schema, "{field}");
        }
        assert_eq!(update["required"], json!(["name", "expected_revision"]));
    }

    /// Every schema is plain: inline (no `$ref`, no `$defs`), no nullable types, no integer
    /// formats, and every whole number has its bounds.
    #[test]
    fn schemas_are_plain() {
        fn check(schema: &Value, at: &str) {
            match schema {
                Value::Object(object) => {
                    for key in ["$ref", "$defs", "$schema", "format", "oneOf", "nullable"] {
                        assert!(!object.contains_key(key), "{at}: `{key}` in {schema}");
                    }
                    if let Some(Value::Array(types)) = object.get("type") {
                        panic!("{at}: a type list {types:?}");
                    }
                    if object.get("type") == Some(&json!("integer")) {
                        assert!(object.contains_key("minimum"), "{at}: {schema}");
                    }
                    for (key, value) in object {
                        check(value, &format!("{at}/{key}"));
                    }
                }
                Value::Array(items) => {
                    for (index, item) in items.iter().enumerate() {
                        check(item, &format!("{at}/{index}"));
                    }
                }
                _ => {}
            }
        }
        for builtin in BUILTINS {
            let schema = Value::Object(builtin.schema());
            assert_eq!(schema["type"], json!("object"), "{}", builtin.name());
            assert!(schema.get("title").is_none(), "{}", builtin.name());
            check(&schema, builtin.name());
        }
    }

    /// Whole-number arguments are checked as they are read: out of range, negative or a
    /// fraction, the call is an error that names the argument and its range.
    #[tokio::test]
    async fn whole_numbers_out_of_range_are_errors_naming_the_argument() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = skillpath_store::SqliteStore::open(&dir.path().join("store.db")).expect("open");
        let server =
            crate::SkillServer::new(std::sync::Arc::new(store), crate::ServerOptions::default())
                .await
                .expect("a server");
        let caller = crate::Caller::local();
        let revisions = "expected a whole number from 1 to 9223372036854775807";
        for (tool, arguments, message) in [
            ("list_skills", json!({"limit": 0}), "argument `limit`: invalid value: integer `0`, expected a whole number from 1 to 500".to_owned()),
            ("list_skills", json!({"limit": 501}), "argument `limit`: invalid value: integer `501`, expected a whole number from 1 to 500".to_owned()),
            ("search_skills", json!({"query": "x", "limit": 101}), "argument `limit`: invalid value: integer `101`, expected a whole number from 1 to 100".to_owned()),
            ("get_skill", json!({"name": "x", "revision": 0}), format!("argument `revision`: invalid value: integer `0`, {revisions}")),
            ("delete_skill", json!({"name": "x", "expected_revision": -1}), format!("argument `expected_revision`: invalid value: integer `-1`, {revisions}")),
            ("rollback_skill", json!({"name": "x", "to_revision": 1.5, "expected_revision": 2}), format!("argument `to_revision`: invalid type: floating point `1.5`, {revisions}")),
            ("update_skill", json!({"name": "x", "expected_revision": 9_223_372_036_854_775_808_u64}), format!("argument `expected_revision`: invalid value: integer `9223372036854775808`, {revisions}")),
        ] {
            let builtin = BUILTINS.iter().find(|b| b.name() == tool).expect("a tool");
            let arguments = arguments.as_object().cloned().unwrap_or_default();
            let permit = server.app().may(&caller, builtin.operation).expect("permitted");
            let refused = builtin.run(&server, &permit, &arguments).await;
            assert_eq!(refused.map_err(|error| error.to_string()), Err(message), "{tool}");
        }
    }
}
