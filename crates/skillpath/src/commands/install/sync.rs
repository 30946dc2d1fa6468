//! `skillpath sync`: the locked skills (and stored ones named with `--skill`) into the agents'
//! folders. Runs of one project take turns ([`skillpath_sources::cache::lock_folder`]).

use std::fmt::Write as _;

use skillpath_model::agents::Agent;
use skillpath_model::name_of_key;
use skillpath_sources::digest::files_of;
use skillpath_sources::folders::{self, Scope};
use skillpath_sources::lock::Lock;
use skillpath_sources::write::{self, Edits, Outcome, Placed, ToWrite};
use skillpath_store::{Store, StoreError};

use super::values::Values;
use crate::cli::{OutputFormat, SyncArgs};
use crate::commands::store as store_commands;
use crate::error::CliError;
use crate::output::ExitStatus;

pub(crate) fn run(args: SyncArgs) -> anyhow::Result<ExitStatus> {
    let super::Setup {
        scope,
        lock,
        agents,
    } = match super::setup(&args.scope, &args.agents) {
        Ok(setup) => setup,
        Err(status) => return Ok(status),
    };
    let values = match args.values.as_deref().map(Values::read).transpose() {
        Ok(values) => values.unwrap_or_default(),
        Err(error) => return Ok(super::usage(&error)),
    };
    let format = args.format;
    let copy = args.agents.copy;
    let extra = args.skills;
    let given_agents = !args.agents.agents.is_empty();
    super::with_owner(&args.db, None, move |owner| async move {
        let mut synced = sync(
            owner.app.store(),
            ToSync {
                scope: &scope,
                lock: &lock,
                only: None,
                extra: &extra,
                agents: &agents,
                copy,
                edits: Edits::Keep,
                values: &values,
            },
        )
        .await?;
        if given_agents {
            match record_agents(&scope, &agents) {
                Ok(recorded) => synced.recorded_agents = recorded,
                Err(error) => synced.failed.push((String::new(), error.to_string())),
            }
        }
        print(format, &scope, &synced)
    })
}

/// Adds `agents` to the agents of the scope's lock, as `add --agent` does, so that `install
/// --frozen` on another machine (a teammate's clone) writes their folders too; the agents the
/// lock did not have yet. A scope without a lock gets none: there is nothing to install.
fn record_agents(
    scope: &Scope,
    agents: &[&'static Agent],
) -> Result<Vec<String>, skillpath_sources::SourceError> {
    let _held = skillpath_sources::cache::lock_folder(scope.root())?;
    // Read again under the folder's lock: another run may have written it since this one began.
    let Some(mut lock) = Lock::read(&scope.lock_path())? else {
        return Ok(Vec::new());
    };
    let mut new: Vec<String> = Vec::new();
    for id in super::ids(agents) {
        if !lock.agents.contains(&id) && !new.contains(&id) {
            new.push(id);
        }
    }
    if !new.is_empty() {
        lock.agents.extend(new.iter().cloned());
        super::write_lock(scope, &lock)?;
    }
    Ok(new)
}

/// What a sync did.
#[derive(Debug, Default, serde::Serialize)]
pub(crate) struct Synced {
    /// Each skill in each folder.
    pub(crate) folders: Vec<Placed>,
    /// Skills whose content could not be had, with why.
    pub(crate) failed: Vec<(String, String)>,
    /// The agents `sync --agent` added to the lock.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) recorded_agents: Vec<String>,
}

/// What a sync writes, and where.
pub(crate) struct ToSync<'a> {
    /// Whose skills.
    pub(crate) scope: &'a Scope,
    /// The skills locked there.
    pub(crate) lock: &'a Lock,
    /// Only these of the lock's skills, when given.
    pub(crate) only: Option<&'a [String]>,
    /// Stored skills written besides the lock's (`--skill`), by store key (`@team/name`).
    pub(crate) extra: &'a [String],
    /// The agents whose folders are written.
    pub(crate) agents: &'a [&'static Agent],
    /// Copies everywhere, no links (`--copy`).
    pub(crate) copy: bool,
    /// What becomes of folders with local edits.
    pub(crate) edits: Edits,
    /// The values skills are rendered with (`--values`).
    pub(crate) values: &'a Values,
}

/// Writes the skills of `lock` (only `only`, when given), each checked against the lock, and
/// the stored skills `extra` into the folders of `agents` in `scope`.
pub(crate) async fn sync(store: &dyn Store, to_sync: ToSync<'_>) -> Result<Synced, StoreError> {
    let ToSync {
        scope,
        lock,
        only,
        extra,
        agents,
        copy,
        edits,
        values,
    } = to_sync;
    let held = skillpath_sources::cache::lock_folder(scope.root());
    let _held = match held {
        Ok(held) => held,
        Err(error) => {
            return Ok(Synced {
                failed: vec![("".to_owned(), error.to_string())],
                ..Synced::default()
            });
        }
    };
    let mut synced = Synced::default();
    let mut contents = Vec::new();
    let wanted = lock
        .skills
        .iter()
        .filter(|(name, _)| only.is_none_or(|only| only.contains(name)))
        .map(|(name, locked)| (name.as_str(), locked))
        .collect();
    for item in super::locked_contents(store, wanted).await {
        match item.content {
            Ok(snapshot) => {
                contents.push((item.name.to_owned(), snapshot, item.locked.files.clone()))
            }
            Err(error) => synced
                .failed
                .push((item.name.to_owned(), error.to_string())),
        }
    }
    for name in extra {
        match store.get(name, None).await {
            Ok(stored) if !stored.deleted => {
                let files = files_of(&stored.snapshot);
                // `@team/name` is written as the folder `name`, as the agent knows it.
                contents.push((name_of_key(name).to_owned(), stored.snapshot, files));
            }
            Ok(_) => synced
                .failed
                .push((name.clone(), "is deleted in the store".to_owned())),
            Err(error) => synced.failed.push((name.clone(), error.to_string())),
        }
    }
    let options = super::values::member_options(contents.iter().map(|(_, snapshot, _)| snapshot));
    let mut rendered = Vec::new();
    for (name, snapshot, untouched) in contents {
        match values.instance(&name, snapshot, &options) {
            Ok((snapshot, is_rendered)) => rendered.push((name, snapshot, untouched, is_rendered)),
            Err(why) => synced.failed.push((name, why.to_string())),
        }
    }
    let targets = folders::targets(scope, agents);
    let skills: Vec<ToWrite<'_>> = rendered
        .iter()
        .map(|(name, snapshot, untouched, rendered)| ToWrite {
            name,
            snapshot,
            untouched,
            rendered: *rendered,
        })
        .collect();
    synced.folders = write::write_all(scope, &targets, &skills, copy, edits);
    Ok(synced)
}

/// Prints what a sync did; its exit status.
pub(crate) fn print(
    format: OutputFormat,
    scope: &Scope,
    synced: &Synced,
) -> Result<ExitStatus, CliError> {
    let json = store_commands::to_json(synced)?;
    store_commands::print(format, &json, || {
        let mut text = super::placed_text(scope.root(), &synced.folders);
        if synced.folders.is_empty() && synced.failed.is_empty() {
            let _ = writeln!(
                text,
                "nothing to sync: `{}` locks no skills (`skillpath add SOURCE` installs some; `--skill NAME` writes a stored one)",
                super::shown(scope.root(), &scope.lock_path())
            );
        }
        for (name, why) in &synced.failed {
            let _ = writeln!(text, "failed: `{name}`: {why}");
        }
        if !synced.recorded_agents.is_empty() {
            let _ = writeln!(
                text,
                "agents {} recorded in `{}`: `skillpath install --frozen` writes their folders too",
                synced.recorded_agents.join(", "),
                super::shown(scope.root(), &scope.lock_path())
            );
        }
        text
    })
    .map_err(store_commands::io)?;
    let skipped = synced
        .folders
        .iter()
        .any(|placed| placed.result == Outcome::Skipped);
    Ok(if skipped || !synced.failed.is_empty() {
        ExitStatus::Invalid
    } else {
        ExitStatus::Success
    })
}
