//! SQLite's reads of single rows, shared by the store's reads and its writes: a skill's row, a
//! revision with its files; and how a column of a rusqlite row is read ([`Columns`]).

use rusqlite::{Connection, params};

use crate::answers::StoredSkill;
use crate::columns::{self, Columns};
use crate::error::{StoreError, StoreResult};
use crate::writes::SkillRow;

impl Columns for rusqlite::Row<'_> {
    fn text(&self, index: usize) -> StoreResult<String> {
        Ok(self.get(index)?)
    }

    fn optional_text(&self, index: usize) -> StoreResult<Option<String>> {
        Ok(self.get(index)?)
    }

    fn id(&self, index: usize) -> StoreResult<i64> {
        Ok(self.get(index)?)
    }

    fn revision(&self, index: usize) -> StoreResult<u64> {
        Ok(self.get::<_, i64>(index)? as u64)
    }

    fn flag(&self, index: usize) -> StoreResult<bool> {
        Ok(self.get(index)?)
    }

    fn optional_flag(&self, index: usize) -> StoreResult<Option<bool>> {
        Ok(self.get(index)?)
    }

    fn bytes(&self, index: usize) -> StoreResult<Vec<u8>> {
        Ok(self.get(index)?)
    }
}

/// The row `statement` finds with `params`, if any, read by `read`.
pub(super) fn first<T>(
    mut statement: rusqlite::CachedStatement<'_>,
    params: impl rusqlite::Params,
    read: impl FnMut(&rusqlite::Row<'_>) -> StoreResult<T>,
) -> StoreResult<Option<T>> {
    statement.query_and_then(params, read)?.next().transpose()
}

/// The row of the skill `name` as the store's view shows it (see [`super::migrations::VIEW`]).
pub(super) fn row(transaction: &Connection, name: &str) -> StoreResult<Option<SkillRow>> {
    let statement = transaction.prepare_cached(&format!(
        "SELECT {} FROM visible_skills WHERE name = ?1",
        columns::SKILL_ROW
    ))?;
    first(statement, params![name], |r| columns::skill_row(r))
}

/// The row of the skill `name` in `project` (`""`: shared), whether the view shows it or not.
pub(super) fn row_in(
    transaction: &Connection,
    name: &str,
    project: &str,
) -> StoreResult<Option<SkillRow>> {
    let statement = transaction.prepare_cached(&format!(
        "SELECT {} FROM skills WHERE name = ?1 AND project = ?2",
        columns::SKILL_ROW
    ))?;
    first(statement, params![name, project], |r| columns::skill_row(r))
}

/// Reads revision `number` of skill `name`.
pub(super) fn load(
    connection: &Connection,
    name: &str,
    number: Option<u64>,
) -> StoreResult<StoredSkill> {
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
    let mut statement = connection.prepare_cached(
        "SELECT r.created_at, r.deleted, r.description, r.tool_name, r.content_hash, r.skill_md, a.findings
         FROM revisions r LEFT JOIN revision_audits a ON a.skill_id = r.skill_id AND a.number = r.number
         WHERE r.skill_id = ?1 AND r.number = ?2",
    )?;
    let mut revisions = statement.query(params![row.id, number as i64])?;
    let Some(revision) = revisions.next()? else {
        return Err(not_found());
    };
    let files = connection
        .prepare_cached(
            "SELECT f.path, b.bytes FROM revision_files f JOIN blobs b ON b.sha256 = f.sha256
             WHERE f.skill_id = ?1 AND f.number = ?2 ORDER BY f.path",
        )?
        .query_and_then(params![row.id, number as i64], |r| columns::file(r, 0))?
        .collect::<StoreResult<Vec<_>>>()?;
    columns::revision_content(revision, name, number, &row, files)
}
