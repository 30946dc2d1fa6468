//! `skillpath to-prompt`: the reference validator's `<available_skills>` block. In
//! `skills-ref` mode the first skill that cannot be read aborts, as in the reference; in the
//! other modes an invalid skill is left out and named, and the block holds the rest.

use skillpath_core::Mode;
use skillpath_core::load::LoadOptions;
use skillpath_core::skills_ref;
use skillpath_core::validate::{self, ValidateOptions};

use crate::cli::ToPromptArgs;
use crate::inputs;
use crate::output::{self, ExitStatus};

pub(crate) fn run(args: ToPromptArgs) -> anyhow::Result<ExitStatus> {
    inputs::require_existing(&args.paths)?;
    let dirs: Vec<_> = args
        .paths
        .iter()
        .map(|path| inputs::skill_dir_of(path))
        .collect();
    if args.read.mode == Mode::SkillsRef {
        // Like the reference, the first skill that cannot be read aborts, and nothing is printed.
        let mut entries = Vec::with_capacity(dirs.len());
        for dir in &dirs {
            match skills_ref::prompt_entry(dir) {
                Ok(entry) => entries.push(entry),
                Err(message) => {
                    output::stderr(&format!("Error: {message}\n"))?;
                    return Ok(ExitStatus::Invalid);
                }
            }
        }
        output::stdout(&format!("{}\n", skills_ref::to_prompt(&entries)))?;
        return Ok(ExitStatus::Success);
    }
    let options = ValidateOptions {
        load: LoadOptions {
            mode: args.read.mode,
            max_file_size: args.read.max_file_size,
        },
        lints: false,
    };
    // An invalid skill is left out and named; the others are still put in the block.
    let mut entries = Vec::with_capacity(dirs.len());
    let mut status = ExitStatus::Success;
    for dir in &dirs {
        let report = validate::validate_dir(dir, &options);
        match super::catalog::entry(&report) {
            Some(entry) => entries.push(entry),
            None => {
                output::stderr(&format!(
                    "error: left out `{}`: it is not valid in {} mode\n{}",
                    dir.display(),
                    args.read.mode,
                    super::validate::diagnostics_text(&report, true)
                ))?;
                status = ExitStatus::Invalid;
            }
        }
    }
    if !entries.is_empty() {
        output::stdout(&format!("{}\n", skills_ref::to_prompt_escaped(&entries)))?;
    }
    Ok(status)
}
