//! A skill's files in memory are validated as the same files in a folder are: over the whole
//! shared corpus, in every mode, the full diagnostic lists are equal. The bundles here are read
//! with plain `std::fs` calls, not by the folder reader `validate_dir` uses, so a difference
//! between reading a folder and judging files in memory shows.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use skillpath_core::Mode;
use skillpath_core::bundle::SkillBundle;
use skillpath_core::validate::{self, Report};
use skillpath_core::walk::{WalkLimits, find_skill_dirs};

use crate::support::{corpus_root, options};

/// Whether `dir` holds a `SKILL.md` (or a `skill.md`), which makes it a skill of its own.
fn holds_skill_md(dir: &Path) -> bool {
    dir.join("SKILL.md").exists() || dir.join("skill.md").exists()
}

/// The skill folder `dir` read with `std::fs` alone: its `SKILL.md` and every regular file
/// below it but those in `.git`, `node_modules` and sub-folders that are skills of their own
/// (recorded as such).
fn read_by_hand(dir: &Path) -> SkillBundle {
    let real = dir.canonicalize().expect("the skill folder resolves");
    let mut bundle = SkillBundle {
        display_path: dir.to_path_buf(),
        folder_name: real.file_name().and_then(|n| n.to_str()).map(str::to_owned),
        ..SkillBundle::default()
    };
    let mut files = BTreeMap::new();
    let mut folders = vec![(dir.to_path_buf(), String::new())];
    while let Some((folder, prefix)) = folders.pop() {
        for entry in fs::read_dir(&folder).expect("reads the folder") {
            let entry = entry.expect("reads an entry");
            let name = entry.file_name().into_string().expect("a UTF-8 name");
            let relative = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}/{name}")
            };
            let metadata = fs::metadata(entry.path()).expect("reads metadata");
            if metadata.is_dir() {
                if name == ".git" || name == "node_modules" {
                    continue;
                }
                if holds_skill_md(&entry.path()) {
                    bundle.beside.nested_skills.insert(relative);
                } else {
                    folders.push((entry.path(), relative));
                }
            } else if metadata.is_file() && relative != "SKILL.md" {
                files.insert(relative, fs::read(entry.path()).expect("reads a file"));
            }
        }
    }
    if dir.join("SKILL.md").exists() {
        files.insert(
            "SKILL.md".to_owned(),
            fs::read(dir.join("SKILL.md")).expect("reads SKILL.md"),
        );
    }
    bundle.files = files;
    bundle
}

/// Everything a report says, as text: its path, whether a `SKILL.md` was parsed, and every
/// diagnostic with all its fields.
fn said(report: &Report) -> String {
    format!(
        "{}\nparsed: {}\n{:#?}",
        report.path.display(),
        report.skill_md.is_some(),
        report.diagnostics
    )
}

#[test]
fn the_corpus_in_memory_validates_as_on_disk_in_every_mode() {
    let root = corpus_root();
    let walk = find_skill_dirs(&root, WalkLimits::default());
    assert!(walk.skills.len() > 600, "{} skills", walk.skills.len());
    let bundles: Vec<(PathBuf, SkillBundle)> = walk
        .skills
        .iter()
        .map(|skill| (skill.dir.clone(), read_by_hand(&skill.dir)))
        .collect();
    let mut with_diagnostics = 0;
    for mode in [Mode::SkillsRef, Mode::Spec, Mode::Lenient] {
        let options = options(mode, true);
        for (dir, bundle) in &bundles {
            let on_disk = validate::validate_dir(dir, &options);
            let in_memory = validate::validate(bundle, &options);
            assert_eq!(
                said(&in_memory),
                said(&on_disk),
                "{} in {mode} mode",
                dir.display()
            );
            with_diagnostics += usize::from(!on_disk.diagnostics.is_empty());
        }
    }
    // The comparison means something only if the corpus gives diagnostics to compare.
    assert!(
        with_diagnostics > 100,
        "{with_diagnostics} reports with diagnostics"
    );
}
