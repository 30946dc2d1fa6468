//! Schema versions, and which versions of skillpath may work on which schema.
//!
//! Each backend lists its migrations in order; a database's version is how many have run.
//! During a rolling upgrade, an older skillpath can meet a database that a newer one has
//! already migrated. Whether it may go on working depends on the migrations it does not know:
//! an *additive* one (a new table, a new nullable column) leaves everything the older version
//! reads and writes as it was, so the older version keeps working; any other kind breaks it.
//! Each database records the oldest version that can still use it, so that an older
//! skillpath, which does not know the newer migrations, can tell.

use skillpath_model::Namespace;

use crate::error::{StoreError, StoreResult};

/// One step of a backend's schema: the backend's SQL, and what the step means, the same for
/// every backend.
pub(crate) struct Migration {
    /// The SQL that makes the step.
    pub(crate) sql: &'static str,
    /// Whether a skillpath that knows only the earlier steps keeps working after this one.
    pub(crate) additive: bool,
    /// What the rows stored before the step are given as it runs, in its transaction.
    pub(crate) backfill: Option<Backfill>,
}

impl Migration {
    /// A step after which a skillpath that knows only the earlier ones keeps working (a new
    /// table, a new nullable column).
    pub(crate) const fn additive(sql: &'static str) -> Migration {
        Migration {
            sql,
            additive: true,
            backfill: None,
        }
    }

    /// A step that an older skillpath cannot work past.
    pub(crate) const fn breaking(sql: &'static str) -> Migration {
        Migration {
            sql,
            additive: false,
            backfill: None,
        }
    }

    /// This step, giving the rows stored before it what `backfill` says.
    pub(crate) const fn then(self, backfill: Backfill) -> Migration {
        Migration {
            backfill: Some(backfill),
            ..self
        }
    }
}

/// How a store is brought up to date ([`crate::location::upgrade`]): where the items of a
/// store made before namespaces go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upgrade {
    /// The namespace every item of the shared scope joins, and the people its keys become
    /// members of (`@global` unless told).
    pub namespace: Namespace,
}

impl Default for Upgrade {
    fn default() -> Upgrade {
        Upgrade {
            namespace: Namespace::global(),
        }
    }
}

/// What bringing a store up to date did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Upgraded {
    /// The schema version it was at (0: a new database).
    pub from: usize,
    /// The schema version it is at.
    pub to: usize,
    /// Whether its items were placed in a namespace by this upgrade (the step that made
    /// people and namespaces ran), so that [`Upgrade::namespace`] applied.
    pub placed: bool,
}

/// What a step gives the rows stored before it. Each backend reads and writes the rows its
/// own way; what each row is given follows the same rules everywhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Backfill {
    /// Each skill discovered in a project before skills had projects is given its project
    /// (its provenance's), so it stops being shown in every other project.
    Projects,
    /// Every stored revision is given its files' sizes and text flags and the head of its
    /// `SKILL.md` (frontmatter, digest and size), what listing reads instead of the bytes.
    Heads,
    /// The current revision of every live skill is audited, `crate::audit::BACKFILL_BATCH` at
    /// a time (so that a large store is not read into memory at once), and keeps its audit.
    Audits,
    /// Each API key made before people were becomes a person's (the key's name as a handle),
    /// who is a member of `@global` with the key's role (`crate::directory::people_of_keys`).
    People,
}

/// The oldest schema version a skillpath must know to use a database at `version`: the last
/// migration up to `version` that was not additive.
pub(crate) fn oldest_compatible(migrations: &[Migration], version: usize) -> usize {
    migrations
        .iter()
        .take(version)
        .enumerate()
        .rev()
        .find(|(_, migration)| !migration.additive)
        .map_or(0, |(index, _)| index + 1)
}

/// Whether a skillpath that knows `known` migrations may use a database at `version`, whose
/// oldest compatible version is `oldest` (what a newer skillpath recorded). A database at
/// or below `known` is always fine: this skillpath migrates it.
pub(crate) fn check_compatible(version: usize, oldest: usize, known: usize) -> StoreResult<()> {
    if version <= known || oldest <= known {
        return Ok(());
    }
    Err(StoreError::database(format!(
        "the database has schema version {version}, which needs a skillpath that knows at least version {oldest}; this one knows {known}: upgrade skillpath"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn step(additive: bool) -> Migration {
        if additive {
            Migration::additive("")
        } else {
            Migration::breaking("")
        }
    }

    #[test]
    fn the_oldest_compatible_version_is_the_last_breaking_step() {
        let steps = [step(false), step(true), step(true), step(false), step(true)];
        let oldest: Vec<usize> = (0..=5).map(|v| oldest_compatible(&steps, v)).collect();
        assert_eq!(oldest, [0, 1, 1, 1, 4, 4]);
    }

    #[test]
    fn newer_databases_are_used_only_when_compatible() {
        assert!(check_compatible(2, 1, 2).is_ok());
        assert!(check_compatible(1, 1, 2).is_ok());
        assert!(check_compatible(3, 2, 2).is_ok());
        let error = check_compatible(4, 3, 2).expect_err("a breaking step");
        assert!(error.to_string().contains("upgrade skillpath"), "{error}");
    }
}
