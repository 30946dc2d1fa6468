//! Who asks: a person through one of their API keys (its name, role and namespaces), the local
//! user, or the store's owner at the command line. Every operation takes the caller; what the
//! caller may see and write is decided from it with the directory ([`crate::Sight`]).

use skillpath_store::keys::{KeyInfo, Role};

use crate::channel::Channel;

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
    /// Who the revisions this caller makes are recorded as ([`Caller::author`]): set by the
    /// constructor, since the command line names its author and a key or the local user do
    /// not.
    author: String,
    /// The handle of the person the key acts for; `None` for the local user, the store's
    /// owner and a visitor without a key, who see everything.
    pub user: Option<String>,
    /// The namespaces (`@name`) the key is narrowed to; `None`: every one of its user's.
    pub namespaces: Option<Vec<String>>,
    /// A reader without a key on a server that allows anonymous reading of public items
    /// ([`Caller::public_reader`]).
    pub public_reader: bool,
    /// The channel the key says its caller is served ([`Channel`]); `None`: the server's.
    pub channel: Option<Channel>,
}

impl Caller {
    /// The local user: stdio, or HTTP without a key where keys are optional.
    pub fn local() -> Caller {
        Caller {
            key: None,
            key_id: None,
            role: Role::Author,
            author: "mcp".to_owned(),
            user: None,
            namespaces: None,
            public_reader: false,
            channel: None,
        }
    }

    /// The store's owner at the command line (`skillpath publish`, `rollback`, `keys`, …):
    /// whoever may open the database may do anything with it, so an admin, with no key. Their
    /// revisions are recorded as `author` (the command's `--author`, else the user's name).
    /// They see every author's drafts and publish at once: without a key nothing they write
    /// waits for review.
    pub fn owner(author: String) -> Caller {
        Caller {
            key: None,
            key_id: None,
            role: Role::Admin,
            author,
            user: None,
            namespaces: None,
            public_reader: false,
            channel: None,
        }
    }

    /// A visitor who has not signed in where keys are optional: the reader no key names.
    pub fn anonymous() -> Caller {
        Caller {
            key: None,
            key_id: None,
            role: Role::Reader,
            author: "mcp".to_owned(),
            user: None,
            namespaces: None,
            public_reader: false,
            channel: None,
        }
    }

    /// A reader without a key where keys are required but public items may be read by anyone
    /// (`serve --public-read`): they read, find and are served the public items alone.
    pub fn public_reader() -> Caller {
        Caller {
            public_reader: true,
            ..Caller::anonymous()
        }
    }

    /// The caller who presented the key `info` describes: its user, acting through it.
    pub fn of_key(info: KeyInfo) -> Caller {
        // A stored channel this version cannot read (written by a newer one) is the server's.
        let channel = info
            .channel
            .as_deref()
            .and_then(|text| Channel::parse(text).ok());
        Caller {
            channel,
            author: info.user.clone(),
            key: Some(info.name),
            key_id: Some(info.prefix),
            role: info.role,
            user: Some(info.user),
            namespaces: info.namespaces,
            public_reader: false,
        }
    }

    /// The author recorded in the revisions this caller makes: the handle of the key's user,
    /// the owner's name at the command line, or `mcp` for the local user.
    pub fn author(&self) -> String {
        self.author.clone()
    }

    /// Whether this is the store's owner at the command line ([`Caller::owner`]): the one
    /// admin without a key, since no other constructor makes one (the fields a struct literal
    /// would need are not all public).
    pub fn is_owner(&self) -> bool {
        self.key.is_none() && self.role == Role::Admin
    }

    /// Whether what this caller creates and updates is a draft, on a server where review is
    /// required (`review`): an author's key. Maintainers, admins, the local user and the
    /// store's owner publish at once.
    pub fn drafts(&self, review: bool) -> bool {
        review && self.key.is_some() && self.role < Role::Maintainer
    }

    /// Whose drafts this caller may read.
    pub fn drafts_seen(&self) -> DraftsSeen {
        match &self.key {
            Some(_) if self.role == Role::Author => DraftsSeen::Own(self.author.clone()),
            Some(_) if self.role == Role::Reader => DraftsSeen::None,
            _ => DraftsSeen::All,
        }
    }
}

/// Whose drafts a caller may read ([`Caller::drafts_seen`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DraftsSeen {
    /// Every author's: a maintainer or an admin, the local user, or the store's owner.
    All,
    /// Only those of this author (an author's key).
    Own(String),
    /// None: a reader.
    None,
}
