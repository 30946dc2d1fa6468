//! Review on a team server ([`skillpath_store::drafts`]): where review is required, what an
//! author's key creates or updates is saved as its draft ([`save_draft`]), served to nobody;
//! `list_drafts` is the queue, `get_skill` with `draft: true` reads one with its diff, and a
//! maintainer publishes (`publish_skill`) or rejects (`reject_skill`, with a message the author
//! reads) it. Who sees which draft is [`Caller::drafts_seen`]: a reader none, an author its
//! own, a maintainer every one; a draft one may not see is answered as one that does not
//! exist, so that nothing says it does.

use schemars::JsonSchema;
use serde::Deserialize;
use skillpath_model::{Change, Kind, SkillSnapshot};
use skillpath_store::StoreError;
use skillpath_store::drafts::{Draft, DraftFilter, DraftSummary, NewDraft};

use crate::arguments::{Params, Whole};
use crate::auth::{Caller, DraftsSeen};
use crate::catalog_tools::files_json;
use crate::pagination::paginate;
use crate::state::SkillServer;
use crate::to_mcp::store_error;

/// Saves `snapshot` as `caller`'s draft, made on revision `base` (`0`: a new item), a new skill
/// joining `package` when published; what the tool that wrote it answers.
pub(crate) async fn save_draft(
    server: &SkillServer,
    caller: &Caller,
    draft: (SkillSnapshot, u64, Option<String>),
    message: String,
) -> Result<String, String> {
    let saved = store_draft(server, caller, draft, message)
        .await
        .map_err(store_error)?;
    Ok(draft_saved(&saved))
}

/// [`save_draft`]'s write, with the store's error as it is (a stale base is
/// `StoreError::StaleRevision`, which the studio answers with a merge).
pub(crate) async fn store_draft(
    server: &SkillServer,
    caller: &Caller,
    (snapshot, base, package): (SkillSnapshot, u64, Option<String>),
    message: String,
) -> Result<DraftSummary, StoreError> {
    server
        .store()
        .save_draft(NewDraft {
            snapshot,
            base,
            package,
            change: Change {
                author: caller.author(),
                message,
            },
        })
        .await
}

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
    async fn run(self, server: &SkillServer, caller: &Caller) -> Result<String, String> {
        let author = match caller.drafts_seen() {
            DraftsSeen::None => return Ok(listing(Vec::new(), None)),
            DraftsSeen::Own(author) => Some(author),
            DraftsSeen::All => None,
        };
        let filter = DraftFilter {
            name: self.name,
            author,
        };
        let drafts = server.store().drafts(filter).await.map_err(store_error)?;
        let limit = self.limit.map_or(100, Whole::count);
        let (items, next) = paginate(drafts.into_iter(), self.cursor.as_deref(), limit, |d| d)
            .map_err(|error| error.message.to_string())?;
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
    caller: &Caller,
    name: &str,
    author: Option<&str>,
) -> Result<String, String> {
    let hidden = || {
        store_error(StoreError::DraftNotFound {
            name: name.to_owned(),
            author: None,
        })
    };
    let author = match (caller.drafts_seen(), author) {
        (DraftsSeen::None, _) => return Err(hidden()),
        (DraftsSeen::Own(own), Some(asked)) if own != asked => return Err(hidden()),
        (DraftsSeen::Own(own), _) => Some(own),
        (DraftsSeen::All, asked) => asked.map(str::to_owned),
    };
    let (draft, diff) = match server.store().draft_diff(name, author.as_deref()).await {
        Ok(found) => found,
        // Said alike whoever's draft was asked for, so that it tells nothing of others'.
        Err(StoreError::DraftNotFound { .. }) => return Err(hidden()),
        Err(error) => return Err(store_error(error)),
    };
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
    async fn run(self, server: &SkillServer, caller: &Caller) -> Result<String, String> {
        let publisher = Change {
            author: caller.author(),
            message: self.message.unwrap_or_default(),
        };
        let published = server
            .store()
            .publish_draft(&self.name, self.author.as_deref(), publisher)
            .await
            .map_err(store_error)?;
        server.refresh().await.map_err(store_error)?;
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
    async fn run(self, server: &SkillServer, caller: &Caller) -> Result<String, String> {
        let reviewer = Change {
            author: caller.author(),
            message: self.message,
        };
        let rejected = server
            .store()
            .reject_draft(&self.name, self.author.as_deref(), reviewer)
            .await
            .map_err(store_error)?;
        Ok(format!(
            "Rejected the draft of `{}` by `{}`; they read why with it, and their next save opens it again.",
            rejected.name, rejected.author
        ))
    }
}
