//! Forks: a skill or a package copied under a new name, remembering what it was copied from
//! (`Provenance::Forked`: the item and its revision), so that a team can adapt a public golden
//! path without losing track of the original.
//!
//! A package is forked with its member skills, each under the package's member prefix (by
//! default the fork's name and `-`), the fork's manifest listing them in their folders renamed
//! alike: a skill belongs to at most one package, so the original's members cannot be the
//! fork's. Each copy's `SKILL.md` (or `PACKAGE.md`) keeps every byte but its `name` and
//! `tool_name` ([`skillpath_core::skill_md::renamed`]); everything is created in one
//! transaction, or nothing.
//!
//! Forks cannot form a cycle: a fork is a new item, and a name, once used, is never free again
//! (a deleted item keeps it), so no item can be forked from one of its own forks.

use skillpath_core::package;

use crate::answers::StoredSkill;
use crate::content::meta;
use crate::error::{StoreError, StoreResult};
use skillpath_model::{Placement, Provenance, SkillSnapshot};

/// What to fork, and as what.
#[derive(Debug, Clone)]
pub struct ForkRequest {
    /// The skill or package to copy.
    pub from: String,
    /// Its revision to copy [default: the current one].
    pub revision: Option<u64>,
    /// The copy's name (kebab-case, not used by any item).
    pub name: String,
    /// For a package: what its members' copies are named with before their names [default:
    /// the fork's name and `-`].
    pub member_prefix: Option<String>,
    /// Where the copies go [default: the source's namespace, visible to its members].
    pub into: Option<Placement>,
}

/// The fork `name` of the package `source`: its manifest listing each member under `prefix`,
/// and the members' names, which are forked with it.
pub(crate) fn package_copy(
    source: &StoredSkill,
    name: &str,
    prefix: &str,
) -> StoreResult<((SkillSnapshot, Provenance), Vec<String>)> {
    let (_, manifest, _) =
        package::read_manifest(package::MANIFEST.into(), source.snapshot.skill_md.clone());
    let members = manifest.map(|m| m.member_names()).unwrap_or_default();
    let text = package::spec::forked(&source.snapshot.skill_md, name, |member| {
        format!("{prefix}{member}")
    })
    .map_err(|error| {
        StoreError::InvalidSkill(format!("`{}` cannot be forked: {error}", source.name))
    })?;
    let snapshot = SkillSnapshot::package(text, source.snapshot.files.clone())?;
    Ok(((snapshot, origin(source)), members))
}

/// The names of `copies`, each checked to be one a fork may take.
pub(crate) fn names(copies: &[(SkillSnapshot, Provenance)]) -> StoreResult<Vec<String>> {
    let mut names = Vec::with_capacity(copies.len());
    for (snapshot, _) in copies {
        let copy = meta(snapshot)?.name;
        if !package::is_valid_name(&copy) {
            return Err(StoreError::InvalidSkill(format!(
                "`{copy}` cannot name a fork: use kebab-case (lowercase letters and digits joined by single hyphens), at most 64 characters"
            )));
        }
        names.push(copy);
    }
    Ok(names)
}

/// `item`'s content under the name `name`, and where it came from.
pub(crate) fn copy(item: &StoredSkill, name: &str) -> StoreResult<(SkillSnapshot, Provenance)> {
    let text = skillpath_core::skill_md::renamed(&item.snapshot.skill_md, name).map_err(|why| {
        StoreError::InvalidSkill(format!("`{}` cannot be forked: {why}", item.name))
    })?;
    let snapshot = SkillSnapshot::of_kind(item.snapshot.kind, text, item.snapshot.files.clone())?;
    Ok((snapshot, origin(item)))
}

/// The provenance of a copy of `item`.
fn origin(item: &StoredSkill) -> Provenance {
    Provenance::Forked {
        from: item.name.clone(),
        revision: item.revision,
    }
}
