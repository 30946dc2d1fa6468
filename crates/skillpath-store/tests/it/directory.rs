//! People, namespaces, members, visibility, stars and the governance log, on every backend.

use std::sync::Arc;

use skillpath_model::governance;
use skillpath_model::{MemberRole, Namespace, Placement, Provenance, Visibility};
use skillpath_store::directory::{Governance, LogFilter};
use skillpath_store::{ProjectView, Store, StoreError};

use crate::support::{Backend, by, current_names, search_names, skill};

fn ns(name: &str) -> Namespace {
    Namespace::parse(name).expect("a handle")
}

fn person(handle: &str) -> Governance {
    Governance::CreateUser {
        handle: handle.to_owned(),
        display_name: String::new(),
        admin: false,
    }
}

fn member(namespace: &str, handle: &str, role: MemberRole) -> Governance {
    Governance::AddMember {
        namespace: ns(namespace),
        handle: handle.to_owned(),
        role,
    }
}

/// The directory holds what each change made, each change is one entry of an unbroken chain,
/// and a refused change writes nothing, not even an entry.
pub(crate) async fn changes_of_the_directory_are_kept_and_logged(store: &dyn Store) {
    store.govern(person("alice"), "admin").await.expect("alice");
    store.govern(person("bob"), "admin").await.expect("bob");
    let team = Governance::CreateNamespace {
        name: ns("team-a"),
        owner: Some("alice".to_owned()),
    };
    store.govern(team, "admin").await.expect("team-a");
    let added = store
        .govern(member("team-a", "bob", MemberRole::Author), "alice")
        .await
        .expect("bob joins");
    assert_eq!(added.action.actor, "alice");
    assert_eq!(added.action.target, "@team-a:bob");
    assert_eq!(added.action.after.as_deref(), Some(r#"{"role":"author"}"#));

    let directory = store.directory().await.expect("the directory");
    assert_eq!(
        directory.role("bob", &ns("team-a")),
        Some(MemberRole::Author)
    );
    assert_eq!(
        directory.role("alice", &ns("team-a")),
        Some(MemberRole::Owner)
    );
    assert_eq!(
        directory.role("alice", &ns("alice")),
        Some(MemberRole::Owner)
    );
    assert!(directory.namespace(&Namespace::global()).is_some());

    let before = store
        .governance_log(LogFilter::default())
        .await
        .expect("the log");
    for refused in [
        member("team-a", "bob", MemberRole::Reader),
        Governance::RemoveMember {
            namespace: ns("team-a"),
            handle: "alice".to_owned(),
        },
        person("alice"),
        member("team-z", "bob", MemberRole::Reader),
    ] {
        let error = store.govern(refused, "admin").await.expect_err("refused");
        assert!(matches!(error, StoreError::Refused(_)), "{error}");
    }
    let after = store
        .governance_log(LogFilter::default())
        .await
        .expect("the log");
    assert_eq!(after, before, "a refused change is not logged");
    assert_eq!(governance::verify(&after), Ok(()));
    let seqs: Vec<u64> = after.iter().map(|entry| entry.seq).collect();
    assert_eq!(seqs, (1..=after.len() as u64).collect::<Vec<_>>());
    let about_team = LogFilter {
        namespace: Some(ns("team-a")),
        since: None,
    };
    let team_entries = store.governance_log(about_team).await.expect("filtered");
    assert_eq!(team_entries.len(), 2, "{team_entries:?}");
}

/// One name in several namespaces is several items, each with its own revisions, visibility
/// and owner; a namespace that holds items is not deleted.
pub(crate) async fn items_of_one_name_live_in_each_namespace(store: &dyn Store) {
    let team = Governance::CreateNamespace {
        name: ns("team-a"),
        owner: None,
    };
    store.govern(team, "admin").await.expect("team-a");
    let placed = Placement {
        namespace: ns("team-a"),
        visibility: Visibility::Private,
    };
    let theirs = store
        .create_in(
            placed,
            skill("deploy", "Use when deploying.", "Theirs."),
            Provenance::Api,
            by("alice", "add"),
        )
        .await
        .expect("in @team-a");
    assert_eq!(theirs.name, "@team-a/deploy");
    let ours = store
        .create(
            skill("deploy", "Use when deploying.", "Ours."),
            Provenance::Api,
            by("admin", "add"),
        )
        .await
        .expect("in @global");
    assert_eq!(ours.name, "deploy");
    let updated = store
        .update(
            "@team-a/deploy",
            1,
            skill("deploy", "Use when deploying.", "Theirs, again."),
            by("alice", "edit"),
        )
        .await
        .expect("updated");
    assert_eq!(updated.revision, 2);
    assert_eq!(store.history("deploy").await.expect("history").len(), 1);
    let directory = store.directory().await.expect("the directory");
    let access = directory.access("@team-a/deploy");
    assert_eq!(access.visibility, Visibility::Private);
    assert_eq!(access.owner.as_deref(), Some("alice"));
    assert_eq!(directory.access("deploy").visibility, Visibility::Namespace);
    let public = Governance::SetVisibility {
        key: "@team-a/deploy".to_owned(),
        visibility: Visibility::Public,
    };
    let entry = store.govern(public, "alice").await.expect("made public");
    assert_eq!(entry.action.target, "@team-a/deploy");
    let directory = store.directory().await.expect("the directory");
    assert_eq!(
        directory.access("@team-a/deploy").visibility,
        Visibility::Public
    );
    let refused = store
        .govern(Governance::DeleteNamespace(ns("team-a")), "admin")
        .await
        .expect_err("it holds an item");
    assert!(
        refused.to_string().contains("archive it instead"),
        "{refused}"
    );
}

/// Stars are a person's, one per item, counted once however often they are given.
pub(crate) async fn stars_are_kept_per_person_and_item(store: &dyn Store) {
    store.govern(person("carol"), "admin").await.expect("carol");
    assert!(
        !store
            .set_star("carol", "deploy", true)
            .await
            .expect("starred")
    );
    assert!(
        store
            .set_star("carol", "deploy", true)
            .await
            .expect("again")
    );
    let stars = store.stars(Some("carol")).await.expect("stars");
    assert_eq!(stars.len(), 1);
    assert_eq!(stars[0].key, "deploy");
    assert!(
        store
            .set_star("carol", "deploy", false)
            .await
            .expect("unstarred")
    );
    assert!(store.stars(None).await.expect("stars").is_empty());
}

/// Two servers on one database changing the directory at once: every change is kept, once,
/// and the log stays one unbroken chain.
pub(crate) async fn concurrent_changes_from_two_stores_keep_one_chain(backend: &Backend) {
    let first = backend.shared();
    let second: Arc<dyn Store> = backend.open_in(ProjectView::default()).await;
    first.govern(person("owner"), "admin").await.expect("owner");
    let team = Governance::CreateNamespace {
        name: ns("team-a"),
        owner: Some("owner".to_owned()),
    };
    first.govern(team, "admin").await.expect("team-a");
    let mut tasks = Vec::new();
    for index in 0..16 {
        let store = if index % 2 == 0 {
            Arc::clone(&first)
        } else {
            Arc::clone(&second)
        };
        tasks.push(tokio::spawn(async move {
            let handle = format!("person-{index}");
            store.govern(person(&handle), "admin").await?;
            store
                .govern(member("team-a", &handle, MemberRole::Reader), "owner")
                .await
        }));
    }
    for task in tasks {
        task.await.expect("joined").expect("governed");
    }
    let directory = second.directory().await.expect("the directory");
    assert_eq!(directory.members_of(&ns("team-a")).count(), 17);
    let log = first
        .governance_log(LogFilter::default())
        .await
        .expect("the log");
    assert_eq!(log.len(), 2 + 16 * 2);
    assert_eq!(governance::verify(&log), Ok(()));
}

/// A store made by the release before people (fixtures `made-before-people.*`: six items with a
/// package and its members and a deleted skill; keys `admin-ops` (admin), `ci` (a revoked reader
/// and an active author), `Alice_Writer` (author) and `maint` (maintainer)) keeps everything:
/// every item in `@global`, visible to its members, with its revisions; every key a person's,
/// who is a member of `@global` with the key's role (the highest of a name's keys); the log
/// empty and whole. And the new operations work on it.
pub(crate) async fn a_store_made_before_people_keeps_everything(store: &dyn Store) {
    let live = current_names(store).await;
    assert_eq!(
        live,
        [
            "add-caching",
            "add-endpoint",
            "add-entity",
            "add-repository",
            "dotnet-clean-architecture"
        ]
    );
    assert_eq!(
        store
            .history("write-release-notes")
            .await
            .expect("kept")
            .len(),
        2
    );
    let directory = store.directory().await.expect("the directory");
    assert_eq!(directory.access.len(), 6);
    for (key, access) in &directory.access {
        assert_eq!(access.visibility, Visibility::Namespace, "{key}");
        assert_eq!(access.owner, None, "{key}");
    }
    let handles: Vec<&str> = directory.users.iter().map(|u| u.handle.as_str()).collect();
    assert_eq!(handles, ["admin-ops", "alice-writer", "ci", "maint"]);
    let global = Namespace::global();
    let roles: Vec<(&str, Option<MemberRole>)> = handles
        .iter()
        .map(|handle| (*handle, directory.role(handle, &global)))
        .collect();
    assert_eq!(
        roles,
        [
            ("admin-ops", Some(MemberRole::Owner)),
            ("alice-writer", Some(MemberRole::Author)),
            ("ci", Some(MemberRole::Author)),
            ("maint", Some(MemberRole::Maintainer)),
        ]
    );
    assert!(directory.user("admin-ops").is_some_and(|user| user.admin));
    assert_eq!(
        directory
            .user("alice-writer")
            .map(|user| user.display_name.as_str()),
        Some("Alice_Writer")
    );
    assert_eq!(
        directory.role("alice-writer", &ns("alice-writer")),
        Some(MemberRole::Owner)
    );
    let keys = store.list_keys().await.expect("keys");
    assert_eq!(keys.len(), 5);
    for key in &keys {
        let expected = skillpath_store::directory::handle_of_key_name(&key.name);
        assert_eq!(key.user, expected, "{}", key.name);
        assert_eq!(key.namespaces, None);
    }
    let log = store
        .governance_log(LogFilter::default())
        .await
        .expect("the log");
    assert!(log.is_empty());
    // The package still holds its members, and the new operations work.
    let package = store
        .get("dotnet-clean-architecture", None)
        .await
        .expect("the package");
    assert!(package.snapshot.skill_md.contains("add-entity"));
    let team = Governance::CreateNamespace {
        name: ns("team-a"),
        owner: Some("alice-writer".to_owned()),
    };
    store.govern(team, "admin-ops").await.expect("a namespace");
    let placed = Placement {
        namespace: ns("team-a"),
        visibility: Visibility::Private,
    };
    let made = store
        .create_in(
            placed,
            skill("add-caching", "Use when caching.", "Ours."),
            Provenance::Api,
            by("alice-writer", "add"),
        )
        .await
        .expect("the name is free in @team-a");
    assert_eq!(made.name, "@team-a/add-caching");
    let log = store
        .governance_log(LogFilter::default())
        .await
        .expect("the log");
    assert_eq!(governance::verify(&log), Ok(()));
}

/// The same store upgraded with `--namespace @platform` ([`skillpath_store::Upgrade`]): every
/// item is `@platform`'s, under `@platform/<name>`, with its revisions, its package's members
/// and its place in search; the keys' people are members of `@platform` (a team's namespace)
/// with the keys' roles, and of nothing else but their own; `@global` holds nothing, so its
/// names are free again.
pub(crate) async fn a_store_upgraded_into_a_namespace_keeps_everything_there(store: &dyn Store) {
    let platform = ns("platform");
    let live = current_names(store).await;
    assert_eq!(
        live,
        [
            "@platform/add-caching",
            "@platform/add-endpoint",
            "@platform/add-entity",
            "@platform/add-repository",
            "@platform/dotnet-clean-architecture"
        ]
    );
    let history = store
        .history("@platform/write-release-notes")
        .await
        .expect("kept");
    assert_eq!(history.len(), 2);
    let directory = store.directory().await.expect("the directory");
    assert_eq!(directory.items_in(&platform), 6);
    assert_eq!(directory.items_in(&Namespace::global()), 0);
    let record = directory.namespace(&platform).expect("made");
    assert_eq!(record.kind.as_str(), "team");
    let roles: Vec<(&str, Option<MemberRole>, Option<MemberRole>)> = directory
        .users
        .iter()
        .map(|user| {
            (
                user.handle.as_str(),
                directory.role(&user.handle, &platform),
                directory.role(&user.handle, &Namespace::global()),
            )
        })
        .collect();
    assert_eq!(
        roles,
        [
            ("admin-ops", Some(MemberRole::Owner), None),
            ("alice-writer", Some(MemberRole::Author), None),
            ("ci", Some(MemberRole::Author), None),
            ("maint", Some(MemberRole::Maintainer), None),
        ]
    );
    let package = store
        .get("@platform/dotnet-clean-architecture", None)
        .await
        .expect("the package");
    assert!(package.snapshot.skill_md.contains("add-entity"));
    let found = search_names(store, "caching").await;
    assert!(
        found.contains(&"@platform/add-caching".to_owned()),
        "{found:?}"
    );
    // The name is free in `@global`.
    let made = store
        .create_in(
            Placement::global(),
            skill("add-caching", "Use when caching.", "Ours."),
            Provenance::Api,
            by("admin-ops", "add"),
        )
        .await
        .expect("the name is free in @global");
    assert_eq!(made.name, "add-caching");
}

/// An identity provider's account is linked to one person, once; a person is made an
/// administrator and unmade one; each is logged, and a refused link writes nothing.
pub(crate) async fn accounts_link_once_and_administrators_change(store: &dyn Store) {
    store.govern(person("alice"), "admin").await.expect("alice");
    store.govern(person("bob"), "admin").await.expect("bob");
    let link = |handle: &str| Governance::LinkIdentity {
        handle: handle.to_owned(),
        issuer: "https://id.example".to_owned(),
        subject: "a1b2".to_owned(),
    };
    let linked = store
        .govern(link("alice"), "oidc:company")
        .await
        .expect("linked");
    assert_eq!(linked.action.action, "user.link");
    assert_eq!(linked.action.actor, "oidc:company");
    let refused = store.govern(link("bob"), "oidc:company").await;
    assert!(
        matches!(&refused, Err(StoreError::Refused(why)) if why.contains("linked to `alice`")),
        "{refused:?}"
    );
    let missing = store
        .govern(
            Governance::LinkIdentity {
                handle: "carol".to_owned(),
                issuer: "https://id.example".to_owned(),
                subject: "c3".to_owned(),
            },
            "oidc:company",
        )
        .await;
    assert!(
        matches!(missing, Err(StoreError::Refused(_))),
        "{missing:?}"
    );
    let directory = store.directory().await.expect("the directory");
    assert_eq!(
        directory.person_of("https://id.example", "a1b2"),
        Some("alice")
    );
    assert_eq!(directory.person_of("https://id.example", "c3"), None);
    assert_eq!(directory.person_of("https://other.example", "a1b2"), None);
    assert_eq!(directory.identities.len(), 1);

    let admin = |admin: bool| Governance::SetAdmin {
        handle: "bob".to_owned(),
        admin,
    };
    let made = store
        .govern(admin(true), "oidc:company")
        .await
        .expect("admin");
    assert_eq!(made.action.action, "user.admin");
    assert_eq!(made.action.before.as_deref(), Some(r#"{"admin":false}"#));
    assert!(
        store
            .directory()
            .await
            .expect("read")
            .user("bob")
            .expect("bob")
            .admin
    );
    store
        .govern(admin(false), "oidc:company")
        .await
        .expect("unmade");
    assert!(
        !store
            .directory()
            .await
            .expect("read")
            .user("bob")
            .expect("bob")
            .admin
    );
    let log = store
        .governance_log(LogFilter::default())
        .await
        .expect("the log");
    let actions: Vec<&str> = log
        .iter()
        .map(|entry| entry.action.action.as_str())
        .collect();
    assert_eq!(
        actions,
        [
            "user.create",
            "user.create",
            "user.link",
            "user.admin",
            "user.admin"
        ]
    );
}
