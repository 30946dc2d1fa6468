//! Turning the paths on the command line into skill folders.

use std::path::{Path, PathBuf};

use anyhow::bail;
use skillpath_core::walk::{self, WalkLimits};
use skillpath_core::{package, pathlib};

/// Refuses paths that do not exist: a usage error (exit 2), as in the reference CLI.
pub(crate) fn require_existing(paths: &[PathBuf]) -> anyhow::Result<()> {
    for path in paths {
        if !path.exists() {
            bail!("path `{}` does not exist", path.display());
        }
    }
    Ok(())
}

/// The skill folder a path names: a file called `SKILL.md` (in any case, as the reference
/// accepts) names its folder; anything else names itself.
pub(crate) fn skill_dir_of(path: &Path) -> PathBuf {
    let is_skill_md = path
        .file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| name.eq_ignore_ascii_case("skill.md"));
    if is_skill_md && path.is_file() {
        PathBuf::from(pathlib::parent(path))
    } else {
        path.to_path_buf()
    }
}

/// Skill folders for `paths`: each path's own folder, or with `recursive` every skill folder
/// found under it. Also returns what the search skipped, with reasons.
pub(crate) fn skill_dirs(
    paths: &[PathBuf],
    recursive: bool,
) -> (Vec<PathBuf>, Vec<(PathBuf, String)>) {
    let mut dirs = Vec::new();
    let mut skipped = Vec::new();
    for path in paths {
        let root = skill_dir_of(path);
        // A package folder is its manifest and its member skills.
        let package = package::is_package_folder(&root) && !root.join("SKILL.md").is_file();
        if package {
            dirs.push(root.clone());
        }
        if !recursive {
            if package {
                dirs.extend(package::member_dirs(&root));
            } else {
                dirs.push(root);
            }
            continue;
        }
        let found = walk::find_skill_dirs(&root, WalkLimits::default());
        dirs.extend(found.skills.into_iter().map(|skill| skill.dir));
        skipped.extend(found.skipped);
    }
    (dirs, skipped)
}

/// Tells the user on stderr what a search skipped.
pub(crate) fn report_skipped(skipped: &[(PathBuf, String)]) -> std::io::Result<()> {
    let text: String = skipped
        .iter()
        .map(|(path, why)| format!("warning: skipped `{}`: {why}\n", path.display()))
        .collect();
    crate::output::stderr(&text)
}
