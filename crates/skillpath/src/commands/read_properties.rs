//! `skillpath read-properties`: a skill's frontmatter as JSON.

use skillpath_core::load::LoadOptions;
use skillpath_core::validate::{self, ValidateOptions};
use skillpath_core::{Mode, skills_ref};

use crate::cli::ReadPropertiesArgs;
use crate::inputs;
use crate::output::{self, ExitStatus};

pub(crate) fn run(args: ReadPropertiesArgs) -> anyhow::Result<ExitStatus> {
    inputs::require_existing(std::slice::from_ref(&args.path))?;
    let dir = inputs::skill_dir_of(&args.path);
    if args.read.mode == Mode::SkillsRef {
        return Ok(
            match skills_ref::read_properties(&dir, args.read.max_file_size) {
                Ok(properties) => {
                    output::stdout(&format!("{}\n", skills_ref::properties_json(&properties)))?;
                    ExitStatus::Success
                }
                Err(message) => {
                    output::stderr(&format!("Error: {message}\n"))?;
                    ExitStatus::Invalid
                }
            },
        );
    }
    let options = ValidateOptions {
        load: LoadOptions {
            mode: args.read.mode,
            max_file_size: args.read.max_file_size,
        },
        lints: false,
    };
    let report = validate::validate_dir(&dir, &options);
    if !report.is_valid() {
        let text = super::validate::diagnostics_text(&report, true);
        output::stderr(&text)?;
        return Ok(ExitStatus::Invalid);
    }
    let json = report
        .skill_md
        .as_ref()
        .map(|skill| skill.frontmatter_json())
        .unwrap_or_default();
    output::stdout(&format!("{}\n", serde_json::to_string_pretty(&json)?))?;
    Ok(ExitStatus::Success)
}
