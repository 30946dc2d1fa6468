//! `skillpath release|releases|yank|tag`: an item's releases and tags, as the store's owner
//! through the application's operations (the version rules are the application's and the
//! store's; these parse, call and print).

use std::fmt::Write as _;

use skillpath_app::{Operation, ReleaseRequest, Released};

use super::people::{key_of, print_entry};
use super::{AsOwner, io, print, table, to_json};
use crate::cli::{ReleaseArgs, ReleasesArgs, TagArgs, YankArgs};
use crate::output::ExitStatus;

pub(crate) fn release(args: ReleaseArgs) -> anyhow::Result<ExitStatus> {
    let name = match key_of(&args.item) {
        Ok(name) => name,
        Err(status) => return status,
    };
    if let Some(reason) = args.decline {
        let (version, format) = (args.semver, args.common.format);
        return super::run_as_owner(
            &args.common.db,
            AsOwner::existing(),
            move |owner| async move {
                let permit = owner.may(Operation::ReleaseSkill)?;
                let entry = owner.app.decline(&permit, &name, version, reason).await?;
                print_entry(format, &entry)?;
                Ok(ExitStatus::Success)
            },
        );
    }
    let request = ReleaseRequest {
        name,
        version: args.semver,
        revision: args.revision,
        notes: args.notes,
        tags: args.tags,
        forced: args.force,
    };
    let format = args.common.format;
    super::run_as_owner(
        &args.common.db,
        AsOwner::existing(),
        move |owner| async move {
            let permit = owner.may(Operation::ReleaseSkill)?;
            let tags = request.tags.clone();
            let released = owner.app.release(&permit, request).await?;
            let mut json = to_json(&released)?;
            json["tags"] = serde_json::json!(tags);
            print(format, &json, || match &released {
                Released::Released(release) => {
                    let mut text = format!(
                        "released {} {} (revision {})\n",
                        release.item, release.version, release.revision
                    );
                    if !tags.is_empty() {
                        let _ = writeln!(text, "tagged {}", tags.join(", "));
                    }
                    text
                }
                Released::Proposed(proposal) => format!(
                    "proposed {} {} (revision {}) for a maintainer to release\n",
                    proposal.item, proposal.version, proposal.revision
                ),
            })
            .map_err(io)?;
            Ok(ExitStatus::Success)
        },
    )
}

pub(crate) fn releases(args: ReleasesArgs) -> anyhow::Result<ExitStatus> {
    let name = match key_of(&args.item) {
        Ok(name) => name,
        Err(status) => return status,
    };
    let format = args.common.format;
    super::run_as_owner(
        &args.common.db,
        AsOwner::existing(),
        move |owner| async move {
            let permit = owner.may(Operation::ListReleases)?;
            let releases = owner.app.releases(&permit, &name).await?;
            print(format, &to_json(&releases)?, || {
                let mut proposed = String::new();
                for proposal in &releases.proposals {
                    let _ = writeln!(
                        proposed,
                        "proposed: {} (revision {}) by {}: `skillpath release {name} {}` releases it, `--decline REASON` declines it",
                        proposal.version, proposal.revision, proposal.author, proposal.version
                    );
                }
                if releases.releases.is_empty() {
                    return format!(
                        "{name} has no release yet (`skillpath release {name} 1.0.0` makes one)\n{proposed}"
                    );
                }
                let rows: Vec<Vec<String>> = releases
                    .releases
                    .iter()
                    .rev()
                    .map(|release| {
                        vec![
                            release.version.to_string(),
                            release.revision.to_string(),
                            release.author.clone(),
                            release.created_at.clone(),
                            release.yanked.as_ref().map_or_else(String::new, |yanked| {
                                format!("yanked: {}", yanked.reason)
                            }),
                        ]
                    })
                    .collect();
                let mut text = table(&["VERSION", "REVISION", "AUTHOR", "RELEASED", ""], &rows);
                if !releases.tags.is_empty() {
                    let tags: Vec<String> = releases
                        .tags
                        .iter()
                        .map(|(tag, version)| format!("{tag} → {version}"))
                        .collect();
                    let _ = writeln!(text, "tags: {}", tags.join(", "));
                }
                text.push_str(&proposed);
                text
            })
            .map_err(io)?;
            Ok(ExitStatus::Success)
        },
    )
}

pub(crate) fn yank(args: YankArgs) -> anyhow::Result<ExitStatus> {
    let name = match key_of(&args.item) {
        Ok(name) => name,
        Err(status) => return status,
    };
    let (version, reason, format) = (args.semver, args.reason, args.common.format);
    super::run_as_owner(
        &args.common.db,
        AsOwner::existing(),
        move |owner| async move {
            let permit = owner.may(Operation::ReleaseSkill)?;
            let entry = owner.app.yank(&permit, &name, version, reason).await?;
            print_entry(format, &entry)?;
            Ok(ExitStatus::Success)
        },
    )
}

pub(crate) fn tag(args: TagArgs) -> anyhow::Result<ExitStatus> {
    let name = match key_of(&args.item) {
        Ok(name) => name,
        Err(status) => return status,
    };
    let (tag, version, format) = (args.tag, args.semver, args.common.format);
    super::run_as_owner(
        &args.common.db,
        AsOwner::existing(),
        move |owner| async move {
            let permit = owner.may(Operation::ReleaseSkill)?;
            let entry = owner.app.tag(&permit, &name, &tag, version).await?;
            print_entry(format, &entry)?;
            Ok(ExitStatus::Success)
        },
    )
}
