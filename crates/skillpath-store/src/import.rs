//! Imports, decided once for every backend. Before a backend opens its transaction, [`plan`]
//! checks every snapshot and keeps, of several items with one skill name, the first, reporting
//! the others as shadowed by it (items left unread because their folder is unchanged take part
//! by the name recorded for them). Inside it, [`run`] decides per skill, from the row found in
//! its project, whether the item creates it, changes it, leaves it unchanged or is left out
//! for it ([`crate::scopes`]), and writes through the backend's [`WriteTransaction`].

use std::collections::HashMap;

use rayon::prelude::*;
use skillpath_audit::AuditRecord;

use skillpath_core::bundle::SkillBundle;

use crate::answers::{AuditedSkill, ImportReport};
use crate::audit::{Gate, Pending};
use crate::content::{check_keeps_kind, checked_named};
use crate::error::{StoreError, StoreResult};
use crate::scopes::precedence::left_out_for;
use crate::writes::{
    AuditRow, Claimed, NewRevision, StampRecord, WriteTransaction, write_revisions,
};
use skillpath_model::{
    Access, Change, FolderContent, FolderImport, Kind, Operation, Placement, Provenance,
    ShadowedSkill,
};

/// How many skills an import under a policy that refuses nothing must hold for its audits to
/// run beside its transaction (`Plan::audit`): a smaller one writes so quickly that it would
/// wait for audits made on one core fewer; it audits first, on every core.
pub const AUDIT_BESIDE_FROM: usize = 1_000;

/// An import as it is planned before a backend opens its transaction, for
/// [`crate::Store::import_planned`] to write.
pub struct Plan {
    items: Vec<Planned>,
    shadowed: Vec<ShadowedSkill>,
    /// Items the audit policy refused ([`Plan::audit`]).
    refused: Vec<AuditedSkill>,
    /// The audits of the items read, running beside the transaction, by the items' place in
    /// `items` ([`Plan::audit`], under a policy that refuses nothing).
    pending: Option<Pending>,
    given: GivenOrder,
    /// Where the items it creates go.
    placement: Placement,
}

/// An item to import, under its skill's name.
struct Planned {
    pub(crate) name: String,
    pub(crate) item: FolderImport,
    /// Where the item was among those given.
    pub(crate) position: usize,
    /// The audit of the item's content, when it was read and audited ([`Plan::audit`]).
    pub(crate) audit: Option<AuditRecord>,
}

/// The items to write, in name order, and the ones shadowed by an earlier item. Writing in
/// name order means two imports running at once lock their skills in one order, so on
/// PostgreSQL one waits for the other instead of deadlocking. The report is put back in the
/// order given by [`GivenOrder::restore`]. Items read are kept under their name in
/// `placement`'s namespace ([`Placement::key`]); an unchanged one under the key it was recorded
/// with.
pub(crate) fn plan(items: Vec<FolderImport>, placement: Placement) -> StoreResult<Plan> {
    let mut planned: Vec<Planned> = Vec::new();
    // Where each name is in `planned`, so that finding a shadowing item does not grow with
    // the square of the import's size.
    let mut kept_at: HashMap<String, usize> = HashMap::new();
    let mut shadowed = Vec::new();
    for item in items {
        let (name, content) = match item.content {
            FolderContent::Read { snapshot, stamp } => {
                let (snapshot, name) = checked_named(snapshot)?;
                (
                    placement.key(&name),
                    FolderContent::Read { snapshot, stamp },
                )
            }
            FolderContent::Unchanged { name } => (name.clone(), FolderContent::Unchanged { name }),
        };
        let item = FolderImport {
            content,
            provenance: item.provenance,
        };
        let path = item.provenance.folder().to_owned();
        match kept_at.get(&name).and_then(|&index| planned.get(index)) {
            Some(kept) => shadowed.push(ShadowedSkill {
                name,
                path,
                kept: kept.item.provenance.folder().to_owned(),
            }),
            None => {
                kept_at.insert(name.clone(), planned.len());
                planned.push(Planned {
                    name,
                    item,
                    position: 0,
                    audit: None,
                });
            }
        }
    }
    for (position, item) in planned.iter_mut().enumerate() {
        item.position = position;
    }
    planned.sort_by(|a, b| a.name.cmp(&b.name));
    let given = GivenOrder(
        planned
            .iter()
            .map(|p| (p.name.clone(), p.position))
            .collect(),
    );
    Ok(Plan {
        items: planned,
        shadowed,
        refused: Vec::new(),
        pending: None,
        given,
        placement,
    })
}

impl Plan {
    /// The names of the skills the plan writes: what their audit knows besides the store's.
    pub(crate) fn names(&self) -> Vec<String> {
        self.items
            .iter()
            .map(|planned| planned.name.clone())
            .collect()
    }

    /// Audits every item read, on every core. Under a policy that refuses nothing (`warn`),
    /// the audits of a large import ([`AUDIT_BESIDE_FROM`] skills or more) run beside the
    /// transaction, which writes their findings once they are done,
    /// before it commits: most of an import is its writer, on one core, so the audit costs it
    /// little time. Under one that refuses, they are all done before a transaction is opened
    /// (so that no transaction waits on them), and the items `gate` refuses are left out: a
    /// refused item is not written, a stored revision of its skill stays as it was, and its
    /// folder's stamp is not recorded, so the next import reads and audits it again.
    pub(crate) fn audit(&mut self, gate: Gate) -> StoreResult<()> {
        if !gate.policy().audits() {
            return Ok(());
        }
        if gate.policy().threshold().is_none() && self.items.len() >= AUDIT_BESIDE_FROM {
            let bundles: Vec<(usize, SkillBundle)> = self
                .items
                .par_iter()
                .enumerate()
                .filter_map(|(at, planned)| match &planned.item.content {
                    FolderContent::Read { snapshot, .. } => {
                        Some((at, snapshot.to_bundle(&planned.name)))
                    }
                    FolderContent::Unchanged { .. } => None,
                })
                .collect();
            self.pending = Some(gate.audit_beside(bundles)?);
            return Ok(());
        }
        self.items.par_iter_mut().for_each(|planned| {
            if let FolderContent::Read { snapshot, .. } = &planned.item.content {
                planned.audit = gate.audit(&planned.name, snapshot);
            }
        });
        let (refused, kept): (Vec<Planned>, Vec<Planned>) = std::mem::take(&mut self.items)
            .into_iter()
            .partition(|planned| {
                planned
                    .audit
                    .as_ref()
                    .is_some_and(|record| gate.refuses(record))
            });
        self.items = kept;
        self.refused = refused
            .into_iter()
            .map(|planned| AuditedSkill {
                path: planned.item.provenance.folder().to_owned(),
                audit: planned.audit.unwrap_or_default(),
                name: planned.name,
            })
            .collect();
        Ok(())
    }

    /// How many batches of writes the plan may take ([`crate::writes::batches_needed`] of
    /// what it read): a backend that bounds each operation in time gives an import that many
    /// times its bound, so a large import is bounded by its size rather than refused.
    // Only PostgreSQL bounds an operation in time.
    #[cfg_attr(not(feature = "postgres"), allow(dead_code))]
    pub(crate) fn batches(&self) -> u32 {
        let read = self
            .items
            .iter()
            .filter_map(|planned| match &planned.item.content {
                FolderContent::Read { snapshot, .. } => Some(snapshot.size()),
                _ => None,
            });
        crate::writes::batches_needed(read)
    }
}

/// Writes `plan` in `transaction`, each skill decided from the row of its name in its project:
/// none (created), live with the same content (unchanged), one that takes precedence
/// ([`left_out_for`]: left out and reported), or any other (a new revision: an update, or a
/// restore of a deleted skill). The rows are claimed first, all in name order; then the new
/// revisions are written together ([`write_revisions`]), and the stamp of every folder read is
/// recorded with the revision it leaves current.
pub(crate) async fn run(
    transaction: &mut impl WriteTransaction,
    plan: Plan,
    change: &Change,
) -> StoreResult<ImportReport> {
    let Plan {
        items,
        shadowed,
        refused,
        pending,
        given,
        placement,
    } = plan;
    let access = Access {
        visibility: placement.visibility,
        owner: Some(change.author.clone()),
    };
    let mut report = ImportReport {
        shadowed,
        refused,
        ..ImportReport::default()
    };
    let mut read = Vec::new();
    for (
        at,
        Planned {
            name, item, audit, ..
        },
    ) in items.into_iter().enumerate()
    {
        match item.content {
            FolderContent::Read { snapshot, stamp } => {
                read.push((name, snapshot, stamp, item.provenance, audit, at));
            }
            FolderContent::Unchanged { .. } => {
                report.unchanged.push(name);
                report.not_read += 1;
            }
        }
    }
    let skills: Vec<(&str, Kind, &Provenance)> = read
        .iter()
        .map(|(name, snapshot, _, provenance, _, _)| (name.as_str(), snapshot.kind, provenance))
        .collect();
    let claimed = transaction.claim_rows(&skills, &access).await?;
    if claimed.len() != read.len() {
        return Err(StoreError::database(format!(
            "{} skills were claimed for an import of {}",
            claimed.len(),
            read.len()
        )));
    }
    let mut revisions = Vec::new();
    // Each read folder's stamp, skill and the revision the import leaves current.
    let mut stamps = Vec::new();
    // The revisions written, with their item's place in the plan (where an audit running
    // beside the transaction goes) and the audit made before it, if any.
    let mut written = Vec::new();
    for ((name, snapshot, stamp, provenance, audit, at), claimed) in read.iter().zip(claimed) {
        let row = match claimed {
            Claimed::Created(id) => {
                written.push((*at, id, 1, name, provenance, audit.as_ref()));
                revisions.push(NewRevision::first(
                    id,
                    name,
                    change,
                    snapshot,
                    provenance,
                    audit.as_ref(),
                ));
                stamps.extend(stamp.as_ref().map(|stamp| (stamp, id, 1)));
                report.created.push(name.clone());
                continue;
            }
            Claimed::Existing(row) => row,
        };
        check_keeps_kind(name, row.kind, snapshot.kind)?;
        if let Some(left_out) = left_out_for(name, row.deleted, &row.provenance, provenance)? {
            report.shadowed.push(left_out);
            continue;
        }
        let current = if !row.deleted && row.content_hash == snapshot.content_hash() {
            report.unchanged.push(name.clone());
            row.revision
        } else {
            let operation = if row.deleted {
                Operation::Restore
            } else {
                Operation::Update
            };
            written.push((
                *at,
                row.id,
                row.revision + 1,
                name,
                provenance,
                audit.as_ref(),
            ));
            revisions.push(NewRevision::after(
                &row,
                name,
                operation,
                change,
                snapshot,
                provenance,
                audit.as_ref(),
            ));
            report.updated.push(name.clone());
            row.revision + 1
        };
        stamps.extend(stamp.as_ref().map(|stamp| (stamp, row.id, current)));
    }
    write_revisions(transaction, &revisions, drop).await?;
    // The audits made beside the transaction are written now; each revision written is
    // flagged by its audit, made before or beside.
    let mut beside: HashMap<usize, AuditRecord> = match pending {
        Some(pending) => pending.wait()?.into_iter().collect(),
        None => HashMap::new(),
    };
    let mut rows = Vec::new();
    for (at, skill_id, number, name, provenance, audit) in written {
        let made_beside = beside.remove(&at);
        if let Some(audit) = &made_beside {
            rows.push(AuditRow {
                skill_id,
                number,
                findings: audit.to_json(),
            });
        }
        report
            .flagged
            .extend(flagged(name, provenance, audit.or(made_beside.as_ref())));
    }
    if !rows.is_empty() {
        transaction.write_audits(&rows).await?;
    }
    let stamps: Vec<StampRecord<'_>> = stamps
        .into_iter()
        .map(|(stamp, skill_id, revision)| StampRecord {
            stamp,
            skill_id,
            revision,
        })
        .collect();
    if !stamps.is_empty() {
        transaction.record_stamps(&stamps).await?;
    }
    given.restore(&mut report);
    Ok(report)
}

/// A skill written with findings, as the report flags it.
fn flagged(
    name: &str,
    provenance: &Provenance,
    audit: Option<&AuditRecord>,
) -> Option<AuditedSkill> {
    let audit = audit.filter(|audit| !audit.findings.is_empty())?;
    Some(AuditedSkill {
        name: name.to_owned(),
        path: provenance.folder().to_owned(),
        audit: audit.clone(),
    })
}

/// Where each planned name was among the items given, by name.
struct GivenOrder(Vec<(String, usize)>);

impl GivenOrder {
    /// Sorts the report's lists of names back into the order the items were given in.
    fn restore(&self, report: &mut ImportReport) {
        let position = |name: &String| {
            self.0
                .binary_search_by(|(planned, _)| planned.cmp(name))
                .ok()
                .and_then(|index| self.0.get(index))
                .map_or(usize::MAX, |(_, position)| *position)
        };
        for list in [
            &mut report.created,
            &mut report.updated,
            &mut report.unchanged,
        ] {
            list.sort_by_key(position);
        }
    }
}
