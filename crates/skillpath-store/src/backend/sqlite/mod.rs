//! The embedded backend: SQLite (bundled), WAL mode, FTS5 search.
//!
//! One connection per store behind a mutex, used on tokio's blocking pool. Writes run in
//! `BEGIN IMMEDIATE` transactions, so two processes on one database serialize their writes
//! and the later one sees the earlier one's revision (and is refused as stale); a process
//! killed mid-transaction leaves the previous committed state (SQLite's journal).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};
use skillpath_audit::Policy;

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
use skillpath_model::{Change, Kind, Provenance, RecordedStamp, Revision, ShadowedSkill};

mod changes;
mod directory;
mod drafts;
mod migrations;
mod reads;
mod transaction;

use reads::{first, load, row};
use transaction::{SqliteWrite, now};

/// The best matches of the names and descriptions' index (`skills_fts_head`, BM25 with the
/// columns weighted name 10, description 5), at most `?2`, each with the skill the view shows
/// (`NULL`s when it hides it). Ranked inside the subquery, so that FTS5 scores only index
/// entries and the view is joined to the few kept.
const HEAD_MATCHES: &str = "SELECT m.rank, s.id, s.name, s.description, s.kind FROM
    (SELECT rowid, bm25(skills_fts_head, 10.0, 5.0) AS rank FROM skills_fts_head
     WHERE skills_fts_head MATCH ?1 ORDER BY rank LIMIT ?2) m
    LEFT JOIN visible_skills s ON s.id = m.rowid";

/// [`HEAD_MATCHES`] for the bodies' index (`skills_fts_body`).
const BODY_MATCHES: &str = "SELECT m.rank, s.id, s.name, s.description, s.kind FROM
    (SELECT rowid, bm25(skills_fts_body) AS rank FROM skills_fts_body
     WHERE skills_fts_body MATCH ?1 ORDER BY rank LIMIT ?2) m
    LEFT JOIN visible_skills s ON s.id = m.rowid";

/// A hit's snippet from its name or description: the match in `[…]`, about 16 words.
const HEAD_SNIPPET: &str =
    "SELECT snippet(skills_fts_head, -1, '[', ']', '…', 16) FROM skills_fts_head
    WHERE skills_fts_head MATCH ?1 AND rowid = ?2";

/// [`HEAD_SNIPPET`] from its body.
const BODY_SNIPPET: &str =
    "SELECT snippet(skills_fts_body, -1, '[', ']', '…', 16) FROM skills_fts_body
    WHERE skills_fts_body MATCH ?1 AND rowid = ?2";

/// Every live skill at its current revision, in name order, in one read transaction (the skills
/// and their files from one moment): each file read by `file` from a row of `files` (the skill's
/// id, then the file's columns from column 1), then each skill read by `skill` from a row of
/// `skills` (its id first) with its files.
fn current<F, S>(
    connection: &mut Connection,
    files: &str,
    file: impl Fn(&rusqlite::Row<'_>, usize) -> StoreResult<F>,
    skills: &str,
    skill: impl Fn(&rusqlite::Row<'_>, Vec<F>) -> StoreResult<S>,
) -> StoreResult<Vec<S>> {
    let transaction = connection.transaction()?;
    let mut by_skill: HashMap<i64, Vec<F>> = HashMap::new();
    {
        let mut statement = transaction.prepare_cached(files)?;
        let mut rows = statement.query([])?;
        while let Some(r) = rows.next()? {
            let read = file(r, 1)?;
            by_skill.entry(r.get(0)?).or_default().push(read);
        }
    }
    let mut statement = transaction.prepare_cached(skills)?;
    let mut rows = statement.query([])?;
    let mut read = Vec::new();
    while let Some(r) = rows.next()? {
        let id: i64 = r.get(0)?;
        read.push(skill(r, by_skill.remove(&id).unwrap_or_default())?);
    }
    Ok(read)
}

/// The files of every live skill's current revision with their bytes, for
/// [`columns::file`].
const CURRENT_FILES: &str = "SELECT f.skill_id, f.path, b.bytes FROM visible_skills s
     JOIN revision_files f ON f.skill_id = s.id AND f.number = s.revision
     JOIN blobs b ON b.sha256 = f.sha256
     WHERE NOT s.deleted ORDER BY f.skill_id, f.path";

/// Every live skill at its current revision, for [`columns::current_skill`].
const CURRENT_SKILLS: &str = "SELECT s.id, s.name, s.revision, s.provenance, r.created_at,
        r.description, r.tool_name, r.content_hash, r.skill_md, a.findings, s.kind
     FROM visible_skills s JOIN revisions r ON r.skill_id = s.id AND r.number = s.revision
     LEFT JOIN revision_audits a ON a.skill_id = s.id AND a.number = s.revision
     WHERE NOT s.deleted ORDER BY s.name";

/// The files of every live skill's current revision without their bytes, for
/// [`columns::file_metadata`]: a blob is read only for a file written without its size and
/// text flag (by an older skillpath). The view's rule is judged once per skill, not per file.
const CURRENT_FILE_METADATA: &str = "WITH live AS MATERIALIZED
        (SELECT id, revision FROM visible_skills WHERE NOT deleted)
     SELECT f.skill_id, f.path, f.sha256, f.size, f.text,
        CASE WHEN f.text IS NULL THEN (SELECT size FROM blobs WHERE sha256 = f.sha256) END,
        CASE WHEN f.text IS NULL THEN (SELECT bytes FROM blobs WHERE sha256 = f.sha256) END
     FROM live s JOIN revision_files f ON f.skill_id = s.id AND f.number = s.revision
     ORDER BY f.skill_id, f.path";

/// Every live skill's metadata, for [`columns::current_metadata`]: the skill's row and the
/// head of its `SKILL.md`; the revision's text is read only where it has no head.
const CURRENT_METADATA: &str = "SELECT s.id, s.name, s.revision, s.provenance, s.updated_at,
        s.description, s.tool_name, s.content_hash, h.frontmatter, h.sha256, h.size,
        CASE WHEN h.skill_id IS NULL THEN (SELECT skill_md FROM revisions r
            WHERE r.skill_id = s.id AND r.number = s.revision) END, a.findings, s.kind
     FROM visible_skills s
     LEFT JOIN revision_heads h ON h.skill_id = s.id AND h.number = s.revision
     LEFT JOIN revision_audits a ON a.skill_id = s.id AND a.number = s.revision
     WHERE NOT s.deleted ORDER BY s.name";

/// A store in one SQLite database file.
#[derive(Clone)]
pub struct SqliteStore {
    connection: Arc<Mutex<Connection>>,
    path: PathBuf,
    /// The change signals of [`Store::watch_changes`], started on first use.
    changes: std::sync::OnceLock<tokio::sync::broadcast::Sender<()>>,
    /// The file opened (device and inode), to notice when the path no longer leads to it.
    identity: Option<FileIdentity>,
    /// [`Store::audit_policy`].
    audit_policy: PolicySetting,
}

/// Which file a path leads to: its device and inode (Unix), or nothing where that cannot be
/// told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileIdentity {
    device: u64,
    inode: u64,
}

impl FileIdentity {
    /// The file at `path` now, if there is one and it can be told.
    fn of(path: &Path) -> Option<FileIdentity> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt as _;
            std::fs::metadata(path).ok().map(|metadata| FileIdentity {
                device: metadata.dev(),
                inode: metadata.ino(),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = path;
            None
        }
    }
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path` and brings its schema up to date; it
    /// shows only the skills every project shares ([`SqliteStore::open_in`] for a project's).
    pub fn open(path: &Path) -> StoreResult<SqliteStore> {
        SqliteStore::open_in(path, &ProjectView::shared())
    }

    /// [`SqliteStore::open`], showing also the skills of the projects of `view`.
    pub fn open_in(path: &Path, view: &ProjectView) -> StoreResult<SqliteStore> {
        SqliteStore::open_upgrading(path, view, &Upgrade::default()).map(|(store, _)| store)
    }

    /// [`SqliteStore::open_in`], bringing the schema up to date as `upgrade` says; what that
    /// did.
    pub fn open_upgrading(
        path: &Path,
        view: &ProjectView,
        upgrade: &Upgrade,
    ) -> StoreResult<(SqliteStore, Upgraded)> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|source| StoreError::Io {
                context: format!("cannot create the database folder `{}`", parent.display()),
                source,
            })?;
        }
        let mut connection = Connection::open(path)?;
        connection.busy_timeout(std::time::Duration::from_secs(10))?;
        connection.pragma_update(None, "journal_mode", "WAL")?;
        connection.pragma_update(None, "synchronous", "FULL")?;
        connection.pragma_update(None, "foreign_keys", "ON")?;
        // Up to 32 MiB of pages in memory (SQLite's default is 2 MiB): a large import no
        // longer spills pages to the log before it commits, and searches over a large catalog
        // read the index from memory. Pages are allocated only as they are used.
        connection.pragma_update(None, "cache_size", -32 * 1024)?;
        let upgraded = migrations::migrate(&mut connection, upgrade)?;
        connection.execute_batch(migrations::VIEW)?;
        for folder in view.folders() {
            connection.execute(
                "INSERT OR IGNORE INTO visible_projects (folder) VALUES (?1)",
                params![folder],
            )?;
        }
        let store = SqliteStore {
            connection: Arc::new(Mutex::new(connection)),
            path: path.to_path_buf(),
            changes: std::sync::OnceLock::new(),
            identity: FileIdentity::of(path),
            audit_policy: PolicySetting::default(),
        };
        Ok((store, upgraded))
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `operation` with the connection on the blocking pool.
    async fn with<T: Send + 'static>(
        &self,
        operation: impl FnOnce(&mut Connection) -> StoreResult<T> + Send + 'static,
    ) -> StoreResult<T> {
        let connection = Arc::clone(&self.connection);
        tokio::task::spawn_blocking(move || {
            let mut guard = connection
                .lock()
                .map_err(|_| StoreError::database("the connection lock is poisoned"))?;
            operation(&mut guard)
        })
        .await
        .map_err(|error| {
            StoreError::Database(DatabaseError::caused_by(
                format!("a database task failed: {error}"),
                error,
            ))
        })?
    }

    /// A check, to run on the blocking pool, that the path still leads to the file opened.
    fn still_opened(&self) -> impl FnOnce() -> StoreResult<()> + Send + 'static {
        let (path, opened) = (self.path.clone(), self.identity);
        move || {
            if opened.is_some() && FileIdentity::of(&path) != opened {
                return Err(StoreError::DatabaseReplaced(path));
            }
            Ok(())
        }
    }

    /// Runs `operation` in a write transaction, unless the database file was deleted or
    /// replaced since it was opened: a write acknowledged into a file no path leads to any
    /// more would be lost when the process ends.
    async fn write<T: Send + 'static>(
        &self,
        operation: impl FnOnce(&Transaction<'_>) -> StoreResult<T> + Send + 'static,
    ) -> StoreResult<T> {
        let still = self.still_opened();
        self.with(move |connection| {
            still()?;
            let transaction =
                connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let result = operation(&transaction)?;
            transaction.commit()?;
            Ok(result)
        })
        .await
    }

    /// [`SqliteStore::write`] of `work` by the rules of [`crate::writes`] and
    /// [`crate::import`], with SQLite's primitives.
    async fn write_rows<T: Send + 'static>(
        &self,
        work: impl AsyncFnOnce(&mut SqliteWrite<'_>) -> StoreResult<T> + Send + 'static,
    ) -> StoreResult<T> {
        self.write(move |transaction| SqliteWrite::run(transaction, work))
            .await
    }
}

#[async_trait]
impl Store for SqliteStore {
    async fn write_all(&self, writes: Vec<SkillWrite>) -> StoreResult<Vec<StoredSkill>> {
        self.write_rows(async move |transaction| writes::apply_all(transaction, writes).await)
            .await
    }

    fn audit_policy(&self) -> Policy {
        self.audit_policy.get()
    }

    fn set_audit_policy(&self, policy: Policy) {
        self.audit_policy.set(policy);
    }

    /// Every commit to the file by any connection, this process's or another's, within
    /// `changes::POLL_INTERVAL` (see `changes`).
    fn watch_changes(&self) -> Option<tokio::sync::broadcast::Receiver<()>> {
        let runtime = tokio::runtime::Handle::try_current().ok()?;
        let sender = self.changes.get_or_init(|| {
            let (sender, _) = tokio::sync::broadcast::channel(16);
            runtime.spawn(changes::follow(self.path.clone(), sender.downgrade()));
            sender
        });
        Some(sender.subscribe())
    }

    async fn get(&self, name: &str, revision: Option<u64>) -> StoreResult<StoredSkill> {
        let name = name.to_owned();
        self.with(move |connection| load(connection, &name, revision))
            .await
    }

    async fn current_skills(&self) -> StoreResult<Vec<StoredSkill>> {
        self.with(|connection| {
            current(
                connection,
                CURRENT_FILES,
                |row, first| columns::file(row, first),
                CURRENT_SKILLS,
                |row, files| columns::current_skill(row, files),
            )
        })
        .await
    }

    async fn current_metadata(&self) -> StoreResult<Vec<SkillMetadata>> {
        self.with(|connection| {
            current(
                connection,
                CURRENT_FILE_METADATA,
                |row, first| columns::file_metadata(row, first),
                CURRENT_METADATA,
                |row, files| columns::current_metadata(row, files),
            )
        })
        .await
    }

    async fn current_revisions(&self) -> StoreResult<Vec<(String, u64)>> {
        self.with(|connection| {
            let mut statement = connection.prepare_cached(
                "SELECT name, revision FROM visible_skills WHERE NOT deleted ORDER BY name",
            )?;
            let rows = statement.query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64)))?;
            Ok(rows.collect::<Result<_, _>>()?)
        })
        .await
    }

    async fn list_after(&self, listing: Listing) -> StoreResult<Vec<SkillSummary>> {
        let Listing {
            filter,
            after,
            count,
        } = listing;
        self.with(move |connection| {
            let prefix = filter.name_prefix.unwrap_or_default();
            let mut statement = connection.prepare_cached(
                "SELECT name, description, tool_name, revision, deleted, updated_at, provenance, kind FROM visible_skills
                 WHERE name > ?1 AND (?2 OR deleted = 0) AND substr(name, 1, length(?3)) = ?3
                   AND (?5 IS NULL OR kind = ?5)
                 ORDER BY name LIMIT ?4",
            )?;
            let kind = filter.kind.map(Kind::as_str);
            statement
                .query_and_then(
                    params![after, filter.include_deleted, prefix, count as i64, kind],
                    |r| columns::summary(r),
                )?
                .collect()
        })
        .await
    }

    async fn search(&self, query: &str, limit: usize) -> StoreResult<Vec<SearchHit>> {
        let words = search::query_words(query);
        let Some(query) = search::fts5_query(&words) else {
            return Ok(Vec::new());
        };
        let (limit, pool) = search::sizes(limit);
        self.with(move |connection| {
            // One read transaction: the snippets come from the index the candidates did.
            let transaction = connection.transaction()?;
            let mut index = SearchTables {
                connection: &transaction,
                query: &query,
            };
            let candidates = now(search::candidates(&mut index, &words, limit, pool))?;
            let weights = now(search::weights(&mut index, &words))?;
            let hits = search::rank(candidates, &words, &weights, limit)
                .into_iter()
                .map(|(candidate, score)| {
                    let sql = match candidate.scope {
                        Scope::Name | Scope::Head => HEAD_SNIPPET,
                        Scope::Body => BODY_SNIPPET,
                    };
                    let text: Option<String> = transaction
                        .prepare_cached(sql)?
                        .query_row(params![query, candidate.key], |r| r.get(0))
                        .optional()?;
                    Ok(search::hit(
                        candidate,
                        score,
                        text.as_deref().unwrap_or_default(),
                    ))
                })
                .collect::<StoreResult<Vec<_>>>()?;
            transaction.commit()?;
            Ok(hits)
        })
        .await
    }

    async fn history(&self, name: &str) -> StoreResult<Vec<Revision>> {
        let name = name.to_owned();
        self.with(move |connection| {
            let row = row(connection, &name)?.ok_or_else(|| StoreError::NotFound { name: name.clone(), revision: None })?;
            let mut statement = connection.prepare_cached(
                "SELECT number, created_at, author, message, operation, content_hash FROM revisions WHERE skill_id = ?1 ORDER BY number",
            )?;
            let revisions = statement
                .query_and_then(params![row.id], |r| columns::revision(r, &name))?
                .collect::<StoreResult<Vec<_>>>()?;
            Ok(revisions)
        })
        .await
    }

    async fn import_planned(&self, plan: ImportPlan, change: Change) -> StoreResult<ImportReport> {
        self.write_rows(async move |transaction| import::run(transaction, plan, &change).await)
            .await
    }

    async fn check(&self) -> StoreResult<()> {
        let still = self.still_opened();
        self.with(move |connection| {
            still()?;
            connection.query_row("SELECT 1", [], |_| Ok(()))?;
            Ok(())
        })
        .await
    }

    async fn shadowed(&self) -> StoreResult<Vec<ShadowedSkill>> {
        self.with(|connection| {
            let mut statement = connection.prepare_cached(
                "SELECT s.name, s.provenance, v.provenance FROM main.skills s
                 JOIN visible_skills v ON v.name = s.name AND v.id <> s.id
                 WHERE NOT s.deleted AND (s.project = '' OR s.project IN (SELECT folder FROM visible_projects))
                 ORDER BY s.name, length(s.project) DESC",
            )?;
            let rows = statement
                .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?)))?
                .collect::<Result<Vec<_>, _>>()?;
            rows.into_iter()
                .map(|(name, hidden, shown)| {
                    Ok(ShadowedSkill {
                        name,
                        path: Provenance::from_stored(&hidden)?.folder().to_owned(),
                        kept: Provenance::from_stored(&shown)?.folder().to_owned(),
                    })
                })
                .collect()
        })
        .await
    }

    async fn folder_stamps(&self) -> StoreResult<Vec<RecordedStamp>> {
        self.with(|connection| {
            let mut statement = connection.prepare_cached(
                "SELECT f.folder, s.name, f.stamp FROM folder_stamps f JOIN skills s ON s.id = f.skill_id
                 WHERE f.revision = s.revision AND s.deleted = 0",
            )?;
            let stamps = statement
                .query_map([], |r| {
                    Ok(RecordedStamp {
                        folder: r.get(0)?,
                        name: r.get(1)?,
                        stamp: r.get(2)?,
                    })
                })?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(stamps)
        })
        .await
    }

    async fn put_draft(&self, record: DraftRecord) -> StoreResult<()> {
        self.write(move |transaction| drafts::put(transaction, &record))
            .await
    }

    async fn drafts(&self, filter: DraftFilter) -> StoreResult<Vec<DraftSummary>> {
        self.with(move |connection| drafts::list(connection, &filter))
            .await
    }

    async fn read_draft(&self, name: &str, author: &str) -> StoreResult<Option<Draft>> {
        let (name, author) = (name.to_owned(), author.to_owned());
        self.with(move |connection| drafts::read(connection, &name, &author))
            .await
    }

    async fn review_draft(
        &self,
        draft: &DraftRef,
        reviewer: &Change,
    ) -> StoreResult<Option<DraftSummary>> {
        let (draft, reviewer) = (draft.clone(), reviewer.clone());
        self.write(move |transaction| drafts::reject(transaction, &draft, &reviewer))
            .await
    }

    async fn record_usage(&self, counts: Vec<UsageCount>) -> StoreResult<()> {
        if counts.is_empty() {
            return Ok(());
        }
        let counts = usage::in_lock_order(counts);
        self.write(move |transaction| {
            let mut add = transaction.prepare_cached(
                "INSERT INTO skill_usage (skill, revision, day, key, kind, count, last_used)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT (skill, revision, day, key, kind) DO UPDATE SET
                    count = count + excluded.count, last_used = max(last_used, excluded.last_used)",
            )?;
            for count in &counts {
                add.execute(params![
                    count.skill,
                    count.revision as i64,
                    count.day,
                    count.key,
                    count.kind.as_str(),
                    i64::try_from(count.count).unwrap_or(i64::MAX),
                    count.last_used
                ])?;
            }
            Ok(())
        })
        .await
    }

    async fn usage(&self, query: UsageQuery) -> StoreResult<Vec<UsageRow>> {
        self.with(move |connection| {
            let sql = usage::select(query.by, |n| format!("?{n}"));
            let mut statement = connection.prepare_cached(&sql)?;
            let rows = statement
                .query_and_then(params![query.since, query.skill], |row| {
                    usage::row(row, query.by)
                })?
                .collect::<StoreResult<Vec<_>>>()?;
            Ok(usage::sorted(rows))
        })
        .await
    }

    async fn create_key(&self, key: StoredKey) -> StoreResult<KeyInfo> {
        self.write(move |transaction| {
            let active: Option<String> = transaction
                .query_row(
                    "SELECT id FROM api_keys WHERE name = ?1 AND revoked_at IS NULL",
                    params![key.info.name],
                    |r| r.get(0),
                )
                .optional()?;
            if active.is_some() {
                return Err(StoreError::KeyExists(key.info.name));
            }
            let info = &key.info;
            transaction.execute(
                &format!(
                    "INSERT INTO api_keys ({KEY_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
                ),
                params![
                    key.id,
                    info.name,
                    info.role.as_str(),
                    key.sha256,
                    info.created_at,
                    info.expires_at,
                    info.last_used_at,
                    info.revoked_at,
                    info.user,
                    info.stored_namespaces(),
                    info.channel
                ],
            )?;
            Ok(key.info)
        })
        .await
    }

    async fn list_keys(&self) -> StoreResult<Vec<KeyInfo>> {
        self.with(|connection| {
            let mut statement = connection.prepare_cached(&format!(
                "SELECT {KEY_COLUMNS} FROM api_keys ORDER BY name, created_at, id"
            ))?;
            let keys = statement
                .query_and_then([], |r| columns::key(r).map(|key| key.info))?
                .collect::<StoreResult<Vec<_>>>()?;
            Ok(keys)
        })
        .await
    }

    async fn revoke_key(&self, name: &str) -> StoreResult<KeyInfo> {
        let name = name.to_owned();
        self.write(move |transaction| {
            let statement = transaction.prepare_cached(&format!(
                "SELECT {KEY_COLUMNS} FROM api_keys WHERE name = ?1 AND revoked_at IS NULL"
            ))?;
            let key = first(statement, params![name], |r| columns::key(r))?
                .ok_or_else(|| StoreError::KeyNotFound(name.clone()))?;
            let now = now_rfc3339();
            transaction.execute(
                "UPDATE api_keys SET revoked_at = ?1 WHERE id = ?2",
                params![now, key.id],
            )?;
            Ok(KeyInfo {
                revoked_at: Some(now),
                ..key.info
            })
        })
        .await
    }

    async fn find_key(&self, id: &str) -> StoreResult<Option<StoredKey>> {
        let id = id.to_owned();
        self.with(move |connection| {
            let statement = connection
                .prepare_cached(&format!("SELECT {KEY_COLUMNS} FROM api_keys WHERE id = ?1"))?;
            first(statement, params![id], |r| columns::key(r))
        })
        .await
    }

    async fn record_key_use(&self, id: &str, at: &str) -> StoreResult<()> {
        let (id, at) = (id.to_owned(), at.to_owned());
        self.write(move |transaction| {
            transaction.execute(
                "UPDATE api_keys SET last_used_at = ?1 WHERE id = ?2",
                params![at, id],
            )?;
            Ok(())
        })
        .await
    }

    async fn stage_upload(
        &self,
        upload: StagedUpload,
        staging: Staging,
    ) -> StoreResult<Result<(), Unstaged>> {
        self.write(move |transaction| {
            transaction.execute(
                "DELETE FROM registry_uploads WHERE created_at < ?1",
                params![staging.since],
            )?;
            let waiting = |sql: &str, key: Option<&str>| -> StoreResult<u64> {
                let total: i64 = match key {
                    Some(key) => transaction.query_row(sql, params![key], |r| r.get(0))?,
                    None => transaction.query_row(sql, [], |r| r.get(0))?,
                };
                Ok(u64::try_from(total).unwrap_or(0))
            };
            let theirs = waiting(
                "SELECT COALESCE(SUM(size), 0) FROM registry_uploads WHERE key_id = ?1",
                Some(&upload.key),
            )?;
            if theirs + upload.size > staging.per_key {
                return Ok(Err(Unstaged::PerKey));
            }
            let all = waiting("SELECT COALESCE(SUM(size), 0) FROM registry_uploads", None)?;
            if all + upload.size > staging.total {
                return Ok(Err(Unstaged::Total));
            }
            transaction.execute(
                "INSERT INTO registry_uploads (ticket, key_id, path, size, sha256, bytes, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, NULL, ?6)",
                params![
                    upload.ticket,
                    upload.key,
                    upload.path,
                    i64::try_from(upload.size).unwrap_or(i64::MAX),
                    upload.sha256,
                    upload.created_at
                ],
            )?;
            Ok(Ok(()))
        })
        .await
    }

    async fn staged_upload(&self, ticket: &str) -> StoreResult<Option<StagedUpload>> {
        let ticket = ticket.to_owned();
        self.with(move |connection| {
            let statement = connection.prepare_cached(
                "SELECT ticket, key_id, path, size, sha256, bytes, created_at FROM registry_uploads WHERE ticket = ?1",
            )?;
            first(statement, params![ticket], |r| {
                Ok(StagedUpload {
                    ticket: r.get(0)?,
                    key: r.get(1)?,
                    path: r.get(2)?,
                    size: u64::try_from(r.get::<_, i64>(3)?).unwrap_or(0),
                    sha256: r.get(4)?,
                    bytes: r.get(5)?,
                    created_at: r.get(6)?,
                })
            })
        })
        .await
    }

    async fn fill_upload(&self, ticket: &str, bytes: Vec<u8>) -> StoreResult<()> {
        let ticket = ticket.to_owned();
        self.write(move |transaction| {
            transaction.execute(
                "UPDATE registry_uploads SET bytes = ?2 WHERE ticket = ?1",
                params![ticket, bytes],
            )?;
            Ok(())
        })
        .await
    }

    async fn drop_uploads(&self, key: &str, tickets: Vec<String>) -> StoreResult<()> {
        let key = key.to_owned();
        self.write(move |transaction| {
            for ticket in &tickets {
                transaction.execute(
                    "DELETE FROM registry_uploads WHERE key_id = ?1 AND ticket = ?2",
                    params![key, ticket],
                )?;
            }
            Ok(())
        })
        .await
    }

    async fn directory(&self) -> StoreResult<Directory> {
        self.with(|connection| {
            let transaction = connection.transaction()?;
            directory::read(&transaction)
        })
        .await
    }

    async fn govern(&self, change: Governance, actor: &str) -> StoreResult<Entry> {
        let actor = actor.to_owned();
        self.write(move |transaction| {
            now(crate::directory::rows::apply(
                &mut directory::SqliteDirectory(transaction),
                change,
                &actor,
            ))
        })
        .await
    }

    async fn governance_log(&self, filter: LogFilter) -> StoreResult<Vec<Entry>> {
        let mut entries = self.with(|connection| directory::log(connection)).await?;
        entries.retain(|entry| filter.admits(&entry.action));
        Ok(entries)
    }

    async fn set_star(&self, handle: &str, key: &str, starred: bool) -> StoreResult<bool> {
        let (handle, key) = (handle.to_owned(), key.to_owned());
        self.write(move |transaction| {
            let was = directory::stars(transaction, Some(&handle))?
                .iter()
                .any(|star| star.key == key);
            if starred {
                transaction.execute(
                    &directory::sql(crate::directory::rows::STAR),
                    params![handle, key, now_rfc3339()],
                )?;
            } else {
                transaction.execute(
                    &directory::sql(crate::directory::rows::UNSTAR),
                    params![handle, key],
                )?;
            }
            Ok(was)
        })
        .await
    }

    async fn stars(&self, handle: Option<&str>) -> StoreResult<Vec<Star>> {
        let handle = handle.map(str::to_owned);
        self.with(move |connection| directory::stars(connection, handle.as_deref()))
            .await
    }
}

/// The search index as [`search::candidates`] reads it, in a search's read transaction.
struct SearchTables<'a> {
    connection: &'a Connection,
    /// The FTS5 query of the search's words ([`search::fts5_query`]).
    query: &'a str,
}

impl search::SearchIndex for SearchTables<'_> {
    async fn matches(
        &mut self,
        scope: Scope,
        count: i64,
    ) -> StoreResult<(usize, Vec<search::Candidate>)> {
        let query = self.query;
        let (sql, query) = match scope {
            // The words again without the column filter, so that BM25 also counts them in the
            // description and weighs both lengths, as it does for the other scopes; the filter
            // keeps the matches to names.
            Scope::Name => (HEAD_MATCHES, format!("{{name}} : ({query}) AND ({query})")),
            Scope::Head => (HEAD_MATCHES, query.to_owned()),
            Scope::Body => (BODY_MATCHES, query.to_owned()),
        };
        let mut statement = self.connection.prepare_cached(sql)?;
        let mut rows = statement.query(params![query, count])?;
        let (mut read, mut shown) = (0, Vec::new());
        while let Some(r) = rows.next()? {
            read += 1;
            if let Some(key) = r.get::<_, Option<i64>>(1)? {
                shown.push(search::Candidate {
                    key,
                    kind: columns::kind(r, 4)?,
                    name: r.get(2)?,
                    description: r.get(3)?,
                    relevance: -r.get::<_, f64>(0)?,
                    scope,
                });
            }
        }
        Ok((read, shown))
    }

    async fn head_frequencies(&mut self, words: &[String]) -> StoreResult<(u64, Vec<u64>)> {
        // FTS5's own table of one row per indexed document: counting the index itself reads
        // every document's text (2.7 ms at 10,000 skills, against 0.01 ms).
        let total: i64 = self
            .connection
            .prepare_cached("SELECT count(*) FROM skills_fts_head_docsize")?
            .query_row([], |r| r.get(0))?;
        let total = total.unsigned_abs();
        let common = i64::try_from(search::common(total)).unwrap_or(i64::MAX);
        let mut frequencies = Vec::with_capacity(words.len());
        for word in words {
            let Some(query) = search::fts5_query(std::slice::from_ref(word)) else {
                frequencies.push(0);
                continue;
            };
            let count: i64 = self
                .connection
                .prepare_cached(
                    "SELECT count(*) FROM (SELECT 1 FROM skills_fts_head
                     WHERE skills_fts_head MATCH ?1 LIMIT ?2)",
                )?
                .query_row(params![query, common], |r| r.get(0))?;
            frequencies.push(count.unsigned_abs());
        }
        Ok((total, frequencies))
    }
}
