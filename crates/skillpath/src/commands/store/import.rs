//! `skillpath import`: skill folders and trees into the store, in one transaction.

use std::fmt::Write as _;
use std::path::PathBuf;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use skillpath_core::walk::{self, WalkLimits};
use skillpath_store::StoreError;
use skillpath_store::discovery::{self, DiscoveryLimits};
use skillpath_store::folder::{FolderSource, read_folders};

use crate::cli::ImportArgs;
use crate::inputs;
use crate::output::{self, ExitStatus};

/// A skill folder to import, with where it was found.
struct Source {
    dir: PathBuf,
    root: PathBuf,
    scope: &'static str,
}

pub(crate) fn run(args: ImportArgs) -> anyhow::Result<ExitStatus> {
    if args.paths.is_empty() && !args.discover {
        anyhow::bail!("nothing to import: name skill folders or trees, or pass `--discover`");
    }
    inputs::require_existing(&args.paths)?;
    let mut sources = Vec::new();
    let mut skipped = Vec::new();
    if args.discover {
        let cwd = std::env::current_dir()?;
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let found = discovery::discover(Some(&cwd), home.as_deref(), DiscoveryLimits::default());
        for shadowed in &found.shadowed {
            skipped.push((
                shadowed.found.path.clone(),
                format!("shadowed by `{}`", shadowed.by.path.display()),
            ));
        }
        skipped.extend(found.skipped);
        sources.extend(found.skills.into_iter().map(|skill| Source {
            dir: skill.path,
            root: skill.root,
            scope: skill.scope.as_str(),
        }));
    }
    for path in &args.paths {
        let root = inputs::skill_dir_of(path);
        let found = walk::find_skill_dirs(&root, WalkLimits::default());
        skipped.extend(found.skipped);
        sources.extend(found.skills.into_iter().map(|dir| Source {
            dir,
            root: root.clone(),
            scope: "folder",
        }));
    }
    inputs::report_skipped(&skipped)?;

    let sources: Vec<FolderSource> = sources
        .into_iter()
        .map(|source| {
            FolderSource::imported(
                source.dir,
                source.root.display().to_string(),
                source.scope.to_owned(),
            )
        })
        .collect();
    let format = args.format;
    let change_args = args.change;
    super::run(&args.db, move |store| async move {
        // Folders whose files have the same metadata as when their skill's current revision
        // was imported from them are not read again.
        let recorded = store.folder_stamps().await?;
        let progress = progress_bar(sources.len() as u64);
        let (items, unreadable) = read_folders(sources, &recorded, &|dir| {
            progress.set_message(dir.display().to_string());
            progress.inc(1);
        });
        progress.finish_and_clear();
        if !unreadable.is_empty() {
            let mut text = String::new();
            for (dir, error) in &unreadable {
                let _ = writeln!(text, "error: cannot import `{}`: {error}", dir.display());
            }
            text.push_str("nothing was imported; fix or leave out these skills and import again\n");
            output::stderr(&text).map_err(|source| StoreError::Io {
                context: "cannot write the report".to_owned(),
                source,
            })?;
            return Ok(ExitStatus::Invalid);
        }
        let count = items.len();
        let change = super::change(&change_args, &format!("import of {count} skills"));
        let report = store.import_folders(items, change).await?;
        let json =
            serde_json::to_value(&report).map_err(|e| StoreError::Database(e.to_string()))?;
        super::print(format, &json, || {
            let mut text = format!(
                "imported {count} skills: {} created, {} updated, {} unchanged{}, {} shadowed\n",
                report.created.len(),
                report.updated.len(),
                report.unchanged.len(),
                match report.not_read {
                    0 => String::new(),
                    n => format!(" ({n} not read again: their folders did not change)"),
                },
                report.shadowed.len()
            );
            for shadowed in &report.shadowed {
                let _ = writeln!(
                    text,
                    "shadowed: `{}` at `{}` (kept the one at `{}`)",
                    shadowed.name, shadowed.path, shadowed.kept
                );
            }
            text
        })
        .map_err(|source| StoreError::Io {
            context: "cannot write the report".to_owned(),
            source,
        })?;
        Ok(ExitStatus::Success)
    })
}

/// A progress bar on stderr, hidden when stderr is not a terminal.
fn progress_bar(length: u64) -> ProgressBar {
    let progress = ProgressBar::with_draw_target(Some(length), ProgressDrawTarget::stderr());
    if !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        progress.set_draw_target(ProgressDrawTarget::hidden());
    }
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} reading {wide_msg}") {
        progress.set_style(style);
    }
    progress
}
