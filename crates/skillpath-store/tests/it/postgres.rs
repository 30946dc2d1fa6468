//! The suite on PostgreSQL: each test in a fresh schema of the server that
//! `$SKILLPATH_TEST_POSTGRES` names (default `postgres://postgres@127.0.0.1:5432/test`, trust
//! auth), dropped when the test ends; and what is PostgreSQL's own: opening one database from
//! several stores at once. An unreachable server fails the tests; it never skips them.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use skillpath_model::Provenance;
use skillpath_store::{PostgresStore, Store};

use crate::support::{Backend, by, skill};

/// The server the tests use.
fn server_url() -> String {
    std::env::var("SKILLPATH_TEST_POSTGRES")
        .ok()
        .filter(|url| !url.is_empty())
        .unwrap_or_else(|| "postgres://postgres@127.0.0.1:5432/test".to_owned())
}

/// A schema name no other test (or run) uses.
fn fresh_schema() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "t_{}_{}_{}",
        std::process::id(),
        nanos,
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// `url` with `search_path` set to `schema` through the connection's options.
fn url_in_schema(url: &str, schema: &str) -> String {
    let separator = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separator}options=-c%20search_path%3D{schema}")
}

/// Runs `future` to completion on a runtime of its own, in a thread of its own: for `Drop`
/// and size callbacks, which are synchronous but may run inside a test's runtime.
fn block_on_thread<T: Send + 'static>(
    future: impl Future<Output = T> + Send + 'static,
) -> Option<T> {
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .ok()
            .map(|runtime| runtime.block_on(future))
    })
    .join()
    .ok()
    .flatten()
}

/// Connects to the server directly (no store), failing the test with the fix when it is down.
async fn connect(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap_or_else(|error| {
            panic!(
                "PostgreSQL is not reachable at `{url}`: {error}. The PostgreSQL store tests need \
                 a server with trust auth (start it, e.g. `pg_ctlcluster 15 main start`, or point \
                 SKILLPATH_TEST_POSTGRES at one)"
            )
        });
    tokio::spawn(connection);
    client
}

/// A schema created for one test and dropped (with everything in it) when dropped.
struct Schema {
    url: String,
    name: String,
}

impl Schema {
    async fn create() -> Schema {
        let url = server_url();
        let name = fresh_schema();
        connect(&url)
            .await
            .batch_execute(&format!("CREATE SCHEMA {name}"))
            .await
            .expect("create the test's schema");
        Schema { url, name }
    }

    fn url(&self) -> String {
        url_in_schema(&self.url, &self.name)
    }
}

impl Drop for Schema {
    fn drop(&mut self) {
        let (url, name) = (self.url.clone(), self.name.clone());
        block_on_thread(async move {
            if let Ok((client, connection)) =
                tokio_postgres::connect(&url, tokio_postgres::NoTls).await
            {
                tokio::spawn(connection);
                let _ = client
                    .batch_execute(&format!("DROP SCHEMA IF EXISTS {name} CASCADE"))
                    .await;
            }
        });
    }
}

/// A fresh PostgreSQL store in a schema of its own.
pub(crate) async fn open_postgres() -> Backend {
    let schema = Schema::create().await;
    let store = PostgresStore::open(&schema.url())
        .await
        .unwrap_or_else(|error| {
            panic!("the PostgreSQL store opens at `{}`: {error}", schema.url())
        });
    let (url, name) = (schema.url.clone(), schema.name.clone());
    let view_url = schema.url();
    let open_in: crate::support::OpenIn = Box::new(move |view| {
        let url = view_url.clone();
        Box::pin(async move {
            let store: Arc<dyn Store> = Arc::new(
                PostgresStore::open_in(&url, &view)
                    .await
                    .expect("the PostgreSQL store opens"),
            );
            store
        })
    });
    Backend::new(
        Arc::new(store),
        schema,
        move || {
            let (url, name) = (url.clone(), name.clone());
            block_on_thread(async move {
                let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                    .await
                    .ok()?;
                tokio::spawn(connection);
                let bytes: i64 = client
                    .query_one(
                        "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::bigint
                     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                     WHERE n.nspname = $1 AND c.relkind IN ('r', 'm')",
                        &[&name],
                    )
                    .await
                    .ok()?
                    .get(0);
                Some(format!(
                    "{:.1} MB (tables with indexes and TOAST)",
                    bytes as f64 / 1e6
                ))
            })
            .flatten()
        },
        open_in,
    )
}

crate::suite::store_suite!(open_postgres);

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn stores_opening_one_new_schema_at_once_migrate_it_once() {
    let schema = Schema::create().await;
    let url = schema.url();
    let opens: Vec<_> = (0..6)
        .map(|_| {
            let url = url.clone();
            tokio::spawn(async move { PostgresStore::open(&url).await })
        })
        .collect();
    let mut stores = Vec::new();
    for open in opens {
        stores.push(open.await.expect("task ran").expect("the store opens"));
    }
    let version = stores[0].schema_version().await.expect("version");
    assert!(version >= 4, "every migration ran: {version}");
    for store in &stores {
        assert_eq!(store.schema_version().await.expect("version"), version);
    }
    let client = connect(&url).await;
    let rows = client
        .query("SELECT version FROM skillpath_migrations", &[])
        .await
        .expect("migrations");
    assert_eq!(rows.len(), version, "each migration ran once");
    // Reopening an up-to-date schema keeps the data.
    stores[0]
        .create(skill("kept", "d", "b"), Provenance::Api, by("a", "m"))
        .await
        .expect("create");
    let again = PostgresStore::open(&url).await.expect("reopen");
    assert_eq!(again.get("kept", None).await.expect("get").revision, 1);
}

/// During a rolling upgrade an older skillpath meets a database a newer one migrated: after an
/// additive migration it keeps working (and migrates nothing back); after a breaking one it
/// refuses to start, changing nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_schema_from_a_newer_version_is_used_only_when_compatible() {
    let schema = Schema::create().await;
    let url = schema.url();
    let store = PostgresStore::open(&url).await.expect("open");
    store
        .create(skill("precious", "d", "b"), Provenance::Api, by("a", "m"))
        .await
        .expect("create");
    let known = store.schema_version().await.expect("version") as i32;
    let client = connect(&url).await;
    let record = async |version: i32, oldest: i32| {
        client
            .execute(
                "INSERT INTO skillpath_migrations (version, applied_at, oldest_compatible) VALUES ($1, 'later', $2)",
                &[&version, &oldest],
            )
            .await
            .expect("record a newer migration");
    };

    record(known + 1, known).await;
    let older = PostgresStore::open(&url)
        .await
        .expect("an additive newer schema is used");
    older
        .update("precious", 1, skill("precious", "d2", "b"), by("a", "m"))
        .await
        .expect("a write");
    assert_eq!(
        older.schema_version().await.expect("version"),
        known as usize + 1
    );

    record(known + 2, known + 2).await;
    let error = PostgresStore::open(&url)
        .await
        .expect_err("a breaking newer schema is refused");
    assert!(
        error.to_string().contains(&format!(
            "the database has schema version {}, which needs a skillpath that knows at least version {}; this one knows {known}: upgrade skillpath",
            known + 2,
            known + 2
        )),
        "{error}"
    );
    assert_eq!(store.get("precious", None).await.expect("get").revision, 2);
    assert_eq!(
        store.schema_version().await.expect("version"),
        known as usize + 2
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_stores_on_one_database_refuse_each_others_stale_writes() {
    let schema = Schema::create().await;
    let a = PostgresStore::open(&schema.url()).await.expect("open a");
    let b = PostgresStore::open(&schema.url()).await.expect("open b");
    a.create(skill("shared", "v1", "b"), Provenance::Api, by("a", "m"))
        .await
        .expect("create");
    b.update("shared", 1, skill("shared", "v2", "b"), by("b", "m"))
        .await
        .expect("b updates");
    let error = a
        .update("shared", 1, skill("shared", "v2a", "b"), by("a", "m"))
        .await
        .expect_err("a's write is stale");
    assert!(
        matches!(
            error,
            skillpath_store::StoreError::StaleRevision {
                expected: 1,
                actual: 2,
                ..
            }
        ),
        "{error:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_unreachable_server_is_a_clear_error() {
    let error = PostgresStore::open("postgres://postgres@127.0.0.1:1/test")
        .await
        .expect_err("nothing listens on port 1");
    let text = error.to_string();
    assert!(
        text.contains("cannot connect to PostgreSQL at `127.0.0.1:1/test`"),
        "{text}"
    );
}

/// Waits up to `within` for a change signal on `changes`; whether one came.
async fn signalled(
    changes: &mut tokio::sync::broadcast::Receiver<()>,
    within: std::time::Duration,
) -> bool {
    matches!(
        tokio::time::timeout(within, changes.recv()).await,
        Ok(Ok(()) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)))
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn committed_writes_in_a_schema_reach_its_watchers_and_no_others() {
    use std::time::Duration;
    let schema = Schema::create().await;
    let other = Schema::create().await;
    let watcher = PostgresStore::open(&schema.url()).await.expect("open");
    let writer = PostgresStore::open(&schema.url()).await.expect("open");
    let elsewhere = PostgresStore::open(&other.url()).await.expect("open");
    let mut changes = watcher.watch_changes().expect("PostgreSQL offers changes");
    // The listener signals once when it starts listening (changes may have been missed).
    assert!(
        signalled(&mut changes, Duration::from_secs(2)).await,
        "when the listener starts"
    );

    writer
        .create(skill("seen", "d", "b"), Provenance::Api, by("a", "m"))
        .await
        .expect("create");
    assert!(
        signalled(&mut changes, Duration::from_secs(2)).await,
        "another store's create"
    );
    writer
        .update("seen", 1, skill("seen", "d2", "b"), by("a", "m"))
        .await
        .expect("update");
    assert!(
        signalled(&mut changes, Duration::from_secs(2)).await,
        "an update"
    );

    // Refused and unchanged writes, and writes in another schema, are not changes here.
    writer
        .update("seen", 1, skill("seen", "d3", "b"), by("a", "m"))
        .await
        .expect_err("stale");
    elsewhere
        .create(skill("seen", "d", "b"), Provenance::Api, by("a", "m"))
        .await
        .expect("create elsewhere");
    let unchanged = writer
        .import(
            vec![skillpath_model::ImportItem {
                snapshot: skill("seen", "d2", "b"),
                provenance: Provenance::Api,
            }],
            by("a", "m"),
        )
        .await
        .expect("import");
    assert_eq!(unchanged.unchanged, ["seen"]);
    assert!(
        !signalled(&mut changes, Duration::from_millis(500)).await,
        "no signal for a refused write, an unchanged import or another schema"
    );

    // The listener's connection is killed: it reconnects and signals once (changes may have
    // been missed meanwhile), then goes on.
    let admin = connect(&schema.url).await;
    let killed: i64 = admin
        .query_one(
            "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE application_name = 'skillpath listen ' || $1) t",
            &[&schema.name],
        )
        .await
        .expect("terminate the listeners")
        .get(0);
    assert!(killed >= 1, "the listener's backend was found");
    assert!(
        signalled(&mut changes, Duration::from_secs(3)).await,
        "after reconnecting"
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
    writer
        .delete("seen", 2, by("a", "m"))
        .await
        .expect("delete");
    assert!(
        signalled(&mut changes, Duration::from_secs(2)).await,
        "after the reconnection"
    );
}

/// A store that follows changes keeps the counts its searches weigh words by, and drops them
/// when another store's write is signalled: a word that becomes common stops outweighing a
/// rarer one at the next search, as it would in a store that counts every time.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn kept_search_counts_follow_another_stores_writes() {
    use std::time::Duration;
    let schema = Schema::create().await;
    let searcher = PostgresStore::open(&schema.url()).await.expect("open");
    let writer = PostgresStore::open(&schema.url()).await.expect("open");
    let item = |name: String, description: String| skillpath_model::ImportItem {
        snapshot: skill(&name, &description, "Steps."),
        provenance: Provenance::Api,
    };
    // 44 skills, so that a word said by up to 4 of them (a tenth) is counted exactly: `alpha`
    // by one, `beta` by three; the skill saying the rarer word ranks first.
    let mut items: Vec<_> = (0..40)
        .map(|n| {
            item(
                format!("filler-{n}"),
                format!("Unrelated chores, number {n}."),
            )
        })
        .collect();
    items.push(item("a-one".into(), "Use alpha tools.".into()));
    for name in ["b-one", "b-two", "b-three"] {
        items.push(item(name.into(), "Use beta tools.".into()));
    }
    writer.import(items, by("a", "m")).await.expect("import");
    let mut changes = searcher.watch_changes().expect("PostgreSQL offers changes");
    assert!(
        signalled(&mut changes, Duration::from_secs(2)).await,
        "listening"
    );
    let first = async || {
        searcher.search("alpha beta", 5).await.expect("search")[0]
            .name
            .clone()
    };
    assert_eq!(first().await, "a-one");
    assert_eq!(first().await, "a-one", "with the counts kept");

    // Five more skills say `alpha`: it is now as common as counting goes, `beta` the rarer.
    let more = (0..5)
        .map(|n| item(format!("extra-{n}"), format!("Alpha extras, number {n}.")))
        .collect();
    writer.import(more, by("a", "m")).await.expect("import");
    assert!(
        signalled(&mut changes, Duration::from_secs(2)).await,
        "the import"
    );
    let now = first().await;
    assert!(now.starts_with("b-"), "beta now weighs more: {now}");
}

/// Whether the connection of the client named `application_name` is encrypted, as the
/// server sees it (`None`: no such connection).
async fn encrypted(observer: &tokio_postgres::Client, application_name: &str) -> Option<bool> {
    observer
        .query_opt(
            "SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a ON a.pid = s.pid
             WHERE a.application_name = $1 LIMIT 1",
            &[&application_name],
        )
        .await
        .expect("query pg_stat_ssl")
        .map(|row| row.get(0))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sslmode_and_sslrootcert_encrypt_and_check_the_certificate_as_libpq_does() {
    let observer = connect(&server_url()).await;
    let ssl: String = observer
        .query_one("SHOW ssl", &[])
        .await
        .expect("SHOW ssl")
        .get(0);
    assert_eq!(
        ssl, "on",
        "the test server must offer TLS (`ssl = on` in postgresql.conf; Debian's default uses \
         the snakeoil certificate for `localhost`)"
    );
    // The server's own certificate, self-signed, serves as the trusted authority.
    let certificate: String = observer
        .query_one("SHOW ssl_cert_file", &[])
        .await
        .expect("SHOW ssl_cert_file")
        .get(0);
    let schema = Schema::create().await;
    let base = schema.url();
    assert!(
        base.contains("127.0.0.1"),
        "the tests connect by address: {base}"
    );
    let by_name = base.replacen("127.0.0.1", "localhost", 1);
    let cert = format!("sslrootcert={certificate}");
    // An authority that signed nothing: naming it makes even `require` check the certificate.
    let unrelated =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/fixtures/unrelated-ca.pem");

    let accepted = [
        (base.clone(), "sslmode=disable", false),
        (base.clone(), "connect_timeout=10", true), // no sslmode: prefer
        (base.clone(), "sslmode=require", true),
        (base.clone(), &*format!("sslmode=verify-ca&{cert}"), true),
        (
            by_name.clone(),
            &*format!("sslmode=verify-full&{cert}"),
            true,
        ),
    ]
    .map(|(url, parameters, expected)| (url, parameters.to_owned(), expected));
    for (index, (url, parameters, expected)) in accepted.iter().enumerate() {
        let name = format!("{}_tls_{index}", schema.name);
        let url = format!("{url}&{parameters}&application_name={name}");
        let store = PostgresStore::open(&url)
            .await
            .unwrap_or_else(|error| panic!("`{parameters}` connects: {error}"));
        store
            .get("tls-check", None)
            .await
            .expect_err("the schema is empty");
        assert_eq!(
            encrypted(&observer, &name).await,
            Some(*expected),
            "`{parameters}`: encrypted as expected"
        );
    }

    let refused = [
        (
            base.clone(),
            format!("sslmode=verify-full&{cert}"),
            "not for the host in the URL",
        ),
        (
            base.clone(),
            format!("sslmode=require&sslrootcert={}", unrelated.display()),
            "not signed by an authority skillpath trusts",
        ),
        (
            base.clone(),
            "sslmode=verify-full&sslrootcert=/nonexistent/ca.pem".to_owned(),
            "cannot read the certificate authorities in `sslrootcert=/nonexistent/ca.pem`",
        ),
        (
            base.clone(),
            "sslmode=verify".to_owned(),
            "is not a TLS mode",
        ),
    ];
    for (url, parameters, expected) in refused {
        let error = PostgresStore::open(&format!("{url}&{parameters}"))
            .await
            .expect_err(&parameters);
        let text = error.to_string();
        assert!(text.contains(expected), "`{parameters}`: {text}");
    }
}

/// A schema whose revisions were written before their heads were kept (version 5) gets them as
/// it is migrated, and reads the same metadata as its content says; a revision an older
/// skillpath writes without them afterwards (the migration is additive) is read from its
/// content.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn revisions_written_before_their_heads_were_kept_are_listed_alike() {
    let schema = Schema::create().await;
    let url = schema.url();
    let before = {
        let store = PostgresStore::open(&url).await.expect("open");
        crate::suite::live_skills_and_a_deleted_one(&store).await;
        store.current_metadata().await.expect("metadata")
    };
    let client = connect(&url).await;
    client
        .batch_execute(
            "ALTER TABLE revision_files DROP COLUMN size, DROP COLUMN text;
             DROP TABLE revision_heads;
             DROP TABLE revision_audits;
             DROP TABLE package_members;
             DROP TABLE drafts;
             DROP TABLE skill_usage;
             DROP TABLE releases, release_tags, release_proposals;
             DROP TABLE governance_log, stars, members, namespaces, user_identities, users, registry_uploads;
             ALTER TABLE api_keys DROP COLUMN user_handle, DROP COLUMN namespaces, DROP COLUMN channel;
             ALTER TABLE skills DROP COLUMN visibility, DROP COLUMN owner;
             ALTER TABLE skills DROP COLUMN kind;
             DELETE FROM skillpath_migrations WHERE version > 5;",
        )
        .await
        .expect("the schema as version 5 made it");
    let store = PostgresStore::open(&url).await.expect("migrated");
    let (metadata, _) = crate::suite::metadata_of_the_content(&store).await;
    assert_eq!(metadata, before);
    let unfilled: i64 = client
        .query_one(
            "SELECT (SELECT count(*) FROM revision_files WHERE size IS NULL OR text IS NULL)
                + (SELECT count(*) FROM revisions r WHERE NOT EXISTS (SELECT 1 FROM revision_heads h
                   WHERE h.skill_id = r.skill_id AND h.number = r.number))",
            &[],
        )
        .await
        .expect("count")
        .get(0);
    assert_eq!(unfilled, 0, "every revision has its head");
    let binary: i64 = client
        .query_one("SELECT count(*) FROM revision_files WHERE NOT text", &[])
        .await
        .expect("count")
        .get(0);
    assert!(binary > 0);

    client
        .batch_execute(
            "UPDATE revision_files SET size = NULL, text = NULL; DELETE FROM revision_heads;",
        )
        .await
        .expect("revisions as an older skillpath writes them");
    let (metadata, _) = crate::suite::metadata_of_the_content(&store).await;
    assert_eq!(metadata, before);
}

/// A PostgreSQL schema made by the release before people (`pg_dump --inserts` of schema
/// `old_main`, loaded into a schema of this test's), upgraded as the store opens it
/// ([`crate::directory::a_store_made_before_people_keeps_everything`]).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_schema_made_before_people_is_upgraded_losing_nothing() {
    let schema = made_before_people().await;
    let store = PostgresStore::open(&schema.url())
        .await
        .expect("the upgrade runs");
    crate::directory::a_store_made_before_people_keeps_everything(&store).await;
}

/// The same PostgreSQL schema upgraded into `@platform`
/// ([`crate::directory::a_store_upgraded_into_a_namespace_keeps_everything_there`]).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_schema_made_before_people_is_upgraded_into_a_namespace() {
    let schema = made_before_people().await;
    let upgrade = skillpath_store::Upgrade {
        namespace: skillpath_model::Namespace::parse("@platform").expect("a namespace"),
    };
    let (store, upgraded) = PostgresStore::open_upgrading(
        &schema.url(),
        &skillpath_store::ProjectView::shared(),
        &upgrade,
    )
    .await
    .expect("the upgrade runs");
    assert!(
        upgraded.placed && upgraded.from < upgraded.to,
        "{upgraded:?}"
    );
    crate::directory::a_store_upgraded_into_a_namespace_keeps_everything_there(&store).await;
}

/// A schema holding what the release before people made (`pg_dump --inserts` of schema
/// `old_main`, loaded into a schema of the test's).
async fn made_before_people() -> Schema {
    let schema = Schema::create().await;
    let dump = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/it/fixtures/made-before-people.postgres.sql"),
    )
    .expect("the fixture");
    let dump = dump
        .replace("CREATE SCHEMA old_main;", "")
        .replace("old_main", &schema.name);
    connect(&schema.url)
        .await
        .batch_execute(&dump)
        .await
        .expect("the old schema loads");
    schema
}
