//! `release_skill` and `list_releases`: an item's releases over MCP, through the application's
//! operations (a maintainer of the item's namespace releases; whoever reads the item lists).

use schemars::JsonSchema;
use serde::Deserialize;
use skillpath_app::{Permit, ReleaseRequest};
use skillpath_model::release::parse_version;

use crate::arguments::{Params, Revision, full_name};
use crate::state::SkillServer;
use crate::tool_error::{ArgumentError, ToolError};

/// `release_skill`: a revision released as a version, with notes and tags.
#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct ReleaseSkill {
    #[schemars(
        description = "The item's full name, `@namespace/name` (a name alone is `@global`'s)"
    )]
    name: String,
    #[schemars(
        description = "The version, semver 2.0 (`1.4.0`, `2.0.0-beta.1`): never used before, and higher than the highest release of its major line"
    )]
    version: String,
    #[schemars(description = "The revision to release (default: the current one)")]
    revision: Option<Revision>,
    #[schemars(description = "What changed, for whom (the changelog)")]
    notes: Option<String>,
    #[schemars(description = "Tags to point at the release (`stable`, `beta`, …)")]
    tags: Option<Vec<String>>,
    #[schemars(
        description = "Decline the release of `version` an author proposed, saying why, instead of releasing it (maintainers)"
    )]
    decline: Option<String>,
}

impl Params for ReleaseSkill {
    async fn run(self, server: &SkillServer, permit: &Permit) -> Result<String, ToolError> {
        let name = full_name(&self.name)?.key();
        let version = parse_version(&self.version).map_err(|error| ArgumentError::Field {
            path: "version".to_owned(),
            problem: error.to_string(),
        })?;
        if let Some(reason) = self.decline {
            let entry = server.app().decline(permit, &name, version, reason).await?;
            return Ok(format!(
                "Declined the proposed release {} (log entry {}).",
                entry.action.target, entry.seq
            ));
        }
        let request = ReleaseRequest {
            name,
            version,
            revision: self.revision.map(|revision| revision.get()),
            notes: self.notes.unwrap_or_default(),
            tags: self.tags.unwrap_or_default(),
            forced: None,
        };
        let release = server.app().release(permit, request).await?;
        Ok(serde_json::to_string_pretty(&release).unwrap_or_default())
    }
}

/// `list_releases`: an item's releases and where its tags point.
#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct ListReleases {
    #[schemars(
        description = "The item's full name, `@namespace/name` (a name alone is `@global`'s)"
    )]
    name: String,
}

impl Params for ListReleases {
    async fn run(self, server: &SkillServer, permit: &Permit) -> Result<String, ToolError> {
        let releases = server
            .app()
            .releases(permit, &full_name(&self.name)?.key())
            .await?;
        Ok(serde_json::to_string_pretty(&releases).unwrap_or_default())
    }
}
