//! `skillpath update [NAME...]`: each installed skill moved to the newest commit of its locked
//! ref. A folder with local edits is never overwritten without `--force`: the three-way state
//! (what was installed, what is there, what the update brings) is shown, and `--merge` merges
//! the two where their edits do not overlap. A skill with any folder left is not updated at
//! all, so the lock keeps telling what its folders were installed from.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use skillpath_model::{Kind, SkillFile, SkillSnapshot};
use skillpath_sources::SourceError;
use skillpath_sources::digest::{files_of, tree_digest};
use skillpath_sources::folders::{self, State};
use skillpath_sources::lock::LockedSkill;
use skillpath_sources::merge;
use skillpath_sources::source::Origin;
use skillpath_sources::tree::SourceSkill;
use skillpath_store::ProjectView;

use super::sync::Synced;
use super::{Placed, Taken};
use crate::cli::UpdateArgs;
use crate::commands::store::{self as store_commands, Access};
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
        let new_files = files_of(&skill.snapshot);
        if tree_digest(&new_files) == old.tree && commit == old.commit {
            current.push(name.clone());
            continue;
        }
        let mut merged = BTreeMap::new();
        let mut refusals = Vec::new();
        // What the update brings and what was installed, the same for every folder; the
        // installed files are read from the source once, by the first folder that merges.
        let upstream_files = folders::files_of(&skill.snapshot);
        let upstream_changed: Vec<String> = folders::compare(&upstream_files, &old.files)
            .iter()
            .map(|c| c.path().to_owned())
            .collect();
        let mut installed: Option<Result<BTreeMap<String, Vec<u8>>, SourceError>> = None;
        for (index, target) in targets.iter().enumerate() {
            let path = match folders::skill_folder(&target.dir, name) {
                Ok(path) => path,
                Err(why) => {
                    refusals.push(why);
                    continue;
                }
            };
            if scope
                .link_to(target, name)
                .is_some_and(|to| folders::is_link_to(&path, &to))
            {
                // A link to the canonical copy follows whatever is written there.
                continue;
            }
            let changes = match folders::state(&path, &old.files, name, None) {
                State::Modified { changes } => changes,
                State::Conflicting { reason } => {
                    refusals.push(format!(
                        "`{}` {reason}; skillpath did not write it",
                        super::shown(scope.root(), &path)
                    ));
                    continue;
                }
                State::Clean | State::Missing => continue,
            };
            if args.force {
                continue;
            }
            let local = folders::read_files(&path).unwrap_or_default();
            let local_changed: Vec<&str> = changes.iter().map(|c| c.path()).collect();
            let both: Vec<&str> = local_changed
                .iter()
                .copied()
                .filter(|p| upstream_changed.iter().any(|u| u == p))
                .collect();
            let shown = super::shown(scope.root(), &path);
            if args.merge {
                let base = match installed.get_or_insert_with(|| base_files(old)) {
                    Ok(base) => base,
                    Err(error) => {
                        refusals.push(format!(
                            "`{shown}`: what was installed cannot be read to merge: {error}"
                        ));
                        continue;
                    }
                };
                match merge::merge(base, &local, &upstream_files) {
                    Ok(result) if result.conflicts.is_empty() => match snapshot_of(result.files) {
                        Ok(snapshot) => {
                            merged.insert(index, snapshot);
                        }
                        Err(why) => refusals.push(format!("`{shown}`: {why}")),
                    },
                    Ok(result) => refusals.push(format!(
                        "`{shown}`: the edits overlap: {}",
                        result.conflicts.join("; ")
                    )),
                    Err(error) => refusals.push(format!("`{shown}`: {error}")),
                }
                continue;
            }
            refusals.push(format!(
                "`{shown}` has local edits: changed here: {}; changed upstream: {}; changed on both sides: {}",
                list(&local_changed),
                list(&upstream_changed.iter().map(String::as_str).collect::<Vec<_>>()),
                list(&both)
            ));
        }
        if !refusals.is_empty() {
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
        planned.push(Planned {
            name: name.clone(),
            taken: Taken {
                skill,
                source: old.source.clone(),
                reference: old.reference.clone(),
                commit,
            },
            merged,
        });
    }
    output::stderr(&said)?;
    let format = args.format;
    let copy = args.agents.copy;
    let policy = args.audit.policy(false);
    store_commands::run_in(
        &args.db,
        Access::Creates,
        ProjectView::shared(),
        move |store| async move {
            store.set_audit_policy(policy);
            let plans: BTreeMap<String, Planned> =
                planned.into_iter().map(|p| (p.name.clone(), p)).collect();
            let taken: Vec<Taken> = plans
                .values()
                .map(|p| Taken {
                    skill: p.taken.skill.clone(),
                    source: p.taken.source.clone(),
                    reference: p.taken.reference.clone(),
                    commit: p.taken.commit.clone(),
                })
                .collect();
            let (report, locked) = super::import(
                store.as_ref(),
                taken,
                super::change("skillpath update".to_owned()),
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
                // Links are written only once the canonical copy is.
                let mut canonical_written = false;
                for (index, target) in targets.iter().enumerate() {
                    // Shown only: `place` refuses a name that is no folder's, with the reason.
                    let path = folders::skill_folder(&target.dir, name)
                        .unwrap_or_else(|_| target.dir.clone());
                    let snapshot = plan
                        .merged
                        .get(&index)
                        .unwrap_or(&plan.taken.skill.snapshot);
                    let written = match scope.refusal(&target.dir) {
                        Err(reason) => Err(reason),
                        Ok(Some(_)) => continue,
                        Ok(None) => {
                            let link = !target.canonical
                                && !copy
                                && canonical_written
                                && !plan.merged.contains_key(&index);
                            let link_to = scope.link_to(target, name).filter(|_| link);
                            folders::place(&target.dir, name, snapshot, link_to.as_deref())
                        }
                    };
                    if target.canonical {
                        canonical_written = written.is_ok();
                    }
                    placed.push(Placed::of(path, name, written));
                }
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
        },
    )
}

/// The newest commit of the skill's locked ref and the skill there.
fn newest(old: &LockedSkill) -> Result<(Option<String>, SourceSkill), SourceError> {
    let origin = Origin::from_recorded(&old.source);
    let (commit, found) = super::read_newest(
        &origin,
        old.reference.as_deref(),
        old.digest.as_deref(),
        &old.path,
    )?;
    Ok((commit, super::skill_at(&found, &old.source, &old.path)?))
}

/// The files that were installed, from the source at the locked commit, checked.
fn base_files(old: &LockedSkill) -> Result<BTreeMap<String, Vec<u8>>, SourceError> {
    let skill = super::read_locked(old)?;
    super::verify(&skill.name, old, &files_of(&skill.snapshot))?;
    Ok(folders::files_of(&skill.snapshot))
}

/// A merge's files as a snapshot.
fn snapshot_of(mut files: BTreeMap<String, Vec<u8>>) -> Result<SkillSnapshot, String> {
    // A skill's, or a package's (a `PACKAGE.md` and no `SKILL.md`).
    let kind = if files.contains_key(Kind::Skill.manifest()) {
        Kind::Skill
    } else {
        Kind::Package
    };
    let manifest = kind.manifest();
    let skill_md = files
        .remove(manifest)
        .ok_or_else(|| format!("the merge has no `{manifest}`"))?;
    let skill_md =
        String::from_utf8(skill_md).map_err(|_| format!("the merged `{manifest}` is not UTF-8"))?;
    SkillSnapshot::of_kind(
        kind,
        skill_md,
        files
            .into_iter()
            .map(|(path, bytes)| SkillFile { path, bytes })
            .collect(),
    )
    .map_err(|e| e.to_string())
}

/// Paths for people: `a, b`, or `none`.
fn list(paths: &[&str]) -> String {
    if paths.is_empty() {
        "none".to_owned()
    } else {
        paths.join(", ")
    }
}
