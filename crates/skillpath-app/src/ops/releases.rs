//! Releases: a revision of an item named by a semver version, yanked, or tagged, by the
//! maintainers of the item's namespace; and an item's releases and tags as whoever reads the
//! item sees them. The version rules are the model's ([`skillpath_model::release`]), kept by
//! the store in the change's transaction; the rule that a release which breaks its callers'
//! calls takes a new major version is decided here, where both revisions are read.

use std::cmp::Ordering;

use skillpath_core::golden_path::args::Arg;
use skillpath_core::golden_path::compat;
use skillpath_model::governance::Entry;
use skillpath_model::release::{self, Proposal, Release, Version};
use skillpath_model::{MemberRole, namespace_of_key};
use skillpath_store::StoreError;
use skillpath_store::directory::releases::ReleaseChange;
use skillpath_store::directory::{Governance, full_name_of};

use crate::app::App;
use crate::caller::DraftsSeen;
use crate::catalog::{Derived, arguments_of};
use crate::error::AppError;
use crate::rules::{Operation, Permit};

/// What someone asks to release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleaseRequest {
    /// The item's store key.
    pub name: String,
    /// The version.
    pub version: Version,
    /// The revision (`None`: the current one).
    pub revision: Option<u64>,
    /// What changed, for whom.
    pub notes: String,
    /// Tags to point at the release.
    pub tags: Vec<String>,
    /// Why the release may break the version rules (a version lower than its line's highest, or
    /// arguments that break calls in a minor or patch release); recorded in the log.
    pub forced: Option<String>,
}

/// An item's releases and where its tags point, as a reader sees them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Releases {
    /// The item's store key.
    pub name: String,
    /// Its releases, lowest version first.
    pub releases: Vec<Release>,
    /// Each tag and the version it points at: those set by hand, and `latest` where it points
    /// anywhere.
    pub tags: Vec<(String, String)>,
    /// The releases authors proposed, waiting for a maintainer (for a caller who reads drafts:
    /// not a reader's key).
    pub proposals: Vec<Proposal>,
}

/// What a caller may do with an item's releases ([`App::release_right`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReleaseRight {
    /// Release, yank, tag, and release or decline proposals: a maintainer of its namespace.
    Release,
    /// Propose releases: an author where the namespace reviews.
    Propose,
}

/// What a release request made.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum Released {
    /// The release, made.
    Released(Release),
    /// An author's release where the namespace reviews: proposed, waiting for a maintainer.
    Proposed(Proposal),
}

impl<E: Derived> App<E> {
    /// Releases a revision of the item `request.name` as `request.version`: the release, made
    /// by a maintainer of its namespace, or proposed by an author where the namespace reviews
    /// (a maintainer's release of the proposed version then takes the proposal's revision,
    /// notes and tags where the request names none). Refused (as the store refuses) for a
    /// version released before or below its line's highest, and here for a minor or patch
    /// release whose arguments break calls the previous release took, naming what breaks;
    /// `forced` (a maintainer's) lets both through, logged.
    pub async fn release(
        &self,
        permit: &Permit,
        mut request: ReleaseRequest,
    ) -> Result<Released, AppError> {
        let caller = self.permitted(permit, Operation::ReleaseSkill)?;
        let proposing = self.proposal_gate(caller, &request.name).await?;
        if proposing && request.forced.is_some() {
            return Err(refused(format!(
                "a proposed release cannot be forced: a maintainer of {} forces a release",
                namespace_of_key(&request.name)
            )));
        }
        if !proposing {
            let people = self.people().await?;
            if let Some(proposal) = people
                .directory
                .proposals_of(&request.name)
                .iter()
                .find(|proposal| release::same_version(&proposal.version, &request.version))
            {
                request.revision = request.revision.or(Some(proposal.revision));
                if request.notes.is_empty() {
                    request.notes.clone_from(&proposal.notes);
                }
                if request.tags.is_empty() {
                    request.tags.clone_from(&proposal.tags);
                }
            }
        }
        let stored = self.store().get(&request.name, request.revision).await?;
        if stored.deleted {
            return Err(refused(format!(
                "revision {} of `{}` deletes it: release a revision that holds the item",
                stored.revision, request.name
            )));
        }
        let people = self.people().await?;
        let releases = people.directory.releases_of(&request.name);
        // The version rules first (the store holds them again in the release's transaction),
        // so that a version used before is said as such whatever else it would break.
        release::check_new_version(releases, &request.version, request.forced.is_some())
            .map_err(|refusal| refused(format!("{}: {refusal}", full_name_of(&request.name))))?;
        let previous = releases
            .iter()
            .filter(|r| r.version.cmp_precedence(&request.version) == Ordering::Less)
            .max_by(|a, b| a.version.cmp_precedence(&b.version));
        if let Some(previous) = previous
            && request.forced.is_none()
            && !may_break(&previous.version, &request.version)
        {
            let before = self
                .store()
                .get(&request.name, Some(previous.revision))
                .await?;
            let broken = compat::incompatible(
                &arguments(&before.snapshot.skill_md),
                &arguments(&stored.snapshot.skill_md),
            );
            if !broken.is_empty() {
                return Err(refused(format!(
                    "{} would break calls that {} takes ({}): release it as {}, or force it with a reason",
                    request.version,
                    previous.version,
                    broken.join("; "),
                    next_breaking(&previous.version)
                )));
            }
        }
        let missing = || {
            AppError::Store(StoreError::database(
                "a release just made is not in the directory",
            ))
        };
        if proposing {
            let change = ReleaseChange::Propose {
                key: request.name.clone(),
                version: request.version.clone(),
                revision: stored.revision,
                notes: request.notes,
                tags: request.tags,
            };
            self.change_releases(caller, change).await?;
            let people = self.people().await?;
            return people
                .directory
                .proposals_of(&request.name)
                .iter()
                .find(|proposal| release::same_version(&proposal.version, &request.version))
                .cloned()
                .map(Released::Proposed)
                .ok_or_else(missing);
        }
        let change = ReleaseChange::Release {
            key: request.name.clone(),
            version: request.version.clone(),
            revision: stored.revision,
            notes: request.notes,
            tags: request.tags,
            forced: request.forced,
        };
        self.change_releases(caller, change).await?;
        let people = self.people().await?;
        people
            .directory
            .releases_of(&request.name)
            .iter()
            .find(|release| release::same_version(&release.version, &request.version))
            .cloned()
            .map(Released::Released)
            .ok_or_else(missing)
    }

    /// Declines the release `version` an author proposed for the item `name`, saying why
    /// (maintainers of its namespace): the log entry.
    pub async fn decline(
        &self,
        permit: &Permit,
        name: &str,
        version: Version,
        reason: String,
    ) -> Result<Entry, AppError> {
        let key = name.to_owned();
        let change = ReleaseChange::Decline {
            key,
            version,
            reason,
        };
        self.maintainers_change(permit, change).await
    }

    /// Yanks the release `version` of the item `name` for `reason`: the log entry.
    pub async fn yank(
        &self,
        permit: &Permit,
        name: &str,
        version: Version,
        reason: String,
    ) -> Result<Entry, AppError> {
        let key = name.to_owned();
        let change = ReleaseChange::Yank {
            key,
            version,
            reason,
        };
        self.maintainers_change(permit, change).await
    }

    /// Points the tag `tag` of the item `name` at the release `version`, or (`None`) takes it
    /// away: the log entry.
    pub async fn tag(
        &self,
        permit: &Permit,
        name: &str,
        tag: &str,
        version: Option<Version>,
    ) -> Result<Entry, AppError> {
        let (key, tag) = (name.to_owned(), tag.to_owned());
        self.maintainers_change(permit, ReleaseChange::Tag { key, tag, version })
            .await
    }

    /// Makes `change`, which only a maintainer of the item's namespace may (a yank, a tag, a
    /// decline), as the permit's caller: the log entry.
    async fn maintainers_change(
        &self,
        permit: &Permit,
        change: ReleaseChange,
    ) -> Result<Entry, AppError> {
        let caller = self.permitted(permit, Operation::ReleaseSkill)?;
        self.release_gate(caller, change.key()).await?;
        self.change_releases(caller, change).await
    }

    /// The releases and tags of the item `name`, for a caller who reads it (one who does not
    /// is answered as for a missing item).
    pub async fn releases(&self, permit: &Permit, name: &str) -> Result<Releases, AppError> {
        let caller = self.permitted(permit, Operation::ListReleases)?;
        self.seen(caller, name).await?;
        let people = self.people().await?;
        if !people.directory.access.contains_key(name) {
            return Err(AppError::Store(StoreError::NotFound {
                name: name.to_owned(),
                revision: None,
            }));
        }
        let releases = people.directory.releases_of(name).to_vec();
        let set = people.directory.tags_of(name);
        let mut tags: Vec<(String, String)> = set
            .iter()
            .map(|tag| (tag.name.clone(), tag.version.to_string()))
            .collect();
        if !set.iter().any(|tag| tag.name == release::LATEST)
            && let Some(latest) = release::tag_target(&releases, set, release::LATEST)
        {
            tags.push((release::LATEST.to_owned(), latest.version.to_string()));
        }
        tags.sort();
        let proposals = if caller.drafts_seen() == DraftsSeen::None {
            Vec::new()
        } else {
            people.directory.proposals_of(name).to_vec()
        };
        Ok(Releases {
            name: name.to_owned(),
            releases,
            tags,
            proposals,
        })
    }

    /// What `caller` may do with the releases of the item `key` now (`None`: nothing but read
    /// them): what a page offers before anything is asked.
    pub async fn release_right(&self, caller: &crate::Caller, key: &str) -> Option<ReleaseRight> {
        if !self.allows(caller, Operation::ReleaseSkill) {
            return None;
        }
        match self.proposal_gate(caller, key).await {
            Ok(true) => Some(ReleaseRight::Propose),
            Ok(false) => Some(ReleaseRight::Release),
            Err(_) => None,
        }
    }

    /// Whether a release of the item `key` by `caller` is proposed rather than made: refused
    /// for a caller who does not read it or is not an author of its namespace, or in a
    /// namespace that takes no writes; proposed for an author whose namespace reviews (less than
    /// a maintainer there); refused for any other author, since a release is a maintainer's.
    async fn proposal_gate(&self, caller: &crate::Caller, key: &str) -> Result<bool, AppError> {
        self.seen(caller, key).await?;
        let drafted = self
            .gate(
                caller,
                &namespace_of_key(key),
                MemberRole::Author,
                "releasing",
            )
            .await?;
        if drafted {
            return Ok(true);
        }
        self.release_gate(caller, key).await?;
        Ok(false)
    }

    /// Makes `change` as `caller` (already gated) and reloads what the directory says.
    async fn change_releases(
        &self,
        caller: &crate::Caller,
        change: ReleaseChange,
    ) -> Result<Entry, AppError> {
        let entry = self
            .store()
            .govern(Governance::Releases(change), &caller.author())
            .await?;
        self.refresh().await?;
        Ok(entry)
    }
}

/// The arguments a `SKILL.md` declares ([`arguments_of`]).
fn arguments(skill_md: &str) -> Vec<Arg> {
    arguments_of(&skillpath_core::skill_md::parse(
        "SKILL.md".into(),
        skill_md.to_owned(),
        skillpath_core::Mode::Lenient,
    ))
}

/// Whether a release from `previous` to `next` may break calls: a new major version, or, below
/// 1.0.0, a new minor one (as `^0.2` reads it).
fn may_break(previous: &Version, next: &Version) -> bool {
    next.major > previous.major
        || (previous.major == 0 && next.major == 0 && next.minor > previous.minor)
}

/// The first version after `previous` that may break calls.
fn next_breaking(previous: &Version) -> Version {
    if previous.major == 0 {
        Version::new(0, previous.minor + 1, 0)
    } else {
        Version::new(previous.major + 1, 0, 0)
    }
}

fn refused(message: String) -> AppError {
    AppError::Store(StoreError::Refused(message))
}
