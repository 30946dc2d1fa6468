//! What an import writes, decided before a backend opens its transaction, so both backends
//! import by one rule: every snapshot is checked, and of several items with one skill name the
//! first is kept and the others are reported as shadowed by it.

use crate::error::StoreResult;
use crate::model::{ImportItem, Provenance, ShadowedImport};
use crate::sqlite::{checked, meta};

/// An item to import, under its skill's name.
pub(crate) struct Planned {
    pub(crate) name: String,
    pub(crate) item: ImportItem,
}

/// The items to write, in the order given, and the ones shadowed by an earlier item.
pub(crate) fn plan(items: Vec<ImportItem>) -> StoreResult<(Vec<Planned>, Vec<ShadowedImport>)> {
    let mut planned: Vec<Planned> = Vec::new();
    let mut shadowed = Vec::new();
    for item in items {
        let item = ImportItem {
            snapshot: checked(item.snapshot)?,
            provenance: item.provenance,
        };
        let name = meta(&item.snapshot)?.name;
        let path = folder_of(&item.provenance);
        match planned.iter().find(|p| p.name == name) {
            Some(kept) => shadowed.push(ShadowedImport {
                name,
                path,
                kept: folder_of(&kept.item.provenance),
            }),
            None => planned.push(Planned { name, item }),
        }
    }
    Ok((planned, shadowed))
}

/// The folder an item was read from (empty for an item that came through the API).
fn folder_of(provenance: &Provenance) -> String {
    match provenance {
        Provenance::Imported { path, .. } => path.clone(),
        Provenance::Api => String::new(),
    }
}
