//! A skill's revisions: its timeline, any one of them, the diff between two, a rollback to one,
//! its deletion (it stays in history), its restoration and its fork under a new name.
//!
//! The writes record a message: the one the caller gives (the command line's `--message`), else
//! one that says what was done (what MCP's tools and the studio record).

use skillpath_model::{Change, Placement, Revision, namespace_of_key};
use skillpath_store::StoredSkill;
use skillpath_store::drafts::DraftSummary;
use skillpath_store::forks::ForkRequest;

use crate::app::App;
use crate::catalog::Derived;
use crate::error::AppError;
use crate::rules::{Operation, Permit};

/// What a write wrote: the item's new revision, or, for an author's key on a server that
/// reviews, the author's draft.
#[derive(Debug)]
pub enum Written {
    /// Stored and served.
    Stored(StoredSkill),
    /// Saved as the caller's draft, waiting for review.
    Drafted(DraftSummary),
}

impl<E> App<E> {
    /// Every revision of the skill `name`, oldest first.
    pub async fn history(&self, permit: &Permit, name: &str) -> Result<Vec<Revision>, AppError> {
        let caller = self.permitted(permit, Operation::SkillHistory)?;
        self.seen(caller, name).await?;
        Ok(self.store().history(name).await?)
    }

    /// The skill `name` at `revision` (`None`: its current one).
    pub async fn revision(
        &self,
        permit: &Permit,
        name: &str,
        revision: Option<u64>,
    ) -> Result<StoredSkill, AppError> {
        let caller = self.permitted(permit, Operation::GetSkill)?;
        self.seen(caller, name).await?;
        Ok(self.store().get(name, revision).await?)
    }

    /// The unified diff of the skill `name` from revision `from` to revision `to` (`None`: its
    /// current one), with the revision it went to. Read as a skill is ([`Operation::GetSkill`]):
    /// a diff shows both revisions' content.
    pub async fn diff(
        &self,
        permit: &Permit,
        name: &str,
        from: u64,
        to: Option<u64>,
    ) -> Result<(u64, String), AppError> {
        let caller = self.permitted(permit, Operation::GetSkill)?;
        self.seen(caller, name).await?;
        let to = match to {
            Some(to) => to,
            None => self.store().get(name, None).await?.revision,
        };
        Ok((to, self.store().diff(name, from, to).await?))
    }
}

impl<E: Derived> App<E> {
    /// The skill `name` given the content of its revision `to`, as a new revision made from
    /// revision `expected`, recording `message` (`None`: `roll NAME back to revision TO`);
    /// drafted, a rollback is an update to that content.
    pub async fn rollback(
        &self,
        permit: &Permit,
        name: &str,
        to: u64,
        expected: u64,
        message: Option<String>,
    ) -> Result<Written, AppError> {
        let caller = self.permitted(permit, Operation::RollbackSkill)?;
        let message = message.unwrap_or_else(|| format!("roll {name} back to revision {to}"));
        if self.item_gate(caller, name).await? {
            let earlier = self.store().get(name, Some(to)).await?;
            let draft = (earlier.snapshot, expected, None);
            let namespace = namespace_of_key(name);
            return Ok(Written::Drafted(
                self.save_draft(caller, draft, namespace, message).await?,
            ));
        }
        let change = Change {
            author: caller.author(),
            message,
        };
        let stored = self.store().rollback(name, to, expected, change).await?;
        let after = serde_json::json!({"to": to, "revision": stored.revision});
        self.record(caller, "item.rollback", name, after).await?;
        self.refresh().await?;
        Ok(Written::Stored(stored))
    }

    /// The skill `name` deleted at revision `expected`, recording `message` (`None`: `delete
    /// NAME`); it stays in history. A deletion has no content to review: on a reviewing server
    /// it is a maintainer's.
    pub async fn delete(
        &self,
        permit: &Permit,
        name: &str,
        expected: u64,
        message: Option<String>,
    ) -> Result<StoredSkill, AppError> {
        let message = message.unwrap_or_else(|| format!("delete {name}"));
        let change = self
            .unreviewed(
                permit,
                Operation::DeleteSkill,
                ("a deletion", "delete", name),
                message,
            )
            .await?;
        let stored = self.store().delete(name, expected, change).await?;
        let after = serde_json::json!({"revision": stored.revision});
        self.record(permit.caller(), "item.delete", name, after)
            .await?;
        self.refresh().await?;
        Ok(stored)
    }

    /// The deleted skill `name` brought back with the content it had, at revision `expected`,
    /// recording `message` (`None`: `restore NAME`). Like a deletion, it has no content to
    /// review: on a reviewing server it is a maintainer's.
    pub async fn restore(
        &self,
        permit: &Permit,
        name: &str,
        expected: u64,
        message: Option<String>,
    ) -> Result<StoredSkill, AppError> {
        let message = message.unwrap_or_else(|| format!("restore {name}"));
        let what = ("a restoration", "restore", name);
        let change = self
            .unreviewed(permit, Operation::RestoreSkill, what, message)
            .await?;
        let stored = self.store().restore(name, expected, change).await?;
        let after = serde_json::json!({"revision": stored.revision});
        self.record(permit.caller(), "item.restore", name, after)
            .await?;
        self.refresh().await?;
        Ok(stored)
    }

    /// The copies `request` asks for (a package's members with it), recording where they came
    /// from and `message` (`None`: `fork FROM as NAME`). A package's fork creates several items
    /// at once, which no draft holds: on a reviewing server it is a maintainer's.
    pub async fn fork(
        &self,
        permit: &Permit,
        request: ForkRequest,
        message: Option<String>,
    ) -> Result<Vec<StoredSkill>, AppError> {
        let message =
            message.unwrap_or_else(|| format!("fork {} as {}", request.from, request.name));
        let caller = self.permitted(permit, Operation::ForkSkill)?;
        self.seen(caller, &request.from).await?;
        let into = request
            .into
            .clone()
            .unwrap_or_else(|| Placement::beside(&request.from));
        if self.write_gate(caller, &into.namespace).await? {
            return Err(AppError::NotReviewable {
                what: "a fork",
                verb: "fork",
                name: request.from.clone(),
            });
        }
        let change = Change {
            author: caller.author(),
            message,
        };
        let written = self.store().fork(request, change).await?;
        self.refresh().await?;
        Ok(written)
    }

    /// The change a write that no draft can hold records as the permit's caller, with
    /// `message`: refused ([`AppError::NotReviewable`], naming `what` it is, the `verb` a
    /// maintainer is asked for and the item `name`) when
    /// the caller's writes wait for review, since a maintainer must make it.
    async fn unreviewed(
        &self,
        permit: &Permit,
        operation: Operation,
        (what, verb, name): (&'static str, &'static str, &str),
        message: String,
    ) -> Result<Change, AppError> {
        let caller = self.permitted(permit, operation)?;
        if self.item_gate(caller, name).await? {
            return Err(AppError::NotReviewable {
                what,
                verb,
                name: name.to_owned(),
            });
        }
        Ok(Change {
            author: caller.author(),
            message,
        })
    }
}
