//! `skillpath remove NAME...`: out of the lock and out of the agents' folders skillpath wrote
//! it to. A folder is skillpath's when it holds what the lock says, or is a link to the
//! canonical copy; one with local edits goes only with `--force`; anything else stays.

use std::fmt::Write as _;

use skillpath_model::agents::AGENTS;
use skillpath_sources::folders::{self};
use skillpath_sources::{SourceError, write};

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
        let done =
            write::remove_skill(&scope, &targets, name, &lock.skills[name].files, args.force);
        removed.extend(
            done.removed
                .iter()
                .map(|path| super::shown(scope.root(), path)),
        );
        kept.extend(
            done.kept
                .into_iter()
                .map(|(path, why)| (super::shown(scope.root(), &path), why)),
        );
        if !done.left {
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
