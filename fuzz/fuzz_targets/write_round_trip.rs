//! Writing skills from structured data (what `create_skill` takes): a spec the writer accepts
//! must read back as the same spec and rewrite to the same bytes; a spec it refuses is refused
//! with a reason, never a panic.
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use skillpath_core::golden_path::GoldenSkill;
use skillpath_core::golden_path::spec::SkillSpec;
use skillpath_core::{Mode, skill_md};

fuzz_target!(|data: &[u8]| {
    let Ok(spec) = serde_json::from_slice::<SkillSpec>(data) else {
        return;
    };
    let Ok(written) = spec.write() else {
        return;
    };
    let skill = skill_md::parse("s/SKILL.md".into(), written.skill_md.clone(), Mode::Spec);
    assert!(
        skill.diagnostics.iter().all(|d| !d.is_error()),
        "the written file does not parse: {:?}\n{}",
        skill.diagnostics,
        written.skill_md
    );
    let (golden, _) = GoldenSkill::read(&skill);
    let files: BTreeMap<String, String> = written
        .files
        .iter()
        .map(|f| (f.path.clone(), f.content.clone()))
        .collect();
    let read = SkillSpec::from_skill(&skill, &golden, |path| files.get(path).cloned())
        .expect("a written skill reads back");
    assert_eq!(
        read,
        spec.normalized(),
        "read back differently:\n{}",
        written.skill_md
    );
    let rewritten = read.write().expect("what was read can be written").skill_md;
    assert_eq!(rewritten, written.skill_md, "rewriting changed bytes");
});
