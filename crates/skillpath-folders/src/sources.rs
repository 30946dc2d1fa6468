//! Where skill folders come from: the standard skill folders of a project and a user
//! ([`discovery`]) and any folders or trees a user names. One search for `import`, `serve` and
//! the watcher, so each of them sees the same folders, skips the same ones and reports the
//! same shadowed skills.

use std::collections::HashSet;
use std::path::PathBuf;

use skillpath_core::package;
use skillpath_core::walk::{self, WalkLimits};

use crate::discovery::{self, DiscoveryLimits, Shadowed};
use crate::folder::{FolderDiagnostics, FolderSource};
use skillpath_model::{Provenance, ShadowedSkill};

/// Where skills come from on disk.
#[derive(Debug, Clone, Default)]
pub struct FolderSources {
    /// Discover the standard skill folders from this project folder (and this home folder).
    pub discover: Option<(PathBuf, Option<PathBuf>)>,
    /// More folders (or trees) of skills, each searched for skill folders.
    pub roots: Vec<PathBuf>,
}

/// The skill folders of some [`FolderSources`], and what the search passed over.
#[derive(Debug, Default)]
pub struct Located {
    /// The skill folders, in precedence order.
    pub folders: Vec<FolderSource>,
    /// What was not searched, and why (symlinks out, bounds reached, unreadable folders).
    pub skipped: Vec<(PathBuf, String)>,
    /// Skill folders found that cannot be loaded (discovery reads each one's name).
    pub unloadable: Vec<FolderDiagnostics>,
    /// Skills discovery left out for another of the same name (a user skill for the
    /// project's), each with the one kept.
    pub shadowed: Vec<Shadowed>,
    /// The folders searched, to watch for changes.
    pub watched: Vec<PathBuf>,
}

impl Located {
    /// The shadowed skills in the store's wording, as `list_skills` shows them.
    pub fn shadowed_skills(&self) -> Vec<ShadowedSkill> {
        self.shadowed
            .iter()
            .map(|shadowed| ShadowedSkill {
                name: shadowed.found.name.clone(),
                path: shadowed.found.path.display().to_string(),
                kept: shadowed.by.path.display().to_string(),
            })
            .collect()
    }
}

impl FolderSources {
    /// Finds every skill folder of the sources, without reading them: discovery's first (it
    /// keeps one skill per name, project over user), then each root's.
    pub fn locate(&self) -> Located {
        let mut located = Located::default();
        if let Some((project, home)) = &self.discover {
            let found =
                discovery::discover(Some(project), home.as_deref(), DiscoveryLimits::default());
            located.watched.extend(found.searched);
            located.skipped.extend(found.skipped);
            located.unloadable = found.unloadable;
            located.shadowed = found.shadowed;
            located
                .folders
                .extend(found.skills.into_iter().map(|skill| {
                    FolderSource::imported(
                        skill.path,
                        skill.root.display().to_string(),
                        skill.scope.as_str().to_owned(),
                    )
                }));
        }
        for root in &self.roots {
            let found = walk::find_skill_dirs(root, WalkLimits::default());
            located.watched.push(root.clone());
            located.skipped.extend(found.skipped);
            located
                .folders
                .extend(found.skills.into_iter().map(|skill| {
                    FolderSource::walked(skill, root.display().to_string(), "folder".to_owned())
                }));
        }
        located.folders = with_packages(std::mem::take(&mut located.folders));
        located
    }
}

/// `folders` with, after the first member found of each package (a folder with a
/// `PACKAGE.md` that lists the skill: [`package::package_of`]), the package's own folder, found
/// where its member was (same root and scope): importing a package's skills imports the
/// package.
fn with_packages(folders: Vec<FolderSource>) -> Vec<FolderSource> {
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut out = Vec::with_capacity(folders.len());
    for folder in folders {
        let package = package::package_of(&folder.dir)
            .filter(|(dir, _)| seen.insert(dir.clone()))
            .map(|(dir, _)| match &folder.provenance {
                Provenance::Imported { root, scope, .. } => {
                    FolderSource::imported(dir, root.clone(), scope.clone())
                }
                Provenance::Api | Provenance::Forked { .. } => {
                    FolderSource::imported(dir, String::new(), "folder".to_owned())
                }
            });
        out.push(folder);
        out.extend(package);
    }
    out
}
