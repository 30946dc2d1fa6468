//! `skillpath add SOURCE [SKILL...]`: resolve the ref to a commit, find the source's skills,
//! audit and import them with their provenance, pin them in the lock, and write them into
//! the agents' folders.

use std::fmt::Write as _;

use skillpath_model::Namespace;
use skillpath_sources::SourceError;
use skillpath_sources::migrate::{self, Request};
use skillpath_sources::tree;
use skillpath_sources::write::{Edits, Outcome};
use skillpath_sources::{registry, source};

use super::Taken;
use super::sync::ToSync;
use crate::cli::AddArgs;
use crate::commands::store as store_commands;
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
    if let Err(status) = super::use_token(&args.token) {
        return Ok(status);
    }
    let cwd = std::env::current_dir()?;
    // The registry a `@namespace/name` is read from: the flag, the environment, else the one
    // the lock already installs from.
    let registry = args
        .registry
        .clone()
        .or_else(|| std::env::var(registry::REGISTRY_ENV).ok())
        .filter(|url| !url.trim().is_empty())
        .or_else(|| {
            lock.skills
                .values()
                .find_map(|locked| registry::of_recorded(&locked.source).map(str::to_owned))
        });
    let requests = match (&args.source, &args.from_lock) {
        (Some(source), _) => vec![Request {
            source: source.clone(),
            reference: args.reference.clone(),
            skills: args.skills.clone(),
        }],
        (None, Some(from)) => match migrate::requests(from) {
            Ok(migrate::Moved { requests, skipped }) => {
                let mut said = String::new();
                for (name, why) in skipped {
                    let _ = writeln!(said, "skipped: `{name}`: {why}");
                }
                output::stderr(&said)?;
                requests
            }
            Err(error) => return usage(error),
        },
        (None, None) => return usage(SourceError::new("name a SOURCE, or `--from-lock PATH`")),
    };
    let digest = args.sha256.as_deref().map(|hex| {
        let hex = hex.to_ascii_lowercase();
        if hex.starts_with("sha256:") {
            hex
        } else {
            format!("sha256:{hex}")
        }
    });
    let path = args
        .path
        .clone()
        .unwrap_or_default()
        .trim_matches('/')
        .to_owned();
    let placement = args.placement.placement();
    let single = requests.len() == 1;
    let mut taken = Vec::new();
    let mut sources = Vec::new();
    let mut skipped_any = false;
    for request in &requests {
        match take(
            request,
            &cwd,
            &path,
            digest.as_deref(),
            &placement.namespace,
            registry.as_deref(),
        ) {
            Ok(from) => {
                skipped_any |= from.skipped_any;
                sources.push(serde_json::json!({ "source": from.recorded, "commit": from.commit }));
                taken.extend(from.taken);
            }
            Err(error) if single => return usage(error),
            Err(error) => {
                super::fail(&error, ExitStatus::Invalid)?;
                skipped_any = true;
            }
        }
    }
    if taken.is_empty() {
        return usage(SourceError::new(
            "nothing can be installed from what was named",
        ));
    }
    let policy = args.audit.policy(false);
    let format = args.format;
    let copy = args.agents.copy;
    let no_sync = args.no_sync;
    let given_agents = !args.agents.agents.is_empty();
    let message = match (&args.source, &args.from_lock) {
        (Some(source), _) => format!("skillpath add {source}"),
        (None, from) => format!(
            "skillpath add --from-lock {}",
            from.as_deref()
                .unwrap_or(std::path::Path::new(""))
                .display()
        ),
    };
    let visibility = placement.visibility;
    super::with_owner(&args.db, Some(policy), move |owner| async move {
        let (report, locked) = super::import(&owner, taken, visibility, &message).await?;
        super::report_audit(&report, policy)?;
        let names: Vec<String> = locked.keys().cloned().collect();
        lock.skills.extend(locked);
        if given_agents {
            lock.agents.extend(super::ids(&agents));
        }
        if let Err(error) = super::write_lock(&scope, &lock) {
            return super::fail(&error, ExitStatus::UsageOrInternal);
        }
        let mut text = format!("added {} skills: {}\n", names.len(), names.join(", "));
        for source in &sources {
            let at = source["commit"]
                .as_str()
                .map_or_else(String::new, |c| format!(" at {}", &c[..12.min(c.len())]));
            let _ = writeln!(
                text,
                "  from `{}`{at}",
                source["source"].as_str().unwrap_or_default()
            );
        }
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
                owner.app.store(),
                ToSync {
                    scope: &scope,
                    lock: &lock,
                    only: Some(&names),
                    extra: &[],
                    agents: &agents,
                    copy,
                    edits: Edits::Keep,
                    values: &super::values::Values::default(),
                },
            )
            .await?;
            text.push_str(&super::placed_text(scope.root(), &synced.folders));
            Some(synced)
        };
        let mut json = serde_json::json!({
            "sources": sources,
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
                !s.failed.is_empty() || s.folders.iter().any(|p| p.result == Outcome::Skipped)
            });
        Ok(if incomplete {
            ExitStatus::Invalid
        } else {
            ExitStatus::Success
        })
    })
}

/// The skills taken from one source.
struct TakenFrom {
    /// The source as the lock records it.
    recorded: String,
    /// The commit a git source's ref resolved to.
    commit: Option<String>,
    taken: Vec<Taken>,
    /// Whether a skill folder of it was skipped.
    skipped_any: bool,
}

/// Reads the source `request` names (under `path`; an archive checked against `digest`) and
/// takes the skills it asks for, into `namespace`, saying on stderr what was skipped or left
/// out.
fn take(
    request: &Request,
    cwd: &std::path::Path,
    path: &str,
    digest: Option<&str>,
    namespace: &Namespace,
    registry: Option<&str>,
) -> Result<TakenFrom, SourceError> {
    let (source, path) = match registry::wanted(&request.source) {
        Some(wanted) => {
            let wanted = wanted?;
            let url = registry.or(wanted.default_registry).ok_or_else(|| {
                SourceError::new(format!(
                    "`{}` is a registry's skill, and no registry is named",
                    request.source
                ))
                .hint(format!(
                    "name the skillpath server: `--registry URL` or `{}=URL`",
                    registry::REGISTRY_ENV
                ))
            })?;
            let source = source::Source {
                origin: source::Origin::Registry {
                    url: url.trim_end_matches('/').to_owned(),
                },
                reference: wanted.request,
            };
            (source, wanted.slug)
        }
        None => {
            let mut source = source::parse(&request.source, cwd)?;
            if request.reference.is_some() {
                source.reference.clone_from(&request.reference);
            }
            source.origin = source::probe(source.origin)?;
            (source, path.to_owned())
        }
    };
    let path = path.as_str();
    let (commit, found) =
        source::read_newest(&source.origin, source.reference.as_deref(), digest, path)?;
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
        said.push_str(&super::yanked_text(skill));
    }
    let _ = output::stderr(&said);
    let mut wanted = found.skills;
    if !request.skills.is_empty() {
        let missing: Vec<&String> = request
            .skills
            .iter()
            .filter(|name| !wanted.iter().any(|skill| &skill.name == *name))
            .collect();
        if !missing.is_empty() {
            let names: Vec<&str> = wanted.iter().map(|skill| skill.name.as_str()).collect();
            return Err(SourceError::new(format!(
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
            }));
        }
        wanted.retain(|skill| request.skills.contains(&skill.name));
    }
    if wanted.is_empty() {
        return Err(SourceError::new(format!("`{recorded}` has no skill that can be installed"))
            .hint("a skill is a folder with a `SKILL.md`; name the folder that holds them with `--path`"));
    }
    let taken = wanted
        .into_iter()
        .map(|skill| Taken {
            skill,
            source: recorded.clone(),
            reference: source.reference.clone(),
            commit: commit.clone(),
            namespace: namespace.clone(),
        })
        .collect();
    Ok(TakenFrom {
        recorded,
        commit,
        taken,
        skipped_any: !found.skipped.is_empty(),
    })
}
