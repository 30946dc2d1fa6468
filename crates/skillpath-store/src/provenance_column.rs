//! A provenance as both backends keep it in a column: JSON.

use skillpath_model::Provenance;

use crate::error::{DatabaseError, StoreError, StoreResult};

/// Reading and writing a [`Provenance`] column. A trait so that the rows' code says
/// `Provenance::from_stored` as it reads.
pub(crate) trait ProvenanceColumn: Sized {
    /// The provenance as both backends keep it in a column: JSON.
    fn to_stored(&self) -> StoreResult<String>;
    /// A provenance as [`ProvenanceColumn::to_stored`] wrote it.
    fn from_stored(text: &str) -> StoreResult<Self>;
    /// A provenance in a listing: one that cannot be read is shown as [`Provenance::Api`]
    /// (an empty folder) rather than failing the whole page.
    fn listed(text: &str) -> Self;
}

impl ProvenanceColumn for Provenance {
    fn to_stored(&self) -> StoreResult<String> {
        serde_json::to_string(self)
            .map_err(|e| StoreError::Database(DatabaseError::caused_by(e.to_string(), e)))
    }

    fn from_stored(text: &str) -> StoreResult<Provenance> {
        serde_json::from_str(text).map_err(|e| {
            StoreError::Database(DatabaseError::caused_by(
                format!("a stored provenance is not valid: {e}"),
                e,
            ))
        })
    }

    fn listed(text: &str) -> Provenance {
        serde_json::from_str(text).unwrap_or(Provenance::Api)
    }
}
