//! `skillpath validate`: check skills and report diagnostics.

use std::fmt::Write as _;
use std::time::Instant;

use rayon::prelude::*;
use skillpath_core::load::LoadOptions;
use skillpath_core::validate::{self, Report, ValidateOptions};
use skillpath_core::{Code, Mode, Severity, package, pathlib, render_diagnostics, tool_names};

use crate::cli::{ReportFormat, ValidateArgs};
use crate::inputs;
use crate::output::{self, ExitStatus, plural};

pub(crate) fn run(args: ValidateArgs) -> anyhow::Result<ExitStatus> {
    inputs::require_existing(&args.paths)?;
    let started = Instant::now();
    let (dirs, skipped) = inputs::skill_dirs(&args.paths, args.recursive);
    inputs::report_skipped(&skipped)?;
    if dirs.is_empty() {
        let searched: Vec<String> = args
            .paths
            .iter()
            .map(|p| format!("`{}`", p.display()))
            .collect();
        output::stderr(&format!(
            "error: no skills found under {}
  = hint: a skill is a folder with a `SKILL.md` in it
",
            searched.join(", ")
        ))?;
        return Ok(ExitStatus::Invalid);
    }
    let mode = args.read.mode;
    let options = ValidateOptions {
        load: LoadOptions {
            mode,
            max_file_size: args.read.max_file_size,
        },
        lints: !args.no_lints && mode != Mode::SkillsRef,
    };
    let mut reports: Vec<Report> = dirs
        .par_iter()
        .map(|dir| validate::validate_dir(dir, &options))
        .collect();
    if !args.recursive {
        for report in &mut reports {
            for diagnostic in &mut report.diagnostics {
                if diagnostic.code == Code::SkillMdMissing && mode != Mode::SkillsRef {
                    diagnostic.hint = Some(
                        "name a skill folder, or search a folder for skills with `-r`".to_owned(),
                    );
                }
            }
        }
    }
    if mode != Mode::SkillsRef {
        // Skills served together must not fight over a tool name, nor over requests: the losers
        // are warned, and the second of two skills whose descriptions compete.
        tool_names::check_reports(&mut reports);
        skillpath_core::overlap::check_reports(&mut reports);
    }
    let elapsed = started.elapsed();

    match (args.format, mode) {
        (ReportFormat::Json, _) => output::stdout(&json_report(&reports, mode, args.quiet))?,
        (ReportFormat::Text, Mode::SkillsRef) => print_reference_style(&reports)?,
        (ReportFormat::Text, _) => {
            let mut text = String::new();
            for report in &reports {
                text.push_str(&diagnostics_text(report, args.quiet));
            }
            let invalid = reports.iter().filter(|r| !r.is_valid()).count();
            let errors: usize = reports.iter().map(|r| r.count(Severity::Error)).sum();
            let warnings: usize = reports.iter().map(|r| r.count(Severity::Warning)).sum();
            // A package's manifest is checked as a report of its own; it is not a skill.
            let packages = reports
                .iter()
                .filter(|r| {
                    r.skill_md.as_ref().is_some_and(|m| {
                        m.file.path.file_name() == Some(std::ffi::OsStr::new(package::MANIFEST))
                    })
                })
                .count();
            let skills = reports.len() - packages;
            let checked = match packages {
                0 => format!("{skills} {}", plural(skills, "skill", "skills")),
                n => format!(
                    "{skills} {} and {n} {}",
                    plural(skills, "skill", "skills"),
                    plural(n, "package", "packages")
                ),
            };
            let _ = writeln!(
                text,
                "{checked} checked in {:.2}s ({mode} mode): {} valid, {invalid} invalid; {errors} {}, {warnings} {}",
                elapsed.as_secs_f64(),
                reports.len() - invalid,
                plural(errors, "error", "errors"),
                plural(warnings, "warning", "warnings"),
            );
            output::stdout(&text)?;
        }
    }
    Ok(if reports.iter().all(Report::is_valid) {
        ExitStatus::Success
    } else {
        ExitStatus::Invalid
    })
}

/// The report's diagnostics as text with snippets, each followed by a blank line.
pub(crate) fn diagnostics_text(report: &Report, errors_only: bool) -> String {
    let source = report.skill_md.as_ref().map(|skill| &skill.file);
    report
        .diagnostics
        .iter()
        .filter(|d| !errors_only || d.is_error())
        .map(|d| format!("{}\n", render_diagnostics::text(d, source)))
        .collect()
}

/// The reference CLI's output: `Valid skill: PATH` on stdout, or `Validation failed for PATH:`
/// and one `  - message` line per error on stderr.
fn print_reference_style(reports: &[Report]) -> std::io::Result<()> {
    for report in reports {
        let shown = pathlib::display(&report.path);
        if report.is_valid() {
            output::stdout(&format!("Valid skill: {shown}\n"))?;
        } else {
            let mut text = format!("Validation failed for {shown}:\n");
            for diagnostic in &report.diagnostics {
                let _ = writeln!(text, "  - {}", diagnostic.message);
            }
            output::stderr(&text)?;
        }
    }
    Ok(())
}

fn json_report(reports: &[Report], mode: Mode, quiet: bool) -> String {
    let skills: Vec<serde_json::Value> = reports
        .iter()
        .map(|report| {
            serde_json::json!({
                "path": report.path.display().to_string(),
                "name": report.name(),
                "valid": report.is_valid(),
                "errors": report.count(Severity::Error),
                "warnings": report.count(Severity::Warning),
                "diagnostics": report
                    .diagnostics
                    .iter()
                    .filter(|d| !quiet || d.is_error())
                    .map(render_diagnostics::json)
                    .collect::<Vec<_>>(),
            })
        })
        .collect();
    let invalid = reports.iter().filter(|r| !r.is_valid()).count();
    let document = serde_json::json!({
        "mode": mode.as_str(),
        "summary": {
            "skills": reports.len(),
            "valid": reports.len() - invalid,
            "invalid": invalid,
            "errors": reports.iter().map(|r| r.count(Severity::Error)).sum::<usize>(),
            "warnings": reports.iter().map(|r| r.count(Severity::Warning)).sum::<usize>(),
        },
        "skills": skills,
    });
    let mut text = serde_json::to_string_pretty(&document).unwrap_or_default();
    text.push('\n');
    text
}
