//! Validation of a skill folder in every mode (lints included in spec mode): any bytes as its
//! `SKILL.md`, invalid UTF-8 included, give a report, never a panic.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use skillpath_core::Mode;
use skillpath_core::load::LoadOptions;
use skillpath_core::validate::{ValidateOptions, validate_dir};

/// One skill folder for the whole run, rewritten for each input.
fn skill_dir() -> &'static PathBuf {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &DIR.get_or_init(|| {
        let temp = tempfile::tempdir().expect("a temporary folder");
        let dir = temp.path().join("fuzz-skill");
        std::fs::create_dir_all(dir.join("references")).expect("a skill folder");
        std::fs::write(dir.join("references/guide.md"), "# Guide\n").expect("a reference");
        (temp, dir)
    })
    .1
}

fuzz_target!(|data: &[u8]| {
    let dir = skill_dir();
    std::fs::write(dir.join("SKILL.md"), data).expect("writes SKILL.md");
    for mode in [Mode::SkillsRef, Mode::Spec, Mode::Lenient] {
        let options = ValidateOptions {
            load: LoadOptions {
                mode,
                ..LoadOptions::default()
            },
            lints: mode == Mode::Spec,
        };
        let report = validate_dir(dir, &options);
        let _ = report.is_valid();
    }
});
