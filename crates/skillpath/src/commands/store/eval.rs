//! `skillpath eval triggers` and `skillpath eval overlap`: will the right skill be chosen, over
//! a whole library. The library is the store's skills, or folders read into a temporary store
//! the way `import` reads them, so every query is ranked by the store's own search, the one
//! `search_skills` answers with; `skillpath-eval` reads the eval files and scores.

use std::fmt::Write as _;
use std::path::PathBuf;

use skillpath_core::overlap::{Library, NEAR_COPY};
use skillpath_eval::cases::{self, Case, EvalError, TRIGGER_EVALS};
use skillpath_eval::score::{self, DEPTH, Ranked, Report};
use skillpath_folders::folder::read_folders;
use skillpath_folders::sources::FolderSources;
use skillpath_model::{Change, Kind};
use skillpath_store::{Store, StoreError};

use crate::cli::{DbArgs, EvalCommand, EvalOverlapArgs, EvalTriggersArgs, LibraryArgs};
use crate::error::CliError;
use crate::inputs;
use crate::output::{self, ExitStatus, plural};

pub(crate) fn run(command: EvalCommand) -> anyhow::Result<ExitStatus> {
    match command {
        EvalCommand::Triggers(args) => triggers(args),
        EvalCommand::Overlap(args) => overlap(args),
    }
}

/// One skill of the library: what an evaluation reads of it.
struct Skill {
    name: String,
    description: String,
    /// Its trigger evals: the file as the user knows it, and the bytes.
    evals: Option<(String, Vec<u8>)>,
}

fn triggers(args: EvalTriggersArgs) -> anyhow::Result<ExitStatus> {
    let mut library_cases = Vec::new();
    for path in &args.queries {
        let display = path.display().to_string();
        let bytes = std::fs::read(path)
            .map_err(|error| anyhow::anyhow!("cannot read `{display}`: {error}"))?;
        match cases::read_library(&display, &bytes) {
            Ok(cases) => library_cases.extend(cases),
            Err(error) => return refuse(&error),
        }
    }
    let meaning = super::meaning(&args.embeddings)?;
    let EvalTriggersArgs {
        library,
        min_recall,
        max_false,
        format,
        ..
    } = args;
    with_library(&library, Evals::Read, move |store, skills| async move {
        let mut all: Vec<Case> = Vec::new();
        for skill in &skills {
            if let Some((file, bytes)) = &skill.evals {
                match cases::read_trigger_evals(&skill.name, file, bytes) {
                    Ok(cases) => all.extend(cases),
                    Err(error) => return refuse(&error).map_err(internal),
                }
            }
        }
        all.extend(library_cases);
        let known = |name: &str| skills.iter().any(|skill| skill.name == name);
        if let Err(error) = cases::check_count(&all).and_then(|()| cases::check_known(&all, known))
        {
            return refuse(&error).map_err(internal);
        }
        if all.is_empty() {
            output::stderr(&format!(
                "error: no queries to run: no skill of the library has `{TRIGGER_EVALS}`, and no `--queries` file was given\n"
            ))
            .map_err(super::io)?;
            return Ok(ExitStatus::UsageOrInternal);
        }
        // The library as the model sees it, once the eval files are known to be good.
        let catalog = super::searched(store.as_ref(), &meaning).await?;
        let progress = super::progress_bar(all.len() as u64, "ranking");
        let mut rankings = Vec::with_capacity(all.len());
        for case in &all {
            progress.inc(1);
            let hits = catalog.search(store.as_ref(), &case.query, DEPTH).await?;
            rankings.push(hits.into_iter().map(|hit| hit.name).collect::<Vec<_>>());
        }
        progress.finish_and_clear();
        let ranked: Vec<Ranked<'_>> = all
            .iter()
            .zip(rankings)
            .map(|(case, ranking)| Ranked { case, ranking })
            .collect();
        let report = score::score(&ranked);
        let failures = gates(&report, min_recall, max_false);
        let mut json = super::to_json(&report)?;
        json["library"] = skills.len().into();
        json["gate_failures"] = failures.clone().into();
        super::print(format, &json, || triggers_text(&report, skills.len())).map_err(super::io)?;
        if failures.is_empty() {
            return Ok(ExitStatus::Success);
        }
        let said: String = failures
            .iter()
            .map(|failure| format!("gate: {failure}\n"))
            .collect();
        output::stderr(&said).map_err(super::io)?;
        Ok(ExitStatus::Invalid)
    })
}

/// What fails the gates: a skill whose recall@1 is under `min_recall`, one with more false
/// triggers than `max_false`.
fn gates(report: &Report, min_recall: Option<f64>, max_false: Option<usize>) -> Vec<String> {
    let mut failures = Vec::new();
    for skill in &report.skills {
        if let (Some(min), Some(recall)) = (min_recall, skill.recall_at_1)
            && recall < min
        {
            failures.push(format!(
                "`{}` is chosen first for {} of its {} queries (recall@1 {recall:.2}), under --min-recall {min}",
                skill.skill,
                skill.positives - skill.missed.len(),
                skill.positives
            ));
        }
        if let Some(max) = max_false
            && skill.false_triggers.len() > max
        {
            failures.push(format!(
                "`{}` is chosen first for {} {} that should not choose it, over --max-false {max}",
                skill.skill,
                skill.false_triggers.len(),
                plural(skill.false_triggers.len(), "query", "queries")
            ));
        }
    }
    failures
}

fn triggers_text(report: &Report, library: usize) -> String {
    let figure = |value: Option<f64>| value.map_or_else(|| "-".to_owned(), |v| format!("{v:.2}"));
    let summary = &report.summary;
    let mut text = format!(
        "{} queries over a library of {library} skills: {} with a right skill (recall@1 {}, recall@5 {}, MRR {}), {} near misses ({} chose their skill), {} with no right skill ({} matched nothing)\n\n",
        summary.queries,
        summary.answerable,
        figure(summary.recall_at_1),
        figure(summary.recall_at_5),
        figure(summary.mrr),
        summary.near_misses,
        summary.near_misses_triggered,
        summary.unanswerable,
        summary.unanswered,
    );
    let rows: Vec<Vec<String>> = report
        .skills
        .iter()
        .map(|skill| {
            let beaten: Vec<String> = skill
                .beaten_by
                .iter()
                .take(3)
                .map(|(name, count)| format!("{name} ×{count}"))
                .collect();
            vec![
                skill.skill.clone(),
                skill.positives.to_string(),
                figure(skill.recall_at_1),
                figure(skill.recall_at_3),
                figure(skill.mrr),
                skill.near_misses.to_string(),
                skill.false_triggers.len().to_string(),
                beaten.join(", "),
            ]
        })
        .collect();
    text.push_str(&super::table(
        &[
            "SKILL",
            "QUERIES",
            "R@1",
            "R@3",
            "MRR",
            "NEAR",
            "FALSE",
            "BEATEN BY",
        ],
        &rows,
    ));
    if !report.confused.is_empty() {
        text.push_str("\nmost confused pairs:\n");
        for pair in report.confused.iter().take(10) {
            let _ = writeln!(text, "  {} ~ {}: {}", pair.a, pair.b, pair.count);
        }
    }
    for skill in &report.skills {
        for miss in &skill.false_triggers {
            let _ = writeln!(
                text,
                "false trigger: `{}` chosen for \"{}\" ({} row {})",
                skill.skill, miss.query, miss.file, miss.row
            );
        }
    }
    text
}

fn overlap(args: EvalOverlapArgs) -> anyhow::Result<ExitStatus> {
    let (threshold, format) = (args.threshold, args.format);
    with_library(&args.library, Evals::Skip, move |_, skills| async move {
        let library = Library::new(
            skills
                .iter()
                .map(|skill| (skill.name.as_str(), skill.description.as_str())),
        );
        let found = library.overlaps(threshold);
        let json = serde_json::json!({
            "library": library.len(),
            "threshold": threshold,
            "overlaps": super::to_json(&found)?,
        });
        super::print(format, &json, || {
            let mut text = format!(
                "{} {} of {} {} {} (similarity ≥ {threshold:.2}; ≥ {NEAR_COPY:.2} is a near copy)\n",
                found.len(),
                plural(found.len(), "pair", "pairs"),
                library.len(),
                plural(library.len(), "skill", "skills"),
                plural(found.len(), "competes", "compete"),
            );
            if !found.is_empty() {
                let rows: Vec<Vec<String>> = found
                    .iter()
                    .map(|pair| {
                        vec![
                            format!("{:.2}", pair.similarity),
                            pair.a.clone(),
                            pair.b.clone(),
                            pair.shared.join(", "),
                        ]
                    })
                    .collect();
                text.push('\n');
                text.push_str(&super::table(&["SIMILARITY", "SKILL", "SKILL", "SHARED WORDS"], &rows));
            }
            text
        })
        .map_err(super::io)?;
        Ok(ExitStatus::Success)
    })
}

/// Says why an eval file was refused (exit 2: the input is wrong).
fn refuse(error: &EvalError) -> anyhow::Result<ExitStatus> {
    output::stderr(&format!("error: {error}\n"))?;
    Ok(ExitStatus::UsageOrInternal)
}

/// A failure to say why an eval file was refused, as a command's error.
fn internal(error: anyhow::Error) -> CliError {
    CliError::Output(std::io::Error::other(error.to_string()))
}

/// Runs `work` with the store that holds the library `args` names and its skills: folders read
/// into a temporary store (deleted after), or the store of `--db`.
fn with_library<F, Fut>(args: &LibraryArgs, evals: Evals, work: F) -> anyhow::Result<ExitStatus>
where
    F: FnOnce(Box<dyn Store>, Vec<Skill>) -> Fut,
    Fut: Future<Output = Result<ExitStatus, CliError>>,
{
    if args.store {
        return super::run(&args.db, super::Access::Existing, |store| async move {
            let skills = skills_of(store.as_ref(), evals).await?;
            work(store, skills).await
        });
    }
    inputs::require_existing(&args.paths)?;
    let located = FolderSources {
        discover: None,
        roots: args
            .paths
            .iter()
            .map(|path| inputs::skill_dir_of(path))
            .collect(),
    }
    .locate();
    inputs::report_skipped(&located.skipped)?;
    let temporary = tempfile::tempdir()?;
    let db = DbArgs {
        db: Some(temporary.path().join("library.db").display().to_string()),
    };
    let sources = located.folders;
    let status = super::run_in(
        &db,
        super::Access::Creates,
        skillpath_store::ProjectView::shared(),
        |store| async move {
            // The library is evaluated as it is: nothing refused for its audit findings.
            store.set_audit_policy(skillpath_audit::Policy::Off);
            let progress = super::progress_bar(sources.len() as u64, "reading");
            let read = read_folders(sources, &[], &|dir| {
                progress.set_message(dir.display().to_string());
                progress.inc(1);
            });
            progress.finish_and_clear();
            let said: String = read.skipped.iter().map(|folder| folder.to_text()).collect();
            output::stderr(&said).map_err(super::io)?;
            if !read.items.is_empty() {
                let change = Change {
                    author: "eval".to_owned(),
                    message: "library for an evaluation".to_owned(),
                };
                store.import_folders(read.items, change).await?;
            }
            let skills = skills_of(store.as_ref(), evals).await?;
            work(store, skills).await
        },
    );
    drop(temporary);
    status
}

/// Whether an evaluation reads the skills' trigger evals (`eval overlap` needs descriptions only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Evals {
    Read,
    Skip,
}

/// The live skills of `store` (packages left out), with their trigger evals where they have
/// them and `evals` asks for them.
async fn skills_of(store: &dyn Store, evals: Evals) -> Result<Vec<Skill>, StoreError> {
    let mut skills = Vec::new();
    for metadata in store.current_metadata().await? {
        if metadata.kind != Kind::Skill {
            continue;
        }
        let has_evals = metadata.files.iter().any(|file| file.path == TRIGGER_EVALS);
        let trigger_evals = if evals == Evals::Read && has_evals {
            let stored = store.get(&metadata.name, Some(metadata.revision)).await?;
            let folder = metadata.provenance.folder();
            let display = if folder.is_empty() {
                format!("{}/{TRIGGER_EVALS}", metadata.name)
            } else {
                PathBuf::from(folder)
                    .join(TRIGGER_EVALS)
                    .display()
                    .to_string()
            };
            stored
                .snapshot
                .files
                .into_iter()
                .find(|file| file.path == TRIGGER_EVALS)
                .map(|file| (display, file.bytes))
        } else {
            None
        };
        skills.push(Skill {
            name: metadata.name,
            description: metadata.description,
            evals: trigger_evals,
        });
    }
    Ok(skills)
}
