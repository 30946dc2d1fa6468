//! People, namespaces, members, visibility, stars and the governance log: who may change which
//! part of the directory, decided here; what a change may be is the store's
//! ([`skillpath_store::directory`]), which also logs it.
//!
//! Instance admins add and disable people and make and delete namespaces; a namespace's owners
//! manage its members and settings (freeze, archive, review); an item's visibility is changed by
//! its author (an author there) or the namespace's maintainers. Owners read their namespaces'
//! log entries, admins all of them.

use std::collections::BTreeSet;

use skillpath_model::governance::{self, Broken, Entry};
use skillpath_model::{MemberRole, Namespace, Visibility, namespace_of_key};
use skillpath_store::directory::{Directory, Governance, LogFilter, Star, concerns, full_name_of};

use crate::app::App;
use crate::caller::Caller;
use crate::catalog::Derived;
use crate::error::AppError;
use crate::rules::{Operation, Permit};
use crate::sight::Sight;

impl<E> App<E> {
    /// Appends to the governance log that `caller` did `action` to the item kept under `key`
    /// (a publish, a rejection, a deletion, …), with what it left (`after`).
    pub(crate) async fn record(
        &self,
        caller: &Caller,
        action: &str,
        key: &str,
        after: serde_json::Value,
    ) -> Result<(), AppError> {
        let record = Governance::Record {
            action: action.to_owned(),
            target: full_name_of(key),
            before: None,
            after: Some(after),
        };
        self.store().govern(record, &caller.author()).await?;
        Ok(())
    }
}

impl<E: Derived> App<E> {
    /// The directory as the permit's caller may see it: every person (handles are no secret
    /// among an instance's users), and the namespaces they are a member of or whose items they
    /// read, with those namespaces' members; everything for an admin.
    pub async fn directory(&self, permit: &Permit) -> Result<Directory, AppError> {
        let caller = self.permitted(permit, Operation::ReadDirectory)?;
        let people = self.people().await?;
        let sight = self.sight_of(caller, &people);
        let mut directory = people.directory.clone();
        if sight.is_admin() {
            return Ok(directory);
        }
        // The namespaces they belong to, and those holding an item they read: one pass over
        // the items, not one per namespace.
        let mut seen: BTreeSet<Namespace> = people
            .directory
            .access
            .keys()
            .filter(|key| sight.reads(key, &people.directory))
            .map(|key| namespace_of_key(key))
            .collect();
        seen.extend(
            directory
                .namespaces
                .iter()
                .filter(|record| sight.role_in(&record.name).is_some())
                .map(|record| record.name.clone()),
        );
        directory
            .namespaces
            .retain(|record| seen.contains(&record.name));
        directory
            .members
            .retain(|member| seen.contains(&member.namespace));
        directory
            .access
            .retain(|key, _| sight.reads(key, &people.directory));
        Ok(directory)
    }

    /// Makes `change` as the permit's caller, when the rules above let them: the log entry.
    pub async fn govern(&self, permit: &Permit, change: Governance) -> Result<Entry, AppError> {
        let caller = self.permitted(permit, Operation::Govern)?;
        let sight = self.sight(caller).await?;
        let owner_of = |namespace: &Namespace, what: &'static str| {
            if sight.role_in(namespace) == Some(MemberRole::Owner) {
                Ok(())
            } else {
                Err(AppError::NotInNamespace {
                    what,
                    namespace: namespace.to_string(),
                    needed: MemberRole::Owner,
                    held: sight.role_in(namespace),
                })
            }
        };
        match &change {
            Governance::CreateUser { .. } => admin(&sight, "add people")?,
            Governance::SetDisabled { .. } => admin(&sight, "disable or enable people")?,
            Governance::SetAdmin { .. } => admin(&sight, "make or unmake administrators")?,
            Governance::LinkIdentity { .. } => admin(&sight, "link accounts to people")?,
            Governance::CreateNamespace { .. } => admin(&sight, "make namespaces")?,
            Governance::DeleteNamespace(_) => admin(&sight, "delete namespaces")?,
            Governance::SetFrozen(namespace, _)
            | Governance::SetArchived(namespace, _)
            | Governance::SetReview(namespace, _) => owner_of(namespace, "changing the settings")?,
            Governance::AddMember { namespace, .. }
            | Governance::SetRole { namespace, .. }
            | Governance::RemoveMember { namespace, .. } => {
                owner_of(namespace, "managing the members")?
            }
            Governance::SetVisibility { key, .. } => self.may_set_visibility(caller, key).await?,
            Governance::Releases(release) => self.release_gate(caller, release.key()).await?,
            Governance::Record { .. } => admin(&sight, "write log entries of one's own")?,
        }
        let entry = self.store().govern(change, &caller.author()).await?;
        self.refresh().await?;
        Ok(entry)
    }

    /// The item kept under `key` given `visibility`, as the permit's caller ([`App::govern`]).
    pub async fn set_visibility(
        &self,
        permit: &Permit,
        key: &str,
        visibility: Visibility,
    ) -> Result<Entry, AppError> {
        let change = Governance::SetVisibility {
            key: key.to_owned(),
            visibility,
        };
        self.govern(permit, change).await
    }

    /// Refuses a visibility change of the item kept under `key` by a caller who is neither its
    /// author (and an author of its namespace) nor a maintainer there; one they do not read
    /// does not exist for them.
    async fn may_set_visibility(&self, caller: &Caller, key: &str) -> Result<(), AppError> {
        self.seen(caller, key).await?;
        let people = self.people().await?;
        let sight = self.sight_of(caller, &people);
        let namespace = namespace_of_key(key);
        let role = sight.role_in(&namespace);
        let owns = sight.handle().is_some()
            && people.directory.access(key).owner.as_deref() == sight.handle();
        let allowed = match role {
            Some(role) if role >= MemberRole::Maintainer => true,
            Some(role) => owns && role >= MemberRole::Author,
            None => false,
        };
        if allowed {
            Ok(())
        } else {
            Err(AppError::NotInNamespace {
                what: "changing who sees an item",
                namespace: namespace.to_string(),
                needed: MemberRole::Maintainer,
                held: role,
            })
        }
    }

    /// Stars (or unstars) the item kept under `key` for `user` (`None`: the permit's caller's
    /// person): whether it was starred before. A star is the caller's own; an admin may set
    /// another person's (the command line, which acts for no person, names one). Only an item
    /// the person reads can be starred; a star of an item they can no longer read serves
    /// nothing.
    pub async fn star(
        &self,
        permit: &Permit,
        user: Option<&str>,
        key: &str,
        starred: bool,
    ) -> Result<bool, AppError> {
        let operation = if starred {
            Operation::StarSkill
        } else {
            Operation::UnstarSkill
        };
        let caller = self.permitted(permit, operation)?;
        let sight = self.sight(caller).await?;
        let handle = match (user, sight.handle()) {
            (None, Some(own)) => own.to_owned(),
            (Some(asked), Some(own)) if asked == own => own.to_owned(),
            (Some(asked), _) if sight.is_admin() => asked.to_owned(),
            (Some(_), _) => return Err(AppError::NotAdmin("star items for another person")),
            (None, None) => return Err(AppError::NoPerson),
        };
        let people = self.people().await?;
        if people.directory.user(&handle).is_none() {
            return Err(AppError::Store(skillpath_store::StoreError::Refused(
                format!("no person has the handle `{handle}` (see `skillpath users list`)"),
            )));
        }
        let mut as_them = caller.clone();
        as_them.user = Some(handle.clone());
        as_them.namespaces = None;
        as_them.role = skillpath_store::keys::Role::Admin;
        let theirs = Sight::of(&as_them, &people.directory, &people.stars);
        let exists = people.directory.access.contains_key(key);
        if !exists || !theirs.reads(key, &people.directory) || !sight.reads(key, &people.directory)
        {
            return Err(AppError::Store(skillpath_store::StoreError::NotFound {
                name: key.to_owned(),
                revision: None,
            }));
        }
        let was = self.store().set_star(&handle, key, starred).await?;
        self.refresh().await?;
        Ok(was)
    }

    /// The stars of the permit's caller's person (everyone's for the command line).
    pub async fn stars(&self, permit: &Permit) -> Result<Vec<Star>, AppError> {
        let caller = self.permitted(permit, Operation::ReadDirectory)?;
        let sight = self.sight(caller).await?;
        Ok(self.store().stars(sight.handle()).await?)
    }

    /// The log entries `filter` admits that the permit's caller may read: an admin all, an
    /// owner those about the namespaces they own; refused for anyone else.
    pub async fn governance_log(
        &self,
        permit: &Permit,
        filter: LogFilter,
    ) -> Result<Vec<Entry>, AppError> {
        let caller = self.permitted(permit, Operation::ReadLog)?;
        let sight = self.sight(caller).await?;
        if let Some(namespace) = &filter.namespace
            && sight.role_in(namespace) != Some(MemberRole::Owner)
        {
            return Err(AppError::NotInNamespace {
                what: "reading the log",
                namespace: namespace.to_string(),
                needed: MemberRole::Owner,
                held: sight.role_in(namespace),
            });
        }
        let owned: Vec<Namespace> = sight
            .memberships()
            .into_iter()
            .filter(|(_, role)| *role == MemberRole::Owner)
            .map(|(namespace, _)| namespace)
            .collect();
        if !sight.is_admin() && owned.is_empty() {
            return Err(AppError::NotAdmin(
                "read the governance log (a namespace's owners read its entries)",
            ));
        }
        let mut entries = self.store().governance_log(filter).await?;
        if !sight.is_admin() {
            entries.retain(|entry| {
                owned
                    .iter()
                    .any(|namespace| concerns(&entry.action.target, namespace))
            });
        }
        Ok(entries)
    }

    /// Checks the whole log's chain (an admin's): how many entries it holds, or the first
    /// broken one.
    pub async fn verify_log(&self, permit: &Permit) -> Result<Result<usize, Broken>, AppError> {
        let caller = self.permitted(permit, Operation::ReadLog)?;
        admin(&self.sight(caller).await?, "verify the governance log")?;
        let entries = self.store().governance_log(LogFilter::default()).await?;
        Ok(governance::verify(&entries).map(|()| entries.len()))
    }
}

/// Refuses what only an instance admin may do.
fn admin(sight: &Sight, what: &'static str) -> Result<(), AppError> {
    if sight.is_admin() {
        Ok(())
    } else {
        Err(AppError::NotAdmin(what))
    }
}
