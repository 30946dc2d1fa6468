//! Skill folders imported into the store: the stamps of the folders imported before (so that an
//! unchanged folder is not read again), the import itself as one transaction, and the pairs of
//! skills it made compete for the same requests.

use std::collections::BTreeSet;

use skillpath_core::overlap::{COMPETE, Library, Overlap};
use skillpath_model::{Change, FolderImport, Kind, Namespace, Placement, RecordedStamp};
use skillpath_store::ImportReport;

use crate::app::App;
use crate::catalog::Derived;
use crate::error::AppError;
use crate::rules::{Operation, Permit};

/// How many competing pairs an import lists, the most similar first; the rest are counted
/// (`skillpath eval overlap` lists them all).
pub const LISTED_OVERLAPS: usize = 20;

/// What an import did.
#[derive(Debug)]
pub struct Imported {
    /// What the store wrote, left unchanged, shadowed or refused.
    pub report: ImportReport,
    /// The pairs of skills competing for the same requests (`description-overlap`) of which
    /// the import wrote at least one, each pair once, most similar first, with the skill the
    /// import wrote (the second by name when it wrote both, as `validate` warns): the
    /// [`LISTED_OVERLAPS`] first.
    pub overlaps: Vec<(String, Overlap)>,
    /// How many such pairs there are.
    pub overlaps_total: usize,
}

impl<E> App<E> {
    /// The stamps of the folders whose skills' current revisions were imported from them into
    /// `namespace`, for the import into it that reads the folders next ([`App::import`]).
    pub async fn import_stamps(
        &self,
        permit: &Permit,
        namespace: &Namespace,
    ) -> Result<Vec<RecordedStamp>, AppError> {
        self.permitted(permit, Operation::ImportSkills)?;
        Ok(self.store().folder_stamps_in(namespace).await?)
    }
}

impl<E: Derived> App<E> {
    /// The folders read as `items` imported in one transaction into `placement`'s namespace
    /// (the items it creates get its visibility), recorded as the caller's with `message`
    /// (`None`: `import of N skills`), and the competing pairs it made. An import is served at
    /// once: refused where the caller's writes wait for review.
    pub async fn import(
        &self,
        permit: &Permit,
        items: Vec<FolderImport>,
        placement: Placement,
        message: Option<String>,
    ) -> Result<Imported, AppError> {
        let caller = self.permitted(permit, Operation::ImportSkills)?;
        if self.write_gate(caller, &placement.namespace).await? {
            return Err(AppError::NotReviewable {
                what: "an import",
                verb: "import",
                name: placement.namespace.to_string(),
            });
        }
        if items.is_empty() {
            return Ok(Imported {
                report: ImportReport::default(),
                overlaps: Vec::new(),
                overlaps_total: 0,
            });
        }
        let change = Change {
            author: caller.author(),
            message: message.unwrap_or_else(|| format!("import of {} skills", items.len())),
        };
        let report = self.store().import_placed(items, placement, change).await?;
        self.refresh().await?;
        let (overlaps, overlaps_total) = self.competing(&report).await?;
        Ok(Imported {
            report,
            overlaps,
            overlaps_total,
        })
    }

    /// The pairs of skills competing for the same requests of which `report` wrote at least
    /// one ([`Imported::overlaps`]), and how many there are.
    async fn competing(
        &self,
        report: &ImportReport,
    ) -> Result<(Vec<(String, Overlap)>, usize), AppError> {
        let written: BTreeSet<&str> = report
            .created
            .iter()
            .chain(&report.updated)
            .map(String::as_str)
            .collect();
        if written.is_empty() {
            return Ok((Vec::new(), 0));
        }
        let skills: Vec<(String, String)> = self
            .store()
            .current_metadata()
            .await?
            .into_iter()
            .filter(|skill| skill.kind == Kind::Skill)
            .map(|skill| (skill.name, skill.description))
            .collect();
        let library = Library::new(skills.iter().map(|(n, d)| (n.as_str(), d.as_str())));
        let found = library.overlaps_involving(|name| written.contains(name), COMPETE);
        let total = found.len();
        let listed = found
            .into_iter()
            .take(LISTED_OVERLAPS)
            .map(|overlap| {
                let skill = if written.contains(overlap.b.as_str()) {
                    overlap.b.clone()
                } else {
                    overlap.a.clone()
                };
                (skill, overlap)
            })
            .collect();
        Ok((listed, total))
    }
}
