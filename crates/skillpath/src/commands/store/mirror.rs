//! `skillpath mirror --registry URL --namespace @NS [SLUG…]`: a registry's skills copied into a
//! namespace, version by version: each downloaded and checked against the registry's digests
//! ([`skillpath_sources::registry`]), then published here through the application as the
//! store's owner ([`skillpath_app::App::publish_version`]: written, audited by the store's
//! gate, released as the same version), and the registry's tags set on the copies. A version
//! copied before is the same publish again, so a mirror run on a schedule copies what is new.

use std::fmt::Write as _;

use skillpath_app::{Operation, Published, VersionUpload};
use skillpath_model::release::{self, Version};
use skillpath_model::{FullName, Namespace, SkillSnapshot};
use skillpath_sources::SourceError;
use skillpath_sources::registry::Registry;

use super::{AsOwner, io, print};
use crate::cli::MirrorArgs;
use crate::error::CliError;
use crate::output::ExitStatus;

/// One skill's versions as read from the registry, oldest first, and its tags.
struct Read {
    name: String,
    versions: Vec<(Version, String, SkillSnapshot)>,
    tags: Vec<(String, Version)>,
}

/// What became of one slug.
#[derive(serde::Serialize)]
struct Copied {
    slug: String,
    item: String,
    copied: Vec<String>,
    unchanged: Vec<String>,
}

pub(crate) fn run(args: MirrorArgs) -> anyhow::Result<ExitStatus> {
    if let Err(status) = crate::commands::install::use_token(&args.token) {
        return Ok(status);
    }
    let registry = Registry::new(&args.registry);
    let slugs = if args.slugs.is_empty() {
        match registry.slugs() {
            Ok(slugs) => slugs,
            Err(error) => return Ok(crate::commands::install::usage(&error)),
        }
    } else {
        args.slugs.clone()
    };
    let (namespace, all, format) = (args.namespace.clone(), args.all_versions, args.format);
    let as_owner = AsOwner {
        audit: Some(args.audit.policy(true)),
        ..AsOwner::existing()
    };
    super::run_as_owner(&args.db, as_owner, move |owner| async move {
        let mut copied = Vec::new();
        let mut skipped: Vec<(String, String)> = Vec::new();
        for slug in slugs {
            let reading = registry.clone();
            let asked = slug.clone();
            let read = tokio::task::spawn_blocking(move || read(&reading, &asked, all))
                .await
                .unwrap_or_else(|error| {
                    Err(SourceError::new(format!("reading it failed: {error}")))
                });
            let read = match read {
                Ok(read) => read,
                Err(error) => {
                    skipped.push((slug, error.to_string()));
                    continue;
                }
            };
            match write(&owner, &namespace, &slug, read).await {
                Ok(done) => copied.push(done),
                Err(error) => skipped.push((slug, error.to_string())),
            }
        }
        let json = serde_json::json!({
            "copied": copied,
            "skipped": skipped
                .iter()
                .map(|(slug, why)| serde_json::json!({"slug": slug, "why": why}))
                .collect::<Vec<_>>(),
        });
        print(format, &json, || {
            let mut text = String::new();
            for done in &copied {
                let _ = writeln!(
                    text,
                    "{} as {}: {} copied{}",
                    done.slug,
                    done.item,
                    if done.copied.is_empty() {
                        "none".to_owned()
                    } else {
                        done.copied.join(", ")
                    },
                    if done.unchanged.is_empty() {
                        String::new()
                    } else {
                        format!(", {} there already", done.unchanged.join(", "))
                    }
                );
            }
            for (slug, why) in &skipped {
                let _ = writeln!(text, "skipped: {slug}: {why}");
            }
            text
        })
        .map_err(io)?;
        Ok(if skipped.is_empty() {
            ExitStatus::Success
        } else {
            ExitStatus::Invalid
        })
    })
}

/// The versions of `slug` to copy (every one, else the latest), each read and checked.
fn read(registry: &Registry, slug: &str, all: bool) -> Result<Read, SourceError> {
    let listed = registry.versions(slug)?;
    let mut chosen: Vec<(Version, String)> = if all {
        listed
            .releases
            .iter()
            .map(|release| (release.version.clone(), release.notes.clone()))
            .collect()
    } else {
        let latest = registry.resolve(slug, None)?;
        let notes = listed
            .releases
            .iter()
            .find(|release| release::same_version(&release.version, &latest))
            .map(|release| release.notes.clone())
            .unwrap_or_default();
        vec![(latest, notes)]
    };
    chosen.sort_by(|a, b| a.0.cmp_precedence(&b.0));
    let mut name = None;
    let mut versions = Vec::new();
    for (version, notes) in chosen {
        let downloaded = registry.download(slug, &version, false)?;
        let skill = downloaded.found.skills.into_iter().next().ok_or_else(|| {
            SourceError::new(format!("`{slug}` {version} holds no skill at its root"))
        })?;
        name.get_or_insert_with(|| skill.name.clone());
        versions.push((version, notes, skill.snapshot));
    }
    let tags = listed
        .tags
        .into_iter()
        .filter(|tag| tag.name != release::LATEST)
        .map(|tag| (tag.name, tag.version))
        .collect();
    Ok(Read {
        name: name.unwrap_or_default(),
        versions,
        tags,
    })
}

/// Publishes what was read of `slug` into `namespace`, and sets its tags.
async fn write(
    owner: &super::Owner,
    namespace: &Namespace,
    slug: &str,
    read: Read,
) -> Result<Copied, CliError> {
    let item = FullName::new(namespace.clone(), read.name);
    let permit = owner.may(Operation::SaveFiles)?;
    let mut done = Copied {
        slug: slug.to_owned(),
        item: item.to_string(),
        copied: Vec::new(),
        unchanged: Vec::new(),
    };
    let mut mirrored = Vec::new();
    for (version, notes, snapshot) in read.versions {
        let upload = VersionUpload {
            item: item.clone(),
            snapshot,
            version: version.clone(),
            notes,
            tags: Vec::new(),
        };
        match owner.app.publish_version(&permit, upload).await? {
            Published::Released { made: true, .. } => done.copied.push(version.to_string()),
            Published::Released { made: false, .. } | Published::Pending => {
                done.unchanged.push(version.to_string());
            }
        }
        mirrored.push(version);
    }
    let tagging = owner.may(Operation::ReleaseSkill)?;
    for (tag, version) in read.tags {
        if mirrored
            .iter()
            .any(|copied| release::same_version(copied, &version))
        {
            owner
                .app
                .tag(&tagging, &item.key(), &tag, Some(version))
                .await?;
        }
    }
    Ok(done)
}
