//! SQLite's part of the directory ([`DirectoryTransaction`]): the statements of
//! [`crate::directory::rows`], with SQLite's numbered parameters. A change runs in a
//! `BEGIN IMMEDIATE` transaction, which already excludes every other writer.

use rusqlite::types::{ToSqlOutput, Value};
use rusqlite::{Connection, ToSql, params};
use skillpath_model::Namespace;
use skillpath_model::governance::Entry;

use crate::directory::rows::{self, Bound, DirectoryTransaction};
use crate::directory::{Directory, Row, Star};
use crate::error::StoreResult;

/// A transaction of the directory's changes.
pub(super) struct SqliteDirectory<'a>(pub(super) &'a Connection);

/// A statement of [`rows`] with SQLite's parameters (`?n` binds by number; a `$n` would be
/// numbered by where it first appears).
pub(super) fn sql(statement: &str) -> String {
    statement.replace('$', "?")
}

impl ToSql for Bound<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Bound::Text(text) => ToSqlOutput::from(*text),
            Bound::Owned(text) => ToSqlOutput::from(text.as_str()),
            Bound::Flag(flag) => ToSqlOutput::from(*flag),
            Bound::MaybeFlag(Some(flag)) => ToSqlOutput::from(*flag),
            Bound::MaybeFlag(None) => ToSqlOutput::Owned(Value::Null),
            Bound::Number(number) => ToSqlOutput::from(*number),
        })
    }
}

/// The directory as `connection` sees it.
pub(super) fn read(connection: &Connection) -> StoreResult<Directory> {
    fn all<T>(
        connection: &Connection,
        statement: &str,
        read: impl FnMut(&rusqlite::Row<'_>) -> StoreResult<T>,
    ) -> StoreResult<Vec<T>> {
        connection
            .prepare_cached(statement)?
            .query_and_then([], read)?
            .collect()
    }
    Ok(rows::directory(rows::Read {
        users: all(connection, rows::USERS, |r| rows::user(r))?,
        namespaces: all(connection, rows::NAMESPACES, |r| rows::namespace(r))?,
        members: all(connection, rows::MEMBERS, |r| rows::member(r))?,
        access: all(connection, rows::ACCESS, |r| rows::access(r))?,
        releases: all(connection, rows::RELEASES, |r| rows::release(r))?,
        tags: all(connection, rows::TAGS, |r| rows::tag(r))?,
        proposals: all(connection, rows::PROPOSALS, |r| rows::proposal(r))?,
        identities: all(connection, rows::IDENTITIES, |r| rows::identity(r))?,
    }))
}

/// Every entry of the governance log, in order.
pub(super) fn log(connection: &Connection) -> StoreResult<Vec<Entry>> {
    connection
        .prepare_cached(rows::LOG)?
        .query_and_then([], |r| rows::entry(r))?
        .collect()
}

/// Every star, or `handle`'s.
pub(super) fn stars(connection: &Connection, handle: Option<&str>) -> StoreResult<Vec<Star>> {
    let mut stars: Vec<Star> = connection
        .prepare_cached(rows::STARS)?
        .query_and_then([], |r| rows::star(r))?
        .collect::<StoreResult<_>>()?;
    stars.retain(|star| handle.is_none_or(|handle| star.handle == handle));
    stars.sort_by(|a, b| (&a.handle, &a.key).cmp(&(&b.handle, &b.key)));
    Ok(stars)
}

/// Writes `row`.
pub(super) fn write(connection: &Connection, row: &Row) -> StoreResult<()> {
    let (statement, bound) = rows::statement(row);
    let params: Vec<&dyn ToSql> = bound.iter().map(|value| value as &dyn ToSql).collect();
    connection
        .prepare_cached(&sql(statement))?
        .execute(params.as_slice())?;
    Ok(())
}

/// Makes every key of a store made before people a person's ([`crate::directory::people_of_keys`]).
pub(super) fn people_of_keys(connection: &Connection, into: &Namespace) -> StoreResult<()> {
    let keys: Vec<_> = connection
        .prepare(rows::KEY_ROLES)?
        .query_and_then([], |r| rows::key_role(r))?
        .collect::<StoreResult<_>>()?;
    for row in crate::directory::people_of_keys(&keys, into) {
        write(connection, &row)?;
    }
    if !into.is_global() {
        let prefix = format!("{into}/");
        for statement in rows::PLACE_ITEMS {
            connection.execute(&sql(statement), params![prefix])?;
        }
        // The names' search index holds each item's key.
        connection.execute(
            "UPDATE skills_fts_head SET name = (SELECT name FROM skills WHERE id = skills_fts_head.rowid)
             WHERE rowid IN (SELECT id FROM skills WHERE project = '')",
            [],
        )?;
    }
    for (name, _) in &keys {
        connection.execute(
            &sql(rows::KEY_USER),
            params![name, crate::directory::handle_of_key_name(name)],
        )?;
    }
    Ok(())
}

impl DirectoryTransaction for SqliteDirectory<'_> {
    async fn lock(&mut self) -> StoreResult<()> {
        // `BEGIN IMMEDIATE` took the database's write lock.
        Ok(())
    }

    async fn read(&mut self) -> StoreResult<Directory> {
        read(self.0)
    }

    async fn write(&mut self, row: &Row) -> StoreResult<()> {
        write(self.0, row)
    }

    async fn last_entry(&mut self) -> StoreResult<Option<(u64, String)>> {
        super::reads::first(
            self.0.prepare_cached(rows::LAST_ENTRY)?,
            [],
            |r| -> StoreResult<(u64, String)> {
                use crate::columns::Columns;
                Ok((r.revision(0)?, r.text(1)?))
            },
        )
    }

    async fn append(&mut self, entry: &Entry) -> StoreResult<()> {
        let action = &entry.action;
        self.0.prepare_cached(&sql(rows::APPEND))?.execute(params![
            entry.seq as i64,
            action.at,
            action.actor,
            action.action,
            action.target,
            action.before,
            action.after,
            entry.prev,
            entry.digest
        ])?;
        Ok(())
    }
}
