//! Signing a person in with an identity provider: the account their provider proved
//! ([`Account`]) becomes a person of the instance and a key for them, in one operation.
//!
//! - **Just in time**: an account's first sign-in creates its person (and their personal
//!   namespace), with the handle its `preferred_username` makes by the name rule, else its
//!   email's local part, and links the account to them; later sign-ins find the person by the
//!   link (issuer and subject), whatever the account's names have become. A handle that is
//!   another person's already is refused, with nothing created.
//! - **Groups to namespaces**: each [`GroupRule`] makes the members of a group members of a
//!   namespace with a role (the namespace created when missing), or administrators of the
//!   instance. At every sign-in the person's memberships of the namespaces the rules name are
//!   set to what their groups give now: a group left is a membership lost, and their keys lose
//!   what it allowed. Namespaces no rule names are left as they are. Every change goes to the
//!   governance log, its actor the provider (`oidc:<provider>`).
//! - **A key**: the person gets a new key of their own ([`KeyUse`]: a studio session's, or a
//!   command line's), which every request checks again, so a person disabled, or a key
//!   revoked, stops working at once on every replica.

use skillpath_model::{MemberRole, Namespace};
use skillpath_store::StoreError;
use skillpath_store::directory::{Directory, Governance, handle_of};
use skillpath_store::keys::{CreatedKey, Grant, Role};

use crate::app::App;
use crate::catalog::Derived;
use crate::error::AppError;

/// How often, and how far apart, a first sign-in refused looks for the person a concurrent
/// one of the same account made.
const MEANWHILE_TRIES: usize = 5;
const MEANWHILE_PAUSE: std::time::Duration = std::time::Duration::from_millis(50);

/// An account an identity provider proved, as the application needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    /// The provider's short name (the log's actor is `oidc:<provider>`).
    pub provider: String,
    /// Its issuer.
    pub issuer: String,
    /// The account's subject there.
    pub subject: String,
    /// Its `preferred_username`.
    pub username: Option<String>,
    /// Its email.
    pub email: Option<String>,
    /// Its name as shown.
    pub name: Option<String>,
    /// Its groups.
    pub groups: Vec<String>,
}

/// What a group gives its members.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GroupGrant {
    /// A role in a namespace.
    Member(Namespace, MemberRole),
    /// The instance's administration.
    Admin,
}

/// One rule of the mapping: the members of `group` get `grant`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupRule {
    /// The group's name, as the provider's claim lists it.
    pub group: String,
    /// What its members get.
    pub grant: GroupGrant,
}

impl GroupRule {
    /// The rule `text` writes: `GROUP=@namespace:role` (`reader`, `author`, `maintainer`,
    /// `owner`) or `GROUP=admin`.
    pub fn parse(text: &str) -> Result<GroupRule, String> {
        let (group, grant) = text.split_once('=').ok_or_else(|| {
            format!("`{text}` is not a group rule: write `GROUP=@namespace:role` or `GROUP=admin`")
        })?;
        let group = group.trim();
        if group.is_empty() {
            return Err(format!("`{text}` names no group before the `=`"));
        }
        let grant = match grant.trim() {
            "admin" => GroupGrant::Admin,
            place => {
                let (namespace, role) = place.split_once(':').ok_or_else(|| {
                    format!("`{place}` in `{text}` names no role: write `@namespace:role`")
                })?;
                let namespace = Namespace::parse(namespace)
                    .map_err(|error| format!("`{namespace}` in `{text}`: {error}"))?;
                let role = MemberRole::parse(role).ok_or_else(|| {
                    format!(
                        "`{role}` in `{text}` is not a role: `reader`, `author`, `maintainer` or `owner`"
                    )
                })?;
                GroupGrant::Member(namespace, role)
            }
        };
        Ok(GroupRule {
            group: group.to_owned(),
            grant,
        })
    }
}

/// What the key a sign-in makes is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyUse {
    /// A studio session's: named `studio-<handle>-…`, living as long as the session may.
    Studio {
        /// Its lifetime in seconds.
        lifetime_secs: u64,
    },
    /// A command line's (`skillpath login`): named `cli-<handle>-…`.
    Cli {
        /// Its lifetime in seconds.
        lifetime_secs: u64,
    },
}

/// A sign-in done.
#[derive(Debug)]
pub struct SignedIn {
    /// The person's handle.
    pub handle: String,
    /// Whether this sign-in created them.
    pub created: bool,
    /// Their new key.
    pub key: CreatedKey,
    /// The log's actions this sign-in wrote (`user.create`, `member.add`, …), in order.
    pub changes: Vec<String>,
    /// The changes the mapping asked for that the directory's rules refused (the last owner
    /// of a namespace removed), each with why; the rest were made.
    pub skipped: Vec<String>,
}

impl<E: Derived> App<E> {
    /// Signs in the person `account` is (created at their first sign-in), sets their
    /// memberships as `rules` map their groups, and makes them a key for `key_use`. Refused,
    /// with nothing created, where the account gives no handle, its handle is another
    /// person's, or the person is disabled.
    pub async fn sign_in(
        &self,
        account: Account,
        rules: &[GroupRule],
        key_use: KeyUse,
    ) -> Result<SignedIn, AppError> {
        let actor = format!("oidc:{}", account.provider);
        let mut changes = Vec::new();
        let directory = self.store().directory().await?;
        let (handle, created) = match directory.person_of(&account.issuer, &account.subject) {
            Some(handle) => (handle.to_owned(), false),
            None => match self
                .new_person(&account, &directory, &actor, &mut changes)
                .await
            {
                Ok(handle) => (handle, true),
                Err(refused) => (self.made_meanwhile(&account, refused).await?, false),
            },
        };
        let mut skipped = Vec::new();
        let directory = self.store().directory().await?;
        if directory.user(&handle).is_some_and(|user| user.disabled) {
            return Err(AppError::Disabled(handle));
        }
        for change in mapped(&directory, &handle, &account.groups, rules) {
            let what = describe(&change);
            match self.store().govern(change, &actor).await {
                Ok(entry) => changes.push(entry.action.action),
                Err(StoreError::Refused(why)) => skipped.push(format!("{what}: {why}")),
                Err(error) => return Err(error.into()),
            }
        }
        let directory = self.store().directory().await?;
        let admin = directory.user(&handle).is_some_and(|user| user.admin);
        let key = self.person_key(&handle, admin, key_use, &actor).await?;
        self.refresh().await?;
        Ok(SignedIn {
            handle,
            created,
            key,
            changes,
            skipped,
        })
    }

    /// The person `account` becomes at its first sign-in, linked to it: their handle.
    async fn new_person(
        &self,
        account: &Account,
        directory: &Directory,
        actor: &str,
        changes: &mut Vec<String>,
    ) -> Result<String, AppError> {
        let handle = new_handle(account, directory)?;
        let person = Governance::CreateUser {
            handle: handle.clone(),
            display_name: account.name.clone().unwrap_or_default(),
            admin: false,
        };
        changes.push(self.store().govern(person, actor).await?.action.action);
        let link = Governance::LinkIdentity {
            handle: handle.clone(),
            issuer: account.issuer.clone(),
            subject: account.subject.clone(),
        };
        changes.push(self.store().govern(link, actor).await?.action.action);
        Ok(handle)
    }

    /// The person another sign-in of `account` made while this one tried to (a second tab,
    /// another replica): found by the link it wrote, waited for a moment; else `refused`, why
    /// this one could not.
    async fn made_meanwhile(
        &self,
        account: &Account,
        refused: AppError,
    ) -> Result<String, AppError> {
        for _ in 0..MEANWHILE_TRIES {
            let directory = self.store().directory().await?;
            if let Some(handle) = directory.person_of(&account.issuer, &account.subject) {
                return Ok(handle.to_owned());
            }
            tokio::time::sleep(MEANWHILE_PAUSE).await;
        }
        Err(refused)
    }

    /// A new key of `handle`'s own, as much as they may (an administrator's, else a
    /// maintainer's: their memberships narrow it), for `key_use`. Logged.
    async fn person_key(
        &self,
        handle: &str,
        admin: bool,
        key_use: KeyUse,
        actor: &str,
    ) -> Result<CreatedKey, AppError> {
        let (prefix, lifetime_secs) = match key_use {
            KeyUse::Studio { lifetime_secs } => ("studio", lifetime_secs),
            KeyUse::Cli { lifetime_secs } => ("cli", lifetime_secs),
        };
        let mut random = [0u8; 4];
        getrandom::fill(&mut random)
            .map_err(|error| AppError::Invalid(format!("no randomness for a key: {error}")))?;
        let name = format!(
            "{prefix}-{handle}-{}",
            skillpath_model::hex::encode(&random)
        );
        let grant = Grant {
            user: handle.to_owned(),
            role: if admin { Role::Admin } else { Role::Maintainer },
            namespaces: None,
            expires_in_secs: Some(lifetime_secs),
            channel: None,
        };
        self.create_logged(&name, grant, actor).await
    }
}

/// The handle a new person of `account` gets: refused when the account gives none, or when
/// it is another person's (or a namespace's) already.
fn new_handle(account: &Account, directory: &Directory) -> Result<String, AppError> {
    let (source, from) = match (&account.username, &account.email) {
        (Some(username), _) if !username.trim().is_empty() => (username.clone(), "username"),
        (_, Some(email)) if email.contains('@') => (
            email.split('@').next().unwrap_or_default().to_owned(),
            "email",
        ),
        _ => {
            return Err(AppError::Invalid(
                "the provider gave neither a `preferred_username` nor an `email` to name you by: ask for the `profile` and `email` scopes (`--oidc-scope`)".to_owned(),
            ));
        }
    };
    let handle = handle_of(&source).ok_or_else(|| {
        AppError::Invalid(format!(
            "your {from} `{source}` makes no handle (letters, digits and `-`): ask your administrator to set another at the provider"
        ))
    })?;
    let namespace =
        Namespace::parse(&handle).map_err(|error| AppError::Invalid(error.to_string()))?;
    if directory.user(&handle).is_some() || directory.namespace(&namespace).is_some() {
        return Err(AppError::Invalid(format!(
            "your {from} `{source}` makes the handle `{handle}`, which is already another person's or a namespace's on this server; nothing was created: ask an administrator to rename one of them, or to give you another username at the provider"
        )));
    }
    Ok(handle)
}

/// The changes that bring `handle`'s memberships of the namespaces `rules` name, and their
/// administration where a rule gives it, to what `groups` give: each namespace created when
/// missing, the highest role of their groups there.
fn mapped(
    directory: &Directory,
    handle: &str,
    groups: &[String],
    rules: &[GroupRule],
) -> Vec<Governance> {
    let mut wanted: Vec<(Namespace, Option<MemberRole>)> = Vec::new();
    let mut admin_ruled = false;
    let mut admin = false;
    for rule in rules {
        let member = groups.iter().any(|group| group == &rule.group);
        match &rule.grant {
            GroupGrant::Admin => {
                admin_ruled = true;
                admin |= member;
            }
            GroupGrant::Member(namespace, role) => {
                let given = member.then_some(*role);
                match wanted.iter_mut().find(|(known, _)| known == namespace) {
                    Some((_, held)) => *held = (*held).max(given),
                    None => wanted.push((namespace.clone(), given)),
                }
            }
        }
    }
    let mut changes = Vec::new();
    for (namespace, role) in wanted {
        if directory.namespace(&namespace).is_none() {
            if role.is_none() {
                continue;
            }
            changes.push(Governance::CreateNamespace {
                name: namespace.clone(),
                owner: None,
            });
        }
        let held = directory.role(handle, &namespace);
        match (held, role) {
            (None, Some(role)) => changes.push(Governance::AddMember {
                namespace,
                handle: handle.to_owned(),
                role,
            }),
            (Some(held), Some(role)) if held != role => changes.push(Governance::SetRole {
                namespace,
                handle: handle.to_owned(),
                role,
            }),
            (Some(_), None) => changes.push(Governance::RemoveMember {
                namespace,
                handle: handle.to_owned(),
            }),
            _ => {}
        }
    }
    let is_admin = directory.user(handle).is_some_and(|user| user.admin);
    if admin_ruled && admin != is_admin {
        changes.push(Governance::SetAdmin {
            handle: handle.to_owned(),
            admin,
        });
    }
    changes
}

/// A change, as a skipped one is named.
fn describe(change: &Governance) -> String {
    match change {
        Governance::CreateNamespace { name, .. } => format!("creating {name}"),
        Governance::AddMember {
            namespace, role, ..
        } => format!("joining {namespace} as {role}"),
        Governance::SetRole {
            namespace, role, ..
        } => format!("becoming {role} of {namespace}"),
        Governance::RemoveMember { namespace, .. } => format!("leaving {namespace}"),
        Governance::SetAdmin { admin: true, .. } => "becoming an administrator".to_owned(),
        Governance::SetAdmin { .. } => "no longer administering".to_owned(),
        _ => "a change".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_rules_read_as_written() {
        let rule = GroupRule::parse("platform=@platform:maintainer").expect("a rule");
        assert_eq!(rule.group, "platform");
        assert_eq!(
            rule.grant,
            GroupGrant::Member(
                Namespace::parse("platform").expect("a namespace"),
                MemberRole::Maintainer
            )
        );
        assert_eq!(
            GroupRule::parse("admins=admin").expect("a rule").grant,
            GroupGrant::Admin
        );
        for bad in [
            "platform",
            "=@a:reader",
            "g=@a",
            "g=@a:king",
            "g=@Bad Name:reader",
        ] {
            assert!(GroupRule::parse(bad).is_err(), "{bad} is refused");
        }
    }
}
