//! PostgreSQL's part of the directory ([`DirectoryTransaction`]): the statements of
//! [`crate::directory::rows`] as they are. Changes wait for each other on one advisory lock,
//! so that each reads the directory and the log's last entry as the one before left them.

use deadpool_postgres::Transaction;
use tokio_postgres::types::ToSql;

use super::sql::{cached_execute, cached_query, cached_query_opt};
use crate::columns::Columns;
use crate::directory::rows::{self, Bound, DirectoryTransaction};
use crate::directory::{Directory, Row, Star};
use crate::error::StoreResult;
use skillpath_model::Namespace;
use skillpath_model::governance::Entry;

/// The advisory lock every change of the directory holds until its transaction ends.
const DIRECTORY_LOCK: i64 = 0x736b_696c_6c64_6972;

/// A transaction of the directory's changes.
pub(super) struct PgDirectory<'a>(pub(super) &'a Transaction<'a>);

/// The directory as `transaction` sees it.
pub(super) async fn read(transaction: &Transaction<'_>) -> StoreResult<Directory> {
    async fn all<T>(
        transaction: &Transaction<'_>,
        statement: &str,
        read: impl Fn(&tokio_postgres::Row) -> StoreResult<T>,
    ) -> StoreResult<Vec<T>> {
        cached_query(transaction, statement, &[])
            .await?
            .iter()
            .map(read)
            .collect()
    }
    Ok(rows::directory(rows::Read {
        users: all(transaction, rows::USERS, rows::user).await?,
        namespaces: all(transaction, rows::NAMESPACES, rows::namespace).await?,
        members: all(transaction, rows::MEMBERS, rows::member).await?,
        access: all(transaction, rows::ACCESS, rows::access).await?,
        releases: all(transaction, rows::RELEASES, rows::release).await?,
        tags: all(transaction, rows::TAGS, rows::tag).await?,
        proposals: all(transaction, rows::PROPOSALS, rows::proposal).await?,
        identities: all(transaction, rows::IDENTITIES, rows::identity).await?,
    }))
}

/// Every entry of the governance log, in order.
pub(super) async fn log(transaction: &Transaction<'_>) -> StoreResult<Vec<Entry>> {
    cached_query(transaction, rows::LOG, &[])
        .await?
        .iter()
        .map(rows::entry)
        .collect()
}

/// Every star, or `handle`'s.
pub(super) async fn stars(
    transaction: &Transaction<'_>,
    handle: Option<&str>,
) -> StoreResult<Vec<Star>> {
    let mut stars: Vec<Star> = cached_query(transaction, rows::STARS, &[])
        .await?
        .iter()
        .map(rows::star)
        .collect::<StoreResult<_>>()?;
    stars.retain(|star| handle.is_none_or(|handle| star.handle == handle));
    stars.sort_by(|a, b| (&a.handle, &a.key).cmp(&(&b.handle, &b.key)));
    Ok(stars)
}

/// Writes `row`.
pub(super) async fn write(transaction: &Transaction<'_>, row: &Row) -> StoreResult<()> {
    let (statement, bound) = rows::statement(row);
    let values: Vec<Box<dyn ToSql + Sync + Send>> = bound
        .into_iter()
        .map(|value| -> Box<dyn ToSql + Sync + Send> {
            match value {
                Bound::Text(text) => Box::new(text.to_owned()),
                Bound::Owned(text) => Box::new(text),
                Bound::Flag(flag) => Box::new(flag),
                Bound::MaybeFlag(flag) => Box::new(flag),
                Bound::Number(number) => Box::new(number),
            }
        })
        .collect();
    let params: Vec<&(dyn ToSql + Sync)> = values
        .iter()
        .map(|value| value.as_ref() as &(dyn ToSql + Sync))
        .collect();
    cached_execute(transaction, statement, &params).await?;
    Ok(())
}

/// Makes every key of a store made before people a person's ([`crate::directory::people_of_keys`]).
pub(super) async fn people_of_keys(
    transaction: &Transaction<'_>,
    into: &Namespace,
) -> StoreResult<()> {
    let keys: Vec<_> = transaction
        .query(rows::KEY_ROLES, &[])
        .await?
        .iter()
        .map(rows::key_role)
        .collect::<StoreResult<_>>()?;
    for row in crate::directory::people_of_keys(&keys, into) {
        write(transaction, &row).await?;
    }
    if !into.is_global() {
        let prefix = format!("{into}/");
        for statement in rows::PLACE_ITEMS {
            transaction.execute(statement, &[&prefix]).await?;
        }
    }
    for (name, _) in &keys {
        let handle = crate::directory::handle_of_key_name(name);
        transaction
            .execute(rows::KEY_USER, &[name, &handle])
            .await?;
    }
    Ok(())
}

impl DirectoryTransaction for PgDirectory<'_> {
    async fn lock(&mut self) -> StoreResult<()> {
        cached_execute(
            self.0,
            "SELECT pg_advisory_xact_lock($1)",
            &[&DIRECTORY_LOCK],
        )
        .await?;
        Ok(())
    }

    async fn read(&mut self) -> StoreResult<Directory> {
        read(self.0).await
    }

    async fn write(&mut self, row: &Row) -> StoreResult<()> {
        write(self.0, row).await
    }

    async fn last_entry(&mut self) -> StoreResult<Option<(u64, String)>> {
        match cached_query_opt(self.0, rows::LAST_ENTRY, &[]).await? {
            Some(row) => Ok(Some((row.revision(0)?, row.text(1)?))),
            None => Ok(None),
        }
    }

    async fn append(&mut self, entry: &Entry) -> StoreResult<()> {
        let action = &entry.action;
        let seq = super::sql::number(entry.seq)?;
        cached_execute(
            self.0,
            rows::APPEND,
            &[
                &seq,
                &action.at,
                &action.actor,
                &action.action,
                &action.target,
                &action.before,
                &action.after,
                &entry.prev,
                &entry.digest,
            ],
        )
        .await?;
        Ok(())
    }
}
