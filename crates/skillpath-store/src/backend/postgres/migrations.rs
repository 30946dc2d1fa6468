//! The PostgreSQL schema: its migrations, run in one transaction under an advisory lock as a
//! store is opened, so two processes opening a new database at once do not both run one.

use deadpool_postgres::Transaction;
use futures_util::TryStreamExt as _;

use std::collections::HashMap;

use super::PostgresStore;
use crate::answers::SkillMdHead;
use crate::audit;
use crate::columns;
use crate::error::{StoreError, StoreResult};
use crate::provenance_column::ProvenanceColumn;
use crate::schema::{self, Migration, Upgrade, Upgraded};
use crate::time::now_rfc3339;
use skillpath_model::{Kind, Provenance, SkillFile, SkillSnapshot, is_text};

/// The schema, one entry per version; `skillpath_migrations` records the versions that ran.
///
/// Names sort byte-wise (`COLLATE "C"`) so listings and cursors order the way SQLite's do,
/// whatever the database's locale. The body is indexed up to 256 KiB so that no skill can
/// exceed PostgreSQL's 1 MB limit on a `tsvector`. Each row of `skillpath_migrations` also
/// records the oldest version that can use the database from then on (see [`crate::schema`]).
const MIGRATIONS: &[Migration] = &[
    Migration::breaking(
        "CREATE TABLE skills (
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
    ),
    Migration::additive(
        "CREATE TABLE api_keys (
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
    ),
    Migration::additive(
        "CREATE TABLE folder_stamps (
        folder TEXT PRIMARY KEY,
        skill_id BIGINT NOT NULL REFERENCES skills(id),
        revision BIGINT NOT NULL,
        stamp TEXT NOT NULL
    );",
    ),
    // Skills of a project (see `crate::scopes`): a name is unique per project, `''` being the
    // skills every project shares; `visible_skills(projects)` is what a store whose view has
    // those project folders shows, one skill per name: a live skill over a deleted one, then
    // the nearest project (the longest folder, since a view's folders all contain its start)
    // over the shared skills. Breaking: an older skillpath would serve every project's skills
    // everywhere.
    Migration::breaking(
        "ALTER TABLE skills ADD COLUMN project TEXT COLLATE \"C\" NOT NULL DEFAULT '';
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
    )
    .then(schema::Backfill::Projects),
    // Names, names with descriptions, and bodies in `tsvector`s and GIN indexes of their own
    // (see `crate::search::Scope`), so that a search the names settle reads neither the
    // descriptions' entries of a common word nor any body's `tsvector` from TOAST; made from
    // the text the table keeps. Breaking: an older skillpath would search `document`.
    Migration::breaking(
        "ALTER TABLE skill_search DROP COLUMN document;
    ALTER TABLE skill_search
        ADD COLUMN name_document TSVECTOR GENERATED ALWAYS AS (
            setweight(to_tsvector('english'::regconfig, name), 'A')
        ) STORED,
        ADD COLUMN head_document TSVECTOR GENERATED ALWAYS AS (
            setweight(to_tsvector('english'::regconfig, name), 'A')
            || setweight(to_tsvector('english'::regconfig, description), 'B')
        ) STORED,
        ADD COLUMN body_document TSVECTOR GENERATED ALWAYS AS (
            to_tsvector('english'::regconfig, left(body, 262144))
        ) STORED;
    CREATE INDEX skill_search_name ON skill_search USING GIN (name_document);
    CREATE INDEX skill_search_head ON skill_search USING GIN (head_document);
    CREATE INDEX skill_search_body ON skill_search USING GIN (body_document);",
    ),
    // What listing skills needs, kept so that it reads no body and no file's bytes: each
    // revision file's size and whether it is text, and each revision's `SKILL.md` head (its
    // frontmatter, digest and size). Filled in for the revisions already stored as it runs.
    // Additive: an older skillpath writes revisions without them, which are read the old way.
    Migration::additive(
        "ALTER TABLE revision_files ADD COLUMN size BIGINT;
    ALTER TABLE revision_files ADD COLUMN text BOOLEAN;
    CREATE TABLE revision_heads (
        skill_id BIGINT NOT NULL,
        number BIGINT NOT NULL,
        frontmatter TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        size BIGINT NOT NULL,
        PRIMARY KEY (skill_id, number),
        FOREIGN KEY (skill_id, number) REFERENCES revisions(skill_id, number)
    );",
    )
    .then(schema::Backfill::Heads),
    // The audit of each revision, as written with it (`crate::audit`): its findings as JSON.
    // A revision without a row was not audited. Additive: an older skillpath writes
    // revisions without one.
    Migration::additive(
        "CREATE TABLE revision_audits (
        skill_id BIGINT NOT NULL,
        number BIGINT NOT NULL,
        findings TEXT NOT NULL,
        PRIMARY KEY (skill_id, number),
        FOREIGN KEY (skill_id, number) REFERENCES revisions(skill_id, number)
    );",
    )
    .then(schema::Backfill::Audits),
    // Architecture packages (`skillpath_model::Kind`) kept as items beside skills, and which
    // skills each live package holds: a skill (by name, in a project) is a member of at most
    // one, which the unique index keeps across concurrent writers. Breaking: an older
    // skillpath would serve a package's `PACKAGE.md` as a skill.
    Migration::breaking(
        "ALTER TABLE skills ADD COLUMN kind TEXT NOT NULL DEFAULT 'skill';
    CREATE TABLE package_members (
        package_id BIGINT NOT NULL REFERENCES skills(id),
        project TEXT COLLATE \"C\" NOT NULL,
        member TEXT NOT NULL,
        UNIQUE (project, member)
    );
    CREATE INDEX package_members_package ON package_members(package_id);",
    ),
    // Drafts (`crate::drafts`): what authors are working on, one per item and author, their
    // files in one value; read by no query of skills. Additive: an older skillpath ignores
    // them.
    Migration::additive(
        "CREATE TABLE drafts (
        name TEXT COLLATE \"C\" NOT NULL,
        author TEXT COLLATE \"C\" NOT NULL,
        kind TEXT NOT NULL,
        base BIGINT NOT NULL,
        package TEXT,
        message TEXT NOT NULL,
        status TEXT NOT NULL,
        reviewer TEXT,
        review_message TEXT,
        updated_at TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        manifest TEXT NOT NULL,
        files BYTEA NOT NULL,
        PRIMARY KEY (name, author)
    );",
    ),
    // Forks (`crate::forks`): items whose provenance is `forked`, which an older skillpath
    // cannot read. No table changes; breaking, so that an older skillpath refuses the database
    // instead of failing on each forked item.
    Migration::breaking("-- no table changes"),
    // Usage (`crate::usage`): uses counted per skill, revision, day, key name and kind, added
    // to by every server's batched writes. Additive: an older skillpath neither counts nor reads
    // them.
    Migration::additive(
        "CREATE TABLE skill_usage (
        skill TEXT COLLATE \"C\" NOT NULL,
        revision BIGINT NOT NULL,
        day TEXT NOT NULL,
        key TEXT NOT NULL,
        kind TEXT NOT NULL,
        count BIGINT NOT NULL,
        last_used TEXT NOT NULL,
        PRIMARY KEY (skill, revision, day, key, kind)
    );",
    ),
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
    Migration::additive(
        "CREATE TABLE registry_uploads (
        ticket TEXT PRIMARY KEY,
        key_id TEXT NOT NULL,
        path TEXT NOT NULL,
        size BIGINT NOT NULL,
        sha256 TEXT NOT NULL,
        bytes BYTEA,
        created_at TEXT NOT NULL
    );",
    ),
    // The identity providers' accounts linked to people (`crate::directory`). Additive: an
    // older skillpath ignores them.
    Migration::additive(crate::directory::rows::IDENTITIES_SCHEMA),
];

/// The advisory lock key that serializes migrations (any fixed number; this one spells
/// `skillpat` in ASCII).
const MIGRATION_LOCK: i64 = 0x736b_696c_6c70_6174;

impl PostgresStore {
    /// Runs the migrations that have not run, as `upgrade` says, all in one transaction under
    /// an advisory lock; what it did.
    pub(super) async fn migrate(&self, upgrade: &Upgrade) -> StoreResult<Upgraded> {
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
        let mut placed = false;
        for (index, migration) in MIGRATIONS.iter().enumerate().skip(version) {
            transaction.batch_execute(migration.sql).await?;
            match migration.backfill {
                Some(schema::Backfill::Projects) => assign_projects(&transaction).await?,
                Some(schema::Backfill::Heads) => record_heads(&transaction).await?,
                Some(schema::Backfill::Audits) => record_audits(&transaction).await?,
                Some(schema::Backfill::People) => {
                    super::directory::people_of_keys(&transaction, &upgrade.namespace).await?;
                    placed = true;
                }
                None => {}
            }
            let to_number = |value: usize| {
                i32::try_from(value).map_err(|_| StoreError::database("too many migrations"))
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
        Ok(Upgraded {
            from: version,
            to: version.max(MIGRATIONS.len()),
            placed,
        })
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

/// [`schema::Backfill::Projects`], by [`Provenance::project`].
async fn assign_projects(transaction: &Transaction<'_>) -> StoreResult<()> {
    for row in transaction
        .query("SELECT id, provenance FROM skills", &[])
        .await?
    {
        let id: i64 = row.try_get(0)?;
        if let Some(project) = Provenance::from_stored(row.try_get(1)?)?.project() {
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

/// [`schema::Backfill::Heads`], each blob read once (only the digests of those that are not text are
/// kept).
async fn record_heads(transaction: &Transaction<'_>) -> StoreResult<()> {
    let mut binary: Vec<String> = Vec::new();
    let blobs = transaction
        .query_raw(
            "SELECT sha256, bytes FROM blobs",
            std::iter::empty::<&str>(),
        )
        .await?;
    let mut blobs = std::pin::pin!(blobs);
    while let Some(row) = blobs.try_next().await? {
        if !is_text(row.try_get::<_, &[u8]>(1)?) {
            binary.push(row.try_get(0)?);
        }
    }
    transaction
        .execute(
            "UPDATE revision_files f SET size = b.size, text = NOT (f.sha256 = ANY ($1))
             FROM blobs b WHERE b.sha256 = f.sha256",
            &[&binary],
        )
        .await?;
    let revisions = transaction
        .query_raw(
            "SELECT skill_id, number, skill_md FROM revisions",
            std::iter::empty::<&str>(),
        )
        .await?;
    let mut revisions = std::pin::pin!(revisions);
    let (mut ids, mut numbers, mut heads, mut digests, mut sizes) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    while let Some(row) = revisions.try_next().await? {
        let head = SkillMdHead::of(Kind::Skill, row.try_get(2)?);
        ids.push(row.try_get::<_, i64>(0)?);
        numbers.push(row.try_get::<_, i64>(1)?);
        sizes.push(i64::try_from(head.file.size).unwrap_or(i64::MAX));
        digests.push(head.file.sha256);
        heads.push(head.frontmatter);
    }
    transaction
        .execute(
            "INSERT INTO revision_heads (skill_id, number, frontmatter, sha256, size)
             SELECT * FROM unnest($1::BIGINT[], $2::BIGINT[], $3::TEXT[], $4::TEXT[], $5::BIGINT[])",
            &[&ids, &numbers, &heads, &digests, &sizes],
        )
        .await?;
    Ok(())
}

/// [`schema::Backfill::Audits`].
async fn record_audits(transaction: &Transaction<'_>) -> StoreResult<()> {
    let mut live: Vec<(i64, i64, String)> = Vec::new();
    for row in transaction
        .query(
            "SELECT id, revision, name FROM skills WHERE NOT deleted ORDER BY id",
            &[],
        )
        .await?
    {
        live.push((row.try_get(0)?, row.try_get(1)?, row.try_get(2)?));
    }
    let gate = audit::backfill_gate(live.iter().map(|(_, _, name)| name.clone()));
    for batch in live.chunks(audit::BACKFILL_BATCH) {
        let ids: Vec<i64> = batch.iter().map(|(id, _, _)| *id).collect();
        let mut files: HashMap<i64, Vec<SkillFile>> = HashMap::new();
        for row in transaction
            .query(
                "SELECT f.skill_id, f.path, b.bytes FROM skills s
                 JOIN revision_files f ON f.skill_id = s.id AND f.number = s.revision
                 JOIN blobs b ON b.sha256 = f.sha256
                 WHERE s.id = ANY ($1) ORDER BY f.skill_id, f.path COLLATE \"C\"",
                &[&ids],
            )
            .await?
        {
            files
                .entry(row.try_get(0)?)
                .or_default()
                .push(columns::file(&row, 1)?);
        }
        let mut read = Vec::with_capacity(batch.len());
        for row in transaction
            .query(
                "SELECT s.id, r.skill_md FROM skills s
                 JOIN revisions r ON r.skill_id = s.id AND r.number = s.revision
                 WHERE s.id = ANY ($1)",
                &[&ids],
            )
            .await?
        {
            let id: i64 = row.try_get(0)?;
            let Some((_, number, name)) = batch.iter().find(|(other, _, _)| *other == id) else {
                continue;
            };
            let snapshot = SkillSnapshot {
                // Written before packages were: a skill.
                kind: Kind::Skill,
                skill_md: row.try_get(1)?,
                files: files.remove(&id).unwrap_or_default(),
            };
            read.push((id, *number, name.clone(), snapshot));
        }
        let (mut audit_ids, mut numbers, mut findings) = (Vec::new(), Vec::new(), Vec::new());
        for (id, number, record) in audit::backfill(&gate, &read) {
            audit_ids.push(id);
            numbers.push(number);
            findings.push(record);
        }
        transaction
            .execute(
                "INSERT INTO revision_audits (skill_id, number, findings)
                 SELECT * FROM unnest($1::BIGINT[], $2::BIGINT[], $3::TEXT[])",
                &[&audit_ids, &numbers, &findings],
            )
            .await?;
    }
    Ok(())
}
