//! The store's errors, written for a person (and a model reading a tool result).

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// No skill has this name, or the skill has no such revision.
    #[error("{}", match revision {
        Some(revision) => format!("skill `{name}` has no revision {revision}"),
        None => format!("no skill named `{name}`"),
    })]
    NotFound {
        /// The name asked for.
        name: String,
        /// The revision asked for, if any.
        revision: Option<u64>,
    },
    /// A skill with this name exists already.
    #[error("a skill named `{name}` exists already (revision {revision}{})", if *deleted { ", deleted" } else { "" })]
    AlreadyExists {
        /// The name.
        name: String,
        /// Its current revision.
        revision: u64,
        /// Whether it is deleted (restore it instead).
        deleted: bool,
    },
    /// The writer expected another revision: someone changed the skill in between.
    #[error(
        "skill `{name}` is at revision {actual}, not {expected}: it was changed since you read it"
    )]
    StaleRevision {
        /// The name.
        name: String,
        /// The revision the writer expected.
        expected: u64,
        /// The current revision.
        actual: u64,
    },
    /// The operation does not fit the skill's state (restoring a live skill, updating a deleted one).
    #[error("{0}")]
    InvalidState(String),
    /// The content cannot be stored (no name, unsafe file paths).
    #[error("{0}")]
    InvalidSkill(String),
    /// A cursor that this store did not hand out.
    #[error("the cursor `{0}` is not valid; start again without one")]
    InvalidCursor(String),
    /// A key name or lifetime that cannot be used.
    #[error("{0}")]
    InvalidKey(String),
    /// No active key has this name.
    #[error("no active API key named `{0}`")]
    KeyNotFound(String),
    /// An active key has this name already.
    #[error("an active API key named `{0}` exists already")]
    KeyExists(String),
    /// A command that only reads found no database where one was asked for (it creates none).
    #[error("there is no database at `{}` yet, so nothing is stored there", .0.display())]
    NoDatabase(std::path::PathBuf),
    /// The SQLite file this store opened was deleted or replaced while it was open: a write
    /// would go where nobody can read it again.
    #[error("the database file `{}` was deleted or replaced while this process had it open; writes are refused so that none is lost", .0.display())]
    DatabaseReplaced(std::path::PathBuf),
    /// Reading or writing files failed. The message ends with the system's reason (a symlink
    /// loop, a missing permission), which is often the only clue to the fix.
    #[error("{context}: {source}")]
    Io {
        /// What was being done, with the path.
        context: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The database failed.
    #[error("the database failed: {0}")]
    Database(String),
}

impl StoreError {
    /// A fix to suggest, where there is one.
    pub fn hint(&self) -> Option<String> {
        match self {
            StoreError::StaleRevision { name, actual, .. } => Some(format!(
                "read revision {actual} of `{name}` (`skillpath show {name}`), apply your change to it, and write again with that revision"
            )),
            StoreError::AlreadyExists {
                name,
                deleted: true,
                ..
            } => Some(format!("restore it with `skillpath restore {name}`")),
            StoreError::AlreadyExists { .. } => {
                Some("update it instead, giving the revision you read".to_owned())
            }
            StoreError::NotFound {
                name,
                revision: Some(_),
            } => Some(format!("see its revisions with `skillpath history {name}`")),
            StoreError::NotFound { .. } => Some("list the skills with `skillpath list`".to_owned()),
            StoreError::KeyNotFound(_) => {
                Some("list the keys with `skillpath keys list`".to_owned())
            }
            StoreError::NoDatabase(_) => Some(
                "`skillpath import DIR` stores skills (and makes the database); `--db` or SKILLPATH_DB chooses another".to_owned(),
            ),
            StoreError::DatabaseReplaced(_) => Some(
                "restart the server (or the command) so that it opens the database now at that path".to_owned(),
            ),
            StoreError::KeyExists(name) => Some(format!(
                "choose another name, or revoke the old key first with `skillpath keys revoke {name}`"
            )),
            _ => None,
        }
    }
}

impl From<rusqlite::Error> for StoreError {
    /// SQLite's own words, and where they mean that nothing can be written (`database or disk
    /// is full`, or a `disk I/O error` such as failing to make the `-wal` or `-shm` file next
    /// to the database), what to do.
    fn from(error: rusqlite::Error) -> Self {
        let cannot_write = matches!(
            error.sqlite_error_code(),
            Some(rusqlite::ErrorCode::DiskFull | rusqlite::ErrorCode::SystemIoFailure)
        );
        StoreError::Database(if cannot_write {
            format!(
                "{error}: SQLite could not write the database or the `-wal` and `-shm` files beside it; the disk may be full (or a file size limit reached): free space, or give another path with --db"
            )
        } else {
            error.to_string()
        })
    }
}

/// Results of store operations.
pub type StoreResult<T> = Result<T, StoreError>;
