//! Reading one item: it with its tags and latest release, its versions, one version with its
//! files, one file of a version, and a version's ZIP.

use axum::Extension;
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use skillpath_app::{App, Caller, Derived, View};
use skillpath_model::release::{self, Release};
use skillpath_sources::registry::YANKED_HEADER;

use crate::refusal::Refusal;
use crate::{Page, answers, caller_of, files_of, item, latest_of, release_named, tagged};

/// `GET /api/v1/skills/{slug}`.
pub(crate) async fn skill<E: Derived>(
    State(app): State<App<E>>,
    caller: Option<Extension<Caller>>,
    Path(slug): Path<String>,
) -> Result<Response, Refusal> {
    let caller = caller_of(caller);
    let (full, releases) = item(&app, &caller, &slug).await?;
    let catalog = app.view_for(&caller, View::Listed);
    let listed = catalog.item(&full.key()).ok_or_else(Refusal::not_found)?;
    let skill = answers::skill_summary(&full, listed, &releases, catalog.stars_of(&full.key()));
    Ok(axum::Json(answers::skill(&full, skill, latest_of(&releases))).into_response())
}

/// `GET /api/v1/skills/{slug}/versions`: the releases that are not yanked (what resolution
/// picks among), highest first.
pub(crate) async fn versions<E: Derived>(
    State(app): State<App<E>>,
    caller: Option<Extension<Caller>>,
    Path(slug): Path<String>,
    Query(page): Query<Page>,
) -> Result<Response, Refusal> {
    let caller = caller_of(caller);
    let (_, releases) = item(&app, &caller, &slug).await?;
    let listed: Vec<serde_json::Value> = releases
        .releases
        .iter()
        .rev()
        .filter(|release| release.yanked.is_none())
        .map(answers::version_item)
        .collect();
    let (items, next) = page.cut(listed)?;
    Ok(axum::Json(serde_json::json!({"items": items, "nextCursor": next})).into_response())
}

/// `GET /api/v1/skills/{slug}/versions/{version}`: 410 for a yanked one.
pub(crate) async fn version<E: Derived>(
    State(app): State<App<E>>,
    caller: Option<Extension<Caller>>,
    Path((slug, version)): Path<(String, String)>,
) -> Result<Response, Refusal> {
    let caller = caller_of(caller);
    let (full, releases) = item(&app, &caller, &slug).await?;
    let found = release_named(&releases, &version)?;
    if let Some(yanked) = &found.yanked {
        return Err(Refusal::yanked(&found.version, &slug, &yanked.reason));
    }
    let files = files_of(&app, &caller, &full, found).await?;
    Ok(axum::Json(answers::version(&full, found, &files)).into_response())
}

/// Which release a request names: `version`, else `tag`, else `latest`.
#[derive(serde::Deserialize)]
pub(crate) struct Which {
    version: Option<String>,
    tag: Option<String>,
}

impl Which {
    /// The release it names among `releases` (of the item `slug`).
    fn of<'a>(
        &self,
        releases: &'a skillpath_app::Releases,
        slug: &str,
    ) -> Result<&'a Release, Refusal> {
        if let Some(version) = &self.version {
            return release_named(releases, version);
        }
        let tag = self.tag.as_deref().unwrap_or(release::LATEST);
        tagged(releases, tag)
            .ok_or_else(|| Refusal::no_tag(slug, tag, releases.releases.is_empty()))
    }
}

/// What `GET …/file` takes: the path, and which release.
#[derive(serde::Deserialize)]
pub(crate) struct FileQuery {
    path: String,
    #[serde(flatten)]
    which: Which,
}

/// The largest file `GET …/file` answers with (the protocol's limit).
const MOST_FILE_BYTES: usize = 10 * 1024 * 1024;

/// `GET /api/v1/skills/{slug}/file?path=…`: one file of a release, its bytes as stored.
pub(crate) async fn file<E: Derived>(
    State(app): State<App<E>>,
    caller: Option<Extension<Caller>>,
    Path(slug): Path<String>,
    Query(query): Query<FileQuery>,
) -> Result<Response, Refusal> {
    let caller = caller_of(caller);
    let (full, releases) = item(&app, &caller, &slug).await?;
    let found = query.which.of(&releases, &slug)?;
    if let Some(yanked) = &found.yanked {
        return Err(Refusal::yanked(&found.version, &slug, &yanked.reason));
    }
    let mut files = files_of(&app, &caller, &full, found).await?;
    let bytes = files
        .remove(query.path.trim_start_matches("./"))
        .ok_or_else(|| Refusal::new(StatusCode::NOT_FOUND, "File not found"))?;
    if bytes.len() > MOST_FILE_BYTES {
        return Err(Refusal::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "File exceeds 10MB limit: download the version instead",
        ));
    }
    Ok((
        [(header::CONTENT_TYPE, answers::content_type(&query.path))],
        bytes,
    )
        .into_response())
}

/// `GET /api/v1/skills/{slug}/install`, which the CLI asks when an item has no latest
/// release: the latest release to download, or why there is none (409, as the CLI reads it).
pub(crate) async fn install<E: Derived>(
    State(app): State<App<E>>,
    caller: Option<Extension<Caller>>,
    Path(slug): Path<String>,
) -> Result<Response, Refusal> {
    let caller = caller_of(caller);
    let (full, releases) = item(&app, &caller, &slug).await?;
    let Some(latest) = latest_of(&releases) else {
        let answer = serde_json::json!({
            "ok": false,
            "slug": full.slug(),
            "reason": "archive_version_missing",
            "message": format!("`{}` has no release yet: a maintainer of {} releases one with `skillpath release {} 1.0.0`", full.slug(), full.namespace, full),
            "status": 409,
        });
        return Ok((StatusCode::CONFLICT, axum::Json(answer)).into_response());
    };
    let version = latest.version.to_string();
    let answer = serde_json::json!({
        "ok": true,
        "slug": full.slug(),
        "installKind": "archive",
        "archive": {
            "version": version,
            "downloadUrl": format!("/api/v1/download?slug={}&version={version}", full.slug()),
        },
    });
    Ok(axum::Json(answer).into_response())
}

/// What `GET /api/v1/download` takes: the slug, and which release; `pinned=true` (a lock that
/// pinned the version) downloads a yanked version too.
#[derive(serde::Deserialize)]
pub(crate) struct DownloadQuery {
    slug: String,
    #[serde(flatten)]
    which: Which,
    #[serde(default)]
    pinned: bool,
}

/// `GET /api/v1/download`: the release's files as a ZIP.
pub(crate) async fn download<E: Derived>(
    State(app): State<App<E>>,
    caller: Option<Extension<Caller>>,
    Query(query): Query<DownloadQuery>,
) -> Result<Response, Refusal> {
    let caller = caller_of(caller);
    let (full, releases) = item(&app, &caller, &query.slug).await?;
    let found = query.which.of(&releases, &query.slug)?;
    if let Some(yanked) = &found.yanked
        && !query.pinned
    {
        return Err(Refusal::yanked(&found.version, &query.slug, &yanked.reason));
    }
    let files = files_of(&app, &caller, &full, found).await?;
    let bytes = skillpath_sources::archive::zip(&files)
        .map_err(|error| Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, error.to_string()))?;
    let disposition = format!(
        "attachment; filename=\"{}-{}.zip\"",
        full.slug(),
        found.version
    );
    let mut response = (
        [
            (header::CONTENT_TYPE, "application/zip".to_owned()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        bytes,
    )
        .into_response();
    if let Some(yanked) = &found.yanked
        && let Ok(value) = header::HeaderValue::from_str(&one_line(&yanked.reason))
    {
        response.headers_mut().insert(YANKED_HEADER, value);
    }
    Ok(response)
}

/// `text` on one line of visible ASCII, as a header holds it.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_ascii_graphic() { c } else { ' ' })
        .collect()
}
