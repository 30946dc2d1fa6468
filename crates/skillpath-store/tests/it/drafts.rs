//! Drafts and review in the store, for every backend: a draft kept apart from what readers
//! get until a maintainer publishes it, a stale one refused naming both revisions, a rejection
//! kept with its message, a new member joining its package on publication, and one draft
//! published once however many maintainers try at once.

use std::sync::Arc;

use skillpath_model::{Kind, Provenance, SkillSnapshot};
use skillpath_store::drafts::{DraftFilter, DraftStatus, NewDraft};
use skillpath_store::{ListFilter, Store, StoreError};

use crate::packages::package;
use crate::support::{by, fails, list_all, search_names, skill};

/// A draft of `snapshot` on revision `base` by `author`.
fn draft(snapshot: SkillSnapshot, base: u64, author: &str) -> NewDraft {
    NewDraft {
        snapshot,
        base,
        package: None,
        change: by(author, &format!("draft by {author}")),
        namespace: skillpath_model::Namespace::global(),
    }
}

pub(crate) async fn a_draft_is_kept_apart_until_published(store: &dyn Store) {
    let original = skill("add-cache", "Adds a cache.", "Use Redis.");
    store
        .create(original.clone(), Provenance::Api, by("ana", "first"))
        .await
        .expect("create");
    let changed = skill(
        "add-cache",
        "Adds a cache.",
        "Use Redis with zanzibarish eviction.",
    );
    let saved = store
        .save_draft(draft(changed.clone(), 1, "bob"))
        .await
        .expect("save draft");
    assert_eq!(
        (saved.name.as_str(), saved.base, saved.status, saved.kind),
        ("add-cache", 1, DraftStatus::Open, Kind::Skill)
    );
    assert_eq!(saved.content_hash, changed.content_hash());
    let fresh = skill("brand-new", "A zanzibarish new skill.", "Body.");
    store
        .save_draft(draft(fresh.clone(), 0, "bob"))
        .await
        .expect("draft of a new skill");

    // Nothing a reader gets shows a draft.
    let current = store.get("add-cache", None).await.expect("get");
    assert_eq!((current.revision, &current.snapshot), (1, &original));
    assert!(matches!(
        fails(store.get("brand-new", None)).await,
        StoreError::NotFound { .. }
    ));
    let listed: Vec<String> = list_all(store, ListFilter::default(), 10)
        .await
        .into_iter()
        .map(|summary| summary.name)
        .collect();
    assert_eq!(listed, ["add-cache"]);
    assert!(search_names(store, "zanzibarish").await.is_empty());
    assert_eq!(
        store.current_revisions().await.expect("revisions"),
        [("add-cache".to_owned(), 1)]
    );

    // The review queue has both, and the change as a diff from the revision it was made on.
    let queue = store.drafts(DraftFilter::default()).await.expect("queue");
    let names: Vec<(&str, &str)> = queue
        .iter()
        .map(|d| (d.name.as_str(), d.author.as_str()))
        .collect();
    assert_eq!(names, [("add-cache", "bob"), ("brand-new", "bob")]);
    let (read, diff) = store.draft_diff("add-cache", None).await.expect("diff");
    assert_eq!(read.snapshot, changed);
    assert!(diff.contains("-Use Redis.\n"), "{diff}");
    assert!(
        diff.contains("+Use Redis with zanzibarish eviction.\n"),
        "{diff}"
    );
    assert!(
        diff.contains("revision 1") && diff.contains("draft by bob"),
        "{diff}"
    );

    // Published: the draft is the next revision, its author bob's, and is gone from the queue.
    let published = store
        .publish_draft("add-cache", Some("bob"), by("mia", "looks right"))
        .await
        .expect("publish");
    assert_eq!((published.revision, &published.snapshot), (2, &changed));
    let history = store.history("add-cache").await.expect("history");
    let last = history.last().expect("a revision");
    assert_eq!(last.author, "bob");
    assert!(
        last.message.contains("draft by bob")
            && last.message.contains("published by mia: looks right"),
        "{}",
        last.message
    );
    let created = store
        .publish_draft("brand-new", None, by("mia", ""))
        .await
        .expect("publish new");
    assert_eq!((created.revision, &created.snapshot), (1, &fresh));
    assert!(
        store
            .drafts(DraftFilter::default())
            .await
            .expect("queue")
            .is_empty()
    );
    assert!(matches!(
        fails(store.publish_draft("brand-new", None, by("mia", ""))).await,
        StoreError::DraftNotFound { .. }
    ));
    assert_eq!(search_names(store, "zanzibarish").await.len(), 2);
}

pub(crate) async fn a_stale_draft_is_refused_naming_both_revisions(store: &dyn Store) {
    store
        .create(
            skill("svc", "A service.", "One."),
            Provenance::Api,
            by("ana", "first"),
        )
        .await
        .expect("create");
    // A draft must be made on the current revision, as a write must.
    let stale = fails(store.save_draft(draft(skill("svc", "A service.", "Two."), 7, "bob"))).await;
    assert!(
        matches!(
            stale,
            StoreError::StaleRevision {
                expected: 7,
                actual: 1,
                ..
            }
        ),
        "{stale}"
    );
    let taken = fails(store.save_draft(draft(skill("svc", "A service.", "Two."), 0, "bob"))).await;
    assert!(matches!(taken, StoreError::AlreadyExists { .. }), "{taken}");

    store
        .save_draft(draft(skill("svc", "A service.", "Bob's."), 1, "bob"))
        .await
        .expect("draft");
    store
        .update(
            "svc",
            1,
            skill("svc", "A service.", "Ana's."),
            by("ana", "meanwhile"),
        )
        .await
        .expect("published meanwhile");
    let error = fails(store.publish_draft("svc", Some("bob"), by("mia", ""))).await;
    assert!(
        matches!(&error, StoreError::StaleDraft { base: 1, actual: 2, author, .. } if author == "bob"),
        "{error}"
    );
    let text = error.to_string();
    assert!(
        text.contains("revision 1") && text.contains("revision 2"),
        "{text}"
    );
    // Refused: nothing written, the draft kept.
    assert_eq!(store.get("svc", None).await.expect("get").revision, 2);
    assert_eq!(
        store
            .drafts(DraftFilter::default())
            .await
            .expect("queue")
            .len(),
        1
    );

    // A new item's draft whose name was taken meanwhile.
    store
        .save_draft(draft(skill("later", "Later.", "Bob's."), 0, "bob"))
        .await
        .expect("draft");
    store
        .create(
            skill("later", "Later.", "Ana's."),
            Provenance::Api,
            by("ana", "first"),
        )
        .await
        .expect("created meanwhile");
    let error = fails(store.publish_draft("later", Some("bob"), by("mia", ""))).await;
    assert!(
        matches!(
            error,
            StoreError::StaleDraft {
                base: 0,
                actual: 1,
                ..
            }
        ),
        "{error}"
    );
}

pub(crate) async fn a_rejected_draft_keeps_its_message_until_saved_again(store: &dyn Store) {
    store
        .create(
            skill("svc", "A service.", "One."),
            Provenance::Api,
            by("ana", "first"),
        )
        .await
        .expect("create");
    store
        .save_draft(draft(skill("svc", "A service.", "Bob's."), 1, "bob"))
        .await
        .expect("bob's draft");
    store
        .save_draft(draft(skill("svc", "A service.", "Cy's."), 1, "cy"))
        .await
        .expect("cy's draft");
    // Two drafts of one item: the author must be named.
    let which = fails(store.draft("svc", None)).await.to_string();
    assert!(which.contains("`bob`") && which.contains("`cy`"), "{which}");
    assert_eq!(
        store
            .draft("svc", Some("cy"))
            .await
            .expect("cy's")
            .snapshot
            .skill_md,
        skill("svc", "A service.", "Cy's.").skill_md
    );
    assert!(matches!(
        fails(store.draft("svc", Some("dan"))).await,
        StoreError::DraftNotFound { .. }
    ));

    let silent = fails(store.reject_draft("svc", Some("bob"), by("mia", " "))).await;
    assert!(silent.to_string().contains("say why"), "{silent}");
    let rejected = store
        .reject_draft("svc", Some("bob"), by("mia", "split it in two"))
        .await
        .expect("reject");
    assert_eq!(rejected.status, DraftStatus::Rejected);
    assert_eq!(rejected.reviewer.as_deref(), Some("mia"));
    assert_eq!(rejected.review_message.as_deref(), Some("split it in two"));
    let mine = store
        .drafts(DraftFilter {
            name: None,
            author: Some("bob".to_owned()),
        })
        .await
        .expect("bob's drafts");
    assert_eq!(mine, [rejected]);
    assert_eq!(store.get("svc", None).await.expect("get").revision, 1);

    let again = store
        .save_draft(draft(skill("svc", "A service.", "Bob's, split."), 1, "bob"))
        .await
        .expect("saved again");
    assert_eq!(
        (again.status, again.reviewer, again.review_message),
        (DraftStatus::Open, None, None)
    );
}

pub(crate) async fn a_draft_joining_a_package_is_listed_by_it_when_published(store: &dyn Store) {
    store
        .create(
            package("svc", &[], "p"),
            Provenance::Api,
            by("ana", "package"),
        )
        .await
        .expect("package");
    let member = skill("add-thing", "Adds a thing.", "Body.");
    let mut new = draft(member.clone(), 0, "bob");
    new.package = Some("svc".to_owned());
    store.save_draft(new).await.expect("draft");
    // Only a new skill joins a package.
    let mut wrong = draft(package("svc", &[], "q"), 1, "bob");
    wrong.package = Some("svc".to_owned());
    assert!(matches!(
        fails(store.save_draft(wrong)).await,
        StoreError::InvalidState(_)
    ));
    // A package's own change is a draft like a skill's.
    store
        .save_draft(draft(package("svc", &[], "new page"), 1, "cy"))
        .await
        .expect("package draft");

    let published = store
        .publish_draft("add-thing", None, by("mia", ""))
        .await
        .expect("publish member");
    assert_eq!((published.revision, &published.snapshot), (1, &member));
    let listed = store.get("svc", None).await.expect("package");
    assert_eq!(listed.revision, 2);
    assert!(listed.snapshot.skill_md.contains("skills/add-thing"));
    // The package's draft was made on revision 1: publishing it now would drop the member.
    let error = fails(store.publish_draft("svc", Some("cy"), by("mia", ""))).await;
    assert!(
        matches!(
            error,
            StoreError::StaleDraft {
                base: 1,
                actual: 2,
                ..
            }
        ),
        "{error}"
    );
}

pub(crate) async fn concurrent_publications_of_one_draft_write_one_revision(store: Arc<dyn Store>) {
    store
        .create(
            skill("svc", "A service.", "One."),
            Provenance::Api,
            by("ana", "first"),
        )
        .await
        .expect("create");
    for round in 0..5u64 {
        let base = round + 1;
        let body = format!("Round {round}.");
        store
            .save_draft(draft(skill("svc", "A service.", &body), base, "bob"))
            .await
            .expect("draft");
        let barrier = Arc::new(tokio::sync::Barrier::new(3));
        let tasks: Vec<_> = (0..3)
            .map(|n| {
                let (store, barrier) = (Arc::clone(&store), Arc::clone(&barrier));
                tokio::spawn(async move {
                    barrier.wait().await;
                    store
                        .publish_draft("svc", Some("bob"), by(&format!("m{n}"), "race"))
                        .await
                })
            })
            .collect();
        let mut won = 0;
        for task in tasks {
            match task.await.expect("task ran") {
                Ok(published) => {
                    won += 1;
                    assert_eq!(published.revision, base + 1);
                }
                Err(
                    StoreError::StaleDraft { .. }
                    | StoreError::DraftNotFound { .. }
                    | StoreError::InvalidState(_),
                ) => {}
                Err(other) => panic!("round {round}: {other}"),
            }
        }
        assert_eq!(won, 1, "round {round}");
        assert_eq!(
            store.get("svc", None).await.expect("get").revision,
            base + 1,
            "round {round}"
        );
    }
}
