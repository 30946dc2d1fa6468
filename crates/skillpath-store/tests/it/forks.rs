//! Forks in the store, for every backend: a skill or a package copied under a new name with
//! where it came from, every byte but the name kept, a package forked with its members, and no
//! way to close a cycle of forks.

use skillpath_model::{Kind, Provenance};
use skillpath_store::forks::ForkRequest;
use skillpath_store::{Store, StoreError};

use crate::packages::package;
use crate::support::{by, fails, skill, snapshot};

fn request(from: &str, name: &str) -> ForkRequest {
    ForkRequest {
        from: from.to_owned(),
        revision: None,
        name: name.to_owned(),
        member_prefix: None,
        into: None,
    }
}

pub(crate) async fn a_fork_copies_a_skill_and_records_its_origin(store: &dyn Store) {
    let original = snapshot(
        "---\nname: add-cache\ndescription: Adds a cache.\ntool_name: add_cache\n---\n\nUse Redis.\n"
            .to_owned(),
        &[("templates/cache.cs", b"class Cache {}\n")],
    );
    store
        .create(original.clone(), Provenance::Api, by("ana", "first"))
        .await
        .expect("create");
    store
        .update(
            "add-cache",
            1,
            skill("add-cache", "Adds a cache.", "Use Valkey."),
            by("ana", "second"),
        )
        .await
        .expect("update");
    let mut at_one = request("add-cache", "acme-cache");
    at_one.revision = Some(1);
    let forked = store.fork(at_one, by("bo", "adapt")).await.expect("fork");
    let [fork] = forked.as_slice() else {
        panic!("one copy: {forked:?}")
    };
    assert_eq!(
        (fork.name.as_str(), fork.revision, fork.tool_name.as_deref()),
        ("acme-cache", 1, Some("acme_cache"))
    );
    assert_eq!(
        fork.provenance,
        Provenance::Forked {
            from: "add-cache".to_owned(),
            revision: 1
        }
    );
    // Every byte of revision 1 but the name and tool name.
    assert_eq!(
        fork.snapshot.skill_md,
        original
            .skill_md
            .replace("name: add-cache", "name: acme-cache")
            .replace("tool_name: add_cache", "tool_name: acme_cache")
    );
    assert_eq!(fork.snapshot.files, original.files);
    let read = store.get("acme-cache", None).await.expect("get");
    assert_eq!(read.provenance, fork.provenance);
    // The original is untouched.
    assert_eq!(store.get("add-cache", None).await.expect("get").revision, 2);
}

pub(crate) async fn a_package_is_forked_with_its_members(store: &dyn Store) {
    for member in ["add-entity", "add-endpoint"] {
        store
            .create(
                skill(member, "A member.", "Use {EndpointStyle}."),
                Provenance::Api,
                by("ana", "member"),
            )
            .await
            .expect("member");
    }
    store
        .create(
            package("svc", &["add-entity", "add-endpoint"], "# Architecture\n"),
            Provenance::Api,
            by("ana", "package"),
        )
        .await
        .expect("package");
    let mut fork = request("svc", "acme-svc");
    fork.member_prefix = Some("acme-".to_owned());
    let written = store.fork(fork, by("bo", "adapt")).await.expect("fork");
    let names: Vec<(&str, Kind)> = written
        .iter()
        .map(|item| (item.name.as_str(), item.snapshot.kind))
        .collect();
    assert_eq!(
        names,
        [
            ("acme-svc", Kind::Package),
            ("acme-add-entity", Kind::Skill),
            ("acme-add-endpoint", Kind::Skill)
        ]
    );
    let manifest = &written[0].snapshot.skill_md;
    assert!(
        manifest.contains("skills/acme-add-entity")
            && manifest.contains("skills/acme-add-endpoint"),
        "{manifest}"
    );
    assert!(!manifest.contains("skills/add-entity"), "{manifest}");
    assert_eq!(
        written[0].snapshot.files,
        package("svc", &[], "# Architecture\n").files
    );
    assert_eq!(
        written[1].provenance,
        Provenance::Forked {
            from: "add-entity".to_owned(),
            revision: 1
        }
    );
    // The fork's members are its own: the original keeps its members, and listing one of them
    // in a second package is refused as before.
    let rival = fails(store.create(
        package("rival", &["acme-add-entity"], "p"),
        Provenance::Api,
        by("cy", "rival"),
    ))
    .await;
    assert!(rival.to_string().contains("`acme-svc`"), "{rival}");
    // A member missing from the store: nothing is written.
    store
        .create(
            package("half", &["not-stored"], "p"),
            Provenance::Api,
            by("ana", "half"),
        )
        .await
        .expect("a package may list a member not stored yet");
    let error = fails(store.fork(request("half", "half-fork"), by("bo", "adapt"))).await;
    assert!(error.to_string().contains("`not-stored`"), "{error}");
    assert!(matches!(
        fails(store.get("half-fork", None)).await,
        StoreError::NotFound { .. }
    ));
}

pub(crate) async fn forks_cannot_form_a_cycle(store: &dyn Store) {
    store
        .create(
            skill("origin", "The original.", "Body."),
            Provenance::Api,
            by("ana", "first"),
        )
        .await
        .expect("create");
    store
        .fork(request("origin", "copy"), by("bo", "fork"))
        .await
        .expect("fork");
    // Forking the fork back onto its origin's name: refused, the name is taken.
    let back = fails(store.fork(request("copy", "origin"), by("bo", "back"))).await;
    assert!(matches!(back, StoreError::AlreadyExists { .. }), "{back}");
    // Even once the origin is deleted: a deleted item keeps its name.
    store
        .delete("origin", 1, by("ana", "gone"))
        .await
        .expect("delete");
    let back = fails(store.fork(request("copy", "origin"), by("bo", "back"))).await;
    assert!(
        matches!(back, StoreError::AlreadyExists { deleted: true, .. }),
        "{back}"
    );
    // A fork onto itself, a deleted source and a name that is not kebab-case.
    let own = fails(store.fork(request("copy", "copy"), by("bo", "self"))).await;
    assert!(matches!(own, StoreError::AlreadyExists { .. }), "{own}");
    let deleted = fails(store.fork(request("origin", "revived"), by("bo", "x"))).await;
    assert!(deleted.to_string().contains("is deleted"), "{deleted}");
    let mut earlier = request("origin", "revived");
    earlier.revision = Some(1);
    store
        .fork(earlier, by("bo", "from history"))
        .await
        .expect("a live revision of a deleted item can be forked");
    let bad = fails(store.fork(request("copy", "Bad Name"), by("bo", "x"))).await;
    assert!(bad.to_string().contains("kebab-case"), "{bad}");
}
