//! What a key is as the store keeps it and lists it: its role, its listing, its digest. The
//! [`crate::Store`] trait takes and gives these; making and checking keys is [`super`]'s job.

/// What a key may do. Each role can do everything the ones before it can.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Sees and calls skills: lists, searches, reads, renders.
    Reader,
    /// Also creates, updates, deletes and rolls back skills; on a server with review, its
    /// creations and updates are drafts ([`crate::drafts`]).
    Author,
    /// Also publishes and rejects authors' drafts, and writes without review.
    Maintainer,
    /// Also manages API keys.
    Admin,
}

impl Role {
    /// Every role, least first.
    pub const ALL: [Role; 4] = [Role::Reader, Role::Author, Role::Maintainer, Role::Admin];

    /// The lowercase name stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Reader => "reader",
            Role::Author => "author",
            Role::Maintainer => "maintainer",
            Role::Admin => "admin",
        }
    }

    /// The role a stored or typed name stands for.
    pub fn parse(text: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|role| role.as_str() == text)
    }
}

impl Role {
    /// The role a stored name stands for; a name this version does not know (written by a
    /// newer one) is read as the least role.
    pub(crate) fn stored(text: &str) -> Role {
        Role::parse(text).unwrap_or(Role::Reader)
    }
}

/// The columns of the `api_keys` table, in the order both backends read them.
pub(crate) const KEY_COLUMNS: &str = "id, name, role, sha256, created_at, expires_at, last_used_at, revoked_at, user_handle, namespaces, channel";

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A key as listed: everything but the key itself.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct KeyInfo {
    /// The name given at creation; revisions made with the key carry it as their author.
    pub name: String,
    /// The key's public part, `sp_<id>`, which tells keys with one name apart.
    pub prefix: String,
    /// What the key may do.
    pub role: Role,
    /// When it was made (RFC 3339, UTC).
    pub created_at: String,
    /// When it stops working, if ever.
    pub expires_at: Option<String>,
    /// When it was last used (to the minute: see [`super::USE_RECORD_INTERVAL_SECS`]).
    pub last_used_at: Option<String>,
    /// When it was revoked.
    pub revoked_at: Option<String>,
    /// The handle of the person it acts for: what revisions made with it record as their
    /// author, and whose namespaces it reaches.
    pub user: String,
    /// The namespaces (`@name`) it is narrowed to; `None`: every namespace of its user's.
    pub namespaces: Option<Vec<String>>,
    /// The channel its caller is served by default (`stable`, `beta`, `head`, …); `None`: the
    /// server's (`serve --channel`).
    pub channel: Option<String>,
}

impl KeyInfo {
    /// [`KeyInfo::namespaces`] as stored: the names separated by spaces, `NULL` for all.
    pub(crate) fn stored_namespaces(&self) -> Option<String> {
        self.namespaces.as_ref().map(|names| names.join(" "))
    }

    /// [`KeyInfo::namespaces`] from what was stored.
    pub(crate) fn namespaces_of(stored: Option<String>) -> Option<Vec<String>> {
        stored.map(|text| text.split_whitespace().map(str::to_owned).collect())
    }

    /// Whether the key's time is up at `now` (RFC 3339 text from [`crate::time`], which sorts
    /// as it reads).
    pub fn is_expired(&self, now: &str) -> bool {
        self.expires_at
            .as_deref()
            .is_some_and(|expires| expires <= now)
    }
}

/// A key as stored: its listing and the digest that checks it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredKey {
    /// The key's `id`, the part between `sp_` and the secret.
    pub id: String,
    /// The SHA-256 of the whole key, lowercase hex.
    pub sha256: String,
    /// Everything shown about it.
    pub info: KeyInfo,
}
