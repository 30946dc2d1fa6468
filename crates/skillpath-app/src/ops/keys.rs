//! API keys: listed, created (the key shown once) and revoked, by admins.

use skillpath_store::keys::{self, AuthError, CreatedKey, KeyInfo, Role};

use crate::app::App;
use crate::caller::Caller;
use crate::error::AppError;
use crate::rules::{Operation, Permit};

impl<E> App<E> {
    /// Every key, never the keys themselves.
    pub async fn list_keys(&self, permit: &Permit) -> Result<Vec<KeyInfo>, AppError> {
        self.permitted(permit, Operation::ListApiKeys)?;
        Ok(self.store().list_keys().await?)
    }

    /// A new key named `name` with the role named `role`, valid for `expires` (`90m`, `12h`,
    /// `30d`, `2w`; `None`: until revoked).
    pub async fn create_key(
        &self,
        permit: &Permit,
        name: &str,
        role: &str,
        expires: Option<&str>,
    ) -> Result<CreatedKey, AppError> {
        self.permitted(permit, Operation::CreateApiKey)?;
        let role = Role::parse(role).ok_or_else(|| AppError::NotARole(role.to_owned()))?;
        let lifetime = match expires {
            Some(text) => Some(keys::parse_lifetime(text).map_err(AppError::Lifetime)?),
            None => None,
        };
        self.create_key_parsed(permit, name, role, lifetime).await
    }

    /// [`App::create_key`] of a role and a lifetime (in seconds) already read: the command
    /// line reads both as it reads its arguments, so that a wrong one is a usage error there.
    pub async fn create_key_parsed(
        &self,
        permit: &Permit,
        name: &str,
        role: Role,
        lifetime_secs: Option<u64>,
    ) -> Result<CreatedKey, AppError> {
        self.permitted(permit, Operation::CreateApiKey)?;
        Ok(keys::create(self.store(), name, role, lifetime_secs).await?)
    }

    /// The active key named `name`, refused from now on.
    pub async fn revoke_key(&self, permit: &Permit, name: &str) -> Result<KeyInfo, AppError> {
        self.permitted(permit, Operation::RevokeApiKey)?;
        Ok(self.store().revoke_key(name).await?)
    }

    /// The caller who presents the key `presented`: checked against the store, its use
    /// recorded. What a sign-in and every HTTP request with a key go through.
    pub async fn authenticate(&self, presented: &str) -> Result<Caller, AuthError> {
        keys::authenticate(self.store(), presented)
            .await
            .map(Caller::of_key)
    }
}
