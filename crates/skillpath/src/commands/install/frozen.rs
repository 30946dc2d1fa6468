//! `skillpath install --frozen` and `--check`: the agents' folders brought to, or checked
//! against, exactly what the lock says.

use std::fmt::Write as _;

use skillpath_core::package;
use skillpath_sources::SourceError;
use skillpath_sources::folders::{self, FileChange, Scope, State, Target};
use skillpath_sources::lock::Lock;
use skillpath_sources::tree::SourceSkill;
use skillpath_sources::verify;
use skillpath_sources::write::{self, Edits, ToWrite};

use super::Taken;
use super::sync::Synced;
use super::values::{NotRendered, Values};
use crate::cli::{InstallArgs, OutputFormat};
use crate::commands::store as store_commands;
use crate::output::{self, ExitStatus};

pub(crate) fn run(args: InstallArgs) -> anyhow::Result<ExitStatus> {
    let super::Setup {
        scope,
        lock,
        agents,
    } = match super::setup(&args.scope, &args.agents) {
        Ok(setup) => setup,
        Err(status) => return Ok(status),
    };
    if !scope.lock_path().is_file() {
        return Ok(super::usage(
            &SourceError::new(format!("there is no `{}`", scope.lock_path().display()))
                .hint("`skillpath add SOURCE` installs skills and writes the lock"),
        ));
    }
    if let Err(status) = super::use_token(&args.token) {
        return Ok(status);
    }
    let values = match args.values.as_deref().map(Values::read).transpose() {
        Ok(values) => values.unwrap_or_default(),
        Err(error) => return Ok(super::usage(&error)),
    };
    let targets = folders::targets(&scope, &agents);
    if args.check {
        return check(&scope, &lock, &targets, &values, args.format);
    }
    let format = args.format;
    let copy = args.agents.copy;
    let policy = args.audit.policy(false);
    super::with_owner(&args.db, Some(policy), move |owner| async move {
        let _held = match skillpath_sources::cache::lock_folder(scope.root()) {
            Ok(held) => held,
            Err(error) => return super::fail(&error, ExitStatus::UsageOrInternal),
        };
        // Every skill's content, checked against the lock, before anything is written.
        let mut contents = Vec::new();
        let mut failures = Vec::new();
        let all = lock
            .skills
            .iter()
            .map(|(name, locked)| (name.as_str(), locked))
            .collect();
        for item in super::locked_contents(owner.app.store(), all).await {
            match item.content {
                Ok(snapshot) => {
                    contents.push((item.name.to_owned(), item.locked.clone(), snapshot))
                }
                Err(error) => failures.push(error),
            }
        }
        if !failures.is_empty() {
            let mut text = String::new();
            for error in &failures {
                text.push_str(&super::said(error, error.hint()));
            }
            let _ = writeln!(
                text,
                "nothing was written: {} of {} locked skills do not match the lock",
                failures.len(),
                lock.skills.len()
            );
            output::stderr(&text).map_err(store_commands::io)?;
            return Ok(ExitStatus::Invalid);
        }
        output::stderr(&yanked_pins(&lock)).map_err(store_commands::io)?;
        let taken: Vec<Taken> = contents
            .iter()
            .map(|(name, locked, snapshot)| Taken {
                skill: SourceSkill {
                    name: name.clone(),
                    path: locked.path.clone(),
                    snapshot: snapshot.clone(),
                    left_out: Vec::new(),
                    digest: locked.digest.clone(),
                    release: None,
                },
                source: locked.source.clone(),
                reference: locked.reference.clone(),
                commit: locked.commit.clone(),
                namespace: locked.namespace(),
            })
            .collect();
        let namespaces = contents
            .iter()
            .map(|(_, locked, _)| locked.namespace())
            .filter(|namespace| !namespace.is_global())
            .collect();
        let made = super::make_missing(&owner, namespaces).await?;
        if !made.is_empty() {
            let made: Vec<String> = made.iter().map(ToString::to_string).collect();
            output::stderr(&format!(
                "made namespace {} for the lock's skills (`skillpath members add` gives it members)\n",
                made.join(", ")
            ))
            .map_err(store_commands::io)?;
        }
        let (report, _) = super::import(
            &owner,
            taken,
            skillpath_model::Visibility::default(),
            "skillpath install --frozen",
        )
        .await?;
        super::report_audit(&report, policy)?;
        let mut failed: Vec<(String, String)> = report
            .refused
            .iter()
            .map(|r| (r.name.clone(), "refused by the audit policy".to_owned()))
            .collect();
        let options =
            super::values::member_options(contents.iter().map(|(_, _, snapshot)| snapshot));
        let mut written = Vec::new();
        for (name, locked, snapshot) in &contents {
            let key = locked.key(name);
            if report.refused.iter().any(|r| r.name == key) {
                continue;
            }
            match values.instance(name, snapshot.clone(), &options) {
                Ok((snapshot, rendered)) => written.push((name, locked, snapshot, rendered)),
                Err(why) => failed.push((name.clone(), why.to_string())),
            }
        }
        let skills: Vec<ToWrite<'_>> = written
            .iter()
            .map(|(name, locked, snapshot, rendered)| ToWrite {
                name,
                snapshot,
                untouched: &locked.files,
                rendered: *rendered,
            })
            .collect();
        let synced = Synced {
            folders: write::write_all(&scope, &targets, &skills, copy, Edits::Replace),
            failed,
            ..Synced::default()
        };
        super::sync::print(format, &scope, &synced)
    })
}

/// One difference between an agent folder and the lock.
#[derive(Debug, serde::Serialize)]
struct Difference {
    path: String,
    difference: String,
}

/// `--check`: every file of the agents' folders that differs from the lock, named.
fn check(
    scope: &Scope,
    lock: &Lock,
    targets: &[Target],
    values: &Values,
    format: OutputFormat,
) -> anyhow::Result<ExitStatus> {
    // What each folder should hold: the lock's files, or their rendering with the values.
    let mut expected: std::collections::BTreeMap<&str, Vec<skillpath_sources::digest::FileDigest>> =
        lock.skills
            .iter()
            .map(|(name, locked)| (name.as_str(), locked.files.clone()))
            .collect();
    // The packages' options, for members rendered with values (read only when there are).
    let mut packages = Vec::new();
    if lock.skills.keys().any(|name| values.names(name)) {
        for locked in lock.skills.values() {
            if locked
                .files
                .iter()
                .any(|file| file.path == package::MANIFEST)
                && let Ok(item) = verify::read_locked(locked)
            {
                packages.push(item.snapshot);
            }
        }
    }
    let options = super::values::member_options(&packages);
    for (name, locked) in &lock.skills {
        if !values.names(name) {
            continue;
        }
        let rendered = verify::read_locked(locked)
            .map_err(NotRendered::from)
            .and_then(|skill| values.instance(name, skill.snapshot, &options));
        match rendered {
            Ok((instance, _)) => {
                expected.insert(name, skillpath_sources::digest::files_of(&instance));
            }
            Err(why) => {
                return Ok(super::usage(&SourceError::new(format!("`{name}` {why}"))));
            }
        }
    }
    let mut differences = Vec::new();
    for target in targets {
        match scope.refusal(&target.dir) {
            Err(reason) => {
                differences.push(Difference {
                    path: super::shown(scope.root(), &target.dir),
                    difference: reason.to_string(),
                });
                continue;
            }
            Ok(Some(_)) => continue,
            Ok(None) => {}
        }
        for (name, locked) in &lock.skills {
            let path = match folders::skill_folder(&target.dir, name) {
                Ok(path) => path,
                Err(why) => {
                    differences.push(Difference {
                        path: super::shown(scope.root(), &target.dir),
                        difference: why.to_string(),
                    });
                    continue;
                }
            };
            let link_to = scope.link_to(target, name);
            let shown = super::shown(scope.root(), &path);
            let files = expected.get(name.as_str()).unwrap_or(&locked.files);
            match folders::state(&path, files, name, link_to.as_deref()) {
                State::Clean => {}
                State::Missing => differences.push(Difference {
                    path: shown,
                    difference: "missing".to_owned(),
                }),
                State::Conflicting { reason } => differences.push(Difference {
                    path: shown,
                    difference: reason,
                }),
                State::Modified { changes } => {
                    for change in changes {
                        let difference = match change {
                            FileChange::Added(_) => "not in the lock",
                            FileChange::Removed(_) => "missing",
                            FileChange::Changed(_) => "differs from the lock",
                        };
                        differences.push(Difference {
                            path: format!("{shown}/{}", change.path()),
                            difference: difference.to_owned(),
                        });
                    }
                }
            }
        }
    }
    let json = serde_json::json!({ "differences": differences });
    store_commands::print(format, &json, || {
        let mut text = String::new();
        for difference in &differences {
            let _ = writeln!(text, "`{}`: {}", difference.path, difference.difference);
        }
        if differences.is_empty() {
            let _ = writeln!(
                text,
                "every agent folder holds what the lock says ({} skills)",
                lock.skills.len()
            );
        } else {
            let _ = writeln!(
                text,
                "{} differences from the lock; `skillpath install --frozen` restores it",
                differences.len()
            );
        }
        text
    })?;
    Ok(if differences.is_empty() {
        ExitStatus::Success
    } else {
        ExitStatus::Invalid
    })
}

/// What to say of the lock's registry skills whose pinned version the registry no longer
/// lists (yanked): they are restored as pinned, and said so. A registry that cannot be asked
/// now says nothing: the restore needs only what the lock pins.
fn yanked_pins(lock: &Lock) -> String {
    let mut said = String::new();
    for (name, locked) in &lock.skills {
        let (Some(url), Some(version)) = (
            skillpath_sources::registry::of_recorded(&locked.source),
            locked.version.as_deref(),
        ) else {
            continue;
        };
        let Ok(listed) = skillpath_sources::registry::Registry::new(url).versions(&locked.path)
        else {
            continue;
        };
        if !listed
            .releases
            .iter()
            .any(|release| release.version.to_string() == version)
        {
            let _ = writeln!(
                said,
                "warning: `{name}` {version} is yanked at `{url}`; it is restored as the lock pins it: `skillpath update {name}` moves to a release in `{}`",
                locked.reference.as_deref().unwrap_or("latest")
            );
        }
    }
    said
}
