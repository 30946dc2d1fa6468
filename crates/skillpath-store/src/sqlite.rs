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

use crate::error::{StoreError, StoreResult};
use crate::import_plan::{self, Planned};
use crate::keys::{KEY_COLUMNS, KeyInfo, Role, StoredKey};
use crate::model::{
    Change, FolderContent, FolderImport, ImportReport, ListFilter, Operation, Page, Provenance,
    RecordedStamp, Revision, SearchHit, ShadowedSkill, SkillFile, SkillSnapshot, SkillSummary,
    StoredSkill,
};
use crate::rules::{self, NewRevision};
use crate::schema::{self, Migration};
use crate::scopes::{self, ProjectView};
use crate::search;
use crate::store::Store;
use crate::time::now_rfc3339;

mod changes;

/// The schema, one entry per version; `PRAGMA user_version` says how many have run, and
/// `schema_compatibility` (from version 2) the oldest version that can still use the database.
const MIGRATIONS: &[Migration] = &[
    Migration {
        additive: false,
        sql: "CREATE TABLE skills (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        description TEXT NOT NULL,
        tool_name TEXT,
        revision INTEGER NOT NULL,
        deleted INTEGER NOT NULL,
        content_hash TEXT NOT NULL,
        provenance TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE revisions (
        skill_id INTEGER NOT NULL REFERENCES skills(id),
        number INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        author TEXT NOT NULL,
        message TEXT NOT NULL,
        operation TEXT NOT NULL,
        deleted INTEGER NOT NULL,
        description TEXT NOT NULL,
        tool_name TEXT,
        content_hash TEXT NOT NULL,
        skill_md TEXT NOT NULL,
        PRIMARY KEY (skill_id, number)
    );
    CREATE TABLE blobs (
        sha256 TEXT PRIMARY KEY,
        size INTEGER NOT NULL,
        bytes BLOB NOT NULL
    );
    CREATE TABLE revision_files (
        skill_id INTEGER NOT NULL,
        number INTEGER NOT NULL,
        path TEXT NOT NULL,
        sha256 TEXT NOT NULL REFERENCES blobs(sha256),
        PRIMARY KEY (skill_id, number, path),
        FOREIGN KEY (skill_id, number) REFERENCES revisions(skill_id, number)
    );
    CREATE VIRTUAL TABLE skills_fts USING fts5(
        name, description, body,
        tokenize = 'porter unicode61 remove_diacritics 2'
    );",
    },
    Migration {
        additive: true,
        sql: "CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        role TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT,
        last_used_at TEXT,
        revoked_at TEXT
    );
    CREATE UNIQUE INDEX api_keys_active_name ON api_keys(name) WHERE revoked_at IS NULL;
    CREATE TABLE schema_compatibility (oldest INTEGER NOT NULL);
    INSERT INTO schema_compatibility (oldest) VALUES (0);",
    },
    Migration {
        additive: true,
        sql: "CREATE TABLE folder_stamps (
        folder TEXT PRIMARY KEY,
        skill_id INTEGER NOT NULL REFERENCES skills(id),
        revision INTEGER NOT NULL,
        stamp TEXT NOT NULL
    );",
    },
    // Skills of a project (see `crate::scopes`): a name is unique per project, `''` being the
    // skills every project shares. SQLite cannot drop a column's `UNIQUE`, so the table is
    // made again with its ids (which revisions, files, stamps and the search index use).
    // Breaking: an older skillpath would serve every project's skills everywhere.
    Migration {
        additive: false,
        sql: "CREATE TABLE skills_by_project (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        project TEXT NOT NULL DEFAULT '',
        description TEXT NOT NULL,
        tool_name TEXT,
        revision INTEGER NOT NULL,
        deleted INTEGER NOT NULL,
        content_hash TEXT NOT NULL,
        provenance TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (name, project)
    );
    INSERT INTO skills_by_project (id, name, description, tool_name, revision, deleted, content_hash, provenance, updated_at)
        SELECT id, name, description, tool_name, revision, deleted, content_hash, provenance, updated_at FROM skills;
    DROP TABLE skills;
    ALTER TABLE skills_by_project RENAME TO skills;",
    },
];

/// The version whose migration gave skills their project; skills discovered in a project
/// before it are given theirs as it runs ([`assign_projects`]).
const PROJECTS_SINCE: usize = 4;

/// What a connection sees of the skills: `visible_skills`, the skills every project shares
/// and those of the store's [`ProjectView`] (`visible_projects`), one per name by the
/// precedence of [`crate::scopes`]: a live skill over a deleted one, then the nearest project
/// (the longest folder, since the view's folders all contain its start) over the shared
/// skills (`''`). Temporary, so each connection has its own view.
const VIEW: &str = "CREATE TEMP TABLE visible_projects (folder TEXT PRIMARY KEY);
    CREATE TEMP VIEW visible_skills AS
    SELECT s.* FROM main.skills s
    WHERE (s.project = '' OR s.project IN (SELECT folder FROM visible_projects))
      AND NOT EXISTS (
        SELECT 1 FROM main.skills o
        WHERE o.name = s.name AND o.id <> s.id
          AND (o.project = '' OR o.project IN (SELECT folder FROM visible_projects))
          AND (o.deleted < s.deleted
               OR (o.deleted = s.deleted AND length(o.project) > length(s.project))));";

/// The version whose migration made `schema_compatibility`.
const COMPATIBILITY_RECORDED_SINCE: usize = 2;

/// Weights of the search columns: name, description, body.
const SEARCH_WEIGHTS: (f64, f64, f64) = (10.0, 5.0, 1.0);

/// A store in one SQLite database file.
#[derive(Clone)]
pub struct SqliteStore {
    connection: Arc<Mutex<Connection>>,
    path: PathBuf,
    /// The change signals of [`Store::watch_changes`], started on first use.
    changes: std::sync::OnceLock<tokio::sync::broadcast::Sender<()>>,
    /// The file opened (device and inode), to notice when the path no longer leads to it.
    identity: Option<FileIdentity>,
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
        migrate(&mut connection)?;
        connection.execute_batch(VIEW)?;
        for folder in view.folders() {
            connection.execute(
                "INSERT OR IGNORE INTO visible_projects (folder) VALUES (?1)",
                params![folder],
            )?;
        }
        Ok(SqliteStore {
            connection: Arc::new(Mutex::new(connection)),
            path: path.to_path_buf(),
            changes: std::sync::OnceLock::new(),
            identity: FileIdentity::of(path),
        })
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
                .map_err(|_| StoreError::Database("the connection lock is poisoned".into()))?;
            operation(&mut guard)
        })
        .await
        .map_err(|error| StoreError::Database(format!("a database task failed: {error}")))?
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
}

fn migrate(connection: &mut Connection) -> StoreResult<()> {
    let known = MIGRATIONS.len();
    let current = schema_version(connection)?;
    if current >= known {
        // Up to date, or newer: no write lock needed.
        return schema::check_compatible(current, recorded_oldest(connection, current), known);
    }
    // Migrations may make a table again (SQLite's way to change a constraint), which must
    // happen with foreign keys off; each checks them before it commits.
    connection.pragma_update(None, "foreign_keys", "OFF")?;
    let migrated = run_migrations(connection, known);
    connection.pragma_update(None, "foreign_keys", "ON")?;
    migrated
}

/// The migrations a database at an older version lacks. One migration per write transaction,
/// the version read inside it: two processes opening a new database at once do not both run a
/// migration.
fn run_migrations(connection: &mut Connection, known: usize) -> StoreResult<()> {
    loop {
        let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let version = schema_version(&transaction)?;
        let Some(migration) = MIGRATIONS.get(version) else {
            schema::check_compatible(version, recorded_oldest(&transaction, version), known)?;
            transaction.commit()?;
            return Ok(());
        };
        transaction.execute_batch(migration.sql)?;
        if version + 1 == PROJECTS_SINCE {
            assign_projects(&transaction)?;
        }
        let broken: Option<String> = transaction
            .query_row("SELECT \"table\" FROM pragma_foreign_key_check", [], |r| {
                r.get(0)
            })
            .optional()?;
        if let Some(table) = broken {
            return Err(StoreError::Database(format!(
                "migration {} would leave rows of `{table}` without the row they refer to; the database is unchanged",
                version + 1
            )));
        }
        transaction.pragma_update(None, "user_version", (version + 1) as i64)?;
        let oldest = schema::oldest_compatible(MIGRATIONS, version + 1) as i64;
        if version + 1 >= COMPATIBILITY_RECORDED_SINCE {
            transaction.execute(
                "UPDATE schema_compatibility SET oldest = ?1",
                params![oldest],
            )?;
        }
        transaction.commit()?;
    }
}

/// Gives each skill discovered in a project before skills had projects its project
/// ([`Provenance::project`]), so it stops being shown in every other project.
fn assign_projects(transaction: &Transaction<'_>) -> StoreResult<()> {
    let mut statement = transaction.prepare("SELECT id, provenance FROM skills")?;
    let rows = statement
        .query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?
        .collect::<Result<Vec<_>, _>>()?;
    for (id, provenance) in rows {
        if let Some(project) = parse_provenance(&provenance)?.project() {
            transaction.execute(
                "UPDATE skills SET project = ?2 WHERE id = ?1",
                params![id, project],
            )?;
        }
    }
    Ok(())
}

/// How many migrations have run on the database.
fn schema_version(connection: &Connection) -> StoreResult<usize> {
    let version: i64 = connection.pragma_query_value(None, "user_version", |row| row.get(0))?;
    Ok(usize::try_from(version).unwrap_or(usize::MAX))
}

/// The oldest version that can use a database at `version`, as recorded by whoever migrated
/// it; `version` itself when nothing is recorded (so an unknown newer database is refused).
fn recorded_oldest(connection: &Connection, version: usize) -> usize {
    connection
        .query_row("SELECT oldest FROM schema_compatibility", [], |row| {
            row.get::<_, i64>(0)
        })
        .ok()
        .and_then(|oldest| usize::try_from(oldest).ok())
        .unwrap_or(version)
}

/// What the store reads from a `SKILL.md` (this and the helpers below marked `pub(crate)` are
/// shared with the PostgreSQL backend, so both read skills and cursors the same way).
pub(crate) struct Meta {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) tool_name: Option<String>,
    pub(crate) body: String,
}

/// The snapshot as the store keeps it: files sorted, paths safe and unique. Checked on every
/// write, since a snapshot's fields are public and can be built without [`SkillSnapshot::new`].
pub(crate) fn checked(snapshot: SkillSnapshot) -> StoreResult<SkillSnapshot> {
    // PostgreSQL cannot store a NUL in text; both backends refuse it, so they hold the same skills.
    if snapshot.skill_md.contains('\0') {
        return Err(StoreError::InvalidSkill(
            "the `SKILL.md` contains a NUL character (U+0000), which cannot be stored; remove it"
                .to_owned(),
        ));
    }
    SkillSnapshot::new(snapshot.skill_md, snapshot.files)
}

pub(crate) fn meta(snapshot: &SkillSnapshot) -> StoreResult<Meta> {
    let skill = skillpath_core::skill_md::parse(
        "SKILL.md".into(),
        snapshot.skill_md.clone(),
        skillpath_core::Mode::Lenient,
    );
    let text = |key: &str| {
        skill
            .field(key)
            .and_then(|e| e.value.as_scalar())
            .map(|s| s.text.trim().to_owned())
    };
    let name = text("name")
        .filter(|name| !name.is_empty())
        .ok_or_else(|| {
            StoreError::InvalidSkill(
                "the `SKILL.md` has no readable `name`, so it cannot be stored".to_owned(),
            )
        })?;
    Ok(Meta {
        name,
        description: text("description").unwrap_or_default(),
        tool_name: text("tool_name"),
        body: skill.body().to_owned(),
    })
}

/// The stored state of a skill row.
struct Row {
    id: i64,
    revision: u64,
    deleted: bool,
    content_hash: String,
    provenance: String,
}

impl Row {
    fn read(r: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
        Ok(Row {
            id: r.get(0)?,
            revision: r.get::<_, i64>(1)? as u64,
            deleted: r.get(2)?,
            content_hash: r.get(3)?,
            provenance: r.get(4)?,
        })
    }
}

/// The row of the skill `name` as the store's view shows it (see [`VIEW`]).
fn row(transaction: &Connection, name: &str) -> StoreResult<Option<Row>> {
    Ok(transaction
        .prepare_cached(
            "SELECT id, revision, deleted, content_hash, provenance FROM visible_skills WHERE name = ?1",
        )?
        .query_row(params![name], Row::read)
        .optional()?)
}

/// The row of the skill `name` in `project` (`""`: shared), whether the view shows it or not.
fn row_in(transaction: &Connection, name: &str, project: &str) -> StoreResult<Option<Row>> {
    Ok(transaction
        .prepare_cached(
            "SELECT id, revision, deleted, content_hash, provenance FROM skills WHERE name = ?1 AND project = ?2",
        )?
        .query_row(params![name, project], Row::read)
        .optional()?)
}

fn existing(transaction: &Connection, name: &str, expected: u64) -> StoreResult<Row> {
    rules::at_expected(name, row(transaction, name)?, |row| row.revision, expected)
}

/// Writes `revision` and makes it current.
fn write_revision(
    transaction: &Transaction<'_>,
    revision: &NewRevision<'_>,
) -> StoreResult<StoredSkill> {
    let mut index = SearchIndexWrites::default();
    let stored = write_revision_unindexed(transaction, revision, &mut index)?;
    index.write(transaction)?;
    Ok(stored)
}

/// Changes to the search index, written together at the end of a transaction. Each statement
/// that may fail halfway opens a savepoint, and at every savepoint FTS5 writes out the terms
/// it holds in memory; interleaving index writes with the other writes of an import made an
/// index of thousands of tiny segments, merged over and over (half of an import's time).
#[derive(Default)]
struct SearchIndexWrites {
    /// Skills to take out of the index, by id.
    removed: Vec<i64>,
    /// Skills to put in: id, name, description, body.
    added: Vec<(i64, String, String, String)>,
}

impl SearchIndexWrites {
    fn write(self, transaction: &Transaction<'_>) -> StoreResult<()> {
        let mut remove = transaction.prepare_cached("DELETE FROM skills_fts WHERE rowid = ?1")?;
        for id in self.removed {
            remove.execute(params![id])?;
        }
        let mut add = transaction.prepare_cached(
            "INSERT INTO skills_fts (rowid, name, description, body) VALUES (?1, ?2, ?3, ?4)",
        )?;
        for (id, name, description, body) in self.added {
            add.execute(params![id, name, description, body])?;
        }
        Ok(())
    }
}

/// [`write_revision`], leaving the change to the search index in `index`.
#[allow(clippy::too_many_arguments)]
fn write_revision_unindexed(
    transaction: &Transaction<'_>,
    revision: &NewRevision<'_>,
    index: &mut SearchIndexWrites,
) -> StoreResult<StoredSkill> {
    let NewRevision {
        skill_id: id,
        number,
        operation,
        change,
        snapshot,
        deleted,
        provenance,
    } = *revision;
    let meta = meta(snapshot)?;
    let now = now_rfc3339();
    let content_hash = snapshot.content_hash();
    transaction.execute(
        "INSERT INTO revisions (skill_id, number, created_at, author, message, operation, deleted, description, tool_name, content_hash, skill_md)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        params![
            id,
            number as i64,
            now,
            change.author,
            change.message,
            operation.as_str(),
            deleted,
            meta.description,
            meta.tool_name,
            content_hash,
            snapshot.skill_md
        ],
    )?;
    for file in &snapshot.files {
        let sha = file.sha256();
        transaction.execute(
            "INSERT OR IGNORE INTO blobs (sha256, size, bytes) VALUES (?1, ?2, ?3)",
            params![sha, file.bytes.len() as i64, file.bytes],
        )?;
        transaction.execute(
            "INSERT INTO revision_files (skill_id, number, path, sha256) VALUES (?1, ?2, ?3, ?4)",
            params![id, number as i64, file.path, sha],
        )?;
    }
    let provenance_json =
        serde_json::to_string(provenance).map_err(|e| StoreError::Database(e.to_string()))?;
    transaction.execute(
        "UPDATE skills SET description = ?2, tool_name = ?3, revision = ?4, deleted = ?5, content_hash = ?6, provenance = ?7, updated_at = ?8 WHERE id = ?1",
        params![id, meta.description, meta.tool_name, number as i64, deleted, content_hash, provenance_json, now],
    )?;
    if number > 1 {
        index.removed.push(id);
    }
    if !deleted {
        index
            .added
            .push((id, meta.name.clone(), meta.description.clone(), meta.body));
    }
    Ok(StoredSkill {
        name: meta.name,
        description: meta.description,
        tool_name: meta.tool_name,
        revision: number,
        deleted,
        content_hash,
        provenance: provenance.clone(),
        updated_at: now,
        snapshot: snapshot.clone(),
    })
}

fn insert_skill(
    transaction: &Transaction<'_>,
    name: &str,
    provenance: &Provenance,
) -> StoreResult<i64> {
    let provenance_json =
        serde_json::to_string(provenance).map_err(|e| StoreError::Database(e.to_string()))?;
    transaction.execute(
        "INSERT INTO skills (name, project, description, revision, deleted, content_hash, provenance, updated_at) VALUES (?1, ?2, '', 0, 0, '', ?3, '')",
        params![name, provenance.project_key(), provenance_json],
    )?;
    Ok(transaction.last_insert_rowid())
}

fn provenance_of(connection: &Connection, id: i64) -> StoreResult<Provenance> {
    let text: String = connection.query_row(
        "SELECT provenance FROM skills WHERE id = ?1",
        params![id],
        |r| r.get(0),
    )?;
    parse_provenance(&text)
}

/// A stored provenance (JSON), as both backends keep it.
pub(crate) fn parse_provenance(text: &str) -> StoreResult<Provenance> {
    serde_json::from_str(text)
        .map_err(|e| StoreError::Database(format!("a stored provenance is not valid: {e}")))
}

/// Reads revision `number` of skill `name`.
fn load(connection: &Connection, name: &str, number: Option<u64>) -> StoreResult<StoredSkill> {
    let not_found = || StoreError::NotFound {
        name: name.to_owned(),
        revision: number,
    };
    let Some(row) = row(connection, name)? else {
        return Err(StoreError::NotFound {
            name: name.to_owned(),
            revision: None,
        });
    };
    let number = number.unwrap_or(row.revision);
    let revision = connection
        .query_row(
            "SELECT created_at, deleted, description, tool_name, content_hash, skill_md FROM revisions WHERE skill_id = ?1 AND number = ?2",
            params![row.id, number as i64],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, bool>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, String>(5)?,
                ))
            },
        )
        .optional()?
        .ok_or_else(not_found)?;
    let (created_at, deleted, description, tool_name, content_hash, skill_md) = revision;
    let mut statement = connection.prepare_cached(
        "SELECT f.path, b.bytes FROM revision_files f JOIN blobs b ON b.sha256 = f.sha256
         WHERE f.skill_id = ?1 AND f.number = ?2 ORDER BY f.path",
    )?;
    let files = statement
        .query_map(params![row.id, number as i64], |r| {
            Ok(SkillFile {
                path: r.get(0)?,
                bytes: r.get(1)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(StoredSkill {
        name: name.to_owned(),
        description,
        tool_name,
        revision: number,
        deleted,
        content_hash,
        provenance: provenance_of(connection, row.id)?,
        updated_at: created_at,
        snapshot: SkillSnapshot { skill_md, files },
    })
}

/// An opaque cursor for the listing after `name`: its bytes in hex.
pub(crate) fn encode_cursor(name: &str) -> String {
    name.bytes().map(|b| format!("{b:02x}")).collect()
}

/// The name a cursor from [`encode_cursor`] stands for; anything else is refused.
pub(crate) fn decode_cursor(cursor: &str) -> StoreResult<String> {
    let invalid = || StoreError::InvalidCursor(cursor.to_owned());
    if !cursor.len().is_multiple_of(2) || cursor.is_empty() {
        return Err(invalid());
    }
    let bytes = (0..cursor.len())
        .step_by(2)
        .map(|i| {
            cursor
                .get(i..i + 2)
                .and_then(|pair| u8::from_str_radix(pair, 16).ok())
        })
        .collect::<Option<Vec<u8>>>()
        .ok_or_else(invalid)?;
    String::from_utf8(bytes).map_err(|_| invalid())
}

#[async_trait]
impl Store for SqliteStore {
    /// Every commit to the file by any connection, this process's or another's, within
    /// [`changes::POLL_INTERVAL`] (see [`changes`]).
    fn watch_changes(&self) -> Option<tokio::sync::broadcast::Receiver<()>> {
        let runtime = tokio::runtime::Handle::try_current().ok()?;
        let sender = self.changes.get_or_init(|| {
            let (sender, _) = tokio::sync::broadcast::channel(16);
            runtime.spawn(changes::follow(self.path.clone(), sender.downgrade()));
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
        self.write(move |transaction| {
            let name = meta(&snapshot)?.name;
            let taken = match row(transaction, &name)? {
                Some(row) => Some(row),
                None => row_in(transaction, &name, provenance.project_key())?,
            };
            if let Some(row) = taken {
                return Err(StoreError::AlreadyExists {
                    name,
                    revision: row.revision,
                    deleted: row.deleted,
                });
            }
            let id = insert_skill(transaction, &name, &provenance)?;
            write_revision(
                transaction,
                &NewRevision::first(id, &change, &snapshot, &provenance),
            )
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
        let name = name.to_owned();
        let snapshot = checked(snapshot)?;
        self.write(move |transaction| {
            let row = existing(transaction, &name, expected)?;
            rules::check_state(&name, row.deleted, Operation::Update)?;
            rules::check_keeps_name(&name, &snapshot)?;
            let provenance = provenance_of(transaction, row.id)?;
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
        })
        .await
    }

    async fn delete(&self, name: &str, expected: u64, change: Change) -> StoreResult<StoredSkill> {
        let name = name.to_owned();
        self.write(move |transaction| {
            let row = existing(transaction, &name, expected)?;
            rules::check_state(&name, row.deleted, Operation::Delete)?;
            let current = load(transaction, &name, Some(row.revision))?;
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
        })
        .await
    }

    async fn restore(&self, name: &str, expected: u64, change: Change) -> StoreResult<StoredSkill> {
        let name = name.to_owned();
        self.write(move |transaction| {
            let row = existing(transaction, &name, expected)?;
            rules::check_state(&name, row.deleted, Operation::Restore)?;
            let current = load(transaction, &name, Some(row.revision))?;
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
        let name = name.to_owned();
        self.write(move |transaction| {
            let row = existing(transaction, &name, expected)?;
            rules::check_state(&name, row.deleted, Operation::Rollback)?;
            let target = load(transaction, &name, Some(to))?;
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
        })
        .await
    }

    async fn get(&self, name: &str, revision: Option<u64>) -> StoreResult<StoredSkill> {
        let name = name.to_owned();
        self.with(move |connection| load(connection, &name, revision))
            .await
    }

    async fn current_skills(&self) -> StoreResult<Vec<StoredSkill>> {
        self.with(|connection| {
            // One read transaction: the skills and their files from one moment.
            let transaction = connection.transaction()?;
            let mut files: HashMap<i64, Vec<SkillFile>> = HashMap::new();
            {
                let mut statement = transaction.prepare(
                    "SELECT f.skill_id, f.path, b.bytes FROM visible_skills s
                     JOIN revision_files f ON f.skill_id = s.id AND f.number = s.revision
                     JOIN blobs b ON b.sha256 = f.sha256
                     WHERE NOT s.deleted ORDER BY f.skill_id, f.path",
                )?;
                let mut rows = statement.query([])?;
                while let Some(r) = rows.next()? {
                    files.entry(r.get(0)?).or_default().push(SkillFile {
                        path: r.get(1)?,
                        bytes: r.get(2)?,
                    });
                }
            }
            let mut statement = transaction.prepare(
                "SELECT s.id, s.name, s.revision, s.provenance, r.created_at, r.description,
                        r.tool_name, r.content_hash, r.skill_md
                 FROM visible_skills s JOIN revisions r ON r.skill_id = s.id AND r.number = s.revision
                 WHERE NOT s.deleted ORDER BY s.name",
            )?;
            let mut rows = statement.query([])?;
            let mut skills = Vec::new();
            while let Some(r) = rows.next()? {
                let id: i64 = r.get(0)?;
                let provenance: String = r.get(3)?;
                skills.push(StoredSkill {
                    name: r.get(1)?,
                    revision: r.get::<_, i64>(2)? as u64,
                    provenance: parse_provenance(&provenance)?,
                    updated_at: r.get(4)?,
                    description: r.get(5)?,
                    tool_name: r.get(6)?,
                    deleted: false,
                    content_hash: r.get(7)?,
                    snapshot: SkillSnapshot {
                        skill_md: r.get(8)?,
                        files: files.remove(&id).unwrap_or_default(),
                    },
                });
            }
            Ok(skills)
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

    async fn list(
        &self,
        filter: ListFilter,
        cursor: Option<String>,
        limit: usize,
    ) -> StoreResult<Page<SkillSummary>> {
        let after = cursor
            .as_deref()
            .map(decode_cursor)
            .transpose()?
            .unwrap_or_default();
        let limit = limit.clamp(1, 1000);
        self.with(move |connection| {
            let prefix = filter.name_prefix.unwrap_or_default();
            let mut statement = connection.prepare_cached(
                "SELECT name, description, tool_name, revision, deleted, updated_at, provenance FROM visible_skills
                 WHERE name > ?1 AND (?2 OR deleted = 0) AND substr(name, 1, length(?3)) = ?3
                 ORDER BY name LIMIT ?4",
            )?;
            let mut items = statement
                .query_map(params![after, filter.include_deleted, prefix, (limit + 1) as i64], |r| {
                    Ok((
                        SkillSummary {
                            name: r.get(0)?,
                            description: r.get(1)?,
                            tool_name: r.get(2)?,
                            revision: r.get::<_, i64>(3)? as u64,
                            deleted: r.get(4)?,
                            updated_at: r.get(5)?,
                            provenance: Provenance::Api,
                        },
                        r.get::<_, String>(6)?,
                    ))
                })?
                .collect::<Result<Vec<_>, _>>()?
                .into_iter()
                .map(|(mut summary, provenance)| {
                    summary.provenance = serde_json::from_str(&provenance).unwrap_or(Provenance::Api);
                    summary
                })
                .collect::<Vec<_>>();
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
        let Some(fts_query) = search::fts5_query(&words) else {
            return Ok(Vec::new());
        };
        let limit = limit.clamp(1, 1000);
        // Enough candidates for the tiers to reorder: the best by relevance, and the best of
        // the skills whose name matches (which relevance alone may rank low). Snippets, the
        // costly part, only for the hits kept.
        let pool = (limit * 4).max(32) as i64;
        self.with(move |connection| {
            let (name_weight, description_weight, body_weight) = SEARCH_WEIGHTS;
            let mut candidates = Vec::new();
            // Name matches, then name-or-description matches, then (only when those do not
            // fill the pool) any column. The ranking tiers put a skill with a query word in
            // its name or description above every skill that has it only in its body, and
            // scoring body matches is most of the work: common words match most bodies.
            let scopes = [
                format!("{{name}} : ({fts_query})"),
                format!("{{name description}} : ({fts_query})"),
                fts_query.clone(),
            ];
            let mut in_name_or_description = 0;
            for (index, column_query) in scopes.into_iter().enumerate() {
                if index == 2 && in_name_or_description >= pool as usize {
                    break;
                }
                let mut statement = connection.prepare_cached(
                    "SELECT s.id, s.name, s.description, bm25(skills_fts, ?2, ?3, ?4) AS rank
                     FROM skills_fts JOIN visible_skills s ON s.id = skills_fts.rowid
                     WHERE skills_fts MATCH ?1 ORDER BY rank LIMIT ?5",
                )?;
                let found = statement
                    .query_map(params![column_query, name_weight, description_weight, body_weight, pool], |r| {
                        Ok(search::Candidate {
                            key: r.get(0)?,
                            name: r.get(1)?,
                            description: r.get(2)?,
                            relevance: -r.get::<_, f64>(3)?,
                        })
                    })?
                    .collect::<Result<Vec<_>, _>>()?;
                if index == 1 {
                    in_name_or_description = found.len();
                }
                candidates.extend(found);
            }
            let mut snippet = connection.prepare_cached(
                "SELECT snippet(skills_fts, -1, '[', ']', '…', 16) FROM skills_fts WHERE skills_fts MATCH ?1 AND rowid = ?2",
            )?;
            search::rank(candidates, &words, limit)
                .into_iter()
                .map(|(candidate, score)| {
                    let text: String = snippet.query_row(params![fts_query, candidate.key], |r| r.get(0))?;
                    Ok(search::hit(candidate, score, &text))
                })
                .collect()
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
                .query_map(params![row.id], |r| {
                    let operation: String = r.get(4)?;
                    Ok(Revision {
                        skill: name.clone(),
                        number: r.get::<_, i64>(0)? as u64,
                        created_at: r.get(1)?,
                        author: r.get(2)?,
                        message: r.get(3)?,
                        operation: Operation::parse(&operation).unwrap_or(Operation::Update),
                        content_hash: r.get(5)?,
                    })
                })?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(revisions)
        })
        .await
    }

    async fn import_folders(
        &self,
        items: Vec<FolderImport>,
        change: Change,
    ) -> StoreResult<ImportReport> {
        let (planned, shadowed, given_order) = import_plan::plan(items)?;
        self.write(move |transaction| {
            let mut report = ImportReport {
                shadowed,
                ..ImportReport::default()
            };
            let mut index = SearchIndexWrites::default();
            for Planned { name, item, .. } in planned {
                let FolderContent::Read { snapshot, stamp } = item.content else {
                    report.unchanged.push(name);
                    report.not_read += 1;
                    continue;
                };
                let existing = row_in(transaction, &name, item.provenance.project_key())?;
                if let Some(row) = &existing
                    && let Some(left_out) =
                        scopes::left_out_for(&name, row.deleted, &row.provenance, &item.provenance)?
                {
                    report.shadowed.push(left_out);
                    continue;
                }
                let current = match existing {
                    None => {
                        let id = insert_skill(transaction, &name, &item.provenance)?;
                        write_revision_unindexed(
                            transaction,
                            &NewRevision::first(id, &change, &snapshot, &item.provenance),
                            &mut index,
                        )?;
                        report.created.push(name);
                        (id, 1)
                    }
                    Some(row) if !row.deleted && row.content_hash == snapshot.content_hash() => {
                        report.unchanged.push(name);
                        (row.id, row.revision)
                    }
                    Some(row) => {
                        let operation = if row.deleted {
                            Operation::Restore
                        } else {
                            Operation::Update
                        };
                        write_revision_unindexed(
                            transaction,
                            &NewRevision::after(row.id, row.revision, operation, &change, &snapshot, &item.provenance),
                            &mut index,
                        )?;
                        report.updated.push(name);
                        (row.id, row.revision + 1)
                    }
                };
                if let Some(stamp) = stamp {
                    let (id, revision) = current;
                    transaction
                        .prepare_cached(
                            "INSERT INTO folder_stamps (folder, skill_id, revision, stamp) VALUES (?1, ?2, ?3, ?4)
                             ON CONFLICT (folder) DO UPDATE SET skill_id = excluded.skill_id, revision = excluded.revision, stamp = excluded.stamp",
                        )?
                        .execute(params![stamp.folder, id, revision as i64, stamp.stamp])?;
                }
            }
            index.write(transaction)?;
            given_order.restore(&mut report);
            Ok(report)
        })
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
                        path: parse_provenance(&hidden)?.folder().to_owned(),
                        kept: parse_provenance(&shown)?.folder().to_owned(),
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
                    "INSERT INTO api_keys ({KEY_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
                ),
                params![
                    key.id,
                    info.name,
                    info.role.as_str(),
                    key.sha256,
                    info.created_at,
                    info.expires_at,
                    info.last_used_at,
                    info.revoked_at
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
                .query_map([], key_of)?
                .map(|key| key.map(|key| key.info))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(keys)
        })
        .await
    }

    async fn revoke_key(&self, name: &str) -> StoreResult<KeyInfo> {
        let name = name.to_owned();
        self.write(move |transaction| {
            let key = transaction
                .query_row(
                    &format!(
                        "SELECT {KEY_COLUMNS} FROM api_keys WHERE name = ?1 AND revoked_at IS NULL"
                    ),
                    params![name],
                    key_of,
                )
                .optional()?
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
            Ok(connection
                .query_row(
                    &format!("SELECT {KEY_COLUMNS} FROM api_keys WHERE id = ?1"),
                    params![id],
                    key_of,
                )
                .optional()?)
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
}

/// A key from a row of `SELECT {KEY_COLUMNS}`.
fn key_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoredKey> {
    let role: String = r.get(2)?;
    Ok(StoredKey {
        id: r.get(0)?,
        sha256: r.get(3)?,
        info: KeyInfo {
            prefix: format!("sp_{}", r.get::<_, String>(0)?),
            name: r.get(1)?,
            role: Role::stored(&role),
            created_at: r.get(4)?,
            expires_at: r.get(5)?,
            last_used_at: r.get(6)?,
            revoked_at: r.get(7)?,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_bad_ones_are_refused() {
        assert_eq!(
            decode_cursor(&encode_cursor("add-caching")).expect("valid"),
            "add-caching"
        );
        assert!(decode_cursor("zz").is_err());
        assert!(decode_cursor("abc").is_err());
    }
}
