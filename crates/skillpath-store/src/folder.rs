//! Skill folders on disk: reading one into a [`SkillSnapshot`], writing one back.
//!
//! A skill's files are everything under its folder except `SKILL.md` itself, `.git`,
//! `node_modules`, and sub-folders that are skills of their own (they are imported as such).
//! Symlinks are followed only when they stay inside the skill folder.

use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{StoreError, StoreResult};
use crate::model::{SkillFile, SkillSnapshot, check_relative_path};

/// Largest file a skill may hold.
pub const MAX_FILE_SIZE: u64 = 16 * 1024 * 1024;

fn io(context: String) -> impl FnOnce(std::io::Error) -> StoreError {
    move |source| StoreError::Io { context, source }
}

/// Reads the skill folder `dir`.
pub fn read_skill_folder(dir: &Path) -> StoreResult<SkillSnapshot> {
    let skill_md_path = dir.join("SKILL.md");
    let skill_md = skillpath_core::load::read_text(
        &skill_md_path,
        skillpath_core::load::DEFAULT_MAX_FILE_SIZE,
    )
    .map_err(|diagnostic| StoreError::InvalidSkill(diagnostic.message))?;
    let root = dir
        .canonicalize()
        .map_err(io(format!("cannot read `{}`", dir.display())))?;
    let mut files = Vec::new();
    // Each folder to read comes with the real folders above it, so a symlink back to one of
    // them (a loop, which would be read forever) is caught.
    let mut stack = vec![(root.clone(), String::new(), Vec::<PathBuf>::new())];
    while let Some((folder, prefix, above)) = stack.pop() {
        let entries =
            fs::read_dir(&folder).map_err(io(format!("cannot read `{}`", folder.display())))?;
        for entry in entries {
            let entry = entry.map_err(io(format!("cannot read `{}`", folder.display())))?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                return Err(StoreError::InvalidSkill(format!(
                    "`{}` has a file name that is not UTF-8",
                    entry.path().display()
                )));
            };
            if name == ".git" || name == "node_modules" || (prefix.is_empty() && name == "SKILL.md")
            {
                continue;
            }
            let path = entry.path();
            let real = path
                .canonicalize()
                .map_err(io(format!("cannot read `{}`", path.display())))?;
            if !real.starts_with(&root) {
                return Err(StoreError::InvalidSkill(format!(
                    "`{}` is a symlink that leads out of the skill folder",
                    path.display()
                )));
            }
            let relative = if prefix.is_empty() {
                name.to_owned()
            } else {
                format!("{prefix}/{name}")
            };
            if real.is_dir() {
                if real.join("SKILL.md").exists() {
                    continue;
                }
                if real == folder || above.contains(&real) {
                    return Err(StoreError::InvalidSkill(format!(
                        "`{}` is a symlink to a folder that contains it (a symlink loop)",
                        path.display()
                    )));
                }
                let mut chain = above.clone();
                chain.push(folder.clone());
                stack.push((real, relative, chain));
                continue;
            }
            let size = fs::metadata(&real)
                .map_err(io(format!("cannot read `{}`", path.display())))?
                .len();
            if size > MAX_FILE_SIZE {
                return Err(StoreError::InvalidSkill(format!(
                    "`{}` is {size} bytes, over the limit of {MAX_FILE_SIZE} bytes for a skill's file",
                    path.display()
                )));
            }
            let bytes = fs::read(&real).map_err(io(format!("cannot read `{}`", path.display())))?;
            files.push(SkillFile {
                path: relative,
                bytes,
            });
        }
    }
    SkillSnapshot::new(skill_md, files)
}

/// Writes `snapshot` into `dir` (created if needed): `SKILL.md` and every file. Paths are
/// checked again, so nothing is written outside `dir`.
pub fn write_skill_folder(dir: &Path, snapshot: &SkillSnapshot) -> StoreResult<()> {
    fs::create_dir_all(dir).map_err(io(format!("cannot create `{}`", dir.display())))?;
    let target = dir.join("SKILL.md");
    fs::write(&target, &snapshot.skill_md)
        .map_err(io(format!("cannot write `{}`", target.display())))?;
    for file in &snapshot.files {
        check_relative_path(&file.path)?;
        let target: PathBuf = file
            .path
            .split('/')
            .fold(dir.to_path_buf(), |path, part| path.join(part));
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent)
                .map_err(io(format!("cannot create `{}`", parent.display())))?;
        }
        fs::write(&target, &file.bytes)
            .map_err(io(format!("cannot write `{}`", target.display())))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_files_but_not_nested_skills_or_escaping_links() {
        let temp = tempfile::tempdir().expect("tempdir");
        let skill = temp.path().join("s");
        fs::create_dir_all(skill.join("references")).expect("mkdir");
        fs::create_dir_all(skill.join("nested")).expect("mkdir");
        fs::create_dir_all(skill.join(".git")).expect("mkdir");
        fs::write(
            skill.join("SKILL.md"),
            "---\nname: s\ndescription: d\n---\n",
        )
        .expect("write");
        fs::write(skill.join("references/a.md"), "A").expect("write");
        fs::write(skill.join("b.bin"), [0u8, 255]).expect("write");
        fs::write(
            skill.join("nested/SKILL.md"),
            "---\nname: nested\ndescription: d\n---\n",
        )
        .expect("write");
        fs::write(skill.join(".git/config"), "x").expect("write");
        let snapshot = read_skill_folder(&skill).expect("reads");
        let paths: Vec<&str> = snapshot.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["b.bin", "references/a.md"]);

        fs::write(temp.path().join("secret"), "x").expect("write");
        std::os::unix::fs::symlink(temp.path().join("secret"), skill.join("link"))
            .expect("symlink");
        let error = read_skill_folder(&skill).expect_err("escapes");
        assert!(
            error.to_string().contains("symlink that leads out"),
            "{error}"
        );
    }

    #[test]
    fn refuses_symlink_loops() {
        let temp = tempfile::tempdir().expect("tempdir");
        let skill = temp.path().join("s");
        fs::create_dir_all(skill.join("a")).expect("mkdir");
        fs::create_dir_all(skill.join("b")).expect("mkdir");
        fs::write(
            skill.join("SKILL.md"),
            "---\nname: s\ndescription: d\n---\n",
        )
        .expect("write");
        // Two links to one folder are read twice, not refused.
        std::os::unix::fs::symlink("../b", skill.join("a/to-b")).expect("symlink");
        let snapshot = read_skill_folder(&skill).expect("reads");
        assert!(snapshot.files.is_empty());
        // `a/to-b/to-a/to-b/…` never ends.
        std::os::unix::fs::symlink("../a", skill.join("b/to-a")).expect("symlink");
        let error = read_skill_folder(&skill).expect_err("a loop");
        assert!(error.to_string().contains("symlink loop"), "{error}");
        fs::remove_file(skill.join("b/to-a")).expect("unlink");
        std::os::unix::fs::symlink(".", skill.join("b/here")).expect("symlink");
        let error = read_skill_folder(&skill).expect_err("a loop");
        assert!(error.to_string().contains("symlink loop"), "{error}");
    }

    #[test]
    fn writes_back_byte_for_byte() {
        let temp = tempfile::tempdir().expect("tempdir");
        let snapshot = SkillSnapshot::new(
            "---\nname: s\r\ndescription: d\n---\n".into(),
            vec![SkillFile {
                path: "a/b/c.bin".into(),
                bytes: vec![0, 1, 2, 255],
            }],
        )
        .expect("valid");
        write_skill_folder(&temp.path().join("out"), &snapshot).expect("writes");
        assert_eq!(
            read_skill_folder(&temp.path().join("out")).expect("reads"),
            snapshot
        );
    }
}
