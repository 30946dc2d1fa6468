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
use crate::audit;
use crate::content::{checked, meta};
use crate::error::{StoreError, StoreResult};
use crate::store::{Store, creation};
use skillpath_model::{Change, Kind, Provenance, SkillSnapshot};

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
}

/// The copies [`ForkRequest`] asks for, created in one transaction: the fork first, then, for
/// a package, its members' forks in the manifest's order.
pub(crate) async fn fork<S: Store + ?Sized>(
    store: &S,
    request: ForkRequest,
    change: Change,
) -> StoreResult<Vec<StoredSkill>> {
    let ForkRequest {
        from,
        revision,
        name,
        member_prefix,
    } = request;
    let source = live(store, &from, revision).await?;
    let mut copies = Vec::new();
    match source.snapshot.kind {
        Kind::Skill => copies.push(copy(&source, &name)?),
        Kind::Package => {
            let prefix = member_prefix.unwrap_or_else(|| format!("{name}-"));
            let (_, manifest, _) =
                package::read_manifest(package::MANIFEST.into(), source.snapshot.skill_md.clone());
            let members = manifest.map(|m| m.member_names()).unwrap_or_default();
            let text = package::spec::forked(&source.snapshot.skill_md, &name, |member| {
                format!("{prefix}{member}")
            })
            .map_err(|error| {
                StoreError::InvalidSkill(format!("`{from}` cannot be forked: {error}"))
            })?;
            let snapshot = SkillSnapshot::package(text, source.snapshot.files.clone())?;
            copies.push((snapshot, origin(&source)));
            for member in members {
                let current = live(store, &member, None).await.map_err(|error| {
                    StoreError::InvalidState(format!(
                        "the member `{member}` of `{from}` cannot be forked with it: {error}"
                    ))
                })?;
                copies.push(copy(&current, &format!("{prefix}{member}"))?);
            }
        }
    }
    let mut names = Vec::with_capacity(copies.len());
    for (snapshot, _) in &copies {
        let copy = meta(snapshot)?.name;
        if !package::is_valid_name(&copy) {
            return Err(StoreError::InvalidSkill(format!(
                "`{copy}` cannot name a fork: use kebab-case (lowercase letters and digits joined by single hyphens), at most 64 characters"
            )));
        }
        names.push(copy);
    }
    let gate = audit::gate(store, names).await?;
    let mut writes = Vec::with_capacity(copies.len());
    for (snapshot, provenance) in copies {
        writes.push(creation(
            checked(snapshot)?,
            provenance,
            change.clone(),
            gate.clone(),
            None,
        ));
    }
    store.write_all(writes).await
}

/// Revision `revision` (or the current one) of `name`, which must hold live content.
async fn live<S: Store + ?Sized>(
    store: &S,
    name: &str,
    revision: Option<u64>,
) -> StoreResult<StoredSkill> {
    let item = store.get(name, revision).await?;
    if item.deleted {
        return Err(StoreError::InvalidState(format!(
            "`{name}` is deleted at revision {}: restore it, or fork a revision it was live at",
            item.revision
        )));
    }
    Ok(item)
}

/// `item`'s content under the name `name`, and where it came from.
fn copy(item: &StoredSkill, name: &str) -> StoreResult<(SkillSnapshot, Provenance)> {
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
