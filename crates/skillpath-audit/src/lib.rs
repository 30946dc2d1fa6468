//! The auditor: what a skill hides before an agent follows it. It reads a skill as files in
//! memory ([`SkillBundle`](skillpath_core::bundle::SkillBundle)), so a folder, a stored revision and an MCP payload are audited
//! alike, and reports findings of [`Rule`]s, each with a stable ID, a severity, its place, why
//! it matters and the fix. Secrets are reported by kind and place, never echoed.
//!
//! The auditor reads hostile files: every rule matches in linear time (the `regex` crate has no
//! backtracking), each file is read up to [`MAX_SCANNED_BYTES`], a skill up to
//! [`MAX_SKILL_BYTES`] and [`MAX_FILES`] files, and each rule reports at most
//! [`MAX_FINDINGS_PER_RULE`] findings per file (and says how many more it saw). Limits that cut
//! an audit short are said in [`SkillAudit::notes`].

/// A pattern compiled once, on first use ([`text::pattern`]).
macro_rules! lazy_regex {
    ($pattern:expr) => {
        std::sync::LazyLock::new(|| crate::text::pattern($pattern))
    };
}

mod confusables;
mod files;
mod fingerprint;
mod frontmatter;
mod hidden;
mod record;
pub mod render;
mod rules;
mod scan;
mod secrets;
mod shell;
mod steering;
mod text;

use std::collections::BTreeMap;
use std::path::PathBuf;

use skillpath_core::{Location, SourceFile};

pub use fingerprint::{Baseline, BaselineError};
pub use record::{AuditRecord, Policy, RecordedFinding, UnreadableRecord};
pub use rules::{Rule, Severity};
pub use scan::{audit, skill_name};

/// The most bytes of one file the text rules read.
pub const MAX_SCANNED_BYTES: usize = 4 * 1024 * 1024;
/// The most bytes of one skill the text rules read, over all its files.
pub const MAX_SKILL_BYTES: usize = 64 * 1024 * 1024;
/// The most files of one skill that are audited.
pub const MAX_FILES: usize = 100_000;
/// The most findings of one rule reported in one file; the rest are counted.
pub const MAX_FINDINGS_PER_RULE: usize = 20;

/// What the auditor knows beside the skill: the names of the other skills (in the store, or
/// audited with it), whose look-alikes it reports ([`Context::new`]).
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// The known names by their skeleton (what they look like).
    skeletons: std::collections::HashMap<String, Vec<String>>,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The rule.
    pub rule: Rule,
    /// What was found, specifically (never a secret's value).
    pub message: String,
    /// The file, by its path in the skill (`SKILL.md`, `scripts/install.sh`).
    pub file: String,
    /// Where in the file, when the finding has a place: the file as the user named it, the
    /// byte range and its line and column.
    pub location: Option<Location>,
    /// A stable identity, for baselines: the same finding in the same skill and file keeps it
    /// when lines move (see `fingerprint`).
    pub fingerprint: String,
}

impl Finding {
    /// The rule's severity.
    pub fn severity(&self) -> Severity {
        self.rule.severity()
    }
}

/// The audit of one skill.
#[derive(Debug, Clone)]
pub struct SkillAudit {
    /// Where the skill is, as the user named it (or its name, for a stored skill).
    pub path: PathBuf,
    /// Its `name`, when its frontmatter has one.
    pub name: Option<String>,
    /// Every file with findings, by path in the skill, with the SHA-256 (hex) and size of its
    /// bytes (SARIF's artifacts, by which reports of several scanners are merged).
    pub files: BTreeMap<String, (String, u64)>,
    /// The findings, by file and position.
    pub findings: Vec<Finding>,
    /// The text of each file with findings (secrets masked), for snippets.
    pub sources: BTreeMap<String, SourceFile>,
    /// What the audit could not read in full (a limit reached), said to the user.
    pub notes: Vec<String>,
}

impl SkillAudit {
    /// How many findings have `severity`.
    pub fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity() == severity)
            .count()
    }

    /// The highest severity among the findings.
    pub fn highest(&self) -> Option<Severity> {
        self.findings.iter().map(Finding::severity).max()
    }

    /// Leaves out the findings `baseline` knows; returns how many.
    pub fn suppress(&mut self, baseline: &Baseline) -> usize {
        let before = self.findings.len();
        self.findings
            .retain(|finding| !baseline.contains(&finding.fingerprint));
        before - self.findings.len()
    }
}
