//! Namespaces, visibility, stars and the governance log through the application, against a real
//! SQLite store: each caller sees, finds and writes exactly what the rules say, and every change
//! is logged in an unbroken chain.

use skillpath_app::{
    App, AppError, AppOptions, Caller, Meaning, MemberRole, Namespace, Operation, Placement,
    Provenance, Role, StoreError, View, Visibility,
};
use skillpath_store::directory::{Governance, LogFilter};

mod support;

use support::{change, key, permit, skill, store};

fn ns(name: &str) -> Namespace {
    Namespace::parse(name).expect("a handle")
}

/// The owner at the command line, who makes the directory.
fn owner() -> Caller {
    Caller::owner("admin".to_owned())
}

async fn govern(app: &App, change: Governance) {
    app.govern(&permit(app, &owner(), Operation::Govern), change)
        .await
        .expect("governed");
}

/// Two teams: alice (author) and maria (maintainer) in `@team-a`, bob (author) in `@team-b`,
/// carol in none; items of each visibility in each team, and one of `@global`.
async fn teams(dir: &tempfile::TempDir) -> App {
    let app = App::new(
        store(dir).await,
        &Meaning::default(),
        AppOptions::default(),
        Box::new(|| ()),
    )
    .await
    .expect("the application");
    for person in ["maria", "carol"] {
        let change = Governance::CreateUser {
            handle: person.to_owned(),
            display_name: String::new(),
            admin: false,
        };
        govern(&app, change).await;
    }
    for (team, members) in [
        (
            "team-a",
            &[
                ("alice", MemberRole::Author),
                ("maria", MemberRole::Maintainer),
            ][..],
        ),
        ("team-b", &[("bob", MemberRole::Author)][..]),
    ] {
        let change = Governance::CreateNamespace {
            name: ns(team),
            owner: None,
        };
        govern(&app, change).await;
        for (handle, role) in members {
            let change = Governance::AddMember {
                namespace: ns(team),
                handle: (*handle).to_owned(),
                role: *role,
            };
            govern(&app, change).await;
        }
    }
    for (team, name, visibility, by) in [
        ("team-a", "a-private", Visibility::Private, "alice"),
        ("team-a", "a-shared", Visibility::Namespace, "alice"),
        ("team-a", "a-public", Visibility::Public, "maria"),
        ("team-b", "b-shared", Visibility::Namespace, "bob"),
        ("team-b", "b-public", Visibility::Public, "bob"),
    ] {
        let placement = Placement {
            namespace: ns(team),
            visibility,
        };
        let mut made = change("add");
        made.author = by.to_owned();
        app.store()
            .create_in(
                placement,
                skill(name, "Use when deploying services."),
                Provenance::Api,
                made,
            )
            .await
            .expect("created");
    }
    app.store()
        .create(
            skill("g-item", "Use when deploying services."),
            Provenance::Api,
            change("add"),
        )
        .await
        .expect("created");
    app.refresh().await.expect("refresh");
    app
}

fn names(catalog: &skillpath_app::Catalog) -> Vec<String> {
    catalog.skills().map(|skill| skill.name.clone()).collect()
}

async fn found(app: &App, caller: &Caller) -> Vec<String> {
    let searching = permit(app, caller, Operation::SearchSkills);
    let mut hits: Vec<String> = app
        .search(&searching, "deploying services", 50)
        .await
        .expect("searched")
        .into_iter()
        .map(|hit| hit.name)
        .collect();
    hits.sort();
    hits
}

#[tokio::test]
async fn each_caller_sees_exactly_what_visibility_allows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let app = teams(&dir).await;
    let alice = key("alice", Role::Author);
    let maria = key("maria", Role::Maintainer);
    let bob = key("bob", Role::Author);
    let carol = key("carol", Role::Reader);

    // Served: their namespaces' items they read (and `@global`'s, where alice and bob are
    // members).
    assert_eq!(
        names(&app.catalog_for(&alice)),
        [
            "@team-a/a-private",
            "@team-a/a-public",
            "@team-a/a-shared",
            "g-item"
        ]
    );
    assert_eq!(
        names(&app.catalog_for(&maria)),
        ["@team-a/a-private", "@team-a/a-public", "@team-a/a-shared"]
    );
    assert_eq!(
        names(&app.catalog_for(&bob)),
        ["@team-b/b-public", "@team-b/b-shared", "g-item"]
    );
    assert!(names(&app.catalog_for(&carol)).is_empty());
    // Found: everything they read, public items of other teams too.
    assert_eq!(
        found(&app, &bob).await,
        [
            "@team-a/a-public",
            "@team-b/b-public",
            "@team-b/b-shared",
            "g-item"
        ]
    );
    assert_eq!(
        found(&app, &carol).await,
        ["@team-a/a-public", "@team-b/b-public"]
    );
    assert_eq!(
        names(&app.view_for(&carol, View::Listed)),
        ["@team-a/a-public", "@team-b/b-public"]
    );
    // The owner and the local user see everything.
    assert_eq!(names(&app.catalog_for(&Caller::local())).len(), 6);
    // A hidden item answers exactly as a missing one.
    let reading = permit(&app, &bob, Operation::SkillHistory);
    let hidden = app
        .history(&reading, "@team-a/a-shared")
        .await
        .expect_err("hidden");
    let missing = app
        .history(&reading, "@team-a/nothing")
        .await
        .expect_err("missing");
    assert!(matches!(
        hidden,
        AppError::Store(StoreError::NotFound { .. })
    ));
    assert_eq!(
        hidden.to_string().replace("a-shared", "X"),
        missing.to_string().replace("nothing", "X")
    );
    // Names repeat across namespaces, and each tool is named as its namespace names it.
    let alices = app.catalog_for(&alice);
    assert!(
        alices
            .tool("a-shared")
            .is_some_and(|s| s.name == "@team-a/a-shared")
    );

    // A star serves a public item of another team; a private one cannot be starred by one
    // who cannot read it.
    let starring = permit(&app, &carol, Operation::StarSkill);
    app.star(&starring, None, "@team-b/b-public", true)
        .await
        .expect("starred");
    assert_eq!(names(&app.catalog_for(&carol)), ["@team-b/b-public"]);
    let refused = app
        .star(&starring, None, "@team-a/a-private", true)
        .await
        .expect_err("hidden");
    assert!(matches!(
        refused,
        AppError::Store(StoreError::NotFound { .. })
    ));

    // Stars break ties in search: of two public items found alike, the starred one first.
    let bob_starring = permit(&app, &bob, Operation::StarSkill);
    app.star(&bob_starring, None, "@team-b/b-public", true)
        .await
        .expect("starred");
    let first_two: Vec<String> = app
        .search(
            &permit(&app, &carol, Operation::SearchSkills),
            "deploying services",
            2,
        )
        .await
        .expect("searched")
        .into_iter()
        .map(|hit| hit.name)
        .collect();
    assert_eq!(first_two, ["@team-b/b-public", "@team-a/a-public"]);
    assert_eq!(app.catalog().stars_of("@team-b/b-public"), 2);

    // Visibility changed: the item leaves and enters views at once.
    let changing = permit(&app, &maria, Operation::Govern);
    app.set_visibility(&changing, "@team-a/a-shared", Visibility::Public)
        .await
        .expect("made public");
    assert!(
        found(&app, &carol)
            .await
            .contains(&"@team-a/a-shared".to_owned())
    );
    // Bob reads team-a's public item, but changing who sees it is its team's.
    let not_his = permit(&app, &bob, Operation::Govern);
    let refused = app
        .set_visibility(&not_his, "@team-a/a-public", Visibility::Private)
        .await;
    assert!(
        matches!(refused, Err(AppError::NotInNamespace { .. })),
        "{refused:?}"
    );
    // His own item in his team is his to change.
    app.set_visibility(&not_his, "@team-b/b-shared", Visibility::Private)
        .await
        .expect("his own");
}

#[tokio::test]
async fn writes_follow_the_namespace_and_every_change_is_logged() {
    let dir = tempfile::tempdir().expect("tempdir");
    let app = teams(&dir).await;
    let alice = key("alice", Role::Author);
    let bob = key("bob", Role::Author);
    let writing = |caller: &Caller| permit(&app, caller, Operation::DeleteSkill);
    // Bob cannot see team-a's shared item: deleting it is deleting nothing.
    let hidden = app
        .delete(&writing(&bob), "@team-a/a-shared", 1, None)
        .await
        .expect_err("hidden");
    assert!(matches!(
        hidden,
        AppError::Store(StoreError::NotFound { .. })
    ));
    // He reads team-a's public item, but writing there needs a role there.
    let refused = app
        .delete(&writing(&bob), "@team-a/a-public", 1, None)
        .await
        .expect_err("not a member");
    assert!(
        matches!(refused, AppError::NotInNamespace { ref namespace, .. } if namespace == "@team-a"),
        "{refused}"
    );
    // A frozen namespace takes no writes, from anyone.
    govern(&app, Governance::SetFrozen(ns("team-a"), true)).await;
    let frozen = app
        .delete(&writing(&alice), "@team-a/a-shared", 1, None)
        .await
        .expect_err("frozen");
    assert!(
        frozen.to_string().contains("namespaces thaw @team-a"),
        "{frozen}"
    );
    govern(&app, Governance::SetFrozen(ns("team-a"), false)).await;
    let deleted = app
        .delete(&writing(&alice), "@team-a/a-shared", 1, None)
        .await
        .expect("deleted");
    assert!(deleted.deleted);
    // A namespace that reviews makes an author's writes drafts, its maintainers' not.
    govern(&app, Governance::SetReview(ns("team-a"), Some(true))).await;
    assert!(
        app.write_gate(&alice, &ns("team-a"))
            .await
            .expect("a member")
    );
    let maria = key("maria", Role::Maintainer);
    assert!(
        !app.write_gate(&maria, &ns("team-a"))
            .await
            .expect("a member")
    );

    let log = app
        .governance_log(
            &permit(&app, &owner(), Operation::ReadLog),
            LogFilter::default(),
        )
        .await
        .expect("the log");
    let actions: Vec<&str> = log
        .iter()
        .map(|entry| entry.action.action.as_str())
        .collect();
    for expected in [
        "user.create",
        "namespace.create",
        "member.add",
        "namespace.freeze",
        "namespace.thaw",
        "item.delete",
        "namespace.review",
    ] {
        assert!(actions.contains(&expected), "{expected} in {actions:?}");
    }
    let deletion = log
        .iter()
        .find(|entry| entry.action.action == "item.delete")
        .expect("logged");
    assert_eq!(
        (
            deletion.action.actor.as_str(),
            deletion.action.target.as_str()
        ),
        ("alice", "@team-a/a-shared")
    );
    let verified = app
        .verify_log(&permit(&app, &owner(), Operation::ReadLog))
        .await
        .expect("verified");
    assert_eq!(verified, Ok(log.len()));
    // An owner reads their namespace's entries only; a member no entry.
    let only_a = LogFilter {
        namespace: Some(ns("team-a")),
        ..LogFilter::default()
    };
    let refused = app
        .governance_log(&permit(&app, &alice, Operation::ReadLog), only_a)
        .await;
    assert!(refused.is_err(), "alice is no owner of @team-a");
}

#[tokio::test]
async fn disabled_people_and_departed_members_lose_access() {
    let dir = tempfile::tempdir().expect("tempdir");
    let app = teams(&dir).await;
    let owning = permit(&app, &owner(), Operation::CreateApiKey);
    let request = skillpath_app::KeyRequest {
        user: Some("alice".to_owned()),
        role: Some(Role::Author),
        namespaces: vec![ns("team-a")],
        lifetime_secs: None,
        channel: None,
    };
    let created = app
        .create_user_key(&owning, "alice-ci", request)
        .await
        .expect("a key");
    let caller = app.authenticate(&created.key).await.expect("accepted");
    assert_eq!(caller.author(), "alice");
    // Narrowed to @team-a: `@global`'s item is not served.
    assert_eq!(
        names(&app.catalog_for(&caller)),
        ["@team-a/a-private", "@team-a/a-public", "@team-a/a-shared"]
    );
    // A key cannot be narrowed to a namespace its person is no member of.
    let elsewhere = skillpath_app::KeyRequest {
        user: Some("alice".to_owned()),
        namespaces: vec![ns("team-b")],
        ..Default::default()
    };
    assert!(
        app.create_user_key(&owning, "alice-b", elsewhere)
            .await
            .is_err()
    );
    // Alice leaves @team-a: her narrowed key reaches nothing any more.
    let leave = Governance::RemoveMember {
        namespace: ns("team-a"),
        handle: "alice".to_owned(),
    };
    govern(&app, leave).await;
    assert!(names(&app.catalog_for(&caller)).is_empty());
    // Disabled: her keys stop working at once.
    let disable = Governance::SetDisabled {
        handle: "alice".to_owned(),
        disabled: true,
    };
    govern(&app, disable).await;
    let refused = app.authenticate(&created.key).await.expect_err("disabled");
    assert!(refused.to_string().contains("disabled"), "{refused}");
}
