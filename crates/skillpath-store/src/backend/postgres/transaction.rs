//! PostgreSQL's primitives of a write ([`WriteTransaction`]), in one `READ COMMITTED`
//! transaction whose row locks serialize writers: a skill's row is read `FOR UPDATE`, and a new
//! name's row is locked by the unique index it is inserted into.

use deadpool_postgres::Transaction;

use super::reads;
use super::sql::{cached_execute, cached_query_opt, number};
use crate::error::{StoreError, StoreResult};
use crate::model::{FileMetadata, Provenance, StoredSkill};
use crate::writes::{RevisionRecord, SkillRow, StampRecord, WriteTransaction};

/// A write transaction as the rules of [`crate::writes`] and [`crate::import`] drive it, on
/// the view of the project folders `projects`.
pub(super) struct PostgresWrite<'a> {
    pub(super) transaction: &'a Transaction<'a>,
    pub(super) projects: &'a [String],
}

impl WriteTransaction for PostgresWrite<'_> {
    async fn visible_row(&mut self, name: &str) -> StoreResult<Option<SkillRow>> {
        reads::find(self.transaction, self.projects, name, true).await
    }

    async fn row_in(&mut self, name: &str, project: &str) -> StoreResult<Option<SkillRow>> {
        reads::find_in(self.transaction, name, project).await
    }

    /// Waits for a concurrent transaction that inserted the same name: the unique index is
    /// the lock.
    async fn insert_skill(
        &mut self,
        name: &str,
        provenance: &Provenance,
    ) -> StoreResult<Option<i64>> {
        let row = cached_query_opt(
            self.transaction,
            "INSERT INTO skills (name, project, description, revision, deleted, content_hash, provenance, updated_at)
             VALUES ($1, $2, '', 0, false, '', $3, '') ON CONFLICT (name, project) DO NOTHING RETURNING id",
            &[&name, &provenance.project_key(), &provenance.to_stored()?],
        )
        .await?;
        Ok(row.map(|row| row.try_get(0)).transpose()?)
    }

    async fn load(&mut self, name: &str, revision: u64) -> StoreResult<StoredSkill> {
        reads::load(self.transaction, self.projects, name, Some(revision)).await
    }

    async fn write_revision(&mut self, record: &RevisionRecord<'_>) -> StoreResult<()> {
        let (transaction, revision, meta) = (self.transaction, record.revision, &record.meta);
        let (id, deleted) = (revision.skill_id, revision.deleted);
        let (created_at, content_hash) = (&record.created_at, &record.content_hash);
        let n = number(revision.number)?;
        cached_execute(
            transaction,
            "INSERT INTO revisions (skill_id, number, created_at, author, message, operation, deleted, description, tool_name, content_hash, skill_md)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
            &[
                &id,
                &n,
                created_at,
                &revision.change.author,
                &revision.change.message,
                &revision.operation.as_str(),
                &deleted,
                &meta.description,
                &meta.tool_name,
                content_hash,
                &revision.snapshot.skill_md,
            ],
        )
        .await?;
        let head = &record.head;
        cached_execute(
            transaction,
            "INSERT INTO revision_heads (skill_id, number, frontmatter, sha256, size) VALUES ($1, $2, $3, $4, $5)",
            &[&id, &n, &head.frontmatter, &head.file.sha256, &size_of(&head.file)?],
        )
        .await?;
        for (file, metadata) in revision.snapshot.files.iter().zip(&record.files) {
            let (sha, size) = (&metadata.sha256, size_of(metadata)?);
            cached_execute(
                transaction,
                "INSERT INTO blobs (sha256, size, bytes) VALUES ($1, $2, $3) ON CONFLICT (sha256) DO NOTHING",
                &[sha, &size, &file.bytes],
            )
            .await?;
            cached_execute(
                transaction,
                "INSERT INTO revision_files (skill_id, number, path, sha256, size, text) VALUES ($1, $2, $3, $4, $5, $6)",
                &[&id, &n, &file.path, sha, &size, &metadata.text],
            )
            .await?;
        }
        cached_execute(
            transaction,
            "UPDATE skills SET description = $2, tool_name = $3, revision = $4, deleted = $5, content_hash = $6, provenance = $7, updated_at = $8 WHERE id = $1",
            &[&id, &meta.description, &meta.tool_name, &n, &deleted, content_hash, &record.provenance, created_at],
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
        Ok(())
    }

    async fn record_stamp(&mut self, record: &StampRecord<'_>) -> StoreResult<()> {
        let stamp = record.stamp;
        cached_execute(
            self.transaction,
            "INSERT INTO folder_stamps (folder, skill_id, revision, stamp) VALUES ($1, $2, $3, $4)
             ON CONFLICT (folder) DO UPDATE SET skill_id = excluded.skill_id, revision = excluded.revision, stamp = excluded.stamp",
            &[&stamp.folder, &record.skill_id, &number(record.revision)?, &stamp.stamp],
        )
        .await?;
        Ok(())
    }
}

/// A file's size as PostgreSQL's `BIGINT`.
fn size_of(file: &FileMetadata) -> StoreResult<i64> {
    i64::try_from(file.size)
        .map_err(|_| StoreError::InvalidSkill(format!("the file `{}` is too large", file.path)))
}
