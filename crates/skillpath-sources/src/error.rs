//! The one error of sources, locks and folders: a sentence for a person, and what to do.

/// What went wrong, said so that a person can act on it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SourceError {
    /// What went wrong, naming the source, file or folder.
    pub message: String,
    /// What to do about it, when there is something to say.
    pub hint: Option<String>,
}

impl SourceError {
    /// An error without a hint.
    pub fn new(message: impl Into<String>) -> SourceError {
        SourceError {
            message: message.into(),
            hint: None,
        }
    }

    /// The error with `hint`.
    #[must_use]
    pub fn hint(mut self, hint: impl Into<String>) -> SourceError {
        self.hint = Some(hint.into());
        self
    }

    /// An I/O error on `path`, in words.
    pub fn io(what: &str, path: &std::path::Path, error: &std::io::Error) -> SourceError {
        SourceError::new(format!("cannot {what} `{}`: {error}", path.display()))
    }
}
