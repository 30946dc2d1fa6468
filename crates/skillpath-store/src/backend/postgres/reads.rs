//! PostgreSQL's reads of single rows, shared by the store's reads and its writes: a skill's
//! row (locked for a writer), a revision with its files; and how a column of a tokio-postgres
//! row is read ([`Columns`]).

use deadpool_postgres::Transaction;
use tokio_postgres::Row as PgRow;

use super::sql::{cached_query, cached_query_opt, revision_of};
use crate::answers::StoredSkill;
use crate::columns::{self, Columns};
use crate::error::{StoreError, StoreResult};
use crate::writes::SkillRow;

impl Columns for PgRow {
    fn text(&self, index: usize) -> StoreResult<String> {
        Ok(self.try_get(index)?)
    }

    fn optional_text(&self, index: usize) -> StoreResult<Option<String>> {
        Ok(self.try_get(index)?)
    }

    fn id(&self, index: usize) -> StoreResult<i64> {
        Ok(self.try_get(index)?)
    }

    fn revision(&self, index: usize) -> StoreResult<u64> {
        Ok(revision_of(self.try_get(index)?))
    }

    fn flag(&self, index: usize) -> StoreResult<bool> {
        Ok(self.try_get(index)?)
    }

    fn optional_flag(&self, index: usize) -> StoreResult<Option<bool>> {
        Ok(self.try_get(index)?)
    }

    fn bytes(&self, index: usize) -> StoreResult<Vec<u8>> {
        Ok(self.try_get(index)?)
    }
}

/// The row of the skill `name` as a view of `projects` shows it, locked for the rest of the
/// transaction when `lock` (a writer's read).
pub(super) async fn find(
    transaction: &Transaction<'_>,
    projects: &[String],
    name: &str,
    lock: bool,
) -> StoreResult<Option<SkillRow>> {
    let sql = if lock {
        // A function's rows cannot be locked: lock the row it names.
        format!(
            "SELECT {} FROM skills
             WHERE id = (SELECT id FROM visible_skills($2) WHERE name = $1) FOR UPDATE",
            columns::SKILL_ROW
        )
    } else {
        format!(
            "SELECT {} FROM visible_skills($2) WHERE name = $1",
            columns::SKILL_ROW
        )
    };
    cached_query_opt(transaction, &sql, &[&name, &projects])
        .await?
        .as_ref()
        .map(columns::skill_row)
        .transpose()
}

/// The locked row of the skill `name` in `project` (`""`: shared), whether a view shows it
/// or not.
pub(super) async fn find_in(
    transaction: &Transaction<'_>,
    name: &str,
    project: &str,
) -> StoreResult<Option<SkillRow>> {
    cached_query_opt(
        transaction,
        &format!(
            "SELECT {} FROM skills WHERE name = $1 AND project = $2 FOR UPDATE",
            columns::SKILL_ROW
        ),
        &[&name, &project],
    )
    .await?
    .as_ref()
    .map(columns::skill_row)
    .transpose()
}

/// Reads revision `revision` (or the current one) of skill `name` as `projects` see it.
pub(super) async fn load(
    transaction: &Transaction<'_>,
    projects: &[String],
    name: &str,
    revision: Option<u64>,
) -> StoreResult<StoredSkill> {
    let Some(row) = find(transaction, projects, name, false).await? else {
        return Err(StoreError::NotFound {
            name: name.to_owned(),
            revision: None,
        });
    };
    let id = row.id;
    let wanted = revision.unwrap_or(row.revision);
    let not_found = || StoreError::NotFound {
        name: name.to_owned(),
        revision,
    };
    // A revision past `i64::MAX` cannot exist.
    let Ok(n) = i64::try_from(wanted) else {
        return Err(not_found());
    };
    let revision_row = cached_query_opt(transaction,
            "SELECT r.created_at, r.deleted, r.description, r.tool_name, r.content_hash, r.skill_md, a.findings
             FROM revisions r LEFT JOIN revision_audits a ON a.skill_id = r.skill_id AND a.number = r.number
             WHERE r.skill_id = $1 AND r.number = $2",
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
    .map(|r| columns::file(r, 0))
    .collect::<StoreResult<Vec<_>>>()?;
    columns::revision_content(&revision_row, name, wanted, &row, files)
}
