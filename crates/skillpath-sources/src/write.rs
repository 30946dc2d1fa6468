//! Writing skills into the agents' folders of a scope: [`write_all`] writes each skill into
//! each folder (the canonical copy first, links to it after), [`write_update`] writes one
//! updated skill, merged content where a folder's edits were merged, and [`remove_skill`]
//! takes one out of every folder skillpath wrote it to; [`plan_update`] decides first whether
//! an update may be written at all (a folder with local edits is never overwritten without
//! `--force`; `--merge` merges edits that do not overlap). What happened to each skill in each
//! folder is a [`Placed`]; a skill that cannot be written into a folder is skipped there with
//! the reason and the others are written. A folder with local edits, a folder skillpath did
//! not write, a name that is no folder's and an agent folder reached through a symlink are
//! never written or removed (the rules are [`folders`]').

use std::collections::BTreeMap;
use std::path::PathBuf;

use skillpath_model::SkillSnapshot;

use crate::SourceError;
use crate::digest::FileDigest;
use crate::folders::{self, FolderError, Scope, State, Target, Written};
use crate::lock::LockedSkill;
use crate::merge::{self, Unmerged};
use crate::verify::{self, ContentError};

/// What became of one skill in one folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// A copy was written.
    Copied,
    /// A link to the canonical copy was written.
    Linked,
    /// It was there already, as it should be, or the folder is the canonical one's link.
    Unchanged,
    /// Nothing was written, for the reason given.
    Skipped,
}

impl Outcome {
    /// The word for it, as the JSON and the text say it.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Copied => "copied",
            Outcome::Linked => "linked",
            Outcome::Unchanged => "unchanged",
            Outcome::Skipped => "skipped",
        }
    }
}

/// What happened to one skill in one folder.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Placed {
    /// The skill folder (or link).
    pub path: PathBuf,
    /// The skill.
    pub name: String,
    /// What became of it.
    pub result: Outcome,
    /// Why it was skipped, or why a copy was written for a link.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Placed {
    /// What [`folders::place`] did, or why it could not.
    pub fn of(path: PathBuf, name: &str, result: Result<Written, FolderError>) -> Placed {
        let (result, reason) = match result {
            Ok(Written::Unchanged) => (Outcome::Unchanged, None),
            Ok(Written::Copied) => (Outcome::Copied, None),
            Ok(Written::Linked) => (Outcome::Linked, None),
            Ok(Written::CopiedForLink(why)) => (Outcome::Copied, Some(why)),
            Err(why) => (Outcome::Skipped, Some(why.to_string())),
        };
        Placed {
            path,
            name: name.to_owned(),
            result,
            reason,
        }
    }

    /// Nothing written of `name` at `path`, for `reason`.
    fn skipped(path: PathBuf, name: &str, reason: String) -> Placed {
        Placed {
            path,
            name: name.to_owned(),
            result: Outcome::Skipped,
            reason: Some(reason),
        }
    }
}

/// A skill to write: its content, and the files its folders hold when they are untouched
/// (the lock's before this write), against which local edits are told.
#[derive(Debug, Clone, Copy)]
pub struct ToWrite<'a> {
    /// The skill's name, its folder's name.
    pub name: &'a str,
    /// What is written.
    pub snapshot: &'a SkillSnapshot,
    /// The files of an untouched folder of it.
    pub untouched: &'a [FileDigest],
    /// Whether its `SKILL.md` is rendered with a project's values (`--values`), so differs
    /// from the lock's by design and is written again by every sync.
    pub rendered: bool,
}

/// How folders with local edits are treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edits {
    /// Left as they are, named.
    Keep,
    /// Replaced.
    Replace,
}

/// Writes each skill into each target folder: the canonical one first as a copy, the others
/// as links to it (copies with `copy`, or where the canonical copy could not be written).
pub fn write_all(
    scope: &Scope,
    targets: &[Target],
    skills: &[ToWrite<'_>],
    copy: bool,
    edits: Edits,
) -> Vec<Placed> {
    let mut placed = Vec::new();
    // The skills whose canonical copy is in place, which links may point to.
    let mut linkable: Vec<&str> = Vec::new();
    for target in targets {
        let refusal = scope.refusal(&target.dir);
        for skill in skills {
            let path = match folders::skill_folder(&target.dir, skill.name) {
                Ok(path) => path,
                Err(reason) => {
                    placed.push(Placed::of(target.dir.clone(), skill.name, Err(reason)));
                    continue;
                }
            };
            match &refusal {
                Err(reason) => {
                    placed.push(Placed::skipped(path, skill.name, reason.to_string()));
                    continue;
                }
                Ok(Some(shared)) => {
                    placed.push(Placed {
                        path,
                        name: skill.name.to_owned(),
                        result: Outcome::Unchanged,
                        reason: Some(format!(
                            "`{}` is a link to `{}`",
                            target.dir.display(),
                            shared.display()
                        )),
                    });
                    continue;
                }
                Ok(None) => {}
            }
            let link_to = scope
                .link_to(target, skill.name)
                .filter(|_| !copy && linkable.contains(&skill.name));
            let mut before = folders::state(&path, skill.untouched, skill.name, link_to.as_deref());
            if let State::Modified { changes } = &mut before
                && skill.rendered
            {
                changes.retain(|change| change.path() != "SKILL.md");
                if changes.is_empty() {
                    before = State::Clean;
                }
            }
            match (&before, edits) {
                (State::Conflicting { reason }, _) => {
                    let reason = format!("{reason}; it is left as it is");
                    placed.push(Placed::skipped(path, skill.name, reason));
                    continue;
                }
                (State::Modified { changes }, Edits::Keep) => {
                    let files: Vec<&str> = changes.iter().map(|c| c.path()).collect();
                    let reason = format!(
                        "has local edits ({}); `skillpath status` shows them, `skillpath update --force` or `install --frozen` replaces them",
                        files.join(", ")
                    );
                    placed.push(Placed::skipped(path, skill.name, reason));
                    continue;
                }
                _ => {}
            }
            // A link whose canonical copy has local edits shows them; replacing edits means
            // writing the canonical copy, which happened above.
            let written =
                folders::place(&target.dir, skill.name, skill.snapshot, link_to.as_deref());
            if target.canonical && written.is_ok() {
                linkable.push(skill.name);
            }
            placed.push(Placed::of(path, skill.name, written));
        }
    }
    placed
}

/// Writes the updated skill `name` into each target folder whose edits were dealt with:
/// `merged[i]` into the `i`-th target where that folder's edits were merged with the update,
/// else `snapshot`. The canonical copy first; the others as links to it (copies with `copy`,
/// where it could not be written, or where a merge made content of their own). An agent
/// folder that is the canonical one's link is passed over.
pub fn write_update(
    scope: &Scope,
    targets: &[Target],
    name: &str,
    snapshot: &SkillSnapshot,
    merged: &BTreeMap<usize, SkillSnapshot>,
    copy: bool,
) -> Vec<Placed> {
    let mut placed = Vec::new();
    // Links are written only once the canonical copy is.
    let mut canonical_written = false;
    for (index, target) in targets.iter().enumerate() {
        // Shown only: `place` refuses a name that is no folder's, with the reason.
        let path = folders::skill_folder(&target.dir, name).unwrap_or_else(|_| target.dir.clone());
        let content = merged.get(&index).unwrap_or(snapshot);
        let written = match scope.refusal(&target.dir) {
            Err(reason) => Err(reason),
            Ok(Some(_)) => continue,
            Ok(None) => {
                let link =
                    !target.canonical && !copy && canonical_written && !merged.contains_key(&index);
                let link_to = scope.link_to(target, name).filter(|_| link);
                folders::place(&target.dir, name, content, link_to.as_deref())
            }
        };
        if target.canonical {
            canonical_written = written.is_ok();
        }
        placed.push(Placed::of(path, name, written));
    }
    placed
}

/// What [`remove_skill`] did with one skill.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Removed {
    /// The folders and links taken away, in the order of the targets.
    pub removed: Vec<PathBuf>,
    /// What was left, each with why.
    pub kept: Vec<(PathBuf, String)>,
    /// Whether a copy of the skill may remain (a folder with local edits, one that could not
    /// be removed, a name that is no folder's): its lock entry stays, to tell what it is.
    pub left: bool,
}

/// Takes the skill `name` out of each of `targets` where skillpath wrote it: a folder that
/// holds the `untouched` files, or a link to the canonical copy; one with local edits only
/// with `force`; anything else, and anything reached through a symlink, stays, named. Give
/// the targets links first, so a link goes before the copy it leads to.
pub fn remove_skill(
    scope: &Scope,
    targets: &[Target],
    name: &str,
    untouched: &[FileDigest],
    force: bool,
) -> Removed {
    let mut done = Removed::default();
    for target in targets {
        let path = match folders::skill_folder(&target.dir, name) {
            Ok(path) => path,
            Err(why) => {
                done.kept.push((target.dir.clone(), why.to_string()));
                done.left = true;
                continue;
            }
        };
        match scope.refusal(&target.dir) {
            // What is there through a symlink (or a file) skillpath never wrote: `sync`
            // writes nothing through one, so nothing is removed through one.
            Err(reason) => {
                if std::fs::symlink_metadata(&path).is_ok() {
                    done.kept
                        .push((path, format!("{reason}; skillpath did not write it")));
                }
                continue;
            }
            // The agent folder is a link to the canonical one, whose copy goes with it.
            Ok(Some(_)) => continue,
            Ok(None) => {}
        }
        let ours_link = scope
            .link_to(target, name)
            .is_some_and(|to| folders::is_link_to(&path, &to));
        let state = if ours_link {
            State::Clean
        } else {
            folders::state(&path, untouched, name, None)
        };
        match state {
            State::Missing => continue,
            State::Clean => {}
            State::Modified { .. } if force => {}
            State::Modified { changes } => {
                let files: Vec<&str> = changes.iter().map(|c| c.path()).collect();
                let why = format!(
                    "has local edits ({}); `--force` removes it",
                    files.join(", ")
                );
                done.kept.push((path, why));
                done.left = true;
                continue;
            }
            State::Conflicting { reason } => {
                done.kept
                    .push((path, format!("{reason}; skillpath did not write it")));
                continue;
            }
        }
        match folders::remove(&target.dir, name) {
            Ok(()) => done.removed.push(path),
            Err(why) => {
                done.kept.push((path, why.to_string()));
                done.left = true;
            }
        }
    }
    done
}

/// Why an updated skill is not written into one of its folders; the update then leaves the
/// skill as it is everywhere, so that the lock keeps telling what its folders hold.
#[derive(Debug, thiserror::Error)]
pub enum Left {
    /// A name that is no folder's.
    #[error("{0}")]
    Name(FolderError),
    /// A folder skillpath did not write.
    #[error("`{shown}` {reason}; skillpath did not write it")]
    NotOurs {
        /// The folder, for people.
        shown: String,
        /// What is there.
        reason: String,
    },
    /// What was installed cannot be read (or differs from the lock), so there is no base.
    #[error("`{shown}`: what was installed cannot be read to merge: {error}")]
    NoBase {
        /// The folder, for people.
        shown: String,
        /// Why.
        error: ContentError,
    },
    /// The merge cannot be made.
    #[error("`{shown}`: {error}")]
    Merge {
        /// The folder, for people.
        shown: String,
        /// Why.
        error: SourceError,
    },
    /// The edits overlap.
    #[error("`{shown}`: the edits overlap: {}", conflicts.join("; "))]
    Overlap {
        /// The folder, for people.
        shown: String,
        /// Each file where they do, with what happened on each side.
        conflicts: Vec<String>,
    },
    /// The merge is no skill.
    #[error("`{shown}`: {why}")]
    Unmerged {
        /// The folder, for people.
        shown: String,
        /// Why.
        why: Unmerged,
    },
    /// Local edits, without `--merge` or `--force`.
    #[error(
        "`{shown}` has local edits: changed here: {}; changed upstream: {}; changed on both sides: {}",
        list(here),
        list(upstream),
        list(both)
    )]
    Edited {
        /// The folder, for people.
        shown: String,
        /// The files changed in the folder.
        here: Vec<String>,
        /// The files the update changes.
        upstream: Vec<String>,
        /// The files changed on both sides.
        both: Vec<String>,
    },
}

/// Paths for people: `a, b`, or `none`.
fn list(paths: &[String]) -> String {
    if paths.is_empty() {
        "none".to_owned()
    } else {
        paths.join(", ")
    }
}

/// Whether the update of the locked skill `name` (`old`) to `upstream` may be written into
/// every one of `targets`, and what: `Ok` with the merged content for each target (by index)
/// whose local edits were merged (`merge`), the update itself for the others; `Err` with why
/// not, for each folder that stands in the way. A folder with local edits is replaced only
/// with `force`; a folder skillpath did not write is never replaced; a link to the canonical
/// copy follows it.
pub fn plan_update(
    scope: &Scope,
    targets: &[Target],
    name: &str,
    old: &LockedSkill,
    upstream: &SkillSnapshot,
    force: bool,
    merge: bool,
) -> Result<BTreeMap<usize, SkillSnapshot>, Vec<Left>> {
    let mut merged = BTreeMap::new();
    let mut refusals = Vec::new();
    // What the update brings and what was installed, the same for every folder; the
    // installed files are read from the source once, by the first folder that merges.
    let upstream_files = folders::files_of(upstream);
    let upstream_changed: Vec<String> = folders::compare(&upstream_files, &old.files)
        .iter()
        .map(|c| c.path().to_owned())
        .collect();
    let mut installed: Option<Result<BTreeMap<String, Vec<u8>>, ContentError>> = None;
    for (index, target) in targets.iter().enumerate() {
        let path = match folders::skill_folder(&target.dir, name) {
            Ok(path) => path,
            Err(why) => {
                refusals.push(Left::Name(why));
                continue;
            }
        };
        if scope
            .link_to(target, name)
            .is_some_and(|to| folders::is_link_to(&path, &to))
        {
            // A link to the canonical copy follows whatever is written there.
            continue;
        }
        let shown = folders::shown(scope.root(), &path);
        let changes = match folders::state(&path, &old.files, name, None) {
            State::Modified { changes } => changes,
            State::Conflicting { reason } => {
                refusals.push(Left::NotOurs { shown, reason });
                continue;
            }
            State::Clean | State::Missing => continue,
        };
        if force {
            continue;
        }
        let local = folders::read_files(&path).unwrap_or_default();
        let here: Vec<String> = changes.iter().map(|c| c.path().to_owned()).collect();
        if merge {
            let base = installed.get_or_insert_with(|| {
                verify::read_verified(name, old).map(|skill| folders::files_of(&skill.snapshot))
            });
            let base = match base {
                Ok(base) => base,
                Err(error) => {
                    let error = error.clone();
                    refusals.push(Left::NoBase { shown, error });
                    continue;
                }
            };
            match merge::merge(base, &local, &upstream_files) {
                Ok(result) if result.conflicts.is_empty() => match result.into_snapshot() {
                    Ok(snapshot) => {
                        merged.insert(index, snapshot);
                    }
                    Err(why) => refusals.push(Left::Unmerged { shown, why }),
                },
                Ok(result) => refusals.push(Left::Overlap {
                    shown,
                    conflicts: result.conflicts,
                }),
                Err(error) => refusals.push(Left::Merge { shown, error }),
            }
            continue;
        }
        let both = here
            .iter()
            .filter(|p| upstream_changed.contains(p))
            .cloned()
            .collect();
        refusals.push(Left::Edited {
            shown,
            here,
            upstream: upstream_changed.clone(),
            both,
        });
    }
    if refusals.is_empty() {
        Ok(merged)
    } else {
        Err(refusals)
    }
}
