//! The stored skills listed a page at a time, in name order (the command line's `list` and
//! `export`), or read all at once (`audit --store`): the store as it is rather than the
//! catalog a server keeps.

use skillpath_store::{ListFilter, Page, SkillSummary, StoredSkill};

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
        let caller = self.permitted(permit, Operation::ListSkills)?;
        let mut page = self.store().list(filter, cursor, limit).await?;
        let sight = self.sight(caller).await?;
        if !sight.is_all() {
            let people = self.people().await?;
            page.items
                .retain(|item| sight.lists(&item.name, &people.directory));
        }
        Ok(page)
    }

    /// Every live skill and package at its current revision, with its files, in name order:
    /// what reading them all at once gives (`skillpath audit --store`), each read as
    /// [`Operation::GetSkill`] reads one.
    pub async fn current_skills(&self, permit: &Permit) -> Result<Vec<StoredSkill>, AppError> {
        let caller = self.permitted(permit, Operation::GetSkill)?;
        let mut skills = self.store().current_skills().await?;
        let sight = self.sight(caller).await?;
        if !sight.is_all() {
            let people = self.people().await?;
            skills.retain(|skill| sight.reads(&skill.name, &people.directory));
        }
        Ok(skills)
    }
}
