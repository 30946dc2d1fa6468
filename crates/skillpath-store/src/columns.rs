//! Rows as the drivers give them, read into the store's types once for every backend: a
//! backend says how its driver reads a column ([`Columns`]); what each kind of row holds, in
//! the column order both backends select, is said here.

use crate::answers::{SkillMdHead, SkillMetadata, SkillSummary, StoredSkill};
use crate::audit::stored_record;
use crate::drafts::{Draft, DraftStatus, DraftSummary, decode_files};
use crate::error::StoreResult;
use crate::keys::record::{KeyInfo, Role, StoredKey};
use crate::provenance_column::ProvenanceColumn;
use crate::writes::SkillRow;
use skillpath_model::{
    FileMetadata, Kind, Operation, Provenance, Revision, SkillFile, SkillSnapshot, is_text,
};

/// A row of a query, column by column (from 0), as the type the column holds.
pub(crate) trait Columns {
    /// A `TEXT` column.
    fn text(&self, index: usize) -> StoreResult<String>;
    /// A `TEXT` column that may be `NULL`.
    fn optional_text(&self, index: usize) -> StoreResult<Option<String>>;
    /// A row id.
    fn id(&self, index: usize) -> StoreResult<i64>;
    /// A revision number or a size in bytes (never negative: the store writes them).
    fn revision(&self, index: usize) -> StoreResult<u64>;
    /// A boolean column.
    fn flag(&self, index: usize) -> StoreResult<bool>;
    /// A boolean column that may be `NULL`.
    fn optional_flag(&self, index: usize) -> StoreResult<Option<bool>>;
    /// A `BLOB` (`BYTEA`) column.
    fn bytes(&self, index: usize) -> StoreResult<Vec<u8>>;
}

/// The columns of [`skill_row`].
pub(crate) const SKILL_ROW: &str = "id, revision, deleted, content_hash, provenance, kind";

/// A skill's row from `SELECT` [`SKILL_ROW`].
pub(crate) fn skill_row(row: &impl Columns) -> StoreResult<SkillRow> {
    Ok(SkillRow {
        id: row.id(0)?,
        revision: row.revision(1)?,
        deleted: row.flag(2)?,
        content_hash: row.text(3)?,
        provenance: row.text(4)?,
        kind: kind(row, 5)?,
    })
}

/// A `kind` column: a skill's or a package's. One this version does not know (written by a
/// newer skillpath, whose schema this one refuses first) is an error, never read as a skill.
pub(crate) fn kind(row: &impl Columns, index: usize) -> StoreResult<Kind> {
    let text = row.text(index)?;
    Kind::parse(&text).ok_or_else(|| {
        crate::error::StoreError::database(format!(
            "a stored item has the unknown kind `{text}`: upgrade skillpath"
        ))
    })
}

/// A live skill at its current revision from `SELECT s.id, s.name, s.revision, s.provenance,
/// r.created_at, r.description, r.tool_name, r.content_hash, r.skill_md, a.findings, s.kind`
/// (`a`: the revision's audit, if any), with its `files`.
pub(crate) fn current_skill(row: &impl Columns, files: Vec<SkillFile>) -> StoreResult<StoredSkill> {
    Ok(StoredSkill {
        name: row.text(1)?,
        revision: row.revision(2)?,
        provenance: Provenance::from_stored(&row.text(3)?)?,
        updated_at: row.text(4)?,
        description: row.text(5)?,
        tool_name: row.optional_text(6)?,
        deleted: false,
        content_hash: row.text(7)?,
        snapshot: SkillSnapshot {
            kind: kind(row, 10)?,
            skill_md: row.text(8)?,
            files,
        },
        audit: stored_record(row.optional_text(9)?),
    })
}

/// The metadata of a live skill at its current revision from `SELECT s.id, s.name,
/// s.revision, s.provenance, s.updated_at, s.description, s.tool_name, s.content_hash,
/// h.frontmatter, h.sha256, h.size, r.skill_md, a.findings, s.kind` (the skill's row, the head of its
/// revision's `SKILL.md` and, only where the head is `NULL`, the text; the revision's audit, if
/// any), with the metadata of its `files`.
/// A revision an older skillpath wrote has no head: its `SKILL.md` is read instead.
pub(crate) fn current_metadata(
    row: &impl Columns,
    files: Vec<FileMetadata>,
) -> StoreResult<SkillMetadata> {
    let kind = kind(row, 13)?;
    let head = match row.optional_text(8)? {
        Some(frontmatter) => SkillMdHead {
            file: FileMetadata::manifest(kind, row.text(9)?, row.revision(10)?),
            frontmatter,
        },
        None => SkillMdHead::of(kind, &row.text(11)?),
    };
    Ok(SkillMetadata {
        kind,
        name: row.text(1)?,
        revision: row.revision(2)?,
        provenance: Provenance::from_stored(&row.text(3)?)?,
        updated_at: row.text(4)?,
        description: row.text(5)?,
        tool_name: row.optional_text(6)?,
        content_hash: row.text(7)?,
        skill_md: head.file,
        frontmatter: head.frontmatter,
        files,
        audit: stored_record(row.optional_text(12)?),
    })
}

/// Revision `number` of the skill `name` (whose row is `skill`), from `SELECT created_at,
/// deleted, description, tool_name, content_hash, skill_md, findings` of its revision row and
/// its audit, if any, with its `files`.
pub(crate) fn revision_content(
    row: &impl Columns,
    name: &str,
    number: u64,
    skill: &SkillRow,
    files: Vec<SkillFile>,
) -> StoreResult<StoredSkill> {
    let provenance = Provenance::from_stored(&skill.provenance)?;
    Ok(StoredSkill {
        name: name.to_owned(),
        description: row.text(2)?,
        tool_name: row.optional_text(3)?,
        revision: number,
        deleted: row.flag(1)?,
        content_hash: row.text(4)?,
        provenance,
        updated_at: row.text(0)?,
        snapshot: SkillSnapshot {
            kind: skill.kind,
            skill_md: row.text(5)?,
            files,
        },
        audit: stored_record(row.optional_text(6)?),
    })
}

/// A file of a revision from `SELECT path, bytes` (the first two columns from `first`).
pub(crate) fn file(row: &impl Columns, first: usize) -> StoreResult<SkillFile> {
    Ok(SkillFile {
        path: row.text(first)?,
        bytes: row.bytes(first + 1)?,
    })
}

/// A file's metadata from `SELECT f.path, f.sha256, f.size, f.text, b.size, b.bytes` (from
/// `first`): the size and text flag kept with the revision's file, or, for a file an older
/// skillpath wrote without them (`NULL`), its blob's size and bytes, read only to tell whether
/// they are text and not kept.
pub(crate) fn file_metadata(row: &impl Columns, first: usize) -> StoreResult<FileMetadata> {
    let (size, text) = match row.optional_flag(first + 3)? {
        Some(text) => (row.revision(first + 2)?, text),
        None => (row.revision(first + 4)?, is_text(&row.bytes(first + 5)?)),
    };
    Ok(FileMetadata {
        path: row.text(first)?,
        sha256: row.text(first + 1)?,
        size,
        text,
    })
}

/// A revision of `skill` from `SELECT number, created_at, author, message, operation,
/// content_hash`; an operation this version does not know (written by a newer one) reads as
/// an update.
pub(crate) fn revision(row: &impl Columns, skill: &str) -> StoreResult<Revision> {
    Ok(Revision {
        skill: skill.to_owned(),
        number: row.revision(0)?,
        created_at: row.text(1)?,
        author: row.text(2)?,
        message: row.text(3)?,
        operation: Operation::parse(&row.text(4)?).unwrap_or(Operation::Update),
        content_hash: row.text(5)?,
    })
}

/// A key from a row of `SELECT {KEY_COLUMNS}` ([`crate::keys::KEY_COLUMNS`]).
pub(crate) fn key(row: &impl Columns) -> StoreResult<StoredKey> {
    let id = row.text(0)?;
    Ok(StoredKey {
        sha256: row.text(3)?,
        info: KeyInfo {
            prefix: format!("sp_{id}"),
            name: row.text(1)?,
            role: Role::stored(&row.text(2)?),
            created_at: row.text(4)?,
            expires_at: row.optional_text(5)?,
            last_used_at: row.optional_text(6)?,
            revoked_at: row.optional_text(7)?,
            // Every key has a user since the migration that made people; none is empty.
            user: row.optional_text(8)?.unwrap_or_default(),
            namespaces: KeyInfo::namespaces_of(row.optional_text(9)?),
            channel: row.optional_text(10)?,
        },
        id,
    })
}

/// A skill in a listing from `SELECT name, description, tool_name, revision, deleted,
/// updated_at, provenance, kind`.
pub(crate) fn summary(row: &impl Columns) -> StoreResult<SkillSummary> {
    Ok(SkillSummary {
        kind: kind(row, 7)?,
        name: row.text(0)?,
        description: row.text(1)?,
        tool_name: row.optional_text(2)?,
        revision: row.revision(3)?,
        deleted: row.flag(4)?,
        updated_at: row.text(5)?,
        provenance: Provenance::listed(&row.text(6)?),
    })
}

/// A draft's summary from `SELECT` [`DRAFT_COLUMNS`](crate::drafts::DRAFT_COLUMNS).
pub(crate) fn draft_summary(row: &impl Columns) -> StoreResult<DraftSummary> {
    let status = row.text(6)?;
    Ok(DraftSummary {
        name: row.text(0)?,
        kind: kind(row, 1)?,
        base: row.revision(2)?,
        package: row.optional_text(3)?,
        author: row.text(4)?,
        message: row.text(5)?,
        // A status this version does not know (written by a newer skillpath) reads as open:
        // the draft stays in the queue.
        status: if status == DraftStatus::Rejected.as_str() {
            DraftStatus::Rejected
        } else {
            DraftStatus::Open
        },
        reviewer: row.optional_text(7)?,
        review_message: row.optional_text(8)?,
        updated_at: row.text(9)?,
        content_hash: row.text(10)?,
    })
}

/// A draft from `SELECT` [`DRAFT_COLUMNS`](crate::drafts::DRAFT_COLUMNS)`, manifest, files`.
pub(crate) fn draft(row: &impl Columns) -> StoreResult<Draft> {
    let summary = draft_summary(row)?;
    let files = decode_files(&row.bytes(12)?)?;
    Ok(Draft {
        snapshot: SkillSnapshot {
            kind: summary.kind,
            skill_md: row.text(11)?,
            files,
        },
        summary,
    })
}
