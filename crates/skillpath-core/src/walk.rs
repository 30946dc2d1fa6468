//! Finding skill folders in a tree: every folder with a `SKILL.md` (or `skill.md`).
//!
//! The walk skips `.git` and `node_modules`, also searches inside skill folders (real skills
//! nest sub-skills: `qdrant-scaling/scaling-qps/SKILL.md`), follows a symlink only when it stays
//! inside the scanned root, and stops at bounds on depth and folder count, saying so rather than
//! going quiet.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use crate::disk::is_skill_dir;

/// Folders never searched.
pub const SKIPPED_DIRS: [&str; 2] = [".git", "node_modules"];

/// Bounds on a walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalkLimits {
    /// Deepest folder level searched below the root.
    pub max_depth: usize,
    /// Most folders read.
    pub max_dirs: usize,
}

impl Default for WalkLimits {
    /// Generous bounds for a tree the user named on the command line.
    fn default() -> Self {
        WalkLimits {
            max_depth: 32,
            max_dirs: 200_000,
        }
    }
}

/// What a walk found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WalkResult {
    /// Skill folders, sorted by path.
    pub skills: Vec<PathBuf>,
    /// Things not searched, each with the reason (symlinks leaving the root, unreadable folders,
    /// bounds reached).
    pub skipped: Vec<(PathBuf, String)>,
}

/// Why the `SKILL.md` of `dir` is a symlink that cannot be followed (a loop, a dangling
/// link), if it is one.
fn unfollowable_skill_md(dir: &Path) -> Option<String> {
    let path = dir.join("SKILL.md");
    fs::symlink_metadata(&path).ok()?;
    fs::metadata(&path)
        .err()
        .map(|error| format!("`SKILL.md` is a symlink that cannot be followed: {error}"))
}

/// Finds every skill folder under `root` (including `root` itself).
pub fn find_skill_dirs(root: &Path, limits: WalkLimits) -> WalkResult {
    let mut result = WalkResult::default();
    let canonical_root = match root.canonicalize() {
        Ok(path) => path,
        Err(error) => {
            result
                .skipped
                .push((root.to_path_buf(), format!("cannot read: {error}")));
            return result;
        }
    };
    // Canonical paths of the folders walked, so a folder reached twice (through a symlink inside
    // the tree, or a symlink loop) is reported once.
    let mut visited = HashSet::new();
    let mut dirs_read = 0;
    // Each folder comes with its canonical path: a real folder's is its parent's joined with
    // its name, so only symlinks need resolving (resolving every folder's path cost a lookup
    // of each of its components, most of a large walk's time).
    let mut stack = vec![(root.to_path_buf(), canonical_root.clone(), 0usize)];
    // Symlinked folders are walked after all real ones, so a skill reachable both ways is
    // reported under its real path.
    let mut links = Vec::new();
    while let Some((dir, canonical, depth)) = stack.pop().or_else(|| links.pop()) {
        if !visited.insert(canonical.clone()) {
            continue;
        }
        if is_skill_dir(&dir) {
            result.skills.push(dir.clone());
        } else if let Some(problem) = unfollowable_skill_md(&dir) {
            // Not a skill, but meant to be one: say why rather than pass over it in silence.
            result.skipped.push((dir.join("SKILL.md"), problem));
        }
        if dirs_read >= limits.max_dirs {
            result.skipped.push((
                dir,
                format!(
                    "not searched: the walk stops after {} folders",
                    limits.max_dirs
                ),
            ));
            continue;
        }
        dirs_read += 1;
        let entries = match fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(error) => {
                result.skipped.push((dir, format!("cannot read: {error}")));
                continue;
            }
        };
        let mut children = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name();
            if SKIPPED_DIRS.iter().any(|skipped| name == *skipped) {
                continue;
            }
            let path = entry.path();
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            if file_type.is_symlink() {
                match path.canonicalize() {
                    Ok(target) if target.is_dir() && !target.starts_with(&canonical_root) => {
                        result
                            .skipped
                            .push((path, "symlink leaves the searched folder".to_owned()));
                        continue;
                    }
                    Ok(target) if target.is_dir() && depth < limits.max_depth => {
                        links.push((path, target, depth + 1));
                        continue;
                    }
                    Ok(target) if target.is_dir() => children.push((path, target)),
                    _ => continue,
                }
            } else if file_type.is_dir() {
                children.push((path, canonical.join(&name)));
            }
        }
        if depth >= limits.max_depth {
            for (child, _) in children {
                result.skipped.push((
                    child,
                    format!("not searched: deeper than {} levels", limits.max_depth),
                ));
            }
            continue;
        }
        // Reverse-sorted onto the stack so folders come off it in name order.
        children.sort_unstable_by(|a, b| b.0.cmp(&a.0));
        stack.extend(
            children
                .into_iter()
                .map(|(child, canonical)| (child, canonical, depth + 1)),
        );
    }
    result.skills.sort();
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(dir: &Path) {
        fs::create_dir_all(dir).expect("mkdir");
        fs::write(dir.join("SKILL.md"), "---\nname: x\ndescription: y\n---\n").expect("write");
    }

    #[test]
    fn finds_skills_skips_vendored_folders_and_escaping_symlinks() {
        let temp = tempfile::tempdir().expect("tempdir");
        let root = temp.path().join("root");
        skill(&root.join("a"));
        skill(&root.join("plugins/p/skills/b"));
        skill(&root.join("a/nested-inside-a-skill"));
        skill(&root.join(".git/c"));
        skill(&root.join("node_modules/d"));
        skill(&root.join(".claude/skills/e"));
        skill(&temp.path().join("outside/f"));
        std::os::unix::fs::symlink(temp.path().join("outside"), root.join("link-out"))
            .expect("symlink");
        std::os::unix::fs::symlink(&root, root.join("loop")).expect("symlink");
        std::os::unix::fs::symlink(root.join("plugins"), root.join("link-to-plugins"))
            .expect("symlink");
        let result = find_skill_dirs(&root, WalkLimits::default());
        let found: Vec<String> = result
            .skills
            .iter()
            .map(|p| p.strip_prefix(&root).expect("inside").display().to_string())
            .collect();
        assert_eq!(
            found,
            [
                ".claude/skills/e",
                "a",
                "a/nested-inside-a-skill",
                "plugins/p/skills/b"
            ]
        );
        assert_eq!(result.skipped.len(), 1);
        assert!(result.skipped[0].1.contains("symlink leaves"));
    }

    #[test]
    fn bounds_are_reported() {
        let temp = tempfile::tempdir().expect("tempdir");
        skill(&temp.path().join("1/2/3/deep"));
        let result = find_skill_dirs(
            temp.path(),
            WalkLimits {
                max_depth: 2,
                max_dirs: 100,
            },
        );
        assert!(result.skills.is_empty());
        assert!(
            result
                .skipped
                .iter()
                .any(|(_, why)| why.contains("deeper than 2"))
        );
    }
}
