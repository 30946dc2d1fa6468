//! The built-in tools that read the catalog: `list_skills`, `search_skills`, `get_skill`,
//! `load_skill` and `skill_history`, each with its parameter type.

use std::fmt::Write as _;

use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use skillpath_audit::AuditRecord;
use skillpath_store::ListFilter;
use skillpath_store::usage::UsageKind;

use crate::arguments::{Params, Revision, Whole};
use crate::review_tools::draft_view;
use crate::state::{STILL_SYNCING, SkillServer};
use crate::to_mcp::{files_json, skill_content};
use crate::tool_error::ToolError;
use skillpath_app::Permit;

/// `list_skills`: a page of the skills, with what the folder sync could not load or left out.
#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct ListSkills {
    cursor: Option<String>,
    limit: Option<Whole<1, 500>>,
}

impl Params for ListSkills {
    async fn run(self, server: &SkillServer, permit: &Permit) -> Result<String, ToolError> {
        let limit = self.limit.map_or(100, Whole::count);
        let page = server
            .app()
            .list(permit, ListFilter::default(), self.cursor, limit)
            .await?;
        let catalog = server.catalog_for(permit.caller());
        let items: Vec<Value> = page
            .items
            .iter()
            .map(|s| {
                let mut item = serde_json::json!({"name": s.name, "description": s.description, "tool_name": s.tool_name, "revision": s.revision});
                // A skill the Skills extension's clients would refuse is still this server's
                // tool, prompt and resources; its user learns why `skills/list` leaves it out.
                if let Some(why) = catalog.skill(&s.name).and_then(|skill| skill.entry.0.as_ref().err()) {
                    item["not_in_skills_list"] = Value::String(why.to_string());
                }
                item
            })
            .collect();
        // Folders the server could not load, and skills left out for another of their
        // name, are listed with every page, so an agent (or its user) learns why a skill
        // it expects is missing or is not the one it expects.
        let skipped: Vec<Value> = server
            .folder_report()
            .skipped
            .iter()
            .map(|folder| folder.to_json())
            .collect();
        let shadowed = server.shadowed().await?;
        let mut answer = serde_json::json!({
            "skills": items,
            "next_cursor": page.next_cursor,
            "skipped_folders": skipped,
            "shadowed": shadowed,
        });
        // Past `sync_wait`, the first folder sync may not be in yet: said, so that an empty or
        // short list is not taken for the whole catalog.
        if server.syncing() {
            answer["syncing"] = Value::Bool(true);
            answer["note"] = Value::from(STILL_SYNCING);
        }
        Ok(serde_json::to_string_pretty(&answer).unwrap_or_default())
    }
}

/// `search_skills`: the skills that match words, best first.
#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct SearchSkills {
    query: String,
    limit: Option<Whole<1, 100>>,
}

impl Params for SearchSkills {
    async fn run(self, server: &SkillServer, permit: &Permit) -> Result<String, ToolError> {
        let query = self.query.as_str();
        let limit = self.limit.map_or(10, Whole::count);
        let hits = server.app().search(permit, query, limit).await?;
        // Past `sync_wait`, the first folder sync may not be in yet: said first, so that no
        // match is not taken for no such skill.
        let mut text = if server.syncing() {
            format!("syncing: true\n{STILL_SYNCING}\n\n")
        } else {
            String::new()
        };
        if hits.is_empty() {
            let _ = write!(text, "No skill matches `{query}`.");
            return Ok(text);
        }
        // With an embedding model every query has skills nearest by meaning, even one of
        // made-up words: say when none of them matched a word of it.
        if hits.iter().all(|hit| hit.snippet.is_empty()) {
            let _ = writeln!(
                text,
                "No skill matches the words of `{query}`; the nearest by meaning:"
            );
        }
        for hit in hits {
            // A skill found by meaning alone matched no word of the query.
            let matched = if hit.snippet.is_empty() {
                "(by meaning)"
            } else {
                hit.snippet.as_str()
            };
            let _ = writeln!(
                text,
                "- {}: {}\n  match: {matched}",
                hit.name, hit.description
            );
        }
        text.push_str("\nLoad one with `load_skill`.");
        Ok(text)
    }
}

/// `get_skill`: a skill's `SKILL.md` as stored, current or at a revision, and its files.
#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct GetSkill {
    name: String,
    revision: Option<Revision>,
    #[schemars(
        description = "Read a draft instead (on a server that reviews authors' writes): your own, or any author's for a maintainer; with its diff from the revision it was made on"
    )]
    draft: Option<bool>,
    #[schemars(description = "With `draft`: whose draft, when the skill has drafts by several")]
    author: Option<String>,
}

impl Params for GetSkill {
    async fn run(self, server: &SkillServer, permit: &Permit) -> Result<String, ToolError> {
        if self.draft == Some(true) {
            return draft_view(server, permit, &self.name, self.author.as_deref()).await;
        }
        let skill = server
            .app()
            .revision(permit, &self.name, self.revision.map(Whole::get))
            .await?;
        let files = files_json(&skill.snapshot.files);
        let usage = server
            .app()
            .uses(permit, &skill.name)
            .await?
            .map_or_else(
                || serde_json::json!({"calls": 0, "loads": 0, "prompts": 0, "reads": 0, "last_used": null}),
                |row| serde_json::json!({"calls": row.calls, "loads": row.loads, "prompts": row.prompts, "reads": row.reads, "last_used": row.last_used}),
            );
        // What the caller's channel serves of it: the release, or its current revision.
        let (channel, release) = server.app().served_release(permit.caller(), &skill.name);
        let served_revision = server
            .catalog_for(permit.caller())
            .skill(&skill.name)
            .map(|served| served.revision);
        Ok(serde_json::to_string_pretty(&serde_json::json!({
            "name": skill.name,
            "revision": skill.revision,
            "served": {
                "channel": channel.to_string(),
                "version": release.map(|release| release.version.to_string()),
                "revision": served_revision,
            },
            "deleted": skill.deleted,
            // Where it came from: imported from a folder, made through the API, or forked
            // from another item (`from`, `revision`).
            "provenance": skill.provenance,
            "skill_md": skill.snapshot.skill_md,
            "files": files,
            // Every use counted so far (written every few seconds).
            "usage": usage,
            // `null`: the revision was not audited (written with the policy `off`, or before
            // audits were kept).
            "audit": skill.audit.as_ref().map(AuditRecord::json),
        }))
        .unwrap_or_default())
    }
}

/// `load_skill`: a skill's instructions, rendered with the arguments given.
#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct LoadSkill {
    name: String,
    arguments: Option<JsonObject>,
}

impl Params for LoadSkill {
    async fn run(self, server: &SkillServer, permit: &Permit) -> Result<String, ToolError> {
        let skill_name = self.name.as_str();
        let catalog = server.catalog_for(permit.caller());
        let skill = catalog
            .skill(skill_name)
            .ok_or_else(|| ToolError::NoSuchSkill(skill_name.to_owned()))?;
        let markdown = server
            .app()
            .render(permit, skill, &self.arguments.unwrap_or_default())
            .await?;
        server.count_use(skill, permit.caller().key.as_deref(), UsageKind::Load);
        Ok(skill_content(skill, &markdown))
    }
}

/// `skill_history`: every revision of a skill.
#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct SkillHistory {
    #[schemars(description = "The skill's name")]
    name: String,
}

impl Params for SkillHistory {
    async fn run(self, server: &SkillServer, permit: &Permit) -> Result<String, ToolError> {
        let revisions = server.app().history(permit, &self.name).await?;
        Ok(serde_json::to_string_pretty(&revisions).unwrap_or_default())
    }
}

/// `star_skill`: a public item of another namespace served to the caller from now on.
#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct StarSkill {
    #[schemars(
        description = "The item's full name, `@namespace/name` (a name alone is `@global`'s)"
    )]
    name: String,
}

impl Params for StarSkill {
    async fn run(self, server: &SkillServer, permit: &Permit) -> Result<String, ToolError> {
        star(server, permit, &self.name, true).await
    }
}

/// `unstar_skill`: a star removed.
#[derive(Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct UnstarSkill {
    #[schemars(
        description = "The item's full name, `@namespace/name` (a name alone is `@global`'s)"
    )]
    name: String,
}

impl Params for UnstarSkill {
    async fn run(self, server: &SkillServer, permit: &Permit) -> Result<String, ToolError> {
        star(server, permit, &self.name, false).await
    }
}

/// Stars or unstars `name` for the permit's caller, saying what became of it.
async fn star(
    server: &SkillServer,
    permit: &Permit,
    name: &str,
    starred: bool,
) -> Result<String, ToolError> {
    let full = crate::arguments::full_name(name)?;
    let key = full.key();
    let was = server.app().star(permit, None, &key, starred).await?;
    Ok(match (starred, was) {
        (true, true) => format!("`{full}` was starred already."),
        (true, false) => format!("Starred `{full}`: it is served to you from now on."),
        (false, true) => format!("Unstarred `{full}`."),
        (false, false) => format!("`{full}` was not starred."),
    })
}
