//! `skillpath remove NAME...`: out of the lock and out of the agents' folders skillpath wrote
//! it to. A folder is skillpath's when it holds what the lock says, or is a link to the
//! canonical copy; one with local edits goes only with `--force`; anything else stays.

use std::fmt::Write as _;

use skillpath_model::agents::AGENTS;
use skillpath_sources::SourceError;
use skillpath_sources::folders::{self, State};

use crate::cli::RemoveArgs;
use crate::commands::store as store_commands;
use crate::output::ExitStatus;

pub(crate) fn run(args: RemoveArgs) -> anyhow::Result<ExitStatus> {
    let super::Setup {
        scope, mut lock, ..
    } = match super::setup(&args.scope, &args.agents) {
        Ok(setup) => setup,
        Err(status) => return Ok(status),
    };
    let usage = |error: SourceError| Ok(super::usage(&error));
    if let Some(name) = args
        .names
        .iter()
        .find(|name| !lock.skills.contains_key(*name))
    {
        return usage(
            SourceError::new(format!(
                "`{name}` is not in `{}`",
                scope.lock_path().display()
            ))
            .hint("skillpath removes only the skills it installed; `skillpath status` lists them"),
        );
    }
    let _held = match skillpath_sources::cache::lock_folder(scope.root()) {
        Ok(held) => held,
        Err(error) => return usage(error),
    };
    // Every agent's folder, since any may have been synced; links before the copy they lead to.
    let all: Vec<_> = AGENTS.iter().collect();
    let mut targets = folders::targets(&scope, &all);
    targets.reverse();
    let mut removed = Vec::new();
    let mut kept = Vec::new();
    for name in &args.names {
        let locked = &lock.skills[name];
        let mut left = false;
        for target in &targets {
            let path = match folders::skill_folder(&target.dir, name) {
                Ok(path) => path,
                Err(why) => {
                    kept.push((super::shown(scope.root(), &target.dir), why));
                    left = true;
                    continue;
                }
            };
            let shown = super::shown(scope.root(), &path);
            match scope.refusal(&target.dir) {
                // What is there through a symlink (or a file) skillpath never wrote: `sync`
                // writes nothing through one, so `remove` removes nothing through one.
                Err(reason) => {
                    if std::fs::symlink_metadata(&path).is_ok() {
                        kept.push((shown, format!("{reason}; skillpath did not write it")));
                    }
                    continue;
                }
                // The agent folder is a link to the canonical one, whose copy goes with it.
                Ok(Some(_)) => continue,
                Ok(None) => {}
            }
            let ours_link = scope
                .link_to(target, name)
                .is_some_and(|to| folders::is_link_to(&path, &to));
            let state = if ours_link {
                State::Clean
            } else {
                folders::state(&path, &locked.files, name, None)
            };
            let remove = match state {
                State::Missing => continue,
                State::Clean => true,
                State::Modified { .. } if args.force => true,
                State::Modified { changes } => {
                    let files: Vec<&str> = changes.iter().map(|c| c.path()).collect();
                    kept.push((
                        shown.clone(),
                        format!(
                            "has local edits ({}); `--force` removes it",
                            files.join(", ")
                        ),
                    ));
                    left = true;
                    false
                }
                State::Conflicting { reason } => {
                    kept.push((
                        shown.clone(),
                        format!("{reason}; skillpath did not write it"),
                    ));
                    false
                }
            };
            if remove {
                match folders::remove(&target.dir, name) {
                    Ok(()) => removed.push(shown),
                    Err(why) => {
                        kept.push((shown, why));
                        left = true;
                    }
                }
            }
        }
        if !left {
            lock.skills.remove(name);
        }
    }
    if let Err(error) = super::write_lock(&scope, &lock) {
        return usage(error);
    }
    let json = serde_json::json!({ "removed": removed, "kept": kept });
    store_commands::print(args.format, &json, || {
        let mut text = String::new();
        for path in &removed {
            let _ = writeln!(text, "removed `{path}`");
        }
        for (path, why) in &kept {
            let _ = writeln!(text, "kept `{path}`: {why}");
        }
        let _ = writeln!(
            text,
            "the store keeps its revisions (and serves them over MCP); `skillpath delete NAME` deletes a skill there"
        );
        text
    })?;
    Ok(if kept.is_empty() {
        ExitStatus::Success
    } else {
        ExitStatus::Invalid
    })
}
