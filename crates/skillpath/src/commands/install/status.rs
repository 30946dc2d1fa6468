//! `skillpath status`: each installed skill in each agent folder against the lock, and
//! whether its source has moved on.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use skillpath_sources::SourceError;
use skillpath_sources::digest::{files_of, tree_digest};
use skillpath_sources::folders::{self, FileChange, State};
use skillpath_sources::git::Repository;
use skillpath_sources::lock::LockedSkill;
use skillpath_sources::registry::Registry;
use skillpath_sources::source::{self, Origin};
use skillpath_sources::verify;

use crate::cli::StatusArgs;
use crate::commands::store as store_commands;
use crate::output::ExitStatus;

/// One skill's status.
#[derive(Debug, serde::Serialize)]
struct SkillStatus {
    name: String,
    source: String,
    commit: Option<String>,
    /// The newest commit of the locked ref, when it differs; for a folder source, whether
    /// its content changed.
    outdated: Option<String>,
    /// Why the source could not be asked.
    unknown: Option<String>,
    folders: Vec<FolderStatus>,
}

/// One skill in one folder.
#[derive(Debug, serde::Serialize)]
struct FolderStatus {
    path: String,
    #[serde(flatten)]
    state: State,
    /// The unified diff of the local edits, from what was installed.
    #[serde(skip_serializing_if = "String::is_empty")]
    diff: String,
}

pub(crate) fn run(args: StatusArgs) -> anyhow::Result<ExitStatus> {
    let super::Setup {
        scope,
        lock,
        agents,
    } = match super::setup(&args.scope, &args.agents) {
        Ok(setup) => setup,
        Err(status) => return Ok(status),
    };
    if let Err(status) = super::use_token(&args.token) {
        return Ok(status);
    }
    let targets = folders::targets(&scope, &agents);
    let mut newest: BTreeMap<(String, Option<String>), Result<String, SourceError>> =
        BTreeMap::new();
    let mut statuses = Vec::new();
    for (name, locked) in &lock.skills {
        let (outdated, unknown) = if args.offline {
            (None, None)
        } else {
            match outdated(locked, &mut newest) {
                Ok(outdated) => (outdated, None),
                Err(why) => (None, Some(why.to_string())),
            }
        };
        let mut status = SkillStatus {
            name: name.clone(),
            source: locked.source.clone(),
            commit: locked.commit.clone(),
            outdated,
            unknown,
            folders: Vec::new(),
        };
        for target in &targets {
            let Ok(path) = folders::skill_folder(&target.dir, name) else {
                // A lock names no such skill: reading it refuses the name, with its line.
                continue;
            };
            if let Ok(Some(_)) = scope.refusal(&target.dir) {
                continue;
            }
            let link_to = scope.link_to(target, name);
            let state = folders::state(&path, &locked.files, name, link_to.as_deref());
            let diff = match &state {
                State::Modified { changes } => diff(locked, &path, changes),
                _ => String::new(),
            };
            status.folders.push(FolderStatus {
                path: super::shown(scope.root(), &path),
                state,
                diff,
            });
        }
        statuses.push(status);
    }
    let all_clean = statuses
        .iter()
        .all(|s| s.outdated.is_none() && s.folders.iter().all(|f| f.state == State::Clean));
    let json = serde_json::json!({ "lock": scope.lock_path(), "skills": statuses });
    store_commands::print(args.format, &json, || {
        let mut text = String::new();
        if statuses.is_empty() {
            let _ = writeln!(
                text,
                "no skills are installed here (`{}`)",
                scope.lock_path().display()
            );
        }
        for status in &statuses {
            let at = status
                .commit
                .as_deref()
                .map_or_else(String::new, |c| format!(" at {}", &c[..12.min(c.len())]));
            let _ = writeln!(text, "{} ({}{at})", status.name, status.source);
            if let Some(newest) = &status.outdated {
                let _ = writeln!(
                    text,
                    "  outdated: {newest}; `skillpath update {}` moves to it",
                    status.name
                );
            }
            if let Some(why) = &status.unknown {
                let _ = writeln!(text, "  upstream unknown: {why}");
            }
            for folder in &status.folders {
                let state = match &folder.state {
                    State::Clean => "clean".to_owned(),
                    State::Missing => "missing (`skillpath sync` writes it)".to_owned(),
                    State::Conflicting { reason } => format!("conflicting: {reason}"),
                    State::Modified { changes } => {
                        let files: Vec<String> = changes.iter().map(describe).collect();
                        format!("modified locally: {}", files.join(", "))
                    }
                };
                let _ = writeln!(text, "  {}: {state}", folder.path);
                for line in folder.diff.lines() {
                    let _ = writeln!(text, "    {line}");
                }
            }
        }
        text
    })?;
    Ok(if all_clean {
        ExitStatus::Success
    } else {
        ExitStatus::Invalid
    })
}

/// A file change for people.
fn describe(change: &FileChange) -> String {
    match change {
        FileChange::Added(path) => format!("{path} (added)"),
        FileChange::Removed(path) => format!("{path} (removed)"),
        FileChange::Changed(path) => format!("{path} (changed)"),
    }
}

/// The newest commit of the skill's locked ref when it is not the locked one (a folder
/// source: whether its content changed); each source and ref asked once.
fn outdated(
    locked: &LockedSkill,
    newest: &mut BTreeMap<(String, Option<String>), Result<String, SourceError>>,
) -> Result<Option<String>, SourceError> {
    match Origin::from_recorded(&locked.source) {
        Origin::Git { url } => {
            let key = (url.clone(), locked.reference.clone());
            let commit = newest
                .entry(key)
                .or_insert_with(|| {
                    Repository::open(&url).and_then(|r| r.resolve(locked.reference.as_deref()))
                })
                .clone()?;
            Ok((Some(&commit) != locked.commit.as_ref()).then(|| {
                format!(
                    "{} is at {}",
                    locked.reference.as_deref().unwrap_or("the default branch"),
                    &commit[..12.min(commit.len())]
                )
            }))
        }
        Origin::Registry { url } => newer_release(&url, locked),
        origin => {
            let (_, found) =
                source::read_newest(&origin, None, locked.digest.as_deref(), &locked.path)?;
            let changed = found
                .skill_at(&locked.source, &locked.path)
                .map_or(true, |skill| {
                    tree_digest(&files_of(&skill.snapshot)) != locked.tree
                });
            Ok(changed.then(|| "the source publishes other content now".to_owned()))
        }
    }
}

/// What a registry has that is newer than the locked version of its skill: a version its
/// request (`ref`) resolves to now, a newer major version outside the request, and whether
/// the locked version was yanked since.
fn newer_release(url: &str, locked: &LockedSkill) -> Result<Option<String>, SourceError> {
    use skillpath_model::release::{self, Version};
    let registry = Registry::new(url);
    let versions = registry.versions(&locked.path)?;
    let pinned = locked
        .version
        .as_deref()
        .and_then(|version| Version::parse(version).ok());
    let mut said = Vec::new();
    let request = locked.reference.as_deref().unwrap_or(release::LATEST);
    if let Ok(request) = release::Request::parse(request)
        && let Ok(resolved) = release::resolve(&versions.releases, &versions.tags, &request)
        && pinned
            .as_ref()
            .is_none_or(|pinned| !release::same_version(pinned, &resolved.version))
    {
        said.push(format!("{} is out (in `{request}`)", resolved.version));
    }
    if let Some(pinned) = &pinned {
        let newest_major = versions
            .releases
            .iter()
            .filter(|r| r.version.pre.is_empty() && r.version.major > pinned.major)
            .max_by(|a, b| a.version.cmp_precedence(&b.version));
        if let Some(major) = newest_major {
            said.push(format!(
                "{} is a newer major (`skillpath add {}@^{}` moves to it)",
                major.version,
                shown_item(url, &locked.path),
                major.version.major
            ));
        }
        if !versions
            .releases
            .iter()
            .any(|r| release::same_version(&r.version, pinned))
        {
            said.push(format!("{pinned} is yanked"));
        }
    }
    Ok((!said.is_empty()).then(|| said.join("; ")))
}

/// How `skillpath add` names the registry's skill `slug`.
fn shown_item(url: &str, slug: &str) -> String {
    match skillpath_model::FullName::of_slug(slug) {
        Ok(full) if url != skillpath_sources::registry::DEFAULT_REGISTRY => full.to_string(),
        _ => format!("clawhub:{slug}"),
    }
}

/// The unified diff of the changed text files of the folder at `path` from what was
/// installed (read from the source at the locked commit); empty when that cannot be read.
fn diff(locked: &LockedSkill, path: &std::path::Path, changes: &[FileChange]) -> String {
    let Ok(base) = verify::read_locked(locked).map(|skill| folders::files_of(&skill.snapshot))
    else {
        return String::new();
    };
    let local = folders::read_files(&path.canonicalize().unwrap_or_else(|_| path.to_path_buf()))
        .unwrap_or_default();
    let mut text = String::new();
    for change in changes {
        let file = change.path();
        let text_of = |bytes: Option<&Vec<u8>>| {
            bytes
                .and_then(|b| std::str::from_utf8(b).ok())
                .unwrap_or("")
                .to_owned()
        };
        let (old, new) = (text_of(base.get(file)), text_of(local.get(file)));
        let diff = similar::TextDiff::from_lines(&old, &new);
        let _ = write!(
            text,
            "{}",
            diff.unified_diff()
                .context_radius(2)
                .header(&format!("installed/{file}"), &format!("local/{file}"))
        );
    }
    text
}
