//! The writes of one skill (create, update, delete, restore, rollback), decided once for every
//! backend: a write at the expected revision, in a state that allows it, keeping the name. A
//! backend opens the write's transaction and hands this module its primitives
//! ([`WriteTransaction`]: read the skill's row, locked; insert a row; write a revision), so
//! both backends refuse the same writes with the same errors and write the same revisions.

use skillpath_audit::AuditRecord;

use crate::answers::{SkillMdHead, StoredSkill};
use crate::audit::Gate;
use crate::content::{Meta, check_keeps_kind, meta};
use crate::drafts::DraftRef;
use crate::error::{StoreError, StoreResult};
use crate::provenance_column::ProvenanceColumn;
use crate::time::now_rfc3339;
use skillpath_model::{
    Access, Change, FileMetadata, FolderStamp, FullName, Kind, Operation, Placement, Provenance,
    SkillSnapshot, name_of_key, namespace_of_key,
};

/// A write of one skill, as the [`crate::Store`] methods that write make it; a backend runs
/// it with `writes::apply` inside its transaction ([`crate::Store::write`]).
#[derive(Debug)]
pub struct SkillWrite {
    pub(crate) kind: WriteKind,
    pub(crate) change: Change,
    /// What the content it makes live is audited with.
    pub(crate) gate: Gate,
    /// The draft it publishes, closed in the same transaction: the write is refused when
    /// the draft is gone or was saved again since it was read.
    pub(crate) closes: Option<DraftRef>,
}

/// What a [`SkillWrite`] does.
#[derive(Debug)]
pub(crate) enum WriteKind {
    /// A new skill, revision 1, placed in a namespace with a visibility (its owner is the
    /// change's author).
    Create {
        snapshot: SkillSnapshot,
        provenance: Provenance,
        placement: Placement,
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
    /// A skill or a package, fixed when it was created.
    pub(crate) kind: Kind,
}

/// What a backend does inside a write's transaction; the rules of this module and of
/// [`crate::import`] decide which of these run. Every read is of the transaction's own state
/// and, on a backend with row locks, locks the row until it ends. The writes take many rows at
/// once, so that a backend with a round trip per statement (PostgreSQL) pays it per batch
/// rather than per row.
pub(crate) trait WriteTransaction {
    /// The row of the skill `name` as the store's view shows it (see [`crate::scopes`]).
    async fn visible_row(&mut self, name: &str) -> StoreResult<Option<SkillRow>>;

    /// The row of the skill `name` in `project` (`""`: shared), shown by the view or not.
    async fn row_in(&mut self, name: &str, project: &str) -> StoreResult<Option<SkillRow>>;

    /// Inserts the row of a new skill (or package: `kind`), with no revision yet, and gives its
    /// id; `None` when its project has a skill of that name already (maybe inserted by a
    /// concurrent write).
    async fn insert_skill(
        &mut self,
        name: &str,
        kind: Kind,
        provenance: &Provenance,
        access: &Access,
    ) -> StoreResult<Option<i64>>;

    /// For each skill of an import, in the order given (name order, so that two imports
    /// lock their skills in one order): its row in its project ([`Self::row_in`]), or a new
    /// row with no revision yet where there is none ([`Self::insert_skill`]). One answer per
    /// skill, in the same order.
    async fn claim_rows(
        &mut self,
        skills: &[(&str, Kind, &Provenance)],
        access: &Access,
    ) -> StoreResult<Vec<Claimed>> {
        let mut claimed = Vec::with_capacity(skills.len());
        for &(name, kind, provenance) in skills {
            let project = provenance.project_key();
            let row = match self.row_in(name, project).await? {
                Some(row) => Claimed::Existing(row),
                None => match self.insert_skill(name, kind, provenance, access).await? {
                    Some(id) => Claimed::Created(id),
                    // Created by a concurrent import meanwhile: it exists now.
                    None => {
                        Claimed::Existing(self.row_in(name, project).await?.ok_or_else(|| {
                            StoreError::database(format!(
                                "skill `{name}` vanished during the import"
                            ))
                        })?)
                    }
                },
            };
            claimed.push(row);
        }
        Ok(claimed)
    }

    /// Revision `revision` of the skill `name` as the view shows it.
    async fn load(&mut self, name: &str, revision: u64) -> StoreResult<StoredSkill>;

    /// Stores each of `blobs` (distinct, in digest order) that is not stored yet.
    async fn write_blobs(&mut self, blobs: &[Blob<'_>]) -> StoreResult<()>;

    /// Writes the revisions (of distinct skills) and makes each its skill's current state
    /// (row, files, search index); their files' blobs are stored already.
    async fn write_revisions(&mut self, revisions: &[RevisionRecord<'_>]) -> StoreResult<()>;

    /// Records the stamps of folders an import read (of distinct folders).
    async fn record_stamps(&mut self, stamps: &[StampRecord<'_>]) -> StoreResult<()>;

    /// Keeps the audits of revisions written in this transaction (of distinct revisions).
    async fn write_audits(&mut self, audits: &[AuditRow]) -> StoreResult<()>;

    /// Makes `members` the member skills of the package whose row id is `package` in
    /// `project`, in place of those it had: `Ok(None)`, or the first member another package
    /// of the project has already, with that package's name (the write is then refused: a
    /// skill belongs to at most one package).
    async fn set_members(
        &mut self,
        package: i64,
        project: &str,
        members: &[String],
    ) -> StoreResult<Option<(String, String)>>;

    /// Deletes the draft `draft` names, when its content hash is still the one named:
    /// whether it did.
    async fn close_draft(&mut self, draft: &DraftRef) -> StoreResult<bool>;
}

/// The audit of a revision as a backend keeps it: the revision, and its findings as JSON
/// ([`AuditRecord::to_json`]).
pub(crate) struct AuditRow {
    pub(crate) skill_id: i64,
    pub(crate) number: u64,
    pub(crate) findings: String,
}

/// What [`WriteTransaction::claim_rows`] found or made of a skill's row.
pub(crate) enum Claimed {
    /// A new row, with this id and no revision yet.
    Created(i64),
    /// The row there was.
    Existing(SkillRow),
}

/// A file's bytes as stored once, under their digest ([`skillpath_model::SkillFile::sha256`]).
pub(crate) struct Blob<'a> {
    pub(crate) sha256: &'a str,
    pub(crate) bytes: &'a [u8],
}

/// The most bytes of content (`SKILL.md`s and files) one call of
/// [`WriteTransaction::write_blobs`] or [`WriteTransaction::write_revisions`] carries (a single
/// larger skill or file goes alone): what a backend may hold encoded for one batch, besides
/// the snapshots themselves.
const BATCH_BYTES: u64 = 32 << 20;

/// The most revisions one call of [`WriteTransaction::write_revisions`] carries.
const BATCH_REVISIONS: usize = 2_000;

/// How many batches [`write_revisions`] takes for revisions of these sizes at most: the
/// batches of their files and those of the revisions, each bounded by [`BATCH_BYTES`] and
/// [`BATCH_REVISIONS`] (at least one).
// Only PostgreSQL bounds an operation in time.
#[cfg_attr(not(feature = "postgres"), allow(dead_code))]
pub(crate) fn batches_needed(sizes: impl Iterator<Item = u64>) -> u32 {
    let (count, bytes) = sizes.fold((0u64, 0u64), |(n, b), size| (n + 1, b + size));
    let by_count = count.div_ceil(BATCH_REVISIONS as u64);
    let by_bytes = bytes.div_ceil(BATCH_BYTES);
    u32::try_from(2 * by_count.max(by_bytes).max(1)).unwrap_or(u32::MAX)
}

/// Runs `writes` in `transaction`, in order: the skills as written, or why one is refused.
pub(crate) async fn apply_all(
    transaction: &mut impl WriteTransaction,
    writes: Vec<SkillWrite>,
) -> StoreResult<Vec<StoredSkill>> {
    let mut written = Vec::with_capacity(writes.len());
    for write in writes {
        written.push(apply(transaction, write).await?);
    }
    Ok(written)
}

/// Runs `write` in `transaction`: the skill as written, or why the write is refused.
async fn apply(
    transaction: &mut impl WriteTransaction,
    write: SkillWrite,
) -> StoreResult<StoredSkill> {
    let SkillWrite {
        kind,
        change,
        gate,
        closes,
    } = write;
    let written = match kind {
        WriteKind::Create {
            snapshot,
            provenance,
            placement,
        } => create(transaction, snapshot, provenance, placement, &change, &gate).await,
        WriteKind::Revise {
            name,
            expected,
            edit,
        } => revise(transaction, &name, expected, edit, &change, &gate).await,
    }?;
    if let Some(draft) = closes
        && !transaction.close_draft(&draft).await?
    {
        return Err(StoreError::InvalidState(format!(
            "the draft of `{}` by `{}` was saved again or closed while it was being published: review it again",
            draft.name, draft.author
        )));
    }
    Ok(written)
}

/// A new skill, kept under its name in `placement`'s namespace ([`Placement::key`]): refused
/// when the view shows an item of that key, or its project has one, or when `gate` refuses its
/// content.
async fn create(
    transaction: &mut impl WriteTransaction,
    snapshot: SkillSnapshot,
    provenance: Provenance,
    placement: Placement,
    change: &Change,
    gate: &Gate,
) -> StoreResult<StoredSkill> {
    let name = placement.key(&meta(&snapshot)?.name);
    let access = Access {
        visibility: placement.visibility,
        owner: Some(change.author.clone()),
    };
    let taken = match transaction.visible_row(&name).await? {
        Some(row) => Some(row),
        None => match transaction
            .insert_skill(&name, snapshot.kind, &provenance, &access)
            .await?
        {
            Some(id) => {
                // Audited once the name is known to be free, so that a taken name is said
                // first; the transaction, and the row it inserted, end with a refusal.
                let audit = gate.admit(&name, &snapshot)?;
                let first =
                    NewRevision::first(id, &name, change, &snapshot, &provenance, audit.as_ref());
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

/// A new revision of `name`, which must be at `expected` and in a state `edit` suits. Content
/// made live (an update, a restore, a rollback) is audited by `gate`, with today's rules; a
/// deletion keeps the findings of the content it deletes.
async fn revise(
    transaction: &mut impl WriteTransaction,
    name: &str,
    expected: u64,
    edit: Edit,
    change: &Change,
    gate: &Gate,
) -> StoreResult<StoredSkill> {
    let row = at_expected(name, transaction.visible_row(name).await?, expected)?;
    let operation = edit.operation();
    check_state(name, row.deleted, operation)?;
    let (snapshot, provenance, audit) = match edit {
        Edit::Update(snapshot) => {
            check_keeps_kind(name, row.kind, snapshot.kind)?;
            check_keeps_name(name_of_key(name), &snapshot)?;
            let audit = gate.admit(name, &snapshot)?;
            (snapshot, Provenance::from_stored(&row.provenance)?, audit)
        }
        Edit::Delete => {
            let current = transaction.load(name, row.revision).await?;
            (current.snapshot, current.provenance, current.audit)
        }
        Edit::Restore => {
            let current = transaction.load(name, row.revision).await?;
            let audit = gate.admit(name, &current.snapshot)?;
            (current.snapshot, current.provenance, audit)
        }
        Edit::Rollback { to } => {
            let target = transaction.load(name, to).await?;
            let audit = gate.admit(name, &target.snapshot)?;
            (target.snapshot, target.provenance, audit)
        }
    };
    let next = NewRevision::after(
        &row,
        name,
        operation,
        change,
        &snapshot,
        &provenance,
        audit.as_ref(),
    );
    write_revision(transaction, &next).await
}

/// Writes `revision` through the backend and gives the skill as it now is.
pub(crate) async fn write_revision(
    transaction: &mut impl WriteTransaction,
    revision: &NewRevision<'_>,
) -> StoreResult<StoredSkill> {
    let mut written = None;
    write_revisions(transaction, std::slice::from_ref(revision), |record| {
        written = Some((record.meta, record.created_at, record.content_hash));
    })
    .await?;
    let (meta, created_at, content_hash) = written.ok_or_else(|| {
        StoreError::database("a revision was written without its record".to_owned())
    })?;
    Ok(StoredSkill {
        name: revision.key.to_owned(),
        description: meta.description,
        tool_name: meta.tool_name,
        revision: revision.number,
        deleted: revision.deleted,
        content_hash,
        provenance: revision.provenance.clone(),
        updated_at: created_at,
        snapshot: revision.snapshot.clone(),
        audit: revision.audit.cloned(),
    })
}

/// Writes `revisions` (of distinct skills) through the backend, handing each one's record to
/// `written` once it is written. First every file not stored yet, in digest order, so that
/// two transactions storing the same files wait for each other in one order instead of
/// deadlocking on PostgreSQL's unique index; then the revisions. Both in batches of at most
/// [`BATCH_BYTES`] (and [`BATCH_REVISIONS`]), so a large import costs a few statements per
/// batch and holds one batch's records at a time.
pub(crate) async fn write_revisions<'a>(
    transaction: &mut impl WriteTransaction,
    revisions: &'a [NewRevision<'a>],
    mut written: impl FnMut(RevisionRecord<'a>),
) -> StoreResult<()> {
    let mut files: Vec<Vec<FileMetadata>> = revisions
        .iter()
        .map(|revision| {
            revision
                .snapshot
                .files
                .iter()
                .map(FileMetadata::of)
                .collect()
        })
        .collect();
    let mut blobs: Vec<Blob<'_>> = revisions
        .iter()
        .zip(&files)
        .flat_map(|(revision, files)| {
            revision
                .snapshot
                .files
                .iter()
                .zip(files)
                .map(|(file, metadata)| Blob {
                    sha256: &metadata.sha256,
                    bytes: &file.bytes,
                })
        })
        .collect();
    blobs.sort_unstable_by(|a, b| a.sha256.cmp(b.sha256));
    blobs.dedup_by(|a, b| a.sha256 == b.sha256);
    for batch in batches(
        &blobs,
        |blob| blob.bytes.len() as u64,
        BATCH_BYTES,
        usize::MAX,
    ) {
        transaction.write_blobs(batch).await?;
    }
    let sizes: Vec<u64> = revisions
        .iter()
        .map(|revision| revision.snapshot.size())
        .collect();
    let mut records = Vec::new();
    let mut start = 0;
    for batch in batches(&sizes, |size| *size, BATCH_BYTES, BATCH_REVISIONS) {
        let end = start + batch.len();
        for (revision, files) in revisions[start..end].iter().zip(&mut files[start..end]) {
            records.push(RevisionRecord {
                meta: meta(revision.snapshot)?,
                head: SkillMdHead::of(revision.snapshot.kind, &revision.snapshot.skill_md),
                files: std::mem::take(files),
                created_at: now_rfc3339(),
                content_hash: revision.snapshot.content_hash(),
                provenance: revision.provenance.to_stored()?,
                revision,
            });
        }
        transaction.write_revisions(&records).await?;
        for record in records
            .iter()
            .filter(|record| record.revision.snapshot.kind == Kind::Package)
        {
            let revision = record.revision;
            // A deleted package holds its members no more; restored, it claims them again.
            // Its members are the items of those names in its namespace.
            let namespace = namespace_of_key(revision.key);
            let members: Vec<String> = if revision.deleted {
                Vec::new()
            } else {
                record
                    .meta
                    .members
                    .iter()
                    .map(|member| FullName::new(namespace.clone(), member.as_str()).key())
                    .collect()
            };
            let project = revision.provenance.project_key();
            if let Some((member, other)) = transaction
                .set_members(revision.skill_id, project, &members)
                .await?
            {
                return Err(StoreError::InvalidState(format!(
                    "skill `{member}` is a member of package `{other}` already, and a skill belongs to at most one package; take it out of `{other}`'s `skills` first, or leave it out of `{}`",
                    revision.key
                )));
            }
        }
        let audits: Vec<AuditRow> = records
            .iter()
            .filter_map(|record| {
                let revision = record.revision;
                Some(AuditRow {
                    skill_id: revision.skill_id,
                    number: revision.number,
                    findings: revision.audit?.to_json(),
                })
            })
            .collect();
        if !audits.is_empty() {
            transaction.write_audits(&audits).await?;
        }
        records.drain(..).for_each(&mut written);
        start = end;
    }
    Ok(())
}

/// `items` cut in order into runs of at most `count` items and `bytes` by `size`; an item
/// larger than `bytes` on its own makes a run of one.
fn batches<T>(
    items: &[T],
    size: impl Fn(&T) -> u64,
    bytes: u64,
    count: usize,
) -> impl Iterator<Item = &[T]> {
    let mut rest = items;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut total = 0;
        let mut end = 0;
        while let Some(item) = rest.get(end) {
            total += size(item);
            if end > 0 && (total > bytes || end == count) {
                break;
            }
            end += 1;
        }
        let (batch, after) = rest.split_at(end);
        rest = after;
        Some(batch)
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
    /// The store key of the skill ([`FullName::key`]).
    pub key: &'a str,
    pub number: u64,
    pub operation: Operation,
    pub change: &'a Change,
    pub snapshot: &'a SkillSnapshot,
    /// Whether the skill is deleted from this revision on.
    pub deleted: bool,
    pub provenance: &'a Provenance,
    /// The audit of `snapshot`, kept with the revision (`None`: not audited).
    pub audit: Option<&'a AuditRecord>,
}

impl<'a> NewRevision<'a> {
    /// Revision 1 of a skill being created.
    pub(crate) fn first(
        skill_id: i64,
        key: &'a str,
        change: &'a Change,
        snapshot: &'a SkillSnapshot,
        provenance: &'a Provenance,
        audit: Option<&'a AuditRecord>,
    ) -> Self {
        Self::following(
            skill_id,
            key,
            0,
            Operation::Create,
            change,
            snapshot,
            provenance,
            audit,
        )
    }

    /// The revision after the current one of the skill whose row is `row`, made by
    /// `operation`.
    pub(crate) fn after(
        row: &SkillRow,
        key: &'a str,
        operation: Operation,
        change: &'a Change,
        snapshot: &'a SkillSnapshot,
        provenance: &'a Provenance,
        audit: Option<&'a AuditRecord>,
    ) -> Self {
        Self::following(
            row.id,
            key,
            row.revision,
            operation,
            change,
            snapshot,
            provenance,
            audit,
        )
    }

    /// The revision after `current`, made by `operation`; only a delete leaves the skill deleted.
    #[allow(clippy::too_many_arguments)]
    fn following(
        skill_id: i64,
        key: &'a str,
        current: u64,
        operation: Operation,
        change: &'a Change,
        snapshot: &'a SkillSnapshot,
        provenance: &'a Provenance,
        audit: Option<&'a AuditRecord>,
    ) -> Self {
        NewRevision {
            skill_id,
            key,
            number: current + 1,
            operation,
            change,
            snapshot,
            deleted: operation == Operation::Delete,
            provenance,
            audit,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{BATCH_BYTES, BATCH_REVISIONS, batches, batches_needed};

    /// An import's bound grows with the larger of its count and its bytes, for files and
    /// revisions alike, and is never below one batch of each.
    #[test]
    fn the_batches_an_import_needs_follow_its_count_and_bytes() {
        assert_eq!(batches_needed(std::iter::empty()), 2);
        assert_eq!(batches_needed([10u64, 20].into_iter()), 2);
        let many = std::iter::repeat_n(1u64, BATCH_REVISIONS * 5);
        assert_eq!(batches_needed(many), 10);
        // 10,000 skills of 23 KB: 230 MB is 7 batches of 32 MiB, more than 5 of 2,000.
        assert_eq!(batches_needed(std::iter::repeat_n(23_000u64, 10_000)), 14);
        assert_eq!(batches_needed(std::iter::once(BATCH_BYTES * 3)), 6);
    }

    fn cut(sizes: &[u64], bytes: u64, count: usize) -> Vec<Vec<u64>> {
        batches(sizes, |size| *size, bytes, count)
            .map(<[u64]>::to_vec)
            .collect()
    }

    #[test]
    fn batches_hold_at_most_their_bytes_and_count_in_order() {
        assert_eq!(
            cut(&[3, 4, 2, 1, 5, 5], 7, 10),
            [vec![3, 4], vec![2, 1], vec![5], vec![5]]
        );
        assert_eq!(
            cut(&[1, 1, 1, 1, 1], 100, 2),
            [vec![1, 1], vec![1, 1], vec![1]]
        );
        assert!(cut(&[], 7, 10).is_empty());
    }

    #[test]
    fn an_item_larger_than_a_batch_goes_alone() {
        assert_eq!(cut(&[2, 50, 1, 1], 10, 10), [vec![2], vec![50], vec![1, 1]]);
        assert_eq!(cut(&[50], 10, 10), [vec![50]]);
    }
}
