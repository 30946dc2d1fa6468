//! Why a skill folder cannot be read or written, in the words a person is shown.

use skillpath_model::PathError;

/// Why reading or writing a skill folder failed.
#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    /// Reading or writing files failed. The message ends with the system's reason (a symlink
    /// loop, a missing permission), which is often the only clue to the fix.
    #[error("{context}: {source}")]
    Io {
        /// What was being done, with the path.
        context: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The folder cannot be loaded as a skill: the first error's message.
    #[error("{0}")]
    Unloadable(String),
    /// A path to write is not one a skill may hold.
    #[error(transparent)]
    Path(#[from] PathError),
    /// The folder cannot receive an export ([`crate::folder::export_refusal`] says why).
    #[error("{0}")]
    ExportRefused(String),
}
