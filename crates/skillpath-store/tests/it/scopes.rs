//! Scopes on one database (`skillpath_store::scopes`): stores opened in two projects and in
//! a package of one of them show their own project's skills and the shared ones, never the
//! other project's, with the precedence project (nearest first) > the store's own > user, and
//! every shadowed skill named with the one shown.

use std::path::Path;
use std::sync::Arc;

use skillpath_model::{ImportItem, Provenance, ShadowedSkill};
use skillpath_store::{ListFilter, ProjectView, Store};

use crate::support::{Backend, by, imported, list_all, search_names, skill};

/// Where discovery would have found a skill `name` of the project at `project`.
fn in_project(project: &Path, name: &str) -> Provenance {
    let root = project.join(".agents/skills");
    Provenance::Imported {
        path: root.join(name).display().to_string(),
        root: root.display().to_string(),
        scope: "project".to_owned(),
    }
}

/// Where discovery would have found a user skill `name`.
fn in_home(name: &str) -> Provenance {
    Provenance::Imported {
        path: format!("/home/me/.agents/skills/{name}"),
        root: "/home/me/.agents/skills".to_owned(),
        scope: "user".to_owned(),
    }
}

async fn import_one(store: &dyn Store, name: &str, description: &str, provenance: Provenance) {
    let report = store
        .import(
            vec![ImportItem {
                snapshot: skill(name, description, "body"),
                provenance,
            }],
            by("serve", "sync"),
        )
        .await
        .expect("import");
    assert!(report.shadowed.is_empty(), "{report:?}");
}

/// Every live skill's name and description, as `current_skills` and `list` give them (which
/// must agree).
async fn shown(store: &dyn Store) -> Vec<(String, String)> {
    let current: Vec<(String, String)> = store
        .current_skills()
        .await
        .expect("current skills")
        .into_iter()
        .map(|skill| (skill.name, skill.description))
        .collect();
    let listed: Vec<(String, String)> = list_all(store, ListFilter::default(), 2)
        .await
        .into_iter()
        .map(|skill| (skill.name, skill.description))
        .collect();
    assert_eq!(current, listed, "current_skills and list agree");
    let revisions: Vec<String> = store
        .current_revisions()
        .await
        .expect("revisions")
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    let names: Vec<String> = current.iter().map(|(name, _)| name.clone()).collect();
    assert_eq!(revisions, names, "current_revisions agrees");
    current
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

pub(crate) async fn each_project_sees_its_own_skills_and_the_shared_ones(backend: &Backend) {
    let work = tempfile::tempdir().expect("tempdir");
    let work = work.path().canonicalize().expect("canonical");
    let (a, b) = (work.join("a"), work.join("b"));
    let package = a.join("pkg");
    for repository in [&a, &b] {
        std::fs::create_dir_all(repository.join(".git")).expect("a repository");
    }
    std::fs::create_dir_all(&package).expect("a package");

    let shared = backend.store();
    let in_a: Arc<dyn Store> = backend.open_in(ProjectView::of(&a)).await;
    let in_b: Arc<dyn Store> = backend.open_in(ProjectView::of(&b)).await;
    let in_package: Arc<dyn Store> = backend.open_in(ProjectView::of(&package)).await;

    // The store's own skill, a user skill, and each project's `deploy`.
    shared
        .create(
            skill("deploy", "the store's", "body"),
            Provenance::Api,
            by("alice", "create"),
        )
        .await
        .expect("create");
    import_one(&*in_a, "notes", "the user's", in_home("notes")).await;
    import_one(&*in_a, "deploy", "project a's", in_project(&a, "deploy")).await;
    import_one(&*in_b, "deploy", "project b's", in_project(&b, "deploy")).await;
    import_one(&*in_b, "only-b", "project b's", in_project(&b, "only-b")).await;
    import_one(
        &*in_package,
        "deploy",
        "package's",
        in_project(&package, "deploy"),
    )
    .await;

    assert_eq!(
        shown(shared).await,
        pairs(&[("deploy", "the store's"), ("notes", "the user's")])
    );
    assert_eq!(
        shown(&*in_a).await,
        pairs(&[("deploy", "project a's"), ("notes", "the user's")])
    );
    assert_eq!(
        shown(&*in_b).await,
        pairs(&[
            ("deploy", "project b's"),
            ("notes", "the user's"),
            ("only-b", "project b's")
        ])
    );
    assert_eq!(
        shown(&*in_package).await,
        pairs(&[("deploy", "package's"), ("notes", "the user's")])
    );

    // Reads by name and search resolve the same way.
    for (store, description) in [
        (shared, "the store's"),
        (&*in_a, "project a's"),
        (&*in_b, "project b's"),
        (&*in_package, "package's"),
    ] {
        let got = store.get("deploy", None).await.expect("get");
        assert_eq!(got.description, description);
        assert_eq!(search_names(store, "deploy").await, ["deploy"]);
    }
    assert!(in_a.get("only-b", None).await.is_err(), "b's skill in a");
    assert!(search_names(&*in_a, "only").await.is_empty());

    // What each view leaves out, with the one it shows.
    let folder = |provenance: Provenance| provenance.folder().to_owned();
    let hidden = |name: &str, path: String, kept: String| ShadowedSkill {
        name: name.to_owned(),
        path,
        kept,
    };
    assert_eq!(shared.shadowed().await.expect("shadowed"), []);
    assert_eq!(
        in_a.shadowed().await.expect("shadowed"),
        [hidden(
            "deploy",
            String::new(),
            folder(in_project(&a, "deploy"))
        )]
    );
    assert_eq!(
        in_package.shadowed().await.expect("shadowed"),
        [
            hidden(
                "deploy",
                folder(in_project(&a, "deploy")),
                folder(in_project(&package, "deploy"))
            ),
            hidden(
                "deploy",
                String::new(),
                folder(in_project(&package, "deploy"))
            ),
        ]
    );

    // Writes by name change the skill the view shows, nowhere else.
    let updated = in_a
        .update(
            "deploy",
            1,
            skill("deploy", "project a's, edited", "body"),
            by("bob", "edit"),
        )
        .await
        .expect("update a's");
    assert_eq!(updated.revision, 2);
    assert_eq!(
        in_b.get("deploy", None).await.expect("b's").description,
        "project b's"
    );
    assert_eq!(
        shared
            .get("deploy", None)
            .await
            .expect("the store's")
            .revision,
        1
    );
    let refused = in_a
        .create(
            skill("deploy", "again", "body"),
            Provenance::Api,
            by("bob", "create"),
        )
        .await
        .expect_err("a name the view shows");
    assert!(refused.to_string().contains("deploy"), "{refused}");

    // A deleted project skill shadows nothing: the shared one shows again.
    in_a.delete("deploy", 2, by("bob", "gone"))
        .await
        .expect("delete a's");
    assert_eq!(
        in_a.get("deploy", None).await.expect("get").description,
        "the store's"
    );
    assert_eq!(in_a.shadowed().await.expect("shadowed"), []);
}

pub(crate) async fn a_user_skill_never_replaces_one_of_the_stores_own(backend: &Backend) {
    let store = backend.store();
    store
        .create(
            skill("made", "through tools", "body"),
            Provenance::Api,
            by("alice", "create"),
        )
        .await
        .expect("create");
    import_one(store, "named", "imported by name", imported("/s/named")).await;
    let report = store
        .import(
            vec![
                ImportItem {
                    snapshot: skill("made", "from home", "body"),
                    provenance: in_home("made"),
                },
                ImportItem {
                    snapshot: skill("named", "from home", "body"),
                    provenance: in_home("named"),
                },
            ],
            by("serve", "sync"),
        )
        .await
        .expect("import");
    assert!(
        report.created.is_empty() && report.updated.is_empty(),
        "{report:?}"
    );
    assert_eq!(
        report.shadowed,
        [
            ShadowedSkill {
                name: "made".to_owned(),
                path: "/home/me/.agents/skills/made".to_owned(),
                kept: String::new(),
            },
            ShadowedSkill {
                name: "named".to_owned(),
                path: "/home/me/.agents/skills/named".to_owned(),
                kept: "/s/named".to_owned(),
            },
        ]
    );
    assert_eq!(
        shown(store).await,
        pairs(&[("made", "through tools"), ("named", "imported by name")])
    );
    // A folder named explicitly still makes a new revision of the store's skill.
    let report = store
        .import(
            vec![ImportItem {
                snapshot: skill("made", "from a named folder", "body"),
                provenance: imported("/s/made"),
            }],
            by("import", "explicit"),
        )
        .await
        .expect("import");
    assert_eq!(report.updated, ["made"]);
}

pub(crate) async fn search_looks_past_the_skills_the_view_hides(backend: &Backend) {
    let work = tempfile::tempdir().expect("tempdir");
    let work = work.path().canonicalize().expect("canonical");
    let b = work.join("b");
    std::fs::create_dir_all(b.join(".git")).expect("a repository");
    let shared = backend.store();
    let in_b: Arc<dyn Store> = backend.open_in(ProjectView::of(&b)).await;

    // Project b's skills have the word in their names, more of them than a search's pool;
    // the one shared skill only in its description, so every index ranks it below them all.
    let items = (0..60)
        .map(|i| ImportItem {
            snapshot: skill(&format!("quokka-{i}"), "project b's", "body"),
            provenance: in_project(&b, &format!("quokka-{i}")),
        })
        .collect();
    let report = in_b
        .import(items, by("serve", "sync"))
        .await
        .expect("import");
    assert_eq!(report.created.len(), 60);
    shared
        .create(
            skill("marsupials", "Caring for a quokka.", "body"),
            Provenance::Api,
            by("alice", "create"),
        )
        .await
        .expect("create");

    // A store outside project b reads past every skill of b to find the shared one.
    assert_eq!(search_names(shared, "quokka").await, ["marsupials"]);
    let in_b_found = search_names(&*in_b, "quokka").await;
    assert_eq!(in_b_found.len(), 50, "the limit: {in_b_found:?}");
    assert!(
        in_b_found.iter().all(|name| name.starts_with("quokka-")),
        "names first: {in_b_found:?}"
    );
}
