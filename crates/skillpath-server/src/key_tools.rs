//! The built-in tools that manage API keys, for admins: `list_api_keys`, `create_api_key` and
//! `revoke_api_key`, each with its parameter type.

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use skillpath_store::keys::Role;

use crate::arguments::Params;
use crate::state::SkillServer;
use crate::tool_error::ToolError;
use skillpath_app::Permit;

/// `list_api_keys`: every key, never the keys themselves.
#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct ListApiKeys {}

impl Params for ListApiKeys {
    async fn run(self, server: &SkillServer, permit: &Permit) -> Result<String, ToolError> {
        let keys = server.app().list_keys(permit).await?;
        Ok(serde_json::to_string_pretty(
            &serde_json::json!({ "keys": keys }),
        )?)
    }
}

/// `create_api_key`: a new key, shown once.
#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct CreateApiKey {
    #[schemars(description = "Unique among active keys; revisions made with the key record it")]
    name: String,
    #[schemars(schema_with = "role_names")]
    role: String,
    #[schemars(description = "Lifetime such as `90m`, `12h`, `30d`, `2w`; none: until revoked")]
    expires: Option<String>,
}

/// The schema of a role: one of the roles' names, least first.
fn role_names(_: &mut SchemaGenerator) -> Schema {
    let names: Vec<&str> = Role::ALL.into_iter().map(Role::as_str).collect();
    json_schema!({"type": "string", "enum": names})
}

impl Params for CreateApiKey {
    async fn run(self, server: &SkillServer, permit: &Permit) -> Result<String, ToolError> {
        let created = server
            .app()
            .create_key(permit, &self.name, &self.role, self.expires.as_deref())
            .await?;
        Ok(serde_json::to_string_pretty(&created)?)
    }
}

/// `revoke_api_key`: the active key of a name refused from now on.
#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct RevokeApiKey {
    #[schemars(description = "The API key's name")]
    name: String,
}

impl Params for RevokeApiKey {
    async fn run(self, server: &SkillServer, permit: &Permit) -> Result<String, ToolError> {
        let info = server.app().revoke_key(permit, &self.name).await?;
        Ok(format!(
            "Revoked the API key `{}` ({}).",
            info.name, info.prefix
        ))
    }
}
