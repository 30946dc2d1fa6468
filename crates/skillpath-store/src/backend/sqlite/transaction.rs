//! SQLite's primitives of a write ([`WriteTransaction`]): its rows read and written in one
//! `BEGIN IMMEDIATE` transaction, the search index written once at its end.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use rusqlite::{OptionalExtension, Transaction, params};

use super::reads;
use crate::answers::StoredSkill;
use crate::drafts::DraftRef;
use crate::error::{StoreError, StoreResult};
use crate::provenance_column::ProvenanceColumn;
use crate::writes::{AuditRow, Blob, RevisionRecord, SkillRow, StampRecord, WriteTransaction};
use skillpath_model::{Access, Kind, Provenance};

/// A write transaction as the rules of [`crate::writes`] and [`crate::import`] drive it.
pub(super) struct SqliteWrite<'a> {
    transaction: &'a Transaction<'a>,
    index: SearchIndexWrites,
}

impl<'a> SqliteWrite<'a> {
    /// Runs `work` in `transaction` and writes the search index it changed; the caller commits.
    pub(super) fn run<T>(
        transaction: &'a Transaction<'a>,
        work: impl AsyncFnOnce(&mut SqliteWrite<'a>) -> StoreResult<T>,
    ) -> StoreResult<T> {
        let mut write = SqliteWrite {
            transaction,
            index: SearchIndexWrites::default(),
        };
        let result = now(work(&mut write))?;
        write.index.write(transaction)?;
        Ok(result)
    }
}

/// The result of `future`, whose every step is a call to SQLite that completes at once (the
/// primitives below, and a search's reads of its index, never wait), so one poll finishes it
/// on the blocking thread it runs on.
pub(super) fn now<T>(future: impl Future<Output = StoreResult<T>>) -> StoreResult<T> {
    match pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(result) => result,
        Poll::Pending => Err(StoreError::database(
            "a SQLite operation waited for something, which none of its steps does",
        )),
    }
}

impl WriteTransaction for SqliteWrite<'_> {
    async fn visible_row(&mut self, name: &str) -> StoreResult<Option<SkillRow>> {
        reads::row(self.transaction, name)
    }

    async fn row_in(&mut self, name: &str, project: &str) -> StoreResult<Option<SkillRow>> {
        reads::row_in(self.transaction, name, project)
    }

    async fn insert_skill(
        &mut self,
        name: &str,
        kind: Kind,
        provenance: &Provenance,
        access: &Access,
    ) -> StoreResult<Option<i64>> {
        Ok(self
            .transaction
            .prepare_cached(
                "INSERT INTO skills (name, project, description, revision, deleted, content_hash, provenance, updated_at, kind, visibility, owner)
                 VALUES (?1, ?2, '', 0, 0, '', ?3, '', ?4, ?5, ?6) ON CONFLICT (name, project) DO NOTHING RETURNING id",
            )?
            .query_row(
                params![
                    name,
                    provenance.project_key(),
                    provenance.to_stored()?,
                    kind.as_str(),
                    access.visibility.as_str(),
                    access.owner
                ],
                |r| r.get(0),
            )
            .optional()?)
    }

    async fn load(&mut self, name: &str, revision: u64) -> StoreResult<StoredSkill> {
        reads::load(self.transaction, name, Some(revision))
    }

    async fn write_blobs(&mut self, blobs: &[Blob<'_>]) -> StoreResult<()> {
        let mut insert = self.transaction.prepare_cached(
            "INSERT OR IGNORE INTO blobs (sha256, size, bytes) VALUES (?1, ?2, ?3)",
        )?;
        for blob in blobs {
            insert.execute(params![blob.sha256, blob.bytes.len() as i64, blob.bytes])?;
        }
        Ok(())
    }

    async fn write_revisions(&mut self, records: &[RevisionRecord<'_>]) -> StoreResult<()> {
        let transaction = self.transaction;
        let mut insert_revision = transaction.prepare_cached(
            "INSERT INTO revisions (skill_id, number, created_at, author, message, operation, deleted, description, tool_name, content_hash, skill_md)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        )?;
        let mut head_row = transaction.prepare_cached(
            "INSERT INTO revision_heads (skill_id, number, frontmatter, sha256, size) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        let mut file_row = transaction.prepare_cached(
            "INSERT INTO revision_files (skill_id, number, path, sha256, size, text) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?;
        let mut update_skill = transaction.prepare_cached(
            "UPDATE skills SET description = ?2, tool_name = ?3, revision = ?4, deleted = ?5, content_hash = ?6, provenance = ?7, updated_at = ?8 WHERE id = ?1",
        )?;
        for record in records {
            let (revision, meta, created_at) = (record.revision, &record.meta, &record.created_at);
            let (id, number, deleted) =
                (revision.skill_id, revision.number as i64, revision.deleted);
            let (content_hash, provenance) = (&record.content_hash, &record.provenance);
            insert_revision.execute(params![
                id,
                number,
                created_at,
                revision.change.author,
                revision.change.message,
                revision.operation.as_str(),
                deleted,
                meta.description,
                meta.tool_name,
                content_hash,
                revision.snapshot.skill_md
            ])?;
            let head = &record.head;
            head_row.execute(params![
                id,
                number,
                head.frontmatter,
                head.file.sha256,
                head.file.size as i64
            ])?;
            for (file, metadata) in revision.snapshot.files.iter().zip(&record.files) {
                file_row.execute(params![
                    id,
                    number,
                    file.path,
                    metadata.sha256,
                    metadata.size as i64,
                    metadata.text
                ])?;
            }
            update_skill.execute(params![
                id,
                meta.description,
                meta.tool_name,
                number,
                deleted,
                content_hash,
                provenance,
                created_at
            ])?;
            if revision.number > 1 {
                self.index.removed.push(id);
            }
            if !deleted {
                self.index.added.push((
                    id,
                    meta.name.clone(),
                    meta.description.clone(),
                    meta.body.clone(),
                ));
            }
        }
        Ok(())
    }

    async fn write_audits(&mut self, audits: &[AuditRow]) -> StoreResult<()> {
        let mut insert = self.transaction.prepare_cached(
            "INSERT INTO revision_audits (skill_id, number, findings) VALUES (?1, ?2, ?3)",
        )?;
        for audit in audits {
            insert.execute(params![audit.skill_id, audit.number as i64, audit.findings])?;
        }
        Ok(())
    }

    async fn set_members(
        &mut self,
        package: i64,
        project: &str,
        members: &[String],
    ) -> StoreResult<Option<(String, String)>> {
        let transaction = self.transaction;
        transaction
            .prepare_cached("DELETE FROM package_members WHERE package_id = ?1")?
            .execute(params![package])?;
        let mut insert = transaction.prepare_cached(
            "INSERT INTO package_members (package_id, project, member) VALUES (?1, ?2, ?3)
             ON CONFLICT (project, member) DO NOTHING",
        )?;
        for member in members {
            if insert.execute(params![package, project, member])? == 0 {
                let other: String = transaction
                    .prepare_cached(
                        "SELECT s.name FROM package_members m JOIN skills s ON s.id = m.package_id
                         WHERE m.project = ?1 AND m.member = ?2",
                    )?
                    .query_row(params![project, member], |r| r.get(0))?;
                return Ok(Some((member.clone(), other)));
            }
        }
        Ok(None)
    }

    async fn close_draft(&mut self, draft: &DraftRef) -> StoreResult<bool> {
        super::drafts::close(self.transaction, draft)
    }

    async fn record_stamps(&mut self, records: &[StampRecord<'_>]) -> StoreResult<()> {
        let mut insert = self.transaction.prepare_cached(
            "INSERT INTO folder_stamps (folder, skill_id, revision, stamp) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (folder) DO UPDATE SET skill_id = excluded.skill_id, revision = excluded.revision, stamp = excluded.stamp",
        )?;
        for record in records {
            let stamp = record.stamp;
            insert.execute(params![
                stamp.folder,
                record.skill_id,
                record.revision as i64,
                stamp.stamp
            ])?;
        }
        Ok(())
    }
}

/// Changes to the search index (names and descriptions in `skills_fts_head`, bodies in
/// `skills_fts_body`; see [`crate::search::Scope`]), written together at the end of a transaction. Each statement
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
        let mut remove_head =
            transaction.prepare_cached("DELETE FROM skills_fts_head WHERE rowid = ?1")?;
        let mut remove_body =
            transaction.prepare_cached("DELETE FROM skills_fts_body WHERE rowid = ?1")?;
        for id in self.removed {
            remove_head.execute(params![id])?;
            remove_body.execute(params![id])?;
        }
        let mut add_head = transaction.prepare_cached(
            "INSERT INTO skills_fts_head (rowid, name, description) VALUES (?1, ?2, ?3)",
        )?;
        let mut add_body = transaction
            .prepare_cached("INSERT INTO skills_fts_body (rowid, body) VALUES (?1, ?2)")?;
        for (id, name, description, body) in self.added {
            add_head.execute(params![id, name, description])?;
            add_body.execute(params![id, body])?;
        }
        Ok(())
    }
}
