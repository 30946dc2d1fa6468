//! Statements on PostgreSQL as the store runs them: prepared once per pooled connection, the
//! driver's errors said as sentences (with the driver's error kept as their cause), revision
//! numbers as `BIGINT`.

use deadpool_postgres::Transaction;
use tokio_postgres::Row as PgRow;
use tokio_postgres::types::ToSql;

use crate::error::{DatabaseError, StoreError, StoreResult};

/// A database error as a sentence: the server's message (and detail) when there is one, since
/// `tokio_postgres::Error`'s own text is only "db error"; otherwise the error and its causes.
pub(super) fn describe_error(error: &tokio_postgres::Error) -> String {
    match error.as_db_error() {
        Some(db) => match db.detail() {
            Some(detail) => format!("{} ({detail})", db.message()),
            None => db.message().to_owned(),
        },
        None => {
            // tokio-postgres says what failed ("error performing TLS handshake") and keeps why
            // in the source chain.
            let mut text = error.to_string();
            let mut source = std::error::Error::source(error);
            while let Some(cause) = source {
                let cause_text = cause.to_string();
                if !text.contains(&cause_text) {
                    text = format!("{text}: {cause_text}");
                }
                source = cause.source();
            }
            text
        }
    }
}

impl From<tokio_postgres::Error> for StoreError {
    fn from(error: tokio_postgres::Error) -> Self {
        StoreError::Database(DatabaseError::caused_by(describe_error(&error), error))
    }
}

/// Parameters of a statement.
pub(super) type Params<'a> = &'a [&'a (dyn ToSql + Sync)];

// The data path prepares each statement once per pooled connection (deadpool's statement
// cache): a later use skips the round trip that prepares it and the server's parsing and
// planning, which otherwise cost more than the statement itself.

pub(super) async fn cached_execute(
    transaction: &Transaction<'_>,
    sql: &str,
    params: Params<'_>,
) -> StoreResult<u64> {
    let statement = transaction.prepare_cached(sql).await?;
    Ok(transaction.execute(&statement, params).await?)
}

pub(super) async fn cached_query(
    transaction: &Transaction<'_>,
    sql: &str,
    params: Params<'_>,
) -> StoreResult<Vec<PgRow>> {
    let statement = transaction.prepare_cached(sql).await?;
    Ok(transaction.query(&statement, params).await?)
}

pub(super) async fn cached_query_opt(
    transaction: &Transaction<'_>,
    sql: &str,
    params: Params<'_>,
) -> StoreResult<Option<PgRow>> {
    let statement = transaction.prepare_cached(sql).await?;
    Ok(transaction.query_opt(&statement, params).await?)
}

pub(super) async fn cached_query_one(
    transaction: &Transaction<'_>,
    sql: &str,
    params: Params<'_>,
) -> StoreResult<PgRow> {
    let statement = transaction.prepare_cached(sql).await?;
    Ok(transaction.query_one(&statement, params).await?)
}

/// A revision number as PostgreSQL's `BIGINT`.
pub(super) fn number(value: u64) -> StoreResult<i64> {
    i64::try_from(value)
        .map_err(|_| StoreError::database(format!("revision {value} is out of range")))
}

/// A stored `BIGINT` revision as a revision number (never negative: the store writes them).
pub(super) fn revision_of(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}
