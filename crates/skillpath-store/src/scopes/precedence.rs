//! The precedence of [`super`] as rules on provenances: which project a skill belongs to, and
//! whether an import may write over a stored skill of the same name (both backends ask this of
//! the row they found, through [`crate::import`]).

use crate::discovery::PROJECT_LOCATIONS;
use crate::error::StoreResult;
use crate::model::{Provenance, ShadowedSkill};

impl Provenance {
    /// The project folder a project skill belongs to (the folder whose standard skill folder
    /// it was discovered in), or `None` for a skill every project shares.
    pub fn project(&self) -> Option<&str> {
        let Provenance::Imported { root, scope, .. } = self else {
            return None;
        };
        if scope != "project" {
            return None;
        }
        PROJECT_LOCATIONS.iter().find_map(|relative| {
            root.strip_suffix(relative)
                .and_then(|folder| folder.strip_suffix('/'))
                .filter(|folder| !folder.is_empty())
        })
    }

    /// The row key of the project a skill belongs to: its project folder, or `""` for a
    /// skill every project shares.
    pub(crate) fn project_key(&self) -> &str {
        self.project().unwrap_or("")
    }

    /// Whether this is a skill found in the user's standard skill folders.
    fn is_user_discovered(&self) -> bool {
        matches!(self, Provenance::Imported { scope, .. } if scope == "user")
    }
}

/// Whether an import of `incoming` may write over the stored skill of the same name and
/// project, which came from `existing` (rule 2 of the precedence in [`super`]): a skill found in the
/// user's folders never replaces one of the store's own.
pub(crate) fn import_may_replace(existing: &Provenance, incoming: &Provenance) -> bool {
    existing.is_user_discovered() || !incoming.is_user_discovered()
}

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

#[cfg(test)]
mod tests {
    use super::*;

    fn imported(root: &str, scope: &str) -> Provenance {
        Provenance::Imported {
            path: format!("{root}/deploy"),
            root: root.to_owned(),
            scope: scope.to_owned(),
        }
    }

    #[test]
    fn a_project_skill_belongs_to_the_folder_above_its_standard_location() {
        for relative in PROJECT_LOCATIONS.iter() {
            let provenance = imported(&format!("/work/app/{relative}"), "project");
            assert_eq!(provenance.project(), Some("/work/app"), "{relative}");
        }
        assert_eq!(imported("/home/me/.agents/skills", "user").project(), None);
        assert_eq!(imported("/work/skills", "folder").project(), None);
        assert_eq!(Provenance::Api.project(), None);
        // A project root not under a standard location is shared rather than lost.
        assert_eq!(imported("/work/elsewhere", "project").project(), None);
    }

    #[test]
    fn a_user_skill_never_replaces_one_of_the_stores_own() {
        let user = imported("/home/me/.agents/skills", "user");
        let folder = imported("/work/skills", "folder");
        let project = imported("/work/app/.agents/skills", "project");
        for store_own in [&Provenance::Api, &folder] {
            assert!(!import_may_replace(store_own, &user));
            assert!(import_may_replace(store_own, &folder));
        }
        assert!(import_may_replace(&user, &user));
        assert!(import_may_replace(&user, &folder));
        assert!(import_may_replace(&project, &project));
    }
}
