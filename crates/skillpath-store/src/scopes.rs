//! Whose skills a store shows, and which of several skills with one name wins: the one rule
//! of precedence that `serve`, `list_skills`, the Skills extension, the instructions' catalog,
//! `scan` and every store command share.
//!
//! # Scopes
//!
//! One database holds the skills of every project on the machine (or the team), but a server
//! started in a project shows only that project's own discovered skills, never another
//! project's. Each stored skill belongs to one of:
//!
//! - **a project**: discovered in a project folder's standard skill folder (`.agents/skills`,
//!   …). Its row carries that project folder ([`Provenance::project`]), and only a store opened
//!   with a [`ProjectView`] that includes the folder shows it;
//! - **everyone**: the store's own skills (created through tools, or imported by naming their
//!   folder: `skillpath import DIR`, `serve --skills DIR`) and the user's discovered skills
//!   (`~/.agents/skills`, …). Every view shows them.
//!
//! # Precedence
//!
//! When several skills a view shows share a name, the first of these wins and every other is
//! reported as shadowed by it ([`crate::Store::shadowed`], [`crate::answers::ImportReport::shadowed`]):
//!
//! 1. **the project's skills**, the nearest project folder first (a package's skills override
//!    the repository's), as discovery orders them. The standard says project over user; a
//!    project's authors put a skill in the repository for that project, which is more
//!    specific than anything shared. A project skill is a row of its own, so it shadows a
//!    shared skill of the same name in that project without changing it anywhere else.
//! 2. **the store's own skills**: created through tools, or imported by naming their folder
//!    (which makes a new revision of a store skill of the same name, as any explicit import
//!    does). They are what someone put into the store on purpose, with their history and
//!    authors; a same-named folder that happens to be in a home directory must not silently
//!    replace them (and delete them again when that folder goes), so a user skill is left out
//!    for them and reported.
//! 3. **the user's discovered skills**.
//!
//! Deleted skills never shadow live ones.

use std::path::Path;

use crate::error::{StoreError, StoreResult};
use crate::store::Store;
use skillpath_folders::discovery::{self, Discovery};
use skillpath_model::{Provenance, ShadowedSkill};

pub(crate) mod precedence;

use skillpath_model::provenance::import_may_replace;

/// The project folders whose skills a store shows: a project folder and each parent up to the
/// repository root, as [`discovery::project_dirs`] finds them, so exactly the skills that
/// discovery from that folder would import. Empty: only the skills every project shares.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectView {
    folders: Vec<String>,
}

impl ProjectView {
    /// Only the skills every project shares (no project's own).
    pub fn shared() -> ProjectView {
        ProjectView::default()
    }

    /// The view of a server or command started in `start`.
    pub fn of(start: &Path) -> ProjectView {
        ProjectView {
            folders: discovery::project_dirs(start)
                .iter()
                .map(|dir| dir.display().to_string())
                .collect(),
        }
    }

    /// The project folders, nearest first.
    pub fn folders(&self) -> &[String] {
        &self.folders
    }
}

/// What serving the discovered skills `found` from a store would leave out besides what
/// discovery itself left out, by the precedence above, with the one kept: each user skill for
/// the store's own skill of that name, and each live shared skill for the project's. `shared`
/// is the store as every project sees it ([`ProjectView::shared`]). `skillpath scan` says
/// these, so that it agrees with what `serve` then serves.
pub async fn shadowed_in_store(
    found: &Discovery,
    shared: &dyn Store,
) -> StoreResult<Vec<ShadowedSkill>> {
    let mut shadowed = Vec::new();
    for skill in &found.skills {
        let stored = match shared.get(&skill.name, None).await {
            Ok(stored) if !stored.deleted => stored,
            Ok(_) | Err(StoreError::NotFound { .. }) => continue,
            Err(error) => return Err(error),
        };
        let path = skill.path.display().to_string();
        let incoming = Provenance::Imported {
            path: path.clone(),
            root: skill.root.display().to_string(),
            scope: skill.scope.as_str().to_owned(),
        };
        if incoming.project().is_some() {
            shadowed.push(ShadowedSkill {
                name: skill.name.clone(),
                path: stored.provenance.folder().to_owned(),
                kept: path,
            });
        } else if !import_may_replace(&stored.provenance, &incoming) {
            shadowed.push(ShadowedSkill {
                name: skill.name.clone(),
                path,
                kept: stored.provenance.folder().to_owned(),
            });
        }
    }
    Ok(shadowed)
}
