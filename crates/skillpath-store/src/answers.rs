//! The shapes of the store's answers: a skill as stored, its metadata, listings, search hits
//! and what an import did. The content they hold is the model's ([`skillpath_model`]).

use skillpath_audit::AuditRecord;
use skillpath_model::{FileMetadata, Kind, Provenance, ShadowedSkill, SkillSnapshot, sha256_hex};

use crate::error::StoreError;

/// A skill as stored, at its current revision (or the revision asked for).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSkill {
    /// The name, the skill's identity in the store.
    pub name: String,
    /// The description from the frontmatter.
    pub description: String,
    /// `tool_name` from the frontmatter, when given.
    pub tool_name: Option<String>,
    /// The revision this content belongs to.
    pub revision: u64,
    /// Whether the skill is deleted (as of this revision).
    pub deleted: bool,
    /// Hash of the content.
    pub content_hash: String,
    /// Where it came from.
    pub provenance: Provenance,
    /// When the revision was made.
    pub updated_at: String,
    /// The content.
    pub snapshot: SkillSnapshot,
    /// The audit of the content when this revision was written (`None`: not audited, by a
    /// store whose policy was `off` or by a skillpath older than audits).
    pub audit: Option<AuditRecord>,
}

/// A live skill at its current revision as a server lists and chooses it: everything of a
/// [`StoredSkill`] but its body and the bytes of its files, which a server reads one skill at a
/// time (with [`crate::Store::get`] at this revision) when the skill is called or read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillMetadata {
    /// A skill or a package.
    pub kind: Kind,
    /// The name, the skill's identity in the store.
    pub name: String,
    /// The description from the frontmatter.
    pub description: String,
    /// `tool_name` from the frontmatter, when given.
    pub tool_name: Option<String>,
    /// The current revision.
    pub revision: u64,
    /// Hash of the content.
    pub content_hash: String,
    /// Where it came from.
    pub provenance: Provenance,
    /// When the revision was made.
    pub updated_at: String,
    /// The manifest (`SKILL.md` or `PACKAGE.md`) as a file: its digest and size.
    pub skill_md: FileMetadata,
    /// The start of `SKILL.md` up to the end of its frontmatter (empty when it has none;
    /// [`skillpath_core::frontmatter::head`]), which a lenient parse reads the frontmatter from.
    pub frontmatter: String,
    /// The other files, sorted by path, without their bytes.
    pub files: Vec<FileMetadata>,
    /// The audit kept with the revision ([`StoredSkill::audit`]).
    pub audit: Option<AuditRecord>,
}

impl SkillMetadata {
    /// The metadata of `skill`, as [`crate::Store::current_metadata`] reads it.
    pub fn of(skill: &StoredSkill) -> SkillMetadata {
        let SkillMdHead {
            file: skill_md,
            frontmatter,
        } = SkillMdHead::of(skill.snapshot.kind, &skill.snapshot.skill_md);
        SkillMetadata {
            kind: skill.snapshot.kind,
            name: skill.name.clone(),
            description: skill.description.clone(),
            tool_name: skill.tool_name.clone(),
            revision: skill.revision,
            content_hash: skill.content_hash.clone(),
            provenance: skill.provenance.clone(),
            updated_at: skill.updated_at.clone(),
            skill_md,
            frontmatter,
            files: skill.snapshot.files.iter().map(FileMetadata::of).collect(),
            audit: skill.audit.clone(),
        }
    }
}

/// What the store keeps of a revision's `SKILL.md` beside its text, written with the revision,
/// so that [`crate::Store::current_metadata`] reads neither bodies nor files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SkillMdHead {
    /// `SKILL.md` as a file: its digest and size.
    pub(crate) file: FileMetadata,
    /// The start of the text up to the end of its frontmatter
    /// ([`skillpath_core::frontmatter::head`]).
    pub(crate) frontmatter: String,
}

impl SkillMdHead {
    /// The head of the manifest of a `kind` whose text is `text`.
    pub(crate) fn of(kind: Kind, text: &str) -> SkillMdHead {
        SkillMdHead {
            file: FileMetadata::manifest(kind, sha256_hex(text.as_bytes()), text.len() as u64),
            frontmatter: skillpath_core::frontmatter::head(text).to_owned(),
        }
    }
}

/// A skill in a listing (no content).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SkillSummary {
    /// A skill or a package.
    pub kind: Kind,
    /// The name.
    pub name: String,
    /// The description.
    pub description: String,
    /// `tool_name`, when given.
    pub tool_name: Option<String>,
    /// The current revision.
    pub revision: u64,
    /// Whether it is deleted.
    pub deleted: bool,
    /// When it last changed.
    pub updated_at: String,
    /// Where it came from.
    pub provenance: Provenance,
}

/// Which skills a listing shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListFilter {
    /// Also list deleted skills.
    pub include_deleted: bool,
    /// Only skills, or only packages; both when `None`.
    pub kind: Option<Kind>,
    /// Only names starting with this.
    pub name_prefix: Option<String>,
}

/// A page of a listing, and the cursor of the next page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page<T> {
    /// The items, in name order.
    pub items: Vec<T>,
    /// Pass this to get the next page; `None` on the last page.
    pub next_cursor: Option<String>,
}

/// A search result.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SearchHit {
    /// A skill or a package.
    pub kind: Kind,
    /// The skill's name.
    pub name: String,
    /// Its description.
    pub description: String,
    /// Matching text with the matches between `[` and `]`.
    pub snippet: String,
    /// Relevance: higher is better.
    pub score: f64,
}

/// What an import did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct ImportReport {
    /// Skills created.
    pub created: Vec<String>,
    /// Skills with new content (one revision each).
    pub updated: Vec<String>,
    /// Skills whose content had not changed (no revision).
    pub unchanged: Vec<String>,
    /// How many of the unchanged skills were not read at all: their folder's stamp said
    /// nothing had changed since the import of their current revision.
    pub not_read: usize,
    /// Skills left out for another with the same name: an earlier item of the import, or a
    /// stored skill that takes precedence ([`crate::scopes`]).
    pub shadowed: Vec<ShadowedSkill>,
    /// Skills the audit policy refused (not written; a stored revision of theirs stays as it
    /// was), with their findings.
    pub refused: Vec<AuditedSkill>,
    /// Skills created or updated with findings, which the policy let through.
    pub flagged: Vec<AuditedSkill>,
}

impl ImportReport {
    /// Adds what another import (of other skills) did to this report, as if both were one.
    pub fn absorb(&mut self, other: ImportReport) {
        self.created.extend(other.created);
        self.updated.extend(other.updated);
        self.unchanged.extend(other.unchanged);
        self.not_read += other.not_read;
        self.shadowed.extend(other.shadowed);
        self.refused.extend(other.refused);
        self.flagged.extend(other.flagged);
    }
}

/// A skill of an import with its audit: refused by the policy, or written with findings.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct AuditedSkill {
    /// Its name.
    pub name: String,
    /// The folder it was read from; empty for one given without a folder.
    pub path: String,
    /// Its audit.
    pub audit: AuditRecord,
}

impl AuditedSkill {
    /// Where it is, for a person: its folder, or its name when it has none.
    fn place(&self) -> String {
        if self.path.is_empty() {
            format!("`{}`", self.name)
        } else {
            format!("`{}`", self.path)
        }
    }

    /// What is said of a skill `policy` refused: the sentence of
    /// [`StoreError::AuditRefused`], after its place.
    pub fn refusal(&self, policy: skillpath_audit::Policy) -> String {
        let error = StoreError::AuditRefused {
            name: self.name.clone(),
            policy,
            record: self.audit.clone(),
        };
        format!("{}: {error}", self.place())
    }

    /// What is said of a skill written with findings: their counts, the most severe one, and
    /// where to see them all.
    pub fn findings_line(&self) -> String {
        let first = self
            .audit
            .findings
            .first()
            .map_or_else(String::new, |finding| {
                format!(
                    " (the most severe: {}[{}] {}: {})",
                    finding.severity,
                    finding.rule,
                    finding.place(),
                    finding.message
                )
            });
        let audit = if self.path.is_empty() {
            format!("skillpath audit --store {}", self.name)
        } else {
            format!("skillpath audit {}", self.path)
        };
        format!(
            "{}: skill `{}` has audit findings: {}{first}; `{audit}` shows them all",
            self.place(),
            self.name,
            self.audit.summary()
        )
    }
}
