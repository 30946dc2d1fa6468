//! The write rules every backend enforces, decided from the skill's current revision and state
//! only, so both backends refuse the same writes with the same errors. A backend reads its row
//! (locked, inside the write's transaction) and asks these before it writes.

use crate::error::{StoreError, StoreResult};
use crate::model::{Change, Operation, Provenance, SkillSnapshot};
use crate::sqlite::meta;

/// The current row of skill `name`, which must exist and be at revision `expected` (`revision`
/// reads a row's revision).
pub(crate) fn at_expected<R>(
    name: &str,
    row: Option<R>,
    revision: impl Fn(&R) -> u64,
    expected: u64,
) -> StoreResult<R> {
    let row = row.ok_or_else(|| StoreError::NotFound {
        name: name.to_owned(),
        revision: None,
    })?;
    let actual = revision(&row);
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
pub(crate) fn check_state(name: &str, deleted: bool, operation: Operation) -> StoreResult<()> {
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
pub(crate) fn check_keeps_name(name: &str, snapshot: &SkillSnapshot) -> StoreResult<()> {
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
        Self::after(skill_id, 0, Operation::Create, change, snapshot, provenance)
    }

    /// The revision after `current`, made by `operation`; only a delete leaves the skill deleted.
    pub(crate) fn after(
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
