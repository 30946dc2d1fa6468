//! The SQLite schema: its migrations, run one per write transaction as a database is opened,
//! and the per-connection view of the skills a store shows.

use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};

use crate::answers::SkillMdHead;
use crate::audit;
use crate::columns;
use crate::error::{StoreError, StoreResult};
use crate::provenance_column::ProvenanceColumn;
use crate::schema::{self, Migration, Upgrade, Upgraded};
use skillpath_model::{Kind, Provenance, SkillSnapshot, is_text};

/// The schema, one entry per version; `PRAGMA user_version` says how many have run, and
/// `schema_compatibility` (from version 2) the oldest version that can still use the database.
const MIGRATIONS: &[Migration] = &[
    Migration::breaking("CREATE TABLE skills (
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
    );"),
    Migration::additive("CREATE TABLE api_keys (
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
    INSERT INTO schema_compatibility (oldest) VALUES (0);"),
    Migration::additive("CREATE TABLE folder_stamps (
        folder TEXT PRIMARY KEY,
        skill_id INTEGER NOT NULL REFERENCES skills(id),
        revision INTEGER NOT NULL,
        stamp TEXT NOT NULL
    );"),
    // Skills of a project (see `crate::scopes`): a name is unique per project, `''` being the
    // skills every project shares. SQLite cannot drop a column's `UNIQUE`, so the table is
    // made again with its ids (which revisions, files, stamps and the search index use).
    // Breaking: an older skillpath would serve every project's skills everywhere.
    Migration::breaking("CREATE TABLE skills_by_project (
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
    ALTER TABLE skills_by_project RENAME TO skills;")
    .then(schema::Backfill::Projects),
    // Names and descriptions indexed apart from bodies (see `crate::search::Scope`), so that a
    // common word's entries in the bodies do not weigh on a search that the names settle;
    // made from the text the one index kept. Breaking: an older skillpath would write only
    // the old index.
    Migration::breaking("CREATE VIRTUAL TABLE skills_fts_head USING fts5(
        name, description,
        tokenize = 'porter unicode61 remove_diacritics 2'
    );
    CREATE VIRTUAL TABLE skills_fts_body USING fts5(
        body,
        tokenize = 'porter unicode61 remove_diacritics 2'
    );
    INSERT INTO skills_fts_head (rowid, name, description) SELECT rowid, name, description FROM skills_fts;
    INSERT INTO skills_fts_body (rowid, body) SELECT rowid, body FROM skills_fts;
    DROP TABLE skills_fts;"),
    // What listing skills needs, kept so that it reads no body and no file's bytes: each
    // revision file's size and whether it is text, and each revision's `SKILL.md` head (its
    // frontmatter, digest and size). Filled in for the revisions already stored as it runs.
    // Additive: an older skillpath writes revisions without them, which are read the old way.
    Migration::additive("ALTER TABLE revision_files ADD COLUMN size INTEGER;
    ALTER TABLE revision_files ADD COLUMN text INTEGER;
    CREATE TABLE revision_heads (
        skill_id INTEGER NOT NULL,
        number INTEGER NOT NULL,
        frontmatter TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        size INTEGER NOT NULL,
        PRIMARY KEY (skill_id, number),
        FOREIGN KEY (skill_id, number) REFERENCES revisions(skill_id, number)
    );")
    .then(schema::Backfill::Heads),
    // FTS5 keeps up to 32 MiB of a transaction's new search terms in memory before it writes
    // them out as a segment (its default is 1 MiB, taken only as terms come): an import of
    // 10,000 skills wrote its index as dozens of segments and merged them over and over, 7 %
    // of the import's time. A setting kept in each index's own configuration table.
    Migration::additive("INSERT INTO skills_fts_head (skills_fts_head, rank) VALUES ('hashsize', 33554432);
    INSERT INTO skills_fts_body (skills_fts_body, rank) VALUES ('hashsize', 33554432);"),
    // The audit of each revision, as written with it (`crate::audit`): its findings as JSON.
    // A revision without a row was not audited. Additive: an older skillpath writes
    // revisions without one.
    Migration::additive("CREATE TABLE revision_audits (
        skill_id INTEGER NOT NULL,
        number INTEGER NOT NULL,
        findings TEXT NOT NULL,
        PRIMARY KEY (skill_id, number),
        FOREIGN KEY (skill_id, number) REFERENCES revisions(skill_id, number)
    );")
    .then(schema::Backfill::Audits),
    // Architecture packages (`skillpath_model::Kind`) kept as items beside skills, and which
    // skills each live package holds: a skill (by name, in a project) is a member of at most
    // one. Breaking: an older skillpath would serve a package's `PACKAGE.md` as a skill.
    Migration::breaking("ALTER TABLE skills ADD COLUMN kind TEXT NOT NULL DEFAULT 'skill';
    CREATE TABLE package_members (
        package_id INTEGER NOT NULL REFERENCES skills(id),
        project TEXT NOT NULL,
        member TEXT NOT NULL,
        UNIQUE (project, member)
    );
    CREATE INDEX package_members_package ON package_members(package_id);"),
    // Drafts (`crate::drafts`): what authors are working on, one per item and author, their
    // files in one value; read by no query of skills. Additive: an older skillpath ignores
    // them.
    Migration::additive("CREATE TABLE drafts (
        name TEXT NOT NULL,
        author TEXT NOT NULL,
        kind TEXT NOT NULL,
        base INTEGER NOT NULL,
        package TEXT,
        message TEXT NOT NULL,
        status TEXT NOT NULL,
        reviewer TEXT,
        review_message TEXT,
        updated_at TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        manifest TEXT NOT NULL,
        files BLOB NOT NULL,
        PRIMARY KEY (name, author)
    );"),
    // Forks (`crate::forks`): items whose provenance is `forked`, which an older skillpath
    // cannot read. No table changes; breaking, so that an older skillpath refuses the database
    // instead of failing on each forked item.
    Migration::breaking("-- no table changes"),
    // Usage (`crate::usage`): uses counted per skill, revision, day, key name and kind, added
    // to by every server's batched writes. Additive: an older skillpath neither counts nor reads
    // them.
    Migration::additive("CREATE TABLE skill_usage (
        skill TEXT NOT NULL,
        revision INTEGER NOT NULL,
        day TEXT NOT NULL,
        key TEXT NOT NULL,
        kind TEXT NOT NULL,
        count INTEGER NOT NULL,
        last_used TEXT NOT NULL,
        PRIMARY KEY (skill, revision, day, key, kind)
    );"),
    // People, namespaces, members, stars and the governance log (`crate::directory`); every
    // item joins `@global`, visible to its members, and every key becomes a person's.
    // Breaking: an older skillpath would show every item to everyone.
    Migration::breaking(crate::directory::rows::SCHEMA).then(schema::Backfill::People),
    // Releases and tags (`crate::directory::releases`). Additive: an older skillpath serves
    // current revisions, as it did, and ignores them.
    Migration::additive(crate::directory::rows::RELEASES_SCHEMA),
    // Release proposals and keys' channels (`crate::directory::releases`, `crate::keys`).
    // Additive: an older skillpath ignores both.
    Migration::additive(crate::directory::rows::PROPOSALS_SCHEMA),
    // Uploads waiting for their publish (`crate::uploads`). Additive: an older skillpath
    // ignores them.
    Migration::additive("CREATE TABLE registry_uploads (
        ticket TEXT PRIMARY KEY,
        key_id TEXT NOT NULL,
        path TEXT NOT NULL,
        size INTEGER NOT NULL,
        sha256 TEXT NOT NULL,
        bytes BLOB,
        created_at TEXT NOT NULL
    );"),
    // The identity providers' accounts linked to people (`crate::directory`). Additive: an
    // older skillpath ignores them.
    Migration::additive(crate::directory::rows::IDENTITIES_SCHEMA),
];

/// What a connection sees of the skills: `visible_skills`, the skills every project shares
/// and those of the store's [`ProjectView`](crate::scopes::ProjectView) (`visible_projects`),
/// one per name by the precedence of [`crate::scopes`]: a live skill over a deleted one, then
/// the nearest project (the longest folder, since the view's folders all contain its start)
/// over the shared skills (`''`). Temporary, so each connection has its own view.
pub(super) const VIEW: &str = "CREATE TEMP TABLE visible_projects (folder TEXT PRIMARY KEY);
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

/// Brings the schema of the database on `connection` up to date as `upgrade` says, or
/// refuses a database made by a newer skillpath that this one cannot use; what it did.
pub(super) fn migrate(connection: &mut Connection, upgrade: &Upgrade) -> StoreResult<Upgraded> {
    let known = MIGRATIONS.len();
    let current = schema_version(connection)?;
    if current >= known {
        // Up to date, or newer: no write lock needed.
        schema::check_compatible(current, recorded_oldest(connection, current), known)?;
        return Ok(Upgraded {
            from: current,
            to: current,
            placed: false,
        });
    }
    // Migrations may make a table again (SQLite's way to change a constraint), which must
    // happen with foreign keys off; each checks them before it commits.
    connection.pragma_update(None, "foreign_keys", "OFF")?;
    let migrated = run_migrations(connection, known, upgrade);
    connection.pragma_update(None, "foreign_keys", "ON")?;
    let placed = migrated?;
    Ok(Upgraded {
        from: current,
        to: known,
        placed,
    })
}

/// The migrations a database at an older version lacks. One migration per write transaction,
/// the version read inside it: two processes opening a new database at once do not both run a
/// migration.
fn run_migrations(
    connection: &mut Connection,
    known: usize,
    upgrade: &Upgrade,
) -> StoreResult<bool> {
    // Whether this run placed the items in a namespace ([`Upgraded::placed`]).
    let mut placed = false;
    loop {
        let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let version = schema_version(&transaction)?;
        let Some(migration) = MIGRATIONS.get(version) else {
            schema::check_compatible(version, recorded_oldest(&transaction, version), known)?;
            transaction.commit()?;
            return Ok(placed);
        };
        transaction.execute_batch(migration.sql)?;
        match migration.backfill {
            Some(schema::Backfill::Projects) => assign_projects(&transaction)?,
            Some(schema::Backfill::Heads) => record_heads(&transaction)?,
            Some(schema::Backfill::Audits) => record_audits(&transaction)?,
            Some(schema::Backfill::People) => {
                super::directory::people_of_keys(&transaction, &upgrade.namespace)?;
                placed = true;
            }
            None => {}
        }
        let broken: Option<String> = transaction
            .query_row("SELECT \"table\" FROM pragma_foreign_key_check", [], |r| {
                r.get(0)
            })
            .optional()?;
        if let Some(table) = broken {
            return Err(StoreError::database(format!(
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

/// [`schema::Backfill::Projects`], by [`Provenance::project`].
fn assign_projects(transaction: &Transaction<'_>) -> StoreResult<()> {
    let mut statement = transaction.prepare("SELECT id, provenance FROM skills")?;
    let rows = statement
        .query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?
        .collect::<Result<Vec<_>, _>>()?;
    for (id, provenance) in rows {
        if let Some(project) = Provenance::from_stored(&provenance)?.project() {
            transaction.execute(
                "UPDATE skills SET project = ?2 WHERE id = ?1",
                params![id, project],
            )?;
        }
    }
    Ok(())
}

/// [`schema::Backfill::Heads`], one blob read at a time.
fn record_heads(transaction: &Transaction<'_>) -> StoreResult<()> {
    // Read first, then written: rows are not changed under a statement that reads them.
    let files: Vec<(i64, i64, bool)> = transaction
        .prepare(
            "SELECT f.rowid, b.size, b.bytes FROM revision_files f JOIN blobs b ON b.sha256 = f.sha256",
        )?
        .query_map([], |row| {
            Ok((row.get(0)?, row.get(1)?, is_text(row.get_ref(2)?.as_bytes()?)))
        })?
        .collect::<Result<_, _>>()?;
    let mut mark =
        transaction.prepare("UPDATE revision_files SET size = ?2, text = ?3 WHERE rowid = ?1")?;
    for (rowid, size, text) in files {
        mark.execute(params![rowid, size, text])?;
    }
    let heads: Vec<(i64, i64, SkillMdHead)> = transaction
        .prepare("SELECT skill_id, number, skill_md FROM revisions")?
        .query_map([], |row| {
            Ok((
                row.get(0)?,
                row.get(1)?,
                SkillMdHead::of(Kind::Skill, row.get_ref(2)?.as_str()?),
            ))
        })?
        .collect::<Result<_, _>>()?;
    let mut insert = transaction.prepare(
        "INSERT INTO revision_heads (skill_id, number, frontmatter, sha256, size) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for (skill_id, number, head) in heads {
        insert.execute(params![
            skill_id,
            number,
            head.frontmatter,
            head.file.sha256,
            head.file.size as i64
        ])?;
    }
    Ok(())
}

/// [`schema::Backfill::Audits`].
fn record_audits(transaction: &Transaction<'_>) -> StoreResult<()> {
    let live: Vec<(i64, i64, String)> = transaction
        .prepare("SELECT id, revision, name FROM skills WHERE NOT deleted ORDER BY id")?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
        .collect::<Result<_, _>>()?;
    let gate = audit::backfill_gate(live.iter().map(|(_, _, name)| name.clone()));
    let mut skill_md = transaction
        .prepare("SELECT skill_md FROM revisions WHERE skill_id = ?1 AND number = ?2")?;
    let mut files = transaction.prepare(
        "SELECT f.path, b.bytes FROM revision_files f JOIN blobs b ON b.sha256 = f.sha256
         WHERE f.skill_id = ?1 AND f.number = ?2 ORDER BY f.path",
    )?;
    let mut insert = transaction
        .prepare("INSERT INTO revision_audits (skill_id, number, findings) VALUES (?1, ?2, ?3)")?;
    for batch in live.chunks(audit::BACKFILL_BATCH) {
        let mut read = Vec::with_capacity(batch.len());
        for (id, number, name) in batch {
            let text: String = skill_md.query_row(params![id, number], |row| row.get(0))?;
            let files = files
                .query_and_then(params![id, number], |row| columns::file(row, 0))?
                .collect::<StoreResult<Vec<_>>>()?;
            let snapshot = SkillSnapshot {
                // Written before packages were: a skill.
                kind: Kind::Skill,
                skill_md: text,
                files,
            };
            read.push((*id, *number, name.clone(), snapshot));
        }
        for (id, number, findings) in audit::backfill(&gate, &read) {
            insert.execute(params![id, number, findings])?;
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
