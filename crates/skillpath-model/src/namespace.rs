//! Who an item belongs to and who sees it: namespaces (`@team-a`, a person's own, the
//! instance's `@global`), an item's full name (`@ns/name`), its visibility, and the roles of a
//! namespace's members.

use std::fmt;

use skillpath_core::validate::{NotAHandle, check_handle};

/// The instance's own namespace, whose maintainers decide what enters it: where everything of a
/// store made before namespaces lives, and where the local user writes unless told otherwise.
pub const GLOBAL: &str = "global";

/// A namespace's name, without its `@`: a handle ([`check_handle`]). Written (in a lock, in
/// JSON) as people type it, `@name`, and read back by [`Namespace::parse`].
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(try_from = "String", into = "String")]
pub struct Namespace(String);

impl TryFrom<String> for Namespace {
    type Error = NotAHandle;

    fn try_from(text: String) -> Result<Namespace, NotAHandle> {
        Namespace::parse(&text)
    }
}

impl From<Namespace> for String {
    fn from(namespace: Namespace) -> String {
        namespace.to_string()
    }
}

impl Namespace {
    /// The namespace `text` names, with or without its `@` (`@team-a`, `team-a`).
    pub fn parse(text: &str) -> Result<Namespace, NotAHandle> {
        let name = text.strip_prefix('@').unwrap_or(text);
        check_handle(name)?;
        Ok(Namespace(name.to_owned()))
    }

    /// The instance's `@global`.
    pub fn global() -> Namespace {
        Namespace(GLOBAL.to_owned())
    }

    /// Its name, without the `@`.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether it is the instance's `@global`.
    pub fn is_global(&self) -> bool {
        self.0 == GLOBAL
    }
}

/// `@name`, as people type it.
impl fmt::Display for Namespace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@{}", self.0)
    }
}

/// An item's full name: its namespace and its name there (`@team-a/deploy`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FullName {
    /// Its namespace.
    pub namespace: Namespace,
    /// Its name, unique within the namespace.
    pub name: String,
}

/// Why a text is not an item's full name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotAFullName {
    /// `@ns/name` with a namespace that is no handle.
    #[error("`{text}` does not name an item: {source}")]
    Namespace {
        /// The text.
        text: String,
        /// Why its namespace is none.
        source: NotAHandle,
    },
    /// `@ns/` with no name, or a name with a `/` in it.
    #[error("`{0}` does not name an item: write `@namespace/name`, or a name alone for `@global`")]
    Shape(String),
}

impl FullName {
    /// The item `text` names: `@ns/name`, or a bare `name`, which is `@global`'s (the name
    /// rules of an item are its kind's, checked where it is written).
    pub fn parse(text: &str) -> Result<FullName, NotAFullName> {
        let shape = || NotAFullName::Shape(text.to_owned());
        let (namespace, name) = match text.strip_prefix('@') {
            Some(rest) => {
                let (namespace, name) = rest.split_once('/').ok_or_else(shape)?;
                let namespace =
                    Namespace::parse(namespace).map_err(|source| NotAFullName::Namespace {
                        text: text.to_owned(),
                        source,
                    })?;
                (namespace, name)
            }
            None => (Namespace::global(), text),
        };
        if name.is_empty() || name.contains('/') {
            return Err(shape());
        }
        Ok(FullName {
            namespace,
            name: name.to_owned(),
        })
    }
}

impl FullName {
    /// The item `name` of `namespace`.
    pub fn new(namespace: Namespace, name: impl Into<String>) -> FullName {
        FullName {
            namespace,
            name: name.into(),
        }
    }

    /// The key the store keeps the item under: its bare name in `@global` (so that a store
    /// made before namespaces keeps its names), `@ns/name` elsewhere.
    pub fn key(&self) -> String {
        if self.namespace.is_global() {
            self.name.clone()
        } else {
            self.to_string()
        }
    }

    /// The item a store key names ([`FullName::key`]); `None` for a text no key reads as.
    pub fn of_key(key: &str) -> Option<FullName> {
        FullName::parse(key).ok()
    }
}

/// The namespace of the item kept under the store key `key` ([`FullName::key`]): `@global` for
/// a bare name.
pub fn namespace_of_key(key: &str) -> Namespace {
    FullName::of_key(key).map_or_else(Namespace::global, |full| full.namespace)
}

/// The name, within its namespace, of the item kept under the store key `key`.
pub fn name_of_key(key: &str) -> &str {
    match key.strip_prefix('@') {
        Some(rest) => rest.split_once('/').map_or(key, |(_, name)| name),
        None => key,
    }
}

/// Where a new item goes: its namespace and its visibility there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// The namespace it joins.
    pub namespace: Namespace,
    /// Who sees it.
    pub visibility: Visibility,
}

impl Placement {
    /// `@global`, visible to its members: where an item goes when nothing is said.
    pub fn global() -> Placement {
        Placement {
            namespace: Namespace::global(),
            visibility: Visibility::default(),
        }
    }

    /// The namespace of the item kept under the store key `key`, visible to its members: where
    /// what belongs with that item goes (a package's new member, a published draft).
    pub fn beside(key: &str) -> Placement {
        Placement {
            namespace: namespace_of_key(key),
            visibility: Visibility::default(),
        }
    }

    /// The key of the item `name` placed here.
    pub fn key(&self, name: &str) -> String {
        FullName::new(self.namespace.clone(), name).key()
    }
}

/// What separates a namespace from a name in a registry's flat slug (`team--deploy`), as
/// SkillHub writes it; neither a handle nor a skill's name holds two hyphens in a row, so a
/// slug reads one way.
pub const SLUG_SEPARATOR: &str = "--";

/// Why a text is no slug of an item.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{0}` is not a skill's slug: a slug is lowercase letters, digits and single hyphens (`deploy`), `namespace--name` for a team's (`team--deploy`), at most 128 characters"
)]
pub struct NotASlug(pub String);

impl FullName {
    /// Its slug, as the `clawhub` CLI and SkillHub name skills: `name` for `@global`'s,
    /// `namespace--name` for any other's.
    pub fn slug(&self) -> String {
        if self.namespace.is_global() {
            self.name.clone()
        } else {
            format!("{}{SLUG_SEPARATOR}{}", self.namespace.as_str(), self.name)
        }
    }

    /// The item `slug` names ([`FullName::slug`]): refused unless it is lowercase ASCII
    /// letters, digits and hyphens with at most one `--`, each part a handle, so that a slug
    /// can never be a path.
    pub fn of_slug(slug: &str) -> Result<FullName, NotASlug> {
        let refused = || NotASlug(slug.to_owned());
        if slug.is_empty()
            || slug.len() > 128
            || !slug
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            return Err(refused());
        }
        let (namespace, name) = match slug.split_once(SLUG_SEPARATOR) {
            Some((namespace, name)) => (Namespace::parse(namespace).map_err(|_| refused())?, name),
            None => (Namespace::global(), slug),
        };
        check_handle(name).map_err(|_| refused())?;
        Ok(FullName::new(namespace, name))
    }
}

/// Who may see a stored item, besides its namespace's members: its visibility, and the person
/// who created it (who sees it while it is private; `None` for items made before people were).
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
pub struct Access {
    /// Its visibility.
    pub visibility: Visibility,
    /// Its author's handle.
    pub owner: Option<String>,
}

/// `@ns/name`.
impl fmt::Display for FullName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.namespace, self.name)
    }
}

/// Who sees an item.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// Its author and its namespace's maintainers and owners.
    Private,
    /// Every member of its namespace: what a new item is.
    #[default]
    Namespace,
    /// Every user of the instance, and anonymous readers where the server allows them.
    Public,
}

impl Visibility {
    /// Every visibility, narrowest first.
    pub const ALL: [Visibility; 3] = [
        Visibility::Private,
        Visibility::Namespace,
        Visibility::Public,
    ];

    /// The lowercase name stored and typed.
    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::Private => "private",
            Visibility::Namespace => "namespace",
            Visibility::Public => "public",
        }
    }

    /// The visibility `text` names (`None`: none does).
    pub fn parse(text: &str) -> Option<Visibility> {
        Visibility::ALL
            .into_iter()
            .find(|visibility| visibility.as_str() == text)
    }
}

impl fmt::Display for Visibility {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A member's role in a namespace, least first: readers read its items, authors write them
/// (as drafts where the namespace reviews), maintainers review and publish drafts, owners
/// manage members and settings.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum MemberRole {
    /// Reads the namespace's items.
    Reader,
    /// Writes them.
    Author,
    /// Reviews and publishes what authors write.
    Maintainer,
    /// Manages the members and the settings.
    Owner,
}

impl MemberRole {
    /// Every role, least first.
    pub const ALL: [MemberRole; 4] = [
        MemberRole::Reader,
        MemberRole::Author,
        MemberRole::Maintainer,
        MemberRole::Owner,
    ];

    /// The lowercase name stored and typed.
    pub fn as_str(self) -> &'static str {
        match self {
            MemberRole::Reader => "reader",
            MemberRole::Author => "author",
            MemberRole::Maintainer => "maintainer",
            MemberRole::Owner => "owner",
        }
    }

    /// The role `text` names (`None`: none does).
    pub fn parse(text: &str) -> Option<MemberRole> {
        MemberRole::ALL
            .into_iter()
            .find(|role| role.as_str() == text)
    }
}

impl fmt::Display for MemberRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespaces_are_handles_typed_with_or_without_their_at() {
        assert_eq!(
            Namespace::parse("@team-a").map(|n| n.to_string()),
            Ok("@team-a".to_owned())
        );
        assert_eq!(Namespace::parse("team-a"), Namespace::parse("@team-a"));
        assert!(Namespace::parse("@Team").is_err());
        assert!(Namespace::parse("@").is_err());
        assert!(Namespace::parse("@@a").is_err());
        assert!(Namespace::global().is_global());
    }

    #[test]
    fn full_names_are_a_namespace_and_a_name_and_a_bare_name_is_global() {
        let full = FullName::parse("@team-a/deploy").expect("a full name");
        assert_eq!(
            (full.namespace.as_str(), full.name.as_str()),
            ("team-a", "deploy")
        );
        assert_eq!(full.to_string(), "@team-a/deploy");
        let bare = FullName::parse("deploy").expect("a bare name");
        assert_eq!(bare.to_string(), "@global/deploy");
        for bad in ["@team-a", "@team-a/", "@team-a/x/y", "a/b", "@Team/x", ""] {
            assert!(FullName::parse(bad).is_err(), "{bad:?}");
        }
        let said = FullName::parse("@Team/x").expect_err("refused").to_string();
        assert!(said.contains("it has uppercase letters"), "{said}");
    }

    #[test]
    fn store_keys_are_bare_in_global_and_full_elsewhere() {
        let team = FullName::parse("@team-a/deploy").expect("a full name");
        assert_eq!(team.key(), "@team-a/deploy");
        assert_eq!(
            FullName::parse("@global/deploy").map(|f| f.key()),
            Ok("deploy".to_owned())
        );
        assert_eq!(namespace_of_key("@team-a/deploy").as_str(), "team-a");
        assert_eq!(namespace_of_key("deploy"), Namespace::global());
        assert_eq!(name_of_key("@team-a/deploy"), "deploy");
        assert_eq!(name_of_key("deploy"), "deploy");
        let placed = Placement {
            namespace: Namespace::parse("@ops").expect("a handle"),
            visibility: Visibility::Private,
        };
        assert_eq!(placed.key("x"), "@ops/x");
        assert_eq!(Placement::global().key("x"), "x");
    }

    #[test]
    fn visibilities_and_roles_read_back_what_they_write() {
        for visibility in Visibility::ALL {
            assert_eq!(Visibility::parse(visibility.as_str()), Some(visibility));
        }
        assert_eq!(Visibility::default(), Visibility::Namespace);
        assert_eq!(Visibility::parse("team"), None);
        for role in MemberRole::ALL {
            assert_eq!(MemberRole::parse(&role.to_string()), Some(role));
        }
        assert!(MemberRole::Reader < MemberRole::Author);
        assert!(MemberRole::Maintainer < MemberRole::Owner);
        assert_eq!(MemberRole::parse("admin"), None);
    }

    #[test]
    fn slugs_read_one_way() {
        for (slug, key) in [
            ("deploy", "deploy"),
            ("team-a--deploy", "@team-a/deploy"),
            ("a1--b-2", "@a1/b-2"),
        ] {
            let full = FullName::of_slug(slug).expect(slug);
            assert_eq!((full.key(), full.slug()), (key.to_owned(), slug.to_owned()));
        }
        for bad in [
            "", "Deploy", "../x", "a/b", "a--b--c", "--x", "x--", "a---b", "a b",
        ] {
            assert!(FullName::of_slug(bad).is_err(), "{bad}");
        }
    }
}
