//! The precedence of [`super`] applied to a stored row: whether an import may write over the
//! stored skill of its name (both backends ask this of the row they found, through
//! [`crate::import`]). The rules on provenances themselves are the model's
//! ([`skillpath_model::provenance`]).

use skillpath_model::provenance::import_may_replace;
use skillpath_model::{Provenance, ShadowedSkill};

use crate::error::StoreResult;
use crate::provenance_column::ProvenanceColumn;

/// The import item `name` from `incoming` left out for the stored skill of its name and
/// project (`deleted` or not, its provenance as stored), when that one takes precedence; `None`
/// when the import may write over it. Both backends ask this of the row they found.
pub(crate) fn left_out_for(
    name: &str,
    deleted: bool,
    stored: &str,
    incoming: &Provenance,
) -> StoreResult<Option<ShadowedSkill>> {
    if deleted {
        return Ok(None);
    }
    let existing = Provenance::from_stored(stored)?;
    Ok(
        (!import_may_replace(&existing, incoming)).then(|| ShadowedSkill {
            name: name.to_owned(),
            path: incoming.folder().to_owned(),
            kept: existing.folder().to_owned(),
        }),
    )
}
