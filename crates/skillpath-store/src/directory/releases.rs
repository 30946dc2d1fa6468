//! Releases and tags, kept with the directory: a release, a yank or a tag moved is a governance
//! change like a membership (decided here against the directory as its transaction sees it,
//! one change at a time, logged in the same transaction), so that two maintainers releasing
//! one version at once on two replicas give one release and one clear refusal, and every
//! release and tag move is in the log. The rules themselves are the model's
//! ([`skillpath_model::release`]).

use serde_json::json;
use skillpath_model::release::{
    self, LATEST, NotReleasable, Proposal, Release, Tag, Version, Yanked, check_new_version,
    check_tag, same_version,
};

use super::{Directory, Row, full_name_of};
use crate::error::{StoreError, StoreResult};
use crate::time::now_rfc3339;

/// A change of an item's releases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReleaseChange {
    /// Releases a revision as a version, with its notes, and points `tags` at it.
    Release {
        /// The item's store key.
        key: String,
        /// The version.
        version: Version,
        /// The revision it names (one the item has: the caller checks it).
        revision: u64,
        /// What changed, for whom.
        notes: String,
        /// Tags to point at it.
        tags: Vec<String>,
        /// Why the version may skip the rule that it climbs its major line (`None`: it may not).
        forced: Option<String>,
    },
    /// Yanks a release: hidden from resolution, kept for the locks that pin it.
    Yank {
        /// The item's store key.
        key: String,
        /// The version.
        version: Version,
        /// Why.
        reason: String,
    },
    /// Proposes a release (an author's, where the namespace reviews): it waits for a
    /// maintainer, whose [`ReleaseChange::Release`] of the version makes it and takes the
    /// proposal away in the same transaction.
    Propose {
        /// The item's store key.
        key: String,
        /// The version.
        version: Version,
        /// The revision it names (one the item has: the caller checks it).
        revision: u64,
        /// What changed, for whom.
        notes: String,
        /// Tags to point at the release once made.
        tags: Vec<String>,
    },
    /// Declines a proposed release, saying why; the version may be proposed again.
    Decline {
        /// The item's store key.
        key: String,
        /// The proposal's version.
        version: Version,
        /// Why.
        reason: String,
    },
    /// Points a tag at a release, or (`None`) takes it away; `latest` taken away follows the
    /// highest release again.
    Tag {
        /// The item's store key.
        key: String,
        /// The tag.
        tag: String,
        /// The release's version.
        version: Option<Version>,
    },
}

impl ReleaseChange {
    /// The store key of the item it changes.
    pub fn key(&self) -> &str {
        match self {
            ReleaseChange::Release { key, .. }
            | ReleaseChange::Yank { key, .. }
            | ReleaseChange::Propose { key, .. }
            | ReleaseChange::Decline { key, .. }
            | ReleaseChange::Tag { key, .. } => key,
        }
    }
}

/// What a decided change writes, and its log entry's action, target, before and after.
pub(super) type Decided = (
    Vec<Row>,
    &'static str,
    String,
    Option<serde_json::Value>,
    Option<serde_json::Value>,
);

/// Decides `change` by `actor` against `directory`.
pub(super) fn decide(
    directory: &Directory,
    change: ReleaseChange,
    actor: &str,
) -> StoreResult<Decided> {
    match change {
        ReleaseChange::Release {
            key,
            version,
            revision,
            notes,
            tags,
            forced,
        } => {
            known_item(directory, &key)?;
            check_new_version(directory.releases_of(&key), &version, forced.is_some())
                .map_err(|refusal| refused(&key, &refusal))?;
            let at = now_rfc3339();
            let mut rows = vec![Row::InsertRelease(Release {
                item: key.clone(),
                version: version.clone(),
                revision,
                notes: notes.clone(),
                author: actor.to_owned(),
                created_at: at.clone(),
                yanked: None,
            })];
            for tag in &tags {
                check_tag(tag).map_err(|error| StoreError::Refused(error.to_string()))?;
                rows.push(Row::PutTag(Tag {
                    item: key.clone(),
                    name: tag.clone(),
                    version: version.clone(),
                    set_by: actor.to_owned(),
                    set_at: at.clone(),
                }));
            }
            // A release of a proposed version is the proposal accepted: it goes with it.
            let proposal = proposed(directory, &key, &version);
            if proposal.is_some() {
                rows.push(Row::DeleteProposal(key.clone(), version.clone()));
            }
            let mut after = json!({
                "version": version.to_string(),
                "revision": revision,
                "notes": notes,
                "tags": tags,
                "forced": forced,
            });
            if let Some(proposal) = proposal {
                after["proposed_by"] = json!(proposal.author);
            }
            let target = format!("{}@{version}", full_name_of(&key));
            Ok((rows, "release.create", target, None, Some(after)))
        }
        ReleaseChange::Propose {
            key,
            version,
            revision,
            notes,
            tags,
        } => {
            known_item(directory, &key)?;
            check_new_version(directory.releases_of(&key), &version, false)
                .map_err(|refusal| refused(&key, &refusal))?;
            if let Some(waiting) = proposed(directory, &key, &version) {
                return Err(StoreError::Refused(format!(
                    "{}@{version} is proposed already, by {} (revision {}): a maintainer releases or declines it",
                    full_name_of(&key),
                    waiting.author,
                    waiting.revision
                )));
            }
            for tag in &tags {
                check_tag(tag).map_err(|error| StoreError::Refused(error.to_string()))?;
            }
            let after = json!({
                "version": version.to_string(),
                "revision": revision,
                "notes": notes,
                "tags": tags,
            });
            let rows = vec![Row::InsertProposal(Proposal {
                item: key.clone(),
                version: version.clone(),
                revision,
                notes,
                tags,
                author: actor.to_owned(),
                created_at: now_rfc3339(),
            })];
            let target = format!("{}@{version}", full_name_of(&key));
            Ok((rows, "release.propose", target, None, Some(after)))
        }
        ReleaseChange::Decline {
            key,
            version,
            reason,
        } => {
            known_item(directory, &key)?;
            let Some(waiting) = proposed(directory, &key, &version) else {
                return Err(StoreError::Refused(format!(
                    "no release {version} of {} is proposed",
                    full_name_of(&key)
                )));
            };
            let before = json!({"author": waiting.author, "revision": waiting.revision});
            let rows = vec![Row::DeleteProposal(key.clone(), version.clone())];
            let target = format!("{}@{version}", full_name_of(&key));
            Ok((
                rows,
                "release.decline",
                target,
                Some(before),
                Some(json!({"reason": reason})),
            ))
        }
        ReleaseChange::Yank {
            key,
            version,
            reason,
        } => {
            let found = known_release(directory, &key, &version)?;
            if found.yanked.is_some() {
                return Err(StoreError::Refused(format!(
                    "{}@{version} is yanked already",
                    full_name_of(&key)
                )));
            }
            let pointing: Vec<&str> = directory
                .tags_of(&key)
                .iter()
                .filter(|tag| same_version(&tag.version, &version))
                .map(|tag| tag.name.as_str())
                .collect();
            if !pointing.is_empty() {
                return Err(StoreError::Refused(format!(
                    "{}@{version} is tagged {}: move {} to another release first (`skillpath tag {} TAG VERSION`), then yank it",
                    full_name_of(&key),
                    pointing.join(", "),
                    if pointing.len() == 1 {
                        "that tag"
                    } else {
                        "those tags"
                    },
                    full_name_of(&key)
                )));
            }
            let yanked = Yanked {
                reason: reason.clone(),
                by: actor.to_owned(),
                at: now_rfc3339(),
            };
            let target = format!("{}@{version}", full_name_of(&key));
            let rows = vec![Row::Yank {
                item: key,
                version: found.version.clone(),
                yanked,
            }];
            Ok((
                rows,
                "release.yank",
                target,
                None,
                Some(json!({"reason": reason})),
            ))
        }
        ReleaseChange::Tag { key, tag, version } => {
            known_item(directory, &key)?;
            check_tag(&tag).map_err(|error| StoreError::Refused(error.to_string()))?;
            let releases = directory.releases_of(&key);
            let tags = directory.tags_of(&key);
            let before = release::tag_target(releases, tags, &tag)
                .map(|release| json!({"version": release.version.to_string()}));
            let target = format!("{}:{tag}", full_name_of(&key));
            match version {
                Some(version) => {
                    let found = known_release(directory, &key, &version)?;
                    if let Some(yanked) = &found.yanked {
                        return Err(StoreError::Refused(format!(
                            "{}@{version} is yanked ({}): a tag points only at a release that is not",
                            full_name_of(&key),
                            yanked.reason
                        )));
                    }
                    let after = json!({"version": found.version.to_string()});
                    let rows = vec![Row::PutTag(Tag {
                        item: key,
                        name: tag,
                        version: found.version.clone(),
                        set_by: actor.to_owned(),
                        set_at: now_rfc3339(),
                    })];
                    Ok((rows, "release.tag", target, before, Some(after)))
                }
                None => {
                    if !tags.iter().any(|set| set.name == tag) {
                        return Err(StoreError::Refused(format!(
                            "{} has no tag `{tag}` set{}",
                            full_name_of(&key),
                            if tag == LATEST {
                                ": `latest` already follows the highest release"
                            } else {
                                ""
                            }
                        )));
                    }
                    let rows = vec![Row::DeleteTag(key, tag)];
                    Ok((rows, "release.untag", target, before, None))
                }
            }
        }
    }
}

/// The proposal of `version` of the item `key`, if one waits.
fn proposed<'a>(directory: &'a Directory, key: &str, version: &Version) -> Option<&'a Proposal> {
    directory
        .proposals_of(key)
        .iter()
        .find(|proposal| same_version(&proposal.version, version))
}

/// Refuses a change of an item the directory does not have.
fn known_item(directory: &Directory, key: &str) -> StoreResult<()> {
    if directory.access.contains_key(key) {
        Ok(())
    } else {
        Err(StoreError::NotFound {
            name: key.to_owned(),
            revision: None,
        })
    }
}

/// The release `version` of the item `key`, or a refusal naming the releases there are.
fn known_release<'a>(
    directory: &'a Directory,
    key: &str,
    version: &Version,
) -> StoreResult<&'a Release> {
    known_item(directory, key)?;
    let releases = directory.releases_of(key);
    releases
        .iter()
        .find(|release| same_version(&release.version, version))
        .ok_or_else(|| {
            let there: Vec<String> = releases.iter().map(|r| r.version.to_string()).collect();
            StoreError::Refused(format!(
                "{} has no release {version}{}",
                full_name_of(key),
                if there.is_empty() {
                    " (it has none yet: `skillpath release` makes one)".to_owned()
                } else {
                    format!(" (its releases: {})", there.join(", "))
                }
            ))
        })
}

fn refused(key: &str, refusal: &NotReleasable) -> StoreError {
    StoreError::Refused(format!("{}: {refusal}", full_name_of(key)))
}
