//! The directory: the people of an instance, its namespaces and their members, and who may see
//! each item; and the rules every change of them follows, the same on every backend.
//!
//! A change ([`Governance`]) is decided here (`decide`) against the directory as it is inside
//! the change's transaction: refused with a reason and a fix ([`StoreError::Refused`]), or
//! turned into the rows to write (`Row`) and the governance log entry that records it. A
//! backend reads the directory, writes the rows and appends the entry in one transaction, one
//! change at a time (SQLite's write lock, PostgreSQL's advisory lock), so two replicas changing
//! membership at once give one result after the other, and the log's chain stays unbroken.

use std::collections::BTreeMap;

use serde_json::json;
use skillpath_model::governance::Action;
use skillpath_model::release::{Proposal, Release, Tag, Version, Yanked};
use skillpath_model::{Access, MemberRole, Namespace, Visibility, namespace_of_key};

use crate::error::{StoreError, StoreResult};
use crate::keys::Role;
use crate::time::now_rfc3339;

pub mod releases;
pub(crate) mod rows;

/// A person of the instance.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct User {
    /// Their handle, unique, following the skill-name rule: what keys, members and the log
    /// name them by.
    pub handle: String,
    /// Their name as shown.
    pub display_name: String,
    /// Whether they administer the instance: people, namespaces, every log entry.
    pub admin: bool,
    /// Whether they are disabled: their keys stop working, they keep their memberships.
    pub disabled: bool,
    /// When they were added (RFC 3339).
    pub created_at: String,
}

/// A person's account at an identity provider, linked to them at their first sign-in: their
/// later sign-ins find them by it, whatever their name there has become.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LinkedIdentity {
    /// The provider's issuer (its `iss`).
    pub issuer: String,
    /// The account's subject there (its `sub`).
    pub subject: String,
    /// The person's handle.
    pub handle: String,
    /// When it was linked (RFC 3339).
    pub linked_at: String,
}

/// What a namespace is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NamespaceKind {
    /// The instance's `@global`.
    Global,
    /// A team's.
    Team,
    /// One person's own, named by their handle.
    Personal,
}

impl NamespaceKind {
    /// The lowercase name stored.
    pub fn as_str(self) -> &'static str {
        match self {
            NamespaceKind::Global => "global",
            NamespaceKind::Team => "team",
            NamespaceKind::Personal => "personal",
        }
    }

    /// The kind a stored name stands for (a team's for a name a newer version wrote).
    pub(crate) fn stored(text: &str) -> NamespaceKind {
        match text {
            "global" => NamespaceKind::Global,
            "personal" => NamespaceKind::Personal,
            _ => NamespaceKind::Team,
        }
    }
}

/// A namespace and its settings.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct NamespaceRecord {
    /// Its name (`@team-a` without the `@`).
    pub name: Namespace,
    /// What it is for.
    pub kind: NamespaceKind,
    /// Whether what its authors write waits for a maintainer as a draft: `None` follows the
    /// server (`serve --review`).
    pub review: Option<bool>,
    /// Whether it takes no writes.
    pub frozen: bool,
    /// Whether it is hidden from listings and search (its members still read its items).
    pub archived: bool,
    /// When it was made (RFC 3339).
    pub created_at: String,
}

/// A person's role in a namespace.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Member {
    /// The namespace.
    pub namespace: Namespace,
    /// The person's handle.
    pub handle: String,
    /// Their role there.
    pub role: MemberRole,
}

/// The whole directory, as read in one transaction: small (people and teams, not items), so
/// read at once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Directory {
    /// Every person, by handle.
    pub users: Vec<User>,
    /// Every namespace, by name.
    pub namespaces: Vec<NamespaceRecord>,
    /// Every membership, by namespace then handle.
    pub members: Vec<Member>,
    /// Who may see each live or deleted item of the shared scope, by store key.
    pub access: BTreeMap<String, Access>,
    /// Each item's releases, by store key, lowest version first.
    pub releases: BTreeMap<String, Vec<Release>>,
    /// Each item's tags set by hand, by store key, by name.
    pub tags: BTreeMap<String, Vec<Tag>>,
    /// Each item's releases proposed by authors and waiting for a maintainer, by store key,
    /// lowest version first.
    pub proposals: BTreeMap<String, Vec<Proposal>>,
    /// The identity providers' accounts linked to people, by issuer then subject.
    pub identities: Vec<LinkedIdentity>,
}

impl Directory {
    /// The person `handle`.
    pub fn user(&self, handle: &str) -> Option<&User> {
        self.users.iter().find(|user| user.handle == handle)
    }

    /// The handle of the person the account `subject` of `issuer` is linked to.
    pub fn person_of(&self, issuer: &str, subject: &str) -> Option<&str> {
        self.identities
            .iter()
            .find(|linked| linked.issuer == issuer && linked.subject == subject)
            .map(|linked| linked.handle.as_str())
    }

    /// The namespace `name`.
    pub fn namespace(&self, name: &Namespace) -> Option<&NamespaceRecord> {
        self.namespaces.iter().find(|record| &record.name == name)
    }

    /// `handle`'s role in `namespace`, if a member.
    pub fn role(&self, handle: &str, namespace: &Namespace) -> Option<MemberRole> {
        self.members
            .iter()
            .find(|member| member.handle == handle && &member.namespace == namespace)
            .map(|member| member.role)
    }

    /// The members of `namespace`.
    pub fn members_of<'a>(&'a self, namespace: &'a Namespace) -> impl Iterator<Item = &'a Member> {
        self.members
            .iter()
            .filter(move |member| &member.namespace == namespace)
    }

    /// `handle`'s memberships.
    pub fn memberships<'a>(&'a self, handle: &'a str) -> impl Iterator<Item = &'a Member> {
        self.members
            .iter()
            .filter(move |member| member.handle == handle)
    }

    /// Who may see the item kept under `key` (what a new item is given, for one the directory
    /// was read without).
    pub fn access(&self, key: &str) -> &Access {
        static NEW: Access = Access {
            visibility: Visibility::Namespace,
            owner: None,
        };
        self.access.get(key).unwrap_or(&NEW)
    }

    /// The releases of the item kept under `key`, lowest version first.
    pub fn releases_of(&self, key: &str) -> &[Release] {
        self.releases.get(key).map_or(&[], Vec::as_slice)
    }

    /// The tags set by hand on the item kept under `key`.
    pub fn tags_of(&self, key: &str) -> &[Tag] {
        self.tags.get(key).map_or(&[], Vec::as_slice)
    }

    /// The releases proposed for the item kept under `key`, lowest version first.
    pub fn proposals_of(&self, key: &str) -> &[Proposal] {
        self.proposals.get(key).map_or(&[], Vec::as_slice)
    }

    /// How many items (live or deleted) `namespace` holds.
    pub fn items_in(&self, namespace: &Namespace) -> usize {
        self.access
            .keys()
            .filter(|key| &namespace_of_key(key) == namespace)
            .count()
    }
}

/// A change of the directory, or an action done elsewhere that the governance log records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Governance {
    /// Adds a person, with their personal namespace, of which they are the owner.
    CreateUser {
        /// Their handle.
        handle: String,
        /// Their name as shown (the handle when empty).
        display_name: String,
        /// Whether they administer the instance.
        admin: bool,
    },
    /// Disables or enables a person.
    SetDisabled {
        /// Their handle.
        handle: String,
        /// Disabled or not.
        disabled: bool,
    },
    /// Makes a person an administrator of the instance, or no longer one.
    SetAdmin {
        /// Their handle.
        handle: String,
        /// Whether they administer the instance.
        admin: bool,
    },
    /// Links an identity provider's account to a person (their first sign-in with it).
    LinkIdentity {
        /// The person's handle.
        handle: String,
        /// The provider's issuer.
        issuer: String,
        /// The account's subject there.
        subject: String,
    },
    /// Makes a team's namespace, owned by `owner`.
    CreateNamespace {
        /// Its name.
        name: Namespace,
        /// Its first owner's handle (`None`: only admins manage it until owners are added).
        owner: Option<String>,
    },
    /// Freezes a namespace (no writes) or thaws it.
    SetFrozen(Namespace, bool),
    /// Archives a namespace (hidden from listings and search) or brings it back.
    SetArchived(Namespace, bool),
    /// Whether a namespace's authors write drafts (`None`: as the server says).
    SetReview(Namespace, Option<bool>),
    /// Deletes an empty team namespace.
    DeleteNamespace(Namespace),
    /// Adds a member.
    AddMember {
        /// The namespace.
        namespace: Namespace,
        /// The person.
        handle: String,
        /// Their role.
        role: MemberRole,
    },
    /// Changes a member's role.
    SetRole {
        /// The namespace.
        namespace: Namespace,
        /// The member.
        handle: String,
        /// Their new role.
        role: MemberRole,
    },
    /// Removes a member.
    RemoveMember {
        /// The namespace.
        namespace: Namespace,
        /// The member.
        handle: String,
    },
    /// Changes who sees an item.
    SetVisibility {
        /// The item's store key.
        key: String,
        /// Its new visibility.
        visibility: Visibility,
    },
    /// Releases a version, yanks a release, or moves a tag.
    Releases(releases::ReleaseChange),
    /// Records an action done by another write (a key made or revoked, a draft published or
    /// rejected, an item deleted, restored or rolled back): only the log entry.
    Record {
        /// What was done (`key.create`, `skill.publish`, …).
        action: String,
        /// To what.
        target: String,
        /// Before, as JSON.
        before: Option<serde_json::Value>,
        /// After, as JSON.
        after: Option<serde_json::Value>,
    },
}

/// A row to write, as decided by [`decide`]; each backend writes it its own way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Row {
    /// Inserts a person.
    InsertUser(User),
    /// Sets a person's disabled flag.
    UserDisabled(String, bool),
    /// Sets a person's admin flag.
    UserAdmin(String, bool),
    /// Inserts a linked identity.
    InsertIdentity(LinkedIdentity),
    /// Inserts a namespace.
    InsertNamespace(NamespaceRecord),
    /// Replaces a namespace's settings.
    UpdateNamespace(NamespaceRecord),
    /// Deletes a namespace.
    DeleteNamespace(Namespace),
    /// Inserts or replaces a membership.
    PutMember(Member),
    /// Deletes a membership.
    DeleteMember(Namespace, String),
    /// Sets an item's visibility.
    Visibility(String, Visibility),
    /// Inserts a release.
    InsertRelease(Release),
    /// Marks a release yanked.
    Yank {
        /// The item's store key.
        item: String,
        /// The release's version.
        version: Version,
        /// Why, by whom, when.
        yanked: Yanked,
    },
    /// Inserts or moves a tag.
    PutTag(Tag),
    /// Takes a tag away: the item's key and the tag.
    DeleteTag(String, String),
    /// Inserts a proposed release.
    InsertProposal(Proposal),
    /// Takes a proposal away (released or declined): the item's key and the version.
    DeleteProposal(String, Version),
}

/// What a change writes, and the log entry's action (its actor and time filled in).
pub(crate) struct Decision {
    /// The rows, in order.
    pub(crate) rows: Vec<Row>,
    /// The entry to append.
    pub(crate) action: Action,
}

/// Decides `change` by `actor` against `directory`: the rows and the log entry, or why not.
/// Who may ask for a change is the application's to decide; these are the rules no caller may
/// break (names free and well formed, a namespace keeps an owner, nothing is lost).
pub(crate) fn decide(
    directory: &Directory,
    change: Governance,
    actor: &str,
) -> StoreResult<Decision> {
    let (rows, action, target, before, after) = match change {
        Governance::CreateUser {
            handle,
            display_name,
            admin,
        } => {
            let namespace = handle_namespace(&handle)?;
            if directory.user(&handle).is_some() {
                return refused(format!(
                    "a person with the handle `{handle}` exists already: choose another handle"
                ));
            }
            if directory.namespace(&namespace).is_some() {
                return refused(format!(
                    "`{namespace}` is a namespace already, and a person's handle names their own namespace: choose another handle"
                ));
            }
            let created_at = now_rfc3339();
            let user = User {
                display_name: if display_name.trim().is_empty() {
                    handle.clone()
                } else {
                    display_name
                },
                handle: handle.clone(),
                admin,
                disabled: false,
                created_at: created_at.clone(),
            };
            let after = json!(user);
            let rows = vec![
                Row::InsertUser(user),
                Row::InsertNamespace(NamespaceRecord {
                    name: namespace.clone(),
                    kind: NamespaceKind::Personal,
                    review: None,
                    frozen: false,
                    archived: false,
                    created_at,
                }),
                Row::PutMember(Member {
                    namespace,
                    handle: handle.clone(),
                    role: MemberRole::Owner,
                }),
            ];
            (rows, "user.create", handle, None, Some(after))
        }
        Governance::SetDisabled { handle, disabled } => {
            let user = known_user(directory, &handle)?;
            let action = if disabled {
                "user.disable"
            } else {
                "user.enable"
            };
            let before = json!({"disabled": user.disabled});
            let rows = vec![Row::UserDisabled(handle.clone(), disabled)];
            (
                rows,
                action,
                handle,
                Some(before),
                Some(json!({"disabled": disabled})),
            )
        }
        Governance::SetAdmin { handle, admin } => {
            let user = known_user(directory, &handle)?;
            let before = json!({"admin": user.admin});
            let rows = vec![Row::UserAdmin(handle.clone(), admin)];
            let after = Some(json!({"admin": admin}));
            (rows, "user.admin", handle, Some(before), after)
        }
        Governance::LinkIdentity {
            handle,
            issuer,
            subject,
        } => {
            known_user(directory, &handle)?;
            if let Some(linked) = directory.person_of(&issuer, &subject) {
                return refused(format!(
                    "the account `{subject}` of `{issuer}` is linked to `{linked}` already"
                ));
            }
            let linked = LinkedIdentity {
                issuer,
                subject,
                handle: handle.clone(),
                linked_at: now_rfc3339(),
            };
            let after = json!(linked);
            (
                vec![Row::InsertIdentity(linked)],
                "user.link",
                handle,
                None,
                Some(after),
            )
        }
        Governance::CreateNamespace { name, owner } => {
            if directory.namespace(&name).is_some() && directory.user(name.as_str()).is_none() {
                return refused(format!(
                    "the namespace `{name}` exists already: choose another name, or add members to it"
                ));
            }
            if directory.user(name.as_str()).is_some() {
                return refused(format!(
                    "`{name}` is the personal namespace of the person `{}`: choose another name",
                    name.as_str()
                ));
            }
            let record = NamespaceRecord {
                name: name.clone(),
                kind: NamespaceKind::Team,
                review: None,
                frozen: false,
                archived: false,
                created_at: now_rfc3339(),
            };
            let after = json!(record);
            let mut rows = vec![Row::InsertNamespace(record)];
            if let Some(owner) = owner {
                known_user(directory, &owner)?;
                rows.push(Row::PutMember(Member {
                    namespace: name.clone(),
                    handle: owner,
                    role: MemberRole::Owner,
                }));
            }
            (
                rows,
                "namespace.create",
                name.to_string(),
                None,
                Some(after),
            )
        }
        Governance::SetFrozen(name, frozen) => {
            let record = known_namespace(directory, &name)?;
            let action = if frozen {
                "namespace.freeze"
            } else {
                "namespace.thaw"
            };
            let changed = NamespaceRecord {
                frozen,
                ..record.clone()
            };
            settings(record, changed, action)
        }
        Governance::SetArchived(name, archived) => {
            let record = known_namespace(directory, &name)?;
            if record.kind == NamespaceKind::Global && archived {
                return refused(
                    "`@global` cannot be archived: it is where the instance's shared items live"
                        .to_owned(),
                );
            }
            let action = if archived {
                "namespace.archive"
            } else {
                "namespace.unarchive"
            };
            let changed = NamespaceRecord {
                archived,
                ..record.clone()
            };
            settings(record, changed, action)
        }
        Governance::SetReview(name, review) => {
            let record = known_namespace(directory, &name)?;
            let changed = NamespaceRecord {
                review,
                ..record.clone()
            };
            settings(record, changed, "namespace.review")
        }
        Governance::DeleteNamespace(name) => {
            let record = known_namespace(directory, &name)?;
            if record.kind != NamespaceKind::Team {
                return refused(format!(
                    "`{name}` is {} namespace, which stays as long as the instance{}",
                    if record.kind == NamespaceKind::Global {
                        "the instance's"
                    } else {
                        "a person's"
                    },
                    if record.kind == NamespaceKind::Global {
                        ""
                    } else {
                        " has the person"
                    }
                ));
            }
            let items = directory.items_in(&name);
            if items > 0 {
                return refused(format!(
                    "`{name}` holds {items} item(s), deleted ones included: nothing is lost by deleting a namespace, so archive it instead (`skillpath namespaces archive {name}`)"
                ));
            }
            let mut rows: Vec<Row> = directory
                .members_of(&name)
                .map(|member| Row::DeleteMember(name.clone(), member.handle.clone()))
                .collect();
            rows.push(Row::DeleteNamespace(name.clone()));
            let before = json!(record);
            (
                rows,
                "namespace.delete",
                name.to_string(),
                Some(before),
                None,
            )
        }
        Governance::AddMember {
            namespace,
            handle,
            role,
        } => {
            known_namespace(directory, &namespace)?;
            known_user(directory, &handle)?;
            if let Some(held) = directory.role(&handle, &namespace) {
                return refused(format!(
                    "`{handle}` is a member of `{namespace}` already, as {held}: change the role with `skillpath members set {namespace} {handle} --role {role}`"
                ));
            }
            let member = Member {
                namespace: namespace.clone(),
                handle: handle.clone(),
                role,
            };
            (
                vec![Row::PutMember(member)],
                "member.add",
                format!("{namespace}:{handle}"),
                None,
                Some(json!({"role": role})),
            )
        }
        Governance::SetRole {
            namespace,
            handle,
            role,
        } => {
            let held = known_member(directory, &namespace, &handle)?;
            if held == MemberRole::Owner && role != MemberRole::Owner {
                keeps_an_owner(directory, &namespace, &handle)?;
            }
            let member = Member {
                namespace: namespace.clone(),
                handle: handle.clone(),
                role,
            };
            (
                vec![Row::PutMember(member)],
                "member.role",
                format!("{namespace}:{handle}"),
                Some(json!({"role": held})),
                Some(json!({"role": role})),
            )
        }
        Governance::RemoveMember { namespace, handle } => {
            let held = known_member(directory, &namespace, &handle)?;
            if held == MemberRole::Owner {
                keeps_an_owner(directory, &namespace, &handle)?;
            }
            (
                vec![Row::DeleteMember(namespace.clone(), handle.clone())],
                "member.remove",
                format!("{namespace}:{handle}"),
                Some(json!({"role": held})),
                None,
            )
        }
        Governance::SetVisibility { key, visibility } => {
            let Some(access) = directory.access.get(&key) else {
                return Err(StoreError::NotFound {
                    name: key,
                    revision: None,
                });
            };
            let before = json!({"visibility": access.visibility});
            (
                vec![Row::Visibility(key.clone(), visibility)],
                "item.visibility",
                full_name_of(&key),
                Some(before),
                Some(json!({"visibility": visibility})),
            )
        }
        Governance::Releases(change) => releases::decide(directory, change, actor)?,
        Governance::Record {
            action,
            target,
            before,
            after,
        } => {
            let action = Action {
                at: now_rfc3339(),
                actor: actor.to_owned(),
                action,
                target,
                before: before.map(|value| value.to_string()),
                after: after.map(|value| value.to_string()),
            };
            return Ok(Decision {
                rows: Vec::new(),
                action,
            });
        }
    };
    Ok(Decision {
        rows,
        action: Action {
            at: now_rfc3339(),
            actor: actor.to_owned(),
            action: action.to_owned(),
            target,
            before: before.map(|value| value.to_string()),
            after: after.map(|value| value.to_string()),
        },
    })
}

/// The full name (`@ns/name`) of the item kept under `key`, as the log names it.
pub fn full_name_of(key: &str) -> String {
    format!(
        "{}/{}",
        namespace_of_key(key),
        skillpath_model::name_of_key(key)
    )
}

/// The parts of a settings change: the namespace before and after.
type Parts = (
    Vec<Row>,
    &'static str,
    String,
    Option<serde_json::Value>,
    Option<serde_json::Value>,
);

fn settings(before: &NamespaceRecord, after: NamespaceRecord, action: &'static str) -> Parts {
    let target = after.name.to_string();
    let (was, is) = (json!(before), json!(after));
    (
        vec![Row::UpdateNamespace(after)],
        action,
        target,
        Some(was),
        Some(is),
    )
}

fn refused<T>(why: String) -> StoreResult<T> {
    Err(StoreError::Refused(why))
}

/// The personal namespace of `handle`, which must be a handle.
fn handle_namespace(handle: &str) -> StoreResult<Namespace> {
    if handle.starts_with('@') {
        return refused(format!(
            "`{handle}` cannot be a person's handle: write it without the `@`"
        ));
    }
    Namespace::parse(handle).map_err(|error| StoreError::Refused(error.to_string()))
}

fn known_user<'a>(directory: &'a Directory, handle: &str) -> StoreResult<&'a User> {
    directory.user(handle).ok_or_else(|| {
        StoreError::Refused(format!(
            "no person has the handle `{handle}`: add them with `skillpath users create {handle}` (see `skillpath users list`)"
        ))
    })
}

fn known_namespace<'a>(
    directory: &'a Directory,
    name: &Namespace,
) -> StoreResult<&'a NamespaceRecord> {
    directory.namespace(name).ok_or_else(|| {
        StoreError::Refused(format!(
            "there is no namespace `{name}`: make it with `skillpath namespaces create {name}` (see `skillpath namespaces list`)"
        ))
    })
}

fn known_member(
    directory: &Directory,
    namespace: &Namespace,
    handle: &str,
) -> StoreResult<MemberRole> {
    known_namespace(directory, namespace)?;
    directory.role(handle, namespace).ok_or_else(|| {
        StoreError::Refused(format!(
            "`{handle}` is not a member of `{namespace}` (see `skillpath members list {namespace}`)"
        ))
    })
}

/// Refuses taking the owner role from `handle` when no other member owns `namespace`.
fn keeps_an_owner(directory: &Directory, namespace: &Namespace, handle: &str) -> StoreResult<()> {
    let others = directory
        .members_of(namespace)
        .any(|member| member.role == MemberRole::Owner && member.handle != handle);
    if others {
        Ok(())
    } else {
        refused(format!(
            "`{handle}` is the last owner of `{namespace}`: make another member its owner first (`skillpath members set {namespace} HANDLE --role owner`)"
        ))
    }
}

/// What a key's role makes its user, for a store whose keys were made before people were: the
/// member role in `@global`, and whether they administer the instance.
pub fn member_role_of_key(role: Role) -> (MemberRole, bool) {
    match role {
        Role::Reader => (MemberRole::Reader, false),
        Role::Author => (MemberRole::Author, false),
        Role::Maintainer => (MemberRole::Maintainer, false),
        Role::Admin => (MemberRole::Owner, true),
    }
}

/// The handle a key named `name` (made before people were) gives its user: the name
/// lowercased, every run of other characters than letters and digits a hyphen, cut to a
/// handle's length; `key` when nothing of it is left. Two names that give one handle share it
/// (one person with both keys); [`crate::directory`]'s migration never refuses a store.
pub fn handle_of_key_name(name: &str) -> String {
    handle_of(name).unwrap_or_else(|| "key".to_owned())
}

/// The handle a name makes by the name rule (lowercase letters and digits, runs of anything
/// else one `-`, at most 64 characters): a key's name, an account's username or an email's
/// local part. `None` where nothing of it makes a handle.
pub fn handle_of(name: &str) -> Option<String> {
    let mut handle = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            handle.push(c.to_ascii_lowercase());
        } else if !handle.is_empty() && !handle.ends_with('-') {
            handle.push('-');
        }
    }
    let mut handle: String = handle.chars().take(64).collect();
    while handle.ends_with('-') {
        handle.pop();
    }
    skillpath_core::validate::check_handle(&handle)
        .is_ok()
        .then_some(handle)
}

/// The users and memberships a store's existing keys become ([`handle_of_key_name`],
/// [`member_role_of_key`]), given each key's name and role: a user per handle, a member of
/// `into` (the namespace the store's items join: `@global`, or a team's made here) with the
/// highest role of their keys, and the personal namespace each user has.
pub(crate) fn people_of_keys(keys: &[(String, Role)], into: &Namespace) -> Vec<Row> {
    let mut people: BTreeMap<String, (String, Role)> = BTreeMap::new();
    for (name, role) in keys {
        let entry = people
            .entry(handle_of_key_name(name))
            .or_insert_with(|| (name.clone(), *role));
        entry.1 = entry.1.max(*role);
    }
    let created_at = now_rfc3339();
    let mut rows = Vec::new();
    if !into.is_global() {
        rows.push(Row::InsertNamespace(NamespaceRecord {
            name: into.clone(),
            kind: NamespaceKind::Team,
            review: None,
            frozen: false,
            archived: false,
            created_at: created_at.clone(),
        }));
    }
    for (handle, (display_name, role)) in people {
        let (member_role, admin) = member_role_of_key(role);
        rows.push(Row::InsertUser(User {
            handle: handle.clone(),
            display_name,
            admin,
            disabled: false,
            created_at: created_at.clone(),
        }));
        if let Ok(namespace) = Namespace::parse(&handle)
            && !namespace.is_global()
        {
            rows.push(Row::InsertNamespace(NamespaceRecord {
                name: namespace.clone(),
                kind: NamespaceKind::Personal,
                review: None,
                frozen: false,
                archived: false,
                created_at: created_at.clone(),
            }));
            rows.push(Row::PutMember(Member {
                namespace,
                handle: handle.clone(),
                role: MemberRole::Owner,
            }));
        }
        rows.push(Row::PutMember(Member {
            namespace: into.clone(),
            handle,
            role: member_role,
        }));
    }
    rows
}

/// Which entries of the governance log to read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogFilter {
    /// Only those about this namespace or its items and members.
    pub namespace: Option<Namespace>,
    /// Only those at or after this time (RFC 3339).
    pub since: Option<String>,
}

impl LogFilter {
    /// Whether `action` passes the filter.
    pub fn admits(&self, action: &Action) -> bool {
        let about = self
            .namespace
            .as_ref()
            .is_none_or(|namespace| concerns(&action.target, namespace));
        let recent = self
            .since
            .as_deref()
            .is_none_or(|since| action.at.as_str() >= since);
        about && recent
    }
}

/// Whether a log target (`@ns`, `@ns/item`, `@ns:handle`) is about `namespace`.
pub fn concerns(target: &str, namespace: &Namespace) -> bool {
    let name = namespace.to_string();
    target == name
        || target
            .strip_prefix(&name)
            .is_some_and(|rest| rest.starts_with('/') || rest.starts_with(':'))
}

/// A person's bookmark of a public item: what their agents are served besides their
/// namespaces' items.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Star {
    /// The person.
    pub handle: String,
    /// The item's store key.
    pub key: String,
    /// When they starred it.
    pub created_at: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns(name: &str) -> Namespace {
        Namespace::parse(name).expect("a handle")
    }

    fn apply(directory: &mut Directory, change: Governance) -> StoreResult<Action> {
        let decision = decide(directory, change, "admin")?;
        for row in decision.rows {
            match row {
                Row::InsertUser(user) => directory.users.push(user),
                Row::UserDisabled(handle, disabled) => {
                    for user in &mut directory.users {
                        if user.handle == handle {
                            user.disabled = disabled;
                        }
                    }
                }
                Row::InsertNamespace(record) => directory.namespaces.push(record),
                Row::UpdateNamespace(record) => {
                    for old in &mut directory.namespaces {
                        if old.name == record.name {
                            *old = record.clone();
                        }
                    }
                }
                Row::DeleteNamespace(name) => directory.namespaces.retain(|n| n.name != name),
                Row::PutMember(member) => {
                    directory.members.retain(|m| {
                        !(m.namespace == member.namespace && m.handle == member.handle)
                    });
                    directory.members.push(member);
                }
                Row::DeleteMember(name, handle) => directory
                    .members
                    .retain(|m| !(m.namespace == name && m.handle == handle)),
                Row::Visibility(key, visibility) => {
                    directory.access.entry(key).or_default().visibility = visibility
                }
                release => panic!("{release:?}: releases are tested on the backends"),
            }
        }
        Ok(decision.action)
    }

    fn user(handle: &str) -> Governance {
        Governance::CreateUser {
            handle: handle.to_owned(),
            display_name: String::new(),
            admin: false,
        }
    }

    #[test]
    fn people_get_their_own_namespace_and_names_are_shared_by_both() {
        let mut directory = Directory::default();
        apply(&mut directory, user("alice")).expect("added");
        assert_eq!(
            directory.role("alice", &ns("alice")),
            Some(MemberRole::Owner)
        );
        let taken = apply(&mut directory, user("alice")).expect_err("taken");
        assert!(taken.to_string().contains("exists already"), "{taken}");
        let team = Governance::CreateNamespace {
            name: ns("alice"),
            owner: None,
        };
        let said = apply(&mut directory, team)
            .expect_err("a person's")
            .to_string();
        assert!(said.contains("personal namespace"), "{said}");
        let bad = apply(&mut directory, user("Bob")).expect_err("not a handle");
        assert!(bad.to_string().contains("uppercase"), "{bad}");
    }

    #[test]
    fn a_namespace_keeps_an_owner_and_members_are_added_once() {
        let mut directory = Directory::default();
        apply(&mut directory, user("alice")).expect("added");
        apply(&mut directory, user("bob")).expect("added");
        let team = Governance::CreateNamespace {
            name: ns("team-a"),
            owner: Some("alice".to_owned()),
        };
        apply(&mut directory, team).expect("made");
        let add = Governance::AddMember {
            namespace: ns("team-a"),
            handle: "bob".to_owned(),
            role: MemberRole::Author,
        };
        let entry = apply(&mut directory, add.clone()).expect("added");
        assert_eq!(
            (entry.action.as_str(), entry.target.as_str()),
            ("member.add", "@team-a:bob")
        );
        let twice = apply(&mut directory, add).expect_err("twice").to_string();
        assert!(twice.contains("members set @team-a bob"), "{twice}");
        let last = Governance::RemoveMember {
            namespace: ns("team-a"),
            handle: "alice".to_owned(),
        };
        let said = apply(&mut directory, last.clone())
            .expect_err("last owner")
            .to_string();
        assert!(said.contains("last owner"), "{said}");
        let promote = Governance::SetRole {
            namespace: ns("team-a"),
            handle: "bob".to_owned(),
            role: MemberRole::Owner,
        };
        apply(&mut directory, promote).expect("promoted");
        apply(&mut directory, last).expect("no longer the last");
        assert_eq!(directory.role("alice", &ns("team-a")), None);
    }

    #[test]
    fn a_namespace_with_items_is_archived_not_deleted() {
        let mut directory = Directory::default();
        let team = Governance::CreateNamespace {
            name: ns("team-a"),
            owner: None,
        };
        apply(&mut directory, team).expect("made");
        directory
            .access
            .insert("@team-a/deploy".to_owned(), Access::default());
        let said = apply(&mut directory, Governance::DeleteNamespace(ns("team-a")))
            .expect_err("items")
            .to_string();
        assert!(said.contains("namespaces archive @team-a"), "{said}");
        directory.access.clear();
        apply(&mut directory, Governance::DeleteNamespace(ns("team-a"))).expect("empty");
        assert!(directory.namespaces.is_empty());
    }

    #[test]
    fn keys_made_before_people_become_people_with_their_roles() {
        assert_eq!(handle_of_key_name("Alice_Writer"), "alice-writer");
        assert_eq!(handle_of_key_name("ci.bot@corp"), "ci-bot-corp");
        assert_eq!(handle_of_key_name("__"), "key");
        let rows = people_of_keys(
            &[
                ("ci".to_owned(), Role::Reader),
                ("CI".to_owned(), Role::Maintainer),
                ("root".to_owned(), Role::Admin),
            ],
            &Namespace::global(),
        );
        let mut directory = Directory::default();
        for row in rows {
            match row {
                Row::InsertUser(user) => directory.users.push(user),
                Row::PutMember(member) => directory.members.push(member),
                _ => {}
            }
        }
        assert_eq!(directory.users.len(), 2);
        assert_eq!(
            directory.role("ci", &Namespace::global()),
            Some(MemberRole::Maintainer)
        );
        assert!(directory.user("root").is_some_and(|user| user.admin));
        assert_eq!(
            directory.role("root", &Namespace::global()),
            Some(MemberRole::Owner)
        );
    }

    #[test]
    fn the_log_filter_reads_targets_by_namespace() {
        let team = ns("team-a");
        assert!(concerns("@team-a", &team));
        assert!(concerns("@team-a/deploy", &team));
        assert!(concerns("@team-a:bob", &team));
        assert!(!concerns("@team-ab/deploy", &team));
        assert!(!concerns("alice", &team));
    }
}
