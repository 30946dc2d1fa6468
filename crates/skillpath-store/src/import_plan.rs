//! What an import writes, decided before a backend opens its transaction, so both backends
//! import by one rule: every snapshot is checked, and of several items with one skill name the
//! first is kept and the others are reported as shadowed by it (items left unread because
//! their folder is unchanged take part by the name recorded for them).

use std::collections::HashMap;

use crate::error::StoreResult;
use crate::model::{FolderContent, FolderImport, ImportReport, ShadowedSkill};
use crate::sqlite::{checked, meta};

/// An item to import, under its skill's name.
pub(crate) struct Planned {
    pub(crate) name: String,
    pub(crate) item: FolderImport,
    /// Where the item was among those given.
    pub(crate) position: usize,
}

/// The items to write, in name order, and the ones shadowed by an earlier item. Writing in
/// name order means two imports running at once lock their skills in one order, so on
/// PostgreSQL one waits for the other instead of deadlocking. The report is put back in the
/// order given by [`GivenOrder::restore`].
pub(crate) fn plan(
    items: Vec<FolderImport>,
) -> StoreResult<(Vec<Planned>, Vec<ShadowedSkill>, GivenOrder)> {
    let mut planned: Vec<Planned> = Vec::new();
    // Where each name is in `planned`, so that finding a shadowing item does not grow with
    // the square of the import's size.
    let mut kept_at: HashMap<String, usize> = HashMap::new();
    let mut shadowed = Vec::new();
    for item in items {
        let (name, content) = match item.content {
            FolderContent::Read { snapshot, stamp } => {
                let snapshot = checked(snapshot)?;
                let name = meta(&snapshot)?.name;
                (name, FolderContent::Read { snapshot, stamp })
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
    Ok((planned, shadowed, given))
}

/// Where each planned name was among the items given, by name.
pub(crate) struct GivenOrder(Vec<(String, usize)>);

impl GivenOrder {
    /// Sorts the report's lists of names back into the order the items were given in.
    pub(crate) fn restore(&self, report: &mut ImportReport) {
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
