//! `skillpath audit`: the auditor's findings for skill folders or stored skills, as text, JSON
//! or SARIF, with a severity to fail on and a baseline of known findings.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use rayon::prelude::*;
use skillpath_app::Operation;
use skillpath_audit::{Baseline, Context, Severity, SkillAudit, render};
use skillpath_core::bundle::SkillBundle;
use skillpath_core::load::LoadOptions;
use skillpath_core::{Mode, render_diagnostics};
use skillpath_store::StoreError;

use crate::cli::{AuditArgs, AuditFormat, FailOn};
use crate::inputs;
use crate::output::{self, ExitStatus};

/// What an audit run found, before it is printed.
struct Run {
    audits: Vec<SkillAudit>,
    /// Skills that could not be read, with why (one line each).
    unreadable: Vec<String>,
    started: Instant,
}

pub(crate) fn run(args: AuditArgs) -> anyhow::Result<ExitStatus> {
    let baseline = match &args.baseline {
        Some(path) => {
            let read = std::fs::read_to_string(path)
                .map_err(|error| error.to_string())
                .and_then(|text| Baseline::from_json(&text).map_err(|error| error.to_string()));
            match read {
                Ok(baseline) => Some(baseline),
                Err(why) => {
                    output::stderr(&format!(
                        "error: the baseline `{}` cannot be read: {why}\n  = hint: write one with `skillpath audit … --write-baseline {}`\n",
                        path.display(),
                        path.display()
                    ))?;
                    return Ok(ExitStatus::UsageOrInternal);
                }
            }
        }
        None => None,
    };
    match args.store.clone() {
        Some(names) => {
            let db = args.db.clone();
            super::store::run_as_owner(
                &db,
                super::store::AsOwner::existing(),
                move |owner| async move {
                    let started = Instant::now();
                    let permit = owner.may(Operation::GetSkill)?;
                    let skills = owner.app.current_skills(&permit).await?;
                    for name in &names {
                        if !skills.iter().any(|skill| &skill.name == name) {
                            return Err(StoreError::NotFound {
                                name: name.clone(),
                                revision: None,
                            }
                            .into());
                        }
                    }
                    let context = Context::new(skills.iter().map(|skill| skill.name.clone()));
                    let audits = skills
                        .par_iter()
                        .filter(|skill| names.is_empty() || names.contains(&skill.name))
                        .map(|skill| {
                            skillpath_audit::audit(&skill.snapshot.to_bundle(&skill.name), &context)
                        })
                        .collect();
                    let run = Run {
                        audits,
                        unreadable: Vec::new(),
                        started,
                    };
                    report(run, &args, baseline.as_ref()).map_err(super::store::io)
                },
            )
        }
        None => {
            inputs::require_existing(&args.paths)?;
            let run = audit_folders(&args.paths)?;
            Ok(report(run, &args, baseline.as_ref())?)
        }
    }
}

/// Audits every skill folder found under `paths`.
fn audit_folders(paths: &[PathBuf]) -> std::io::Result<Run> {
    let started = Instant::now();
    let (dirs, skipped) = inputs::skill_dirs(paths, true);
    inputs::report_skipped(&skipped)?;
    let options = LoadOptions {
        mode: Mode::Lenient,
        ..LoadOptions::default()
    };
    let read: Vec<_> = dirs
        .par_iter()
        .map(|dir| SkillBundle::read_folder(dir, &options))
        .collect();
    let mut bundles = Vec::with_capacity(read.len());
    let mut unreadable = Vec::new();
    for result in read {
        match result {
            Ok(bundle) => bundles.push(bundle),
            Err(diagnostic) => unreadable.push(render_diagnostics::line(&diagnostic)),
        }
    }
    let names: Vec<String> = bundles
        .par_iter()
        .filter_map(skillpath_audit::skill_name)
        .collect();
    let context = Context::new(names);
    let audits = bundles
        .par_iter()
        .map(|bundle| skillpath_audit::audit(bundle, &context))
        .collect();
    Ok(Run {
        audits,
        unreadable,
        started,
    })
}

/// The lowest severity that fails the run, if any does.
fn threshold(fail_on: FailOn) -> Option<Severity> {
    match fail_on {
        FailOn::Low => Some(Severity::Low),
        FailOn::Medium => Some(Severity::Medium),
        FailOn::High => Some(Severity::High),
        FailOn::Critical => Some(Severity::Critical),
        FailOn::None => None,
    }
}

/// Prints the run as asked and gives its exit status.
fn report(
    mut run: Run,
    args: &AuditArgs,
    baseline: Option<&Baseline>,
) -> std::io::Result<ExitStatus> {
    if let Some(path) = &args.write_baseline {
        std::fs::write(path, Baseline::to_json(&run.audits)).map_err(|error| {
            std::io::Error::new(
                error.kind(),
                format!(
                    "the baseline `{}` cannot be written: {error}",
                    path.display()
                ),
            )
        })?;
    }
    let suppressed: usize = match baseline {
        Some(baseline) => run
            .audits
            .iter_mut()
            .map(|audit| audit.suppress(baseline))
            .sum(),
        None => 0,
    };
    let elapsed = run.started.elapsed();
    let total =
        |severity: Severity| -> usize { run.audits.iter().map(|a| a.count(severity)).sum() };
    let with_findings = run.audits.iter().filter(|a| !a.findings.is_empty()).count();
    let mut problems = String::new();
    for line in &run.unreadable {
        let _ = writeln!(problems, "error: not audited: {line}");
    }
    output::stderr(&problems)?;
    match args.format {
        AuditFormat::Text => {
            let mut text: String = run.audits.iter().map(render::text).collect();
            let _ = write!(
                text,
                "{} {} audited in {:.2}s: {with_findings} with findings; {} critical, {} high, {} medium, {} low",
                run.audits.len(),
                if run.audits.len() == 1 {
                    "skill"
                } else {
                    "skills"
                },
                elapsed.as_secs_f64(),
                total(Severity::Critical),
                total(Severity::High),
                total(Severity::Medium),
                total(Severity::Low),
            );
            if suppressed > 0 {
                let _ = write!(
                    text,
                    " ({suppressed} known findings left out by the baseline)"
                );
            }
            if !run.unreadable.is_empty() {
                let _ = write!(text, "; {} could not be read", run.unreadable.len());
            }
            text.push('\n');
            output::stdout(&text)?;
        }
        AuditFormat::Json => {
            let document = serde_json::json!({
                "summary": {
                    "skills": run.audits.len(),
                    "with_findings": with_findings,
                    "critical": total(Severity::Critical),
                    "high": total(Severity::High),
                    "medium": total(Severity::Medium),
                    "low": total(Severity::Low),
                    "suppressed": suppressed,
                    "unreadable": run.unreadable.len(),
                },
                "skills": run.audits.iter().map(render::json).collect::<Vec<_>>(),
                "unreadable": run.unreadable,
            });
            output::stdout(&format!("{document:#}\n"))?;
        }
        AuditFormat::Sarif => {
            let document = render::sarif(&run.audits, env!("CARGO_PKG_VERSION"));
            output::stdout(&format!("{document:#}\n"))?;
        }
    }
    if args.write_baseline.is_some() {
        return Ok(ExitStatus::Success);
    }
    let failed = threshold(args.fail_on).is_some_and(|threshold| {
        run.audits
            .iter()
            .any(|audit| audit.highest().is_some_and(|highest| highest >= threshold))
    });
    Ok(if failed || !run.unreadable.is_empty() {
        ExitStatus::Invalid
    } else {
        ExitStatus::Success
    })
}
