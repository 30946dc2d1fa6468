//! PostgreSQL's primitives of a write ([`WriteTransaction`]), in one `READ COMMITTED`
//! transaction whose row locks serialize writers: a skill's row is read `FOR UPDATE`, and a new
//! name's row is locked by the unique index it is inserted into.

use std::collections::{HashMap, HashSet};

use deadpool_postgres::Transaction;

use super::reads;
use super::sql::{cached_execute, cached_query, cached_query_opt, number};
use crate::answers::StoredSkill;
use crate::columns;
use crate::drafts::DraftRef;
use crate::error::{StoreError, StoreResult};
use crate::provenance_column::ProvenanceColumn;
use crate::writes::{
    AuditRow, Blob, Claimed, RevisionRecord, SkillRow, StampRecord, WriteTransaction,
};
use skillpath_model::{Access, FileMetadata, Kind, Provenance};

/// A write transaction as the rules of [`crate::writes`] and [`crate::import`] drive it, on
/// the view of the project folders `projects`.
pub(super) struct PostgresWrite<'a> {
    pub(super) transaction: &'a Transaction<'a>,
    pub(super) projects: &'a [String],
}

impl WriteTransaction for PostgresWrite<'_> {
    async fn close_draft(&mut self, draft: &DraftRef) -> StoreResult<bool> {
        super::drafts::close(self.transaction, draft).await
    }

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
        kind: Kind,
        provenance: &Provenance,
        access: &Access,
    ) -> StoreResult<Option<i64>> {
        let row = cached_query_opt(
            self.transaction,
            "INSERT INTO skills (name, project, description, revision, deleted, content_hash, provenance, updated_at, kind, visibility, owner)
             VALUES ($1, $2, '', 0, false, '', $3, '', $4, $5, $6) ON CONFLICT (name, project) DO NOTHING RETURNING id",
            &[
                &name,
                &provenance.project_key(),
                &provenance.to_stored()?,
                &kind.as_str(),
                &access.visibility.as_str(),
                &access.owner,
            ],
        )
        .await?;
        Ok(row.map(|row| row.try_get(0)).transpose()?)
    }

    /// One statement inserts the new rows and locks the existing ones, in the order given: a
    /// conflicting row is locked by `ON CONFLICT DO UPDATE` even where its `WHERE` leaves it
    /// as it is (and then it is not returned); a second reads the rows that were there.
    async fn claim_rows(
        &mut self,
        skills: &[(&str, Kind, &Provenance)],
        access: &Access,
    ) -> StoreResult<Vec<Claimed>> {
        if skills.is_empty() {
            return Ok(Vec::new());
        }
        let names: Vec<&str> = skills.iter().map(|(name, _, _)| *name).collect();
        let kinds: Vec<&str> = skills.iter().map(|(_, kind, _)| kind.as_str()).collect();
        let projects: Vec<&str> = skills.iter().map(|(_, _, p)| p.project_key()).collect();
        let provenances = skills
            .iter()
            .map(|(_, _, provenance)| provenance.to_stored())
            .collect::<StoreResult<Vec<String>>>()?;
        let mut claimed: HashMap<(String, String), Claimed> = HashMap::new();
        for row in cached_query(
            self.transaction,
            "INSERT INTO skills (name, project, description, revision, deleted, content_hash, provenance, updated_at, kind, visibility, owner)
             SELECT u.name, u.project, '', 0, false, '', u.provenance, '', u.kind, $5, $6
             FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS u(name, project, provenance, kind, position)
             ORDER BY u.position
             ON CONFLICT (name, project) DO UPDATE SET name = excluded.name WHERE false
             RETURNING id, name, project",
            &[
                &names,
                &projects,
                &provenances,
                &kinds,
                &access.visibility.as_str(),
                &access.owner,
            ],
        )
        .await?
        {
            let key = (row.try_get(1)?, row.try_get(2)?);
            claimed.insert(key, Claimed::Created(row.try_get(0)?));
        }
        if claimed.len() < skills.len() {
            let (names, projects): (Vec<&str>, Vec<&str>) = names
                .iter()
                .zip(&projects)
                .filter(|&(&name, &project)| {
                    !claimed.contains_key(&(name.to_owned(), project.to_owned()))
                })
                .unzip();
            for row in cached_query(
                self.transaction,
                "SELECT s.id, s.revision, s.deleted, s.content_hash, s.provenance, s.kind, s.name, s.project
                 FROM skills s JOIN unnest($1::text[], $2::text[]) AS u(name, project)
                   ON s.name = u.name AND s.project = u.project",
                &[&names, &projects],
            )
            .await?
            {
                let key = (row.try_get(6)?, row.try_get(7)?);
                claimed.insert(key, Claimed::Existing(columns::skill_row(&row)?));
            }
        }
        skills
            .iter()
            .map(|&(name, _, provenance)| {
                let key = (name.to_owned(), provenance.project_key().to_owned());
                claimed.remove(&key).ok_or_else(|| {
                    StoreError::database(format!("skill `{name}` vanished during the import"))
                })
            })
            .collect()
    }

    async fn load(&mut self, name: &str, revision: u64) -> StoreResult<StoredSkill> {
        reads::load(self.transaction, self.projects, name, Some(revision)).await
    }

    /// The blobs stored already are asked for first, so that their bytes are not sent again.
    async fn write_blobs(&mut self, blobs: &[Blob<'_>]) -> StoreResult<()> {
        let digests: Vec<&str> = blobs.iter().map(|blob| blob.sha256).collect();
        let stored: HashSet<String> = cached_query(
            self.transaction,
            "SELECT sha256 FROM blobs WHERE sha256 = ANY ($1)",
            &[&digests],
        )
        .await?
        .iter()
        .map(|row| row.try_get(0))
        .collect::<Result<_, _>>()?;
        let missing: Vec<&Blob<'_>> = blobs
            .iter()
            .filter(|blob| !stored.contains(blob.sha256))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        let digests: Vec<&str> = missing.iter().map(|blob| blob.sha256).collect();
        let sizes = missing
            .iter()
            .map(|blob| {
                i64::try_from(blob.bytes.len()).map_err(|_| {
                    StoreError::InvalidSkill(format!(
                        "a file of {} bytes is too large to store",
                        blob.bytes.len()
                    ))
                })
            })
            .collect::<StoreResult<Vec<i64>>>()?;
        let bytes: Vec<&[u8]> = missing.iter().map(|blob| blob.bytes).collect();
        cached_execute(
            self.transaction,
            "INSERT INTO blobs (sha256, size, bytes)
             SELECT * FROM unnest($1::text[], $2::bigint[], $3::bytea[])
             ON CONFLICT (sha256) DO NOTHING",
            &[&digests, &sizes, &bytes],
        )
        .await?;
        Ok(())
    }

    /// Each table's rows of every revision in one statement, their columns as arrays.
    async fn write_revisions(&mut self, records: &[RevisionRecord<'_>]) -> StoreResult<()> {
        let transaction = self.transaction;
        let ids: Vec<i64> = records.iter().map(|r| r.revision.skill_id).collect();
        let numbers = records
            .iter()
            .map(|r| number(r.revision.number))
            .collect::<StoreResult<Vec<i64>>>()?;
        let created_at: Vec<&str> = records.iter().map(|r| r.created_at.as_str()).collect();
        let authors: Vec<&str> = records
            .iter()
            .map(|r| r.revision.change.author.as_str())
            .collect();
        let messages: Vec<&str> = records
            .iter()
            .map(|r| r.revision.change.message.as_str())
            .collect();
        let operations: Vec<&str> = records
            .iter()
            .map(|r| r.revision.operation.as_str())
            .collect();
        let deleted: Vec<bool> = records.iter().map(|r| r.revision.deleted).collect();
        let descriptions: Vec<&str> = records
            .iter()
            .map(|r| r.meta.description.as_str())
            .collect();
        let tool_names: Vec<Option<&str>> = records
            .iter()
            .map(|r| r.meta.tool_name.as_deref())
            .collect();
        let hashes: Vec<&str> = records.iter().map(|r| r.content_hash.as_str()).collect();
        let skill_mds: Vec<&str> = records
            .iter()
            .map(|r| r.revision.snapshot.skill_md.as_str())
            .collect();
        cached_execute(
            transaction,
            "INSERT INTO revisions (skill_id, number, created_at, author, message, operation, deleted, description, tool_name, content_hash, skill_md)
             SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::boolean[], $8::text[], $9::text[], $10::text[], $11::text[])",
            &[&ids, &numbers, &created_at, &authors, &messages, &operations, &deleted, &descriptions, &tool_names, &hashes, &skill_mds],
        )
        .await?;
        let (mut frontmatters, mut head_digests, mut head_sizes) =
            (Vec::new(), Vec::new(), Vec::new());
        for record in records {
            frontmatters.push(record.head.frontmatter.as_str());
            head_digests.push(record.head.file.sha256.as_str());
            head_sizes.push(size_of(&record.head.file)?);
        }
        cached_execute(
            transaction,
            "INSERT INTO revision_heads (skill_id, number, frontmatter, sha256, size)
             SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::bigint[])",
            &[&ids, &numbers, &frontmatters, &head_digests, &head_sizes],
        )
        .await?;
        let (mut file_ids, mut file_numbers, mut paths, mut digests, mut sizes, mut texts) = (
            Vec::new(),
            Vec::new(),
            Vec::new(),
            Vec::new(),
            Vec::new(),
            Vec::new(),
        );
        for ((record, id), n) in records.iter().zip(&ids).zip(&numbers) {
            for (file, metadata) in record.revision.snapshot.files.iter().zip(&record.files) {
                file_ids.push(*id);
                file_numbers.push(*n);
                paths.push(file.path.as_str());
                digests.push(metadata.sha256.as_str());
                sizes.push(size_of(metadata)?);
                texts.push(metadata.text);
            }
        }
        if !paths.is_empty() {
            cached_execute(
                transaction,
                "INSERT INTO revision_files (skill_id, number, path, sha256, size, text)
                 SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::boolean[])",
                &[&file_ids, &file_numbers, &paths, &digests, &sizes, &texts],
            )
            .await?;
        }
        let provenances: Vec<&str> = records.iter().map(|r| r.provenance.as_str()).collect();
        cached_execute(
            transaction,
            "UPDATE skills SET description = u.description, tool_name = u.tool_name, revision = u.revision,
                 deleted = u.deleted, content_hash = u.content_hash, provenance = u.provenance, updated_at = u.updated_at
             FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::boolean[], $6::text[], $7::text[], $8::text[])
                 AS u(id, description, tool_name, revision, deleted, content_hash, provenance, updated_at)
             WHERE skills.id = u.id",
            &[&ids, &descriptions, &tool_names, &numbers, &deleted, &hashes, &provenances, &created_at],
        )
        .await?;
        // A skill's first revision has no search row to replace.
        let replaced: Vec<i64> = records
            .iter()
            .filter(|r| r.revision.number > 1)
            .map(|r| r.revision.skill_id)
            .collect();
        if !replaced.is_empty() {
            cached_execute(
                transaction,
                "DELETE FROM skill_search WHERE skill_id = ANY ($1)",
                &[&replaced],
            )
            .await?;
        }
        let live: Vec<&RevisionRecord<'_>> =
            records.iter().filter(|r| !r.revision.deleted).collect();
        if !live.is_empty() {
            let ids: Vec<i64> = live.iter().map(|r| r.revision.skill_id).collect();
            let names: Vec<&str> = live.iter().map(|r| r.meta.name.as_str()).collect();
            let descriptions: Vec<&str> =
                live.iter().map(|r| r.meta.description.as_str()).collect();
            let bodies: Vec<&str> = live.iter().map(|r| r.meta.body.as_str()).collect();
            cached_execute(
                transaction,
                "INSERT INTO skill_search (skill_id, name, description, body)
                 SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[])",
                &[&ids, &names, &descriptions, &bodies],
            )
            .await?;
        }
        Ok(())
    }

    async fn write_audits(&mut self, audits: &[AuditRow]) -> StoreResult<()> {
        let ids: Vec<i64> = audits.iter().map(|a| a.skill_id).collect();
        let numbers = audits
            .iter()
            .map(|a| number(a.number))
            .collect::<StoreResult<Vec<i64>>>()?;
        let findings: Vec<&str> = audits.iter().map(|a| a.findings.as_str()).collect();
        cached_execute(
            self.transaction,
            "INSERT INTO revision_audits (skill_id, number, findings)
             SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[])",
            &[&ids, &numbers, &findings],
        )
        .await?;
        Ok(())
    }

    /// A member another package's transaction is claiming meanwhile waits on the unique
    /// index for that transaction to end, and is then refused if it committed.
    async fn set_members(
        &mut self,
        package: i64,
        project: &str,
        members: &[String],
    ) -> StoreResult<Option<(String, String)>> {
        cached_execute(
            self.transaction,
            "DELETE FROM package_members WHERE package_id = $1",
            &[&package],
        )
        .await?;
        if members.is_empty() {
            return Ok(None);
        }
        let inserted: HashSet<String> = cached_query(
            self.transaction,
            "INSERT INTO package_members (package_id, project, member)
             SELECT $1, $2, m FROM unnest($3::text[]) AS m
             ON CONFLICT (project, member) DO NOTHING RETURNING member",
            &[&package, &project, &members],
        )
        .await?
        .iter()
        .map(|row| row.try_get(0))
        .collect::<Result<_, _>>()?;
        let Some(taken) = members.iter().find(|member| !inserted.contains(*member)) else {
            return Ok(None);
        };
        let other = cached_query_opt(
            self.transaction,
            "SELECT s.name FROM package_members m JOIN skills s ON s.id = m.package_id
             WHERE m.project = $1 AND m.member = $2",
            &[&project, taken],
        )
        .await?
        .map(|row| row.try_get(0))
        .transpose()?
        .unwrap_or_default();
        Ok(Some((taken.clone(), other)))
    }

    async fn record_stamps(&mut self, records: &[StampRecord<'_>]) -> StoreResult<()> {
        let folders: Vec<&str> = records.iter().map(|r| r.stamp.folder.as_str()).collect();
        let ids: Vec<i64> = records.iter().map(|r| r.skill_id).collect();
        let revisions = records
            .iter()
            .map(|r| number(r.revision))
            .collect::<StoreResult<Vec<i64>>>()?;
        let stamps: Vec<&str> = records.iter().map(|r| r.stamp.stamp.as_str()).collect();
        cached_execute(
            self.transaction,
            "INSERT INTO folder_stamps (folder, skill_id, revision, stamp)
             SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[])
             ON CONFLICT (folder) DO UPDATE SET skill_id = excluded.skill_id, revision = excluded.revision, stamp = excluded.stamp",
            &[&folders, &ids, &revisions, &stamps],
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
