//! Where a skill came from, and the rules read from it: which project a skill belongs to, and
//! whether an import may write over a stored skill of the same name (the precedence the
//! store's `scopes` module describes).

use crate::agents::PROJECT_LOCATIONS;

/// Where a skill came from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Provenance {
    /// Imported from a folder on disk.
    Imported {
        /// The skill's folder, as given to the import.
        path: String,
        /// The import root or discovery location it was found under.
        root: String,
        /// `project`, `user` or `folder` (imported by name).
        scope: String,
    },
    /// Created through the API (an MCP tool or a CLI command).
    Api,
    /// Copied from another item under a new name (the store's `fork`), so that a team can
    /// adapt it and still know what it adapted.
    Forked {
        /// The item it was copied from.
        from: String,
        /// The revision of that item it was copied at.
        revision: u64,
    },
}

impl Provenance {
    /// The skill folder it was imported from; empty for a skill created through the API.
    pub fn folder(&self) -> &str {
        match self {
            Provenance::Imported { path, .. } => path,
            Provenance::Api | Provenance::Forked { .. } => "",
        }
    }

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
    pub fn project_key(&self) -> &str {
        self.project().unwrap_or("")
    }

    /// Whether this is a skill found in the user's standard skill folders.
    fn is_user_discovered(&self) -> bool {
        matches!(self, Provenance::Imported { scope, .. } if scope == "user")
    }
}

/// Whether an import of `incoming` may write over the stored skill of the same name and
/// project, which came from `existing` (rule 2 of the precedence): a skill found in the
/// user's folders never replaces one of the store's own.
pub fn import_may_replace(existing: &Provenance, incoming: &Provenance) -> bool {
    existing.is_user_discovered() || !incoming.is_user_discovered()
}

/// A skill left out for another of the same name (the store's `scopes` say which wins), and
/// the one kept.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ShadowedSkill {
    /// The shared name.
    pub name: String,
    /// The folder of the skill left out; empty for one created through tools.
    pub path: String,
    /// The folder of the skill kept; empty for one created through tools.
    pub kept: String,
}

impl std::fmt::Display for ShadowedSkill {
    /// The one wording of a skill left out: `` `name` at `path` (kept the one at `kept`) ``,
    /// where a skill created through tools is "the one created through tools".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let place = |folder: &str| {
            if folder.is_empty() {
                "created through tools".to_owned()
            } else {
                format!("at `{folder}`")
            }
        };
        write!(
            f,
            "`{}` {} (kept the one {})",
            self.name,
            place(&self.path),
            place(&self.kept)
        )
    }
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
