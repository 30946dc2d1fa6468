//! `skillpath import`: skill folders and trees into the store, in one transaction. A folder
//! that cannot be loaded is skipped and named with its diagnostics; the others are imported
//! (`--strict`: nothing is, when one is skipped).

use std::fmt::Write as _;
use std::path::PathBuf;

use skillpath_app::{Imported, Operation};
use skillpath_audit::Severity;
use skillpath_core::Code;
use skillpath_folders::folder::{FolderDiagnostics, read_folders};
use skillpath_folders::sources::FolderSources;

use crate::cli::ImportArgs;
use crate::inputs;
use crate::output::{self, ExitStatus};

pub(crate) fn run(args: ImportArgs) -> anyhow::Result<ExitStatus> {
    if args.paths.is_empty() && !args.discover {
        anyhow::bail!("nothing to import: name skill folders or trees, or pass `--discover`");
    }
    inputs::require_existing(&args.paths)?;
    let sources = FolderSources {
        discover: if args.discover {
            let home = std::env::var_os("HOME").map(PathBuf::from);
            Some((std::env::current_dir()?, home))
        } else {
            None
        },
        roots: args
            .paths
            .iter()
            .map(|path| inputs::skill_dir_of(path))
            .collect(),
    };
    let located = sources.locate();
    let mut skipped = located.skipped;
    skipped.extend(located.shadowed.iter().map(|shadowed| {
        (
            shadowed.found.path.clone(),
            format!("shadowed by `{}`", shadowed.by.path.display()),
        )
    }));
    inputs::report_skipped(&skipped)?;
    // Skill folders that discovery found but cannot be loaded; reported with those read below.
    let unloadable = located.unloadable;
    let sources = located.folders;
    let format = args.format;
    let strict = args.strict;
    let policy = args.audit.policy(false);
    let as_owner = super::AsOwner {
        access: super::Access::Creates,
        author: args.change.author,
        audit: Some(policy),
        meaning: None,
    };
    let message = args.change.message;
    let placement = args.placement.placement();
    super::run_as_owner(&args.db, as_owner, move |owner| async move {
        let permit = owner.may(Operation::ImportSkills)?;
        // Folders whose files have the same metadata as when their skill's current revision
        // was imported from them are not read again.
        let recorded = owner
            .app
            .import_stamps(&permit, &placement.namespace)
            .await?;
        let progress = super::progress_bar(sources.len() as u64, "reading");
        let mut read = read_folders(sources, &recorded, &|dir| {
            progress.set_message(dir.display().to_string());
            progress.inc(1);
        });
        progress.finish_and_clear();
        read.skipped.splice(0..0, unloadable);
        // What was said of each folder goes to stderr as `validate` says it, whatever the
        // format: stdout is the report.
        let said: String = read
            .skipped
            .iter()
            .chain(&read.warned)
            .map(|folder| folder.to_text())
            .collect();
        output::stderr(&said).map_err(super::io)?;
        if strict && !read.skipped.is_empty() {
            let mut text = String::new();
            for folder in &read.skipped {
                let _ = writeln!(text, "error: cannot import `{}`", folder.folder.display());
            }
            let _ = writeln!(
                text,
                "nothing was imported (`--strict`): {} of {} skill folders cannot be loaded; fix them or leave them out",
                read.skipped.len(),
                read.skipped.len() + read.items.len()
            );
            output::stderr(&text).map_err(super::io)?;
            return Ok(ExitStatus::Invalid);
        }
        let count = read.items.len();
        let Imported {
            report,
            overlaps,
            overlaps_total,
        } = owner
            .app
            .import(&permit, read.items, placement, message)
            .await?;
        let mut json = super::to_json(&report)?;
        json["skipped"] = read
            .skipped
            .iter()
            .map(FolderDiagnostics::to_json)
            .collect();
        json["warnings"] = read.warned.iter().map(FolderDiagnostics::to_json).collect();
        json["overlaps"] = super::to_json(&overlaps.iter().map(|(_, o)| o).collect::<Vec<_>>())?;
        json["overlaps_total"] = overlaps_total.into();
        super::print(format, &json, || {
            let mut text = format!(
                "imported {count} skills: {} created, {} updated, {} unchanged{}, {} shadowed, {} skipped{}{}\n",
                report.created.len(),
                report.updated.len(),
                report.unchanged.len(),
                match report.not_read {
                    0 => String::new(),
                    n => format!(" ({n} not read again: their folders did not change)"),
                },
                report.shadowed.len(),
                read.skipped.len(),
                match report.refused.len() {
                    0 => String::new(),
                    n => format!(", {n} refused by the audit policy `{policy}`"),
                },
                match report.flagged.len() {
                    0 => String::new(),
                    n => format!(", {n} written with audit findings"),
                },
            );
            for refused in &report.refused {
                let _ = writeln!(text, "refused: {}", refused.refusal(policy));
            }
            // Every skill with findings is in the JSON report; here, those that matter most.
            for flagged in &report.flagged {
                if flagged.audit.highest() >= Some(Severity::High) {
                    let _ = writeln!(text, "findings: {}", flagged.findings_line());
                }
            }
            for shadowed in &report.shadowed {
                let _ = writeln!(text, "shadowed: {shadowed}");
            }
            for (skill, overlap) in &overlaps {
                let _ = writeln!(
                    text,
                    "warning[{}]: {}",
                    Code::DescriptionOverlap,
                    overlap.sentence(skill)
                );
            }
            if overlaps_total > overlaps.len() {
                let _ = writeln!(
                    text,
                    "warning[{}]: {} more pairs of descriptions compete; `skillpath eval overlap` lists every pair",
                    Code::DescriptionOverlap,
                    overlaps_total - overlaps.len()
                );
            }
            for folder in &read.skipped {
                let why = folder
                    .first()
                    .map_or_else(String::new, |d| format!(" [{}] {}", d.code, d.message));
                let _ = writeln!(text, "skipped: `{}`:{why}", folder.folder.display());
            }
            text
        })
        .map_err(super::io)?;
        Ok(if read.skipped.is_empty() && report.refused.is_empty() {
            ExitStatus::Success
        } else {
            ExitStatus::Invalid
        })
    })
}
