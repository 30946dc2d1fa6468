//! Publishing: `GET /.well-known/agent-skills/index.json`, the draft discovery index of the
//! Agent Skills specification, for the skills a caller may read (the routes sit behind the
//! same API-key check as `/mcp`), so that a team server is a source `skillpath add
//! https://skills.internal/`, or any client of the draft, installs from. A skill of only a
//! `SKILL.md` is a `skill-md` entry (`<name>/SKILL.md`); one with files an `archive` entry
//! (`<name>.tar.gz`, written the same byte for byte on every server, so its digest holds).
//! Each entry's digest is the `sha256:` of what its URL serves.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use axum::Extension;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use skillpath_app::{Caller, View};
use skillpath_sources::{archive, index};

use crate::SkillServer;
use crate::catalog::{Catalog, CatalogSkill};

/// Why a skill's archive could not be made.
#[derive(Debug, thiserror::Error)]
enum ArchiveError {
    /// Its content could not be read.
    #[error(transparent)]
    Store(#[from] skillpath_store::StoreError),
    /// The archive could not be written.
    #[error(transparent)]
    Write(#[from] skillpath_sources::SourceError),
}

/// The index's path.
pub(crate) const INDEX: &str = "/.well-known/agent-skills/index.json";

/// What the routes share: the server, and the digests of the archives made so far, by skill
/// name and content hash (a skill's archive is made again only when its content changes).
#[derive(Clone)]
pub(crate) struct Published {
    server: SkillServer,
    digests: Arc<Mutex<HashMap<String, (String, String)>>>,
}

/// The routes, for the router whose layers check API keys.
pub(crate) fn routes(server: SkillServer) -> axum::Router {
    let published = Published {
        server,
        digests: Arc::default(),
    };
    // An item of `@global` is at `<name>…`, any other at `@<namespace>/<name>…`.
    axum::Router::new()
        .route(INDEX, axum::routing::get(index_json))
        .route(
            "/.well-known/agent-skills/{first}",
            axum::routing::get(archive_file),
        )
        .route(
            "/.well-known/agent-skills/{first}/SKILL.md",
            axum::routing::get(skill_md),
        )
        .route(
            "/.well-known/agent-skills/{first}/{second}",
            axum::routing::get(namespaced_archive_file),
        )
        .route(
            "/.well-known/agent-skills/{first}/{second}/SKILL.md",
            axum::routing::get(namespaced_skill_md),
        )
        .with_state(published)
}

/// What the request's caller may find ([`View::Listed`]): the caller the API-key layer
/// accepted, else the local user.
fn listed(published: &Published, caller: Option<Extension<Caller>>) -> Arc<Catalog> {
    let caller = caller.map_or_else(Caller::local, |Extension(caller)| caller);
    published.server.app().view_for(&caller, View::Listed)
}

/// The request's caller: the one the API-key layer accepted, else the local user.
fn caller_in(caller: Option<&Extension<Caller>>) -> Caller {
    caller.map_or_else(Caller::local, |Extension(caller)| caller.clone())
}

async fn index_json(
    State(published): State<Published>,
    caller: Option<Extension<Caller>>,
) -> Response {
    let served_to = caller_in(caller.as_ref());
    let catalog = listed(&published, caller);
    let mut skills = Vec::new();
    for skill in catalog.skills() {
        let (kind, url, digest) = if skill.files.is_empty() {
            (
                "skill-md",
                format!("{}/SKILL.md", skill.name),
                skill.skill_md.sha256.clone(),
            )
        } else {
            match published.archive_digest(skill).await {
                Ok(digest) => ("archive", format!("{}.tar.gz", skill.name), digest),
                Err(error) => {
                    tracing::warn!("the discovery index leaves out `{}`: {error}", skill.name);
                    continue;
                }
            }
        };
        let mut entry = serde_json::json!({
            "name": skill.name,
            "type": kind,
            "description": skill.description,
            "url": url,
            "digest": digest,
        });
        // The version served, for an item served at a release (a field the draft's readers
        // ignore: they read the ones above).
        let (channel, release) = published
            .server
            .app()
            .served_release(&served_to, &skill.name);
        if let Some(release) = release {
            entry["version"] = serde_json::json!(release.version.to_string());
            entry["channel"] = serde_json::json!(channel.to_string());
        }
        skills.push(entry);
    }
    let body = serde_json::json!({ "$schema": index::SCHEMA, "skills": skills });
    (
        [(header::CONTENT_TYPE, "application/json")],
        format!("{body}\n"),
    )
        .into_response()
}

async fn namespaced_archive_file(
    State(published): State<Published>,
    caller: Option<Extension<Caller>>,
    Path((namespace, file)): Path<(String, String)>,
) -> Response {
    archive_of(&published, caller, &format!("{namespace}/{file}")).await
}

async fn archive_file(
    State(published): State<Published>,
    caller: Option<Extension<Caller>>,
    Path(file): Path<String>,
) -> Response {
    archive_of(&published, caller, &file).await
}

/// The archive at `file` (`<key>.tar.gz`), when the caller may find its skill.
async fn archive_of(
    published: &Published,
    caller: Option<Extension<Caller>>,
    file: &str,
) -> Response {
    let Some(name) = file.strip_suffix(".tar.gz") else {
        return not_found();
    };
    let catalog = listed(published, caller);
    let Some(skill) = catalog.skills().find(|skill| skill.name == name) else {
        return not_found();
    };
    match published.archive(skill).await {
        Ok((_, bytes)) => ([(header::CONTENT_TYPE, "application/gzip")], bytes).into_response(),
        Err(error) => (StatusCode::SERVICE_UNAVAILABLE, format!("{error}\n")).into_response(),
    }
}

async fn namespaced_skill_md(
    State(published): State<Published>,
    caller: Option<Extension<Caller>>,
    Path((namespace, name)): Path<(String, String)>,
) -> Response {
    skill_md_of(&published, caller, &format!("{namespace}/{name}")).await
}

async fn skill_md(
    State(published): State<Published>,
    caller: Option<Extension<Caller>>,
    Path(name): Path<String>,
) -> Response {
    skill_md_of(&published, caller, &name).await
}

/// The `SKILL.md` of the skill kept under `name`, when the caller may find it.
async fn skill_md_of(
    published: &Published,
    caller: Option<Extension<Caller>>,
    name: &str,
) -> Response {
    let catalog = listed(published, caller);
    let Some(skill) = catalog.skills().find(|skill| skill.name == name) else {
        return not_found();
    };
    match published.server.content(skill).await {
        Ok(content) => (
            [(header::CONTENT_TYPE, "text/markdown; charset=utf-8")],
            content.stored.snapshot.skill_md.clone(),
        )
            .into_response(),
        Err(error) => (StatusCode::SERVICE_UNAVAILABLE, format!("{error}\n")).into_response(),
    }
}

impl Published {
    /// The digest of `skill`'s archive: remembered while its content is the same, else made.
    async fn archive_digest(&self, skill: &CatalogSkill) -> Result<String, ArchiveError> {
        let remembered = self.digests.lock().ok().and_then(|digests| {
            digests
                .get(&skill.name)
                .filter(|(hash, _)| *hash == skill.content_hash)
                .map(|(_, digest)| digest.clone())
        });
        match remembered {
            Some(digest) => Ok(digest),
            None => self.archive(skill).await.map(|(digest, _)| digest),
        }
    }

    /// The archive of `skill` at its revision, and its digest (remembered for the index).
    async fn archive(&self, skill: &CatalogSkill) -> Result<(String, Vec<u8>), ArchiveError> {
        let content = self.server.content(skill).await?;
        let snapshot = &content.stored.snapshot;
        let files: BTreeMap<String, Vec<u8>> = std::iter::once((
            "SKILL.md".to_owned(),
            snapshot.skill_md.clone().into_bytes(),
        ))
        .chain(
            snapshot
                .files
                .iter()
                .map(|file| (file.path.clone(), file.bytes.clone())),
        )
        .collect();
        let bytes = archive::tar_gz(&files)?;
        let digest = skillpath_model::sha256_hex(&bytes);
        if let Ok(mut digests) = self.digests.lock() {
            digests.insert(
                skill.name.clone(),
                (skill.content_hash.clone(), digest.clone()),
            );
        }
        Ok((digest, bytes))
    }
}

fn not_found() -> Response {
    (StatusCode::NOT_FOUND, "no such skill\n").into_response()
}
