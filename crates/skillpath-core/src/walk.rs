//! Finding skill folders in a tree: every folder with a `SKILL.md` (or `skill.md`).
//!
//! The walk skips `.git` and `node_modules`, also searches inside skill folders (real skills
//! nest sub-skills: `qdrant-scaling/scaling-qps/SKILL.md`), follows a symlink only when it stays
//! inside the scanned root, and stops at bounds on depth and folder count, saying so rather than
//! going quiet.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use crate::disk::{
    FolderRead, Walked, find_skill_md_among, is_skill_dir, names_skill_md, read_entries,
};

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

/// A skill folder a walk found.
#[derive(Debug)]
pub struct FoundSkill {
    /// The folder, under the root as the walk was given it.
    pub dir: PathBuf,
    /// What the walk read of the folder: the entries of every folder in it that the walk read
    /// (at most [`WalkLimits::max_dirs`] folders in all), so that listing the skill's files
    /// ([`crate::skill_files::list_read`]) reads none of them again.
    pub read: FolderRead,
}

/// What a walk found.
#[derive(Debug, Default)]
pub struct WalkResult {
    /// Skill folders, sorted by path.
    pub skills: Vec<FoundSkill>,
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

/// Finds every skill folder under `root` (including `root` itself). Each folder is read once:
/// its entries say whether it is a skill and which of its sub-folders to search, and those of
/// the folders inside a skill folder are kept with the skill ([`FoundSkill::read`]).
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
    // Each folder comes with its canonical path (a real folder's is its parent's joined with
    // its name, so only symlinks need resolving: resolving every folder's path cost a lookup
    // of each of its components, most of a large walk's time), its depth, and the index in
    // `result.skills` of the innermost skill folder it is in, which keeps its entries.
    let mut stack = vec![(
        root.to_path_buf(),
        canonical_root.clone(),
        0usize,
        None::<usize>,
    )];
    // Symlinked folders are walked after all real ones, so a skill reachable both ways is
    // reported under its real path.
    let mut links = Vec::new();
    while let Some((dir, canonical, depth, owner)) = stack.pop().or_else(|| links.pop()) {
        if !visited.insert(canonical.clone()) {
            continue;
        }
        // Within the bound on folders read, the folder's entries say whether it is a skill;
        // past it (or when it cannot be read), lookups of its `SKILL.md` do.
        let entries = (dirs_read < limits.max_dirs).then(|| {
            dirs_read += 1;
            read_entries(&dir)
        });
        let listed = match &entries {
            Some(Ok(entries)) => Some(entries),
            _ => None,
        };
        let is_skill = match listed {
            Some(entries) => find_skill_md_among(&dir, entries).is_some(),
            None => is_skill_dir(&dir),
        };
        let owner = if is_skill {
            if let Some(outer) = owner {
                result.skills[outer].read.keep(&canonical, Walked::Skill);
            }
            result.skills.push(FoundSkill {
                dir: dir.clone(),
                read: FolderRead::unread(canonical.clone()),
            });
            Some(result.skills.len() - 1)
        } else {
            if listed.is_none_or(names_skill_md)
                && let Some(problem) = unfollowable_skill_md(&dir)
            {
                // Not a skill, but meant to be one: say why rather than pass over it in silence.
                result.skipped.push((dir.join("SKILL.md"), problem));
            }
            owner
        };
        let entries = match entries {
            None => {
                result.skipped.push((
                    dir,
                    format!(
                        "not searched: the walk stops after {} folders",
                        limits.max_dirs
                    ),
                ));
                continue;
            }
            Some(Err(error)) => {
                result.skipped.push((dir, format!("cannot read: {error}")));
                continue;
            }
            Some(Ok(entries)) => entries,
        };
        let mut children = Vec::new();
        for entry in entries.iter().flatten() {
            let name = &entry.name;
            if SKIPPED_DIRS.iter().any(|skipped| name == *skipped) {
                continue;
            }
            let path = dir.join(name);
            let Ok(file_type) = entry.file_type.as_ref() else {
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
                        links.push((path, target, depth + 1, owner));
                        continue;
                    }
                    Ok(target) if target.is_dir() => children.push((path, target)),
                    _ => continue,
                }
            } else if file_type.is_dir() {
                children.push((path, canonical.join(name)));
            }
        }
        if let Some(owner) = owner {
            result.skills[owner]
                .read
                .keep(&canonical, Walked::Entries(entries));
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
                .map(|(child, canonical)| (child, canonical, depth + 1, owner)),
        );
    }
    result.skills.sort_by(|a, b| a.dir.cmp(&b.dir));
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
            .map(|skill| {
                skill
                    .dir
                    .strip_prefix(&root)
                    .expect("inside")
                    .display()
                    .to_string()
            })
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

#[cfg(test)]
mod handed_on {
    //! What a walk hands on of each skill folder lists as a listing of the folder itself does.

    use std::os::unix::fs::symlink;

    use super::*;
    use crate::skill_files::{self, SkillFiles};

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        fs::write(path, text).expect("write");
    }

    fn skill(dir: &Path) {
        write(&dir.join("SKILL.md"), "---\nname: x\ndescription: y\n---\n");
    }

    /// Everything a listing says, in an order that does not depend on the file system's.
    fn said(files: &SkillFiles) -> String {
        let mut entries: Vec<String> = files
            .entries
            .iter()
            .map(|entry| {
                format!(
                    "{} at {} ({} bytes)",
                    entry.relative,
                    entry.real.display(),
                    entry.metadata.len()
                )
            })
            .collect();
        entries.sort();
        let mut diagnostics: Vec<String> = files
            .diagnostics
            .iter()
            .map(|d| format!("{:?} {}", d.code, d.message))
            .collect();
        diagnostics.sort();
        let mut nested = files.nested_skills.clone();
        nested.sort();
        let mut links_out = files.links_out.clone();
        links_out.sort();
        format!(
            "root {}\nfiles {entries:#?}\nsaid {diagnostics:#?}\nnested {nested:?}\nout {links_out:?}",
            files.root.display()
        )
    }

    /// A skill folder with every kind of entry a listing treats apart.
    fn messy(temp: &Path) -> PathBuf {
        let dir = temp.join("tree/s");
        skill(&dir);
        skill(&dir.join("references/inner"));
        for (file, text) in [
            ("references/a.md", "A"),
            ("references/deep/b.md", "BB"),
            (
                "skill.md",
                "a second, lowercase SKILL.md is a file of the skill",
            ),
            (".git/config", "x"),
            ("Node_Modules/x.js", "x"),
            ("references/inner/own.md", "its own"),
            ("lower/skill.md", "---\nname: lower\n---\n"),
            (
                "folder-skill-md/SKILL.md/x",
                "a folder named SKILL.md makes a skill",
            ),
        ] {
            write(&dir.join(file), text);
        }
        write(&temp.join("elsewhere/secret"), "S");
        symlink("references", dir.join("alias")).expect("symlink");
        symlink("references/inner", dir.join("inner-link")).expect("symlink");
        symlink(temp.join("elsewhere"), dir.join("out")).expect("symlink");
        symlink("..", dir.join("references/deep/up")).expect("symlink");
        symlink(".", dir.join("here")).expect("symlink");
        symlink("gone", dir.join("dangling")).expect("symlink");
        symlink("nowhere", dir.join("references/deep/SKILL.md")).expect("symlink");
        let made = std::process::Command::new("mkfifo")
            .arg(dir.join("pipe"))
            .status()
            .expect("mkfifo");
        assert!(made.success());
        dir
    }

    #[test]
    fn a_walked_skill_lists_as_its_folder_does() {
        let temp = tempfile::tempdir().expect("tempdir");
        let dir = messy(temp.path());
        let walk = find_skill_dirs(&temp.path().join("tree"), WalkLimits::default());
        let found: Vec<&Path> = walk
            .skills
            .iter()
            .map(|skill| skill.dir.as_path())
            .collect();
        assert_eq!(
            found,
            [
                dir.clone(),
                dir.join("folder-skill-md"),
                dir.join("lower"),
                dir.join("references/inner"),
            ]
        );
        for skill in walk.skills {
            let fresh = skill_files::list(&skill.dir).expect("lists");
            let walked = skill_files::list_read(&skill.dir, skill.read);
            assert_eq!(said(&walked), said(&fresh), "{}", skill.dir.display());
        }
        // What the listing says of the messy one, so the comparison compares something.
        let listing = said(&skill_files::list(&dir).expect("lists"));
        for expected in [
            "references/a.md at",
            "alias/deep/b.md at",
            "skill.md at",
            "FileNotRegular",
            "symlink loop",
            "leads nowhere",
            r#"nested ["alias/inner", "folder-skill-md", "here", "inner-link", "lower", "references/inner"]"#,
            r#"out ["out"]"#,
        ] {
            assert!(listing.contains(expected), "{expected} in {listing}");
        }
        assert!(!listing.contains("config"), "{listing}");
    }

    /// A temporary folder holding the skill `s`, which holds `file`.
    fn one_skill(file: &str) -> (tempfile::TempDir, PathBuf) {
        let temp = tempfile::tempdir().expect("tempdir");
        let dir = temp.path().join("s");
        skill(&dir);
        write(&dir.join(file), "F");
        (temp, dir)
    }

    #[test]
    fn a_walked_skill_is_listed_from_the_walk_s_reading() {
        let (temp, dir) = one_skill("references/a.md");
        skill(&dir.join("inner"));
        let mut walk = find_skill_dirs(temp.path(), WalkLimits::default());
        let read = walk.skills.remove(0).read;
        // Changes after the walk are the next walk's to see: the folders are not read again.
        write(&dir.join("references/late.md"), "L");
        fs::remove_file(dir.join("inner/SKILL.md")).expect("remove");
        let walked = skill_files::list_read(&dir, read);
        let listed: Vec<&str> = walked.entries.iter().map(|e| e.relative.as_str()).collect();
        assert_eq!(listed, ["references/a.md"]);
        assert_eq!(walked.nested_skills, ["inner"]);
        let fresh = skill_files::list(&dir).expect("lists");
        assert_eq!(fresh.entries.len(), 2);
        assert!(fresh.nested_skills.is_empty());
    }

    #[test]
    fn folders_past_the_walk_s_bounds_are_read_by_the_listing() {
        let (temp, dir) = one_skill("a/b/c/d.md");
        skill(&dir.join("a/b/c/deep-skill"));
        let limits = WalkLimits {
            max_depth: 2,
            max_dirs: 100,
        };
        let walk = find_skill_dirs(temp.path(), limits);
        assert_eq!(walk.skills.len(), 1);
        let skill = walk.skills.into_iter().next().expect("one");
        let walked = skill_files::list_read(&skill.dir, skill.read);
        assert_eq!(
            said(&walked),
            said(&skill_files::list(&dir).expect("lists"))
        );
        assert_eq!(walked.nested_skills, ["a/b/c/deep-skill"]);
    }
}
