//! SQLite's reads of single rows, shared by the store's reads and its writes: a skill's row, a
//! revision with its files, a key.

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::{StoreError, StoreResult};
use crate::keys::{KeyInfo, Role, StoredKey};
use crate::model::{Provenance, SkillFile, SkillSnapshot, StoredSkill};
use crate::writes::SkillRow;

/// A skill's row from `SELECT id, revision, deleted, content_hash, provenance`.
fn skill_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<SkillRow> {
    Ok(SkillRow {
        id: r.get(0)?,
        revision: r.get::<_, i64>(1)? as u64,
        deleted: r.get(2)?,
        content_hash: r.get(3)?,
        provenance: r.get(4)?,
    })
}

/// The row of the skill `name` as the store's view shows it (see [`super::migrations::VIEW`]).
pub(super) fn row(transaction: &Connection, name: &str) -> StoreResult<Option<SkillRow>> {
    Ok(transaction
        .prepare_cached(
            "SELECT id, revision, deleted, content_hash, provenance FROM visible_skills WHERE name = ?1",
        )?
        .query_row(params![name], skill_row)
        .optional()?)
}

/// The row of the skill `name` in `project` (`""`: shared), whether the view shows it or not.
pub(super) fn row_in(
    transaction: &Connection,
    name: &str,
    project: &str,
) -> StoreResult<Option<SkillRow>> {
    Ok(transaction
        .prepare_cached(
            "SELECT id, revision, deleted, content_hash, provenance FROM skills WHERE name = ?1 AND project = ?2",
        )?
        .query_row(params![name, project], skill_row)
        .optional()?)
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
        provenance: Provenance::from_stored(&row.provenance)?,
        updated_at: created_at,
        snapshot: SkillSnapshot { skill_md, files },
    })
}

/// A key from a row of `SELECT {KEY_COLUMNS}`.
pub(super) fn key_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoredKey> {
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
