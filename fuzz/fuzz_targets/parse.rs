//! Frontmatter and body parsing in every mode, and the Golden Path reading on top of it: any
//! text gives diagnostics, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use skillpath_core::golden_path::GoldenSkill;
use skillpath_core::{Mode, skill_md};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for mode in [Mode::SkillsRef, Mode::Spec, Mode::Lenient] {
        let skill = skill_md::parse("fuzz/SKILL.md".into(), text.to_owned(), mode);
        let _ = skill.frontmatter_json();
        let _ = skill.body();
        let _ = GoldenSkill::read(&skill);
    }
});
