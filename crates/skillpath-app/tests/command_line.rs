//! The application as the command line uses it: the store's owner ([`Caller::owner`]) through
//! one command's application ([`App::for_command`]), against a real SQLite store in a temporary
//! folder. What the CLI's store commands need beside the server's operations: a paged listing,
//! a diff, a restoration, the usage report and the messages `--message` gives.

use std::sync::Arc;

use skillpath_app::{
    App, AppError, AppOptions, Caller, ListFilter, Meaning, Operation, Provenance, Role,
    StoreError, UsageQuery, Written,
};
use skillpath_store::Store;
use skillpath_store::usage::{UsageCount, UsageKind, days_ago};

mod support;

use support::{change, key, permit, skill, store};

/// Stores `name` at revision 1 and, with `description`, its revision 2.
async fn stored(store: &dyn Store, name: &str, description: Option<&str>) {
    let first = skill(name, "Use when testing.");
    store
        .create(first, Provenance::Api, change("add"))
        .await
        .expect("create");
    if let Some(description) = description {
        store
            .update(name, 1, skill(name, description), change("edit"))
            .await
            .expect("update");
    }
}

/// The store's owner is an admin without a key, recorded as the name it is given; it sees
/// every author's drafts and, having no key, writes at once even where authors are reviewed.
#[tokio::test]
async fn the_owner_is_an_admin_whose_writes_are_never_drafted() {
    let owner = Caller::owner("ada".to_owned());
    assert_eq!(
        (owner.key.as_deref(), owner.role, owner.author()),
        (None, Role::Admin, "ada".to_owned())
    );
    assert!(owner.is_owner());
    assert!(!owner.drafts(true));
    assert_eq!(owner.drafts_seen(), skillpath_app::DraftsSeen::All);
    assert_eq!(Caller::local().author(), "mcp");
    assert!(!Caller::local().is_owner());
    assert_eq!(key("ci", Role::Admin).author(), "ci");
    assert!(!key("ci", Role::Admin).is_owner());

    let dir = tempfile::tempdir().expect("tempdir");
    let reviewing = AppOptions {
        review: true,
        ..AppOptions::default()
    };
    let app: App = App::for_command(store(&dir).await, reviewing);
    stored(app.store(), "greet", Some("Use when greeting someone.")).await;
    let written = app
        .rollback(
            &permit(&app, &owner, Operation::RollbackSkill),
            "greet",
            1,
            2,
            None,
        )
        .await
        .expect("rollback");
    assert!(matches!(written, Written::Stored(ref s) if s.revision == 3));
}

/// The owner's rollback, deletion, restoration and fork record the owner's name and the
/// message the command gives; without one, each records what the server's would.
#[tokio::test]
async fn the_owners_writes_record_its_name_and_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    let app: App = App::for_command(store(&dir).await, AppOptions::default());
    stored(app.store(), "greet", Some("Use when greeting someone.")).await;
    let owner = Caller::owner("ada".to_owned());

    let rolling = permit(&app, &owner, Operation::RollbackSkill);
    let message = Some("the edit was wrong".to_owned());
    app.rollback(&rolling, "greet", 1, 2, message)
        .await
        .expect("rollback");
    let deleting = permit(&app, &owner, Operation::DeleteSkill);
    app.delete(&deleting, "greet", 3, None)
        .await
        .expect("delete");
    let restoring = permit(&app, &owner, Operation::RestoreSkill);
    let restored = app
        .restore(&restoring, "greet", 4, Some("needed again".to_owned()))
        .await
        .expect("restore");
    assert!(!restored.deleted);
    let forking = permit(&app, &owner, Operation::ForkSkill);
    let request = skillpath_app::ForkRequest {
        from: "greet".to_owned(),
        revision: None,
        name: "greet-warmly".to_owned(),
        member_prefix: None,
        into: None,
    };
    let forks = app.fork(&forking, request, None).await.expect("fork");
    assert_eq!(forks.len(), 1);

    let reading = permit(&app, &owner, Operation::SkillHistory);
    let history = app.history(&reading, "greet").await.expect("history");
    let recorded: Vec<(&str, &str)> = history[2..]
        .iter()
        .map(|r| (r.author.as_str(), r.message.as_str()))
        .collect();
    assert_eq!(
        recorded,
        [
            ("ada", "the edit was wrong"),
            ("ada", "delete greet"),
            ("ada", "needed again"),
        ]
    );
    let fork = app
        .history(&reading, "greet-warmly")
        .await
        .expect("history");
    assert_eq!(
        (fork[0].author.as_str(), fork[0].message.as_str()),
        ("ada", "fork greet as greet-warmly")
    );
}

/// A restoration writes: refused to a reader's key, and by a read-only application to anyone,
/// the owner too; on a reviewing server an author's key may not restore (no draft holds it).
#[tokio::test]
async fn a_restoration_is_refused_to_readers_and_read_only_servers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = store(&dir).await;
    let app: App = App::for_command(Arc::clone(&store), AppOptions::default());
    stored(app.store(), "greet", None).await;
    let refused = app
        .may(&key("r", Role::Reader), Operation::RestoreSkill)
        .expect_err("refused");
    assert_eq!(
        refused.to_string(),
        "`restore_skill` needs an API key with the `author` role; the key `r` is a `reader`"
    );
    // A reader's permit to read lets through no restoration either.
    let reading = permit(&app, &key("r", Role::Reader), Operation::GetSkill);
    let refused = app
        .restore(&reading, "greet", 1, None)
        .await
        .expect_err("refused");
    assert!(matches!(
        refused,
        AppError::Forbidden {
            operation: Operation::RestoreSkill,
            ..
        }
    ));

    let read_only = AppOptions {
        read_only: true,
        ..AppOptions::default()
    };
    let frozen: App = App::for_command(Arc::clone(&store), read_only);
    let refused = frozen
        .may(&Caller::owner("ada".to_owned()), Operation::RestoreSkill)
        .expect_err("refused");
    assert!(matches!(
        refused,
        AppError::ReadOnly(Operation::RestoreSkill)
    ));
    assert_eq!(
        refused.to_string(),
        "`restore_skill` writes, and this server is read-only"
    );

    let reviewing = AppOptions {
        review: true,
        ..AppOptions::default()
    };
    let reviewed: App = App::for_command(store, reviewing);
    let author = key("alice", Role::Author);
    let refused = reviewed
        .restore(
            &permit(&reviewed, &author, Operation::RestoreSkill),
            "greet",
            1,
            None,
        )
        .await
        .expect_err("refused");
    assert_eq!(
        refused.to_string(),
        "this server reviews what authors write, and a restoration cannot wait for review: ask a maintainer to restore `greet`"
    );
}

/// One command's application never loads the catalog, not when it is made nor after a write;
/// its searches rank by the store's words. A search without a model is made alike.
#[tokio::test]
async fn a_commands_application_never_loads_the_catalog() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = store(&dir).await;
    stored(store.as_ref(), "greet", Some("Use when greeting someone.")).await;
    stored(store.as_ref(), "part", None).await;
    let app: App = App::for_command(Arc::clone(&store), AppOptions::default());
    assert!(app.catalog().is_empty());

    let owner = Caller::owner("ada".to_owned());
    app.delete(
        &permit(&app, &owner, Operation::DeleteSkill),
        "part",
        1,
        None,
    )
    .await
    .expect("delete");
    assert!(!app.reload(false).await.expect("reload"));
    assert!(app.catalog().is_empty());

    let hits = app
        .search(
            &permit(&app, &owner, Operation::SearchSkills),
            "greeting",
            10,
        )
        .await
        .expect("search");
    assert_eq!(
        hits.iter().map(|h| h.name.as_str()).collect::<Vec<_>>(),
        ["greet"]
    );

    let searching: App = App::for_search(store, &Meaning::default(), AppOptions::default())
        .await
        .expect("the application");
    assert!(searching.catalog().is_empty());
}

/// The listing goes a page at a time with its cursor; a diff goes to the current revision
/// unless told; both are the reader's, like the skills they show.
#[tokio::test]
async fn listings_and_diffs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let app: App = App::for_command(store(&dir).await, AppOptions::default());
    stored(app.store(), "alpha", Some("Use when starting.")).await;
    stored(app.store(), "beta", None).await;
    stored(app.store(), "gamma", None).await;
    let reader = key("r", Role::Reader);

    let listing = permit(&app, &reader, Operation::ListSkills);
    let first = app
        .list(&listing, ListFilter::default(), None, 2)
        .await
        .expect("list");
    assert_eq!(
        first
            .items
            .iter()
            .map(|i| i.name.as_str())
            .collect::<Vec<_>>(),
        ["alpha", "beta"]
    );
    let next = app
        .list(&listing, ListFilter::default(), first.next_cursor, 2)
        .await
        .expect("list");
    assert_eq!(
        next.items
            .iter()
            .map(|i| i.name.as_str())
            .collect::<Vec<_>>(),
        ["gamma"]
    );
    assert_eq!(next.next_cursor, None);

    let reading = permit(&app, &reader, Operation::GetSkill);
    let (to, diff) = app.diff(&reading, "alpha", 1, None).await.expect("diff");
    assert_eq!(to, 2);
    assert!(diff.contains("+description: Use when starting."), "{diff}");
    let (to, diff) = app.diff(&reading, "alpha", 1, Some(1)).await.expect("diff");
    assert_eq!((to, diff.as_str()), (1, ""));
    let missing = app
        .diff(&reading, "nothing", 1, None)
        .await
        .expect_err("not found");
    assert!(matches!(
        missing,
        AppError::Store(StoreError::NotFound { .. })
    ));
}

/// The usage report is an admin's (it names the keys that used each skill): the owner reads
/// the counts and the items nobody used lately; a maintainer's key may not.
#[tokio::test]
async fn the_usage_report_is_an_admins() {
    let dir = tempfile::tempdir().expect("tempdir");
    let app: App = App::for_command(store(&dir).await, AppOptions::default());
    stored(app.store(), "greet", None).await;
    stored(app.store(), "idle", None).await;
    let today = days_ago(0);
    app.store()
        .record_usage(vec![UsageCount {
            skill: "greet".to_owned(),
            revision: 1,
            day: today.clone(),
            key: "ci".to_owned(),
            kind: UsageKind::Call,
            count: 3,
            last_used: format!("{today}T12:00:00Z"),
        }])
        .await
        .expect("record");

    let refused = app
        .may(&key("m", Role::Maintainer), Operation::ReadUsage)
        .expect_err("refused");
    assert!(matches!(refused, AppError::Forbidden { .. }));

    let owner = Caller::owner("ada".to_owned());
    let reading = permit(&app, &owner, Operation::ReadUsage);
    let rows = app
        .usage(&reading, UsageQuery::default())
        .await
        .expect("usage");
    assert_eq!(
        rows.iter()
            .map(|r| (r.skill.as_str(), r.calls))
            .collect::<Vec<_>>(),
        [("greet", 3)]
    );
    let unused = app.unused(&reading, today).await.expect("unused");
    assert_eq!(
        unused
            .iter()
            .map(|u| (u.name.as_str(), u.last_used.as_deref()))
            .collect::<Vec<_>>(),
        [("idle", None)]
    );
}

/// The owner reads which author's draft was not found, as the command line always said; a
/// maintainer's key reads it said alike for every author.
#[tokio::test]
async fn the_owner_reads_whose_draft_is_missing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let app: App = App::for_command(store(&dir).await, AppOptions::default());
    stored(app.store(), "greet", None).await;
    let owner = Caller::owner("ada".to_owned());
    let missing = app
        .draft_diff(
            &permit(&app, &owner, Operation::GetSkill),
            "greet",
            Some("bob"),
        )
        .await
        .expect_err("no draft");
    assert_eq!(missing.to_string(), "no draft of `greet` by `bob`");
    let maintainer = key("m", Role::Maintainer);
    let missing = app
        .draft_diff(
            &permit(&app, &maintainer, Operation::GetSkill),
            "greet",
            Some("bob"),
        )
        .await
        .expect_err("no draft");
    assert_eq!(missing.to_string(), "no draft of `greet`");
}
