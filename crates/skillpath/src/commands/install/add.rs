//! `skillpath add SOURCE [SKILL...]`: resolve the ref to a commit, find the source's skills,
//! audit and import them with their provenance, pin them in the lock, and write them into
//! the agents' folders.

use std::fmt::Write as _;

use skillpath_sources::SourceError;
use skillpath_sources::source;
use skillpath_sources::tree;
use skillpath_store::ProjectView;

use super::{Edits, Taken};
use crate::cli::AddArgs;
use crate::commands::store::{self as store_commands, Access};
use crate::output::{self, ExitStatus};

pub(crate) fn run(args: AddArgs) -> anyhow::Result<ExitStatus> {
    let super::Setup {
        scope,
        mut lock,
        agents,
    } = match super::setup(&args.scope, &args.agents) {
        Ok(setup) => setup,
        Err(status) => return Ok(status),
    };
    let usage = |error: SourceError| Ok(super::usage(&error));
    let cwd = std::env::current_dir()?;
    let mut source = match source::parse(&args.source, &cwd) {
        Ok(source) => source,
        Err(error) => return usage(error),
    };
    if args.reference.is_some() {
        source.reference.clone_from(&args.reference);
    }
    let path = args
        .path
        .clone()
        .unwrap_or_default()
        .trim_matches('/')
        .to_owned();
    source.origin = match source::probe(source.origin) {
        Ok(origin) => origin,
        Err(error) => return usage(error),
    };
    let digest = args.sha256.as_deref().map(|hex| {
        if hex.starts_with("sha256:") {
            hex.to_ascii_lowercase()
        } else {
            format!("sha256:{}", hex.to_ascii_lowercase())
        }
    });
    let (commit, found) = match super::read_newest(
        &source.origin,
        source.reference.as_deref(),
        digest.as_deref(),
        &path,
    ) {
        Ok(read) => read,
        Err(error) => return usage(error),
    };
    let recorded = source.origin.recorded();
    let mut said = String::new();
    for skipped in &found.skipped {
        let _ = writeln!(
            said,
            "skipped: `{}`: {}",
            tree::display_path(&skipped.path),
            skipped.reason
        );
    }
    for skill in &found.skills {
        for why in &skill.left_out {
            let _ = writeln!(said, "left out of `{}`: {why}", skill.name);
        }
    }
    output::stderr(&said)?;
    let mut wanted: Vec<_> = found.skills;
    if !args.skills.is_empty() {
        let missing: Vec<&String> = args
            .skills
            .iter()
            .filter(|name| !wanted.iter().any(|skill| &skill.name == *name))
            .collect();
        if !missing.is_empty() {
            let names: Vec<&str> = wanted.iter().map(|skill| skill.name.as_str()).collect();
            return usage(
                SourceError::new(format!(
                    "`{recorded}` has no skill {}",
                    missing
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
                .hint(if names.is_empty() {
                    "it has no skills that can be installed".to_owned()
                } else {
                    format!("its skills: {}", names.join(", "))
                }),
            );
        }
        wanted.retain(|skill| args.skills.contains(&skill.name));
    }
    if wanted.is_empty() {
        return usage(SourceError::new(format!("`{recorded}` has no skill that can be installed"))
            .hint("a skill is a folder with a `SKILL.md`; name the folder that holds them with `--path`"));
    }
    let skipped_any = !found.skipped.is_empty();
    let taken: Vec<Taken> = wanted
        .into_iter()
        .map(|skill| Taken {
            skill,
            source: recorded.clone(),
            reference: source.reference.clone(),
            commit: commit.clone(),
        })
        .collect();
    let policy = args.audit.policy(false);
    let format = args.format;
    let copy = args.agents.copy;
    let no_sync = args.no_sync;
    let given_agents = !args.agents.agents.is_empty();
    let message = match &commit {
        Some(commit) => format!("skillpath add {recorded} at {commit}"),
        None => format!("skillpath add {recorded}"),
    };
    store_commands::run_in(
        &args.db,
        Access::Creates,
        ProjectView::shared(),
        move |store| async move {
            store.set_audit_policy(policy);
            let (report, locked) =
                super::import(store.as_ref(), taken, super::change(message)).await?;
            super::report_audit(&report, policy)?;
            let names: Vec<String> = locked.keys().cloned().collect();
            lock.skills.extend(locked);
            if given_agents {
                lock.agents.extend(super::ids(&agents));
            }
            if let Err(error) = super::write_lock(&scope, &lock) {
                return super::fail(&error, ExitStatus::UsageOrInternal);
            }
            let mut text = format!(
                "added {} skills from `{recorded}`{}: {}\n",
                names.len(),
                commit
                    .as_ref()
                    .map_or_else(String::new, |c| format!(" at {}", &c[..12.min(c.len())])),
                names.join(", ")
            );
            let _ = writeln!(
                text,
                "locked in `{}`",
                super::shown(scope.root(), &scope.lock_path())
            );
            let synced = if no_sync {
                let _ = writeln!(
                    text,
                    "run `skillpath sync` to write them into your agents' folders"
                );
                None
            } else {
                let synced = super::sync::sync(
                    store.as_ref(),
                    &scope,
                    &lock,
                    Some(&names),
                    &[],
                    &agents,
                    copy,
                    Edits::Keep,
                )
                .await?;
                text.push_str(&super::placed_text(scope.root(), &synced.folders));
                Some(synced)
            };
            let mut json = serde_json::json!({
                "source": recorded,
                "commit": commit,
                "added": names,
                "refused": report.refused,
                "lock": scope.lock_path(),
            });
            if let Some(synced) = &synced {
                json["synced"] = store_commands::to_json(synced)?;
            }
            store_commands::print(format, &json, || text).map_err(store_commands::io)?;
            let incomplete = skipped_any
                || !report.refused.is_empty()
                || synced.is_some_and(|s| {
                    !s.failed.is_empty() || s.folders.iter().any(|p| p.result == "skipped")
                });
            Ok(if incomplete {
                ExitStatus::Invalid
            } else {
                ExitStatus::Success
            })
        },
    )
}
