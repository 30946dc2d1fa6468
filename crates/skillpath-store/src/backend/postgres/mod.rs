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
//! (see `tls`); Unix sockets never do.
//!
//! Every committed write announces itself with `pg_notify('skillpath_changes', <schema>)` in its
//! transaction (so it is delivered on commit, and never for a rolled-back write);
//! [`Store::watch_changes`] starts one dedicated connection (outside the pool) that `LISTEN`s on
//! that channel and turns the notifications for this store's schema into change signals, so
//! several servers on one database can follow each other's writes. It also signals once each
//! time it starts listening, since changes may have been missed before; when its connection
//! drops it reconnects with backoff.
//!
//! Search uses `tsvector`s (`english` configuration) of the names, of the names and
//! descriptions (name A, description B) and of the bodies, each with a GIN index, read scope
//! by scope as `crate::search::candidates` asks; candidates are ranked by the same rules as
//! SQLite ([`crate::search::rank`]). The counts that weigh a search's words are kept between
//! searches while the change listener listens, and dropped at every change signal
//! (`counts`).

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use async_trait::async_trait;
use deadpool_postgres::Transaction;
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use skillpath_audit::Policy;
use tokio::sync::broadcast;
use tokio_postgres::IsolationLevel;

use crate::answers::{ImportReport, SearchHit, SkillMetadata, SkillSummary, StoredSkill};
use crate::audit::PolicySetting;
use crate::columns;
use crate::directory::{Directory, Governance, LogFilter, Star};
use crate::drafts::{Draft, DraftFilter, DraftRecord, DraftRef, DraftSummary};
use crate::error::{DatabaseError, StoreError, StoreResult};
use crate::import;
use crate::keys::{KEY_COLUMNS, KeyInfo, StoredKey};
use crate::provenance_column::ProvenanceColumn;
use crate::schema::{Upgrade, Upgraded};
use crate::scopes::ProjectView;
use crate::search::{self, Scope};
use crate::store::{ImportPlan, Listing, Store};
use crate::time::now_rfc3339;
use crate::uploads::{StagedUpload, Staging, Unstaged};
use crate::usage::{self, UsageCount, UsageQuery, UsageRow};
use crate::writes::{self, SkillWrite};
use skillpath_model::governance::Entry;
use skillpath_model::{
    Change, FileMetadata, Kind, Provenance, RecordedStamp, Revision, ShadowedSkill, SkillFile,
};

mod changes;
mod counts;
mod directory;
mod drafts;
mod migrations;
mod reads;
mod sql;
mod tls;
mod transaction;

use changes::announce;
use counts::SearchCounts;
use reads::{find, load};
use sql::{
    cached_execute, cached_query, cached_query_one, cached_query_opt, describe_error, number,
    revision_of,
};
use transaction::PostgresWrite;

/// Every live skill's row at its current revision, in name order, in the columns of
/// [`columns::current_skill`].
const CURRENT_SKILLS: &str =
    "SELECT s.id, s.name, s.revision, s.provenance, r.created_at, r.description,
            r.tool_name, r.content_hash, r.skill_md, a.findings, s.kind
     FROM visible_skills($1) s JOIN revisions r ON r.skill_id = s.id AND r.number = s.revision
     LEFT JOIN revision_audits a ON a.skill_id = s.id AND a.number = s.revision
     WHERE NOT s.deleted ORDER BY s.name";

/// Every live skill's metadata, in name order, in the columns of
/// [`columns::current_metadata`]: the skill's row and the head of its `SKILL.md`; the
/// revision's text is read only where it has no head.
const CURRENT_METADATA: &str =
    "SELECT s.id, s.name, s.revision, s.provenance, s.updated_at, s.description,
            s.tool_name, s.content_hash, h.frontmatter, h.sha256, h.size,
            CASE WHEN h.skill_id IS NULL THEN (SELECT skill_md FROM revisions r
                WHERE r.skill_id = s.id AND r.number = s.revision) END, a.findings, s.kind
     FROM visible_skills($1) s
     LEFT JOIN revision_heads h ON h.skill_id = s.id AND h.number = s.revision
     LEFT JOIN revision_audits a ON a.skill_id = s.id AND a.number = s.revision
     WHERE NOT s.deleted ORDER BY s.name";

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
    /// The counts searches weigh words by, kept while the listener listens.
    counts: Arc<SearchCounts>,
    /// The most one operation may take, waiting for a connection included (the URL's
    /// `timeout=SECONDS`, else [`DEFAULT_TIMEOUT`]).
    timeout: Duration,
    /// The most setting up a connection may take (the URL's `connect_timeout`, as in libpq).
    connect_timeout: Duration,
    /// The project folders whose skills this store shows besides the shared ones
    /// ([`ProjectView`]), the argument of every `visible_skills`.
    projects: Vec<String>,
    /// [`Store::audit_policy`].
    audit_policy: PolicySetting,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("database", &self.display)
            .finish_non_exhaustive()
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
        PostgresStore::open_upgrading(url, view, &Upgrade::default())
            .await
            .map(|(store, _)| store)
    }

    /// [`PostgresStore::open_in`], bringing the schema up to date as `upgrade` says; what
    /// that did.
    pub async fn open_upgrading(
        url: &str,
        view: &ProjectView,
        upgrade: &Upgrade,
    ) -> StoreResult<(PostgresStore, Upgraded)> {
        let (url, mut ours) = tls::take_parameters(url, &["timeout"])?;
        let timeout = match ours.remove("timeout") {
            Some(seconds) => Duration::from_secs(seconds.trim().parse().map_err(|_| {
                StoreError::database(format!(
                    "`timeout={seconds}` in the URL is not a number of seconds"
                ))
            })?),
            None => DEFAULT_TIMEOUT,
        };
        let (url, tls_settings) = tls::split_url(&url, |key| std::env::var(key).ok())?;
        let url = url.as_str();
        let mut config = tokio_postgres::Config::from_str(url).map_err(|error| {
            StoreError::Database(DatabaseError::caused_by(
                format!("`{url}` is not a PostgreSQL URL this build reads: {error}"),
                error,
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
                StoreError::Database(DatabaseError::caused_by(
                    format!("cannot set up the PostgreSQL pool: {error}"),
                    error,
                ))
            })?;
        let mut store = PostgresStore {
            pool,
            display,
            config,
            tls,
            schema: String::new(),
            changes: Arc::default(),
            listening: Arc::default(),
            counts: Arc::default(),
            projects: view.folders().to_vec(),
            audit_policy: PolicySetting::default(),
            timeout,
            connect_timeout,
        };
        let upgraded = store.bounded(store.migrate(upgrade)).await?;
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
        Ok((store, upgraded))
    }

    /// A pooled connection; an error names the server so the user knows which one is down.
    async fn client(&self) -> StoreResult<deadpool_postgres::Object> {
        self.pool.get().await.map_err(|error| {
            let reason = match &error {
                deadpool_postgres::PoolError::Backend(error) => describe_error(error),
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
            StoreError::Database(DatabaseError::caused_by(
                format!(
                    "cannot connect to PostgreSQL at `{}`: {reason}{}",
                    self.display,
                    hint.unwrap_or_default()
                ),
                error,
            ))
        })
    }
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

/// The advisory lock key that serializes the staging of uploads (any fixed number; this one
/// spells `skillupl`).
const UPLOADS_LOCK: i64 = 0x736b_696c_6c75_706c;

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
        self.write_quiet_within(self.timeout, work).await
    }

    /// [`Self::write_quiet`] bounded by `limit` rather than the store's timeout.
    async fn write_quiet_within<T>(
        &self,
        limit: Duration,
        work: impl AsyncFnOnce(&Transaction<'_>) -> StoreResult<T>,
    ) -> StoreResult<T> {
        self.bounded_within(limit, async {
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
        self.bounded_within(self.timeout, operation).await
    }

    /// `operation`, failed when it takes longer than `limit`.
    async fn bounded_within<T>(
        &self,
        limit: Duration,
        operation: impl std::future::Future<Output = StoreResult<T>>,
    ) -> StoreResult<T> {
        tokio::time::timeout(limit, operation)
            .await
            .unwrap_or_else(|_| {
                Err(StoreError::database(format!(
                    "PostgreSQL at `{}` did not answer within {} s: it may be hung or overloaded (`timeout=SECONDS` in the URL sets this limit; an import gets it once per batch of its writes)",
                    self.display,
                    limit.as_secs()
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
    fn audit_policy(&self) -> Policy {
        self.audit_policy.get()
    }

    fn set_audit_policy(&self, policy: Policy) {
        self.audit_policy.set(policy);
    }

    async fn write_all(&self, writes: Vec<SkillWrite>) -> StoreResult<Vec<StoredSkill>> {
        self.write(async |transaction| {
            let mut rows = PostgresWrite {
                transaction,
                projects: &self.projects,
            };
            writes::apply_all(&mut rows, writes).await
        })
        .await
    }

    async fn put_draft(&self, record: DraftRecord) -> StoreResult<()> {
        self.write_quiet(async |transaction| drafts::put(transaction, &record).await)
            .await
    }

    async fn drafts(&self, filter: DraftFilter) -> StoreResult<Vec<DraftSummary>> {
        self.read(async |transaction| drafts::list(transaction, &filter).await)
            .await
    }

    async fn read_draft(&self, name: &str, author: &str) -> StoreResult<Option<Draft>> {
        self.read(async |transaction| drafts::read(transaction, name, author).await)
            .await
    }

    async fn review_draft(
        &self,
        draft: &DraftRef,
        reviewer: &Change,
    ) -> StoreResult<Option<DraftSummary>> {
        self.write_quiet(async |transaction| drafts::reject(transaction, draft, reviewer).await)
            .await
    }

    async fn record_usage(&self, counts: Vec<UsageCount>) -> StoreResult<()> {
        if counts.is_empty() {
            return Ok(());
        }
        let counts = usage::in_lock_order(counts);
        self.write_quiet(async |transaction| {
            for count in &counts {
                cached_execute(
                    transaction,
                    "INSERT INTO skill_usage (skill, revision, day, key, kind, count, last_used)
                     VALUES ($1, $2, $3, $4, $5, $6, $7)
                     ON CONFLICT (skill, revision, day, key, kind) DO UPDATE SET
                        count = skill_usage.count + excluded.count,
                        last_used = GREATEST(skill_usage.last_used, excluded.last_used)",
                    &[
                        &count.skill,
                        &number(count.revision)?,
                        &count.day,
                        &count.key,
                        &count.kind.as_str(),
                        &i64::try_from(count.count).unwrap_or(i64::MAX),
                        &count.last_used,
                    ],
                )
                .await?;
            }
            Ok(())
        })
        .await
    }

    async fn usage(&self, query: UsageQuery) -> StoreResult<Vec<UsageRow>> {
        self.read(async |transaction| {
            let sql = usage::select(query.by, |n| format!("${n}::text"));
            let rows = cached_query(transaction, &sql, &[&query.since, &query.skill])
                .await?
                .iter()
                .map(|row| usage::row(row, query.by))
                .collect::<StoreResult<Vec<_>>>()?;
            Ok(usage::sorted(rows))
        })
        .await
    }

    async fn create_key(&self, key: StoredKey) -> StoreResult<KeyInfo> {
        self.write_quiet(async |transaction| {
            let info = &key.info;
            // The partial unique index on active names decides between concurrent creators.
            let inserted = cached_execute(
                transaction,
                &format!(
                    "INSERT INTO api_keys ({KEY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
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
                    &info.user,
                    &info.stored_namespaces(),
                    &info.channel,
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
            .map(|row| columns::key(row).map(|key| key.info))
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
            Ok(columns::key(&row)?.info)
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
                .map(columns::key)
                .transpose()
        })
        .await
    }

    async fn directory(&self) -> StoreResult<Directory> {
        self.read(async |transaction| directory::read(transaction).await)
            .await
    }

    async fn govern(&self, change: Governance, actor: &str) -> StoreResult<Entry> {
        self.write(async |transaction| {
            crate::directory::rows::apply(&mut directory::PgDirectory(transaction), change, actor)
                .await
        })
        .await
    }

    async fn governance_log(&self, filter: LogFilter) -> StoreResult<Vec<Entry>> {
        let mut entries = self
            .read(async |transaction| directory::log(transaction).await)
            .await?;
        entries.retain(|entry| filter.admits(&entry.action));
        Ok(entries)
    }

    async fn set_star(&self, handle: &str, key: &str, starred: bool) -> StoreResult<bool> {
        self.write(async |transaction| {
            let was = directory::stars(transaction, Some(handle))
                .await?
                .iter()
                .any(|star| star.key == key);
            if starred {
                cached_execute(
                    transaction,
                    crate::directory::rows::STAR,
                    &[&handle, &key, &now_rfc3339()],
                )
                .await?;
            } else {
                cached_execute(
                    transaction,
                    crate::directory::rows::UNSTAR,
                    &[&handle, &key],
                )
                .await?;
            }
            Ok(was)
        })
        .await
    }

    async fn stars(&self, handle: Option<&str>) -> StoreResult<Vec<Star>> {
        self.read(async |transaction| directory::stars(transaction, handle).await)
            .await
    }

    async fn stage_upload(
        &self,
        upload: StagedUpload,
        staging: Staging,
    ) -> StoreResult<Result<(), Unstaged>> {
        self.write_quiet(async |transaction| {
            // One staging at a time, so that two replicas cannot both pass a bound.
            transaction
                .execute("SELECT pg_advisory_xact_lock($1)", &[&UPLOADS_LOCK])
                .await?;
            transaction
                .execute(
                    "DELETE FROM registry_uploads WHERE created_at < $1",
                    &[&staging.since],
                )
                .await?;
            let theirs: i64 = transaction
                .query_one(
                    "SELECT COALESCE(SUM(size), 0)::BIGINT FROM registry_uploads WHERE key_id = $1",
                    &[&upload.key],
                )
                .await?
                .get(0);
            let size = i64::try_from(upload.size).unwrap_or(i64::MAX);
            if u64::try_from(theirs).unwrap_or(0) + upload.size > staging.per_key {
                return Ok(Err(Unstaged::PerKey));
            }
            let all: i64 = transaction
                .query_one("SELECT COALESCE(SUM(size), 0)::BIGINT FROM registry_uploads", &[])
                .await?
                .get(0);
            if u64::try_from(all).unwrap_or(0) + upload.size > staging.total {
                return Ok(Err(Unstaged::Total));
            }
            transaction
                .execute(
                    "INSERT INTO registry_uploads (ticket, key_id, path, size, sha256, bytes, created_at)
                     VALUES ($1, $2, $3, $4, $5, NULL, $6)",
                    &[
                        &upload.ticket,
                        &upload.key,
                        &upload.path,
                        &size,
                        &upload.sha256,
                        &upload.created_at,
                    ],
                )
                .await?;
            Ok(Ok(()))
        })
        .await
    }

    async fn staged_upload(&self, ticket: &str) -> StoreResult<Option<StagedUpload>> {
        self.bounded(async {
            let client = self.client().await?;
            let row = client
                .query_opt(
                    "SELECT ticket, key_id, path, size, sha256, bytes, created_at FROM registry_uploads WHERE ticket = $1",
                    &[&ticket],
                )
                .await?;
            Ok(row.map(|row| StagedUpload {
                ticket: row.get(0),
                key: row.get(1),
                path: row.get(2),
                size: u64::try_from(row.get::<_, i64>(3)).unwrap_or(0),
                sha256: row.get(4),
                bytes: row.get(5),
                created_at: row.get(6),
            }))
        })
        .await
    }

    async fn fill_upload(&self, ticket: &str, bytes: Vec<u8>) -> StoreResult<()> {
        self.bounded(async {
            let client = self.client().await?;
            client
                .execute(
                    "UPDATE registry_uploads SET bytes = $2 WHERE ticket = $1",
                    &[&ticket, &bytes],
                )
                .await?;
            Ok(())
        })
        .await
    }

    async fn drop_uploads(&self, key: &str, tickets: Vec<String>) -> StoreResult<()> {
        self.bounded(async {
            let client = self.client().await?;
            client
                .execute(
                    "DELETE FROM registry_uploads WHERE key_id = $1 AND ticket = ANY($2)",
                    &[&key, &tickets],
                )
                .await?;
            Ok(())
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
            runtime.spawn(changes::listen(
                changes::Target {
                    config: self.config.clone(),
                    tls: self.tls.clone(),
                    schema: self.schema.clone(),
                    database: self.display.clone(),
                    connect_timeout: self.connect_timeout,
                },
                Arc::clone(&self.listening),
                Arc::clone(&self.counts),
                sender.downgrade(),
            ));
            sender
        });
        Some(sender.subscribe())
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
                files
                    .entry(row.try_get(0)?)
                    .or_default()
                    .push(columns::file(&row, 1)?);
            }
            cached_query(transaction, CURRENT_SKILLS, &[&self.projects])
                .await?
                .iter()
                .map(|row| {
                    let id: i64 = row.try_get(0)?;
                    columns::current_skill(row, files.remove(&id).unwrap_or_default())
                })
                .collect()
        })
        .await
    }

    async fn current_metadata(&self) -> StoreResult<Vec<SkillMetadata>> {
        self.read(async |transaction| {
            let mut files: HashMap<i64, Vec<FileMetadata>> = HashMap::new();
            for row in cached_query(
                transaction,
                // A blob is read only for a file written without its size and text flag (by
                // an older skillpath).
                "SELECT f.skill_id, f.path, f.sha256, f.size, f.text,
                    CASE WHEN f.text IS NULL THEN (SELECT size FROM blobs WHERE sha256 = f.sha256) END,
                    CASE WHEN f.text IS NULL THEN (SELECT bytes FROM blobs WHERE sha256 = f.sha256) END
                 FROM visible_skills($1) s
                 JOIN revision_files f ON f.skill_id = s.id AND f.number = s.revision
                 WHERE NOT s.deleted ORDER BY f.skill_id, f.path COLLATE \"C\"",
                &[&self.projects],
            )
            .await?
            {
                let file = columns::file_metadata(&row, 1)?;
                files.entry(row.try_get(0)?).or_default().push(file);
            }
            cached_query(transaction, CURRENT_METADATA, &[&self.projects])
                .await?
                .iter()
                .map(|row| {
                    let id: i64 = row.try_get(0)?;
                    columns::current_metadata(row, files.remove(&id).unwrap_or_default())
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

    async fn list_after(&self, listing: Listing) -> StoreResult<Vec<SkillSummary>> {
        let (filter, after) = (listing.filter, listing.after);
        let prefix = filter.name_prefix.unwrap_or_default();
        // No stored name has a NUL (PostgreSQL text cannot hold one), nor starts with one.
        if prefix.contains('\0') {
            return Ok(Vec::new());
        }
        let include_deleted = filter.include_deleted;
        let kind = filter.kind.map(Kind::as_str);
        let fetch = i64::try_from(listing.count).unwrap_or(i64::MAX);
        self.read(async |transaction| {
            let rows = cached_query(transaction,
                    "SELECT name, description, tool_name, revision, deleted, updated_at, provenance, kind FROM visible_skills($5)
                     WHERE name > $1 AND ($2 OR NOT deleted) AND starts_with(name, $3)
                       AND ($6::text IS NULL OR kind = $6)
                     ORDER BY name LIMIT $4",
                    &[&after, &include_deleted, &prefix, &fetch, &self.projects, &kind],
                )
                .await?;
            rows.iter().map(columns::summary).collect()
        })
        .await
    }

    async fn search(&self, query: &str, limit: usize) -> StoreResult<Vec<SearchHit>> {
        let words = search::query_words(query);
        let Some(ts_query) = tsquery(&words) else {
            return Ok(Vec::new());
        };
        let (limit, pool) = search::sizes(limit);
        // The counts' generation is taken before the transaction's snapshot ([`counts`]).
        let counts = self
            .listening
            .load(std::sync::atomic::Ordering::SeqCst)
            .then(|| self.counts.generation())
            .flatten()
            .map(|generation| (self.counts.as_ref(), generation));
        self.read(async |transaction| {
            let mut index = SearchColumns {
                transaction,
                query: &ts_query,
                projects: &self.projects,
                counts,
            };
            let candidates = search::candidates(&mut index, &words, limit, pool).await?;
            let weights = search::weights(&mut index, &words).await?;
            let mut hits = Vec::new();
            for (candidate, score) in search::rank(candidates, &words, &weights, limit) {
                let in_body = candidate.scope == Scope::Body;
                let text: String = cached_query_one(
                    transaction,
                    "SELECT ts_headline('english'::regconfig,
                            CASE WHEN $4 THEN body ELSE name || E'\\n' || description END,
                            to_tsquery('english'::regconfig, $1), $3)
                     FROM skill_search WHERE skill_id = $2",
                    &[&ts_query, &candidate.key, &HEADLINE_OPTIONS, &in_body],
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
                .map(|r| columns::revision(r, name))
                .collect()
        })
        .await
    }

    async fn import_planned(&self, plan: ImportPlan, change: Change) -> StoreResult<ImportReport> {
        // An import is one transaction of many statements: its bound grows with its batches.
        let limit = self.timeout.saturating_mul(plan.batches());
        self.write_quiet_within(limit, async |transaction| {
            let mut rows = PostgresWrite {
                transaction,
                projects: &self.projects,
            };
            let report = import::run(&mut rows, plan, &change).await?;
            if !report.created.is_empty() || !report.updated.is_empty() {
                announce(transaction).await?;
            }
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
                    path: Provenance::from_stored(row.try_get(1)?)?
                        .folder()
                        .to_owned(),
                    kept: Provenance::from_stored(row.try_get(2)?)?
                        .folder()
                        .to_owned(),
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

/// The search's `tsvector`s as [`search::candidates`] reads them, in a search's read
/// transaction: a scope's matches through its GIN index, ranked by `ts_rank` over the names
/// and descriptions (the name scope too: its index only finds them) or the bodies, the best
/// `$2` kept before the view is joined.
struct SearchColumns<'a> {
    transaction: &'a Transaction<'a>,
    /// The `to_tsquery` text of the search's words ([`tsquery`]).
    query: &'a str,
    /// The projects of the store's view.
    projects: &'a [String],
    /// The counts kept between searches and the generation the search began in, while the
    /// store follows changes ([`counts`]).
    counts: Option<(&'a SearchCounts, u64)>,
}

impl search::SearchIndex for SearchColumns<'_> {
    async fn matches(
        &mut self,
        scope: Scope,
        count: i64,
    ) -> StoreResult<(usize, Vec<search::Candidate>)> {
        let (filter, ranked) = match scope {
            Scope::Name => ("name_document", "head_document"),
            Scope::Head => ("head_document", "head_document"),
            Scope::Body => ("body_document", "body_document"),
        };
        let sql = format!(
            "SELECT m.rank, s.id, s.name, s.description, s.kind FROM
                (SELECT x.skill_id,
                        ts_rank('{RANK_WEIGHTS}'::float4[], x.{ranked}, q, {RANK_NORMALIZATION})::float8 AS rank
                 FROM skill_search x, to_tsquery('english'::regconfig, $1) q
                 WHERE x.{filter} @@ q ORDER BY rank DESC, x.name LIMIT $2) m
             LEFT JOIN visible_skills($3) s ON s.id = m.skill_id"
        );
        let rows = cached_query(
            self.transaction,
            &sql,
            &[&self.query, &count, &self.projects],
        )
        .await?;
        let mut shown = Vec::new();
        for r in &rows {
            if let Some(key) = r.try_get::<_, Option<i64>>(1)? {
                shown.push(search::Candidate {
                    key,
                    kind: columns::kind(r, 4)?,
                    name: r.try_get(2)?,
                    description: r.try_get(3)?,
                    relevance: r.try_get(0)?,
                    scope,
                });
            }
        }
        Ok((rows.len(), shown))
    }

    async fn head_frequencies(&mut self, words: &[String]) -> StoreResult<(u64, Vec<u64>)> {
        let count = |row: tokio_postgres::Row| -> StoreResult<u64> {
            Ok(row.try_get::<_, i64>(0)?.unsigned_abs())
        };
        let known = self
            .counts
            .map(|(counts, generation)| counts.known(generation, words));
        let total = match known.as_ref().and_then(|known| known.total) {
            Some(total) => total,
            None => count(
                cached_query_one(self.transaction, "SELECT count(*) FROM skill_search", &[])
                    .await?,
            )?,
        };
        let common = i64::try_from(search::common(total)).unwrap_or(i64::MAX);
        let mut frequencies = Vec::with_capacity(words.len());
        let mut counted = Vec::new();
        for (at, word) in words.iter().enumerate() {
            if let Some(frequency) = known.as_ref().and_then(|known| known.words[at]) {
                frequencies.push(frequency);
                continue;
            }
            let Some(query) = tsquery(std::slice::from_ref(word)) else {
                frequencies.push(0);
                continue;
            };
            let frequency = count(
                cached_query_one(
                    self.transaction,
                    "SELECT count(*) FROM (SELECT 1 FROM skill_search
                     WHERE head_document @@ to_tsquery('english'::regconfig, $1) LIMIT $2) m",
                    &[&query, &common],
                )
                .await?,
            )?;
            frequencies.push(frequency);
            counted.push((word.clone(), frequency));
        }
        if let Some((counts, generation)) = self.counts {
            counts.keep(generation, total, counted);
        }
        Ok((total, frequencies))
    }
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
