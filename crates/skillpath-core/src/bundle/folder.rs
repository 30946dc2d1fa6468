//! Reading a skill folder into a [`SkillBundle`]: its `SKILL.md` (`load`), then every file
//! the folder's listing holds (`skill_files`), with what was left out.

use std::path::Path;

use super::SkillBundle;
use crate::diagnostic::{Code, Diagnostic};
use crate::load::{self, LoadOptions};
use crate::mode::Mode;
use crate::pathlib;
use crate::skill_files;

impl SkillBundle {
    /// Reads the skill folder `dir` (as the user named it). The `Err` case is a skill that
    /// cannot be read at all: no such folder, not a folder, no `SKILL.md`, or one that cannot
    /// be read within `options.max_file_size` (in `options.mode`'s words). Files the listing
    /// leaves out, and files that cannot be read, are [`SkillBundle::read_diagnostics`].
    pub fn read_folder(dir: &Path, options: &LoadOptions) -> Result<SkillBundle, Diagnostic> {
        let reference = options.mode == Mode::SkillsRef;
        if !dir.exists() {
            let message = if reference {
                format!("Path does not exist: {}", pathlib::display(dir))
            } else {
                format!("`{}` does not exist", dir.display())
            };
            return Err(Diagnostic::error(Code::PathNotFound, message).in_file(dir.to_path_buf()));
        }
        if !dir.is_dir() {
            let message = if reference {
                format!("Not a directory: {}", pathlib::display(dir))
            } else {
                format!("`{}` is not a folder", dir.display())
            };
            return Err(Diagnostic::error(Code::NotADirectory, message)
                .with_hint("name the skill's folder (or its `SKILL.md`)")
                .in_file(dir.to_path_buf()));
        }
        let (skill_md_name, skill_md) = load::read_skill_md(dir, *options)?;
        let real = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        let mut bundle = SkillBundle {
            display_path: dir.to_path_buf(),
            folder_name: real
                .file_name()
                .and_then(|name| name.to_str())
                .map(str::to_owned),
            ..SkillBundle::default()
        };
        match skill_files::list(dir) {
            Ok(listing) => {
                bundle.read_diagnostics = listing.diagnostics;
                bundle.beside.nested_skills = listing.nested_skills.into_iter().collect();
                bundle.beside.links_out = listing.links_out.into_iter().collect();
                for entry in listing.entries {
                    // A lowercase `skill.md` is listed too; it is read once, as the `SKILL.md`.
                    if entry.relative == skill_md_name {
                        continue;
                    }
                    match skill_files::read(&entry) {
                        Ok(bytes) => {
                            bundle.files.insert(entry.relative, bytes);
                        }
                        Err(diagnostic) => bundle.read_diagnostics.push(diagnostic),
                    }
                }
            }
            Err(diagnostic) => bundle.read_diagnostics.push(diagnostic),
        }
        bundle.files.insert(skill_md_name.to_owned(), skill_md);
        Ok(bundle)
    }
}
