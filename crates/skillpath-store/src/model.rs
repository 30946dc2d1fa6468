//! What the store keeps: skill contents, revisions, provenance, and the shapes of answers.

use sha2::{Digest, Sha256};
use skillpath_audit::AuditRecord;
use skillpath_core::bundle::SkillBundle;

use crate::error::{DatabaseError, StoreError, StoreResult};
use crate::hex;

/// What a stored item is: a skill, or an architecture package
/// ([`skillpath_core::package`]). Both are kept alike (revisions, history, search, audit),
/// under one name per project: a name is a skill's or a package's, never both. An item's kind
/// is fixed when it is created.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A skill: its manifest is `SKILL.md`.
    #[default]
    Skill,
    /// An architecture package: its manifest is `PACKAGE.md`, its files are the package's
    /// documentation pages and whatever else its folder holds besides its member skills.
    Package,
}

impl Kind {
    /// The lowercase name stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Skill => "skill",
            Kind::Package => "package",
        }
    }

    /// The kind a stored name stands for; an unknown one (written by a newer skillpath) is
    /// `None`.
    pub fn parse(text: &str) -> Option<Kind> {
        [Kind::Skill, Kind::Package]
            .into_iter()
            .find(|kind| kind.as_str() == text)
    }

    /// The manifest's file name: `SKILL.md` or `PACKAGE.md`.
    pub fn manifest(self) -> &'static str {
        match self {
            Kind::Skill => "SKILL.md",
            Kind::Package => skillpath_core::package::MANIFEST,
        }
    }
}

/// The content of a skill (or a package): its manifest and every other file, as they are on
/// disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillSnapshot {
    /// Whether this is a skill's content or a package's.
    pub kind: Kind,
    /// The text of the manifest (`SKILL.md`, or a package's `PACKAGE.md`), byte for byte.
    pub skill_md: String,
    /// The other files, sorted by path, paths relative with `/` separators.
    pub files: Vec<SkillFile>,
}

/// One file of a skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillFile {
    /// Path relative to the skill folder, `/`-separated, never leaving the folder.
    pub path: String,
    /// The file's bytes.
    pub bytes: Vec<u8>,
}

impl SkillFile {
    /// The `sha256:<hex>` digest of the bytes.
    pub fn sha256(&self) -> String {
        sha256_hex(&self.bytes)
    }
}

/// `sha256:` and the lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(&Sha256::digest(bytes)))
}

impl SkillSnapshot {
    /// A skill's snapshot with files sorted by path, checking that paths are safe and unique.
    pub fn new(skill_md: String, files: Vec<SkillFile>) -> Result<SkillSnapshot, StoreError> {
        SkillSnapshot::of_kind(Kind::Skill, skill_md, files)
    }

    /// [`SkillSnapshot::new`] of a package: its `PACKAGE.md` and its other files.
    pub fn package(manifest: String, files: Vec<SkillFile>) -> Result<SkillSnapshot, StoreError> {
        SkillSnapshot::of_kind(Kind::Package, manifest, files)
    }

    /// [`SkillSnapshot::new`] of either kind.
    pub fn of_kind(
        kind: Kind,
        skill_md: String,
        mut files: Vec<SkillFile>,
    ) -> Result<SkillSnapshot, StoreError> {
        files.sort_by(|a, b| a.path.cmp(&b.path));
        for pair in files.windows(2) {
            if pair[0].path == pair[1].path {
                return Err(StoreError::InvalidSkill(format!(
                    "the file `{}` is given twice",
                    pair[0].path
                )));
            }
        }
        for file in &files {
            check_relative_path(&file.path)?;
        }
        if kind == Kind::Package && files.iter().any(|file| file.path == "SKILL.md") {
            return Err(StoreError::InvalidSkill(
                "a package's files cannot hold a `SKILL.md`: its skills are stored as skills of their own"
                    .to_owned(),
            ));
        }
        Ok(SkillSnapshot {
            kind,
            skill_md,
            files,
        })
    }

    /// One hash for the whole content: the manifest (by its file name, so a skill and a
    /// package never hash alike) and every file with its path. Equal content, equal hash;
    /// this is how an unchanged re-import is recognised.
    pub fn content_hash(&self) -> String {
        let mut hasher = Sha256::new();
        hasher.update(self.kind.manifest().as_bytes());
        hasher.update(b"\0");
        hasher.update((self.skill_md.len() as u64).to_le_bytes());
        hasher.update(self.skill_md.as_bytes());
        for file in &self.files {
            hasher.update(file.path.as_bytes());
            hasher.update(b"\0");
            hasher.update((file.bytes.len() as u64).to_le_bytes());
            hasher.update(&file.bytes);
        }
        format!("sha256:{}", hex::encode(&hasher.finalize()))
    }

    /// The snapshot as core's skill in memory, in a folder named `name` (its nominal path), so
    /// that a stored revision can be validated, rendered or audited like a folder.
    pub fn to_bundle(&self, name: &str) -> SkillBundle {
        SkillBundle::named(
            name,
            self.skill_md.as_bytes(),
            self.files
                .iter()
                .map(|file| (file.path.clone(), file.bytes.clone())),
        )
    }

    /// Total size in bytes of `SKILL.md` and the files.
    pub fn size(&self) -> u64 {
        self.skill_md.len() as u64 + self.files.iter().map(|f| f.bytes.len() as u64).sum::<u64>()
    }
}

/// Refuses paths that could leave the skill folder, cannot be written portably, or are no
/// file a skill may hold (core's `skill_files::not_a_skill_file`).
pub fn check_relative_path(path: &str) -> Result<(), StoreError> {
    let invalid = |why: &str| {
        Err(StoreError::InvalidSkill(format!(
            "file path `{path}` {why}"
        )))
    };
    if path.is_empty() || path.starts_with('/') || path.contains('\\') || path.contains('\0') {
        return invalid("must be a relative path with `/` separators");
    }
    if path
        .split('/')
        .any(|part| part.is_empty() || part == "." || part == "..")
    {
        return invalid("must not contain empty, `.` or `..` parts");
    }
    if let Some(why) = skillpath_core::skill_files::not_a_skill_file(path) {
        return invalid(&why);
    }
    Ok(())
}

/// Where a skill came from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Provenance {
    /// Imported from a folder on disk.
    Imported {
        /// The skill's folder, as given to the import.
        path: String,
        /// The import root or discovery location it was found under.
        root: String,
        /// `project`, `user` or `folder` (imported by name).
        scope: String,
    },
    /// Created through the API (an MCP tool or a CLI command).
    Api,
    /// Copied from another item under a new name ([`crate::Store::fork`]), so that a team can
    /// adapt it and still know what it adapted.
    Forked {
        /// The item it was copied from.
        from: String,
        /// The revision of that item it was copied at.
        revision: u64,
    },
}

impl Provenance {
    /// The skill folder it was imported from; empty for a skill created through the API.
    pub fn folder(&self) -> &str {
        match self {
            Provenance::Imported { path, .. } => path,
            Provenance::Api | Provenance::Forked { .. } => "",
        }
    }

    /// The provenance as both backends keep it in a column: JSON.
    pub(crate) fn to_stored(&self) -> StoreResult<String> {
        serde_json::to_string(self)
            .map_err(|e| StoreError::Database(DatabaseError::caused_by(e.to_string(), e)))
    }

    /// A provenance as [`Provenance::to_stored`] wrote it.
    pub(crate) fn from_stored(text: &str) -> StoreResult<Provenance> {
        serde_json::from_str(text).map_err(|e| {
            StoreError::Database(DatabaseError::caused_by(
                format!("a stored provenance is not valid: {e}"),
                e,
            ))
        })
    }

    /// A provenance in a listing: one that cannot be read is shown as [`Provenance::Api`]
    /// (an empty folder) rather than failing the whole page.
    pub(crate) fn listed(text: &str) -> Provenance {
        serde_json::from_str(text).unwrap_or(Provenance::Api)
    }
}

/// Who made a change, and why.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Change {
    /// A user, an API key's name, or `import`.
    pub author: String,
    /// What the change is for.
    pub message: String,
}

/// What a revision did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Operation {
    /// The first revision.
    Create,
    /// New content.
    Update,
    /// The skill was deleted (its content stays in history).
    Delete,
    /// A deleted skill came back.
    Restore,
    /// The content of an earlier revision, as a new revision.
    Rollback,
}

impl Operation {
    /// The lowercase name stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Create => "create",
            Operation::Update => "update",
            Operation::Delete => "delete",
            Operation::Restore => "restore",
            Operation::Rollback => "rollback",
        }
    }

    /// The operation a stored name stands for.
    pub fn parse(text: &str) -> Option<Operation> {
        [
            Operation::Create,
            Operation::Update,
            Operation::Delete,
            Operation::Restore,
            Operation::Rollback,
        ]
        .into_iter()
        .find(|op| op.as_str() == text)
    }
}

/// One revision of a skill.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Revision {
    /// The skill's name.
    pub skill: String,
    /// 1, 2, 3, … per skill.
    pub number: u64,
    /// When (RFC 3339, UTC).
    pub created_at: String,
    /// Who.
    pub author: String,
    /// Why.
    pub message: String,
    /// What it did.
    pub operation: Operation,
    /// Hash of the content after the revision.
    pub content_hash: String,
}

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

/// One file of a skill without its bytes: what listing its resources needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileMetadata {
    /// Path relative to the skill folder, `/`-separated.
    pub path: String,
    /// The `sha256:<hex>` digest of the bytes ([`SkillFile::sha256`]).
    pub sha256: String,
    /// The size in bytes.
    pub size: u64,
    /// Whether the bytes are UTF-8 text ([`is_text`]).
    pub text: bool,
}

impl FileMetadata {
    /// The metadata of the manifest of a `kind` (always text) whose bytes have `sha256` and
    /// `size`.
    pub(crate) fn manifest(kind: Kind, sha256: String, size: u64) -> FileMetadata {
        FileMetadata {
            path: kind.manifest().to_owned(),
            sha256,
            size,
            text: true,
        }
    }

    /// The metadata of `file`.
    pub fn of(file: &SkillFile) -> FileMetadata {
        FileMetadata {
            path: file.path.clone(),
            sha256: file.sha256(),
            size: file.bytes.len() as u64,
            text: is_text(&file.bytes),
        }
    }
}

/// Whether `bytes` are text: valid UTF-8. The one rule for [`FileMetadata::text`], whether it
/// is read from a file in memory or computed by a backend from the stored bytes.
pub fn is_text(bytes: &[u8]) -> bool {
    std::str::from_utf8(bytes).is_ok()
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

/// A skill left out for another of the same name (see [`crate::scopes`] for which wins), and
/// the one kept.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ShadowedSkill {
    /// The shared name.
    pub name: String,
    /// The folder of the skill left out; empty for one created through tools.
    pub path: String,
    /// The folder of the skill kept; empty for one created through tools.
    pub kept: String,
}

impl std::fmt::Display for ShadowedSkill {
    /// The one wording of a skill left out: `` `name` at `path` (kept the one at `kept`) ``,
    /// where a skill created through tools is "the one created through tools".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let place = |folder: &str| {
            if folder.is_empty() {
                "created through tools".to_owned()
            } else {
                format!("at `{folder}`")
            }
        };
        write!(
            f,
            "`{}` {} (kept the one {})",
            self.name,
            place(&self.path),
            place(&self.kept)
        )
    }
}

/// One skill to import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportItem {
    /// The content.
    pub snapshot: SkillSnapshot,
    /// Where it comes from.
    pub provenance: Provenance,
}

/// One skill folder to import (see [`crate::folder::read_folders`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FolderImport {
    /// Where it comes from.
    pub provenance: Provenance,
    /// What was read of it.
    pub content: FolderContent,
}

/// What an import knows of a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FolderContent {
    /// Read from disk. The stamp, when there is one, is recorded with the revision the import
    /// leaves current, so that the next import can skip reading the folder if it is unchanged.
    Read {
        /// The content.
        snapshot: SkillSnapshot,
        /// The folder's stamp, taken before reading it.
        stamp: Option<FolderStamp>,
    },
    /// Not read: its stamp equals the one recorded with its skill's current revision.
    Unchanged {
        /// The skill's name.
        name: String,
    },
}

impl From<ImportItem> for FolderImport {
    fn from(item: ImportItem) -> FolderImport {
        FolderImport {
            provenance: item.provenance,
            content: FolderContent::Read {
                snapshot: item.snapshot,
                stamp: None,
            },
        }
    }
}

/// A fingerprint of a skill folder's files, from their metadata (see
/// [`crate::folder::folder_stamp`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FolderStamp {
    /// The folder's canonical path.
    pub folder: String,
    /// The fingerprint.
    pub stamp: String,
}

/// A folder stamp a store keeps, for a skill whose current revision came from that folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedStamp {
    /// The folder's canonical path.
    pub folder: String,
    /// The skill imported from it.
    pub name: String,
    /// The fingerprint taken when it was read.
    pub stamp: String,
}
