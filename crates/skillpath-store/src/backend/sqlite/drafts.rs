//! SQLite's statements on drafts ([`crate::drafts`]): the `drafts` table, one row per item and
//! author.

use rusqlite::{Connection, Transaction, params};

use crate::columns;
use crate::drafts::{DRAFT_COLUMNS, Draft, DraftFilter, DraftRecord, DraftRef, DraftSummary};
use crate::error::StoreResult;
use crate::time::now_rfc3339;
use skillpath_model::Change;

/// Keeps `record` in place of its author's draft of the item.
pub(super) fn put(transaction: &Transaction<'_>, record: &DraftRecord) -> StoreResult<()> {
    let summary = &record.summary;
    transaction
        .prepare_cached(
            "INSERT INTO drafts (name, author, kind, base, package, message, status, reviewer, review_message, updated_at, content_hash, manifest, files)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, NULL, NULL, ?8, ?9, ?10, ?11)
             ON CONFLICT (name, author) DO UPDATE SET kind = excluded.kind, base = excluded.base,
                package = excluded.package, message = excluded.message, status = excluded.status,
                reviewer = NULL, review_message = NULL, updated_at = excluded.updated_at,
                content_hash = excluded.content_hash, manifest = excluded.manifest, files = excluded.files",
        )?
        .execute(params![
            summary.name,
            summary.author,
            summary.kind.as_str(),
            summary.base as i64,
            summary.package,
            summary.message,
            summary.status.as_str(),
            summary.updated_at,
            summary.content_hash,
            record.manifest,
            record.files,
        ])?;
    Ok(())
}

/// The drafts `filter` asks for, by name, then author.
pub(super) fn list(
    connection: &Connection,
    filter: &DraftFilter,
) -> StoreResult<Vec<DraftSummary>> {
    let mut statement = connection.prepare_cached(&format!(
        "SELECT {DRAFT_COLUMNS} FROM drafts
         WHERE (?1 IS NULL OR name = ?1) AND (?2 IS NULL OR author = ?2)
         ORDER BY name, author"
    ))?;
    statement
        .query_and_then(params![filter.name, filter.author], |row| {
            columns::draft_summary(row)
        })?
        .collect()
}

/// The draft of `name` by `author`, with its content.
pub(super) fn read(
    connection: &Connection,
    name: &str,
    author: &str,
) -> StoreResult<Option<Draft>> {
    connection
        .prepare_cached(&format!(
            "SELECT {DRAFT_COLUMNS}, manifest, files FROM drafts WHERE name = ?1 AND author = ?2"
        ))?
        .query_and_then(params![name, author], |row| columns::draft(row))?
        .next()
        .transpose()
}

/// Marks `draft` rejected by `reviewer`, when its content is still the one named.
pub(super) fn reject(
    transaction: &Transaction<'_>,
    draft: &DraftRef,
    reviewer: &Change,
) -> StoreResult<Option<DraftSummary>> {
    transaction
        .prepare_cached(&format!(
            "UPDATE drafts SET status = 'rejected', reviewer = ?1, review_message = ?2, updated_at = ?3
             WHERE name = ?4 AND author = ?5 AND content_hash = ?6 RETURNING {DRAFT_COLUMNS}"
        ))?
        .query_and_then(
            params![
                reviewer.author,
                reviewer.message,
                now_rfc3339(),
                draft.name,
                draft.author,
                draft.content_hash
            ],
            |row| columns::draft_summary(row),
        )?
        .next()
        .transpose()
}

/// Deletes `draft`, when its content is still the one named: whether it did.
pub(super) fn close(transaction: &Transaction<'_>, draft: &DraftRef) -> StoreResult<bool> {
    let deleted = transaction
        .prepare_cached("DELETE FROM drafts WHERE name = ?1 AND author = ?2 AND content_hash = ?3")?
        .execute(params![draft.name, draft.author, draft.content_hash])?;
    Ok(deleted == 1)
}
