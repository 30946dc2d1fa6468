//! How the stored skills are used ([`skillpath_store::usage`]): the counts summed by skill,
//! revision, day or key, and the live items nobody used lately, an admin's to read
//! ([`Operation::ReadUsage`]: the counts name the keys that used each skill); and one skill's
//! totals, which whoever may read the skill reads with it (`get_skill`).

use std::collections::{BTreeMap, BTreeSet};

use skillpath_model::Kind;
use skillpath_store::usage::{UsageQuery, UsageRow};

use crate::app::App;
use crate::error::AppError;
use crate::rules::{Operation, Permit};

/// A live item not used since the day asked about ([`App::unused`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unused {
    /// Its name.
    pub name: String,
    /// A skill or a package.
    pub kind: Kind,
    /// When it was last used (RFC 3339, UTC), if ever.
    pub last_used: Option<String>,
}

impl<E> App<E> {
    /// The uses `query` asks for, summed.
    pub async fn usage(
        &self,
        permit: &Permit,
        query: UsageQuery,
    ) -> Result<Vec<UsageRow>, AppError> {
        self.permitted(permit, Operation::ReadUsage)?;
        Ok(self.store().usage(query).await?)
    }

    /// The uses of the skill `name` summed over every revision, day and key (`None`: never
    /// used): what reading the skill shows ([`Operation::GetSkill`]), naming no key.
    pub async fn uses(&self, permit: &Permit, name: &str) -> Result<Option<UsageRow>, AppError> {
        self.permitted(permit, Operation::GetSkill)?;
        let query = UsageQuery {
            skill: Some(name.to_owned()),
            ..UsageQuery::default()
        };
        Ok(self.store().usage(query).await?.pop())
    }

    /// Every live item not used on the day `since` (`YYYY-MM-DD`) or after, in name order,
    /// with when it was last used.
    pub async fn unused(&self, permit: &Permit, since: String) -> Result<Vec<Unused>, AppError> {
        self.permitted(permit, Operation::ReadUsage)?;
        let store = self.store();
        let recent: BTreeSet<String> = store
            .usage(UsageQuery {
                since: Some(since),
                ..UsageQuery::default()
            })
            .await?
            .into_iter()
            .map(|row| row.skill)
            .collect();
        let mut ever: BTreeMap<String, String> = store
            .usage(UsageQuery::default())
            .await?
            .into_iter()
            .map(|row| (row.skill, row.last_used))
            .collect();
        Ok(store
            .current_metadata()
            .await?
            .into_iter()
            .filter(|item| !recent.contains(&item.name))
            .map(|item| Unused {
                last_used: ever.remove(&item.name),
                name: item.name,
                kind: item.kind,
            })
            .collect())
    }
}
