//! Where the database is: `--db PATH|URL`, `SKILLPATH_DB`, or the platform data directory.

use std::path::PathBuf;

use crate::error::{StoreError, StoreResult};
#[cfg(feature = "postgres")]
use crate::postgres::PostgresStore;
use crate::schema::{Upgrade, Upgraded};
use crate::scopes::ProjectView;
use crate::sqlite::SqliteStore;
use crate::store::Store;

/// The environment variable that names the database (a path, `sqlite://PATH`, or a `postgres://` URL).
pub const DATABASE_ENV: &str = "SKILLPATH_DB";

/// The default database file: `skillpath/skillpath.db` in the platform's data directory
/// (`$XDG_DATA_HOME` or `~/.local/share` on Linux, `~/Library/Application Support` on macOS,
/// `%APPDATA%` on Windows).
pub fn default_database_path() -> Option<PathBuf> {
    let env = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let base = if cfg!(target_os = "macos") {
        env("HOME").map(|home| home.join("Library/Application Support"))
    } else if cfg!(windows) {
        env("APPDATA")
    } else {
        env("XDG_DATA_HOME").or_else(|| env("HOME").map(|home| home.join(".local/share")))
    };
    base.map(|base| base.join("skillpath").join("skillpath.db"))
}

/// What a `--db` value names.
enum Target<'a> {
    Postgres(&'a str),
    Sqlite(PathBuf),
}

/// What `database` names: a PostgreSQL URL, or an SQLite file (given, or the default one).
fn target(database: Option<&str>) -> StoreResult<Target<'_>> {
    match database {
        Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
            Ok(Target::Postgres(url))
        }
        Some(url) if url.contains("://") && !url.starts_with("sqlite://") => {
            Err(StoreError::database(format!(
                "`{url}` is not a database this build knows; give a file path, `sqlite://PATH` or `postgres://…`"
            )))
        }
        Some(url) => Ok(Target::Sqlite(PathBuf::from(
            url.strip_prefix("sqlite://").unwrap_or(url),
        ))),
        None => default_database_path().map(Target::Sqlite).ok_or_else(|| {
            StoreError::database(format!(
                "no home directory to put the database in; set {DATABASE_ENV} or pass --db"
            ))
        }),
    }
}

/// Opens the store `database` names (a file path, `sqlite://PATH`, or `postgres://…` /
/// `postgresql://…`), or the default SQLite file, showing the shared skills and those of the
/// projects of `view`. Async because opening PostgreSQL connects and migrates over the network.
pub async fn open(database: Option<&str>, view: &ProjectView) -> StoreResult<Box<dyn Store>> {
    open_upgrading(database, view, &Upgrade::default())
        .await
        .map(|(store, _)| store)
}

/// [`open_existing`] as `skillpath upgrade` does it: the schema brought up to date as `upgrade`
/// says (a store made before namespaces has its items placed in `upgrade`'s namespace); the
/// store, seen as every project's, and what the upgrade did.
pub async fn upgrade(
    database: Option<&str>,
    upgrade: &Upgrade,
) -> StoreResult<(Box<dyn Store>, Upgraded)> {
    refuse_missing(database)?;
    open_upgrading(database, &ProjectView::shared(), upgrade).await
}

/// [`open`], bringing the schema up to date as `upgrade` says.
async fn open_upgrading(
    database: Option<&str>,
    view: &ProjectView,
    upgrade: &Upgrade,
) -> StoreResult<(Box<dyn Store>, Upgraded)> {
    Ok(match target(database)? {
        Target::Postgres(url) => postgres(url, view, upgrade).await?,
        Target::Sqlite(path) => {
            let new = !path.exists();
            match SqliteStore::open_upgrading(&path, view, upgrade) {
                Ok((store, upgraded)) => (Box::new(store), upgraded),
                Err(error) => {
                    // A database this call made, and could not set up (a full disk), is
                    // taken away again rather than left behind empty.
                    if new {
                        for suffix in ["", "-wal", "-shm", "-journal"] {
                            let mut file = path.clone().into_os_string();
                            file.push(suffix);
                            let _ = std::fs::remove_file(file);
                        }
                    }
                    return Err(in_file(&path, error));
                }
            }
        }
    })
}

/// The PostgreSQL store at `url`.
#[cfg(feature = "postgres")]
async fn postgres(
    url: &str,
    view: &ProjectView,
    upgrade: &Upgrade,
) -> StoreResult<(Box<dyn Store>, Upgraded)> {
    let (store, upgraded) = PostgresStore::open_upgrading(url, view, upgrade).await?;
    Ok((Box::new(store), upgraded))
}

/// A build without the `postgres` feature has no PostgreSQL backend: the URL is refused.
#[cfg(not(feature = "postgres"))]
async fn postgres(
    url: &str,
    _view: &ProjectView,
    _upgrade: &Upgrade,
) -> StoreResult<(Box<dyn Store>, Upgraded)> {
    Err(StoreError::database(format!(
        "`{url}` names a PostgreSQL database, and this build of skillpath was made without PostgreSQL support (the `postgres` feature); give a file path or `sqlite://PATH`, or use a build with it"
    )))
}

/// `error` of opening the SQLite file `path`, naming the file.
fn in_file(path: &std::path::Path, error: StoreError) -> StoreError {
    match error {
        StoreError::Database(error) => {
            StoreError::Database(error.prefixed(&format!("`{}`: ", path.display())))
        }
        other => other,
    }
}

/// [`open`] for commands that must not create a database: an SQLite file that does not exist
/// yet is [`StoreError::NoDatabase`].
pub async fn open_existing(
    database: Option<&str>,
    view: &ProjectView,
) -> StoreResult<Box<dyn Store>> {
    refuse_missing(database)?;
    open(database, view).await
}

/// [`StoreError::NoDatabase`] for an SQLite file that does not exist yet.
fn refuse_missing(database: Option<&str>) -> StoreResult<()> {
    if let Target::Sqlite(path) = target(database)?
        && !path.exists()
    {
        return Err(StoreError::NoDatabase(path));
    }
    Ok(())
}
