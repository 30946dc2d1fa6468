//! Architecture packages in the store, for every backend: kept like skills (revisions,
//! history, diff, rollback, search, listing by kind), a skill a member of at most one package,
//! an item's kind fixed, and a package folder imported and exported byte for byte.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use skillpath_folders::folder::{export_package_folder, read_folders};
use skillpath_folders::sources::FolderSources;
use skillpath_model::{ImportItem, Kind, SkillFile, SkillSnapshot};
use skillpath_store::{ListFilter, Store, StoreError};

use crate::support::{by, fails, history_of, imported, list_all, rev, skill};

/// A `PACKAGE.md` named `name` whose members are the skills `members` (in `skills/`).
fn package_md(name: &str, members: &[&str]) -> String {
    let skills = if members.is_empty() {
        "skills: []\n".to_owned()
    } else {
        members.iter().fold("skills:\n".to_owned(), |text, member| {
            text + &format!("  - skills/{member}\n")
        })
    };
    format!(
        "---\nname: {name}\ndescription: A layered service architecture called {name}.\nlayers:\n  - Domain\n  - Api\noptions:\n  - name: endpointStyle\n    type: string\n    enum: [minimal-api, controller]\n    default: minimal-api\n{skills}docs:\n  - docs/architecture.md\n---\n\n# {name}\n"
    )
}

/// A package snapshot with one documentation page.
pub(crate) fn package(name: &str, members: &[&str], page: &str) -> SkillSnapshot {
    SkillSnapshot::package(
        package_md(name, members),
        vec![SkillFile {
            path: "docs/architecture.md".to_owned(),
            bytes: page.as_bytes().to_vec(),
        }],
    )
    .expect("the test's package is valid")
}

pub(crate) async fn packages_are_kept_with_revisions_like_skills(store: &dyn Store) {
    store
        .create(
            skill("add-entity", "Adds an entity.", "Body."),
            imported("/s/add-entity"),
            by("ana", "skill"),
        )
        .await
        .expect("create skill");
    let first = package(
        "clean-service",
        &["add-entity"],
        "# Layers\n\nDomain first.\n",
    );
    let created = store
        .create(
            first.clone(),
            imported("/s/clean-service"),
            by("ana", "the package"),
        )
        .await
        .expect("create package");
    assert_eq!(
        (
            created.revision,
            created.snapshot.kind,
            created.tool_name.as_deref()
        ),
        (1, Kind::Package, None)
    );
    assert_eq!(
        created.description,
        "A layered service architecture called clean-service."
    );
    let read = store.get("clean-service", None).await.expect("get");
    assert_eq!(read.snapshot, first);
    let second = package("clean-service", &["add-entity"], "# Layers\n\nApi last.\n");
    store
        .update("clean-service", 1, second.clone(), by("ben", "api page"))
        .await
        .expect("update");
    let diff = store.diff("clean-service", 1, 2).await.expect("diff");
    assert!(
        diff.contains("docs/architecture.md")
            && diff.contains("-Domain first.")
            && diff.contains("+Api last."),
        "{diff}"
    );
    let rolled = store
        .rollback("clean-service", 1, 2, by("ana", "back"))
        .await
        .expect("rollback");
    assert_eq!((rolled.revision, &rolled.snapshot), (3, &first));
    assert_eq!(rolled.content_hash, first.content_hash());
    assert_eq!(
        history_of(store, "clean-service").await,
        [
            rev(1, "create", "ana", "the package"),
            rev(2, "update", "ben", "api page"),
            rev(3, "rollback", "ana", "back"),
        ]
    );
    let listed = |kind| async move {
        let filter = ListFilter {
            kind,
            ..ListFilter::default()
        };
        list_all(store, filter, 10)
            .await
            .into_iter()
            .map(|item| (item.name, item.kind))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        listed(Some(Kind::Package)).await,
        [("clean-service".to_owned(), Kind::Package)]
    );
    assert_eq!(
        listed(Some(Kind::Skill)).await,
        [("add-entity".to_owned(), Kind::Skill)]
    );
    assert_eq!(listed(None).await.len(), 2);
    let hits = store
        .search("layered architecture", 5)
        .await
        .expect("search");
    assert_eq!(
        hits.iter()
            .map(|h| (h.name.as_str(), h.kind))
            .collect::<Vec<_>>(),
        [("clean-service", Kind::Package)]
    );
    // A skill and a package never hash alike, even with the same text.
    let as_skill = SkillSnapshot::new(first.skill_md.clone(), first.files.clone()).expect("skill");
    assert_ne!(as_skill.content_hash(), first.content_hash());
}

pub(crate) async fn a_skill_belongs_to_at_most_one_package(store: &dyn Store) {
    store
        .create(
            package("pkg-a", &["x", "y"], "a"),
            imported("/s/pkg-a"),
            by("ana", "a"),
        )
        .await
        .expect("pkg-a");
    let error = fails(store.create(
        package("pkg-b", &["y"], "b"),
        imported("/s/pkg-b"),
        by("ben", "b"),
    ))
    .await;
    let message = error.to_string();
    assert!(
        matches!(error, StoreError::InvalidState(_))
            && message.contains("`y`")
            && message.contains("`pkg-a`"),
        "{message}"
    );
    assert!(matches!(
        fails(store.get("pkg-b", None)).await,
        StoreError::NotFound { .. }
    ));
    // Taken out of pkg-a, `y` can join pkg-b.
    store
        .update(
            "pkg-a",
            1,
            package("pkg-a", &["x"], "a"),
            by("ana", "y leaves"),
        )
        .await
        .expect("update pkg-a");
    store
        .create(
            package("pkg-b", &["y"], "b"),
            imported("/s/pkg-b"),
            by("ben", "b"),
        )
        .await
        .expect("pkg-b");
    // A deleted package holds its members no more; restored, it must claim them again.
    store
        .delete("pkg-b", 1, by("ben", "gone"))
        .await
        .expect("delete");
    store
        .update(
            "pkg-a",
            2,
            package("pkg-a", &["x", "y"], "a"),
            by("ana", "y back"),
        )
        .await
        .expect("y back in pkg-a");
    let error = fails(store.restore("pkg-b", 2, by("ben", "back"))).await;
    assert!(error.to_string().contains("`y`"), "{error}");
    assert!(store.get("pkg-b", None).await.expect("pkg-b").deleted);
    // One member under two folders is refused: the store knows a member by its name.
    let twice = SkillSnapshot::package(
        package_md("pkg-c", &["z"]).replace("  - skills/z\n", "  - skills/z\n  - more/z\n"),
        Vec::new(),
    )
    .expect("snapshot");
    let error = fails(store.create(twice, imported("/s/pkg-c"), by("ana", "c"))).await;
    assert!(
        matches!(error, StoreError::InvalidSkill(_)) && error.to_string().contains("twice"),
        "{error}"
    );
}

pub(crate) async fn an_item_keeps_its_kind(store: &dyn Store) {
    store
        .create(
            skill("alpha", "A skill.", "Body."),
            imported("/s/alpha"),
            by("ana", "skill"),
        )
        .await
        .expect("skill");
    let error = fails(store.create(
        package("alpha", &[], "p"),
        imported("/s/alpha-pkg"),
        by("ana", "pkg"),
    ))
    .await;
    assert!(matches!(error, StoreError::AlreadyExists { .. }), "{error}");
    store
        .create(
            package("beta", &[], "p"),
            imported("/s/beta"),
            by("ana", "pkg"),
        )
        .await
        .expect("package");
    let not_a_skill = skill("beta", "Now a skill?", "Body.");
    let error = fails(store.update("beta", 1, not_a_skill.clone(), by("ana", "x"))).await;
    assert!(error.to_string().contains("keeps its kind"), "{error}");
    let error = fails(store.import(
        vec![ImportItem {
            snapshot: not_a_skill,
            provenance: imported("/s/beta"),
        }],
        by("import", "x"),
    ))
    .await;
    assert!(error.to_string().contains("keeps its kind"), "{error}");
    assert_eq!(
        store.get("beta", None).await.expect("beta").snapshot.kind,
        Kind::Package
    );
    // A package whose manifest has no kebab-case name is not stored.
    let unnamed = SkillSnapshot::package(
        "---\nname: Not Kebab\ndescription: d\n---\n".to_owned(),
        Vec::new(),
    )
    .expect("snapshot");
    let error = fails(store.create(unnamed, imported("/s/x"), by("ana", "x"))).await;
    assert!(error.to_string().contains("kebab-case"), "{error}");
}

/// Two writers (tasks, on their own connections) create packages claiming one skill at once:
/// exactly one is stored.
pub(crate) async fn concurrent_packages_claiming_one_skill_let_exactly_one_win(
    store: Arc<dyn Store>,
) {
    for round in 0..5 {
        let barrier = Arc::new(tokio::sync::Barrier::new(3));
        let member = format!("shared-{round}");
        let tasks: Vec<_> = (0..3)
            .map(|n| {
                let (store, barrier, member) =
                    (Arc::clone(&store), Arc::clone(&barrier), member.clone());
                tokio::spawn(async move {
                    let name = format!("racer-{round}-{n}");
                    barrier.wait().await;
                    store
                        .create(
                            package(&name, &[&member], "p"),
                            imported(&format!("/s/{name}")),
                            by("r", "race"),
                        )
                        .await
                })
            })
            .collect();
        let mut won = 0;
        for task in tasks {
            match task.await.expect("task ran") {
                Ok(_) => won += 1,
                Err(error) => assert!(
                    error.to_string().contains(&format!("`{member}`")),
                    "{error}"
                ),
            }
        }
        assert_eq!(won, 1, "round {round}");
    }
}

/// Every file under `dir`, by path relative to it, with its bytes.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).expect("read dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let relative = path
                    .strip_prefix(root)
                    .expect("inside")
                    .to_string_lossy()
                    .replace('\\', "/");
                out.insert(relative, std::fs::read(&path).expect("read"));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// The example package of the repository.
fn example_package() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/packages/dotnet-clean-architecture")
}

pub(crate) async fn a_package_folder_imports_and_exports_byte_for_byte(store: &dyn Store) {
    let example = example_package();
    let located = FolderSources {
        roots: vec![example.clone()],
        ..FolderSources::default()
    }
    .locate();
    let read = read_folders(located.folders, &[], &|_| {});
    assert!(read.skipped.is_empty(), "{:?}", read.skipped);
    let report = store
        .import_folders(read.items, by("import", "the example"))
        .await
        .expect("import");
    let mut created = report.created.clone();
    created.sort();
    assert_eq!(
        created,
        [
            "add-endpoint",
            "add-entity",
            "add-repository",
            "dotnet-clean-architecture"
        ]
    );
    let stored = store
        .get("dotnet-clean-architecture", None)
        .await
        .expect("package");
    assert_eq!(stored.snapshot.kind, Kind::Package);
    let pages: Vec<&str> = stored
        .snapshot
        .files
        .iter()
        .map(|f| f.path.as_str())
        .collect();
    assert_eq!(pages, ["docs/architecture.md", "docs/conventions.md"]);
    // Its members are the package's, as its manifest lists them.
    let (_, manifest, _) = skillpath_core::package::read_manifest(
        "PACKAGE.md".into(),
        stored.snapshot.skill_md.clone(),
    );
    let manifest = manifest.expect("the manifest names the package");
    let mut members = Vec::new();
    for name in manifest.member_names() {
        let folder = manifest.member_folder(&name).expect("listed").to_owned();
        members.push((
            folder,
            store.get(&name, None).await.expect("member").snapshot,
        ));
    }
    let out = tempfile::tempdir().expect("temp");
    let dir = out.path().join("dotnet-clean-architecture");
    export_package_folder(&dir, &stored.snapshot, &members, false).expect("export");
    assert_eq!(tree(&dir), tree(&example));
    // Imported again from the export, nothing changes.
    let again = FolderSources {
        roots: vec![dir],
        ..FolderSources::default()
    }
    .locate();
    let read = read_folders(again.folders, &[], &|_| {});
    let report = store
        .import_folders(read.items, by("import", "again"))
        .await
        .expect("import again");
    assert_eq!(
        (
            report.created.len(),
            report.updated.len(),
            report.unchanged.len()
        ),
        (0, 0, 4),
        "{report:?}"
    );
}

pub(crate) async fn a_member_is_created_with_its_package_update_or_not_at_all(store: &dyn Store) {
    store
        .create(
            package("svc", &[], "p"),
            imported("/s/svc"),
            by("ana", "svc"),
        )
        .await
        .expect("package");
    let member = skill("add-thing", "Adds a thing.", "Body.");
    // The package moved on (stale): neither the skill nor the package is written.
    let error = fails(store.create_member(
        member.clone(),
        imported("/s/add-thing"),
        ("svc", 7),
        by("ana", "join"),
    ))
    .await;
    assert!(
        matches!(error, StoreError::StaleRevision { actual: 1, .. }),
        "{error}"
    );
    assert!(matches!(
        fails(store.get("add-thing", None)).await,
        StoreError::NotFound { .. }
    ));
    let (created, updated) = store
        .create_member(
            member,
            imported("/s/add-thing"),
            ("svc", 1),
            by("ana", "join"),
        )
        .await
        .expect("both");
    assert_eq!((created.revision, updated.revision), (1, 2));
    assert!(updated.snapshot.skill_md.contains("skills/add-thing"));
}
