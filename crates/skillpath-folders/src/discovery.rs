//! Discovery: finding the skills that agents would load for a project and for the user, in the
//! folders where agents look for them ([`PROJECT_LOCATIONS`], [`USER_LOCATIONS`]), so they can be
//! imported with their provenance (which location folder, which scope).
//!
//! # Where
//!
//! Project scope: every entry of [`PROJECT_LOCATIONS`] in the project folder and in each parent
//! folder up to and including the repository root, the first folder with a `.git`
//! ([`project_dirs`]). User scope: every entry of [`USER_LOCATIONS`] in the home folder.
//!
//! # Precedence
//!
//! Skills are taken in this order:
//!
//! 1. project scope before user scope (project overrides user, the convention of every agent);
//! 2. within the project, the folder nearest to the start folder first (a package's skills
//!    override the repository's);
//! 3. within one folder, the order of [`PROJECT_LOCATIONS`] (or [`USER_LOCATIONS`]);
//! 4. within one location folder, path order.
//!
//! The first skill with a given `name` wins. Every later skill with the same `name` is reported
//! in [`Discovery::shadowed`] together with the winner, never dropped silently. Where discovered
//! skills stand against the store's own, and which project's skills a store shows, is the
//! store's `scopes` module.
//!
//! # Bounds and safety
//!
//! Each location folder is walked by [`skillpath_core::walk::find_skill_dirs`]: `.git` and
//! `node_modules` are skipped, a symlink that leaves the location folder is refused, and the walk
//! stops at [`DiscoveryLimits`] (depth and folder count). Everything not searched or not loaded
//! is in [`Discovery::skipped`] with the reason. A location folder reached twice (the project
//! folder is the home folder, or `.claude/skills` is a symlink to `.agents/skills`) is searched
//! once, the second time is reported in `skipped`.

use std::collections::HashMap;
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use serde::Serialize;
use skillpath_core::load::{self, LoadOptions};
use skillpath_core::{Code, Diagnostic, Mode};

use crate::folder::FolderDiagnostics;
use crate::home::user_folder;
use skillpath_core::walk::{self, WalkLimits};
use skillpath_model::agents::{PROJECT_LOCATIONS, USER_LOCATIONS};

/// Whose skills: the project's or the user's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Found in the project folder or one of its parents up to the repository root.
    Project,
    /// Found in the user's home folder.
    User,
}

impl Scope {
    /// `project` or `user`, as serialized (and as a stored skill's provenance names the scope).
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::User => "user",
        }
    }
}

/// One standard location: a folder, relative to a project folder or to the home folder, where
/// agents look for skills.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Location {
    /// Project folder or home folder.
    pub scope: Scope,
    /// The folder, relative to the project folder (or home folder), with `/` separators.
    pub relative: &'static str,
}

/// Every standard location: the project ones, then the user ones, each in precedence order.
pub fn locations() -> Vec<Location> {
    let project = PROJECT_LOCATIONS.iter().map(|&relative| Location {
        scope: Scope::Project,
        relative,
    });
    let user = USER_LOCATIONS.iter().map(|&relative| Location {
        scope: Scope::User,
        relative,
    });
    project.chain(user).collect()
}

/// Bounds on the walk of each location folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiscoveryLimits {
    /// Deepest folder level searched below a location folder (a skill directly in it is level 1).
    pub max_depth: usize,
    /// Most folders read per location folder.
    pub max_dirs: usize,
}

impl Default for DiscoveryLimits {
    /// The client guide's bounds: depth 6, 2000 folders per location folder.
    fn default() -> Self {
        DiscoveryLimits {
            max_depth: 6,
            max_dirs: 2000,
        }
    }
}

/// A skill found in a standard location.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Found {
    /// The skill's `name`, from its `SKILL.md`.
    pub name: String,
    /// The skill folder.
    pub path: PathBuf,
    /// The scope of the location folder.
    pub scope: Scope,
    /// The location folder the skill was found under (for example `<project>/.claude/skills`).
    pub root: PathBuf,
}

/// A skill that lost to an earlier skill with the same `name`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Shadowed {
    /// The skill that is not used.
    pub found: Found,
    /// The skill with the same `name` that wins.
    pub by: Found,
}

impl std::fmt::Display for Shadowed {
    /// The one wording of a shadowed skill, with its winner: `` `name` at `path` (scope) by
    /// `path` (scope) ``.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` at `{}` ({}) by `{}` ({})",
            self.found.name,
            self.found.path.display(),
            self.found.scope.as_str(),
            self.by.path.display(),
            self.by.scope.as_str()
        )
    }
}

/// What [`discover`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Discovery {
    /// The winning skills, one per `name`, in precedence order.
    pub skills: Vec<Found>,
    /// Every skill that lost to an earlier one with the same `name`, in the order found.
    pub shadowed: Vec<Shadowed>,
    /// Everything not searched, with the reason: symlinks leaving a location folder, bounds
    /// reached, location folders already searched under another path.
    pub skipped: Vec<(PathBuf, String)>,
    /// Skill folders that cannot be loaded (no frontmatter, no `name`, unreadable), each with
    /// the diagnostics that say why, as `validate` words them.
    pub unloadable: Vec<FolderDiagnostics>,
    /// Every location folder that existed and was searched, in precedence order.
    pub searched: Vec<PathBuf>,
}

/// The project folders searched for `start`: `start`, then each parent up to and including the
/// repository root (the first folder containing `.git`, a folder or a worktree's file). Without
/// a `.git` above, only `start`.
///
/// `start` is made absolute with symlinks resolved; when it cannot be (it does not exist), it is
/// returned alone as given.
pub fn project_dirs(start: &Path) -> Vec<PathBuf> {
    let Ok(start) = start.canonicalize() else {
        return vec![start.to_path_buf()];
    };
    let mut dirs = Vec::new();
    for dir in start.ancestors() {
        dirs.push(dir.to_path_buf());
        if dir.join(".git").symlink_metadata().is_ok() {
            return dirs;
        }
    }
    vec![start]
}

/// Finds the skills for the project at `project` (its folder and the parents up to the
/// repository root) and for the user whose home folder is `home`, in the precedence order of the
/// module documentation.
pub fn discover(project: Option<&Path>, home: Option<&Path>, limits: DiscoveryLimits) -> Discovery {
    let mut roots = Vec::new();
    if let Some(start) = project {
        for dir in project_dirs(start) {
            for relative in PROJECT_LOCATIONS.iter() {
                roots.push((Scope::Project, dir.join(relative)));
            }
        }
    }
    if let Some(home) = home {
        for relative in USER_LOCATIONS.iter() {
            roots.push((Scope::User, user_folder(relative, home)));
        }
    }
    let mut search = Search {
        limits: WalkLimits {
            max_depth: limits.max_depth,
            max_dirs: limits.max_dirs,
        },
        ..Search::default()
    };
    for (scope, root) in roots {
        search.location(scope, root);
    }
    search.finish()
}

/// The state of one [`discover`] call.
#[derive(Default)]
struct Search {
    limits: WalkLimits,
    result: Discovery,
    /// Index in `result.skills` of the winner of each name.
    winners: HashMap<String, usize>,
    /// Canonical path of each location folder searched, to the path it was searched under.
    roots: HashMap<PathBuf, PathBuf>,
    /// Canonical path of each skill folder found, to the path it was found under.
    skill_dirs: HashMap<PathBuf, PathBuf>,
}

impl Search {
    fn location(&mut self, scope: Scope, root: PathBuf) {
        let skipped = &mut self.result.skipped;
        match fs::metadata(&root) {
            Ok(metadata) if metadata.is_dir() => {}
            Ok(_) => {
                skipped.push((root, "not a folder".to_owned()));
                return;
            }
            // A dangling symlink is a location someone meant to set up: say so.
            Err(error) if error.kind() == ErrorKind::NotFound => {
                if root.symlink_metadata().is_ok() {
                    skipped.push((root, "symlink to a folder that does not exist".to_owned()));
                }
                return;
            }
            Err(error) => {
                skipped.push((root, format!("cannot read: {error}")));
                return;
            }
        }
        let canonical = root.canonicalize().unwrap_or_else(|_| root.clone());
        if let Some(first) = self.roots.get(&canonical) {
            let reason = format!("the same folder as `{}`, already searched", first.display());
            skipped.push((root, reason));
            return;
        }
        self.roots.insert(canonical, root.clone());
        self.result.searched.push(root.clone());

        let walked = walk::find_skill_dirs(&root, self.limits);
        self.result.skipped.extend(walked.skipped);
        for skill in walked.skills {
            let path = skill.dir;
            let canonical = skill.read.root().to_path_buf();
            if let Some(first) = self.skill_dirs.get(&canonical) {
                let reason = format!("the same folder as `{}`, already found", first.display());
                self.result.skipped.push((path, reason));
                continue;
            }
            let named = skill_name(&path, &canonical);
            self.skill_dirs.insert(canonical, path.clone());
            match named {
                Ok(name) => self.found(Found {
                    name,
                    path,
                    scope,
                    root: root.clone(),
                }),
                Err(diagnostics) => self.result.unloadable.push(FolderDiagnostics {
                    folder: path,
                    diagnostics,
                }),
            }
        }
    }

    fn found(&mut self, found: Found) {
        match self.winners.get(&found.name) {
            Some(&winner) => {
                let by = self.result.skills[winner].clone();
                self.result.shadowed.push(Shadowed { found, by });
            }
            None => {
                self.winners
                    .insert(found.name.clone(), self.result.skills.len());
                self.result.skills.push(found);
            }
        }
    }

    /// Says where a refused symlink's skill is found after all, so the common layout of an
    /// installer (skills in `.agents/skills`, symlinked from `.claude/skills`) reads as what it is.
    fn finish(mut self) -> Discovery {
        for (path, reason) in &mut self.result.skipped {
            let is_link = path
                .symlink_metadata()
                .is_ok_and(|metadata| metadata.file_type().is_symlink());
            if !is_link {
                continue;
            }
            let Ok(target) = path.canonicalize() else {
                continue;
            };
            if let Some(found) = self.skill_dirs.get(&target) {
                reason.push_str(&format!(
                    "; it points to the skill found at `{}`",
                    found.display()
                ));
            }
        }
        self.result
    }
}

/// The `name` of the skill in `dir` (whose canonical path is `real`), read as lenient loading
/// reads it, or the diagnostics that say why it cannot be loaded (in `validate`'s words).
fn skill_name(dir: &Path, real: &Path) -> Result<String, Vec<Diagnostic>> {
    let options = LoadOptions {
        mode: Mode::Lenient,
        ..LoadOptions::default()
    };
    let skill = load::load_skill_md(dir, options)
        .map_err(|diagnostic| vec![diagnostic.in_file(dir.join("SKILL.md"))])?;
    let directory_name = real.file_name().and_then(|name| name.to_str());
    let problems = skillpath_core::validate::loading(&skill, directory_name);
    if problems.iter().any(Diagnostic::is_error) {
        return Err(problems.into_iter().filter(Diagnostic::is_error).collect());
    }
    skill
        .field("name")
        .and_then(|entry| entry.value.as_scalar())
        .map(|scalar| scalar.text.clone())
        .ok_or_else(|| {
            vec![
                Diagnostic::error(Code::NameMissing, "no `name` in the frontmatter")
                    .in_file(dir.join("SKILL.md")),
            ]
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A temporary folder, canonical so paths compare with those [`project_dirs`] returns.
    fn temp() -> (tempfile::TempDir, PathBuf) {
        let temp = tempfile::tempdir().expect("tempdir");
        let root = temp.path().canonicalize().expect("canonical tempdir");
        (temp, root)
    }

    fn write(dir: &Path, skill_md: &str) {
        fs::create_dir_all(dir).expect("mkdir");
        fs::write(dir.join("SKILL.md"), skill_md).expect("write SKILL.md");
    }

    fn skill(dir: &Path, name: &str) {
        write(
            dir,
            &format!("---\nname: {name}\ndescription: test\n---\nBody.\n"),
        );
    }

    fn repo(dir: &Path) {
        fs::create_dir_all(dir.join(".git")).expect("mkdir .git");
    }

    fn found(name: &str, path: &Path, scope: Scope, root: &Path) -> Found {
        Found {
            name: name.to_owned(),
            path: path.to_path_buf(),
            scope,
            root: root.to_path_buf(),
        }
    }

    fn paths(found: &[Found]) -> Vec<&Path> {
        found.iter().map(|found| found.path.as_path()).collect()
    }

    fn symlink(target: &Path, link: &Path) {
        fs::create_dir_all(link.parent().expect("parent")).expect("mkdir");
        std::os::unix::fs::symlink(target, link).expect("symlink");
    }

    #[test]
    fn locations_walk_up_to_the_repository_root_and_not_above() {
        let (_temp, root) = temp();
        let outer = root.join("outer");
        let repo_dir = outer.join("repo");
        let start = repo_dir.join("packages/app");
        repo(&repo_dir);
        fs::create_dir_all(&start).expect("mkdir");
        skill(&outer.join(".agents/skills/above"), "above");
        skill(&repo_dir.join(".agents/skills/at-root"), "at-root");
        skill(&repo_dir.join("packages/.claude/skills/middle"), "middle");
        skill(&start.join(".agents/skills/here"), "here");

        assert_eq!(
            project_dirs(&start),
            [start.clone(), repo_dir.join("packages"), repo_dir.clone()]
        );
        let discovery = discover(Some(&start), None, DiscoveryLimits::default());
        assert_eq!(
            paths(&discovery.skills),
            [
                start.join(".agents/skills/here").as_path(),
                &repo_dir.join("packages/.claude/skills/middle"),
                &repo_dir.join(".agents/skills/at-root"),
            ]
        );
        assert_eq!(
            discovery.searched,
            [
                start.join(".agents/skills"),
                repo_dir.join("packages/.claude/skills"),
                repo_dir.join(".agents/skills"),
            ]
        );
        assert!(discovery.shadowed.is_empty());
        assert!(discovery.skipped.is_empty(), "{:?}", discovery.skipped);

        // A worktree's `.git` is a file; it marks the root all the same.
        let worktree = root.join("worktree");
        fs::create_dir_all(worktree.join("sub")).expect("mkdir");
        fs::write(worktree.join(".git"), "gitdir: elsewhere\n").expect("write .git");
        assert_eq!(
            project_dirs(&worktree.join("sub")),
            [worktree.join("sub"), worktree.clone()]
        );

        // No repository above: only the start folder.
        let lone = root.join("lone/inner");
        fs::create_dir_all(&lone).expect("mkdir");
        skill(&root.join("lone/.agents/skills/parent"), "parent");
        assert_eq!(project_dirs(&lone), std::slice::from_ref(&lone));
        let discovery = discover(Some(&lone), None, DiscoveryLimits::default());
        assert!(discovery.skills.is_empty());
        assert!(discovery.searched.is_empty());
    }

    #[test]
    fn project_scope_overrides_user_scope() {
        let (_temp, root) = temp();
        let project = root.join("project");
        let home = root.join("home");
        repo(&project);
        skill(&project.join(".agents/skills/pdf"), "pdf");
        skill(&home.join(".agents/skills/pdf"), "pdf");
        skill(&home.join(".claude/skills/mine"), "mine");

        let discovery = discover(Some(&project), Some(&home), DiscoveryLimits::default());
        let project_pdf = found(
            "pdf",
            &project.join(".agents/skills/pdf"),
            Scope::Project,
            &project.join(".agents/skills"),
        );
        assert_eq!(
            discovery.skills,
            [
                project_pdf.clone(),
                found(
                    "mine",
                    &home.join(".claude/skills/mine"),
                    Scope::User,
                    &home.join(".claude/skills"),
                ),
            ]
        );
        assert_eq!(
            discovery.shadowed,
            [Shadowed {
                found: found(
                    "pdf",
                    &home.join(".agents/skills/pdf"),
                    Scope::User,
                    &home.join(".agents/skills"),
                ),
                by: project_pdf,
            }]
        );
        assert_eq!(
            discovery.searched,
            [
                project.join(".agents/skills"),
                home.join(".agents/skills"),
                home.join(".claude/skills"),
            ]
        );
    }

    #[test]
    fn nearer_project_folder_beats_farther() {
        let (_temp, root) = temp();
        let repo_dir = root.join("repo");
        let package = repo_dir.join("packages/web");
        repo(&repo_dir);
        skill(&repo_dir.join(".agents/skills/deploy"), "deploy");
        skill(&package.join(".agents/skills/deploy"), "deploy");

        let discovery = discover(Some(&package), None, DiscoveryLimits::default());
        assert_eq!(
            paths(&discovery.skills),
            [package.join(".agents/skills/deploy").as_path()]
        );
        assert_eq!(discovery.shadowed.len(), 1);
        assert_eq!(
            discovery.shadowed[0].found.path,
            repo_dir.join(".agents/skills/deploy")
        );
        assert_eq!(
            discovery.shadowed[0].by.path,
            package.join(".agents/skills/deploy")
        );
    }

    #[test]
    fn agents_skills_comes_before_claude_skills_in_one_folder() {
        let (_temp, root) = temp();
        skill(&root.join(".claude/skills/review"), "review");
        skill(&root.join(".agents/skills/review"), "review");
        skill(&root.join(".claude/skills/only-claude"), "only-claude");

        let discovery = discover(Some(&root), None, DiscoveryLimits::default());
        assert_eq!(
            paths(&discovery.skills),
            [
                root.join(".agents/skills/review").as_path(),
                &root.join(".claude/skills/only-claude"),
            ]
        );
        assert_eq!(discovery.skills[0].root, root.join(".agents/skills"));
        assert_eq!(discovery.shadowed.len(), 1);
        assert_eq!(
            discovery.shadowed[0].found.path,
            root.join(".claude/skills/review")
        );
        assert_eq!(
            discovery.shadowed[0].found.root,
            root.join(".claude/skills")
        );
    }

    #[test]
    fn every_shadowed_duplicate_is_reported_with_its_winner() {
        let (_temp, root) = temp();
        let repo_dir = root.join("repo");
        let start = repo_dir.join("app");
        let home = root.join("home");
        repo(&repo_dir);
        // Folder names differ from the `name`: the `name` is what collides.
        skill(&start.join(".agents/skills/a"), "dup");
        skill(&start.join(".agents/skills/b"), "dup");
        skill(&start.join(".cursor/skills/c"), "dup");
        skill(&repo_dir.join(".github/skills/d"), "dup");
        skill(&home.join(".agents/skills/e"), "dup");
        skill(&home.join(".config/opencode/skills/f"), "dup");
        skill(&home.join(".gemini/skills/solo"), "solo");

        let discovery = discover(Some(&start), Some(&home), DiscoveryLimits::default());
        let winner = start.join(".agents/skills/a");
        assert_eq!(
            paths(&discovery.skills),
            [winner.as_path(), &home.join(".gemini/skills/solo")]
        );
        let losers: Vec<&Path> = discovery
            .shadowed
            .iter()
            .map(|shadowed| shadowed.found.path.as_path())
            .collect();
        assert_eq!(
            losers,
            [
                start.join(".agents/skills/b").as_path(),
                &start.join(".cursor/skills/c"),
                &repo_dir.join(".github/skills/d"),
                &home.join(".agents/skills/e"),
                &home.join(".config/opencode/skills/f"),
            ]
        );
        for shadowed in &discovery.shadowed {
            assert_eq!(shadowed.by.path, winner);
            assert_eq!(shadowed.by.scope, Scope::Project);
            assert_eq!(shadowed.found.name, "dup");
        }
        let scopes: Vec<Scope> = discovery
            .shadowed
            .iter()
            .map(|shadowed| shadowed.found.scope)
            .collect();
        assert_eq!(
            scopes,
            [
                Scope::Project,
                Scope::Project,
                Scope::Project,
                Scope::User,
                Scope::User
            ]
        );
    }

    #[test]
    fn git_and_node_modules_are_skipped() {
        let (_temp, root) = temp();
        let location = root.join(".agents/skills");
        skill(&location.join("kept"), "kept");
        skill(&location.join(".git/hidden"), "in-git");
        skill(&location.join("node_modules/pkg"), "in-node-modules");
        skill(
            &location.join("tools/node_modules/pkg"),
            "nested-node-modules",
        );

        let discovery = discover(Some(&root), None, DiscoveryLimits::default());
        assert_eq!(paths(&discovery.skills), [location.join("kept").as_path()]);
        assert!(discovery.shadowed.is_empty());
        assert!(discovery.skipped.is_empty(), "{:?}", discovery.skipped);
    }

    #[test]
    fn a_symlink_out_of_a_location_folder_is_refused() {
        let (_temp, root) = temp();
        let project = root.join("project");
        let location = project.join(".claude/skills");
        skill(&root.join("elsewhere/secret"), "secret");
        skill(&location.join("inside"), "inside");
        symlink(&root.join("elsewhere/secret"), &location.join("secret"));
        symlink(&root.join("elsewhere"), &location.join("more"));

        let discovery = discover(Some(&project), None, DiscoveryLimits::default());
        assert_eq!(
            paths(&discovery.skills),
            [location.join("inside").as_path()]
        );
        let mut refused: Vec<(&Path, &str)> = discovery
            .skipped
            .iter()
            .map(|(path, why)| (path.as_path(), why.as_str()))
            .collect();
        refused.sort();
        assert_eq!(
            refused,
            [
                (
                    location.join("more").as_path(),
                    "symlink leaves the searched folder"
                ),
                (
                    location.join("secret").as_path(),
                    "symlink leaves the searched folder"
                ),
            ]
        );
    }

    #[test]
    fn a_refused_symlink_to_a_skill_found_elsewhere_says_so() {
        // The layout installers create: the skill in `.agents/skills`, a link in `.claude/skills`.
        let (_temp, root) = temp();
        let real = root.join(".agents/skills/pdf");
        skill(&real, "pdf");
        symlink(&real, &root.join(".claude/skills/pdf"));

        let discovery = discover(Some(&root), None, DiscoveryLimits::default());
        assert_eq!(paths(&discovery.skills), [real.as_path()]);
        assert!(discovery.shadowed.is_empty());
        assert_eq!(
            discovery.skipped,
            [(
                root.join(".claude/skills/pdf"),
                format!(
                    "symlink leaves the searched folder; it points to the skill found at `{}`",
                    real.display()
                )
            )]
        );
    }

    #[test]
    fn a_location_folder_reached_twice_is_searched_once() {
        // `.claude/skills` is a symlink to `.agents/skills`, and the project folder is the home
        // folder: every folder is searched once, in project scope, and no skill shadows itself.
        let (_temp, root) = temp();
        skill(&root.join(".agents/skills/pdf"), "pdf");
        symlink(&root.join(".agents/skills"), &root.join(".claude/skills"));

        let discovery = discover(Some(&root), Some(&root), DiscoveryLimits::default());
        assert_eq!(
            discovery.skills,
            [found(
                "pdf",
                &root.join(".agents/skills/pdf"),
                Scope::Project,
                &root.join(".agents/skills"),
            )]
        );
        assert!(discovery.shadowed.is_empty());
        assert_eq!(discovery.searched, [root.join(".agents/skills")]);
        let first = root.join(".agents/skills");
        let again = format!("the same folder as `{}`, already searched", first.display());
        assert_eq!(
            discovery.skipped,
            [
                (root.join(".claude/skills"), again.clone()),
                (root.join(".agents/skills"), again.clone()),
                (root.join(".claude/skills"), again),
            ]
        );
    }

    #[test]
    fn bounds_are_reported() {
        let (_temp, root) = temp();
        let location = root.join(".agents/skills");
        skill(&location.join("shallow"), "shallow");
        skill(&location.join("group/deep"), "deep");

        let limits = DiscoveryLimits {
            max_depth: 1,
            max_dirs: 100,
        };
        let discovery = discover(Some(&root), None, limits);
        assert_eq!(
            paths(&discovery.skills),
            [location.join("shallow").as_path()]
        );
        assert_eq!(
            discovery.skipped,
            [(
                location.join("group/deep"),
                "not searched: deeper than 1 levels".to_owned()
            )]
        );

        let limits = DiscoveryLimits {
            max_depth: 6,
            max_dirs: 1,
        };
        let discovery = discover(Some(&root), None, limits);
        // The location folder is the one folder read: `shallow` is seen in it, `group` is not
        // searched.
        assert_eq!(
            paths(&discovery.skills),
            [location.join("shallow").as_path()]
        );
        assert!(
            discovery.skipped.contains(&(
                location.join("group"),
                "not searched: the walk stops after 1 folders".to_owned()
            )),
            "{:?}",
            discovery.skipped
        );
    }

    #[test]
    fn skills_without_a_name_or_unreadable_are_skipped_with_the_reason() {
        let (_temp, root) = temp();
        let location = root.join(".agents/skills");
        skill(&location.join("good"), "good");
        write(&location.join("no-name"), "---\ndescription: d\n---\n");
        write(
            &location.join("empty-name"),
            "---\nname:\ndescription: d\n---\n",
        );
        write(&location.join("list-name"), "---\nname: [a, b]\n---\n");
        write(&location.join("no-frontmatter"), "Just text.\n");
        fs::create_dir_all(location.join("folder-not-file/SKILL.md")).expect("mkdir");

        let discovery = discover(Some(&root), None, DiscoveryLimits::default());
        assert_eq!(paths(&discovery.skills), [location.join("good").as_path()]);
        assert!(discovery.skipped.is_empty(), "{:?}", discovery.skipped);
        let unloadable: HashMap<&Path, Vec<Code>> = discovery
            .unloadable
            .iter()
            .map(|folder| {
                for diagnostic in &folder.diagnostics {
                    let file = &diagnostic.location.as_ref().expect("placed").file;
                    assert!(file.starts_with(&folder.folder), "{file:?}");
                }
                let codes = folder.diagnostics.iter().map(|d| d.code).collect();
                (folder.folder.as_path(), codes)
            })
            .collect();
        assert_eq!(unloadable.len(), 5, "{unloadable:?}");
        for (folder, code) in [
            ("no-name", Code::NameMissing),
            ("empty-name", Code::NameEmpty),
            ("list-name", Code::NameNotString),
            ("no-frontmatter", Code::FrontmatterMissing),
            ("folder-not-file", Code::SkillMdNotAFile),
        ] {
            assert!(
                unloadable[location.join(folder).as_path()].contains(&code),
                "{folder}: {unloadable:?}"
            );
        }
    }

    #[test]
    fn nothing_is_found_when_no_location_exists() {
        let (_temp, root) = temp();
        let project = root.join("project");
        let home = root.join("home");
        repo(&project);
        fs::create_dir_all(project.join("src")).expect("mkdir");
        fs::create_dir_all(&home).expect("mkdir");
        // A skill outside every standard location is not discovered.
        skill(&project.join("skills/stray"), "stray");

        let discovery = discover(Some(&project), Some(&home), DiscoveryLimits::default());
        assert_eq!(discovery, Discovery::default());
        assert_eq!(
            discover(None, None, DiscoveryLimits::default()),
            Discovery::default()
        );
        assert_eq!(
            discover(
                Some(&root.join("does-not-exist")),
                Some(&root.join("nor-this")),
                DiscoveryLimits::default()
            ),
            Discovery::default()
        );
    }

    #[test]
    fn scope_serializes_lowercase() {
        let json = serde_json::to_string(&[Scope::Project, Scope::User]).expect("serialize");
        assert_eq!(json, r#"["project","user"]"#);
        assert_eq!(
            [Scope::Project.as_str(), Scope::User.as_str()],
            ["project", "user"]
        );
        assert_eq!(
            locations().len(),
            PROJECT_LOCATIONS.len() + USER_LOCATIONS.len()
        );
        assert_eq!(
            locations()[0],
            Location {
                scope: Scope::Project,
                relative: ".agents/skills"
            }
        );
    }

    /// The lists in README.md, as generated from the constants.
    fn documented_lists() -> String {
        let list = |prefix: &str, entries: &[&str]| -> String {
            entries
                .iter()
                .enumerate()
                .map(|(i, relative)| format!("{}. `{prefix}/{relative}`\n", i + 1))
                .collect()
        };
        format!(
            "Project scope, in each project folder `<dir>`:\n\n{}\nUser scope, in the home folder `~`:\n\n{}",
            list("<dir>", &PROJECT_LOCATIONS),
            list("~", &USER_LOCATIONS)
        )
    }

    /// The agents' table as the README shows it.
    fn documented_agents() -> String {
        let folders = |list: &[&str], prefix: &str| -> String {
            list.iter()
                .map(|folder| format!("`{prefix}/{folder}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut table = String::from(
            "| id | agent | project folders | user folders | installed when |\n|---|---|---|---|---|\n",
        );
        for agent in skillpath_model::agents::AGENTS {
            let detect = if agent.detect.is_empty() {
                "always".to_owned()
            } else {
                format!(
                    "{} exists",
                    folders(agent.detect, "~").replace(", ", " or ")
                )
            };
            table.push_str(&format!(
                "| `{}` | {} | {} | {} | {detect} |\n",
                agent.id,
                agent.name,
                folders(agent.project, "<dir>"),
                folders(agent.user, "~")
            ));
        }
        table
    }

    #[test]
    fn discovery_md_lists_every_location_and_the_bounds() {
        let doc = include_str!("../../../README.md");
        let agents = documented_agents();
        assert!(
            doc.contains(&agents),
            "the agents' table in README.md differs from the code; it should read:\n\n{agents}"
        );
        for location in locations() {
            let shown = match location.scope {
                Scope::Project => format!("`<dir>/{}`", location.relative),
                Scope::User => format!("`~/{}`", location.relative),
            };
            assert!(doc.contains(&shown), "README.md does not list {shown}");
        }
        let lists = documented_lists();
        assert!(
            doc.contains(&lists),
            "the location lists in README.md differ from the constants; they should read:\n\n{lists}"
        );
        let limits = DiscoveryLimits::default();
        let bounds = format!(
            "at most **{}** levels deep, reading at most **{}** folders",
            limits.max_depth, limits.max_dirs
        );
        assert!(
            doc.contains(&bounds),
            "README.md should state the bounds as: {bounds}"
        );
    }
}
