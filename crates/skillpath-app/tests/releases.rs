//! Releases through the application, against a real SQLite store: who may release, yank and
//! tag (a namespace's maintainers), and who proposes (an author where the namespace reviews);
//! a hidden item's releases answered as a missing item's; a minor release that breaks its
//! callers' calls refused, naming what breaks, while a major one is not; and a key's channel
//! serving its caller the release its tag points at.

use skillpath_app::{
    App, AppError, AppOptions, Channel, Meaning, Operation, Provenance, ReleaseRequest, Released,
    Role, StoreError, Version,
};
use skillpath_model::SkillSnapshot;

mod support;

use support::{change, key, permit, skill, store};

fn v(text: &str) -> Version {
    Version::parse(text).expect("a version")
}

/// A Golden Path skill `deploy` whose arguments are `args` (YAML list items).
fn deploy(args: &str) -> SkillSnapshot {
    let text = format!(
        "---\nname: deploy\ndescription: Use when deploying a service.\nargs:\n{args}---\n\nDeploy {{ServiceName}}.\n"
    );
    SkillSnapshot::new(text, Vec::new()).expect("a snapshot")
}

const SERVICE: &str = "  - name: service_name\n    required: true\n";
const REGION: &str = "  - name: region\n    enum: [eu, us]\n";

fn request(version: &str) -> ReleaseRequest {
    ReleaseRequest {
        name: "deploy".to_owned(),
        version: v(version),
        revision: None,
        notes: String::new(),
        tags: Vec::new(),
        forced: None,
    }
}

#[tokio::test]
async fn maintainers_release_and_a_breaking_minor_release_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let app = App::new(
        store(&dir).await,
        &Meaning::default(),
        AppOptions::default(),
        Box::new(|| ()),
    )
    .await
    .expect("the application");
    app.store()
        .create(
            deploy(&format!("{SERVICE}{REGION}")),
            Provenance::Api,
            change("add"),
        )
        .await
        .expect("created");
    app.refresh().await.expect("refresh");
    let maintainer = key("m", Role::Maintainer);
    let author = key("a", Role::Author);

    // An author may not release where the namespace does not review (nor propose: nothing
    // would review the proposal); a reader's key may not ask at all.
    let refused = app
        .release(
            &permit(&app, &author, Operation::ReleaseSkill),
            request("1.0.0"),
        )
        .await
        .expect_err("an author's release");
    assert!(
        matches!(refused, AppError::NotInNamespace { .. }),
        "{refused}"
    );
    assert!(matches!(
        app.may(&key("r", Role::Reader), Operation::ReleaseSkill),
        Err(AppError::Forbidden { .. })
    ));
    let releasing = permit(&app, &maintainer, Operation::ReleaseSkill);
    let first = released(app.release(&releasing, request("1.0.0")).await);
    assert_eq!((first.revision, first.author.as_str()), (1, "m"));

    // Revision 2 drops `region`: a minor release is refused, naming it; a major one is not.
    let mut revised = change("drop region");
    revised.author = "m".to_owned();
    app.store()
        .update("deploy", 1, deploy(SERVICE), revised)
        .await
        .expect("revised");
    let refused = app
        .release(&releasing, request("1.1.0"))
        .await
        .expect_err("breaks calls");
    let said = refused.to_string();
    assert!(
        said.contains("the argument `region` was removed") && said.contains("release it as 2.0.0"),
        "{said}"
    );
    let forced = ReleaseRequest {
        forced: Some("no one passes region".to_owned()),
        ..request("1.1.0")
    };
    assert_eq!(released(app.release(&releasing, forced).await).revision, 2);
    let major = released(app.release(&releasing, request("2.0.0")).await);
    assert_eq!(major.revision, 2);

    // Tags and yanks, and what a reader sees.
    app.tag(&releasing, "deploy", "stable", Some(v("1.0.0")))
        .await
        .expect("tagged");
    app.yank(
        &releasing,
        "deploy",
        v("1.1.0"),
        "forced by mistake".to_owned(),
    )
    .await
    .expect("yanked");
    let reader = key("r", Role::Reader);
    let listed = app
        .releases(&permit(&app, &reader, Operation::ListReleases), "deploy")
        .await
        .expect("listed");
    let versions: Vec<String> = listed
        .releases
        .iter()
        .map(|r| r.version.to_string())
        .collect();
    assert_eq!(versions, ["1.0.0", "1.1.0", "2.0.0"]);
    assert_eq!(
        listed.tags,
        [
            ("latest".to_owned(), "2.0.0".to_owned()),
            ("stable".to_owned(), "1.0.0".to_owned())
        ]
    );
    // An item without releases has none and no tag; a missing item's releases are not
    // found, as for any item one cannot see.
    app.store()
        .create(
            skill("notes", "Use when taking notes."),
            Provenance::Api,
            change("add"),
        )
        .await
        .expect("created");
    app.refresh().await.expect("refresh");
    let none = app
        .releases(&permit(&app, &reader, Operation::ListReleases), "notes")
        .await
        .expect("listed");
    assert!(none.releases.is_empty() && none.tags.is_empty(), "{none:?}");
    let missing = app
        .releases(&permit(&app, &reader, Operation::ListReleases), "nothing")
        .await
        .expect_err("missing");
    assert!(matches!(
        missing,
        AppError::Store(StoreError::NotFound { .. })
    ));
}

/// The release a request made (not a proposal).
fn released(made: Result<Released, AppError>) -> skillpath_model::release::Release {
    match made.expect("released") {
        Released::Released(release) => release,
        Released::Proposed(proposal) => panic!("proposed, not released: {proposal:?}"),
    }
}

/// The application over a new store holding `deploy` at revisions 1 and 2.
async fn two_revisions(dir: &tempfile::TempDir) -> App {
    let app = App::new(
        store(dir).await,
        &Meaning::default(),
        AppOptions::default(),
        Box::new(|| ()),
    )
    .await
    .expect("the application");
    app.store()
        .create(deploy(SERVICE), Provenance::Api, change("add"))
        .await
        .expect("created");
    app.store()
        .update(
            "deploy",
            1,
            deploy(&format!("{SERVICE}{REGION}")),
            change("add region"),
        )
        .await
        .expect("revised");
    app.refresh().await.expect("refresh");
    app
}

#[tokio::test]
async fn an_author_under_review_proposes_and_a_maintainer_releases_or_declines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let app = two_revisions(&dir).await;
    let owner = skillpath_app::Caller::owner("test".to_owned());
    app.govern(
        &permit(&app, &owner, Operation::Govern),
        skillpath_store::directory::Governance::SetReview(
            skillpath_model::Namespace::global(),
            Some(true),
        ),
    )
    .await
    .expect("the namespace reviews");
    let author = key("a", Role::Author);
    let proposing = permit(&app, &author, Operation::ReleaseSkill);
    let proposal = ReleaseRequest {
        revision: Some(1),
        notes: "first cut".to_owned(),
        tags: vec!["stable".to_owned()],
        ..request("1.0.0")
    };
    let proposed = match app.release(&proposing, proposal).await.expect("proposed") {
        Released::Proposed(proposal) => proposal,
        Released::Released(release) => panic!("an author released {release:?}"),
    };
    assert_eq!((proposed.revision, proposed.author.as_str()), (1, "a"));
    // Proposed twice: refused, naming who proposed it; forced by an author: refused.
    let again = app
        .release(&proposing, request("1.0.0"))
        .await
        .expect_err("proposed already");
    assert!(
        again.to_string().contains("proposed already, by a"),
        "{again}"
    );
    let forced = ReleaseRequest {
        forced: Some("hurry".to_owned()),
        ..request("1.1.0")
    };
    assert!(app.release(&proposing, forced).await.is_err());
    // Nothing is served or resolved from a proposal; a reader does not see it, an author does.
    let reader = key("r", Role::Reader);
    let listing = |caller: &skillpath_app::Caller| {
        let permitted = permit(&app, caller, Operation::ListReleases);
        let app = app.clone();
        async move { app.releases(&permitted, "deploy").await.expect("listed") }
    };
    let seen = listing(&author).await;
    assert!(seen.releases.is_empty() && seen.tags.is_empty(), "{seen:?}");
    assert_eq!(seen.proposals.len(), 1);
    assert!(listing(&reader).await.proposals.is_empty());
    // The maintainer's release of the version takes the proposal's revision, notes and tags.
    let releasing = permit(&app, &key("m", Role::Maintainer), Operation::ReleaseSkill);
    let made = released(app.release(&releasing, request("1.0.0")).await);
    assert_eq!((made.revision, made.notes.as_str()), (1, "first cut"));
    let after = listing(&author).await;
    assert!(after.proposals.is_empty(), "{after:?}");
    assert!(
        after
            .tags
            .contains(&("stable".to_owned(), "1.0.0".to_owned()))
    );
    // A second proposal, declined: gone, and the version may be proposed again.
    app.release(&proposing, request("1.1.0"))
        .await
        .expect("proposed");
    let declined = app
        .decline(&releasing, "deploy", v("1.1.0"), "not yet".to_owned())
        .await
        .expect("declined");
    assert_eq!(declined.action.action, "release.decline");
    assert!(listing(&author).await.proposals.is_empty());
    assert!(
        app.decline(&releasing, "deploy", v("1.1.0"), "again".to_owned())
            .await
            .is_err()
    );
    // An author may not decline; every step is in the log.
    app.release(&proposing, request("1.1.0"))
        .await
        .expect("proposed again");
    assert!(
        app.decline(&proposing, "deploy", v("1.1.0"), "mine".to_owned())
            .await
            .is_err()
    );
    let log = app
        .store()
        .governance_log(skillpath_store::directory::LogFilter::default())
        .await
        .expect("the log");
    let actions: Vec<&str> = log
        .iter()
        .filter(|entry| entry.action.action.starts_with("release."))
        .map(|entry| entry.action.action.as_str())
        .collect();
    assert_eq!(
        actions,
        [
            "release.propose",
            "release.create",
            "release.propose",
            "release.decline",
            "release.propose"
        ]
    );
    let accepted = log
        .iter()
        .find(|entry| entry.action.action == "release.create")
        .and_then(|entry| entry.action.after.clone())
        .expect("the release's entry");
    let accepted: serde_json::Value = serde_json::from_str(&accepted).expect("JSON");
    assert_eq!(accepted["proposed_by"], "a");
}

#[tokio::test]
async fn a_keys_channel_serves_its_caller_that_channels_release() {
    let dir = tempfile::tempdir().expect("tempdir");
    let app = two_revisions(&dir).await;
    let releasing = permit(&app, &key("m", Role::Maintainer), Operation::ReleaseSkill);
    let stable = ReleaseRequest {
        revision: Some(1),
        tags: vec!["stable".to_owned()],
        ..request("1.0.0")
    };
    released(app.release(&releasing, stable).await);
    released(app.release(&releasing, request("1.1.0")).await);
    let owner = skillpath_app::Caller::owner("test".to_owned());
    let keys = permit(&app, &owner, Operation::CreateApiKey);
    let mut made = Vec::new();
    for (name, channel) in [
        ("on-stable", Some("stable")),
        ("on-default", None),
        ("on-head", Some("head")),
    ] {
        let request = skillpath_app::KeyRequest {
            user: Some("r".to_owned()),
            role: Some(Role::Reader),
            channel: channel.map(|c| Channel::parse(c).expect("a channel")),
            ..skillpath_app::KeyRequest::default()
        };
        made.push(
            app.create_user_key(&keys, name, request)
                .await
                .expect("a key"),
        );
    }
    let served = |caller: &skillpath_app::Caller| {
        app.catalog_for(caller)
            .skill("deploy")
            .map(|skill| skill.revision)
    };
    let mut callers = Vec::new();
    for created in &made {
        callers.push(app.authenticate(&created.key).await.expect("authenticated"));
    }
    assert_eq!(
        callers[0].channel,
        Some(Channel::parse("stable").expect("a channel"))
    );
    // Stable serves 1.0.0's revision 1; the server's `latest` serves 1.1.0's revision 2.
    assert_eq!(served(&callers[0]), Some(1));
    assert_eq!(served(&callers[1]), Some(2));
    assert_eq!(served(&callers[2]), Some(2));
    assert_eq!(
        app.served_release(&callers[0], "deploy")
            .1
            .map(|r| r.revision),
        Some(1)
    );
    // A third revision: `head` serves it at once; `latest` and `stable` stay where they were.
    app.store()
        .update("deploy", 2, deploy(SERVICE), change("drop region"))
        .await
        .expect("revised");
    app.refresh().await.expect("refresh");
    assert_eq!(
        [
            served(&callers[0]),
            served(&callers[1]),
            served(&callers[2])
        ],
        [Some(1), Some(2), Some(3)]
    );
    // Moving `stable` reaches its callers at the next reload, as a new revision does.
    app.tag(&releasing, "deploy", "stable", Some(v("1.1.0")))
        .await
        .expect("moved");
    assert_eq!(served(&callers[0]), Some(2));
}
