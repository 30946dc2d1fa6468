//! PostgreSQL's statements on drafts ([`crate::drafts`]): the `drafts` table, one row per item
//! and author.

use deadpool_postgres::Transaction;

use super::sql::{cached_execute, cached_query, cached_query_opt, number};
use crate::columns;
use crate::drafts::{DRAFT_COLUMNS, Draft, DraftFilter, DraftRecord, DraftRef, DraftSummary};
use crate::error::StoreResult;
use crate::time::now_rfc3339;
use skillpath_model::Change;

/// Keeps `record` in place of its author's draft of the item.
pub(super) async fn put(transaction: &Transaction<'_>, record: &DraftRecord) -> StoreResult<()> {
    let summary = &record.summary;
    cached_execute(
        transaction,
        "INSERT INTO drafts (name, author, kind, base, package, message, status, reviewer, review_message, updated_at, content_hash, manifest, files)
         VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, NULL, $8, $9, $10, $11)
         ON CONFLICT (name, author) DO UPDATE SET kind = excluded.kind, base = excluded.base,
            package = excluded.package, message = excluded.message, status = excluded.status,
            reviewer = NULL, review_message = NULL, updated_at = excluded.updated_at,
            content_hash = excluded.content_hash, manifest = excluded.manifest, files = excluded.files",
        &[
            &summary.name,
            &summary.author,
            &summary.kind.as_str(),
            &number(summary.base)?,
            &summary.package,
            &summary.message,
            &summary.status.as_str(),
            &summary.updated_at,
            &summary.content_hash,
            &record.manifest,
            &record.files,
        ],
    )
    .await?;
    Ok(())
}

/// The drafts `filter` asks for, by name, then author.
pub(super) async fn list(
    transaction: &Transaction<'_>,
    filter: &DraftFilter,
) -> StoreResult<Vec<DraftSummary>> {
    cached_query(
        transaction,
        &format!(
            "SELECT {DRAFT_COLUMNS} FROM drafts
             WHERE ($1::text IS NULL OR name = $1) AND ($2::text IS NULL OR author = $2)
             ORDER BY name, author"
        ),
        &[&filter.name, &filter.author],
    )
    .await?
    .iter()
    .map(columns::draft_summary)
    .collect()
}

/// The draft of `name` by `author`, with its content.
pub(super) async fn read(
    transaction: &Transaction<'_>,
    name: &str,
    author: &str,
) -> StoreResult<Option<Draft>> {
    cached_query_opt(
        transaction,
        &format!(
            "SELECT {DRAFT_COLUMNS}, manifest, files FROM drafts WHERE name = $1 AND author = $2"
        ),
        &[&name, &author],
    )
    .await?
    .as_ref()
    .map(columns::draft)
    .transpose()
}

/// Marks `draft` rejected by `reviewer`, when its content is still the one named.
pub(super) async fn reject(
    transaction: &Transaction<'_>,
    draft: &DraftRef,
    reviewer: &Change,
) -> StoreResult<Option<DraftSummary>> {
    cached_query_opt(
        transaction,
        &format!(
            "UPDATE drafts SET status = 'rejected', reviewer = $1, review_message = $2, updated_at = $3
             WHERE name = $4 AND author = $5 AND content_hash = $6 RETURNING {DRAFT_COLUMNS}"
        ),
        &[
            &reviewer.author,
            &reviewer.message,
            &now_rfc3339(),
            &draft.name,
            &draft.author,
            &draft.content_hash,
        ],
    )
    .await?
    .as_ref()
    .map(columns::draft_summary)
    .transpose()
}

/// Deletes `draft`, when its content is still the one named: whether it did.
pub(super) async fn close(transaction: &Transaction<'_>, draft: &DraftRef) -> StoreResult<bool> {
    let deleted = cached_execute(
        transaction,
        "DELETE FROM drafts WHERE name = $1 AND author = $2 AND content_hash = $3",
        &[&draft.name, &draft.author, &draft.content_hash],
    )
    .await?;
    Ok(deleted == 1)
}
