//! What the studio (`skillpath-studio`) shows of a skill as an agent sees it: a call of the
//! skill answered exactly as `tools/call` answers it ([`SkillServer::try_skill`]), and its tool
//! exactly as `tools/list` lists it ([`SkillServer::listed_tool`]). Both decide with the
//! application's rules, as MCP: the roles, read-only, review.

use rmcp::ErrorData as McpError;
use rmcp::model::JsonObject;
use skillpath_store::usage::UsageKind;

use skillpath_app::Operation;

use crate::auth::Caller;
use crate::builtin::BUILTINS;
use crate::state::SkillServer;
use crate::to_mcp::{skill_content, skill_tool};
use crate::tool_error::ToolError;

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
        let answer = |result: Result<String, ToolError>| match result {
            Ok(text) => ToolAnswer {
                text,
                is_error: false,
            },
            Err(error) => ToolAnswer {
                text: error.to_string(),
                is_error: true,
            },
        };
        if let Some(builtin) = BUILTINS.iter().find(|b| b.name() == name) {
            // A protocol error, before the arguments are read, as MCP has always refused; the
            // permit is what the tool's operation takes, so the rule is decided here only.
            let permit = self
                .app()
                .may(caller, builtin.operation)
                .map_err(|refusal| McpError::invalid_params(refusal.to_string(), None))?;
            return Ok(answer(builtin.run(self, &permit, arguments).await));
        }
        let catalog = self.catalog_for(caller);
        let Some(skill) = catalog.tool(name) else {
            return Err(McpError::invalid_params(
                format!("unknown tool `{name}`"),
                None,
            ));
        };
        // A skill's tool is its rendering: the rule is `load_skill`'s, decided here once.
        let permit = self
            .app()
            .may(caller, Operation::LoadSkill)
            .map_err(|refusal| McpError::invalid_params(refusal.to_string(), None))?;
        let rendered = self.app().render(&permit, skill, arguments).await;
        if rendered.is_ok() && counted {
            self.count_use(skill, caller.key.as_deref(), UsageKind::Call);
        }
        Ok(answer(
            rendered
                .map(|markdown| skill_content(skill, &markdown))
                .map_err(ToolError::from),
        ))
    }

    /// Calls the skill `name` with `values` as `caller`, as an agent would: through its own
    /// tool, or `load_skill` when it has none. Answers with the `tools/call` parameters sent and
    /// what an MCP client would be given. Not counted as a use of the skill (a person trying a
    /// skill in the studio is not an agent using it).
    pub async fn try_skill(
        &self,
        caller: &Caller,
        name: &str,
        values: JsonObject,
    ) -> (serde_json::Value, ToolAnswer) {
        let (tool, arguments) = self.tool_call_for(caller, name, values);
        let answer = self
            .answer(caller, &tool, &arguments, false)
            .await
            .unwrap_or_else(|error| ToolAnswer {
                text: error.message.into_owned(),
                is_error: true,
            });
        let call = serde_json::json!({"name": tool, "arguments": arguments});
        (call, answer)
    }

    /// The skill `name`'s tool as `tools/list` lists it (name, description, input schema,
    /// annotations), as JSON; `None` when it has no tool of its own (its tool name is taken,
    /// or it is a package): it is called through `load_skill`.
    pub fn listed_tool(&self, caller: &Caller, name: &str) -> Option<serde_json::Value> {
        let catalog = self.catalog_for(caller);
        let (tool_name, skill) = catalog.tools().find(|(_, skill)| skill.name == name)?;
        serde_json::to_value(skill_tool(tool_name, skill)).ok()
    }

    /// The tool that calls the skill `name` and the arguments it takes for `values`: its own
    /// tool, or `load_skill` with the values as its `arguments`.
    fn tool_call_for(
        &self,
        caller: &Caller,
        name: &str,
        values: JsonObject,
    ) -> (String, JsonObject) {
        let catalog = self.catalog_for(caller);
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
}
