//! The read-only store commands: `list`, `show`, `search`, `history`, `diff`, through the
//! application's reading operations as the store's owner.

use std::fmt::Write as _;

use skillpath_app::{AppError, Operation};
use skillpath_audit::AuditRecord;
use skillpath_model::release::{parse_version, same_version};
use skillpath_model::{Kind, Provenance, namespace_of_key};
use skillpath_store::ListFilter;
use skillpath_store::StoreError;

use super::{AsOwner, io, print, shorten, table, to_json};
use crate::cli::{DiffArgs, ListArgs, NameArgs, SearchArgs, ShowArgs};
use crate::error::CliError;
use crate::output::ExitStatus;

fn source(provenance: &Provenance) -> String {
    match provenance {
        Provenance::Imported { path, scope, .. } => format!("{scope}: {path}"),
        Provenance::Api => "api".to_owned(),
        Provenance::Forked { from, revision } => {
            format!("forked from {from} at revision {revision}")
        }
    }
}

pub(crate) fn list(args: ListArgs) -> anyhow::Result<ExitStatus> {
    let filter = ListFilter {
        include_deleted: args.deleted,
        kind: args.kind.map(Into::into),
        name_prefix: args.prefix,
    };
    let (cursor, limit, format) = (args.cursor, args.limit, args.format);
    super::run_as_owner(&args.db, AsOwner::existing(), move |owner| async move {
        let permit = owner.may(Operation::ListSkills)?;
        let page = owner.app.list(&permit, filter, cursor, limit).await?;
        let json =
            serde_json::json!({ "items": to_json(&page.items)?, "next_cursor": page.next_cursor });
        print(format, &json, || {
            let rows: Vec<Vec<String>> = page
                .items
                .iter()
                .map(|item| {
                    vec![
                        item.name.clone(),
                        item.revision.to_string(),
                        match (item.deleted, item.kind) {
                            (true, Kind::Package) => "deleted package".to_owned(),
                            (true, Kind::Skill) => "deleted".to_owned(),
                            (false, Kind::Package) => "package".to_owned(),
                            (false, Kind::Skill) => String::new(),
                        },
                        item.updated_at.clone(),
                        shorten(&item.description, 70),
                    ]
                })
                .collect();
            let mut text = table(&["NAME", "REV", "STATE", "UPDATED", "DESCRIPTION"], &rows);
            if let Some(next) = &page.next_cursor {
                let _ = writeln!(text, "more: --cursor {next}");
            }
            text
        })
        .map_err(io)?;
        Ok(ExitStatus::Success)
    })
}

pub(crate) fn show(args: ShowArgs) -> anyhow::Result<ExitStatus> {
    let (name, revision, format) = (args.name, args.revision, args.format);
    super::run_as_owner(&args.db, AsOwner::existing(), move |owner| async move {
        let permit = owner.may(Operation::GetSkill)?;
        let skill = owner.app.revision(&permit, &name, revision).await?;
        let people = owner.app.people().await.map_err(AppError::from)?;
        let access = people.directory.access(&skill.name);
        let namespace = namespace_of_key(&skill.name);
        let files: Vec<serde_json::Value> = skill
            .snapshot
            .files
            .iter()
            .map(|f| serde_json::json!({"path": f.path, "size": f.bytes.len(), "sha256": f.sha256()}))
            .collect();
        let json = serde_json::json!({
            "kind": skill.snapshot.kind,
            "name": skill.name,
            "namespace": namespace.to_string(),
            "visibility": access.visibility,
            "owner": access.owner,
            "description": skill.description,
            "tool_name": skill.tool_name,
            "revision": skill.revision,
            "deleted": skill.deleted,
            "content_hash": skill.content_hash,
            "updated_at": skill.updated_at,
            "provenance": to_json(&skill.provenance)?,
            "files": files,
            "audit": skill.audit.as_ref().map(AuditRecord::json),
            "skill_md": skill.snapshot.skill_md,
        });
        print(format, &json, || {
            let mut text = format!(
                "name: {}\nnamespace: {namespace}\nvisibility: {}\nrevision: {}{}\nupdated: {}\nsource: {}\ncontent: {}\n",
                skill.name,
                access.visibility,
                skill.revision,
                if skill.deleted { " (deleted)" } else { "" },
                skill.updated_at,
                source(&skill.provenance),
                skill.content_hash
            );
            for file in &skill.snapshot.files {
                let _ = writeln!(
                    text,
                    "file: {} ({} bytes, {})",
                    file.path,
                    file.bytes.len(),
                    file.sha256()
                );
            }
            audit_lines(&mut text, skill.audit.as_ref());
            let _ = write!(text, "\n{}", skill.snapshot.skill_md);
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text
        })
        .map_err(io)?;
        Ok(ExitStatus::Success)
    })
}

/// What `show` says of a revision's audit: its counts, then each finding on a line.
fn audit_lines(text: &mut String, audit: Option<&AuditRecord>) {
    let Some(audit) = audit else {
        text.push_str("audit: not audited (written with `--audit-policy off`, or before skillpath kept audits; `skillpath audit --store NAME` audits it now)\n");
        return;
    };
    let _ = writeln!(text, "audit: {}", audit.summary());
    for finding in &audit.findings {
        let _ = writeln!(
            text,
            "  {}[{}] {}: {}",
            finding.severity,
            finding.rule,
            finding.place(),
            finding.message
        );
    }
}

pub(crate) fn search(args: SearchArgs) -> anyhow::Result<ExitStatus> {
    let (query, limit, format) = (args.query, args.limit, args.format);
    let as_owner = AsOwner {
        meaning: Some(super::meaning(&args.embeddings)?),
        ..AsOwner::existing()
    };
    super::run_as_owner(&args.db, as_owner, move |owner| async move {
        let permit = owner.may(Operation::SearchSkills)?;
        let hits = owner.app.search(&permit, &query, limit).await?;
        print(format, &to_json(&hits)?, || {
            if hits.is_empty() {
                return format!("no skill matches `{query}`\n");
            }
            let rows: Vec<Vec<String>> = hits
                .iter()
                .map(|hit| {
                    vec![
                        hit.name.clone(),
                        format!("{:.2}", hit.score),
                        shorten(&hit.snippet, 80),
                    ]
                })
                .collect();
            table(&["NAME", "SCORE", "MATCH"], &rows)
        })
        .map_err(io)?;
        Ok(ExitStatus::Success)
    })
}

pub(crate) fn history(args: NameArgs) -> anyhow::Result<ExitStatus> {
    let (name, format) = (args.name, args.format);
    super::run_as_owner(&args.db, AsOwner::existing(), move |owner| async move {
        let permit = owner.may(Operation::SkillHistory)?;
        let revisions = owner.app.history(&permit, &name).await?;
        print(format, &to_json(&revisions)?, || {
            let rows: Vec<Vec<String>> = revisions
                .iter()
                .map(|r| {
                    vec![
                        r.number.to_string(),
                        r.created_at.clone(),
                        r.author.clone(),
                        r.operation.as_str().to_owned(),
                        r.message.clone(),
                    ]
                })
                .collect();
            table(&["REV", "WHEN", "AUTHOR", "OPERATION", "MESSAGE"], &rows)
        })
        .map_err(io)?;
        Ok(ExitStatus::Success)
    })
}

pub(crate) fn diff(args: DiffArgs) -> anyhow::Result<ExitStatus> {
    let (name, from, to, format) = (args.name, args.from, args.to, args.format);
    super::run_as_owner(&args.db, AsOwner::existing(), move |owner| async move {
        let permit = owner.may(Operation::GetSkill)?;
        // A side named by a version is the revision its release names.
        let listing = owner.may(Operation::ListReleases)?;
        let revision_of = async |side: &str| -> Result<u64, CliError> {
            if let Ok(number) = side.parse::<u64>() {
                return Ok(number);
            }
            let version = parse_version(side)
                .map_err(|error| CliError::App(AppError::Invalid(format!("{error}\n"))))?;
            let releases = owner.app.releases(&listing, &name).await?;
            releases
                .releases
                .iter()
                .find(|release| same_version(&release.version, &version))
                .map(|release| release.revision)
                .ok_or_else(|| {
                    CliError::Store(StoreError::Refused(format!(
                        "{name} has no release {version} (`skillpath releases {name}` lists them)"
                    )))
                })
        };
        let from = revision_of(&from).await?;
        let to = match &to {
            Some(to) => Some(revision_of(to).await?),
            None => None,
        };
        let (to, diff) = owner.app.diff(&permit, &name, from, to).await?;
        let json = serde_json::json!({"name": name, "from": from, "to": to, "diff": diff});
        print(format, &json, || diff.clone()).map_err(io)?;
        Ok(ExitStatus::Success)
    })
}
