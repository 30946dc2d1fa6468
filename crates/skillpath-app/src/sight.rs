//! What a caller may see, read and write, decided once from the caller and the directory: the
//! rules of namespaces and visibility that every surface (MCP, the studio, the command line)
//! asks, so that an item a caller may not see does not exist for them anywhere.
//!
//! - A person's **role** in a namespace is their membership's, capped by the role of the key
//!   they act through, and none outside the namespaces the key is narrowed to.
//! - They **read** an item when its namespace's role lets them: `private` items are their
//!   author's and the namespace's maintainers' and owners'; `namespace` items every member's;
//!   `public` items everyone's. An instance admin reads everything (within the key's namespaces).
//! - They **list** and find what they read, but the items of an archived namespace, which only
//!   its members still read by name.
//! - Their agents are **served** what they list of their own namespaces, and the public items
//!   they starred.
//!
//! The local user, the store's owner at the command line and a visitor where keys are optional
//! see everything ([`Sight::all`]), as before namespaces. A reader without a key on a server
//! that allows anonymous reading (`serve --public-read`) reads, finds and is served the public
//! items. A server narrowed to some namespaces (`serve --namespace`) serves, shows and takes
//! writes in those alone, whoever asks ([`Sight::within`]).

use std::collections::{BTreeMap, BTreeSet};

use skillpath_model::{MemberRole, Namespace, Visibility, namespace_of_key};
use skillpath_store::directory::{Directory, Star};
use skillpath_store::keys::Role;

use crate::caller::Caller;

/// What one caller may see ([`crate::App::sight`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Sight {
    person: Option<Person>,
    /// The namespaces the server is narrowed to; `None`: all.
    within: Option<BTreeSet<Namespace>>,
}

/// A person as the rules see them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Person {
    handle: String,
    /// An instance admin acting through an admin key.
    admin: bool,
    /// Their role in each namespace they may reach through the key.
    roles: BTreeMap<Namespace, MemberRole>,
    /// The namespaces the key is narrowed to; `None`: all.
    narrowed: Option<BTreeSet<Namespace>>,
    /// The items they starred.
    starred: BTreeSet<String>,
    /// Whether they are served everything they list (an anonymous reader of public items,
    /// who has no namespaces to be served).
    served_what_they_list: bool,
}

/// The most a key's role lets its user be in any namespace.
fn cap_of(role: Role) -> MemberRole {
    match role {
        Role::Reader => MemberRole::Reader,
        Role::Author => MemberRole::Author,
        Role::Maintainer => MemberRole::Maintainer,
        Role::Admin => MemberRole::Owner,
    }
}

impl Sight {
    /// Everything: the local user, the store's owner, a visitor where keys are optional.
    pub fn all() -> Sight {
        Sight {
            person: None,
            within: None,
        }
    }

    /// This sight, narrowed to `namespaces` (`None`: not narrowed).
    pub fn within(self, namespaces: Option<&[Namespace]>) -> Sight {
        Sight {
            within: namespaces.map(|names| names.iter().cloned().collect()),
            ..self
        }
    }

    /// Whether `namespace` is within the server's namespaces.
    fn inside(&self, namespace: &Namespace) -> bool {
        self.within
            .as_ref()
            .is_none_or(|within| within.contains(namespace))
    }

    /// What `caller` sees, by `directory` and `stars` (everyone's, or the caller's).
    pub fn of(caller: &Caller, directory: &Directory, stars: &[Star]) -> Sight {
        if caller.public_reader {
            return Sight {
                person: Some(Person {
                    handle: String::new(),
                    admin: false,
                    roles: BTreeMap::new(),
                    narrowed: None,
                    starred: BTreeSet::new(),
                    served_what_they_list: true,
                }),
                within: None,
            };
        }
        let Some(handle) = &caller.user else {
            return Sight::all();
        };
        let narrowed: Option<BTreeSet<Namespace>> = caller.namespaces.as_ref().map(|names| {
            names
                .iter()
                .filter_map(|name| Namespace::parse(name).ok())
                .collect()
        });
        let cap = cap_of(caller.role);
        let roles = directory
            .memberships(handle)
            .filter(|member| {
                narrowed
                    .as_ref()
                    .is_none_or(|allowed| allowed.contains(&member.namespace))
            })
            .map(|member| (member.namespace.clone(), member.role.min(cap)))
            .collect();
        let admin = caller.role == Role::Admin && directory.user(handle).is_some_and(|u| u.admin);
        let starred = stars
            .iter()
            .filter(|star| &star.handle == handle)
            .map(|star| star.key.clone())
            .collect();
        Sight {
            person: Some(Person {
                handle: handle.clone(),
                admin,
                roles,
                narrowed,
                starred,
                served_what_they_list: false,
            }),
            within: None,
        }
    }

    /// Whether this is everything ([`Sight::all`]).
    pub fn is_all(&self) -> bool {
        self.person.is_none() && self.within.is_none()
    }

    /// Whether the caller administers the instance (everything, for [`Sight::all`]).
    pub fn is_admin(&self) -> bool {
        self.person.as_ref().is_none_or(|person| person.admin)
    }

    /// The person's handle, if the caller is one.
    pub fn handle(&self) -> Option<&str> {
        self.person.as_ref().map(|person| person.handle.as_str())
    }

    /// The caller's role in `namespace`: an owner's for [`Sight::all`] and an admin (where
    /// the key reaches), their membership's (capped by the key) for a person.
    pub fn role_in(&self, namespace: &Namespace) -> Option<MemberRole> {
        if !self.inside(namespace) {
            return None;
        }
        let Some(person) = &self.person else {
            return Some(MemberRole::Owner);
        };
        let reached = person
            .narrowed
            .as_ref()
            .is_none_or(|allowed| allowed.contains(namespace));
        if person.admin && reached {
            return Some(MemberRole::Owner);
        }
        person.roles.get(namespace).copied()
    }

    /// The namespaces the caller is a member of (through the key), with their roles.
    pub fn memberships(&self) -> Vec<(Namespace, MemberRole)> {
        self.person.as_ref().map_or_else(Vec::new, |person| {
            person
                .roles
                .iter()
                .map(|(namespace, role)| (namespace.clone(), *role))
                .collect()
        })
    }

    /// Whether the caller starred the item kept under `key`.
    pub fn starred(&self, key: &str) -> bool {
        self.person
            .as_ref()
            .is_some_and(|person| person.starred.contains(key))
    }

    /// Whether the caller may read the item kept under `key`.
    pub fn reads(&self, key: &str, directory: &Directory) -> bool {
        self.reads_in(key, &namespace_of_key(key), directory)
    }

    /// [`Sight::reads`] of the item kept under `key` in `namespace` (its namespace, read from
    /// the key once by the caller).
    fn reads_in(&self, key: &str, namespace: &Namespace, directory: &Directory) -> bool {
        if !self.inside(namespace) {
            return false;
        }
        let Some(person) = &self.person else {
            return true;
        };
        let reached = person
            .narrowed
            .as_ref()
            .is_none_or(|allowed| allowed.contains(namespace));
        if !reached {
            return false;
        }
        if person.admin {
            return true;
        }
        let role = person.roles.get(namespace).copied();
        let access = directory.access(key);
        match access.visibility {
            Visibility::Public => true,
            Visibility::Namespace => role.is_some(),
            Visibility::Private => {
                access.owner.as_deref() == Some(person.handle.as_str())
                    || role.is_some_and(|role| role >= MemberRole::Maintainer)
            }
        }
    }

    /// Whether the item kept under `key` shows in the caller's listings and searches: read,
    /// and not in an archived namespace.
    pub fn lists(&self, key: &str, directory: &Directory) -> bool {
        self.lists_in(key, &namespace_of_key(key), directory)
    }

    /// [`Sight::lists`] of the item kept under `key` in `namespace`.
    fn lists_in(&self, key: &str, namespace: &Namespace, directory: &Directory) -> bool {
        let archived = directory
            .namespace(namespace)
            .is_some_and(|record| record.archived);
        self.reads_in(key, namespace, directory) && (self.person.is_none() || !archived)
    }

    /// Whether the caller's agents are served the item kept under `key`: listed, and of one of
    /// the caller's namespaces or starred.
    pub fn serves(&self, key: &str, directory: &Directory) -> bool {
        let namespace = namespace_of_key(key);
        let Some(person) = &self.person else {
            return self.lists_in(key, &namespace, directory);
        };
        self.lists_in(key, &namespace, directory)
            && (person.served_what_they_list
                || person.roles.contains_key(&namespace)
                || person.starred.contains(key))
    }
}

#[cfg(test)]
mod tests {
    use skillpath_model::Access;
    use skillpath_store::directory::Member;

    use super::*;

    fn ns(name: &str) -> Namespace {
        Namespace::parse(name).expect("a handle")
    }

    fn directory() -> Directory {
        let member = |namespace: &str, handle: &str, role| Member {
            namespace: ns(namespace),
            handle: handle.to_owned(),
            role,
        };
        let access = |visibility, owner: &str| Access {
            visibility,
            owner: Some(owner.to_owned()),
        };
        Directory {
            members: vec![
                member("team-a", "alice", MemberRole::Author),
                member("team-a", "maria", MemberRole::Maintainer),
            ],
            access: [
                ("@team-a/own", access(Visibility::Private, "alice")),
                ("@team-a/hers", access(Visibility::Private, "maria")),
                ("@team-a/shared", access(Visibility::Namespace, "maria")),
                ("@team-b/open", access(Visibility::Public, "bob")),
                ("@team-b/closed", access(Visibility::Namespace, "bob")),
            ]
            .into_iter()
            .map(|(key, access)| (key.to_owned(), access))
            .collect(),
            ..Directory::default()
        }
    }

    fn caller(handle: &str, role: Role, namespaces: Option<&[&str]>) -> Caller {
        let mut caller = Caller::anonymous();
        caller.user = Some(handle.to_owned());
        caller.role = role;
        caller.namespaces = namespaces.map(|names| names.iter().map(|n| n.to_string()).collect());
        caller
    }

    fn read_by(sight: &Sight, directory: &Directory) -> Vec<String> {
        directory
            .access
            .keys()
            .filter(|key| sight.reads(key, directory))
            .cloned()
            .collect()
    }

    #[test]
    fn each_visibility_reaches_whom_it_says() {
        let directory = directory();
        let alice = Sight::of(&caller("alice", Role::Author, None), &directory, &[]);
        assert_eq!(
            read_by(&alice, &directory),
            ["@team-a/own", "@team-a/shared", "@team-b/open"]
        );
        let maria = Sight::of(&caller("maria", Role::Maintainer, None), &directory, &[]);
        assert_eq!(
            read_by(&maria, &directory),
            [
                "@team-a/hers",
                "@team-a/own",
                "@team-a/shared",
                "@team-b/open"
            ]
        );
        // Maria's reader key makes her a reader: the private item she does not own is gone.
        let reading = Sight::of(&caller("maria", Role::Reader, None), &directory, &[]);
        assert_eq!(
            read_by(&reading, &directory),
            ["@team-a/hers", "@team-a/shared", "@team-b/open"]
        );
        assert!(Sight::all().reads("@team-b/closed", &directory));
    }

    #[test]
    fn a_narrowed_key_reaches_its_namespaces_only_and_stars_add_to_what_is_served() {
        let directory = directory();
        let narrowed = caller("alice", Role::Author, Some(&["@team-b"]));
        let sight = Sight::of(&narrowed, &directory, &[]);
        assert_eq!(read_by(&sight, &directory), ["@team-b/open"]);
        assert_eq!(sight.role_in(&ns("team-a")), None);
        let star = Star {
            handle: "alice".to_owned(),
            key: "@team-b/open".to_owned(),
            created_at: String::new(),
        };
        let alice = Sight::of(&caller("alice", Role::Author, None), &directory, &[]);
        assert!(!alice.serves("@team-b/open", &directory));
        assert!(alice.serves("@team-a/shared", &directory));
        let starring = Sight::of(&caller("alice", Role::Author, None), &directory, &[star]);
        assert!(starring.serves("@team-b/open", &directory));
    }
}
