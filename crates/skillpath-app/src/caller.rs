//! Who asks: an API key's name and role, or the local user. Every operation takes the caller,
//! so that namespaces can later add what the caller owns without changing a front end.

use skillpath_store::keys::{KeyInfo, Role};

/// Who makes a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// The name of the API key the request came with; `None` for the local user.
    pub key: Option<String>,
    /// That key's public part (`sp_<id>`), which tells apart keys of one name (a key revoked
    /// and another made with its name): what a sealed `requestState` is bound to.
    pub key_id: Option<String>,
    /// What the caller may do.
    pub role: Role,
}

impl Caller {
    /// The local user: stdio, or HTTP without a key where keys are optional.
    pub fn local() -> Caller {
        Caller {
            key: None,
            key_id: None,
            role: Role::Author,
        }
    }

    /// A visitor who has not signed in where keys are optional: the reader no key names.
    pub fn anonymous() -> Caller {
        Caller {
            key: None,
            key_id: None,
            role: Role::Reader,
        }
    }

    /// The caller who presented the key `info` describes.
    pub fn of_key(info: KeyInfo) -> Caller {
        Caller {
            key: Some(info.name),
            key_id: Some(info.prefix),
            role: info.role,
        }
    }

    /// The author recorded in the revisions this caller makes: the key's name, or `mcp`.
    pub fn author(&self) -> String {
        self.key.clone().unwrap_or_else(|| "mcp".to_owned())
    }

    /// Whether what this caller creates and updates is a draft, on a server where review is
    /// required (`review`): an author's key. Maintainers, admins and the local user publish at
    /// once.
    pub fn drafts(&self, review: bool) -> bool {
        review && self.key.is_some() && self.role < Role::Maintainer
    }

    /// Whose drafts this caller may read.
    pub fn drafts_seen(&self) -> DraftsSeen {
        match &self.key {
            Some(key) if self.role == Role::Author => DraftsSeen::Own(key.clone()),
            Some(_) if self.role == Role::Reader => DraftsSeen::None,
            _ => DraftsSeen::All,
        }
    }
}

/// Whose drafts a caller may read ([`Caller::drafts_seen`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DraftsSeen {
    /// Every author's: a maintainer or an admin, or the local user.
    All,
    /// Only those of this author (an author's key).
    Own(String),
    /// None: a reader.
    None,
}
