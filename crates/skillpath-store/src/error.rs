//! The store's errors, written for a person (and a model reading a tool result).

use std::fmt::{self, Write as _};

use skillpath_audit::{AuditRecord, Policy};

/// Why a store operation failed.
#[derive(Debug)]
pub enum StoreError {
    /// No skill has this name, or the skill has no such revision.
    NotFound {
        /// The name asked for.
        name: String,
        /// The revision asked for, if any.
        revision: Option<u64>,
    },
    /// A skill with this name exists already.
    AlreadyExists {
        /// The name.
        name: String,
        /// Its current revision.
        revision: u64,
        /// Whether it is deleted (restore it instead).
        deleted: bool,
    },
    /// The writer expected another revision: someone changed the skill in between.
    StaleRevision {
        /// The name.
        name: String,
        /// The revision the writer expected.
        expected: u64,
        /// The current revision.
        actual: u64,
    },
    /// No draft of this item (by this author) is kept.
    DraftNotFound {
        /// The item's name.
        name: String,
        /// The author asked for, if any.
        author: Option<String>,
    },
    /// A draft made on revision `base` (`0`: as a new item) cannot be published: the item is
    /// at revision `actual` now, published by someone else since.
    StaleDraft {
        /// The item's name.
        name: String,
        /// The draft's author.
        author: String,
        /// The revision the draft was made on.
        base: u64,
        /// The item's revision now.
        actual: u64,
    },
    /// The operation does not fit the skill's state (restoring a live skill, updating a deleted one).
    InvalidState(String),
    /// The content cannot be stored (no name, unsafe file paths).
    InvalidSkill(String),
    /// The audit policy refuses the skill: it has findings at or above the policy's severity.
    AuditRefused {
        /// The skill.
        name: String,
        /// The policy that refused it.
        policy: skillpath_audit::Policy,
        /// Its audit; the findings that refused it are those at or above the policy's severity.
        record: skillpath_audit::AuditRecord,
    },
    /// A change of people, namespaces, members or visibility that the directory's rules
    /// refuse (a name taken, a last owner removed, a namespace with items deleted); the text
    /// says why and what to do instead.
    Refused(String),
    /// A cursor that this store did not hand out.
    InvalidCursor(String),
    /// A key name or lifetime that cannot be used.
    InvalidKey(String),
    /// No active key has this name.
    KeyNotFound(String),
    /// An active key has this name already.
    KeyExists(String),
    /// A command that only reads found no database where one was asked for (it creates none).
    NoDatabase(std::path::PathBuf),
    /// The SQLite file this store opened was deleted or replaced while it was open: a write
    /// would go where nobody can read it again.
    DatabaseReplaced(std::path::PathBuf),
    /// Reading or writing files failed. The message ends with the system's reason (a symlink
    /// loop, a missing permission), which is often the only clue to the fix.
    Io {
        /// What was being done, with the path.
        context: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The database failed: what it said, and the driver's error behind it (the
    /// [`source`](std::error::Error::source) of this error).
    Database(DatabaseError),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::NotFound {
                name,
                revision: Some(revision),
            } => write!(f, "skill `{name}` has no revision {revision}"),
            StoreError::NotFound {
                name,
                revision: None,
            } => write!(f, "no skill named `{name}`"),
            StoreError::AlreadyExists {
                name,
                revision,
                deleted,
            } => write!(
                f,
                "a skill named `{name}` exists already (revision {revision}{})",
                if *deleted { ", deleted" } else { "" }
            ),
            StoreError::StaleRevision {
                name,
                expected,
                actual,
            } => write!(
                f,
                "skill `{name}` is at revision {actual}, not {expected}: it was changed since you read it"
            ),
            StoreError::DraftNotFound { name, author } => match author {
                Some(author) => write!(f, "no draft of `{name}` by `{author}`"),
                None => write!(f, "no draft of `{name}`"),
            },
            StoreError::StaleDraft {
                name,
                author,
                base: 0,
                actual,
            } => write!(
                f,
                "the draft of `{name}` by `{author}` was made as a new item, and `{name}` was published since (revision {actual}): the author should make the draft again on revision {actual}"
            ),
            StoreError::StaleDraft {
                name,
                author,
                base,
                actual,
            } => write!(
                f,
                "the draft of `{name}` by `{author}` was made on revision {base}, and revision {actual} was published since: the author should make the draft again on revision {actual}"
            ),
            StoreError::InvalidState(text)
            | StoreError::Refused(text)
            | StoreError::InvalidSkill(text)
            | StoreError::InvalidKey(text) => f.write_str(text),
            StoreError::AuditRefused {
                name,
                policy,
                record,
            } => write_refusal(f, name, *policy, record),
            StoreError::InvalidCursor(cursor) => write!(
                f,
                "the cursor `{cursor}` is not valid; start again without one"
            ),
            StoreError::KeyNotFound(name) => write!(f, "no active API key named `{name}`"),
            StoreError::KeyExists(name) => {
                write!(f, "an active API key named `{name}` exists already")
            }
            StoreError::NoDatabase(path) => write!(
                f,
                "there is no database at `{}` yet, so nothing is stored there",
                path.display()
            ),
            StoreError::DatabaseReplaced(path) => write!(
                f,
                "the database file `{}` was deleted or replaced while this process had it open; writes are refused so that none is lost",
                path.display()
            ),
            StoreError::Io { context, source } => write!(f, "{context}: {source}"),
            StoreError::Database(error) => write!(f, "the database failed: {}", error.message),
        }
    }
}

impl std::error::Error for StoreError {
    /// The system's error behind an [`StoreError::Io`], the driver's behind a
    /// [`StoreError::Database`] (SQLite's, PostgreSQL's or the connection pool's) when the
    /// failure came from one.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::Io { source, .. } => Some(source),
            StoreError::Database(error) => error
                .cause
                .as_deref()
                .map(|cause| cause as &(dyn std::error::Error + 'static)),
            _ => None,
        }
    }
}

/// The most findings a refusal names; the rest are counted.
const REFUSAL_FINDINGS: usize = 10;

/// The sentence of [`StoreError::AuditRefused`]: the policy, the findings that refuse the
/// skill (the first [`REFUSAL_FINDINGS`]), and what to do.
fn write_refusal(
    f: &mut fmt::Formatter<'_>,
    name: &str,
    policy: Policy,
    record: &AuditRecord,
) -> fmt::Result {
    let refusing = policy.refusing(record);
    let threshold = policy.threshold().map_or("", |s| s.as_str());
    write!(
        f,
        "skill `{name}` is refused by the audit policy `{policy}`: {} at or above {threshold} ({})",
        match refusing.len() {
            1 => "1 finding".to_owned(),
            n => format!("{n} findings"),
        },
        record.summary(),
    )?;
    let mut listed = String::new();
    for finding in refusing.iter().take(REFUSAL_FINDINGS) {
        let _ = write!(
            listed,
            "; {}[{}] {}: {}",
            finding.severity,
            finding.rule,
            finding.place(),
            finding.message
        );
    }
    f.write_str(&listed)?;
    if refusing.len() > REFUSAL_FINDINGS {
        write!(f, "; and {} more", refusing.len() - REFUSAL_FINDINGS)?;
    }
    f.write_str(
        ". Fix what they name (`skillpath audit` on the folder says why each matters and how), or have whoever runs this store review the skill and write it with a policy that allows it",
    )
}

/// A database failure: the sentence shown, and the driver's error it came from, if any, kept
/// so that a caller can tell causes apart ([`std::error::Error::source`] of [`StoreError`]).
#[derive(Debug)]
pub struct DatabaseError {
    message: String,
    cause: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

impl DatabaseError {
    /// A failure the store itself noticed, with no driver error behind it.
    pub fn new(message: impl Into<String>) -> DatabaseError {
        DatabaseError {
            message: message.into(),
            cause: None,
        }
    }

    /// A failure the driver reported as `cause`, said as `message`.
    pub fn caused_by(
        message: impl Into<String>,
        cause: impl std::error::Error + Send + Sync + 'static,
    ) -> DatabaseError {
        DatabaseError {
            message: message.into(),
            cause: Some(Box::new(cause)),
        }
    }

    /// The sentence shown, without the store's "the database failed: ".
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The same failure with `prefix` before its sentence (where it happened), its cause kept.
    pub fn prefixed(self, prefix: &str) -> DatabaseError {
        DatabaseError {
            message: format!("{prefix}{}", self.message),
            ..self
        }
    }
}

impl From<String> for DatabaseError {
    fn from(message: String) -> DatabaseError {
        DatabaseError::new(message)
    }
}

impl From<&str> for DatabaseError {
    fn from(message: &str) -> DatabaseError {
        DatabaseError::new(message)
    }
}

impl std::fmt::Display for DatabaseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Content that cannot make a snapshot cannot be stored.
impl From<skillpath_model::SnapshotError> for StoreError {
    fn from(error: skillpath_model::SnapshotError) -> StoreError {
        StoreError::InvalidSkill(error.to_string())
    }
}

/// A file path a skill may not hold cannot be stored.
impl From<skillpath_model::PathError> for StoreError {
    fn from(error: skillpath_model::PathError) -> StoreError {
        StoreError::InvalidSkill(error.to_string())
    }
}

/// A folder's failure as the store's commands report it: a file the system refused, content
/// that cannot be a skill, or a folder an export may not replace.
impl From<skillpath_folders::FolderError> for StoreError {
    fn from(error: skillpath_folders::FolderError) -> StoreError {
        use skillpath_folders::FolderError;
        match error {
            FolderError::Io { context, source } => StoreError::Io { context, source },
            FolderError::Unloadable(_) | FolderError::Path(_) => {
                StoreError::InvalidSkill(error.to_string())
            }
            FolderError::ExportRefused(refusal) => StoreError::InvalidState(refusal),
        }
    }
}

impl StoreError {
    /// A database failure the store noticed itself, with no driver error behind it.
    pub fn database(message: impl Into<String>) -> StoreError {
        StoreError::Database(DatabaseError::new(message))
    }

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
            StoreError::DraftNotFound { .. } => {
                Some("list the drafts with `skillpath review`".to_owned())
            }
            StoreError::StaleDraft { name, author, .. } => Some(format!(
                "reject it so that its author makes it again: `skillpath reject {name} --by {author} --message \"made on an old revision\"`"
            )),
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
        let message = if cannot_write {
            format!(
                "{error}: SQLite could not write the database or the `-wal` and `-shm` files beside it; the disk may be full (or a file size limit reached): free space, or give another path with --db"
            )
        } else {
            error.to_string()
        };
        StoreError::Database(DatabaseError::caused_by(message, error))
    }
}

/// Results of store operations.
pub type StoreResult<T> = Result<T, StoreError>;

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    #[test]
    fn a_database_error_keeps_the_drivers_error_as_its_source() {
        let driver = rusqlite::Error::InvalidQuery;
        let text = driver.to_string();
        let error = StoreError::from(driver);
        assert_eq!(error.to_string(), format!("the database failed: {text}"));
        let source = error.source().expect("the driver's error");
        assert!(
            source.downcast_ref::<rusqlite::Error>().is_some(),
            "{source:?}"
        );
        assert!(StoreError::database("no cause").source().is_none());
    }

    #[test]
    fn a_prefixed_database_error_keeps_its_cause() {
        let StoreError::Database(error) = StoreError::from(rusqlite::Error::InvalidQuery) else {
            panic!("a database error");
        };
        let error = StoreError::Database(error.prefixed("`a.db`: "));
        assert!(
            error
                .to_string()
                .starts_with("the database failed: `a.db`: ")
        );
        assert!(error.source().is_some());
    }
}
