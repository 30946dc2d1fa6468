//! Publishing a version from files, as a registry client publishes (`clawhub publish`): the
//! files become the item's next revision (or its first) and that revision is released as the
//! version, in one operation, so that the rule of who may do it is decided once, before
//! anything is written: a maintainer of the namespace writes and releases; an author where the
//! namespace reviews saves a draft, released once a maintainer publishes it; anyone else is
//! refused. The files a registry client uploads before it publishes wait in the store
//! (`skillpath_store::uploads`), so that any replica finds them.

use skillpath_model::release::{self, Version};
use skillpath_model::{
    Change, FullName, MemberRole, Placement, Provenance, SkillSnapshot, Visibility,
};
use skillpath_store::StoreError;
use skillpath_store::uploads::{StagedUpload, Staging, Unstaged};

use crate::app::App;
use crate::catalog::Derived;
use crate::error::AppError;
use crate::ops::releases::{ReleaseRequest, Released};
use crate::rules::{Operation, Permit};

/// A version to publish from files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionUpload {
    /// The item.
    pub item: FullName,
    /// Its files, `SKILL.md` among them.
    pub snapshot: SkillSnapshot,
    /// The version.
    pub version: Version,
    /// What changed, for whom.
    pub notes: String,
    /// Tags to point at the release (`latest` follows the highest release by itself, so it is
    /// not set by hand here).
    pub tags: Vec<String>,
}

/// What a publish made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Published {
    /// The version, released (or released already with exactly these files: a retry).
    Released {
        /// The revision the files are.
        revision: u64,
        /// Whether this request made it (`false`: it was there).
        made: bool,
    },
    /// Saved as the caller's draft, for a maintainer to publish and release.
    Pending,
}

impl<E: Derived> App<E> {
    /// Publishes `upload`: refused unless the caller may release in the item's namespace (a
    /// maintainer) or propose there (an author where it reviews: the files are then their
    /// draft), before anything is written; a version released before with other files is
    /// refused, with these files it is the same publish again.
    pub async fn publish_version(
        &self,
        permit: &Permit,
        upload: VersionUpload,
    ) -> Result<Published, AppError> {
        let caller = self.permitted(permit, Operation::SaveFiles)?;
        self.permitted(permit, Operation::ReleaseSkill)?;
        let key = upload.item.key();
        let namespace = upload.item.namespace.clone();
        let current = match self.store().get(&key, None).await {
            Ok(current) => {
                self.seen(caller, &key).await?;
                Some(current)
            }
            Err(StoreError::NotFound { .. }) => None,
            Err(error) => return Err(error.into()),
        };
        let drafted = self
            .gate(caller, &namespace, MemberRole::Author, "publishing")
            .await?;
        if !drafted {
            self.gate(caller, &namespace, MemberRole::Maintainer, "releasing")
                .await?;
        }
        let people = self.people().await?;
        if let Some(released) = people
            .directory
            .releases_of(&key)
            .iter()
            .find(|r| release::same_version(&r.version, &upload.version))
        {
            let same = self.store().get(&key, Some(released.revision)).await?;
            if same.snapshot.content_hash() == upload.snapshot.content_hash() {
                return Ok(Published::Released {
                    revision: released.revision,
                    made: false,
                });
            }
        }
        let message = format!("publish {} {}", upload.item, upload.version);
        let change = Change {
            author: caller.author(),
            message: message.clone(),
        };
        let revision = match current {
            Some(current) if current.deleted => {
                return Err(AppError::Store(StoreError::Refused(format!(
                    "{} is deleted: bring it back (`undelete`) before publishing a version of it",
                    upload.item
                ))));
            }
            _ if drafted => {
                let base = self
                    .store()
                    .get(&key, None)
                    .await
                    .map_or(0, |current| current.revision);
                let draft = (upload.snapshot, base, None);
                self.save_draft(caller, draft, namespace, message).await?;
                return Ok(Published::Pending);
            }
            Some(current) if current.snapshot.content_hash() == upload.snapshot.content_hash() => {
                current.revision
            }
            Some(current) => {
                self.store()
                    .update(&key, current.revision, upload.snapshot, change)
                    .await?
                    .revision
            }
            None => {
                let placement = Placement {
                    namespace,
                    visibility: Visibility::default(),
                };
                self.store()
                    .create_in(placement, upload.snapshot, Provenance::Api, change)
                    .await?
                    .revision
            }
        };
        self.refresh().await?;
        let request = ReleaseRequest {
            name: key,
            version: upload.version,
            revision: Some(revision),
            notes: upload.notes,
            tags: upload
                .tags
                .into_iter()
                .filter(|tag| tag != release::LATEST)
                .collect(),
            forced: None,
        };
        match self.release(permit, request).await? {
            Released::Released(_) => Ok(Published::Released {
                revision,
                made: true,
            }),
            Released::Proposed(_) => Ok(Published::Pending),
        }
    }
}

impl<E> App<E> {
    /// Stages `upload` for a publish to come, as the permit's caller's (their key's, which
    /// `upload.key` is set to), within `staging`: `Ok(Err(_))` names the bound it would pass.
    /// Refused for a caller without a key, or who may not write files.
    pub async fn stage_upload(
        &self,
        permit: &Permit,
        mut upload: StagedUpload,
        staging: Staging,
    ) -> Result<Result<(), Unstaged>, AppError> {
        let caller = self.permitted(permit, Operation::SaveFiles)?;
        upload.key = uploader(caller)?;
        Ok(self.store().stage_upload(upload, staging).await?)
    }

    /// The staged upload `ticket`, when it is the permit's caller's (else none: another key's
    /// ticket is nobody's to see).
    pub async fn staged_upload(
        &self,
        permit: &Permit,
        ticket: &str,
    ) -> Result<Option<StagedUpload>, AppError> {
        let caller = self.permitted(permit, Operation::SaveFiles)?;
        let key = uploader(caller)?;
        Ok(self
            .store()
            .staged_upload(ticket)
            .await?
            .filter(|upload| upload.key == key))
    }

    /// The bytes of the permit's caller's staged upload `ticket` (checked by the caller against
    /// what was announced).
    pub async fn fill_upload(
        &self,
        permit: &Permit,
        ticket: &str,
        bytes: Vec<u8>,
    ) -> Result<(), AppError> {
        if self.staged_upload(permit, ticket).await?.is_none() {
            return Err(AppError::Invalid(format!(
                "no upload has the ticket `{ticket}` (or it expired): ask for another\n"
            )));
        }
        Ok(self.store().fill_upload(ticket, bytes).await?)
    }

    /// Drops the permit's caller's staged uploads `tickets` (published).
    pub async fn drop_uploads(
        &self,
        permit: &Permit,
        tickets: Vec<String>,
    ) -> Result<(), AppError> {
        let caller = self.permitted(permit, Operation::SaveFiles)?;
        let key = uploader(caller)?;
        Ok(self.store().drop_uploads(&key, tickets).await?)
    }
}

/// The key an upload is its caller's by: its public part.
fn uploader(caller: &crate::Caller) -> Result<String, AppError> {
    caller.key_id.clone().ok_or(AppError::NoPerson)
}
