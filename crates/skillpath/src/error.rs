//! The binary's own error: why a command that works on the store failed, said as it is
//! printed (`error: …` and `  = hint: …`) and with the exit status it ends with. The store's
//! errors are one cause among others; writing the output and making JSON are the binary's.
//! The application's errors ([`AppError`]) are said as they are: the store's under them exactly
//! as the store's own, its own refusals with the exit status of a refusal (1).

use skillpath_app::AppError;
use skillpath_store::StoreError;

use crate::output::ExitStatus;

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CliError {
    /// What the store refused, or could not do.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// What the application refused before the store was asked (a role, a read-only server):
    /// its text says what to do. Never the store's error, which is [`CliError::Store`]
    /// (`From<AppError>`).
    #[error(transparent)]
    App(AppError),
    /// The output (stdout, stderr) could not be written.
    #[error("cannot write the output: {0}")]
    Output(#[source] std::io::Error),
    /// An answer could not be made JSON. Said as a failure of the database, as it always was:
    /// every value made JSON here came from the store.
    #[error("the database failed: {0}")]
    Json(#[source] serde_json::Error),
}

impl CliError {
    /// What to do about it, when there is something to say.
    pub(crate) fn hint(&self) -> Option<String> {
        match self {
            CliError::Store(error) => error.hint(),
            CliError::App(_) | CliError::Output(_) | CliError::Json(_) => None,
        }
    }

    /// The exit status of a command that failed so: the store's rule for its errors
    /// ([`store_exit_status`]), 1 for what the application refused; 2 when the output cannot be
    /// written or made.
    pub(crate) fn exit_status(&self) -> ExitStatus {
        match self {
            CliError::Store(error) => store_exit_status(error),
            CliError::App(_) => ExitStatus::Invalid,
            CliError::Output(_) | CliError::Json(_) => ExitStatus::UsageOrInternal,
        }
    }
}

/// An operation's error: the store's as the store's (its text, hint and exit status as every
/// command has always said them), any other as the application's refusal.
impl From<AppError> for CliError {
    fn from(error: AppError) -> Self {
        match error {
            AppError::Store(error) => CliError::Store(error),
            error => CliError::App(error),
        }
    }
}

/// The exit status of a command that failed with `error`, the same for every command that
/// uses the store (`serve` too): 2 when the database cannot be used (it cannot be reached, does
/// not answer, does not exist, was replaced) or the input is malformed; 1 when the store
/// refused what was asked (a stale revision, a name not found, content it cannot keep).
pub(crate) fn store_exit_status(error: &StoreError) -> ExitStatus {
    match error {
        StoreError::Database(_)
        | StoreError::Io { .. }
        | StoreError::InvalidCursor(_)
        | StoreError::NoDatabase(_)
        | StoreError::DatabaseReplaced(_) => ExitStatus::UsageOrInternal,
        _ => ExitStatus::Invalid,
    }
}
