//! `skillpath render`: a skill rendered with arguments.

use std::path::Path;

use skillpath_core::bundle::SkillBundle;
use skillpath_core::golden_path::{GoldenSkill, render};
use skillpath_core::load::LoadOptions;
use skillpath_core::skill_md::SkillMd;
use skillpath_core::{Diagnostic, render_diagnostics};

use crate::cli::RenderArgs;
use crate::inputs;
use crate::output::{self, ExitStatus};

pub(crate) fn run(args: RenderArgs) -> anyhow::Result<ExitStatus> {
    let Some(skill) = read_golden(&args.path)? else {
        return Ok(ExitStatus::Invalid);
    };
    let mut given = args.args_json.unwrap_or_default();
    for (name, value) in args.args {
        given.insert(name, serde_json::Value::String(value));
    }
    match render::render(&skill.skill_md, &skill.golden, &skill.bundle, &given) {
        Ok(rendered) => {
            let warnings: String = rendered
                .warnings
                .iter()
                .map(|warning| format!("warning: {warning}\n"))
                .collect();
            output::stderr(&warnings)?;
            output::stdout(&rendered.markdown)?;
            Ok(ExitStatus::Success)
        }
        Err(error) => {
            output::stderr(&format!("error: {error}"))?;
            Ok(ExitStatus::Invalid)
        }
    }
}

/// A skill read for its Golden Path parts, with its files, where its templates are.
pub(crate) struct ReadSkill {
    pub(crate) skill_md: SkillMd,
    pub(crate) golden: GoldenSkill,
    pub(crate) bundle: SkillBundle,
}

/// Reads the skill at `path` (a folder or its `SKILL.md`). When its frontmatter or arguments
/// have errors, prints them on stderr and returns `None`.
pub(crate) fn read_golden(path: &Path) -> anyhow::Result<Option<ReadSkill>> {
    inputs::require_existing(std::slice::from_ref(&path.to_path_buf()))?;
    let dir = inputs::skill_dir_of(path);
    let read = SkillBundle::read_folder(&dir, &LoadOptions::default())
        .and_then(|bundle| Ok((bundle.parse_skill_md(LoadOptions::default())?, bundle)));
    let (skill_md, mut bundle) = match read {
        Ok(read) => read,
        Err(diagnostic) => {
            output::stderr(&render_diagnostics::text(&diagnostic, None))?;
            return Ok(None);
        }
    };
    // A member of a package takes the package's options with their defaults.
    if let Some((_, package)) = skillpath_core::package::package_of(&dir) {
        bundle.package_options = package.options;
    }
    let (golden, diagnostics) = GoldenSkill::read_in(&skill_md, &bundle);
    let errors: Vec<&Diagnostic> = skill_md
        .diagnostics
        .iter()
        .chain(&diagnostics)
        .filter(|d| d.is_error())
        .collect();
    if !errors.is_empty() || skill_md.frontmatter.is_none() {
        let text: String = errors
            .iter()
            .map(|d| format!("{}\n", render_diagnostics::text(d, Some(&skill_md.file))))
            .collect();
        output::stderr(&text)?;
        return Ok(None);
    }
    Ok(Some(ReadSkill {
        skill_md,
        golden,
        bundle,
    }))
}
