//! The verdict on one skill: what `validate` returns and every front end reads.
//!
//! Its own module, with nothing of the rules, so that the parts `validate` calls (packages, for
//! one) can make a report without importing the validator back.

use std::path::PathBuf;

use crate::diagnostic::{Diagnostic, Severity};
use crate::skill_md::SkillMd;

/// The verdict on one skill.
#[derive(Debug, Clone)]
pub struct Report {
    /// The folder as the user named it (a bundle's display path).
    pub path: PathBuf,
    /// The parsed `SKILL.md`, when there was one to read.
    pub skill_md: Option<SkillMd>,
    /// Everything found, errors and warnings.
    pub diagnostics: Vec<Diagnostic>,
}

impl Report {
    /// Whether the skill has no errors.
    pub fn is_valid(&self) -> bool {
        !self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// How many diagnostics have `severity`.
    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    }

    /// The skill's `name` as written, when it is a string.
    pub fn name(&self) -> Option<&str> {
        self.text_field("name")
    }

    /// The skill's `description` as written, when it is a string.
    pub fn description(&self) -> Option<&str> {
        self.text_field("description")
    }

    /// The text of a scalar frontmatter field.
    pub fn text_field(&self, key: &str) -> Option<&str> {
        self.skill_md.as_ref()?.text_field(key)
    }

    /// Where the skill's `SKILL.md` is, absolute when the path can be resolved.
    pub fn location(&self) -> Option<PathBuf> {
        let path = &self.skill_md.as_ref()?.file.path;
        Some(path.canonicalize().unwrap_or_else(|_| path.clone()))
    }
}
