//! API keys: listed, created (the key shown once) and revoked, by admins. A key acts for a
//! person, narrowed to some of their namespaces and to a role at most.

use skillpath_model::Namespace;
use skillpath_store::directory::{Governance, handle_of_key_name};
use skillpath_store::keys::{self, AuthError, CreatedKey, Grant, KeyInfo, Role};

use crate::app::App;
use crate::caller::Caller;
use crate::catalog::Derived;
use crate::channel::Channel;
use crate::error::AppError;
use crate::rules::{Operation, Permit};

/// How long a key a person makes for themselves lives when they do not say.
pub const OWN_KEY_LIFETIME: &str = "90d";

/// What a new key is to be: who it acts for, as what, where, and for how long.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyRequest {
    /// The person it acts for (`None`: the person the key's name makes a handle of, added
    /// with the key's role in `@global` when there is none, as keys were before people).
    pub user: Option<String>,
    /// The most it may do (`None`: an author's).
    pub role: Option<Role>,
    /// The namespaces it is narrowed to; empty: all its person's.
    pub namespaces: Vec<Namespace>,
    /// Its lifetime in seconds (`None`: until revoked).
    pub lifetime_secs: Option<u64>,
    /// The channel its caller is served by default (`None`: the server's `--channel`).
    pub channel: Option<Channel>,
}

impl<E> App<E> {
    /// Every key, never the keys themselves.
    pub async fn list_keys(&self, permit: &Permit) -> Result<Vec<KeyInfo>, AppError> {
        self.permitted(permit, Operation::ListApiKeys)?;
        Ok(self.store().list_keys().await?)
    }

    /// A new key named `name` with the role named `role`, valid for `expires` (`90m`, `12h`,
    /// `30d`, `2w`; `None`: until revoked), for the person its name makes a handle of
    /// ([`KeyRequest::user`]).
    pub async fn create_key(
        &self,
        permit: &Permit,
        name: &str,
        role: &str,
        expires: Option<&str>,
    ) -> Result<CreatedKey, AppError> {
        self.permitted(permit, Operation::CreateApiKey)?;
        let role = Role::parse(role).ok_or_else(|| AppError::NotARole(role.to_owned()))?;
        let lifetime_secs = match expires {
            Some(text) => Some(keys::parse_lifetime(text).map_err(AppError::Lifetime)?),
            None => None,
        };
        let request = KeyRequest {
            role: Some(role),
            lifetime_secs,
            ..KeyRequest::default()
        };
        self.create_user_key(permit, name, request).await
    }

    /// A new key named `name` as `request` says: refused when its person does not exist (but
    /// for the one its name makes, [`KeyRequest::user`]), or is not a member of a namespace it
    /// is narrowed to. Logged.
    pub async fn create_user_key(
        &self,
        permit: &Permit,
        name: &str,
        request: KeyRequest,
    ) -> Result<CreatedKey, AppError> {
        let caller = self.permitted(permit, Operation::CreateApiKey)?;
        let role = request.role.unwrap_or(Role::Author);
        let people = self.people().await?;
        let user = match request.user {
            Some(user) => {
                if people.directory.user(&user).is_none() {
                    return Err(AppError::Store(skillpath_store::StoreError::Refused(
                        format!(
                            "no person has the handle `{user}`: add them first with `skillpath users create {user}`"
                        ),
                    )));
                }
                user
            }
            None => {
                let user = handle_of_key_name(name);
                if people.directory.user(&user).is_none() {
                    self.add_key_person(caller, &user, name, role).await?;
                }
                user
            }
        };
        let people = self.people().await?;
        for namespace in &request.namespaces {
            if people.directory.role(&user, namespace).is_none() {
                return Err(AppError::NotInNamespace {
                    what: "a key narrowed to a namespace",
                    namespace: namespace.to_string(),
                    needed: skillpath_model::MemberRole::Reader,
                    held: None,
                });
            }
        }
        let grant = Grant {
            user,
            role,
            namespaces: (!request.namespaces.is_empty())
                .then(|| request.namespaces.iter().map(ToString::to_string).collect()),
            expires_in_secs: request.lifetime_secs,
            channel: request.channel.as_ref().map(ToString::to_string),
        };
        self.create_logged(name, grant, &caller.author()).await
    }

    /// The person `handle` a key named `name` made, as keys were before people: a member of
    /// `@global` with the key's role.
    async fn add_key_person(
        &self,
        caller: &Caller,
        handle: &str,
        name: &str,
        role: Role,
    ) -> Result<(), AppError> {
        let (member_role, admin) = skillpath_store::directory::member_role_of_key(role);
        let actor = caller.author();
        let person = Governance::CreateUser {
            handle: handle.to_owned(),
            display_name: name.to_owned(),
            admin,
        };
        self.store().govern(person, &actor).await?;
        let member = Governance::AddMember {
            namespace: Namespace::global(),
            handle: handle.to_owned(),
            role: member_role,
        };
        self.store().govern(member, &actor).await?;
        Ok(())
    }

    /// The active key named `name`, refused from now on. Logged.
    pub async fn revoke_key(&self, permit: &Permit, name: &str) -> Result<KeyInfo, AppError> {
        let caller = self.permitted(permit, Operation::RevokeApiKey)?;
        self.revoke_logged(name, &caller.author()).await
    }

    /// A new key named `name` as `grant` says, its making logged as `actor`'s: every key is
    /// made through here.
    pub(crate) async fn create_logged(
        &self,
        name: &str,
        grant: Grant,
        actor: &str,
    ) -> Result<CreatedKey, AppError> {
        let created = keys::create(self.store(), name, grant).await?;
        let record = Governance::Record {
            action: "key.create".to_owned(),
            target: created.info.user.clone(),
            before: None,
            after: Some(serde_json::json!({
                "key": created.info.name,
                "role": created.info.role,
                "namespaces": created.info.namespaces,
                "expires_at": created.info.expires_at,
                "channel": created.info.channel,
            })),
        };
        self.store().govern(record, actor).await?;
        Ok(created)
    }

    /// The active key named `name` revoked, logged as `actor`'s: every key is revoked through
    /// here.
    async fn revoke_logged(&self, name: &str, actor: &str) -> Result<KeyInfo, AppError> {
        let revoked = self.store().revoke_key(name).await?;
        let record = Governance::Record {
            action: "key.revoke".to_owned(),
            target: revoked.user.clone(),
            before: Some(serde_json::json!({"key": revoked.name})),
            after: None,
        };
        self.store().govern(record, actor).await?;
        Ok(revoked)
    }
}

impl<E> App<E> {
    /// The person the permit's caller is, through a key: whose own keys they manage.
    fn own_person<'p>(&self, permit: &'p Permit) -> Result<(&'p Caller, String), AppError> {
        let caller = self.permitted(permit, Operation::ManageOwnKeys)?;
        match (&caller.key, &caller.user) {
            (Some(_), Some(user)) => Ok((caller, user.clone())),
            _ => Err(AppError::NoPerson),
        }
    }

    /// The keys of the permit's caller's person, never the keys themselves.
    pub async fn own_keys(&self, permit: &Permit) -> Result<Vec<KeyInfo>, AppError> {
        let (_, user) = self.own_person(permit)?;
        let mut keys = self.store().list_keys().await?;
        keys.retain(|key| key.user == user);
        Ok(keys)
    }

    /// A new key named `name` for the permit's caller's person, as much as the caller's own
    /// key may at most, narrowed to `namespaces` (each one of theirs; empty: all of theirs),
    /// valid for `expires` (`90m`, `12h`, `30d`; `None`: [`OWN_KEY_LIFETIME`], since a
    /// person's keys always expire). Logged.
    pub async fn create_own_key(
        &self,
        permit: &Permit,
        name: &str,
        namespaces: Vec<Namespace>,
        expires: Option<&str>,
    ) -> Result<CreatedKey, AppError> {
        let (caller, user) = self.own_person(permit)?;
        let lifetime_secs = keys::parse_lifetime(expires.unwrap_or(OWN_KEY_LIFETIME))
            .map_err(AppError::Lifetime)?;
        let people = self.people().await?;
        for namespace in &namespaces {
            let theirs = people.directory.role(&user, namespace).is_some()
                && caller
                    .namespaces
                    .as_ref()
                    .is_none_or(|narrowed| narrowed.contains(&namespace.to_string()));
            if !theirs {
                return Err(AppError::NotInNamespace {
                    what: "a key narrowed to a namespace",
                    namespace: namespace.to_string(),
                    needed: skillpath_model::MemberRole::Reader,
                    held: None,
                });
            }
        }
        let namespaces = if namespaces.is_empty() {
            caller.namespaces.clone()
        } else {
            Some(namespaces.iter().map(ToString::to_string).collect())
        };
        let grant = Grant {
            user: user.clone(),
            role: caller.role,
            namespaces,
            expires_in_secs: Some(lifetime_secs),
            channel: None,
        };
        self.create_logged(name, grant, &caller.author()).await
    }

    /// Revokes the permit's caller's person's key `name` (`None`: the key the caller presents,
    /// as a sign-out does). Another person's key is refused as unknown. Logged.
    pub async fn revoke_own_key(
        &self,
        permit: &Permit,
        name: Option<&str>,
    ) -> Result<KeyInfo, AppError> {
        let (caller, user) = self.own_person(permit)?;
        let name = name.or(caller.key.as_deref()).unwrap_or_default();
        let theirs = self
            .store()
            .list_keys()
            .await?
            .into_iter()
            .any(|key| key.name == name && key.user == user);
        if !theirs {
            return Err(AppError::Invalid(format!(
                "you have no key named `{name}`: `skillpath keys` or the studio's key page lists yours"
            )));
        }
        self.revoke_logged(name, &caller.author()).await
    }
}

impl<E: Derived> App<E> {
    /// The caller who presents the key `presented`: checked against the store, its use
    /// recorded, refused when its person is disabled. What a sign-in and every HTTP request
    /// with a key go through. A key whose person the catalog's directory does not know yet
    /// (made by another process a moment ago) has the catalog reloaded first, so that its
    /// first request sees what its person may.
    pub async fn authenticate(&self, presented: &str) -> Result<Caller, AuthError> {
        let info = keys::authenticate(self.store(), presented).await?;
        let mut people = self.people().await?;
        if people.directory.user(&info.user).is_none() {
            self.reload(true).await?;
            people = self.people().await?;
        }
        if people
            .directory
            .user(&info.user)
            .is_some_and(|user| user.disabled)
        {
            return Err(AuthError::Disabled(info.name, info.user));
        }
        let caller = Caller::of_key(info);
        if let Some(channel) = &caller.channel {
            self.follow_channel(channel).await?;
        }
        Ok(caller)
    }
}
