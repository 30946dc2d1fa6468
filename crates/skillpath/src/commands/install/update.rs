//! `skillpath update [NAME...]`: each installed skill moved to the newest commit of its locked
//! ref. A folder with local edits is never overwritten without `--force`: the three-way state
//! (what was installed, what is there, what the update brings) is shown, and `--merge` merges
//! the two where their edits do not overlap. A skill with any folder left is not updated at
//! all, so the lock keeps telling what its folders were installed from.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use skillpath_model::SkillSnapshot;
use skillpath_sources::digest::{files_of, tree_digest};
use skillpath_sources::lock::LockedSkill;
use skillpath_sources::source::{self, Origin};
use skillpath_sources::tree::SourceSkill;
use skillpath_sources::write::{self, Placed};
use skillpath_sources::{SourceError, folders};

use super::Taken;
use super::sync::Synced;
use crate::cli::UpdateArgs;
use crate::commands::store as store_commands;
use crate::output::{self, ExitStatus};

/// What the update of one skill will do.
struct Planned {
    name: String,
    taken: Taken,
    /// Per target folder, the merged content to write there instead of the update's.
    merged: BTreeMap<usize, SkillSnapshot>,
}

pub(crate) fn run(args: UpdateArgs) -> anyhow::Result<ExitStatus> {
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
    if let Some(name) = args
        .names
        .iter()
        .find(|name| !lock.skills.contains_key(*name))
    {
        return usage(SourceError::new(format!(
            "`{name}` is not in `{}`",
            scope.lock_path().display()
        )));
    }
    let targets = folders::targets(&scope, &agents);
    let _held = match skillpath_sources::cache::lock_folder(scope.root()) {
        Ok(held) => held,
        Err(error) => return usage(error),
    };
    let mut said = String::new();
    let mut current = Vec::new();
    let mut left = Vec::new();
    let mut planned = Vec::new();
    for (name, old) in &lock.skills {
        if !args.names.is_empty() && !args.names.contains(name) {
            continue;
        }
        let upstream = match newest(old) {
            Ok(upstream) => upstream,
            Err(error) => {
                let _ = writeln!(said, "error: `{name}`: {error}");
                left.push(name.clone());
                continue;
            }
        };
        let (commit, skill) = upstream;
        let _ = write!(said, "{}", super::yanked_text(&skill));
        let new_files = files_of(&skill.snapshot);
        let version = skill.release.as_ref().map(|release| &release.version);
        if tree_digest(&new_files) == old.tree
            && commit == old.commit
            && version == old.version.as_ref()
        {
            current.push(name.clone());
            continue;
        }
        let merged = match write::plan_update(
            &scope,
            &targets,
            name,
            old,
            &skill.snapshot,
            args.force,
            args.merge,
        ) {
            Ok(merged) => merged,
            Err(refusals) => {
                for refusal in &refusals {
                    let _ = writeln!(said, "left: {refusal}");
                }
                let _ = writeln!(
                    said,
                    "  = hint: `skillpath update {name} --merge` merges edits that do not overlap; `--force` replaces them"
                );
                left.push(name.clone());
                continue;
            }
        };
        planned.push(Planned {
            name: name.clone(),
            taken: Taken {
                skill,
                source: old.source.clone(),
                reference: old.reference.clone(),
                commit,
                namespace: old.namespace(),
            },
            merged,
        });
    }
    output::stderr(&said)?;
    let format = args.format;
    let copy = args.agents.copy;
    let policy = args.audit.policy(false);
    super::with_owner(&args.db, Some(policy), move |owner| async move {
        let plans: BTreeMap<String, Planned> =
            planned.into_iter().map(|p| (p.name.clone(), p)).collect();
        let taken: Vec<Taken> = plans.values().map(|p| p.taken.clone()).collect();
        // Skills the update creates (one removed from the store since) are seen as new ones are.
        let (report, locked) = super::import(
            &owner,
            taken,
            skillpath_model::Visibility::default(),
            "skillpath update",
        )
        .await?;
        super::report_audit(&report, policy)?;
        let updated: Vec<String> = locked.keys().cloned().collect();
        lock.skills.extend(locked);
        if let Err(error) = super::write_lock(&scope, &lock) {
            return super::fail(&error, ExitStatus::UsageOrInternal);
        }
        let mut placed: Vec<Placed> = Vec::new();
        for name in &updated {
            let plan = &plans[name];
            placed.extend(write::write_update(
                &scope,
                &targets,
                name,
                &plan.taken.skill.snapshot,
                &plan.merged,
                copy,
            ));
        }
        let synced = Synced {
            folders: placed,
            failed: report
                .refused
                .iter()
                .map(|r| (r.name.clone(), "refused by the audit policy".to_owned()))
                .collect(),
            ..Synced::default()
        };
        let mut json = store_commands::to_json(&synced)?;
        json["updated"] = serde_json::json!(updated);
        json["current"] = serde_json::json!(current);
        json["left"] = serde_json::json!(left);
        store_commands::print(format, &json, || {
            let mut text = String::new();
            if !updated.is_empty() {
                let _ = writeln!(text, "updated {}: {}", updated.len(), updated.join(", "));
            }
            if !current.is_empty() {
                let _ = writeln!(text, "current: {}", current.join(", "));
            }
            if !left.is_empty() {
                let _ = writeln!(text, "not updated: {}", left.join(", "));
            }
            text.push_str(&super::placed_text(scope.root(), &synced.folders));
            text
        })
        .map_err(store_commands::io)?;
        Ok(if left.is_empty() && synced.failed.is_empty() {
            ExitStatus::Success
        } else {
            ExitStatus::Invalid
        })
    })
}

/// The newest commit of the skill's locked ref and the skill there (for a registry's skill,
/// the version its locked request resolves to now).
fn newest(old: &LockedSkill) -> Result<(Option<String>, SourceSkill), SourceError> {
    let origin = Origin::from_recorded(&old.source);
    let (commit, found) = source::read_newest(
        &origin,
        old.reference.as_deref(),
        old.digest.as_deref(),
        &old.path,
    )?;
    Ok((commit, found.skill_at(&old.source, &old.path)?))
}
