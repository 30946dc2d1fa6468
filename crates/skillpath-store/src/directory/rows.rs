//! The directory's tables as both backends keep them: one schema and one set of statements
//! (`$n` parameters, which SQLite binds by position as PostgreSQL does), run by each backend's
//! [`DirectoryTransaction`]; and [`apply`], a change made in one transaction.

use std::collections::BTreeMap;

use skillpath_model::governance::{Entry, GENESIS};
use skillpath_model::release::{Proposal, Release, Tag, Version, Yanked, without_build};
use skillpath_model::{Access, MemberRole, Namespace, Visibility};

use super::{
    Directory, Governance, LinkedIdentity, Member, NamespaceKind, NamespaceRecord, Row, User,
    decide,
};
use crate::columns::Columns;
use crate::error::{StoreError, StoreResult};
use crate::keys::Role;

/// The directory's tables, the same on both backends (SQLite reads `BOOLEAN` and `BIGINT` as
/// its integers), with the instance's `@global`. The `users` and `namespaces` names share one
/// space (a person's handle names their namespace), which [`super::decide`] keeps.
pub(crate) const SCHEMA: &str = "CREATE TABLE users (
        handle TEXT PRIMARY KEY,
        display_name TEXT NOT NULL,
        admin BOOLEAN NOT NULL,
        disabled BOOLEAN NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE TABLE namespaces (
        name TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        review BOOLEAN,
        frozen BOOLEAN NOT NULL,
        archived BOOLEAN NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE TABLE members (
        namespace TEXT NOT NULL REFERENCES namespaces(name),
        handle TEXT NOT NULL REFERENCES users(handle),
        role TEXT NOT NULL,
        PRIMARY KEY (namespace, handle)
    );
    CREATE TABLE stars (
        handle TEXT NOT NULL REFERENCES users(handle),
        item TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (handle, item)
    );
    CREATE TABLE governance_log (
        seq BIGINT PRIMARY KEY,
        at TEXT NOT NULL,
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        target TEXT NOT NULL,
        before TEXT,
        after TEXT,
        prev TEXT NOT NULL,
        digest TEXT NOT NULL
    );
    ALTER TABLE api_keys ADD COLUMN user_handle TEXT;
    ALTER TABLE api_keys ADD COLUMN namespaces TEXT;
    ALTER TABLE skills ADD COLUMN visibility TEXT NOT NULL DEFAULT 'namespace';
    ALTER TABLE skills ADD COLUMN owner TEXT;
    INSERT INTO namespaces (name, kind, review, frozen, archived, created_at)
        VALUES ('global', 'global', NULL, FALSE, FALSE, '1970-01-01T00:00:00Z');";

/// Releases and the tags set by hand (additive: an older skillpath serves current revisions,
/// as it did). A release is unique by its version without build metadata (`precedence`).
pub(crate) const RELEASES_SCHEMA: &str = "CREATE TABLE releases (
        item TEXT NOT NULL,
        version TEXT NOT NULL,
        precedence TEXT NOT NULL,
        revision BIGINT NOT NULL,
        notes TEXT NOT NULL,
        author TEXT NOT NULL,
        created_at TEXT NOT NULL,
        yank_reason TEXT,
        yanked_by TEXT,
        yanked_at TEXT,
        PRIMARY KEY (item, precedence)
    );
    CREATE TABLE release_tags (
        item TEXT NOT NULL,
        tag TEXT NOT NULL,
        version TEXT NOT NULL,
        set_by TEXT NOT NULL,
        set_at TEXT NOT NULL,
        PRIMARY KEY (item, tag)
    );";

/// Releases proposed by authors where their namespace reviews, waiting for a maintainer, and
/// the channel a key is served by default (both additive: an older skillpath knows neither,
/// serving each key its server's channel). A proposal's `tags` are separated by spaces.
pub(crate) const PROPOSALS_SCHEMA: &str = "CREATE TABLE release_proposals (
        item TEXT NOT NULL,
        version TEXT NOT NULL,
        precedence TEXT NOT NULL,
        revision BIGINT NOT NULL,
        notes TEXT NOT NULL,
        tags TEXT NOT NULL,
        author TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (item, precedence)
    );
    ALTER TABLE api_keys ADD COLUMN channel TEXT;";

/// The identity providers' accounts linked to people (additive: an older skillpath has no
/// sign-in with a provider, and ignores them).
pub(crate) const IDENTITIES_SCHEMA: &str = "CREATE TABLE user_identities (
        issuer TEXT NOT NULL,
        subject TEXT NOT NULL,
        handle TEXT NOT NULL REFERENCES users(handle),
        linked_at TEXT NOT NULL,
        PRIMARY KEY (issuer, subject)
    );";

pub(crate) const USERS: &str =
    "SELECT handle, display_name, admin, disabled, created_at FROM users";
pub(crate) const NAMESPACES: &str =
    "SELECT name, kind, review, frozen, archived, created_at FROM namespaces";
pub(crate) const MEMBERS: &str = "SELECT namespace, handle, role FROM members";
/// Who may see the items of the shared scope (a project's skills are its own).
pub(crate) const ACCESS: &str = "SELECT name, visibility, owner FROM skills WHERE project = ''";
pub(crate) const LOG: &str = "SELECT seq, at, actor, action, target, before, after, prev, digest FROM governance_log ORDER BY seq";
pub(crate) const LAST_ENTRY: &str =
    "SELECT seq, digest FROM governance_log ORDER BY seq DESC LIMIT 1";
pub(crate) const APPEND: &str =
    "INSERT INTO governance_log (seq, at, actor, action, target, before, after, prev, digest)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)";
pub(crate) const INSERT_USER: &str = "INSERT INTO users (handle, display_name, admin, disabled, created_at) VALUES ($1, $2, $3, $4, $5)";
pub(crate) const USER_DISABLED: &str = "UPDATE users SET disabled = $2 WHERE handle = $1";
pub(crate) const USER_ADMIN: &str = "UPDATE users SET admin = $2 WHERE handle = $1";
pub(crate) const IDENTITIES: &str =
    "SELECT issuer, subject, handle, linked_at FROM user_identities";
pub(crate) const INSERT_IDENTITY: &str =
    "INSERT INTO user_identities (issuer, subject, handle, linked_at) VALUES ($1, $2, $3, $4)";
pub(crate) const INSERT_NAMESPACE: &str = "INSERT INTO namespaces (name, kind, review, frozen, archived, created_at) VALUES ($1, $2, $3, $4, $5, $6)";
pub(crate) const UPDATE_NAMESPACE: &str =
    "UPDATE namespaces SET review = $2, frozen = $3, archived = $4 WHERE name = $1";
pub(crate) const DELETE_NAMESPACE: &str = "DELETE FROM namespaces WHERE name = $1";
pub(crate) const PUT_MEMBER: &str =
    "INSERT INTO members (namespace, handle, role) VALUES ($1, $2, $3)
     ON CONFLICT (namespace, handle) DO UPDATE SET role = excluded.role";
pub(crate) const DELETE_MEMBER: &str = "DELETE FROM members WHERE namespace = $1 AND handle = $2";
pub(crate) const VISIBILITY: &str =
    "UPDATE skills SET visibility = $2 WHERE name = $1 AND project = ''";
pub(crate) const STAR: &str = "INSERT INTO stars (handle, item, created_at) VALUES ($1, $2, $3)
     ON CONFLICT (handle, item) DO NOTHING";
pub(crate) const UNSTAR: &str = "DELETE FROM stars WHERE handle = $1 AND item = $2";
pub(crate) const STARS: &str = "SELECT handle, item, created_at FROM stars";
pub(crate) const RELEASES: &str = "SELECT item, version, revision, notes, author, created_at, yank_reason, yanked_by, yanked_at FROM releases";
pub(crate) const TAGS: &str = "SELECT item, tag, version, set_by, set_at FROM release_tags";
pub(crate) const INSERT_RELEASE: &str = "INSERT INTO releases (item, version, precedence, revision, notes, author, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)";
pub(crate) const YANK_RELEASE: &str = "UPDATE releases SET yank_reason = $3, yanked_by = $4, yanked_at = $5 WHERE item = $1 AND precedence = $2";
pub(crate) const PUT_TAG: &str =
    "INSERT INTO release_tags (item, tag, version, set_by, set_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (item, tag) DO UPDATE SET version = excluded.version, set_by = excluded.set_by, set_at = excluded.set_at";
pub(crate) const PROPOSALS: &str =
    "SELECT item, version, revision, notes, tags, author, created_at FROM release_proposals";
pub(crate) const INSERT_PROPOSAL: &str = "INSERT INTO release_proposals (item, version, precedence, revision, notes, tags, author, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";
pub(crate) const DELETE_PROPOSAL: &str =
    "DELETE FROM release_proposals WHERE item = $1 AND precedence = $2";
pub(crate) const DELETE_TAG: &str = "DELETE FROM release_tags WHERE item = $1 AND tag = $2";
/// The keys of a store made before people, for [`super::people_of_keys`].
pub(crate) const KEY_ROLES: &str = "SELECT name, role FROM api_keys";
pub(crate) const KEY_USER: &str = "UPDATE api_keys SET user_handle = $2 WHERE name = $1";
/// What places a store's items (those every project shares, made before namespaces) in a
/// namespace other than `@global` at its upgrade: each key that names an item gets the
/// namespace's prefix (`$1`, `@team/`), as [`skillpath_model::FullName::key`] keys it.
pub(crate) const PLACE_ITEMS: [&str; 5] = [
    "UPDATE skills SET name = $1 || name WHERE project = ''",
    "UPDATE package_members SET member = $1 || member WHERE project = ''",
    "UPDATE drafts SET name = $1 || name",
    "UPDATE drafts SET package = $1 || package WHERE package IS NOT NULL",
    "UPDATE skill_usage SET skill = $1 || skill",
];
/// What a backend does inside a change of the directory: every statement above, its own way.
pub(crate) trait DirectoryTransaction {
    /// Waits until no other transaction changes the directory, until this one ends.
    async fn lock(&mut self) -> StoreResult<()>;
    /// The directory as this transaction sees it.
    async fn read(&mut self) -> StoreResult<Directory>;
    /// Writes `row`.
    async fn write(&mut self, row: &Row) -> StoreResult<()>;
    /// The last entry's place and digest, if there is one.
    async fn last_entry(&mut self) -> StoreResult<Option<(u64, String)>>;
    /// Appends `entry`.
    async fn append(&mut self, entry: &Entry) -> StoreResult<()>;
}

/// Makes `change` by `actor` in `transaction` ([`super::decide`]) and appends its entry,
/// chained to the last.
pub(crate) async fn apply(
    transaction: &mut impl DirectoryTransaction,
    change: Governance,
    actor: &str,
) -> StoreResult<Entry> {
    transaction.lock().await?;
    let directory = transaction.read().await?;
    let decision = decide(&directory, change, actor)?;
    for row in &decision.rows {
        transaction.write(row).await?;
    }
    let (seq, prev) = match transaction.last_entry().await? {
        Some((seq, digest)) => (seq + 1, digest),
        None => (1, GENESIS.to_owned()),
    };
    let entry = Entry::chained(seq, decision.action, prev);
    transaction.append(&entry).await?;
    Ok(entry)
}

/// The values a backend binds for `row`'s statement, as text, flags and optional flags.
pub(crate) enum Bound<'a> {
    /// A text.
    Text(&'a str),
    /// An owned text.
    Owned(String),
    /// A flag.
    Flag(bool),
    /// A flag or `NULL`.
    MaybeFlag(Option<bool>),
    /// A whole number.
    Number(i64),
}

/// The statement that writes `row`, and its parameters in order.
pub(crate) fn statement(row: &Row) -> (&'static str, Vec<Bound<'_>>) {
    use Bound::{Flag, MaybeFlag, Number, Owned, Text};
    match row {
        Row::InsertUser(user) => (
            INSERT_USER,
            vec![
                Text(&user.handle),
                Text(&user.display_name),
                Flag(user.admin),
                Flag(user.disabled),
                Text(&user.created_at),
            ],
        ),
        Row::UserDisabled(handle, disabled) => (USER_DISABLED, vec![Text(handle), Flag(*disabled)]),
        Row::UserAdmin(handle, admin) => (USER_ADMIN, vec![Text(handle), Flag(*admin)]),
        Row::InsertIdentity(linked) => (
            INSERT_IDENTITY,
            vec![
                Text(&linked.issuer),
                Text(&linked.subject),
                Text(&linked.handle),
                Text(&linked.linked_at),
            ],
        ),
        Row::InsertNamespace(record) => (
            INSERT_NAMESPACE,
            vec![
                Text(record.name.as_str()),
                Text(record.kind.as_str()),
                MaybeFlag(record.review),
                Flag(record.frozen),
                Flag(record.archived),
                Text(&record.created_at),
            ],
        ),
        Row::UpdateNamespace(record) => (
            UPDATE_NAMESPACE,
            vec![
                Text(record.name.as_str()),
                MaybeFlag(record.review),
                Flag(record.frozen),
                Flag(record.archived),
            ],
        ),
        Row::DeleteNamespace(name) => (DELETE_NAMESPACE, vec![Text(name.as_str())]),
        Row::PutMember(member) => (
            PUT_MEMBER,
            vec![
                Text(member.namespace.as_str()),
                Text(&member.handle),
                Text(member.role.as_str()),
            ],
        ),
        Row::DeleteMember(namespace, handle) => {
            (DELETE_MEMBER, vec![Text(namespace.as_str()), Text(handle)])
        }
        Row::Visibility(key, visibility) => (
            VISIBILITY,
            vec![Text(key), Owned(visibility.as_str().to_owned())],
        ),
        Row::InsertRelease(release) => (
            INSERT_RELEASE,
            vec![
                Text(&release.item),
                Owned(release.version.to_string()),
                Owned(without_build(&release.version).to_string()),
                Number(i64::try_from(release.revision).unwrap_or(i64::MAX)),
                Text(&release.notes),
                Text(&release.author),
                Text(&release.created_at),
            ],
        ),
        Row::Yank {
            item,
            version,
            yanked,
        } => (
            YANK_RELEASE,
            vec![
                Text(item),
                Owned(without_build(version).to_string()),
                Text(&yanked.reason),
                Text(&yanked.by),
                Text(&yanked.at),
            ],
        ),
        Row::PutTag(tag) => (
            PUT_TAG,
            vec![
                Text(&tag.item),
                Text(&tag.name),
                Owned(tag.version.to_string()),
                Text(&tag.set_by),
                Text(&tag.set_at),
            ],
        ),
        Row::DeleteTag(item, tag) => (DELETE_TAG, vec![Text(item), Text(tag)]),
        Row::InsertProposal(proposal) => (
            INSERT_PROPOSAL,
            vec![
                Text(&proposal.item),
                Owned(proposal.version.to_string()),
                Owned(without_build(&proposal.version).to_string()),
                Number(i64::try_from(proposal.revision).unwrap_or(i64::MAX)),
                Text(&proposal.notes),
                Owned(proposal.tags.join(" ")),
                Text(&proposal.author),
                Text(&proposal.created_at),
            ],
        ),
        Row::DeleteProposal(item, version) => (
            DELETE_PROPOSAL,
            vec![Text(item), Owned(without_build(version).to_string())],
        ),
    }
}

/// A release from `SELECT` of [`RELEASES`].
pub(crate) fn release(row: &impl Columns) -> StoreResult<Release> {
    let yanked = match (
        row.optional_text(6)?,
        row.optional_text(7)?,
        row.optional_text(8)?,
    ) {
        (Some(reason), Some(by), Some(at)) => Some(Yanked { reason, by, at }),
        _ => None,
    };
    Ok(Release {
        item: row.text(0)?,
        version: stored_version(&row.text(1)?)?,
        revision: row.revision(2)?,
        notes: row.text(3)?,
        author: row.text(4)?,
        created_at: row.text(5)?,
        yanked,
    })
}

/// A proposal from `SELECT` of [`PROPOSALS`].
pub(crate) fn proposal(row: &impl Columns) -> StoreResult<Proposal> {
    Ok(Proposal {
        item: row.text(0)?,
        version: stored_version(&row.text(1)?)?,
        revision: row.revision(2)?,
        notes: row.text(3)?,
        tags: row.text(4)?.split_whitespace().map(str::to_owned).collect(),
        author: row.text(5)?,
        created_at: row.text(6)?,
    })
}

/// A tag from `SELECT` of [`TAGS`].
pub(crate) fn tag(row: &impl Columns) -> StoreResult<Tag> {
    Ok(Tag {
        item: row.text(0)?,
        name: row.text(1)?,
        version: stored_version(&row.text(2)?)?,
        set_by: row.text(3)?,
        set_at: row.text(4)?,
    })
}

fn stored_version(text: &str) -> StoreResult<Version> {
    Version::parse(text).map_err(|error| {
        StoreError::database(format!(
            "a stored release's version `{text}` is not semver: {error}"
        ))
    })
}

/// A person from `SELECT` of [`USERS`].
pub(crate) fn user(row: &impl Columns) -> StoreResult<User> {
    Ok(User {
        handle: row.text(0)?,
        display_name: row.text(1)?,
        admin: row.flag(2)?,
        disabled: row.flag(3)?,
        created_at: row.text(4)?,
    })
}

/// A linked identity from `SELECT` of [`IDENTITIES`].
pub(crate) fn identity(row: &impl Columns) -> StoreResult<LinkedIdentity> {
    Ok(LinkedIdentity {
        issuer: row.text(0)?,
        subject: row.text(1)?,
        handle: row.text(2)?,
        linked_at: row.text(3)?,
    })
}

/// A namespace from `SELECT` of [`NAMESPACES`].
pub(crate) fn namespace(row: &impl Columns) -> StoreResult<NamespaceRecord> {
    Ok(NamespaceRecord {
        name: stored_namespace(&row.text(0)?)?,
        kind: NamespaceKind::stored(&row.text(1)?),
        review: row.optional_flag(2)?,
        frozen: row.flag(3)?,
        archived: row.flag(4)?,
        created_at: row.text(5)?,
    })
}

/// A membership from `SELECT` of [`MEMBERS`]; a role this version does not know (written by a
/// newer one) is read as the least.
pub(crate) fn member(row: &impl Columns) -> StoreResult<Member> {
    Ok(Member {
        namespace: stored_namespace(&row.text(0)?)?,
        handle: row.text(1)?,
        role: MemberRole::parse(&row.text(2)?).unwrap_or(MemberRole::Reader),
    })
}

/// An item's key and access from `SELECT` of [`ACCESS`]; a visibility this version does not
/// know is read as the narrowest.
pub(crate) fn access(row: &impl Columns) -> StoreResult<(String, Access)> {
    Ok((
        row.text(0)?,
        Access {
            visibility: Visibility::parse(&row.text(1)?).unwrap_or(Visibility::Private),
            owner: row.optional_text(2)?,
        },
    ))
}

/// An entry from `SELECT` of [`LOG`].
pub(crate) fn entry(row: &impl Columns) -> StoreResult<Entry> {
    Ok(Entry {
        seq: row.revision(0)?,
        action: skillpath_model::governance::Action {
            at: row.text(1)?,
            actor: row.text(2)?,
            action: row.text(3)?,
            target: row.text(4)?,
            before: row.optional_text(5)?,
            after: row.optional_text(6)?,
        },
        prev: row.text(7)?,
        digest: row.text(8)?,
    })
}

/// A star from `SELECT` of [`STARS`].
pub(crate) fn star(row: &impl Columns) -> StoreResult<super::Star> {
    Ok(super::Star {
        handle: row.text(0)?,
        key: row.text(1)?,
        created_at: row.text(2)?,
    })
}

/// A key's name and role from `SELECT` of [`KEY_ROLES`].
pub(crate) fn key_role(row: &impl Columns) -> StoreResult<(String, Role)> {
    Ok((row.text(0)?, Role::stored(&row.text(1)?)))
}

/// The rows of the directory's tables, as a backend reads them.
pub(crate) struct Read {
    pub(crate) users: Vec<User>,
    pub(crate) namespaces: Vec<NamespaceRecord>,
    pub(crate) members: Vec<Member>,
    pub(crate) access: Vec<(String, Access)>,
    pub(crate) releases: Vec<Release>,
    pub(crate) tags: Vec<Tag>,
    pub(crate) proposals: Vec<Proposal>,
    pub(crate) identities: Vec<LinkedIdentity>,
}

/// The directory from its rows, each list sorted as [`Directory`] says.
pub(crate) fn directory(read: Read) -> Directory {
    let Read {
        mut users,
        mut namespaces,
        mut members,
        access,
        releases,
        tags,
        proposals,
        mut identities,
    } = read;
    identities.sort_by(|a, b| (&a.issuer, &a.subject).cmp(&(&b.issuer, &b.subject)));
    users.sort_by(|a, b| a.handle.cmp(&b.handle));
    namespaces.sort_by(|a, b| a.name.cmp(&b.name));
    members.sort_by(|a, b| (&a.namespace, &a.handle).cmp(&(&b.namespace, &b.handle)));
    let mut by_item: BTreeMap<String, Vec<Release>> = BTreeMap::new();
    for release in releases {
        by_item
            .entry(release.item.clone())
            .or_default()
            .push(release);
    }
    for releases in by_item.values_mut() {
        releases.sort_by(|a, b| a.version.cmp_precedence(&b.version));
    }
    let mut tags_by_item: BTreeMap<String, Vec<Tag>> = BTreeMap::new();
    for tag in tags {
        tags_by_item.entry(tag.item.clone()).or_default().push(tag);
    }
    for tags in tags_by_item.values_mut() {
        tags.sort_by(|a, b| a.name.cmp(&b.name));
    }
    let mut proposals_by_item: BTreeMap<String, Vec<Proposal>> = BTreeMap::new();
    for proposal in proposals {
        proposals_by_item
            .entry(proposal.item.clone())
            .or_default()
            .push(proposal);
    }
    for proposals in proposals_by_item.values_mut() {
        proposals.sort_by(|a, b| a.version.cmp_precedence(&b.version));
    }
    Directory {
        users,
        namespaces,
        members,
        access: access.into_iter().collect(),
        releases: by_item,
        tags: tags_by_item,
        proposals: proposals_by_item,
        identities,
    }
}

fn stored_namespace(text: &str) -> StoreResult<Namespace> {
    Namespace::parse(text).map_err(|error| {
        StoreError::database(format!("a stored namespace is not a handle: {error}"))
    })
}
