//! `skillpath export`: stored skills back as folders, and packages as package folders with
//! their member skills inside, as they were imported. The skills are listed and read through
//! the application's reading operations, as the store's owner.

use std::collections::HashSet;

use skillpath_app::{App, AppError, Operation, Permit};
use skillpath_folders::folder::{export_package_folder, export_refusal, export_skill_folder};
use skillpath_model::{Kind, SkillSnapshot};
use skillpath_store::{ListFilter, StoreError, StoredSkill};

use super::AsOwner;
use crate::cli::ExportArgs;
use crate::output::ExitStatus;

pub(crate) fn run(args: ExportArgs) -> anyhow::Result<ExitStatus> {
    let (to, force, format, names) = (args.to, args.force, args.format, args.names);
    super::run_as_owner(&args.db, AsOwner::existing(), move |owner| async move {
        let app = &owner.app;
        let listing = owner.may(Operation::ListSkills)?;
        let reading = owner.may(Operation::GetSkill)?;
        let names = if names.is_empty() {
            let mut all = Vec::new();
            let mut cursor = None;
            loop {
                let page = app
                    .list(&listing, ListFilter::default(), cursor, 1000)
                    .await?;
                all.extend(page.items.into_iter().map(|item| (item.name, item.kind)));
                match page.next_cursor {
                    Some(next) => cursor = Some(next),
                    None => break,
                }
            }
            // A package's members are exported inside its folder, not beside it.
            let mut inside = HashSet::new();
            for (name, _) in all.iter().filter(|(_, kind)| *kind == Kind::Package) {
                let package = app.revision(&reading, name, None).await?;
                inside.extend(manifest_members(&package).into_iter().map(|(_, name)| name));
            }
            all.into_iter()
                .map(|(name, _)| name)
                .filter(|name| !inside.contains(name))
                .collect()
        } else {
            names
        };
        // The store refuses a name that is no folder's (`../x`, `/etc/x`), but an older
        // skillpath stored any name a `SKILL.md` gave, and one would be written outside `--to`.
        // Checked for every skill, by the rule every name is loaded by, before the first is
        // written, so a refused export writes nothing.
        if let Some(problem) = names
            .iter()
            .find_map(|name| skillpath_core::validate::check_folder_name(name).err())
        {
            return Err(StoreError::InvalidSkill(format!(
                "a skill cannot be exported: {problem}; nothing is exported (`skillpath delete` the skill, or name the others)"
            ))
            .into());
        }
        // Folders that cannot take an export (a symlink, a file, one not empty without
        // `--force`) are refused before anything is written, too.
        if let Some(refusal) = names
            .iter()
            .find_map(|name| export_refusal(&to.join(name), force))
        {
            return Err(StoreError::InvalidState(refusal).into());
        }
        // A skill that cannot be read or written is named and the others are still exported.
        let mut written = Vec::new();
        let mut failed = Vec::new();
        for name in &names {
            let dir = to.join(name);
            let outcome = match app.revision(&reading, name, None).await {
                Ok(package) if package.snapshot.kind == Kind::Package => {
                    let (members, missing) = members_of(app, &reading, &package).await?;
                    failed.extend(missing.into_iter().map(|member| serde_json::json!({
                        "name": member,
                        "path": dir.display().to_string(),
                        "message": format!("package `{name}` lists the skill `{member}`, which is not in the store: its folder is left out"),
                    })));
                    export_package_folder(&dir, &package.snapshot, &members, force)
                        .map_err(|error| AppError::Store(error.into()))
                }
                Ok(skill) => export_skill_folder(&dir, &skill.snapshot, force)
                    .map_err(|error| AppError::Store(error.into())),
                Err(AppError::Store(error @ (StoreError::Database(_) | StoreError::Io { .. }))) => {
                    return Err(error.into());
                }
                Err(error) => Err(error),
            };
            match outcome {
                Ok(()) => written.push(dir.display().to_string()),
                Err(error) => failed.push(serde_json::json!({
                    "name": name,
                    "path": dir.display().to_string(),
                    "message": error.to_string(),
                })),
            }
        }
        let json = serde_json::json!({ "exported": written, "failed": failed });
        super::print(format, &json, || {
            let mut text = format!("exported {} skills to `{}`\n", written.len(), to.display());
            for failure in &failed {
                text.push_str(&format!(
                    "failed: `{}`: {}\n",
                    failure["name"].as_str().unwrap_or_default(),
                    failure["message"].as_str().unwrap_or_default()
                ));
            }
            text
        })
        .map_err(super::io)?;
        Ok(if failed.is_empty() {
            ExitStatus::Success
        } else {
            ExitStatus::Invalid
        })
    })
}

/// The member skills `package`'s manifest lists, each as (its folder in the package, its name).
fn manifest_members(package: &StoredSkill) -> Vec<(String, String)> {
    let (_, manifest, _) = skillpath_core::package::read_manifest(
        skillpath_core::package::MANIFEST.into(),
        package.snapshot.skill_md.clone(),
    );
    manifest.map_or_else(Vec::new, |manifest| {
        manifest
            .member_names()
            .into_iter()
            .filter_map(|name| Some((manifest.member_folder(&name)?.to_owned(), name)))
            .collect()
    })
}

/// The member skills of `package` in the store, each with its folder in the package; and the
/// names of those it lists that the store does not hold. Read with the permit `reading`.
async fn members_of(
    app: &App,
    reading: &Permit,
    package: &StoredSkill,
) -> Result<(Vec<(String, SkillSnapshot)>, Vec<String>), AppError> {
    let (mut found, mut missing) = (Vec::new(), Vec::new());
    for (folder, name) in manifest_members(package) {
        match app.revision(reading, &name, None).await {
            Ok(skill) if !skill.deleted && skill.snapshot.kind == Kind::Skill => {
                found.push((folder, skill.snapshot));
            }
            Ok(_) | Err(AppError::Store(StoreError::NotFound { .. })) => missing.push(name),
            Err(error) => return Err(error),
        }
    }
    Ok((found, missing))
}
