//! The built-in tools: catalog (`list_skills`, `search_skills`, `get_skill`, `load_skill`,
//! `skill_history`, `validate_skill`, `plan_skill`) and authoring (`create_skill`,
//! `update_skill`, `delete_skill`, `rollback_skill`) and key management for admins
//! (`list_api_keys`, `create_api_key`, `revoke_api_key`), with their input schemas.

use serde_json::{Value, json};
use skillpath_store::keys::Role;

/// A built-in tool's name, description, input schema, whether it writes, and the least role
/// that may see and call it.
pub(crate) struct Builtin {
    pub(crate) name: &'static str,
    pub(crate) description: &'static str,
    pub(crate) writes: bool,
    pub(crate) role: Role,
    pub(crate) schema: fn() -> Value,
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

fn spec_properties() -> Value {
    json!({
        "name": {"type": "string", "description": "kebab-case skill name, e.g. `add-caching`"},
        "description": {"type": "string", "description": "What the skill does and when to use it (\"Use when …\")"},
        "tool_name": {"type": "string", "description": "MCP tool name when it should differ from `name`"},
        "license": {"type": "string"},
        "compatibility": {"type": "string"},
        "allowed_tools": {"type": "string"},
        "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
        "args": {"type": "array", "items": {"type": "object", "properties": {
            "name": {"type": "string", "description": "snake_case; `{PascalCase}` placeholder in the body"},
            "description": {"type": "string"},
            "required": {"type": "boolean"},
            "type": {"type": "string", "enum": ["string", "boolean", "number"]},
            "enum": {"type": "array", "items": {"type": "string"}},
            "default": {"type": "string", "description": "Written as a string, coerced to the type"}
        }, "required": ["name"]}},
        "title": {"type": "string", "description": "The `# Title` (default: the name in Title Case)"},
        "summary": {"type": "string", "description": "The paragraph under the title"},
        "sections": {"type": "array", "description": "`##` sections in order", "items": {"type": "object", "properties": {
            "type": {"type": "string", "enum": ["prerequisites", "free", "execution-steps", "success-criteria"]},
            "heading": {"type": "string"},
            "content": {"type": "string", "description": "Markdown; checklists (`- [ ] …`) for prerequisites and success criteria"}
        }, "required": ["type"]}},
        "phases": {"type": "array", "description": "Phases of the Execution Steps", "items": {"type": "object", "properties": {
            "name": {"type": "string"},
            "content": {"type": "string"},
            "templates": {"type": "array", "items": {"type": "object", "properties": {
                "template": {"type": "string", "description": "Template file, relative to the skill"},
                "target": {"type": "string", "description": "Where it goes, with placeholders"},
                "condition": {"type": "string", "description": "`Var=value`, `Var!=value`, `Var=a|b` or `Var`"}
            }, "required": ["template", "target"]}}
        }, "required": ["name"]}},
        "templates": {"type": "array", "description": "Template files", "items": {"type": "object", "properties": {
            "path": {"type": "string"}, "content": {"type": "string"}
        }, "required": ["path", "content"]}}
    })
}

fn name_only() -> Value {
    object(
        json!({"name": {"type": "string", "description": "The skill's name"}}),
        &["name"],
    )
}

/// Every built-in tool, in listing order.
pub(crate) const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "list_skills",
        description: "List the skills: name, description, tool name, revision. Paginated with `cursor`.",
        writes: false,
        role: Role::Reader,
        schema: || {
            object(
                json!({"cursor": {"type": "string"}, "limit": {"type": "integer", "minimum": 1, "maximum": 500}}),
                &[],
            )
        },
    },
    Builtin {
        name: "search_skills",
        description: "Find skills for a task by words; best first, name matches before description and body matches.",
        writes: false,
        role: Role::Reader,
        schema: || {
            object(
                json!({"query": {"type": "string"}, "limit": {"type": "integer", "minimum": 1, "maximum": 100}}),
                &["query"],
            )
        },
    },
    Builtin {
        name: "get_skill",
        description: "The raw `SKILL.md` of a skill (current or a given revision) and the list of its files.",
        writes: false,
        role: Role::Reader,
        schema: || {
            object(
                json!({"name": {"type": "string"}, "revision": {"type": "integer", "minimum": 1}}),
                &["name"],
            )
        },
    },
    Builtin {
        name: "load_skill",
        description: "Load a skill's instructions, rendered with `arguments` when it takes any. Use when a task matches a skill's description.",
        writes: false,
        role: Role::Reader,
        schema: || {
            object(
                json!({"name": {"type": "string"}, "arguments": {"type": "object"}}),
                &["name"],
            )
        },
    },
    Builtin {
        name: "skill_history",
        description: "Every revision of a skill: number, time, author, operation, message.",
        writes: false,
        role: Role::Reader,
        schema: name_only,
    },
    Builtin {
        name: "validate_skill",
        description: "Check a skill before creating it: give `skill` (the structured form create_skill takes). Returns every problem with its code.",
        writes: false,
        role: Role::Reader,
        schema: || {
            object(
                json!({"skill": {"type": "object", "properties": spec_properties()}}),
                &["skill"],
            )
        },
    },
    Builtin {
        name: "plan_skill",
        description: "Start here to author a skill: returns the Golden Path format guide and a plan template for `goal`.",
        writes: false,
        role: Role::Reader,
        schema: || {
            object(
                json!({"goal": {"type": "string", "description": "What the skill should let an agent do"}}),
                &["goal"],
            )
        },
    },
    Builtin {
        name: "create_skill",
        description: "Create a skill from structured data (name, description, args, title, summary, sections, phases, templates). It is callable as a tool at once.",
        writes: true,
        role: Role::Author,
        schema: || object(spec_properties(), &["name", "description"]),
    },
    Builtin {
        name: "update_skill",
        description: "Change a skill: give `expected_revision` (from get_skill or list_skills) and the fields to replace; lists are replaced whole.",
        writes: true,
        role: Role::Author,
        schema: || {
            let mut properties = spec_properties();
            if let Some(map) = properties.as_object_mut() {
                map.insert(
                    "expected_revision".into(),
                    json!({"type": "integer", "minimum": 1}),
                );
            }
            object(properties, &["name", "expected_revision"])
        },
    },
    Builtin {
        name: "delete_skill",
        description: "Delete a skill (kept in history; it can be restored).",
        writes: true,
        role: Role::Author,
        schema: || {
            object(
                json!({"name": {"type": "string"}, "expected_revision": {"type": "integer", "minimum": 1}}),
                &["name", "expected_revision"],
            )
        },
    },
    Builtin {
        name: "rollback_skill",
        description: "Make an earlier revision of a skill current again, as a new revision.",
        writes: true,
        role: Role::Author,
        schema: || {
            object(
                json!({"name": {"type": "string"}, "to_revision": {"type": "integer", "minimum": 1}, "expected_revision": {"type": "integer", "minimum": 1}}),
                &["name", "to_revision", "expected_revision"],
            )
        },
    },
    Builtin {
        name: "list_api_keys",
        description: "List the API keys of this server: name, role, prefix, state, dates (never the keys).",
        writes: false,
        role: Role::Admin,
        schema: || object(json!({}), &[]),
    },
    Builtin {
        name: "create_api_key",
        description: "Create an API key for an HTTP client and return it (shown once). Roles: reader (see and call skills), author (also change skills), admin (also manage keys).",
        writes: true,
        role: Role::Admin,
        schema: || {
            object(
                json!({
                    "name": {"type": "string", "description": "Unique among active keys; revisions made with the key record it"},
                    "role": {"type": "string", "enum": ["reader", "author", "admin"]},
                    "expires": {"type": "string", "description": "Lifetime such as `90m`, `12h`, `30d`, `2w`; none: until revoked"}
                }),
                &["name", "role"],
            )
        },
    },
    Builtin {
        name: "revoke_api_key",
        description: "Revoke the active API key with this name; every server refuses it from its next request on.",
        writes: true,
        role: Role::Admin,
        schema: name_only,
    },
];

/// The format guide and plan template `plan_skill` returns.
pub(crate) fn plan(goal: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::BUILTINS;

    /// The collision rule of `validate`, `scan` and the catalog uses core's list of built-in
    /// tool names; it must be exactly the tools this table serves, in the same order.
    #[test]
    fn builtin_names_are_cores_builtin_tools() {
        let names: Vec<&str> = BUILTINS.iter().map(|b| b.name).collect();
        assert_eq!(names, skillpath_core::tool_names::BUILTIN_TOOLS);
    }
}
