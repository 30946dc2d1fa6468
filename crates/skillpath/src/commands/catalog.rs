//! `skillpath catalog`: the catalog an agent puts in its prompt, optionally within a budget.

use std::fmt::Write as _;

use rayon::prelude::*;
use skillpath_core::catalog::{self, CatalogEntry, CatalogFormat, DISABLE_MODEL_INVOCATION};
use skillpath_core::load::LoadOptions;
use skillpath_core::validate::{self, ValidateOptions};

use crate::cli::{self, CatalogArgs};
use crate::inputs;
use crate::output::{self, ExitStatus};

pub(crate) fn run(args: CatalogArgs) -> anyhow::Result<ExitStatus> {
    inputs::require_existing(&args.paths)?;
    let (dirs, skipped) = inputs::skill_dirs(&args.paths, true);
    inputs::report_skipped(&skipped)?;
    if dirs.is_empty() {
        // The client guide: with no skills, leave the catalog out entirely.
        output::stderr("note: no skills found; the catalog is empty\n")?;
        return Ok(ExitStatus::Success);
    }
    let options = ValidateOptions {
        load: LoadOptions {
            mode: args.mode,
            ..LoadOptions::default()
        },
        lints: false,
    };
    let results: Vec<_> = dirs
        .par_iter()
        .map(|dir| (dir, validate::validate_dir(dir, &options)))
        .collect();

    let mut notes = String::new();
    let mut entries = Vec::new();
    let mut status = ExitStatus::Success;
    for (dir, report) in &results {
        if report
            .skill_md
            .as_ref()
            .is_some_and(catalog::disables_model_invocation)
        {
            let _ = writeln!(
                notes,
                "note: left out `{}`: it sets `{DISABLE_MODEL_INVOCATION}: true`",
                dir.display()
            );
            continue;
        }
        match CatalogEntry::of(report) {
            Some(entry) if report.is_valid() => entries.push(entry),
            _ => {
                status = ExitStatus::Invalid;
                let _ = writeln!(
                    notes,
                    "error: left out `{}`: it is not valid in {} mode",
                    dir.display(),
                    args.mode
                );
                notes.push_str(&super::validate::diagnostics_text(report, true));
            }
        }
    }
    let format = match args.format {
        cli::CatalogFormat::Xml => CatalogFormat::Xml,
        cli::CatalogFormat::Json => CatalogFormat::Json,
        cli::CatalogFormat::Markdown => CatalogFormat::Markdown,
    };
    if let Some(budget) = args.max_chars {
        let (fitted, shortened) = match catalog::fit(&entries, format, budget) {
            Ok(fitted) => fitted,
            Err(error) => {
                // Say what was left out and why before giving up, not instead.
                output::stderr(&notes)?;
                return Err(error.into());
            }
        };
        for item in &shortened {
            let _ = writeln!(
                notes,
                "note: shortened the description of `{}` from {} to {} characters",
                item.name, item.from, item.to
            );
        }
        entries = fitted;
    }
    output::stderr(&notes)?;
    output::stdout(&catalog::render(&entries, format))?;
    Ok(status)
}

/// The catalog entry of a skill that is valid; `None` for one with errors.
pub(crate) fn entry(report: &validate::Report) -> Option<CatalogEntry> {
    CatalogEntry::of(report).filter(|_| report.is_valid())
}
