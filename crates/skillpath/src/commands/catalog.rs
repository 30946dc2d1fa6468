//! `skillpath catalog`: the catalog an agent puts in its prompt, optionally within a budget.

use std::fmt::Write as _;

use rayon::prelude::*;
use skillpath_core::catalog::{self, CatalogEntry, CatalogFormat};
use skillpath_core::load::LoadOptions;
use skillpath_core::validate::{self, ValidateOptions};
use skillpath_core::{python_unicode, yaml};

use crate::cli::{self, CatalogArgs};
use crate::inputs;
use crate::output::{self, ExitStatus};

/// The frontmatter flag with which a skill opts out of model invocation; the client guide says
/// such skills are left out of the model's catalog.
const DISABLE_MODEL_INVOCATION: &str = "disable-model-invocation";

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
        if disables_model_invocation(report) {
            let _ = writeln!(
                notes,
                "note: left out `{}`: it sets `{DISABLE_MODEL_INVOCATION}: true`",
                dir.display()
            );
            continue;
        }
        match entry_from(report) {
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

/// The catalog entry of a skill that is valid, or its errors as text.
pub(crate) fn entry(report: &validate::Report) -> Result<CatalogEntry, String> {
    match entry_from(report) {
        Some(entry) if report.is_valid() => Ok(entry),
        _ => Err(super::validate::diagnostics_text(report, true)),
    }
}

/// Whether the skill sets `disable-model-invocation` to true: the YAML boolean (`true`, `True`,
/// `TRUE`), or the string `"true"` that loaders also treat as set.
fn disables_model_invocation(report: &validate::Report) -> bool {
    let value = report
        .skill_md
        .as_ref()
        .and_then(|skill| skill.field(DISABLE_MODEL_INVOCATION))
        .map(|entry| yaml::to_json(&entry.value));
    matches!(value, Some(serde_json::Value::Bool(true)))
        || value.as_ref().and_then(serde_json::Value::as_str) == Some("true")
}

fn entry_from(report: &validate::Report) -> Option<CatalogEntry> {
    Some(CatalogEntry {
        name: python_unicode::strip(report.name()?).to_owned(),
        description: python_unicode::strip(report.description()?).to_owned(),
        location: report.location()?.display().to_string(),
    })
}
