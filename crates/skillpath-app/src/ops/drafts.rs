//! Review: where review is required, what an author's key writes is saved as its draft,
//! served to nobody until a maintainer publishes it or rejects it with a message the author
//! reads. Who sees which draft is [`Caller::drafts_seen`]: a reader none, an author its own,
//! a maintainer every one; a draft one may not see is answered as one that does not exist,
//! so that nothing says it does.

use skillpath_model::{Change, MemberRole, Namespace, SkillSnapshot, namespace_of_key};
use skillpath_store::drafts::{Draft, DraftFilter, DraftSummary, NewDraft};
use skillpath_store::{StoreError, StoredSkill};

use crate::app::App;
use crate::caller::{Caller, DraftsSeen};
use crate::catalog::Derived;
use crate::error::AppError;
use crate::rules::{Operation, Permit};

impl<E> App<E> {
    /// The drafts `caller` may see (of the item `name` only, when given), by name then
    /// author: none for a reader, whom the rules would refuse the listing
    /// ([`Operation::ListDrafts`]); any other caller as [`App::drafts`] answers.
    pub async fn drafts_seen_by(
        &self,
        caller: &Caller,
        name: Option<String>,
    ) -> Result<Vec<DraftSummary>, AppError> {
        if caller.drafts_seen() == DraftsSeen::None {
            return Ok(Vec::new());
        }
        let permit = self.may(caller, Operation::ListDrafts)?;
        self.drafts(&permit, name).await
    }

    /// The drafts the permit's caller may see (of the item `name` only, when given), by name
    /// then author.
    pub async fn drafts(
        &self,
        permit: &Permit,
        name: Option<String>,
    ) -> Result<Vec<DraftSummary>, AppError> {
        let caller = self.permitted(permit, Operation::ListDrafts)?;
        let author = match caller.drafts_seen() {
            DraftsSeen::None => return Ok(Vec::new()),
            DraftsSeen::Own(author) => Some(author),
            DraftsSeen::All => None,
        };
        let mut drafts = self.store().drafts(DraftFilter { name, author }).await?;
        // A maintainer sees the drafts of the namespaces they maintain; their own anywhere.
        let sight = self.sight(caller).await?;
        drafts.retain(|draft| {
            draft.author == caller.author()
                || sight
                    .role_in(&namespace_of_key(&draft.name))
                    .is_some_and(|role| role >= MemberRole::Maintainer)
        });
        Ok(drafts)
    }

    /// The draft of `name` by `author` (or its only one the permit's caller may see), read as
    /// a skill is ([`Operation::GetSkill`]).
    pub async fn draft(
        &self,
        permit: &Permit,
        name: &str,
        author: Option<&str>,
    ) -> Result<Draft, AppError> {
        let caller = self.permitted(permit, Operation::GetSkill)?;
        let author = seen_author(caller, name, author)?;
        self.store()
            .draft(name, author.as_deref())
            .await
            .map_err(|error| hidden(caller, name, error))
    }

    /// [`App::draft`] with its diff from the revision it was made on, as unified text.
    pub async fn draft_diff(
        &self,
        permit: &Permit,
        name: &str,
        author: Option<&str>,
    ) -> Result<(Draft, String), AppError> {
        let caller = self.permitted(permit, Operation::GetSkill)?;
        let author = seen_author(caller, name, author)?;
        self.store()
            .draft_diff(name, author.as_deref())
            .await
            .map_err(|error| hidden(caller, name, error))
    }

    /// Saves `snapshot` as `caller`'s draft of an item of `namespace`, made on revision `base`
    /// (`0`: a new item), a new skill joining `package` when published. The store's error as
    /// it is: a stale base is [`StoreError::StaleRevision`], which the studio answers with a
    /// merge.
    pub(crate) async fn save_draft(
        &self,
        caller: &Caller,
        (snapshot, base, package): (SkillSnapshot, u64, Option<String>),
        namespace: Namespace,
        message: String,
    ) -> Result<DraftSummary, StoreError> {
        self.store()
            .save_draft(NewDraft {
                snapshot,
                base,
                package,
                change: Change {
                    author: caller.author(),
                    message,
                },
                namespace,
            })
            .await
    }

    /// The draft of `name` by `author` sent back to them with why (`message`).
    pub async fn reject(
        &self,
        permit: &Permit,
        name: &str,
        author: Option<&str>,
        message: String,
    ) -> Result<DraftSummary, AppError> {
        let caller = self.permitted(permit, Operation::RejectSkill)?;
        self.reviewer_gate(caller, name).await?;
        let reviewer = Change {
            author: caller.author(),
            message,
        };
        let rejected = self.store().reject_draft(name, author, reviewer).await?;
        self.record(
            caller,
            "draft.reject",
            name,
            serde_json::json!({"author": rejected.author, "message": rejected.review_message}),
        )
        .await?;
        Ok(rejected)
    }
}

impl<E: Derived> App<E> {
    /// The draft of `name` by `author` made the item's next revision, served to everyone;
    /// `message` (what the review found) is kept in the revision's.
    pub async fn publish(
        &self,
        permit: &Permit,
        name: &str,
        author: Option<&str>,
        message: String,
    ) -> Result<StoredSkill, AppError> {
        let caller = self.permitted(permit, Operation::PublishSkill)?;
        self.reviewer_gate(caller, name).await?;
        let publisher = Change {
            author: caller.author(),
            message,
        };
        let published = self.store().publish_draft(name, author, publisher).await?;
        self.record(
            caller,
            "draft.publish",
            name,
            serde_json::json!({"revision": published.revision}),
        )
        .await?;
        self.refresh().await?;
        Ok(published)
    }
}

/// Whose draft of `name` `caller` reads when asking for `asked`'s: refused, as a draft that
/// does not exist, when the caller may not see it.
fn seen_author(
    caller: &Caller,
    name: &str,
    asked: Option<&str>,
) -> Result<Option<String>, AppError> {
    let not_found = || StoreError::DraftNotFound {
        name: name.to_owned(),
        author: None,
    };
    match (caller.drafts_seen(), asked) {
        (DraftsSeen::None, _) => Err(hidden(caller, name, not_found())),
        (DraftsSeen::Own(own), Some(asked)) if own != asked => {
            Err(hidden(caller, name, not_found()))
        }
        (DraftsSeen::Own(own), _) => Ok(Some(own)),
        (DraftsSeen::All, asked) => Ok(asked.map(str::to_owned)),
    }
}

/// A draft not found, said alike whoever's draft was asked for, so that it tells nothing of
/// others'; any other error as it is. The store's owner, from whom nothing in it is hidden,
/// reads which author's draft was not found (`skillpath review NAME --by AUTHOR`).
fn hidden(caller: &Caller, name: &str, error: StoreError) -> AppError {
    match error {
        StoreError::DraftNotFound { .. } if !caller.is_owner() => {
            AppError::Store(StoreError::DraftNotFound {
                name: name.to_owned(),
                author: None,
            })
        }
        error => AppError::Store(error),
    }
}
