//! Releases through the application, against a real SQLite store: who may release, yank and
//! tag (a namespace's maintainers); a hidden item's releases answered as a missing item's; and
//! a minor release that breaks its callers' calls refused, naming what breaks, while a major
//! one is not.

use skillpath_app::{
    App, AppError, AppOptions, Meaning, Operation, Provenance, ReleaseRequest, Role, StoreError,
    Version,
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

    // An author may not release; the rules refuse before anything is asked.
    assert!(matches!(
        app.may(&author, Operation::ReleaseSkill),
        Err(AppError::Forbidden { .. })
    ));
    let releasing = permit(&app, &maintainer, Operation::ReleaseSkill);
    let first = app
        .release(&releasing, request("1.0.0"))
        .await
        .expect("released");
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
    assert_eq!(
        app.release(&releasing, forced)
            .await
            .expect("forced")
            .revision,
        2
    );
    let major = app
        .release(&releasing, request("2.0.0"))
        .await
        .expect("a major release");
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
