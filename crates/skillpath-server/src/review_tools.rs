//! Review on a team server, as MCP tools over the application's review operations: where
//! review is required, what an author's key creates or updates is saved as its draft, served
//! to nobody ([`draft_saved`] says so); `list_drafts` is the queue, `get_skill` with
//! `draft: true` reads one with its diff, and a maintainer publishes (`publish_skill`) or
//! rejects (`reject_skill`, with a message the author reads) it. Who sees which draft is the
//! application's rule ([`skillpath_app::Caller::drafts_seen`]).

use schemars::JsonSchema;
use serde::Deserialize;
use skillpath_model::Kind;
use skillpath_store::drafts::{Draft, DraftSummary};

use crate::arguments::{Params, Whole};
use crate::pagination::paginate;
use crate::state::SkillServer;
use crate::to_mcp::files_json;
use crate::tool_error::ToolError;
use skillpath_app::Permit;

/// What a write that saved the draft `saved` answers.
pub(crate) fn draft_saved(saved: &DraftSummary) -> String {
    let made_on = match saved.base {
        0 => format!("as a new {}", saved.kind.as_str()),
        base => format!("on revision {base}"),
    };
    format!(
        "Saved your draft of `{}` ({made_on}) for review: this server needs a maintainer to publish what an author writes, so nobody is served it until then (`publish_skill`). Read it with `get_skill` and `draft: true`; `list_drafts` shows where it is in review.",
        saved.name
    )
}

/// `list_drafts`: the drafts the caller may see, by name then author.
#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct ListDrafts {
    #[schemars(description = "Only the drafts of this skill or package")]
    name: Option<String>,
    cursor: Option<String>,
    limit: Option<Whole<1, 500>>,
}

impl Params for ListDrafts {
    async fn run(self, server: &SkillServer, permit: &Permit) -> Result<String, ToolError> {
        let drafts = server.app().drafts(permit, self.name).await?;
        let limit = self.limit.map_or(100, Whole::count);
        let (items, next) = paginate(drafts.into_iter(), self.cursor.as_deref(), limit, |d| d)?;
        Ok(listing(items, next))
    }
}

fn listing(drafts: Vec<DraftSummary>, next: Option<String>) -> String {
    serde_json::to_string_pretty(&serde_json::json!({
        "drafts": drafts,
        "next_cursor": next,
    }))
    .unwrap_or_default()
}

/// The draft of `name` (by `author`, or its only one the caller may see) as `get_skill` with
/// `draft: true` shows it: its review state, content and diff from the revision it was made on.
pub(crate) async fn draft_view(
    server: &SkillServer,
    permit: &Permit,
    name: &str,
    author: Option<&str>,
) -> Result<String, ToolError> {
    let (draft, diff) = server.app().draft_diff(permit, name, author).await?;
    let Draft { summary, snapshot } = draft;
    let files = files_json(&snapshot.files);
    Ok(serde_json::to_string_pretty(&serde_json::json!({
        "name": summary.name,
        "draft": summary,
        "skill_md": snapshot.skill_md,
        "files": files,
        "diff": diff,
    }))
    .unwrap_or_default())
}

/// `publish_skill`: a draft becomes the item's next revision, served to everyone.
#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct PublishSkill {
    #[schemars(description = "The skill or package whose draft to publish")]
    name: String,
    #[schemars(description = "The draft's author, when the item has drafts by several")]
    author: Option<String>,
    #[schemars(description = "What the review found, kept in the revision's message")]
    message: Option<String>,
}

impl Params for PublishSkill {
    async fn run(self, server: &SkillServer, permit: &Permit) -> Result<String, ToolError> {
        let message = self.message.unwrap_or_default();
        let published = server
            .app()
            .publish(permit, &self.name, self.author.as_deref(), message)
            .await?;
        let what = match published.snapshot.kind {
            Kind::Skill => "skill",
            Kind::Package => "package",
        };
        Ok(format!(
            "Published `{}` at revision {}: every client is served this {what} now.",
            published.name, published.revision
        ))
    }
}

/// `reject_skill`: a draft sent back to its author with why.
#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct RejectSkill {
    #[schemars(description = "The skill or package whose draft to reject")]
    name: String,
    #[schemars(description = "The draft's author, when the item has drafts by several")]
    author: Option<String>,
    #[schemars(description = "Why, and what to change: the author reads it with the draft")]
    message: String,
}

impl Params for RejectSkill {
    async fn run(self, server: &SkillServer, permit: &Permit) -> Result<String, ToolError> {
        let rejected = server
            .app()
            .reject(permit, &self.name, self.author.as_deref(), self.message)
            .await?;
        Ok(format!(
            "Rejected the draft of `{}` by `{}`; they read why with it, and their next save opens it again.",
            rejected.name, rejected.author
        ))
    }
}
