//! The writes of one skill (create, update, delete, restore, rollback), decided once for every
//! backend: a write at the expected revision, in a state that allows it, keeping the name. A
//! backend opens the write's transaction and hands this module its primitives
//! ([`WriteTransaction`]: read the skill's row, locked; insert a row; write a revision), so
//! both backends refuse the same writes with the same errors and write the same revisions.

use crate::content::{Meta, meta};
use crate::error::{StoreError, StoreResult};
use crate::model::{
    Change, FileMetadata, FolderStamp, Operation, Provenance, SkillMdHead, SkillSnapshot,
    StoredSkill,
};
use crate::time::now_rfc3339;

/// A write of one skill, as the [`crate::Store`] methods that write make it; a backend runs
/// it with `writes::apply` inside its transaction ([`crate::Store::write`]).
#[derive(Debug)]
pub struct SkillWrite {
    pub(crate) kind: WriteKind,
    pub(crate) change: Change,
}

/// What a [`SkillWrite`] does.
#[derive(Debug)]
pub(crate) enum WriteKind {
    /// A new skill, revision 1.
    Create {
        snapshot: SkillSnapshot,
        provenance: Provenance,
    },
    /// A new revision of the skill `name`, which must be at revision `expected`.
    Revise {
        name: String,
        expected: u64,
        edit: Edit,
    },
}

/// What a new revision of an existing skill holds.
#[derive(Debug)]
pub(crate) enum Edit {
    /// New content, which keeps the name.
    Update(SkillSnapshot),
    /// The current content, the skill deleted.
    Delete,
    /// The current content, the skill live again.
    Restore,
    /// The content of revision `to`.
    Rollback { to: u64 },
}

impl Edit {
    fn operation(&self) -> Operation {
        match self {
            Edit::Update(_) => Operation::Update,
            Edit::Delete => Operation::Delete,
            Edit::Restore => Operation::Restore,
            Edit::Rollback { .. } => Operation::Rollback,
        }
    }
}

/// The stored state of a skill's row, as both backends read it.
pub(crate) struct SkillRow {
    pub(crate) id: i64,
    pub(crate) revision: u64,
    pub(crate) deleted: bool,
    pub(crate) content_hash: String,
    /// As stored ([`Provenance::to_stored`]).
    pub(crate) provenance: String,
}

/// What a backend does inside a write's transaction; the rules of this module and of
/// [`crate::import`] decide which of these run. Every read is of the transaction's own state
/// and, on a backend with row locks, locks the row until it ends.
pub(crate) trait WriteTransaction {
    /// The row of the skill `name` as the store's view shows it (see [`crate::scopes`]).
    async fn visible_row(&mut self, name: &str) -> StoreResult<Option<SkillRow>>;

    /// The row of the skill `name` in `project` (`""`: shared), shown by the view or not.
    async fn row_in(&mut self, name: &str, project: &str) -> StoreResult<Option<SkillRow>>;

    /// Inserts the row of a new skill, with no revision yet, and gives its id; `None` when its
    /// project has a skill of that name already (maybe inserted by a concurrent write).
    async fn insert_skill(
        &mut self,
        name: &str,
        provenance: &Provenance,
    ) -> StoreResult<Option<i64>>;

    /// Revision `revision` of the skill `name` as the view shows it.
    async fn load(&mut self, name: &str, revision: u64) -> StoreResult<StoredSkill>;

    /// Writes the revision and makes it the skill's current state (row, files, search index).
    async fn write_revision(&mut self, revision: &RevisionRecord<'_>) -> StoreResult<()>;

    /// Records the stamp of a folder an import read.
    async fn record_stamp(&mut self, stamp: &StampRecord<'_>) -> StoreResult<()>;
}

/// Runs `write` in `transaction`: the skill as written, or why the write is refused.
pub(crate) async fn apply(
    transaction: &mut impl WriteTransaction,
    write: SkillWrite,
) -> StoreResult<StoredSkill> {
    let SkillWrite { kind, change } = write;
    match kind {
        WriteKind::Create {
            snapshot,
            provenance,
        } => create(transaction, snapshot, provenance, &change).await,
        WriteKind::Revise {
            name,
            expected,
            edit,
        } => revise(transaction, &name, expected, edit, &change).await,
    }
}

/// A new skill: refused when the view shows a skill of its name, or its project has one.
async fn create(
    transaction: &mut impl WriteTransaction,
    snapshot: SkillSnapshot,
    provenance: Provenance,
    change: &Change,
) -> StoreResult<StoredSkill> {
    let name = meta(&snapshot)?.name;
    let taken = match transaction.visible_row(&name).await? {
        Some(row) => Some(row),
        None => match transaction.insert_skill(&name, &provenance).await? {
            Some(id) => {
                let first = NewRevision::first(id, change, &snapshot, &provenance);
                return write_revision(transaction, &first).await;
            }
            None => transaction.row_in(&name, provenance.project_key()).await?,
        },
    };
    let row = taken.ok_or_else(|| {
        StoreError::database(format!("skill `{name}` vanished while being created"))
    })?;
    Err(StoreError::AlreadyExists {
        name,
        revision: row.revision,
        deleted: row.deleted,
    })
}

/// A new revision of `name`, which must be at `expected` and in a state `edit` suits.
async fn revise(
    transaction: &mut impl WriteTransaction,
    name: &str,
    expected: u64,
    edit: Edit,
    change: &Change,
) -> StoreResult<StoredSkill> {
    let row = at_expected(name, transaction.visible_row(name).await?, expected)?;
    let operation = edit.operation();
    check_state(name, row.deleted, operation)?;
    let (snapshot, provenance) = match edit {
        Edit::Update(snapshot) => {
            check_keeps_name(name, &snapshot)?;
            (snapshot, Provenance::from_stored(&row.provenance)?)
        }
        Edit::Delete | Edit::Restore => {
            let current = transaction.load(name, row.revision).await?;
            (current.snapshot, current.provenance)
        }
        Edit::Rollback { to } => {
            let target = transaction.load(name, to).await?;
            (target.snapshot, target.provenance)
        }
    };
    let next = NewRevision::after(&row, operation, change, &snapshot, &provenance);
    write_revision(transaction, &next).await
}

/// Writes `revision` through the backend and gives the skill as it now is.
pub(crate) async fn write_revision(
    transaction: &mut impl WriteTransaction,
    revision: &NewRevision<'_>,
) -> StoreResult<StoredSkill> {
    let record = RevisionRecord {
        meta: meta(revision.snapshot)?,
        head: SkillMdHead::of(&revision.snapshot.skill_md),
        files: revision
            .snapshot
            .files
            .iter()
            .map(FileMetadata::of)
            .collect(),
        created_at: now_rfc3339(),
        content_hash: revision.snapshot.content_hash(),
        provenance: revision.provenance.to_stored()?,
        revision,
    };
    transaction.write_revision(&record).await?;
    let RevisionRecord {
        meta,
        created_at,
        content_hash,
        ..
    } = record;
    Ok(StoredSkill {
        name: meta.name,
        description: meta.description,
        tool_name: meta.tool_name,
        revision: revision.number,
        deleted: revision.deleted,
        content_hash,
        provenance: revision.provenance.clone(),
        updated_at: created_at,
        snapshot: revision.snapshot.clone(),
    })
}

/// The stamp of a folder an import read, taken before reading it, recorded with the revision
/// of the skill that the import leaves current.
pub(crate) struct StampRecord<'a> {
    pub(crate) stamp: &'a FolderStamp,
    pub(crate) skill_id: i64,
    pub(crate) revision: u64,
}

/// A revision as a backend writes it: the [`NewRevision`] and what is read of it for the
/// skill's columns and the search index.
pub(crate) struct RevisionRecord<'a> {
    pub(crate) revision: &'a NewRevision<'a>,
    /// The frontmatter fields and the body.
    pub(crate) meta: Meta,
    /// What is kept of `SKILL.md` for listing without reading it.
    pub(crate) head: SkillMdHead,
    /// The metadata of each of the snapshot's files, in its order: their digests (the keys of
    /// their stored bytes), sizes and whether they are text, kept with the revision's files so
    /// that listing reads no bytes.
    pub(crate) files: Vec<FileMetadata>,
    /// When it is written (RFC 3339, UTC): the revision's time and the skill's `updated_at`.
    pub(crate) created_at: String,
    pub(crate) content_hash: String,
    /// The provenance as stored ([`Provenance::to_stored`]).
    pub(crate) provenance: String,
}

/// The current row of skill `name`, which must exist and be at revision `expected`.
fn at_expected(name: &str, row: Option<SkillRow>, expected: u64) -> StoreResult<SkillRow> {
    let row = row.ok_or_else(|| StoreError::NotFound {
        name: name.to_owned(),
        revision: None,
    })?;
    let actual = row.revision;
    if actual != expected {
        return Err(StoreError::StaleRevision {
            name: name.to_owned(),
            expected,
            actual,
        });
    }
    Ok(row)
}

/// `operation` must suit a skill that is `deleted` or not: only a deleted skill can be
/// restored, and only a live one changed, deleted or rolled back.
fn check_state(name: &str, deleted: bool, operation: Operation) -> StoreResult<()> {
    let refusal = match (operation, deleted) {
        (Operation::Update, true) => "is deleted; restore it before changing it",
        (Operation::Delete, true) => "is already deleted",
        (Operation::Rollback, true) => "is deleted; restore it before rolling it back",
        (Operation::Restore, false) => "is not deleted",
        _ => return Ok(()),
    };
    Err(StoreError::InvalidState(format!(
        "skill `{name}` {refusal}"
    )))
}

/// New content for `name` must keep the name: a skill's identity in the store is its name.
fn check_keeps_name(name: &str, snapshot: &SkillSnapshot) -> StoreResult<()> {
    let content_name = meta(snapshot)?.name;
    if content_name != name {
        return Err(StoreError::InvalidSkill(format!(
            "the new content is named `{content_name}`, not `{name}`; a skill keeps its name"
        )));
    }
    Ok(())
}

/// One revision a backend is about to write: revision `number` of the skill with row id
/// `skill_id`, holding `snapshot`, which becomes the skill's current state.
pub(crate) struct NewRevision<'a> {
    pub skill_id: i64,
    pub number: u64,
    pub operation: Operation,
    pub change: &'a Change,
    pub snapshot: &'a SkillSnapshot,
    /// Whether the skill is deleted from this revision on.
    pub deleted: bool,
    pub provenance: &'a Provenance,
}

impl<'a> NewRevision<'a> {
    /// Revision 1 of a skill being created.
    pub(crate) fn first(
        skill_id: i64,
        change: &'a Change,
        snapshot: &'a SkillSnapshot,
        provenance: &'a Provenance,
    ) -> Self {
        Self::following(skill_id, 0, Operation::Create, change, snapshot, provenance)
    }

    /// The revision after the current one of the skill whose row is `row`, made by
    /// `operation`.
    pub(crate) fn after(
        row: &SkillRow,
        operation: Operation,
        change: &'a Change,
        snapshot: &'a SkillSnapshot,
        provenance: &'a Provenance,
    ) -> Self {
        Self::following(
            row.id,
            row.revision,
            operation,
            change,
            snapshot,
            provenance,
        )
    }

    /// The revision after `current`, made by `operation`; only a delete leaves the skill deleted.
    fn following(
        skill_id: i64,
        current: u64,
        operation: Operation,
        change: &'a Change,
        snapshot: &'a SkillSnapshot,
        provenance: &'a Provenance,
    ) -> Self {
        NewRevision {
            skill_id,
            number: current + 1,
            operation,
            change,
            snapshot,
            deleted: operation == Operation::Delete,
            provenance,
        }
    }
}
