//! The registry protocol the `clawhub` CLI speaks (the ClawHub HTTP API under `/api/v1/`),
//! served by `skillpath serve --http` beside `/mcp` and the studio, so that a team's skillpath
//! is a registry its people's `clawhub` and `skillpath add` install from by version, range or
//! tag. A thin front end: every answer is an application operation's, read as the request's
//! caller (the API-key layer's, else the local user), so visibility and namespaces decide what
//! each caller finds exactly as on MCP, and a hidden item answers as a missing one.
//!
//! Items are named by slug as SkillHub names them ([`FullName::slug`]: `deploy` for
//! `@global/deploy`, `team--deploy` for `@team/deploy`); versions are the item's releases
//! (`skillpath_model::release`), `latest` the tag of the latest release. A version's download
//! is a ZIP of exactly the released revision's files at the archive's root, written the same
//! byte for byte on every replica ([`skillpath_sources::archive::zip`]). Errors are plain text
//! with the protocol's statuses (404 `Skill not found`, 410 for a yanked version), which the
//! CLI prints as they are.
//!
//! The routes: [`discovery`] (`/.well-known/clawhub.json`, open to anyone, since the CLI asks
//! without a key) and [`api`] (behind the server's API-key check).

mod answers;
mod refusal;

use std::collections::BTreeMap;

use axum::Extension;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use skillpath_app::{App, Caller, Derived, Operation, Releases};
use skillpath_model::FullName;
use skillpath_model::release::{self, Release};

use refusal::Refusal;
use skillpath_sources::registry::YANKED_HEADER;

/// The most versions one page of `GET /api/v1/skills/{slug}/versions` lists.
pub const MOST_VERSIONS_LISTED: usize = 200;

/// The open routes: `GET /.well-known/clawhub.json`, which tells the CLI where the API is (an
/// absolute URL: the CLI 0.23.3 fails on SkillHub's relative `"/api/v1"`, and adds `/api/v1`
/// itself, so the base is the server's own address as the request reached it).
pub fn discovery() -> axum::Router {
    axum::Router::new().route("/.well-known/clawhub.json", axum::routing::get(well_known))
}

/// The API's routes, for the router whose layers check API keys.
pub fn api<E: Derived>(app: App<E>) -> axum::Router {
    axum::Router::new()
        .route("/api/v1/whoami", axum::routing::get(whoami::<E>))
        .route("/api/v1/skills/{slug}", axum::routing::get(skill::<E>))
        .route(
            "/api/v1/skills/{slug}/versions",
            axum::routing::get(versions::<E>),
        )
        .route(
            "/api/v1/skills/{slug}/versions/{version}",
            axum::routing::get(version::<E>),
        )
        .route("/api/v1/download", axum::routing::get(download::<E>))
        .with_state(app)
}

async fn well_known(headers: HeaderMap) -> Response {
    let host = headers
        .get(header::HOST)
        .and_then(|host| host.to_str().ok())
        .unwrap_or("127.0.0.1");
    // Behind a proxy that ends TLS, the proxy says which scheme the client used.
    let scheme = headers
        .get("x-forwarded-proto")
        .and_then(|value| value.to_str().ok())
        .filter(|scheme| matches!(*scheme, "http" | "https"))
        .unwrap_or("http");
    let base = format!("{scheme}://{host}");
    axum::Json(serde_json::json!({"apiBase": base, "registry": base})).into_response()
}

/// The request's caller: the one the API-key layer accepted, else the local user.
fn caller_of(caller: Option<Extension<Caller>>) -> Caller {
    caller.map_or_else(Caller::local, |Extension(caller)| caller)
}

async fn whoami<E: Derived>(
    State(app): State<App<E>>,
    caller: Option<Extension<Caller>>,
) -> Response {
    let caller = caller_of(caller);
    let Some(handle) = caller.user.clone() else {
        return Refusal::new(
            StatusCode::UNAUTHORIZED,
            "this registry knows you by an API key: `clawhub login --token sp_…` with a key `skillpath keys create` made",
        )
        .into_response();
    };
    let people = app.catalog();
    let person = people.people().directory.user(&handle);
    let role = if person.is_some_and(|person| person.admin) {
        "admin"
    } else {
        "user"
    };
    let display = person
        .map(|person| person.display_name.clone())
        .filter(|name| !name.is_empty());
    axum::Json(serde_json::json!({
        "user": {"handle": handle, "displayName": display, "image": null, "role": role}
    }))
    .into_response()
}

/// The item `slug` names and its releases, as `caller` reads them: 404 `Skill not found` for
/// a slug that names nothing they may read (or is no slug).
async fn item<E: Derived>(
    app: &App<E>,
    caller: &Caller,
    slug: &str,
) -> Result<(FullName, Releases), Refusal> {
    let full = FullName::of_slug(slug).map_err(|_| Refusal::not_found())?;
    let permit = app
        .may(caller, Operation::ListReleases)
        .map_err(Refusal::of)?;
    let releases = app
        .releases(&permit, &full.key())
        .await
        .map_err(Refusal::of)?;
    Ok((full, releases))
}

async fn skill<E: Derived>(
    State(app): State<App<E>>,
    caller: Option<Extension<Caller>>,
    Path(slug): Path<String>,
) -> Result<Response, Refusal> {
    let caller = caller_of(caller);
    let (full, releases) = item(&app, &caller, &slug).await?;
    let catalog = app.view_for(&caller, skillpath_app::View::Listed);
    let listed = catalog.item(&full.key()).ok_or_else(Refusal::not_found)?;
    let latest = latest_of(&releases);
    Ok(axum::Json(answers::skill(
        &full,
        &listed.description,
        &releases,
        latest,
        catalog.stars_of(&full.key()),
    ))
    .into_response())
}

/// The release `latest` points at (the highest that is neither a pre-release nor yanked,
/// unless set by hand).
fn latest_of(releases: &Releases) -> Option<&Release> {
    let version = releases
        .tags
        .iter()
        .find(|(tag, _)| tag == release::LATEST)
        .map(|(_, version)| version.as_str())?;
    releases
        .releases
        .iter()
        .find(|release| release.version.to_string() == version)
}

/// What `GET …/versions` takes: a page's size and where it starts.
#[derive(serde::Deserialize)]
struct Page {
    limit: Option<usize>,
    cursor: Option<String>,
}

async fn versions<E: Derived>(
    State(app): State<App<E>>,
    caller: Option<Extension<Caller>>,
    Path(slug): Path<String>,
    Query(page): Query<Page>,
) -> Result<Response, Refusal> {
    let caller = caller_of(caller);
    let (_, releases) = item(&app, &caller, &slug).await?;
    let limit = page.limit.unwrap_or(25).clamp(1, MOST_VERSIONS_LISTED);
    let start = match page.cursor.as_deref() {
        None | Some("") => 0,
        Some(cursor) => cursor.parse::<usize>().map_err(|_| {
            Refusal::new(
                StatusCode::BAD_REQUEST,
                format!("`{cursor}` is no cursor of this listing: ask again without one"),
            )
        })?,
    };
    // Yanked releases are hidden from resolution, so from the listing a client resolves by;
    // highest first.
    let listed: Vec<&Release> = releases
        .releases
        .iter()
        .rev()
        .filter(|release| release.yanked.is_none())
        .collect();
    let items: Vec<serde_json::Value> = listed
        .iter()
        .skip(start)
        .take(limit)
        .map(|release| answers::version_item(release))
        .collect();
    let next = (start + limit < listed.len()).then(|| (start + limit).to_string());
    Ok(axum::Json(serde_json::json!({"items": items, "nextCursor": next})).into_response())
}

async fn version<E: Derived>(
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

/// The release `text` names among `releases`, or 404 `Version not found`.
fn release_named<'a>(releases: &'a Releases, text: &str) -> Result<&'a Release, Refusal> {
    let wanted = release::parse_version(text).map_err(|_| Refusal::no_version())?;
    releases
        .releases
        .iter()
        .find(|release| release::same_version(&release.version, &wanted))
        .ok_or_else(Refusal::no_version)
}

/// The files of `found`'s revision of the item `full` (`SKILL.md` among them), by path.
async fn files_of<E: Derived>(
    app: &App<E>,
    caller: &Caller,
    full: &FullName,
    found: &Release,
) -> Result<BTreeMap<String, Vec<u8>>, Refusal> {
    let permit = app.may(caller, Operation::GetSkill).map_err(Refusal::of)?;
    let stored = app
        .revision(&permit, &full.key(), Some(found.revision))
        .await
        .map_err(Refusal::of)?;
    let snapshot = stored.snapshot;
    Ok(
        std::iter::once(("SKILL.md".to_owned(), snapshot.skill_md.into_bytes()))
            .chain(
                snapshot
                    .files
                    .into_iter()
                    .map(|file| (file.path, file.bytes)),
            )
            .collect(),
    )
}

/// What `GET /api/v1/download` takes: the slug, and a version or a tag (else `latest`);
/// `pinned=true` (a lock that pinned the version) downloads a yanked version too.
#[derive(serde::Deserialize)]
struct DownloadQuery {
    slug: String,
    version: Option<String>,
    tag: Option<String>,
    #[serde(default)]
    pinned: bool,
}

async fn download<E: Derived>(
    State(app): State<App<E>>,
    caller: Option<Extension<Caller>>,
    Query(query): Query<DownloadQuery>,
) -> Result<Response, Refusal> {
    let caller = caller_of(caller);
    let (full, releases) = item(&app, &caller, &query.slug).await?;
    let found = match (&query.version, &query.tag) {
        (Some(version), _) => release_named(&releases, version)?,
        (None, tag) => {
            let tag = tag.as_deref().unwrap_or(release::LATEST);
            let version = releases
                .tags
                .iter()
                .find(|(name, _)| name == tag)
                .map(|(_, version)| version.as_str())
                .ok_or_else(|| Refusal::no_tag(&query.slug, tag, releases.releases.is_empty()))?;
            release_named(&releases, version)?
        }
    };
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
        query.slug, found.version
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
