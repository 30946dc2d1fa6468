//! The stored skills listed a page at a time, in name order: the command line's `list` and
//! `export`, which read the store as it is rather than the catalog a server keeps.

use skillpath_store::{ListFilter, Page, SkillSummary};

use crate::app::App;
use crate::error::AppError;
use crate::rules::{Operation, Permit};

impl<E> App<E> {
    /// The skills `filter` shows, in name order, `limit` at a time (1 to 1000), from the
    /// `cursor` a previous page answered with (`None`: the first page).
    pub async fn list(
        &self,
        permit: &Permit,
        filter: ListFilter,
        cursor: Option<String>,
        limit: usize,
    ) -> Result<Page<SkillSummary>, AppError> {
        self.permitted(permit, Operation::ListSkills)?;
        Ok(self.store().list(filter, cursor, limit).await?)
    }
}
