//! The shared backend: PostgreSQL through `tokio-postgres` and a `deadpool-postgres` pool.
//!
//! Several processes (or nodes) can use one database: every write runs in a transaction that
//! first locks the skill's row (`SELECT … FOR UPDATE`, or the unique index for a new name), so
//! of two writers that expect the same revision exactly one wins and the other sees the new
//! revision and is refused as stale; a write that fails midway is rolled back whole. Reads run
//! in read-only `REPEATABLE READ` transactions, so a skill and its files come from one moment.
//!
//! The schema is versioned in the `skillpath_migrations` table and brought up to date by
//! [`PostgresStore::open`] in one transaction holding a transaction-level advisory lock, so two
//! processes opening a new database at once do not both run a migration. Tables are created
//! in the first schema of the connection's `search_path` (set it with the URL's `options`,
//! e.g. `?options=-c%20search_path%3Dskills`).
//!
//! Connections over TCP use TLS as libpq would for the URL's `sslmode` and `sslrootcert`
//! (see [`tls`]); Unix sockets never do.
//!
//! Every committed write announces itself with `pg_notify('skillpath_changes', <schema>)` in its
//! transaction (so it is delivered on commit, and never for a rolled-back write);
//! [`Store::watch_changes`] starts one dedicated connection (outside the pool) that `LISTEN`s on
//! that channel and turns the notifications for this store's schema into change signals, so
//! several servers on one database can follow each other's writes. It also signals once each
//! time it starts listening, since changes may have been missed before; when its connection
//! drops it reconnects with backoff.
//!
//! Search uses a weighted `tsvector` (`english` configuration: name A, description B, body D)
//! with a GIN index; candidates are ranked by the same tiers as SQLite ([`crate::search::rank`]).

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use async_trait::async_trait;
use deadpool_postgres::Transaction;
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use tokio::sync::{broadcast, mpsc};
use tokio_postgres::types::ToSql;
use tokio_postgres::{AsyncMessage, IsolationLevel, Row as PgRow};

use crate::error::{StoreError, StoreResult};
use crate::import_plan::{self, Planned};
use crate::keys::{KEY_COLUMNS, KeyInfo, Role, StoredKey};
use crate::model::{
    Change, FolderContent, FolderImport, FolderStamp, ImportReport, ListFilter, Operation, Page,
    Provenance, RecordedStamp, Revision, SearchHit, ShadowedSkill, SkillFile, SkillSnapshot,
    SkillSummary, StoredSkill,
};
use crate::rules::{self, NewRevision};
use crate::schema::{self, Migration};
use crate::scopes::{self, ProjectView};
use crate::search;
use crate::sqlite::{checked, decode_cursor, encode_cursor, meta, parse_provenance};
use crate::store::Store;
use crate::time::now_rfc3339;

mod tls;

/// The schema, one entry per version; `skillpath_migrations` records the versions that ran.
///
/// Names sort byte-wise (`COLLATE "C"`) so listings and cursors order the way SQLite's do,
/// whatever the database's locale. The body is indexed up to 256 KiB so that no skill can
/// exceed PostgreSQL's 1 MB limit on a `tsvector`. Each row of `skillpath_migrations` also
/// records the oldest version that can use the database from then on (see [`crate::schema`]).
const MIGRATIONS: &[Migration] = &[
    Migration {
        additive: false,
        sql: "CREATE TABLE skills (
        id BIGSERIAL PRIMARY KEY,
        name TEXT COLLATE \"C\" NOT NULL UNIQUE,
        description TEXT NOT NULL,
        tool_name TEXT,
        revision BIGINT NOT NULL,
        deleted BOOLEAN NOT NULL,
        content_hash TEXT NOT NULL,
        provenance TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE revisions (
        skill_id BIGINT NOT NULL REFERENCES skills(id),
        number BIGINT NOT NULL,
        created_at TEXT NOT NULL,
        author TEXT NOT NULL,
        message TEXT NOT NULL,
        operation TEXT NOT NULL,
        deleted BOOLEAN NOT NULL,
        description TEXT NOT NULL,
        tool_name TEXT,
        content_hash TEXT NOT NULL,
        skill_md TEXT NOT NULL,
        PRIMARY KEY (skill_id, number)
    );
    CREATE TABLE blobs (
        sha256 TEXT PRIMARY KEY,
        size BIGINT NOT NULL,
        bytes BYTEA NOT NULL
    );
    CREATE TABLE revision_files (
        skill_id BIGINT NOT NULL,
        number BIGINT NOT NULL,
        path TEXT NOT NULL,
        sha256 TEXT NOT NULL REFERENCES blobs(sha256),
        PRIMARY KEY (skill_id, number, path),
        FOREIGN KEY (skill_id, number) REFERENCES revisions(skill_id, number)
    );
    CREATE TABLE skill_search (
        skill_id BIGINT PRIMARY KEY REFERENCES skills(id),
        name TEXT NOT NULL,
        description TEXT NOT NULL,
        body TEXT NOT NULL,
        document TSVECTOR GENERATED ALWAYS AS (
            setweight(to_tsvector('english'::regconfig, name), 'A')
            || setweight(to_tsvector('english'::regconfig, description), 'B')
            || setweight(to_tsvector('english'::regconfig, left(body, 262144)), 'D')
        ) STORED
    );
    CREATE INDEX skill_search_document ON skill_search USING GIN (document);",
    },
    Migration {
        additive: true,
        sql: "CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        name TEXT COLLATE \"C\" NOT NULL,
        role TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT,
        last_used_at TEXT,
        revoked_at TEXT
    );
    CREATE UNIQUE INDEX api_keys_active_name ON api_keys(name) WHERE revoked_at IS NULL;",
    },
    Migration {
        additive: true,
        sql: "CREATE TABLE folder_stamps (
        folder TEXT PRIMARY KEY,
        skill_id BIGINT NOT NULL REFERENCES skills(id),
        revision BIGINT NOT NULL,
        stamp TEXT NOT NULL
    );",
    },
    // Skills of a project (see `crate::scopes`): a name is unique per project, `''` being the
    // skills every project shares; `visible_skills(projects)` is what a store whose view has
    // those project folders shows, one skill per name: a live skill over a deleted one, then
    // the nearest project (the longest folder, since a view's folders all contain its start)
    // over the shared skills. Breaking: an older skillpath would serve every project's skills
    // everywhere.
    Migration {
        additive: false,
        sql: "ALTER TABLE skills ADD COLUMN project TEXT COLLATE \"C\" NOT NULL DEFAULT '';
    ALTER TABLE skills DROP CONSTRAINT skills_name_key;
    ALTER TABLE skills ADD CONSTRAINT skills_name_project_key UNIQUE (name, project);
    CREATE FUNCTION visible_skills(projects TEXT[]) RETURNS SETOF skills
    LANGUAGE sql STABLE AS $$
        SELECT s.* FROM skills s
        WHERE (s.project = '' OR s.project = ANY (projects))
          AND NOT EXISTS (
            SELECT 1 FROM skills o
            WHERE o.name = s.name AND o.id <> s.id
              AND (o.project = '' OR o.project = ANY (projects))
              AND ((s.deleted AND NOT o.deleted)
                   OR (o.deleted = s.deleted AND length(o.project) > length(s.project))))
    $$;",
    },
];

/// The version whose migration gave skills their project; skills discovered in a project
/// before it are given theirs as it runs ([`assign_projects`]).
const PROJECTS_SINCE: usize = 4;

/// The advisory lock key that serializes migrations (any fixed number; this one spells
/// `skillpat` in ASCII).
const MIGRATION_LOCK: i64 = 0x736b_696c_6c70_6174;

/// `ts_rank` weights, in PostgreSQL's order {D, C, B, A}: body 0.1, description 0.5, name 1.0,
/// the same proportions as SQLite's column weights 1, 5, 10.
const RANK_WEIGHTS: &str = "{0.1, 0.1, 0.5, 1.0}";

/// `ts_rank` normalization 2: the rank divided by the document's length, so a short skill
/// about a topic outranks a long one that mentions it as often (what BM25's length
/// normalization does on SQLite). Without it, the corpus search test puts
/// `python-mcp-server-generator` 7th for "create an MCP server", behind longer siblings.
const RANK_NORMALIZATION: i32 = 2;

/// `ts_headline` options: the match in `[…]`, an excerpt of about 16 words like SQLite's snippet.
const HEADLINE_OPTIONS: &str =
    "StartSel=[, StopSel=], MaxWords=16, MinWords=8, MaxFragments=1, FragmentDelimiter=\" … \"";

/// How long one store operation may take when the URL gives no `timeout`.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// How long setting up a connection may take when the URL gives no `connect_timeout`.
const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How many connections a store keeps at most.
const POOL_SIZE: usize = 16;

/// The notification channel every write announces itself on; the payload is the schema written
/// to, so stores in other schemas of the same database ignore it.
const CHANGES_CHANNEL: &str = "skillpath_changes";

/// How long the change listener waits before reconnecting, at first and at most.
const LISTEN_BACKOFF: (Duration, Duration) = (Duration::from_millis(100), Duration::from_secs(10));

/// A store in a PostgreSQL database.
#[derive(Clone)]
pub struct PostgresStore {
    pool: Pool,
    /// Where the database is, without a password, for messages.
    display: String,
    /// The connection settings, for the change listener's own connection.
    config: tokio_postgres::Config,
    /// How connections speak TLS (the listener's too).
    tls: tls::Connector,
    /// The schema the tables are in (the first of the `search_path`): the payload of this
    /// store's change notifications.
    schema: String,
    /// The change signals, once [`Store::watch_changes`] has started the listener.
    changes: Arc<OnceLock<broadcast::Sender<()>>>,
    /// Whether the listener is listening (set when it starts listening, cleared when its
    /// connection ends).
    listening: Arc<std::sync::atomic::AtomicBool>,
    /// The most one operation may take, waiting for a connection included (the URL's
    /// `timeout=SECONDS`, else [`DEFAULT_TIMEOUT`]).
    timeout: Duration,
    /// The most setting up a connection may take (the URL's `connect_timeout`, as in libpq).
    connect_timeout: Duration,
    /// The project folders whose skills this store shows besides the shared ones
    /// ([`ProjectView`]), the argument of every `visible_skills`.
    projects: Vec<String>,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("database", &self.display)
            .finish_non_exhaustive()
    }
}

/// A database error as a sentence: the server's message (and detail) when there is one, since
/// `tokio_postgres::Error`'s own text is only "db error"; otherwise the error and its causes.
fn database_error(error: tokio_postgres::Error) -> StoreError {
    match error.as_db_error() {
        Some(db) => StoreError::Database(match db.detail() {
            Some(detail) => format!("{} ({detail})", db.message()),
            None => db.message().to_owned(),
        }),
        None => {
            // tokio-postgres says what failed ("error performing TLS handshake") and keeps why
            // in the source chain.
            let mut text = error.to_string();
            let mut source = std::error::Error::source(&error);
            while let Some(cause) = source {
                let cause_text = cause.to_string();
                if !text.contains(&cause_text) {
                    text = format!("{text}: {cause_text}");
                }
                source = cause.source();
            }
            StoreError::Database(text)
        }
    }
}

impl From<tokio_postgres::Error> for StoreError {
    fn from(error: tokio_postgres::Error) -> Self {
        database_error(error)
    }
}

/// `host:port/database` of a configuration, never its password.
fn describe(config: &tokio_postgres::Config) -> String {
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .map(|host| match host {
            tokio_postgres::config::Host::Tcp(name) => name.clone(),
            tokio_postgres::config::Host::Unix(path) => path.display().to_string(),
        })
        .collect();
    let port = config.get_ports().first().copied().unwrap_or(5432);
    format!(
        "{}:{port}/{}",
        hosts.join(","),
        config.get_dbname().unwrap_or("")
    )
}

impl PostgresStore {
    /// Connects to the database `url` names (`postgres://user@host:port/database`, with any
    /// libpq-style parameters tokio-postgres understands, and `sslmode`/`sslrootcert` as libpq
    /// reads them), and brings its schema up to date. Fails with the server's reason when the
    /// database cannot be reached. It shows only the skills every project shares
    /// ([`PostgresStore::open_in`] for a project's).
    pub async fn open(url: &str) -> StoreResult<PostgresStore> {
        PostgresStore::open_in(url, &ProjectView::shared()).await
    }

    /// [`PostgresStore::open`], showing also the skills of the projects of `view`.
    pub async fn open_in(url: &str, view: &ProjectView) -> StoreResult<PostgresStore> {
        let (url, mut ours) = tls::take_parameters(url, &["timeout"])?;
        let timeout = match ours.remove("timeout") {
            Some(seconds) => Duration::from_secs(seconds.trim().parse().map_err(|_| {
                StoreError::Database(format!(
                    "`timeout={seconds}` in the URL is not a number of seconds"
                ))
            })?),
            None => DEFAULT_TIMEOUT,
        };
        let (url, tls_settings) = tls::split_url(&url, |key| std::env::var(key).ok())?;
        let url = url.as_str();
        let mut config = tokio_postgres::Config::from_str(url).map_err(|error| {
            StoreError::Database(format!(
                "`{url}` is not a PostgreSQL URL this build reads: {error}"
            ))
        })?;
        if config.get_connect_timeout().is_none() {
            // An unreachable host fails in seconds, not at the OS's TCP timeout.
            config.connect_timeout(DEFAULT_CONNECT_TIMEOUT);
        }
        // tokio-postgres bounds only the TCP connect with it; libpq bounds the whole
        // connection setup, and so does the pool (`create`), the startup and TLS exchange too.
        let connect_timeout = config
            .get_connect_timeout()
            .copied()
            .unwrap_or(DEFAULT_CONNECT_TIMEOUT);
        let tls = tls::connector(&tls_settings, &mut config)?;
        let display = describe(&config);
        let manager = Manager::from_config(
            config.clone(),
            tls.clone(),
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .runtime(deadpool_postgres::Runtime::Tokio1)
            .timeouts(deadpool_postgres::Timeouts {
                wait: Some(timeout),
                create: Some(connect_timeout),
                recycle: Some(connect_timeout),
            })
            .build()
            .map_err(|error| {
                StoreError::Database(format!("cannot set up the PostgreSQL pool: {error}"))
            })?;
        let mut store = PostgresStore {
            pool,
            display,
            config,
            tls,
            schema: String::new(),
            changes: Arc::default(),
            listening: Arc::default(),
            projects: view.folders().to_vec(),
            timeout,
            connect_timeout,
        };
        store.bounded(store.migrate()).await?;
        store.schema = store
            .bounded(async {
                Ok(store
                    .client()
                    .await?
                    .query_one("SELECT current_schema()", &[])
                    .await?
                    .try_get::<_, Option<String>>(0)?
                    .unwrap_or_default())
            })
            .await?;
        Ok(store)
    }

    /// The change listener: `LISTEN`s on its own connection and signals `sender` for every
    /// notification about `schema`; reconnects with backoff when the connection drops, and
    /// signals once each time it starts listening (the first time too: a change committed before
    /// then, e.g. just after the caller loaded what it shows, would otherwise go unseen). Ends
    /// when the store (every clone) is gone.
    async fn listen(
        config: tokio_postgres::Config,
        tls: tls::Connector,
        schema: String,
        display: String,
        connect_timeout: Duration,
        listening: Arc<std::sync::atomic::AtomicBool>,
        sender: broadcast::WeakSender<()>,
    ) {
        let mut config = config;
        if config.get_application_name().is_none() {
            // So that an operator (or a test) can tell the listener in `pg_stat_activity`.
            config.application_name(format!("skillpath listen {schema}"));
        }
        // An idle connection that silently went away (a network partition) is noticed within
        // about a minute rather than at the system's default of hours.
        config
            .keepalives(true)
            .keepalives_idle(Duration::from_secs(30))
            .keepalives_interval(Duration::from_secs(10))
            .keepalives_retries(3);
        let mut backoff = LISTEN_BACKOFF.0;
        let mut failed = false;
        loop {
            let result =
                Self::listen_once(&config, &tls, &schema, connect_timeout, &sender, || {
                    backoff = LISTEN_BACKOFF.0;
                    listening.store(true, std::sync::atomic::Ordering::SeqCst);
                    if failed {
                        eprintln!(
                            "skillpath: listening for changes on PostgreSQL at `{display}` again"
                        );
                    }
                })
                .await;
            listening.store(false, std::sync::atomic::Ordering::SeqCst);
            failed = true;
            if sender.upgrade().is_none() {
                return;
            }
            match result {
                Ok(()) => eprintln!(
                    "skillpath: the change listener's connection to PostgreSQL at `{display}` closed; reconnecting"
                ),
                Err(error) => eprintln!(
                    "skillpath: listening for changes on PostgreSQL at `{display}` failed: {error}; retrying in {} ms",
                    backoff.as_millis()
                ),
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(LISTEN_BACKOFF.1);
        }
    }

    /// One connection of the change listener, until it drops (or the store is gone).
    async fn listen_once(
        config: &tokio_postgres::Config,
        tls: &tls::Connector,
        schema: &str,
        connect_timeout: Duration,
        sender: &broadcast::WeakSender<()>,
        connected: impl FnOnce(),
    ) -> Result<(), StoreError> {
        let (client, mut connection) =
            tokio::time::timeout(connect_timeout, config.connect(tls.clone()))
                .await
                .map_err(|_| {
                    StoreError::Database(format!(
                        "no connection within {} s (`connect_timeout`)",
                        connect_timeout.as_secs()
                    ))
                })??;
        let (payloads, mut received) = mpsc::unbounded_channel::<String>();
        // The connection must be polled for `LISTEN` to complete and for notifications.
        let driver = tokio::spawn(async move {
            loop {
                match std::future::poll_fn(|cx| connection.poll_message(cx)).await {
                    Some(Ok(AsyncMessage::Notification(notification))) => {
                        if payloads.send(notification.payload().to_owned()).is_err() {
                            return Ok(());
                        }
                    }
                    Some(Ok(_)) => {} // notices
                    Some(Err(error)) => return Err(error),
                    None => return Ok(()),
                }
            }
        });
        client
            .batch_execute(&format!("LISTEN {CHANGES_CHANNEL}"))
            .await?;
        connected();
        let signal = || match sender.upgrade() {
            Some(sender) => {
                let _ = sender.send(());
                true
            }
            None => false,
        };
        if !signal() {
            return Ok(());
        }
        while let Some(payload) = received.recv().await {
            if payload == schema && !signal() {
                return Ok(());
            }
        }
        drop(client);
        match driver.await {
            Ok(result) => result.map_err(StoreError::from),
            Err(_) => Ok(()), // the driver panicked or was cancelled: reconnect all the same
        }
    }

    /// A pooled connection; an error names the server so the user knows which one is down.
    async fn client(&self) -> StoreResult<deadpool_postgres::Object> {
        self.pool.get().await.map_err(|error| {
            let reason = match error {
                deadpool_postgres::PoolError::Backend(error) => match database_error(error) {
                    StoreError::Database(text) => text,
                    other => other.to_string(),
                },
                deadpool_postgres::PoolError::Timeout(deadpool_postgres::TimeoutType::Wait) => {
                    format!(
                        "every connection stayed busy for {} s (`timeout=SECONDS` in the URL)",
                        self.timeout.as_secs()
                    )
                }
                deadpool_postgres::PoolError::Timeout(_) => format!(
                    "no connection was set up within {} s (`connect_timeout=SECONDS` in the URL); the server may be hung",
                    self.connect_timeout.as_secs()
                ),
                other => other.to_string(),
            };
            let hint = tls::hint(&reason).map(|hint| format!("; {hint}"));
            StoreError::Database(format!(
                "cannot connect to PostgreSQL at `{}`: {reason}{}",
                self.display,
                hint.unwrap_or_default()
            ))
        })
    }

    /// Runs the migrations that have not run, all in one transaction under an advisory lock.
    async fn migrate(&self) -> StoreResult<()> {
        let mut client = self.client().await?;
        let transaction = client.transaction().await?;
        transaction
            .execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
            .await?;
        transaction
            .batch_execute(
                "CREATE TABLE IF NOT EXISTS skillpath_migrations (
                    version INTEGER PRIMARY KEY,
                    applied_at TEXT NOT NULL
                );
                ALTER TABLE skillpath_migrations ADD COLUMN IF NOT EXISTS oldest_compatible INTEGER",
            )
            .await?;
        let latest = transaction.query_opt(
                "SELECT version, oldest_compatible FROM skillpath_migrations ORDER BY version DESC LIMIT 1",
                &[],
            )
            .await?;
        let (version, oldest) = match latest {
            Some(row) => {
                let version = usize::try_from(row.try_get::<_, i32>(0)?).unwrap_or(usize::MAX);
                // Nothing recorded (written before versions were recorded): only this version.
                let oldest = row
                    .try_get::<_, Option<i32>>(1)?
                    .and_then(|oldest| usize::try_from(oldest).ok())
                    .unwrap_or(version);
                (version, oldest)
            }
            None => (0, 0),
        };
        schema::check_compatible(version, oldest, MIGRATIONS.len())?;
        for (index, migration) in MIGRATIONS.iter().enumerate().skip(version) {
            transaction.batch_execute(migration.sql).await?;
            if index + 1 == PROJECTS_SINCE {
                assign_projects(&transaction).await?;
            }
            let to_number = |value: usize| {
                i32::try_from(value)
                    .map_err(|_| StoreError::Database("too many migrations".to_owned()))
            };
            let number = to_number(index + 1)?;
            let oldest = to_number(schema::oldest_compatible(MIGRATIONS, index + 1))?;
            transaction.execute(
                    "INSERT INTO skillpath_migrations (version, applied_at, oldest_compatible) VALUES ($1, $2, $3)",
                    &[&number, &now_rfc3339(), &oldest],
                )
                .await?;
        }
        transaction.commit().await?;
        Ok(())
    }

    /// The schema version of the database (how many migrations have run).
    pub async fn schema_version(&self) -> StoreResult<usize> {
        let client = self.client().await?;
        let version: i32 = client
            .query_one(
                "SELECT COALESCE(MAX(version), 0) FROM skillpath_migrations",
                &[],
            )
            .await?
            .try_get(0)?;
        Ok(usize::try_from(version).unwrap_or(0))
    }
}

/// Gives each skill discovered in a project before skills had projects its project
/// ([`Provenance::project`]), so it stops being shown in every other project.
async fn assign_projects(transaction: &Transaction<'_>) -> StoreResult<()> {
    for row in transaction
        .query("SELECT id, provenance FROM skills", &[])
        .await?
    {
        let id: i64 = row.try_get(0)?;
        if let Some(project) = parse_provenance(row.try_get(1)?)?.project() {
            transaction
                .execute(
                    "UPDATE skills SET project = $2 WHERE id = $1",
                    &[&id, &project],
                )
                .await?;
        }
    }
    Ok(())
}

/// A key from a row of `SELECT {KEY_COLUMNS}`.
fn key_of(row: &PgRow) -> StoreResult<StoredKey> {
    let id: String = row.try_get(0)?;
    let role: String = row.try_get(2)?;
    Ok(StoredKey {
        sha256: row.try_get(3)?,
        info: KeyInfo {
            prefix: format!("sp_{id}"),
            name: row.try_get(1)?,
            role: Role::stored(&role),
            created_at: row.try_get(4)?,
            expires_at: row.try_get(5)?,
            last_used_at: row.try_get(6)?,
            revoked_at: row.try_get(7)?,
        },
        id,
    })
}

/// Parameters of a statement.
type Params<'a> = &'a [&'a (dyn ToSql + Sync)];

// The data path prepares each statement once per pooled connection (deadpool's statement
// cache): a later use skips the round trip that prepares it and the server's parsing and
// planning, which otherwise cost more than the statement itself.

async fn cached_execute(
    transaction: &Transaction<'_>,
    sql: &str,
    params: Params<'_>,
) -> StoreResult<u64> {
    let statement = transaction.prepare_cached(sql).await?;
    Ok(transaction.execute(&statement, params).await?)
}

async fn cached_query(
    transaction: &Transaction<'_>,
    sql: &str,
    params: Params<'_>,
) -> StoreResult<Vec<PgRow>> {
    let statement = transaction.prepare_cached(sql).await?;
    Ok(transaction.query(&statement, params).await?)
}

async fn cached_query_opt(
    transaction: &Transaction<'_>,
    sql: &str,
    params: Params<'_>,
) -> StoreResult<Option<PgRow>> {
    let statement = transaction.prepare_cached(sql).await?;
    Ok(transaction.query_opt(&statement, params).await?)
}

async fn cached_query_one(
    transaction: &Transaction<'_>,
    sql: &str,
    params: Params<'_>,
) -> StoreResult<PgRow> {
    let statement = transaction.prepare_cached(sql).await?;
    Ok(transaction.query_one(&statement, params).await?)
}

/// A revision number as PostgreSQL's `BIGINT`.
fn number(value: u64) -> StoreResult<i64> {
    i64::try_from(value)
        .map_err(|_| StoreError::Database(format!("revision {value} is out of range")))
}

/// A stored `BIGINT` revision as a revision number (never negative: the store writes them).
fn revision_of(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

/// The stored state of a skill row.
struct SkillRow {
    id: i64,
    revision: u64,
    deleted: bool,
    content_hash: String,
    provenance: String,
}

fn skill_row(row: &PgRow) -> StoreResult<SkillRow> {
    Ok(SkillRow {
        id: row.try_get(0)?,
        revision: revision_of(row.try_get(1)?),
        deleted: row.try_get(2)?,
        content_hash: row.try_get(3)?,
        provenance: row.try_get(4)?,
    })
}

/// The row of the skill `name` as a view of `projects` shows it, locked for the rest of the
/// transaction when `lock` (a writer's read).
async fn find(
    transaction: &Transaction<'_>,
    projects: &[String],
    name: &str,
    lock: bool,
) -> StoreResult<Option<SkillRow>> {
    let sql = if lock {
        // A function's rows cannot be locked: lock the row it names.
        "SELECT id, revision, deleted, content_hash, provenance FROM skills
         WHERE id = (SELECT id FROM visible_skills($2) WHERE name = $1) FOR UPDATE"
    } else {
        "SELECT id, revision, deleted, content_hash, provenance FROM visible_skills($2) WHERE name = $1"
    };
    cached_query_opt(transaction, sql, &[&name, &projects])
        .await?
        .as_ref()
        .map(skill_row)
        .transpose()
}

/// The locked row of the skill `name` in `project` (`""`: shared), whether a view shows it
/// or not.
async fn find_in(
    transaction: &Transaction<'_>,
    name: &str,
    project: &str,
) -> StoreResult<Option<SkillRow>> {
    cached_query_opt(
        transaction,
        "SELECT id, revision, deleted, content_hash, provenance FROM skills
         WHERE name = $1 AND project = $2 FOR UPDATE",
        &[&name, &project],
    )
    .await?
    .as_ref()
    .map(skill_row)
    .transpose()
}

/// The locked row of `name` as `projects` see it, which must be at revision `expected`.
async fn existing(
    transaction: &Transaction<'_>,
    projects: &[String],
    name: &str,
    expected: u64,
) -> StoreResult<SkillRow> {
    let row = find(transaction, projects, name, true).await?;
    rules::at_expected(name, row, |row| row.revision, expected)
}

/// Inserts a row for a new skill and gives its id, or `None` when the name exists in its
/// project (possibly
/// inserted by a concurrent transaction, which this one waits for: the unique index is the lock).
async fn insert_skill(
    transaction: &Transaction<'_>,
    name: &str,
    provenance: &Provenance,
) -> StoreResult<Option<i64>> {
    let provenance_json =
        serde_json::to_string(provenance).map_err(|e| StoreError::Database(e.to_string()))?;
    let row = cached_query_opt(transaction,
            "INSERT INTO skills (name, project, description, revision, deleted, content_hash, provenance, updated_at)
             VALUES ($1, $2, '', 0, false, '', $3, '') ON CONFLICT (name, project) DO NOTHING RETURNING id",
            &[&name, &provenance.project_key(), &provenance_json],
        )
        .await?;
    row.map(|row| row.try_get(0))
        .transpose()
        .map_err(Into::into)
}

/// Writes `revision` and makes it current.
async fn write_revision(
    transaction: &Transaction<'_>,
    revision: &NewRevision<'_>,
) -> StoreResult<StoredSkill> {
    let NewRevision {
        skill_id: id,
        number: revision,
        operation,
        change,
        snapshot,
        deleted,
        provenance,
    } = *revision;
    let meta = meta(snapshot)?;
    let now = now_rfc3339();
    let content_hash = snapshot.content_hash();
    let n = number(revision)?;
    cached_execute(transaction,
            "INSERT INTO revisions (skill_id, number, created_at, author, message, operation, deleted, description, tool_name, content_hash, skill_md)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
            &[
                &id,
                &n,
                &now,
                &change.author,
                &change.message,
                &operation.as_str(),
                &deleted,
                &meta.description,
                &meta.tool_name,
                &content_hash,
                &snapshot.skill_md,
            ],
        )
        .await?;
    for file in &snapshot.files {
        let sha = file.sha256();
        let size = i64::try_from(file.bytes.len()).map_err(|_| {
            StoreError::InvalidSkill(format!("the file `{}` is too large", file.path))
        })?;
        cached_execute(transaction,
                "INSERT INTO blobs (sha256, size, bytes) VALUES ($1, $2, $3) ON CONFLICT (sha256) DO NOTHING",
                &[&sha, &size, &file.bytes],
            )
            .await?;
        cached_execute(
            transaction,
            "INSERT INTO revision_files (skill_id, number, path, sha256) VALUES ($1, $2, $3, $4)",
            &[&id, &n, &file.path, &sha],
        )
        .await?;
    }
    let provenance_json =
        serde_json::to_string(provenance).map_err(|e| StoreError::Database(e.to_string()))?;
    cached_execute(transaction,
            "UPDATE skills SET description = $2, tool_name = $3, revision = $4, deleted = $5, content_hash = $6, provenance = $7, updated_at = $8 WHERE id = $1",
            &[&id, &meta.description, &meta.tool_name, &n, &deleted, &content_hash, &provenance_json, &now],
        )
        .await?;
    cached_execute(
        transaction,
        "DELETE FROM skill_search WHERE skill_id = $1",
        &[&id],
    )
    .await?;
    if !deleted {
        cached_execute(
            transaction,
            "INSERT INTO skill_search (skill_id, name, description, body) VALUES ($1, $2, $3, $4)",
            &[&id, &meta.name, &meta.description, &meta.body],
        )
        .await?;
    }
    Ok(StoredSkill {
        name: meta.name,
        description: meta.description,
        tool_name: meta.tool_name,
        revision,
        deleted,
        content_hash,
        provenance: provenance.clone(),
        updated_at: now,
        snapshot: snapshot.clone(),
    })
}

/// Reads revision `revision` (or the current one) of skill `name` as `projects` see it.
async fn load(
    transaction: &Transaction<'_>,
    projects: &[String],
    name: &str,
    revision: Option<u64>,
) -> StoreResult<StoredSkill> {
    let Some(row) = cached_query_opt(
        transaction,
        "SELECT id, revision, provenance FROM visible_skills($2) WHERE name = $1",
        &[&name, &projects],
    )
    .await?
    else {
        return Err(StoreError::NotFound {
            name: name.to_owned(),
            revision: None,
        });
    };
    let id: i64 = row.try_get(0)?;
    let wanted = revision.unwrap_or(revision_of(row.try_get(1)?));
    let provenance = parse_provenance(row.try_get(2)?)?;
    let not_found = || StoreError::NotFound {
        name: name.to_owned(),
        revision,
    };
    // A revision past `i64::MAX` cannot exist.
    let Ok(n) = i64::try_from(wanted) else {
        return Err(not_found());
    };
    let revision_row = cached_query_opt(transaction,
            "SELECT created_at, deleted, description, tool_name, content_hash, skill_md FROM revisions WHERE skill_id = $1 AND number = $2",
            &[&id, &n],
        )
        .await?
        .ok_or_else(not_found)?;
    let files = cached_query(
        transaction,
        "SELECT f.path, b.bytes FROM revision_files f JOIN blobs b ON b.sha256 = f.sha256
             WHERE f.skill_id = $1 AND f.number = $2 ORDER BY f.path COLLATE \"C\"",
        &[&id, &n],
    )
    .await?
    .iter()
    .map(|r| {
        Ok(SkillFile {
            path: r.try_get(0)?,
            bytes: r.try_get(1)?,
        })
    })
    .collect::<StoreResult<Vec<_>>>()?;
    Ok(StoredSkill {
        name: name.to_owned(),
        description: revision_row.try_get(2)?,
        tool_name: revision_row.try_get(3)?,
        revision: wanted,
        deleted: revision_row.try_get(1)?,
        content_hash: revision_row.try_get(4)?,
        provenance,
        updated_at: revision_row.try_get(0)?,
        snapshot: SkillSnapshot {
            skill_md: revision_row.try_get(5)?,
            files,
        },
    })
}

/// A `to_tsquery` text for the query's words: each quoted (so nothing in it is an operator),
/// any may match, the last (3 letters or more) also as a prefix, as [`search::fts5_query`]
/// does for SQLite.
fn tsquery(words: &[String]) -> Option<String> {
    let quote = |word: &str| format!("'{}'", word.replace('\\', "\\\\").replace('\'', "''"));
    let (last, rest) = words.split_last()?;
    let mut terms: Vec<String> = rest.iter().map(|w| quote(w)).collect();
    terms.push(if last.chars().count() >= 3 {
        format!("{}:*", quote(last))
    } else {
        quote(last)
    });
    Some(terms.join(" | "))
}

/// Tells every change listener, when the transaction commits, that this schema changed.
async fn announce(transaction: &Transaction<'_>) -> StoreResult<()> {
    cached_execute(
        transaction,
        "SELECT pg_notify($1, current_schema())",
        &[&CHANGES_CHANNEL],
    )
    .await?;
    Ok(())
}

impl PostgresStore {
    /// Runs a write: `work` in a `READ COMMITTED` transaction (row locks do the serializing),
    /// committed when it succeeds and rolled back (by dropping it) when it fails; announced to
    /// every change listener on commit.
    async fn write<T>(
        &self,
        work: impl AsyncFnOnce(&Transaction<'_>) -> StoreResult<T>,
    ) -> StoreResult<T> {
        self.write_quiet(async |transaction| {
            let result = work(transaction).await?;
            announce(transaction).await?;
            Ok(result)
        })
        .await
    }

    /// [`Self::write`] without the announcement: for writes that announce themselves (with
    /// [`announce`]) only when they changed something.
    async fn write_quiet<T>(
        &self,
        work: impl AsyncFnOnce(&Transaction<'_>) -> StoreResult<T>,
    ) -> StoreResult<T> {
        self.bounded(async {
            let mut client = self.client().await?;
            let transaction = client.transaction().await?;
            let result = work(&transaction).await?;
            transaction.commit().await?;
            Ok(result)
        })
        .await
    }

    /// `operation`, failed with the reason when it takes longer than the store's timeout: a
    /// database that accepts connections but does not answer (a hung or stopped server)
    /// would otherwise keep the caller forever. A write cut off before its `COMMIT` was sent
    /// is rolled back.
    async fn bounded<T>(
        &self,
        operation: impl std::future::Future<Output = StoreResult<T>>,
    ) -> StoreResult<T> {
        tokio::time::timeout(self.timeout, operation)
            .await
            .unwrap_or_else(|_| {
                Err(StoreError::Database(format!(
                    "PostgreSQL at `{}` did not answer within {} s: it may be hung or overloaded (`timeout=SECONDS` in the URL sets this limit)",
                    self.display,
                    self.timeout.as_secs()
                )))
            })
    }

    /// Runs a read in a read-only `REPEATABLE READ` transaction: one consistent snapshot.
    async fn read<T>(
        &self,
        work: impl AsyncFnOnce(&Transaction<'_>) -> StoreResult<T>,
    ) -> StoreResult<T> {
        self.bounded(async {
            let mut client = self.client().await?;
            let transaction = client
                .build_transaction()
                .isolation_level(IsolationLevel::RepeatableRead)
                .read_only(true)
                .start()
                .await?;
            let result = work(&transaction).await?;
            transaction.commit().await?;
            Ok(result)
        })
        .await
    }
}

#[async_trait]
impl Store for PostgresStore {
    async fn create_key(&self, key: StoredKey) -> StoreResult<KeyInfo> {
        self.write_quiet(async |transaction| {
            let info = &key.info;
            // The partial unique index on active names decides between concurrent creators.
            let inserted = cached_execute(
                transaction,
                &format!(
                    "INSERT INTO api_keys ({KEY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                         ON CONFLICT (name) WHERE revoked_at IS NULL DO NOTHING"
                ),
                &[
                    &key.id,
                    &info.name,
                    &info.role.as_str(),
                    &key.sha256,
                    &info.created_at,
                    &info.expires_at,
                    &info.last_used_at,
                    &info.revoked_at,
                ],
            )
            .await?;
            if inserted == 0 {
                return Err(StoreError::KeyExists(key.info.name.clone()));
            }
            Ok(key.info.clone())
        })
        .await
    }

    async fn list_keys(&self) -> StoreResult<Vec<KeyInfo>> {
        self.read(async |transaction| {
            cached_query(
                transaction,
                &format!("SELECT {KEY_COLUMNS} FROM api_keys ORDER BY name, created_at, id"),
                &[],
            )
            .await?
            .iter()
            .map(|row| key_of(row).map(|key| key.info))
            .collect()
        })
        .await
    }

    async fn revoke_key(&self, name: &str) -> StoreResult<KeyInfo> {
        self.write_quiet(async |transaction| {
            let now = now_rfc3339();
            let row = cached_query_opt(
                transaction,
                &format!(
                    "UPDATE api_keys SET revoked_at = $1 WHERE name = $2 AND revoked_at IS NULL
                         RETURNING {KEY_COLUMNS}"
                ),
                &[&now, &name],
            )
            .await?
            .ok_or_else(|| StoreError::KeyNotFound(name.to_owned()))?;
            Ok(key_of(&row)?.info)
        })
        .await
    }

    async fn find_key(&self, id: &str) -> StoreResult<Option<StoredKey>> {
        self.bounded(async {
            let client = self.client().await?;
            client
                .query_opt(
                    &format!("SELECT {KEY_COLUMNS} FROM api_keys WHERE id = $1"),
                    &[&id],
                )
                .await?
                .as_ref()
                .map(key_of)
                .transpose()
        })
        .await
    }

    async fn record_key_use(&self, id: &str, at: &str) -> StoreResult<()> {
        self.bounded(async {
            let client = self.client().await?;
            client
                .execute(
                    "UPDATE api_keys SET last_used_at = $1 WHERE id = $2",
                    &[&at, &id],
                )
                .await?;
            Ok(())
        })
        .await
    }

    fn following_changes(&self) -> Option<bool> {
        self.changes
            .get()
            .map(|_| self.listening.load(std::sync::atomic::Ordering::SeqCst))
    }

    fn watch_changes(&self) -> Option<broadcast::Receiver<()>> {
        let runtime = tokio::runtime::Handle::try_current().ok()?;
        let sender = self.changes.get_or_init(|| {
            let (sender, _) = broadcast::channel(16);
            runtime.spawn(Self::listen(
                self.config.clone(),
                self.tls.clone(),
                self.schema.clone(),
                self.display.clone(),
                self.connect_timeout,
                Arc::clone(&self.listening),
                sender.downgrade(),
            ));
            sender
        });
        Some(sender.subscribe())
    }

    async fn create(
        &self,
        snapshot: SkillSnapshot,
        provenance: Provenance,
        change: Change,
    ) -> StoreResult<StoredSkill> {
        let snapshot = checked(snapshot)?;
        let name = meta(&snapshot)?.name;
        self.write(async |transaction| {
            let taken = match find(transaction, &self.projects, &name, true).await? {
                Some(row) => Some(row),
                None => match insert_skill(transaction, &name, &provenance).await? {
                    Some(id) => {
                        return write_revision(
                            transaction,
                            &NewRevision::first(id, &change, &snapshot, &provenance),
                        )
                        .await;
                    }
                    None => find_in(transaction, &name, provenance.project_key()).await?,
                },
            };
            let row = taken.ok_or_else(|| {
                StoreError::Database(format!("skill `{name}` vanished while being created"))
            })?;
            Err(StoreError::AlreadyExists {
                name: name.clone(),
                revision: row.revision,
                deleted: row.deleted,
            })
        })
        .await
    }

    async fn update(
        &self,
        name: &str,
        expected: u64,
        snapshot: SkillSnapshot,
        change: Change,
    ) -> StoreResult<StoredSkill> {
        let snapshot = checked(snapshot)?;
        self.write(async |transaction| {
            let row = existing(transaction, &self.projects, name, expected).await?;
            rules::check_state(name, row.deleted, Operation::Update)?;
            rules::check_keeps_name(name, &snapshot)?;
            let provenance_text: String = cached_query_one(
                transaction,
                "SELECT provenance FROM skills WHERE id = $1",
                &[&row.id],
            )
            .await?
            .try_get(0)?;
            let provenance = parse_provenance(&provenance_text)?;
            write_revision(
                transaction,
                &NewRevision::after(
                    row.id,
                    row.revision,
                    Operation::Update,
                    &change,
                    &snapshot,
                    &provenance,
                ),
            )
            .await
        })
        .await
    }

    async fn delete(&self, name: &str, expected: u64, change: Change) -> StoreResult<StoredSkill> {
        self.write(async |transaction| {
            let row = existing(transaction, &self.projects, name, expected).await?;
            rules::check_state(name, row.deleted, Operation::Delete)?;
            let current = load(transaction, &self.projects, name, Some(row.revision)).await?;
            write_revision(
                transaction,
                &NewRevision::after(
                    row.id,
                    row.revision,
                    Operation::Delete,
                    &change,
                    &current.snapshot,
                    &current.provenance,
                ),
            )
            .await
        })
        .await
    }

    async fn restore(&self, name: &str, expected: u64, change: Change) -> StoreResult<StoredSkill> {
        self.write(async |transaction| {
            let row = existing(transaction, &self.projects, name, expected).await?;
            rules::check_state(name, row.deleted, Operation::Restore)?;
            let current = load(transaction, &self.projects, name, Some(row.revision)).await?;
            write_revision(
                transaction,
                &NewRevision::after(
                    row.id,
                    row.revision,
                    Operation::Restore,
                    &change,
                    &current.snapshot,
                    &current.provenance,
                ),
            )
            .await
        })
        .await
    }

    async fn rollback(
        &self,
        name: &str,
        to: u64,
        expected: u64,
        change: Change,
    ) -> StoreResult<StoredSkill> {
        self.write(async |transaction| {
            let row = existing(transaction, &self.projects, name, expected).await?;
            rules::check_state(name, row.deleted, Operation::Rollback)?;
            let target = load(transaction, &self.projects, name, Some(to)).await?;
            write_revision(
                transaction,
                &NewRevision::after(
                    row.id,
                    row.revision,
                    Operation::Rollback,
                    &change,
                    &target.snapshot,
                    &target.provenance,
                ),
            )
            .await
        })
        .await
    }

    async fn get(&self, name: &str, revision: Option<u64>) -> StoreResult<StoredSkill> {
        self.read(async |transaction| load(transaction, &self.projects, name, revision).await)
            .await
    }

    async fn current_skills(&self) -> StoreResult<Vec<StoredSkill>> {
        self.read(async |transaction| {
            let mut files: HashMap<i64, Vec<SkillFile>> = HashMap::new();
            for row in cached_query(
                transaction,
                "SELECT f.skill_id, f.path, b.bytes FROM visible_skills($1) s
                 JOIN revision_files f ON f.skill_id = s.id AND f.number = s.revision
                 JOIN blobs b ON b.sha256 = f.sha256
                 WHERE NOT s.deleted ORDER BY f.skill_id, f.path COLLATE \"C\"",
                &[&self.projects],
            )
            .await?
            {
                files.entry(row.try_get(0)?).or_default().push(SkillFile {
                    path: row.try_get(1)?,
                    bytes: row.try_get(2)?,
                });
            }
            cached_query(
                transaction,
                "SELECT s.id, s.name, s.revision, s.provenance, r.created_at, r.description,
                        r.tool_name, r.content_hash, r.skill_md
                 FROM visible_skills($1) s JOIN revisions r ON r.skill_id = s.id AND r.number = s.revision
                 WHERE NOT s.deleted ORDER BY s.name",
                &[&self.projects],
            )
            .await?
            .iter()
            .map(|row| {
                let id: i64 = row.try_get(0)?;
                Ok(StoredSkill {
                    name: row.try_get(1)?,
                    revision: revision_of(row.try_get(2)?),
                    provenance: parse_provenance(row.try_get(3)?)?,
                    updated_at: row.try_get(4)?,
                    description: row.try_get(5)?,
                    tool_name: row.try_get(6)?,
                    deleted: false,
                    content_hash: row.try_get(7)?,
                    snapshot: SkillSnapshot {
                        skill_md: row.try_get(8)?,
                        files: files.remove(&id).unwrap_or_default(),
                    },
                })
            })
            .collect()
        })
        .await
    }

    async fn current_revisions(&self) -> StoreResult<Vec<(String, u64)>> {
        self.read(async |transaction| {
            cached_query(
                transaction,
                "SELECT name, revision FROM visible_skills($1) WHERE NOT deleted ORDER BY name",
                &[&self.projects],
            )
            .await?
            .iter()
            .map(|row| Ok((row.try_get(0)?, revision_of(row.try_get(1)?))))
            .collect()
        })
        .await
    }

    async fn list(
        &self,
        filter: ListFilter,
        cursor: Option<String>,
        limit: usize,
    ) -> StoreResult<Page<SkillSummary>> {
        let after = match cursor.as_deref() {
            Some(text) => {
                let after = decode_cursor(text)?;
                // No stored name has a NUL (PostgreSQL text cannot hold one).
                if after.contains('\0') {
                    return Err(StoreError::InvalidCursor(text.to_owned()));
                }
                after
            }
            None => String::new(),
        };
        let limit = limit.clamp(1, 1000);
        let prefix = filter.name_prefix.unwrap_or_default();
        if prefix.contains('\0') {
            return Ok(Page {
                items: Vec::new(),
                next_cursor: None,
            });
        }
        let include_deleted = filter.include_deleted;
        let fetch = i64::try_from(limit + 1).unwrap_or(1001);
        self.read(async |transaction| {
            let rows = cached_query(transaction,
                    "SELECT name, description, tool_name, revision, deleted, updated_at, provenance FROM visible_skills($5)
                     WHERE name > $1 AND ($2 OR NOT deleted) AND starts_with(name, $3)
                     ORDER BY name LIMIT $4",
                    &[&after, &include_deleted, &prefix, &fetch, &self.projects],
                )
                .await?;
            let mut items = rows
                .iter()
                .map(|r| {
                    let provenance: String = r.try_get(6)?;
                    Ok(SkillSummary {
                        name: r.try_get(0)?,
                        description: r.try_get(1)?,
                        tool_name: r.try_get(2)?,
                        revision: revision_of(r.try_get(3)?),
                        deleted: r.try_get(4)?,
                        updated_at: r.try_get(5)?,
                        provenance: serde_json::from_str(&provenance).unwrap_or(Provenance::Api),
                    })
                })
                .collect::<StoreResult<Vec<_>>>()?;
            let next_cursor = if items.len() > limit {
                items.truncate(limit);
                items.last().map(|last| encode_cursor(&last.name))
            } else {
                None
            };
            Ok(Page { items, next_cursor })
        })
        .await
    }

    async fn search(&self, query: &str, limit: usize) -> StoreResult<Vec<SearchHit>> {
        let words = search::query_words(query);
        let Some(ts_query) = tsquery(&words) else {
            return Ok(Vec::new());
        };
        let limit = limit.clamp(1, 1000);
        // Enough candidates for the tiers to reorder, as on SQLite: the best by relevance and
        // the best of the skills whose name matches. Headlines, the costly part, only for hits.
        let pool = i64::try_from((limit * 4).max(32)).unwrap_or(4000);
        self.read(async |transaction| {
            let mut candidates = Vec::new();
            for filter in ["x.document", "ts_filter(x.document, '{a}')"] {
                let sql = format!(
                    "SELECT s.id, s.name, s.description,
                            ts_rank('{RANK_WEIGHTS}'::float4[], x.document, q, {RANK_NORMALIZATION})::float8 AS rank
                     FROM skill_search x JOIN visible_skills($3) s ON s.id = x.skill_id,
                          to_tsquery('english'::regconfig, $1) q
                     WHERE {filter} @@ q ORDER BY rank DESC, s.name LIMIT $2"
                );
                for r in cached_query(transaction, &sql, &[&ts_query, &pool, &self.projects]).await? {
                    candidates.push(search::Candidate {
                        key: r.try_get(0)?,
                        name: r.try_get(1)?,
                        description: r.try_get(2)?,
                        relevance: r.try_get(3)?,
                    });
                }
            }
            let mut hits = Vec::new();
            for (candidate, score) in search::rank(candidates, &words, limit) {
                let text: String = cached_query_one(transaction,
                        "SELECT ts_headline('english'::regconfig,
                                name || E'\\n' || description || E'\\n' || body,
                                to_tsquery('english'::regconfig, $1), $3)
                         FROM skill_search WHERE skill_id = $2",
                        &[&ts_query, &candidate.key, &HEADLINE_OPTIONS],
                    )
                    .await?
                    .try_get(0)?;
                hits.push(search::hit(candidate, score, &text));
            }
            Ok(hits)
        })
        .await
    }

    async fn history(&self, name: &str) -> StoreResult<Vec<Revision>> {
        self.read(async |transaction| {
            let row = find(transaction, &self.projects, name, false)
                .await?
                .ok_or_else(|| StoreError::NotFound {
                    name: name.to_owned(),
                    revision: None,
                })?;
            cached_query(transaction,
                    "SELECT number, created_at, author, message, operation, content_hash FROM revisions WHERE skill_id = $1 ORDER BY number",
                    &[&row.id],
                )
                .await?
                .iter()
                .map(|r| {
                    let operation: String = r.try_get(4)?;
                    Ok(Revision {
                        skill: name.to_owned(),
                        number: revision_of(r.try_get(0)?),
                        created_at: r.try_get(1)?,
                        author: r.try_get(2)?,
                        message: r.try_get(3)?,
                        operation: Operation::parse(&operation).unwrap_or(Operation::Update),
                        content_hash: r.try_get(5)?,
                    })
                })
                .collect()
        })
        .await
    }

    async fn import_folders(
        &self,
        items: Vec<FolderImport>,
        change: Change,
    ) -> StoreResult<ImportReport> {
        let (planned, shadowed, given_order) = import_plan::plan(items)?;
        self.write_quiet(async |transaction| {
            let mut report = ImportReport {
                shadowed,
                ..ImportReport::default()
            };
            for Planned { name, item, .. } in planned {
                let FolderContent::Read { snapshot, stamp } = item.content else {
                    report.unchanged.push(name);
                    report.not_read += 1;
                    continue;
                };
                let project = item.provenance.project_key();
                let existing = match find_in(transaction, &name, project).await? {
                    Some(row) => Some(row),
                    None => match insert_skill(transaction, &name, &item.provenance).await? {
                        Some(id) => {
                            write_revision(
                                transaction,
                                &NewRevision::first(id, &change, &snapshot, &item.provenance),
                            )
                            .await?;
                            report.created.push(name);
                            record_stamp(transaction, stamp.as_ref(), id, 1).await?;
                            continue;
                        }
                        // Created by someone else meanwhile: treat it as existing.
                        None => find_in(transaction, &name, project).await?,
                    },
                };
                let Some(row) = existing else {
                    return Err(StoreError::Database(format!(
                        "skill `{name}` vanished during the import"
                    )));
                };
                if let Some(left_out) =
                    scopes::left_out_for(&name, row.deleted, &row.provenance, &item.provenance)?
                {
                    report.shadowed.push(left_out);
                    continue;
                }
                if !row.deleted && row.content_hash == snapshot.content_hash() {
                    report.unchanged.push(name);
                    record_stamp(transaction, stamp.as_ref(), row.id, row.revision).await?;
                    continue;
                }
                let operation = if row.deleted {
                    Operation::Restore
                } else {
                    Operation::Update
                };
                write_revision(
                    transaction,
                    &NewRevision::after(
                        row.id,
                        row.revision,
                        operation,
                        &change,
                        &snapshot,
                        &item.provenance,
                    ),
                )
                .await?;
                report.updated.push(name);
                record_stamp(transaction, stamp.as_ref(), row.id, row.revision + 1).await?;
            }
            if !report.created.is_empty() || !report.updated.is_empty() {
                announce(transaction).await?;
            }
            given_order.restore(&mut report);
            Ok(report)
        })
        .await
    }

    async fn check(&self) -> StoreResult<()> {
        self.read(async |transaction| {
            cached_query_one(transaction, "SELECT 1", &[]).await?;
            Ok(())
        })
        .await
    }

    async fn shadowed(&self) -> StoreResult<Vec<ShadowedSkill>> {
        self.read(async |transaction| {
            cached_query(
                transaction,
                "SELECT s.name, s.provenance, v.provenance FROM skills s
                 JOIN visible_skills($1) v ON v.name = s.name AND v.id <> s.id
                 WHERE NOT s.deleted AND (s.project = '' OR s.project = ANY ($1))
                 ORDER BY s.name, length(s.project) DESC",
                &[&self.projects],
            )
            .await?
            .iter()
            .map(|row| {
                Ok(ShadowedSkill {
                    name: row.try_get(0)?,
                    path: parse_provenance(row.try_get(1)?)?.folder().to_owned(),
                    kept: parse_provenance(row.try_get(2)?)?.folder().to_owned(),
                })
            })
            .collect()
        })
        .await
    }

    async fn folder_stamps(&self) -> StoreResult<Vec<RecordedStamp>> {
        self.read(async |transaction| {
            cached_query(
                transaction,
                "SELECT f.folder, s.name, f.stamp FROM folder_stamps f JOIN skills s ON s.id = f.skill_id
                 WHERE f.revision = s.revision AND NOT s.deleted",
                &[],
            )
            .await?
            .iter()
            .map(|row| {
                Ok(RecordedStamp {
                    folder: row.try_get(0)?,
                    name: row.try_get(1)?,
                    stamp: row.try_get(2)?,
                })
            })
            .collect()
        })
        .await
    }
}

/// Records `stamp` (if any) as the stamp of its folder, read for revision `revision` of the
/// skill `id`.
async fn record_stamp(
    transaction: &Transaction<'_>,
    stamp: Option<&FolderStamp>,
    id: i64,
    revision: u64,
) -> StoreResult<()> {
    let Some(stamp) = stamp else {
        return Ok(());
    };
    let revision = number(revision)?;
    cached_execute(
        transaction,
        "INSERT INTO folder_stamps (folder, skill_id, revision, stamp) VALUES ($1, $2, $3, $4)
         ON CONFLICT (folder) DO UPDATE SET skill_id = excluded.skill_id, revision = excluded.revision, stamp = excluded.stamp",
        &[&stamp.folder, &id, &revision, &stamp.stamp],
    )
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsqueries_quote_every_word_and_prefix_the_last() {
        let words = search::query_words("Create an MCP server!");
        assert_eq!(
            tsquery(&words).as_deref(),
            Some("'create' | 'mcp' | 'server':*")
        );
        assert_eq!(
            tsquery(&["it's".to_owned(), "a\\b".to_owned()]).as_deref(),
            Some("'it''s' | 'a\\\\b':*")
        );
        assert_eq!(tsquery(&[]), None);
    }

    #[test]
    fn descriptions_never_show_a_password() {
        let config = tokio_postgres::Config::from_str("postgres://u:secret@db.example:6543/skills")
            .expect("a valid URL");
        assert_eq!(describe(&config), "db.example:6543/skills");
    }
}
