//! Releases and tags, on every backend: the version rules kept in the change's transaction,
//! yanks and tags refused where they would point nowhere, every change logged, and two stores
//! releasing one version at once giving one release and one refusal.

use std::sync::Arc;

use skillpath_model::governance;
use skillpath_model::release::{Version, tag_target};
use skillpath_model::{Placement, Provenance};
use skillpath_store::directory::releases::ReleaseChange;
use skillpath_store::directory::{Governance, LogFilter};
use skillpath_store::{ProjectView, Store, StoreError};

use crate::support::{Backend, by, skill};

fn v(text: &str) -> Version {
    Version::parse(text).expect("a version")
}

fn release(key: &str, version: &str, revision: u64, tags: &[&str]) -> Governance {
    Governance::Releases(ReleaseChange::Release {
        key: key.to_owned(),
        version: v(version),
        revision,
        notes: format!("notes of {version}"),
        tags: tags.iter().map(|tag| (*tag).to_owned()).collect(),
        forced: None,
    })
}

fn tag(key: &str, tag: &str, version: Option<&str>) -> Governance {
    Governance::Releases(ReleaseChange::Tag {
        key: key.to_owned(),
        tag: tag.to_owned(),
        version: version.map(v),
    })
}

fn yank(key: &str, version: &str) -> Governance {
    Governance::Releases(ReleaseChange::Yank {
        key: key.to_owned(),
        version: v(version),
        reason: "it breaks deploys".to_owned(),
    })
}

async fn refusal(store: &dyn Store, change: Governance) -> String {
    match store.govern(change, "ann").await {
        Err(StoreError::Refused(why)) => why,
        other => panic!("refused, not {other:?}"),
    }
}

/// The item `deploy` of `@global`, at revision 1.
async fn create_deploy(store: &dyn Store) {
    store
        .create_in(
            Placement::global(),
            skill("deploy", "Use when deploying.", "One."),
            Provenance::Api,
            by("ann", "add"),
        )
        .await
        .expect("created");
}

/// Versions are never reused and climb their major line; tags point at releases that are not
/// yanked, `latest` follows the highest stable release until set by hand; a tagged release is
/// yanked only once its tags move; every change is one entry of an unbroken log.
pub(crate) async fn releases_follow_the_version_rules(store: &dyn Store) {
    create_deploy(store).await;
    let made = store
        .govern(release("deploy", "1.0.0", 1, &[]), "ann")
        .await
        .expect("released");
    assert_eq!(
        (made.action.action.as_str(), made.action.target.as_str()),
        ("release.create", "@global/deploy@1.0.0")
    );
    store
        .govern(release("deploy", "1.1.0", 1, &["stable", "beta"]), "ann")
        .await
        .expect("released");
    store
        .govern(release("deploy", "2.0.0-rc.1", 1, &[]), "ann")
        .await
        .expect("a pre-release of the next line");
    let again = refusal(store, release("deploy", "1.0.0+build.2", 1, &[])).await;
    assert!(again.contains("released already"), "{again}");
    let lower = refusal(store, release("deploy", "1.0.9", 1, &[])).await;
    assert!(lower.contains("not higher than 1.1.0"), "{lower}");
    let bad_tag = refusal(store, release("deploy", "1.2.0", 1, &["Bad Tag"])).await;
    assert!(bad_tag.contains("not a tag name"), "{bad_tag}");
    let missing = store
        .govern(release("nothing", "1.0.0", 1, &[]), "ann")
        .await;
    assert!(
        matches!(missing, Err(StoreError::NotFound { .. })),
        "{missing:?}"
    );

    let directory = store.directory().await.expect("the directory");
    let versions: Vec<String> = directory
        .releases_of("deploy")
        .iter()
        .map(|release| release.version.to_string())
        .collect();
    assert_eq!(versions, ["1.0.0", "1.1.0", "2.0.0-rc.1"]);
    let releases = directory.releases_of("deploy");
    let tags = directory.tags_of("deploy");
    let pointed = |tag: &str| tag_target(releases, tags, tag).map(|r| r.version.to_string());
    assert_eq!(pointed("latest").as_deref(), Some("1.1.0"));
    assert_eq!(pointed("stable").as_deref(), Some("1.1.0"));
    assert_eq!(releases[0].notes, "notes of 1.0.0");

    // A tagged release is yanked only once its tags move; a yanked one takes no tag.
    let tagged = refusal(store, yank("deploy", "1.1.0")).await;
    assert!(tagged.contains("tagged beta, stable"), "{tagged}");
    store
        .govern(tag("deploy", "stable", Some("1.0.0")), "ann")
        .await
        .expect("stable moved back");
    store
        .govern(tag("deploy", "beta", None), "ann")
        .await
        .expect("beta taken away");
    let yanked = store
        .govern(yank("deploy", "1.1.0"), "ann")
        .await
        .expect("yanked");
    assert_eq!(yanked.action.action, "release.yank");
    assert!(
        refusal(store, yank("deploy", "1.1.0"))
            .await
            .contains("yanked already")
    );
    let onto_yanked = refusal(store, tag("deploy", "beta", Some("1.1.0"))).await;
    assert!(onto_yanked.contains("is yanked"), "{onto_yanked}");
    let unknown = refusal(store, tag("deploy", "beta", Some("3.0.0"))).await;
    assert!(
        unknown.contains("its releases: 1.0.0, 1.1.0, 2.0.0-rc.1"),
        "{unknown}"
    );
    let reused = refusal(store, release("deploy", "1.1.0", 1, &[])).await;
    assert!(reused.contains("(and yanked)"), "{reused}");

    let directory = store.directory().await.expect("the directory");
    let releases = directory.releases_of("deploy");
    let tags = directory.tags_of("deploy");
    let pointed = |tag: &str| tag_target(releases, tags, tag).map(|r| r.version.to_string());
    assert_eq!(
        pointed("latest").as_deref(),
        Some("1.0.0"),
        "the yanked one left"
    );
    assert_eq!(pointed("stable").as_deref(), Some("1.0.0"));
    assert_eq!(pointed("beta"), None);
    assert_eq!(
        releases[1].yanked.as_ref().map(|y| y.reason.as_str()),
        Some("it breaks deploys")
    );
    // `latest` set by hand is a rollback; taken away, it follows the highest again.
    store
        .govern(tag("deploy", "latest", Some("2.0.0-rc.1")), "ann")
        .await
        .expect("latest by hand");
    let directory = store.directory().await.expect("the directory");
    let latest = tag_target(
        directory.releases_of("deploy"),
        directory.tags_of("deploy"),
        "latest",
    );
    assert_eq!(
        latest.map(|r| r.version.to_string()).as_deref(),
        Some("2.0.0-rc.1")
    );
    let log = store
        .governance_log(LogFilter::default())
        .await
        .expect("the log");
    let actions: Vec<&str> = log.iter().map(|e| e.action.action.as_str()).collect();
    assert_eq!(
        actions,
        [
            "release.create",
            "release.create",
            "release.create",
            "release.tag",
            "release.untag",
            "release.yank",
            "release.tag",
        ]
    );
    assert_eq!(governance::verify(&log), Ok(()));
}

/// Two stores on one database releasing one version of one item at once: one release, one
/// refusal, nothing half-written.
pub(crate) async fn one_version_released_from_two_stores_at_once_is_one_release(backend: &Backend) {
    let first = backend.shared();
    let second: Arc<dyn Store> = backend.open_in(ProjectView::default()).await;
    create_deploy(first.as_ref()).await;
    let tasks: Vec<_> = [first, second]
        .into_iter()
        .map(|store| {
            tokio::spawn(async move {
                store
                    .govern(release("deploy", "1.0.0", 1, &["stable"]), "ann")
                    .await
            })
        })
        .collect();
    let mut made = 0;
    let mut refused = 0;
    for task in tasks {
        match task.await.expect("joined") {
            Ok(_) => made += 1,
            Err(StoreError::Refused(why)) => {
                assert!(why.contains("released already"), "{why}");
                refused += 1;
            }
            Err(other) => panic!("{other:?}"),
        }
    }
    assert_eq!((made, refused), (1, 1));
    let store = backend.shared();
    let directory = store.directory().await.expect("the directory");
    assert_eq!(directory.releases_of("deploy").len(), 1);
    assert_eq!(directory.tags_of("deploy").len(), 1);
    let log = store
        .governance_log(LogFilter::default())
        .await
        .expect("the log");
    assert_eq!(log.len(), 1);
}
