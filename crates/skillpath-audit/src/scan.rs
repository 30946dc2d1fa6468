//! One audit: the rules run over a skill's files, within the limits.
//!
//! Apart from the crate root, which holds the types the rules report to, so no rule module and
//! the root import each other.

use skillpath_core::Mode;
use skillpath_core::bundle::SkillBundle;
use skillpath_core::load::LoadOptions;
use skillpath_core::skill_md::SkillMd;

use crate::{Context, MAX_FILES, MAX_SKILL_BYTES, SkillAudit};
use crate::{files, frontmatter, hidden, secrets, shell, steering, text};

/// How the auditor reads a skill's `SKILL.md`: as lenient loading does, so a skill that loads
/// is audited whatever else is wrong with it.
fn parse_skill_md(bundle: &SkillBundle) -> Option<SkillMd> {
    let options = LoadOptions {
        mode: Mode::Lenient,
        ..LoadOptions::default()
    };
    bundle.parse_skill_md(options).ok()
}

/// The `name` of a parsed `SKILL.md`, when it is text.
fn name_of(skill_md: &SkillMd) -> Option<String> {
    let entry = skill_md.field("name")?;
    Some(entry.value.as_scalar()?.text.clone())
}

/// The `name` of `bundle`'s skill, as the auditor reads it: what a [`Context`] of the skills
/// audited together is made of.
pub fn skill_name(bundle: &SkillBundle) -> Option<String> {
    name_of(&parse_skill_md(bundle)?)
}

/// Audits `bundle` with what `context` knows of the other skills.
pub fn audit(bundle: &SkillBundle, context: &Context) -> SkillAudit {
    let skill_md = parse_skill_md(bundle);
    let name = skill_md.as_ref().and_then(name_of);
    let mut found = text::Found::new(&bundle.display_path, name);
    files::check(bundle, &mut found);
    let mut budget = MAX_SKILL_BYTES;
    for (index, (path, bytes)) in bundle.files.iter().enumerate() {
        if index == MAX_FILES {
            found.note(format!(
                "only the first {MAX_FILES} of its {} files were audited",
                bundle.files.len()
            ));
            break;
        }
        let Some(file) = text::TextFile::of(path, bytes, &mut budget, &mut found) else {
            continue;
        };
        hidden::check(&file, &mut found);
        secrets::check(&file, &mut found);
        shell::check(&file, &mut found);
        steering::check(&file, &mut found);
    }
    if let Some(skill_md) = &skill_md {
        frontmatter::check(bundle, skill_md, context, &mut found);
    }
    found.finish()
}
