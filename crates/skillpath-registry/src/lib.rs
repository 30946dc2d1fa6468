//! The registry protocol the `clawhub` CLI speaks (the ClawHub HTTP API under `/api/v1/`),
//! served by `skillpath serve --http` beside `/mcp` and the studio, so that a team's skillpath
//! is a registry its people's `clawhub` and `skillpath add` search, install (by version,
//! range or tag), star and publish to. A thin front end: every answer is an application
//! operation's, asked as the request's caller (the API-key layer's, else the local user), so
//! visibility and namespaces decide what each caller finds exactly as on MCP, and a hidden item
//! answers as a missing one.
//!
//! Items are named by slug as SkillHub names them ([`FullName::slug`]: `deploy` for
//! `@global/deploy`, `team--deploy` for `@team/deploy`); versions are the item's releases
//! (`skillpath_model::release`), `latest` the tag of the latest release. A version's download
//! is a ZIP of exactly the released revision's files at the archive's root, written the same
//! byte for byte on every replica ([`skillpath_sources::archive::zip`]). Errors are plain text
//! with the protocol's statuses (404 `Skill not found`, 410 for a yanked version), which the
//! CLI prints as they are (`refusal`); the JSON is in the shapes the CLI checks (`answers`).
//!
//! The routes: [`discovery`] (`/.well-known/clawhub.json`, open to anyone, since the CLI asks
//! without a key) and [`api`] (behind the server's API-key check): `read` (an item, its
//! versions, a file, a download), `find` (search, listing, which version a fingerprint is),
//! `write` (stars, delete and undelete), `publish` (uploads and the version they make).

mod answers;
mod find;
mod limits;
mod publish;
mod read;
mod refusal;
mod write;

use std::collections::BTreeMap;

use axum::Extension;
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use skillpath_app::{App, Caller, Derived, Operation, Releases};
use skillpath_model::FullName;
use skillpath_model::release::{self, Release};

pub use limits::{FORGET_EVERY, RateLimits};
pub use publish::{
    LARGE_BODIES, MOST_FILE_BYTES, MOST_VERSION_BYTES, MOST_WAITING_BYTES, UPLOAD_LIFETIME,
};
use refusal::Refusal;

/// The open routes: `GET /.well-known/clawhub.json`, which tells the CLI where the API is (an
/// absolute URL: the CLI 0.23.3 fails on SkillHub's relative `"/api/v1"`, and adds `/api/v1`
/// itself, so the base is the server's own address as the request reached it).
pub fn discovery() -> axum::Router {
    axum::Router::new().route("/.well-known/clawhub.json", axum::routing::get(well_known))
}

/// The API's routes, for the router whose layers check API keys (which run first: each request
/// carries its caller when `limits` count it).
pub fn api<E: Derived>(app: App<E>, limits: RateLimits) -> axum::Router {
    use axum::routing::{get, post};
    axum::Router::new()
        .route("/api/v1/whoami", get(whoami::<E>))
        .route("/api/v1/search", get(find::search::<E>))
        .route(
            "/api/v1/skills",
            get(find::list::<E>).post(publish::publish::<E>).layer(
                axum::extract::DefaultBodyLimit::max(
                    (publish::MOST_VERSION_BYTES + 1024 * 1024) as usize,
                ),
            ),
        )
        .route(
            "/api/v1/skills/-/upload-url",
            post(publish::upload_url::<E>),
        )
        .route(
            "/api/v1/skills/-/upload/{ticket}",
            post(publish::upload).layer(axum::extract::DefaultBodyLimit::max(
                publish::MOST_FILE_BYTES as usize,
            )),
        )
        .route("/api/v1/resolve", get(find::resolve::<E>))
        .route(
            "/api/v1/skills/{slug}",
            get(read::skill::<E>).delete(write::delete::<E>),
        )
        .route("/api/v1/skills/{slug}/undelete", post(write::undelete::<E>))
        .route("/api/v1/skills/{slug}/versions", get(read::versions::<E>))
        .route(
            "/api/v1/skills/{slug}/versions/{version}",
            get(read::version::<E>).delete(write::yank::<E>),
        )
        .route(
            "/api/v1/skills/{slug}/versions/{version}/restore",
            post(write::unyank),
        )
        .route("/api/v1/skills/{slug}/file", get(read::file::<E>))
        .route("/api/v1/skills/{slug}/install", get(read::install::<E>))
        .route("/api/v1/download", get(read::download::<E>))
        .route(
            "/api/v1/stars/{slug}",
            post(write::star::<E>).delete(write::unstar::<E>),
        )
        .layer(axum::middleware::from_fn_with_state(
            limits::Buckets::new(limits),
            limits::limit,
        ))
        .with_state(app)
}

async fn well_known(headers: HeaderMap) -> Response {
    let base = base_url(&headers);
    axum::Json(serde_json::json!({"apiBase": base, "registry": base})).into_response()
}

/// The server's own address as the request reached it (`scheme://host`): what the CLI is told
/// to call, so it is absolute.
fn base_url(headers: &HeaderMap) -> String {
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
    format!("{scheme}://{host}")
}

/// The request's caller: the one the API-key layer accepted, else the local user.
fn caller_of(caller: Option<Extension<Caller>>) -> Caller {
    caller.map_or_else(Caller::local, |Extension(caller)| caller)
}

async fn whoami<E: Derived>(
    axum::extract::State(app): axum::extract::State<App<E>>,
    caller: Option<Extension<Caller>>,
) -> Response {
    let caller = caller_of(caller);
    let Some(handle) = caller.user.clone() else {
        return Refusal::new(
            axum::http::StatusCode::UNAUTHORIZED,
            "this registry knows you by an API key: `clawhub login --token sp_…` with a key `skillpath keys create` made",
        )
        .into_response();
    };
    let catalog = app.catalog();
    let person = catalog.people().directory.user(&handle);
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
/// a slug that names nothing they may read (or is no slug at all).
async fn item<E: Derived>(
    app: &App<E>,
    caller: &Caller,
    slug: &str,
) -> Result<(FullName, Releases), Refusal> {
    let full = FullName::of_slug(slug.trim()).map_err(|_| Refusal::not_found())?;
    let permit = app
        .may(caller, Operation::ListReleases)
        .map_err(Refusal::of)?;
    let releases = app
        .releases(&permit, &full.key())
        .await
        .map_err(Refusal::of)?;
    Ok((full, releases))
}

/// The release `latest` points at (the highest that is neither a pre-release nor yanked,
/// unless set by hand).
fn latest_of(releases: &Releases) -> Option<&Release> {
    tagged(releases, release::LATEST)
}

/// The release `tag` points at.
fn tagged<'a>(releases: &'a Releases, tag: &str) -> Option<&'a Release> {
    let version = releases
        .tags
        .iter()
        .find(|(name, _)| name == tag)
        .map(|(_, version)| version.as_str())?;
    releases
        .releases
        .iter()
        .find(|release| release.version.to_string() == version)
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

/// A page's size and where it starts, as the listings take them (`limit` 1 to 200, `cursor`
/// an offset this server gave).
#[derive(serde::Deserialize)]
struct Page {
    limit: Option<usize>,
    cursor: Option<String>,
}

impl Page {
    /// The most items a page lists.
    const MOST: usize = 200;

    /// The page's size and its first item's offset; a cursor this server did not give is
    /// refused.
    fn bounds(&self) -> Result<(usize, usize), Refusal> {
        let limit = self.limit.unwrap_or(25).clamp(1, Page::MOST);
        let start = match self.cursor.as_deref() {
            None | Some("") => 0,
            Some(cursor) => cursor.parse::<usize>().map_err(|_| {
                Refusal::bad_request(format!(
                    "`{cursor}` is no cursor of this listing: ask again without one"
                ))
            })?,
        };
        Ok((limit, start))
    }

    /// The page of `items` these bounds cut, and the cursor of the next (`None`: the last).
    fn cut<T>(&self, items: Vec<T>) -> Result<(Vec<T>, Option<String>), Refusal> {
        let (limit, start) = self.bounds()?;
        let total = items.len();
        let page = items.into_iter().skip(start).take(limit).collect();
        let next = (start + limit < total).then(|| (start + limit).to_string());
        Ok((page, next))
    }
}
