//! What a server does for a caller without MCP's framing, for the studio (`skillpath-studio`):
//! a tool call answered exactly as `tools/call` answers it ([`SkillServer::call_as`]), a
//! skill's tool exactly as `tools/list` lists it ([`SkillServer::listed_tool`]), and a skill's
//! files written as they were edited ([`SkillServer::write_files`]), which no tool takes (the
//! authoring tools take structured data). Each decides with the same rules as MCP: the roles,
//! read-only, review.

use rmcp::ErrorData as McpError;
use rmcp::model::JsonObject;
use skillpath_core::validate::loading;
use skillpath_core::{Mode, Severity, skill_md};
use skillpath_model::{Change, Kind, SkillSnapshot};
use skillpath_store::keys::Role;
use skillpath_store::usage::UsageKind;
use skillpath_store::{Store, StoreError};

use crate::auth::Caller;
use crate::builtin::BUILTINS;
use crate::review_tools::{draft_saved, store_draft};
use crate::state::SkillServer;
use crate::to_mcp::{skill_content, skill_tool, store_error};

/// A tool call's answer: its text, and whether it is an error result (`isError`). A call the
/// protocol refuses (an unknown tool, a role that may not use it) is an error result whose
/// text is the protocol error's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolAnswer {
    /// The text of the result's one content block.
    pub text: String,
    /// Whether the result is an error.
    pub is_error: bool,
}

/// Why [`SkillServer::write_files`] wrote nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditRefused {
    /// Someone wrote the skill since the revision the edit started from: `current` is its
    /// revision now. Nothing of either change is lost; the caller merges and saves again.
    Stale {
        /// The skill's revision now.
        current: u64,
    },
    /// Anything else, as a sentence with the fix: a role that may not write, a read-only
    /// server, a skill that cannot be loaded, an audit policy.
    Refused(String),
}

impl SkillServer {
    /// Answers the tool `name` called with `arguments` by `caller`, as `tools/call` answers it.
    /// `counted`: whether a skill's tool call counts as a use of the skill (a person trying a
    /// skill in the studio is not an agent using it).
    pub(crate) async fn answer(
        &self,
        caller: &Caller,
        name: &str,
        arguments: &JsonObject,
        counted: bool,
    ) -> Result<ToolAnswer, McpError> {
        let answer = |result: Result<String, String>| match result {
            Ok(text) => ToolAnswer {
                text,
                is_error: false,
            },
            Err(text) => ToolAnswer {
                text,
                is_error: true,
            },
        };
        if let Some(builtin) = BUILTINS.iter().find(|b| b.name == name) {
            if builtin.writes && self.read_only() {
                return Err(McpError::invalid_params(
                    format!("`{}` writes, and this server is read-only", builtin.name),
                    None,
                ));
            }
            if let Some(refusal) = caller.refusal(&format!("`{}`", builtin.name), builtin.role) {
                return Err(McpError::invalid_params(refusal, None));
            }
            return Ok(answer(builtin.run(self, caller, arguments).await));
        }
        let catalog = self.catalog();
        let Some(skill) = catalog.tool(name) else {
            return Err(McpError::invalid_params(
                format!("unknown tool `{name}`"),
                None,
            ));
        };
        let rendered = self.render_skill(skill, arguments).await;
        if rendered.is_ok() && counted {
            self.count_use(skill, caller.key.as_deref(), UsageKind::Call);
        }
        Ok(answer(
            rendered.map(|markdown| skill_content(skill, &markdown)),
        ))
    }

    /// Calls the tool `name` with `arguments` as `caller`, and answers with what an MCP client
    /// would be given. Not counted as a use of the skill.
    pub async fn call_as(&self, caller: &Caller, name: &str, arguments: JsonObject) -> ToolAnswer {
        self.answer(caller, name, &arguments, false)
            .await
            .unwrap_or_else(|error| ToolAnswer {
                text: error.message.into_owned(),
                is_error: true,
            })
    }

    /// The skill `name`'s tool as `tools/list` lists it (name, description, input schema,
    /// annotations), as JSON; `None` when it has no tool of its own (its tool name is taken,
    /// or it is a package): it is called through `load_skill`.
    pub fn listed_tool(&self, name: &str) -> Option<serde_json::Value> {
        let catalog = self.catalog();
        let (tool_name, skill) = catalog.tools().find(|(_, skill)| skill.name == name)?;
        serde_json::to_value(skill_tool(tool_name, skill)).ok()
    }

    /// The tool that calls the skill `name` and the arguments it takes for `values`: its own
    /// tool, or `load_skill` with the values as its `arguments`.
    pub fn tool_call_for(&self, name: &str, values: JsonObject) -> (String, JsonObject) {
        let catalog = self.catalog();
        match catalog.tools().find(|(_, skill)| skill.name == name) {
            Some((tool_name, _)) => (tool_name.clone(), values),
            None => {
                let mut arguments = JsonObject::new();
                arguments.insert("name".to_owned(), name.into());
                arguments.insert("arguments".to_owned(), values.into());
                ("load_skill".to_owned(), arguments)
            }
        }
    }

    /// Whether what an author's key writes waits for review here.
    pub fn reviews(&self) -> bool {
        self.options().review
    }

    /// Whether this server refuses every write.
    pub fn is_read_only(&self) -> bool {
        self.read_only()
    }

    /// The store the server serves, for what the studio reads directly (history, diffs,
    /// drafts, keys).
    pub fn store_handle(&self) -> std::sync::Arc<dyn Store> {
        self.shared_store()
    }

    /// Writes `snapshot` as the skill `name`'s next revision, made from revision `expected`,
    /// as `caller`: an author's key on a server that reviews saves it as their draft. Refused
    /// like an `update_skill` (role, read-only, the audit policy), when the skill's `SKILL.md`
    /// cannot be loaded (what `import` would skip), and as [`EditRefused::Stale`] when the
    /// skill moved on. What it answers says what was written.
    pub async fn write_files(
        &self,
        caller: &Caller,
        name: &str,
        expected: u64,
        snapshot: SkillSnapshot,
        message: String,
    ) -> Result<String, EditRefused> {
        if self.read_only() {
            return Err(EditRefused::Refused(
                "this server is read-only: it writes no skill".to_owned(),
            ));
        }
        if let Some(refusal) = caller.refusal("changing a skill", Role::Author) {
            return Err(EditRefused::Refused(refusal));
        }
        unloadable(&snapshot, name).map_err(EditRefused::Refused)?;
        let written = if caller.drafts(self.reviews()) {
            store_draft(self, caller, (snapshot, expected, None), message)
                .await
                .map(|saved| draft_saved(&saved))
        } else {
            let change = Change {
                author: caller.author(),
                message,
            };
            match self.store().update(name, expected, snapshot, change).await {
                Ok(stored) => self
                    .refresh()
                    .await
                    .map(|()| format!("Saved `{}` as revision {}.", stored.name, stored.revision)),
                Err(error) => Err(error),
            }
        };
        written.map_err(|error| match error {
            StoreError::StaleRevision { actual, .. } => EditRefused::Stale { current: actual },
            error => EditRefused::Refused(store_error(error)),
        })
    }
}

/// Why `snapshot` cannot be stored as the skill `name`: the errors of the rules a loader needs
/// (`validate::loading`), which `import` and `serve` would skip it for, each with its line. A
/// package's manifest is the store's to check.
fn unloadable(snapshot: &SkillSnapshot, name: &str) -> Result<(), String> {
    if snapshot.kind != Kind::Skill {
        return Ok(());
    }
    let parsed = skill_md::parse("SKILL.md".into(), snapshot.skill_md.clone(), Mode::Lenient);
    let errors: Vec<String> = loading(&parsed, Some(name))
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| {
            let line = d
                .location
                .as_ref()
                .map(|l| format!(" (line {})", l.start.line))
                .unwrap_or_default();
            format!("{}: {}{line}", d.code, d.message)
        })
        .collect();
    match errors.is_empty() {
        true => Ok(()),
        false => Err(format!(
            "the skill could not be loaded, so nothing was saved; fix these and save again: {}",
            errors.join("; ")
        )),
    }
}
