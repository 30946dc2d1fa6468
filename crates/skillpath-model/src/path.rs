//! The one rule for a file path inside a skill: relative, portable, and a file a skill may hold.

/// Why a path cannot be a file of a skill. The wording is what a person (or a model reading a
/// tool result) is shown.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    /// Empty, absolute, or with `\` or NUL in it.
    #[error("file path `{0}` must be a relative path with `/` separators")]
    NotRelative(String),
    /// An empty, `.` or `..` part, which could leave the folder.
    #[error("file path `{0}` must not contain empty, `.` or `..` parts")]
    BadPart(String),
    /// No file a skill may hold (core's `skill_files::not_a_skill_file`), and why.
    #[error("file path `{path}` {why}")]
    NotASkillFile {
        /// The path.
        path: String,
        /// Core's reason.
        why: String,
    },
}

/// Refuses paths that could leave the skill folder, cannot be written portably, or are no
/// file a skill may hold (core's `skill_files::not_a_skill_file`).
pub fn check_relative_path(path: &str) -> Result<(), PathError> {
    if path.is_empty() || path.starts_with('/') || path.contains('\\') || path.contains('\0') {
        return Err(PathError::NotRelative(path.to_owned()));
    }
    if path
        .split('/')
        .any(|part| part.is_empty() || part == "." || part == "..")
    {
        return Err(PathError::BadPart(path.to_owned()));
    }
    if let Some(why) = skillpath_core::skill_files::not_a_skill_file(path) {
        return Err(PathError::NotASkillFile {
            path: path.to_owned(),
            why,
        });
    }
    Ok(())
}
