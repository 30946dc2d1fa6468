//! The suite on SQLite (a fresh temp-file database per test), and what is SQLite's own:
//! reopening a file, schema versions, two connections on one file, and the blob table.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use skillpath_model::{ImportItem, Provenance};
use skillpath_store::{ListFilter, SqliteStore, Store, StoreError};

use crate::support::{
    Backend, by, history_of, imported, list_all, md, search_names, skill, snapshot,
};

/// A fresh SQLite store in a temp folder, removed when the test ends.
pub(crate) async fn open_sqlite() -> Backend {
    let dir = tempfile::tempdir().expect("a temp folder");
    let path = dir.path().join("skills.db");
    let store = SqliteStore::open(&path).expect("the database opens");
    let size_of = path.clone();
    Backend::new(
        Arc::new(store),
        dir,
        move || Some(database_size(&size_of)),
        Box::new(move |view| {
            let path = path.clone();
            Box::pin(async move {
                let store: Arc<dyn Store> =
                    Arc::new(SqliteStore::open_in(&path, &view).expect("the database opens"));
                store
            })
        }),
    )
}

/// The sizes of the database file and its WAL and shared-memory files.
fn database_size(path: &Path) -> String {
    let sizes: Vec<(&str, u64)> = ["", "-wal", "-shm"]
        .into_iter()
        .map(|suffix| {
            let mut name = path.as_os_str().to_owned();
            name.push(suffix);
            (
                suffix,
                std::fs::metadata(PathBuf::from(name)).map_or(0, |m| m.len()),
            )
        })
        .collect();
    let mb = |bytes: u64| bytes as f64 / 1e6;
    let total: u64 = sizes.iter().map(|(_, size)| size).sum();
    format!(
        "{:.1} MB (database {:.1} MB, WAL {:.1} MB, shm {:.2} MB)",
        mb(total),
        mb(sizes[0].1),
        mb(sizes[1].1),
        mb(sizes[2].1)
    )
}

crate::suite::store_suite!(open_sqlite);

fn count(path: &Path, sql: &str) -> i64 {
    let connection = rusqlite::Connection::open(path).expect("open the database directly");
    connection
        .query_row(sql, [], |row| row.get(0))
        .expect("count")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn reopening_the_file_keeps_everything() {
    let dir = tempfile::tempdir().expect("a temp folder");
    // A folder that does not exist yet: `open` creates it.
    let path = dir.path().join("nested/folder/skills.db");
    let binary: Vec<u8> = (0..=255).rev().collect();
    let (skills, histories, listing, hits) = {
        let store = SqliteStore::open(&path).expect("open");
        let a = snapshot(
            md("keeper", "Kept across opens", "About manatees."),
            &[("bin/data", &binary)],
        );
        store
            .create(a, imported("/s/keeper"), by("alice", "create"))
            .await
            .expect("create");
        store
            .update(
                "keeper",
                1,
                skill("keeper", "Kept across opens", "About dugongs."),
                by("bob", "edit"),
            )
            .await
            .expect("update");
        store
            .create(
                skill("dropped", "Deleted one", "x"),
                Provenance::Api,
                by("alice", "create"),
            )
            .await
            .expect("create");
        store
            .delete("dropped", 1, by("alice", "delete"))
            .await
            .expect("delete");
        let item = ImportItem {
            snapshot: skill("brought", "Imported one", "About dugongs too."),
            provenance: imported("/s/brought"),
        };
        store
            .import(vec![item], by("import", "import"))
            .await
            .expect("import");

        let mut skills = Vec::new();
        for (name, revision) in [
            ("keeper", None),
            ("keeper", Some(1)),
            ("dropped", None),
            ("brought", None),
        ] {
            skills.push(store.get(name, revision).await.expect("get"));
        }
        let mut histories = Vec::new();
        for name in ["keeper", "dropped", "brought"] {
            histories.push(store.history(name).await.expect("history"));
        }
        let listing = list_all(
            &store,
            ListFilter {
                include_deleted: true,
                name_prefix: None,
                kind: None,
            },
            2,
        )
        .await;
        let hits = store.search("dugongs", 10).await.expect("search");
        (skills, histories, listing, hits)
    };
    assert!(path.exists());

    let store = SqliteStore::open(&path).expect("reopen");
    assert_eq!(store.path(), path);
    for before in &skills {
        let after = store
            .get(&before.name, Some(before.revision))
            .await
            .expect("get after reopen");
        assert_eq!(&after, before);
    }
    assert_eq!(store.get("keeper", None).await.expect("get").revision, 2);
    assert!(store.get("dropped", None).await.expect("get").deleted);
    for before in &histories {
        assert_eq!(
            &store.history(&before[0].skill).await.expect("history"),
            before
        );
    }
    assert_eq!(
        list_all(
            &store,
            ListFilter {
                include_deleted: true,
                name_prefix: None,
                kind: None,
            },
            2
        )
        .await,
        listing
    );
    assert_eq!(store.search("dugongs", 10).await.expect("search"), hits);
    assert_eq!(hits.len(), 2);
    assert_eq!(search_names(&store, "manatees").await, Vec::<String>::new());

    // And it goes on from where it was.
    let next = store
        .update(
            "keeper",
            2,
            skill("keeper", "Kept", "Third."),
            by("carol", "third"),
        )
        .await
        .expect("update");
    assert_eq!(next.revision, 3);
    let error = store
        .create(skill("dropped", "d", "b"), Provenance::Api, by("a", "m"))
        .await
        .expect_err("exists");
    assert!(
        matches!(
            error,
            StoreError::AlreadyExists {
                revision: 2,
                deleted: true,
                ..
            }
        ),
        "{error:?}"
    );
    drop(store);
    let store = SqliteStore::open(&path).expect("third open");
    assert_eq!(history_of(&store, "keeper").await.len(), 3);
}

/// Sets the database's schema version, and the oldest version that may use it, as a newer
/// skillpath's migration would.
fn pretend_newer(path: &std::path::Path, version: i64, oldest: i64) {
    let connection = rusqlite::Connection::open(path).expect("open directly");
    connection
        .pragma_update(None, "user_version", version)
        .expect("set user_version");
    connection
        .execute("UPDATE schema_compatibility SET oldest = ?1", [oldest])
        .expect("set oldest");
}

/// During a rolling upgrade an older skillpath meets a database a newer one migrated: after an
/// additive migration it keeps working (and migrates nothing back); after a breaking one it
/// refuses to start, changing nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_from_a_newer_version_is_used_only_when_compatible() {
    let dir = tempfile::tempdir().expect("a temp folder");
    let path = dir.path().join("skills.db");
    {
        let store = SqliteStore::open(&path).expect("open");
        store
            .create(skill("precious", "d", "b"), Provenance::Api, by("a", "m"))
            .await
            .expect("create");
    }
    let known = count(&path, "SELECT user_version FROM pragma_user_version");
    let oldest = count(&path, "SELECT oldest FROM schema_compatibility");
    assert!(
        known >= 2 && oldest >= 1 && oldest <= known,
        "{known} {oldest}"
    );

    // Newer, additive: reads and writes go on.
    pretend_newer(&path, known + 1, oldest);
    let store = SqliteStore::open(&path).expect("an additive newer schema is used");
    store
        .update("precious", 1, skill("precious", "d2", "b"), by("a", "m"))
        .await
        .expect("a write");
    drop(store);
    assert_eq!(
        count(&path, "SELECT user_version FROM pragma_user_version"),
        known + 1
    );

    // Newer, breaking: refused, and nothing changes.
    pretend_newer(&path, known + 1, known + 1);
    let error = SqliteStore::open(&path).expect_err("a breaking newer schema is refused");
    assert!(matches!(error, StoreError::Database(_)), "{error:?}");
    assert_eq!(
        error.to_string(),
        format!(
            "the database failed: the database has schema version {}, which needs a skillpath that knows at least version {}; this one knows {known}: upgrade skillpath",
            known + 1,
            known + 1
        )
    );
    assert_eq!(
        count(&path, "SELECT user_version FROM pragma_user_version"),
        known + 1
    );
    assert_eq!(count(&path, "SELECT max(number) FROM revisions"), 2);

    // A far newer version, too.
    pretend_newer(&path, 1_000_000, 1_000_000);
    let error = SqliteStore::open(&path).expect_err("refused");
    assert!(
        error
            .to_string()
            .contains("schema version 1000000, which needs"),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_that_is_not_a_database_is_refused() {
    let dir = tempfile::tempdir().expect("a temp folder");
    let path = dir.path().join("skills.db");
    std::fs::write(
        &path,
        "this is a text file, not a SQLite database, and it is long enough to have a header\n"
            .repeat(20),
    )
    .expect("write");
    let error = SqliteStore::open(&path).expect_err("refused");
    assert!(matches!(error, StoreError::Database(_)), "{error:?}");
    assert!(error.to_string().contains("not a database"), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn identical_files_are_stored_once() {
    let dir = tempfile::tempdir().expect("a temp folder");
    let db = dir.path().join("skills.db");
    let store = SqliteStore::open(&db).expect("open");
    let license = b"Apache License 2.0\n".repeat(100);
    for name in ["blob-a", "blob-b", "blob-c"] {
        let content = snapshot(
            md(name, "d", "b"),
            &[
                ("LICENSE", &license),
                ("copy/LICENSE", &license),
                ("own.txt", name.as_bytes()),
            ],
        );
        store
            .create(content, Provenance::Api, by("a", "m"))
            .await
            .expect("create");
    }
    // One blob for the license, one per `own.txt`.
    assert_eq!(count(&db, "SELECT count(*) FROM blobs"), 4);
    assert_eq!(count(&db, "SELECT count(*) FROM revision_files"), 9);
    let sha = skillpath_model::sha256_hex(&license);
    assert_eq!(
        count(
            &db,
            &format!(
                "SELECT count(*) FROM blobs WHERE sha256 = '{sha}' AND size = {}",
                license.len()
            )
        ),
        1
    );
    assert_eq!(
        count(
            &db,
            &format!("SELECT length(bytes) FROM blobs WHERE sha256 = '{sha}'")
        ),
        license.len() as i64
    );

    // A new revision that keeps the files adds no blob; changed bytes add one each.
    store
        .update(
            "blob-a",
            1,
            snapshot(
                md("blob-a", "d2", "b"),
                &[("LICENSE", &license), ("own.txt", b"blob-a")],
            ),
            by("a", "m"),
        )
        .await
        .expect("update");
    assert_eq!(count(&db, "SELECT count(*) FROM blobs"), 4);
    store
        .update(
            "blob-a",
            2,
            snapshot(
                md("blob-a", "d3", "b"),
                &[("LICENSE", b"MIT\n"), ("own.txt", b"blob-a")],
            ),
            by("a", "m"),
        )
        .await
        .expect("update");
    assert_eq!(count(&db, "SELECT count(*) FROM blobs"), 5);
    // Delete, restore, rollback and an unchanged import reuse what is stored.
    store
        .delete("blob-b", 1, by("a", "m"))
        .await
        .expect("delete");
    store
        .restore("blob-b", 2, by("a", "m"))
        .await
        .expect("restore");
    store
        .rollback("blob-a", 1, 3, by("a", "m"))
        .await
        .expect("rollback");
    let same = snapshot(
        md("blob-c", "d", "b"),
        &[
            ("LICENSE", &license),
            ("copy/LICENSE", &license),
            ("own.txt", b"blob-c"),
        ],
    );
    store
        .import(
            vec![ImportItem {
                snapshot: same,
                provenance: imported("/c"),
            }],
            by("import", "m"),
        )
        .await
        .expect("import");
    assert_eq!(count(&db, "SELECT count(*) FROM blobs"), 5);
    // Every blob's size and hash match its bytes.
    let connection = rusqlite::Connection::open(&db).expect("open");
    let mut statement = connection
        .prepare("SELECT sha256, size, bytes FROM blobs")
        .expect("prepare");
    let rows = statement
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, Vec<u8>>(2)?,
            ))
        })
        .expect("query")
        .collect::<Result<Vec<_>, _>>()
        .expect("rows");
    for (sha, size, bytes) in rows {
        assert_eq!(sha, skillpath_model::sha256_hex(&bytes));
        assert_eq!(size, bytes.len() as i64);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_connections_on_one_file_serialize_their_writes() {
    let dir = tempfile::tempdir().expect("a temp folder");
    let path = dir.path().join("skills.db");
    let first: Arc<dyn Store> = Arc::new(SqliteStore::open(&path).expect("open"));
    let second: Arc<dyn Store> = Arc::new(SqliteStore::open(&path).expect("open again"));
    first
        .create(skill("contested", "v1", "b"), Provenance::Api, by("a", "m"))
        .await
        .expect("create");
    for round in 1..=20u64 {
        let barrier = Arc::new(tokio::sync::Barrier::new(2));
        let tasks: Vec<_> = [("one", Arc::clone(&first)), ("two", Arc::clone(&second))]
            .into_iter()
            .map(|(who, store)| {
                let barrier = Arc::clone(&barrier);
                tokio::spawn(async move {
                    barrier.wait().await;
                    store
                        .update(
                            "contested",
                            round,
                            skill("contested", &format!("{round} {who}"), who),
                            by(who, "m"),
                        )
                        .await
                })
            })
            .collect();
        let mut results = Vec::new();
        for task in tasks {
            results.push(task.await.expect("task ran"));
        }
        assert_eq!(
            results.iter().filter(|r| r.is_ok()).count(),
            1,
            "round {round}: {results:?}"
        );
        let error = results
            .iter()
            .find_map(|r| r.as_ref().err())
            .expect("a loser");
        assert!(
            matches!(error, StoreError::StaleRevision { expected, actual, .. } if *expected == round && *actual == round + 1),
            "{error:?}"
        );
    }
    assert_eq!(
        second.history("contested").await.expect("history").len(),
        21
    );
    assert_eq!(
        first.get("contested", None).await.expect("get").revision,
        21
    );
}

/// A database written by skillpath before skills had projects (schema 3, made by `skillpath
/// import --discover` in `/tmp/skillpath-legacy/proj`, a repository with a project skill
/// `deploy`, and a user skill `notes` in `/tmp/skillpath-legacy/home`): upgrading gives the
/// project skill its project, so other projects stop seeing it, and keeps every revision.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn upgrading_a_database_gives_skills_discovered_in_a_project_their_project() {
    let dir = tempfile::tempdir().expect("a temp folder");
    let path = dir.path().join("legacy.db");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/it/fixtures/schema-3-with-project-skills.db");
    std::fs::copy(&fixture, &path).expect("copy the fixture");
    assert_eq!(
        count(&path, "SELECT user_version FROM pragma_user_version"),
        3
    );

    let elsewhere = SqliteStore::open(&path).expect("the upgrade runs");
    let names = |skills: Vec<skillpath_store::StoredSkill>| -> Vec<String> {
        skills.into_iter().map(|skill| skill.name).collect()
    };
    assert_eq!(
        names(elsewhere.current_skills().await.expect("skills")),
        ["notes"],
        "another project no longer sees the project's skill"
    );
    // The project folder no longer exists here: the view is the folder as given.
    let view = skillpath_store::ProjectView::of(Path::new("/tmp/skillpath-legacy/proj"));
    let in_project = SqliteStore::open_in(&path, &view).expect("open in the project");
    assert_eq!(
        names(in_project.current_skills().await.expect("skills")),
        ["deploy", "notes"]
    );
    let deploy = in_project.get("deploy", None).await.expect("deploy");
    assert_eq!(deploy.description, "Use when deploying the legacy project.");
    assert_eq!(
        in_project.history("deploy").await.expect("history").len(),
        1
    );
    // The search index is made again from the old one's text: names, descriptions, bodies.
    assert_eq!(search_names(&in_project, "deploy").await, ["deploy"]);
    assert_eq!(search_names(&in_project, "legacy").await, ["deploy"]);
    let hits = in_project.search("body", 10).await.expect("search");
    let names: Vec<&str> = hits.iter().map(|hit| hit.name.as_str()).collect();
    assert_eq!(names, ["deploy", "notes"], "{hits:?}");
    assert!(
        hits.iter().all(|hit| hit.snippet.contains("[Body]")),
        "{hits:?}"
    );
    assert_eq!(
        count(&path, "SELECT count(*) FROM pragma_foreign_key_check"),
        0
    );
    assert_eq!(
        count(
            &path,
            "SELECT count(*) FROM skills WHERE project = '/tmp/skillpath-legacy/proj'"
        ),
        1
    );
}

/// A database whose revisions were written before their heads were kept (schema version 5)
/// gets them as it is migrated, and reads the same metadata as its content says; a revision
/// an older skillpath writes without them afterwards (the migration is additive) is read from
/// its content.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn revisions_written_before_their_heads_were_kept_are_listed_alike() {
    let dir = tempfile::tempdir().expect("a temp folder");
    let path = dir.path().join("skills.db");
    let before = {
        let store = SqliteStore::open(&path).expect("open");
        crate::suite::live_skills_and_a_deleted_one(&store).await;
        store.current_metadata().await.expect("metadata")
    };
    let downgrade = "ALTER TABLE revision_files DROP COLUMN size;
        ALTER TABLE revision_files DROP COLUMN text;
        DROP TABLE revision_heads;
        DROP TABLE revision_audits;
        DROP TABLE package_members;
        DROP TABLE drafts;
        DROP TABLE skill_usage;
        DROP TABLE releases;
        DROP TABLE release_tags;
        DROP TABLE release_proposals;
        DROP TABLE governance_log;
        DROP TABLE stars;
        DROP TABLE members;
        DROP TABLE namespaces;
        DROP TABLE users;
        DROP TABLE registry_uploads;
        DROP TABLE user_identities;
        ALTER TABLE api_keys DROP COLUMN user_handle;
        ALTER TABLE api_keys DROP COLUMN namespaces;
        ALTER TABLE api_keys DROP COLUMN channel;
        ALTER TABLE skills DROP COLUMN visibility;
        ALTER TABLE skills DROP COLUMN owner;
        ALTER TABLE skills DROP COLUMN kind;
        PRAGMA user_version = 5;";
    rusqlite::Connection::open(&path)
        .expect("open directly")
        .execute_batch(downgrade)
        .expect("the schema as version 5 made it");
    let store = SqliteStore::open(&path).expect("migrated");
    let (metadata, _) = crate::suite::metadata_of_the_content(&store).await;
    assert_eq!(metadata, before);
    let unfilled = "SELECT (SELECT count(*) FROM revision_files WHERE size IS NULL OR text IS NULL)
        + (SELECT count(*) FROM revisions r WHERE NOT EXISTS
            (SELECT 1 FROM revision_heads h WHERE h.skill_id = r.skill_id AND h.number = r.number))";
    assert_eq!(count(&path, unfilled), 0, "every revision has its head");
    assert!(count(&path, "SELECT count(*) FROM revision_files WHERE NOT text") > 0);

    rusqlite::Connection::open(&path)
        .expect("open directly")
        .execute_batch(
            "UPDATE revision_files SET size = NULL, text = NULL; DELETE FROM revision_heads;",
        )
        .expect("revisions as an older skillpath writes them");
    let (metadata, _) = crate::suite::metadata_of_the_content(&store).await;
    assert_eq!(metadata, before);
}

/// An entry of the governance log changed in the database file, or one removed, breaks the
/// chain there: verifying the log names the first broken entry.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tampered_governance_log_names_its_first_broken_entry() {
    use skillpath_model::governance::{self, Broken};
    use skillpath_store::directory::{Governance, LogFilter};
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("skills.db");
    let store = SqliteStore::open(&path).expect("open");
    for handle in ["alice", "bob", "carol"] {
        let person = Governance::CreateUser {
            handle: handle.to_owned(),
            display_name: String::new(),
            admin: false,
        };
        store.govern(person, "admin").await.expect("a person");
    }
    let log = store
        .governance_log(LogFilter::default())
        .await
        .expect("log");
    assert_eq!(governance::verify(&log), Ok(()));
    let direct = rusqlite::Connection::open(&path).expect("open directly");
    direct
        .execute(
            "UPDATE governance_log SET actor = 'mallory' WHERE seq = 2",
            [],
        )
        .expect("tampered");
    let log = store
        .governance_log(LogFilter::default())
        .await
        .expect("log");
    assert_eq!(governance::verify(&log), Err(Broken::Altered { seq: 2 }));
    let said = governance::verify(&log).expect_err("broken").to_string();
    assert!(said.contains("entry 2"), "{said}");
    direct
        .execute("DELETE FROM governance_log WHERE seq = 2", [])
        .expect("removed");
    let log = store
        .governance_log(LogFilter::default())
        .await
        .expect("log");
    assert_eq!(
        governance::verify(&log),
        Err(Broken::Gap {
            seq: 3,
            expected: 2
        })
    );
}

/// A SQLite store made by the release before people, upgraded in place
/// ([`crate::directory::a_store_made_before_people_keeps_everything`]).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_made_before_people_is_upgraded_losing_nothing() {
    let dir = tempfile::tempdir().expect("a temp folder");
    let path = made_before_people(dir.path());
    let store = SqliteStore::open(&path).expect("the upgrade runs");
    crate::directory::a_store_made_before_people_keeps_everything(&store).await;
}

/// The same SQLite store upgraded into `@platform`
/// ([`crate::directory::a_store_upgraded_into_a_namespace_keeps_everything_there`]).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_made_before_people_is_upgraded_into_a_namespace() {
    let dir = tempfile::tempdir().expect("a temp folder");
    let path = made_before_people(dir.path());
    let upgrade = skillpath_store::Upgrade {
        namespace: skillpath_model::Namespace::parse("@platform").expect("a namespace"),
    };
    let (store, upgraded) =
        SqliteStore::open_upgrading(&path, &skillpath_store::ProjectView::shared(), &upgrade)
            .expect("the upgrade runs");
    assert!(
        upgraded.placed && upgraded.from < upgraded.to,
        "{upgraded:?}"
    );
    crate::directory::a_store_upgraded_into_a_namespace_keeps_everything_there(&store).await;
    drop(store);
    let (_, again) =
        SqliteStore::open_upgrading(&path, &skillpath_store::ProjectView::shared(), &upgrade)
            .expect("opens");
    assert!(!again.placed && again.from == again.to, "{again:?}");
}

/// A copy, in `dir`, of the SQLite store made by the release before people.
fn made_before_people(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("before-people.db");
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/fixtures/made-before-people.db");
    std::fs::copy(&fixture, &path).expect("copy the fixture");
    path
}
