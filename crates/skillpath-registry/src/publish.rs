//! Publishing as the `clawhub` CLI 0.23.3 does it: for each file, `POST
//! /api/v1/skills/-/upload-url` (its path, size and SHA-256) answers where to upload it and a
//! ticket, the bytes go to that URL, and `POST /api/v1/skills` names the version and its files
//! by ticket. The application then publishes the version ([`App::publish_version`]): a
//! maintainer's is released, an author's where the namespace reviews waits as a draft.
//!
//! Uploads wait in the store until the publish that names them (so a publish may reach another
//! replica than its uploads did), bounded: a file at most [`MOST_FILE_BYTES`], a key's waiting
//! files at most [`MOST_VERSION_BYTES`] (the CLI's own limits), [`MOST_WAITING_BYTES`] waiting
//! on the whole store, each for [`UPLOAD_LIFETIME`]. A ticket is its key's: another key can
//! neither upload to it nor publish it.

use std::time::{Duration, SystemTime};

use axum::Extension;
use axum::body::Bytes;
use axum::extract::{FromRequest, Multipart, Path, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use skillpath_app::{
    App, Caller, Derived, Operation, Published, StagedUpload, Staging, Unstaged, VersionUpload,
};
use skillpath_model::{FullName, SkillFile, SkillSnapshot, release};

use crate::caller_of;
use crate::refusal::Refusal;

/// The largest file of a version.
pub const MOST_FILE_BYTES: u64 = 10 * 1024 * 1024;

/// The most bytes of one version's files.
pub const MOST_VERSION_BYTES: u64 = 50 * 1024 * 1024;

/// The most bytes waiting to be published on one store, everyone's together.
pub const MOST_WAITING_BYTES: u64 = 512 * 1024 * 1024;

/// How long an upload waits for the publish that names it.
pub const UPLOAD_LIFETIME: Duration = Duration::from_secs(30 * 60);

/// Refuses a publishing caller without a key: uploads are a key's.
fn with_key(caller: &Caller) -> Result<(), Refusal> {
    match caller.key_id {
        Some(_) => Ok(()),
        None => Err(Refusal::new(
            StatusCode::UNAUTHORIZED,
            "publishing needs an API key: `clawhub login --token sp_…`",
        )),
    }
}

/// `at` as the store's RFC 3339 text (milliseconds, UTC).
fn rfc3339(at: SystemTime) -> String {
    chrono::DateTime::<chrono::Utc>::from(at).to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// What `POST /api/v1/skills/-/upload-url` takes.
#[derive(serde::Deserialize)]
pub(crate) struct Announced {
    path: String,
    size: u64,
    sha256: String,
}

/// `POST /api/v1/skills/-/upload-url`: a ticket for one file, and the absolute URL to upload
/// it to (the CLI takes it as it is).
pub(crate) async fn upload_url<E: Derived>(
    State(app): State<App<E>>,
    caller: Option<Extension<Caller>>,
    headers: HeaderMap,
    axum::Json(announced): axum::Json<Announced>,
) -> Result<Response, Refusal> {
    let caller = caller_of(caller);
    with_key(&caller)?;
    let permit = app
        .may(&caller, Operation::SaveFiles)
        .map_err(Refusal::of)?;
    // `SKILL.md` is stored apart from the other files, which follow the skill-file rules.
    if !announced.path.eq_ignore_ascii_case("SKILL.md") {
        skillpath_model::path::check_relative_path(&announced.path)
            .map_err(|why| Refusal::bad_request(why.to_string()))?;
    }
    if announced.size > MOST_FILE_BYTES {
        return Err(Refusal::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("File \"{}\" exceeds 10MB limit", announced.path),
        ));
    }
    let sha256 = announced.sha256.to_ascii_lowercase();
    if sha256.len() != 64 || !sha256.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(Refusal::bad_request("`sha256` is 64 hex digits"));
    }
    let ticket = new_ticket()?;
    let now = SystemTime::now();
    let upload = StagedUpload {
        ticket: ticket.clone(),
        key: String::new(),
        path: announced.path,
        size: announced.size,
        sha256,
        bytes: None,
        created_at: rfc3339(now),
    };
    let staging = Staging {
        per_key: MOST_VERSION_BYTES,
        total: MOST_WAITING_BYTES,
        since: rfc3339(now.checked_sub(UPLOAD_LIFETIME).unwrap_or(now)),
    };
    match app
        .stage_upload(&permit, upload, staging)
        .await
        .map_err(Refusal::of)?
    {
        Ok(()) => {}
        Err(Unstaged::PerKey) => {
            return Err(Refusal::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "Skill bundle exceeds 50MB limit",
            ));
        }
        Err(Unstaged::Total) => {
            return Err(Refusal::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "this registry holds as many uploads as it may: publish again in a few minutes",
            ));
        }
    }
    let base = crate::base_url(&headers);
    Ok(axum::Json(json!({
        "uploadUrl": format!("{base}/api/v1/skills/-/upload/{ticket}"),
        "uploadTicket": ticket,
    }))
    .into_response())
}

/// 128 random bits as hex.
fn new_ticket() -> Result<String, Refusal> {
    let mut random = [0u8; 16];
    getrandom::fill(&mut random).map_err(|error| {
        Refusal::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("no randomness: {error}"),
        )
    })?;
    Ok(skillpath_model::hex::encode(&random))
}

/// `POST /api/v1/skills/-/upload/{ticket}`: the file's bytes, kept once they are what was
/// announced (its size and SHA-256).
pub(crate) async fn upload<E: Derived>(
    State(app): State<App<E>>,
    caller: Option<Extension<Caller>>,
    Path(ticket): Path<String>,
    body: Bytes,
) -> Result<Response, Refusal> {
    let caller = caller_of(caller);
    with_key(&caller)?;
    let permit = app
        .may(&caller, Operation::SaveFiles)
        .map_err(Refusal::of)?;
    let announced = app
        .staged_upload(&permit, &ticket)
        .await
        .map_err(Refusal::of)?
        .ok_or_else(|| {
            Refusal::new(
                StatusCode::NOT_FOUND,
                "no such upload ticket (or it expired): ask for another",
            )
        })?;
    if body.len() as u64 != announced.size {
        return Err(Refusal::bad_request(format!(
            "`{}` is {} bytes, not the {} announced",
            announced.path,
            body.len(),
            announced.size
        )));
    }
    let digest = skillpath_model::sha256_hex(&body);
    if digest.trim_start_matches("sha256:") != announced.sha256 {
        return Err(Refusal::bad_request(format!(
            "`{}` does not have the SHA-256 announced",
            announced.path
        )));
    }
    app.fill_upload(&permit, &ticket, body.to_vec())
        .await
        .map_err(Refusal::of)?;
    Ok(axum::Json(json!({"storageId": ticket})).into_response())
}

/// One file of `POST /api/v1/skills` (JSON), named by its upload's ticket.
#[derive(serde::Deserialize)]
pub(crate) struct NamedFile {
    path: String,
    #[serde(rename = "storageId")]
    storage_id: String,
    #[serde(rename = "uploadTicket")]
    upload_ticket: Option<String>,
}

impl NamedFile {
    fn ticket(&self) -> &str {
        self.upload_ticket.as_deref().unwrap_or(&self.storage_id)
    }
}

/// What `POST /api/v1/skills` takes: the JSON body (the CLI's), or the multipart form's
/// `payload` part (whose files are parts of their own, `files`, each named by its path).
#[derive(serde::Deserialize)]
pub(crate) struct Publish {
    slug: String,
    version: String,
    #[serde(default)]
    changelog: String,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    files: Vec<NamedFile>,
}

/// The most files one version holds.
const MOST_FILES: usize = 10_000;

/// The paths of the routes that bound their bodies themselves: a version published in one
/// multipart request, up to [`MOST_VERSION_BYTES`].
pub const LARGE_BODIES: &[&str] = &["/api/v1/skills"];

/// `POST /api/v1/skills`: the version published from the files uploaded for it (JSON), or
/// from the files of the form (multipart).
pub(crate) async fn publish<E: Derived>(
    State(app): State<App<E>>,
    caller: Option<Extension<Caller>>,
    request: Request,
) -> Result<Response, Refusal> {
    let caller = caller_of(caller);
    with_key(&caller)?;
    let permit = app
        .may(&caller, Operation::SaveFiles)
        .map_err(Refusal::of)?;
    let form = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|kind| kind.starts_with("multipart/form-data"));
    let (asked, files) = if form {
        from_form(request).await?
    } else {
        let axum::Json(asked) = axum::Json::<Publish>::from_request(request, &())
            .await
            .map_err(|error| Refusal::bad_request(error.body_text()))?;
        let files = from_uploads(&app, &permit, &asked).await?;
        (asked, files)
    };
    let item = FullName::of_slug(asked.slug.trim())
        .map_err(|error| Refusal::bad_request(error.to_string()))?;
    let version = release::parse_version(&asked.version)
        .map_err(|error| Refusal::bad_request(error.to_string()))?;
    let snapshot = snapshot_of(files)?;
    let upload = VersionUpload {
        item: item.clone(),
        snapshot,
        version: version.clone(),
        notes: asked.changelog,
        tags: asked.tags,
    };
    let published = app
        .publish_version(&permit, upload)
        .await
        .map_err(Refusal::of)?;
    let tickets = asked
        .files
        .iter()
        .map(|named| named.ticket().to_owned())
        .collect();
    app.drop_uploads(&permit, tickets)
        .await
        .map_err(Refusal::of)?;
    let (status, revision) = match published {
        Published::Released { revision, .. } => ("published", Some(revision)),
        Published::Pending => ("pending", None),
    };
    Ok(axum::Json(json!({
        "ok": true,
        "skillId": item.key(),
        "versionId": format!("{}@{version}", item.key()),
        "status": status,
        "publicationStatus": status,
        "slug": item.slug(),
        "version": version.to_string(),
        "revision": revision,
    }))
    .into_response())
}

/// The files the JSON publish names, as their uploads hold them (each the caller's).
async fn from_uploads<E: Derived>(
    app: &App<E>,
    permit: &skillpath_app::Permit,
    asked: &Publish,
) -> Result<Vec<(String, Vec<u8>)>, Refusal> {
    let mut files = Vec::new();
    for named in &asked.files {
        let bytes = app
            .staged_upload(permit, named.ticket())
            .await
            .map_err(Refusal::of)?
            .filter(|upload| upload.path == named.path)
            .and_then(|upload| upload.bytes)
            .ok_or_else(|| {
                Refusal::bad_request(format!(
                    "`{}` was not uploaded with this key (or its ticket expired): publish again",
                    named.path
                ))
            })?;
        files.push((named.path.clone(), bytes));
    }
    Ok(files)
}

/// The `payload` and the `files` of a multipart publish, within the limits of a version.
async fn from_form(request: Request) -> Result<(Publish, Vec<(String, Vec<u8>)>), Refusal> {
    let mut form = Multipart::from_request(request, &())
        .await
        .map_err(|error| Refusal::bad_request(error.body_text()))?;
    let broken = |error: axum::extract::multipart::MultipartError| {
        Refusal::bad_request(format!("the form cannot be read: {}", error.body_text()))
    };
    let mut payload = None;
    let mut files = Vec::new();
    let mut total: u64 = 0;
    while let Some(field) = form.next_field().await.map_err(broken)? {
        match field.name() {
            Some("payload") => {
                let text = field.text().await.map_err(broken)?;
                let asked: Publish = serde_json::from_str(&text).map_err(|error| {
                    Refusal::bad_request(format!("`payload` is not the publish's JSON: {error}"))
                })?;
                payload = Some(asked);
            }
            Some("files" | "files[]") => {
                let path = field
                    .file_name()
                    .map(|name| name.trim_start_matches("./").to_owned())
                    .ok_or_else(|| {
                        Refusal::bad_request("each `files` part is named by its path (`filename`)")
                    })?;
                let bytes = field.bytes().await.map_err(broken)?;
                if bytes.len() as u64 > MOST_FILE_BYTES {
                    return Err(Refusal::new(
                        StatusCode::PAYLOAD_TOO_LARGE,
                        format!("File \"{path}\" exceeds 10MB limit"),
                    ));
                }
                total += bytes.len() as u64;
                if total > MOST_VERSION_BYTES || files.len() >= MOST_FILES {
                    return Err(Refusal::new(
                        StatusCode::PAYLOAD_TOO_LARGE,
                        "Skill bundle exceeds 50MB limit",
                    ));
                }
                files.push((path, bytes.to_vec()));
            }
            _ => {}
        }
    }
    let payload = payload.ok_or_else(|| Refusal::bad_request("the form has no `payload` part"))?;
    Ok((payload, files))
}

/// A version's files as a skill: `SKILL.md` apart, every other path by the skill-file rules.
fn snapshot_of(files: Vec<(String, Vec<u8>)>) -> Result<SkillSnapshot, Refusal> {
    if files.is_empty() {
        return Err(Refusal::bad_request("a version has files: there are none"));
    }
    let mut skill_md = None;
    let mut rest = Vec::new();
    for (path, bytes) in files {
        if path.eq_ignore_ascii_case("SKILL.md") {
            let text = String::from_utf8(bytes)
                .map_err(|_| Refusal::bad_request("`SKILL.md` is not UTF-8"))?;
            skill_md = Some(text);
        } else {
            skillpath_model::path::check_relative_path(&path)
                .map_err(|why| Refusal::bad_request(why.to_string()))?;
            rest.push(SkillFile { path, bytes });
        }
    }
    let skill_md = skill_md.ok_or_else(|| Refusal::bad_request("SKILL.md required"))?;
    SkillSnapshot::new(skill_md, rest).map_err(|error| Refusal::bad_request(error.to_string()))
}
