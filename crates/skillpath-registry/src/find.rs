//! Finding items: search, the listing (sorted, by cursor), and which release a folder's
//! fingerprint is.

use axum::Extension;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use skillpath_app::{App, Caller, Derived, Operation, View};
use skillpath_model::{FullName, Kind};

use crate::refusal::Refusal;
use crate::{Page, answers, caller_of, files_of, item, latest_of};

/// The most releases of an item a fingerprint is compared with, newest first.
const MOST_RESOLVED: usize = 100;

/// What `GET /api/v1/search` takes.
#[derive(serde::Deserialize)]
pub(crate) struct SearchQuery {
    q: String,
    limit: Option<usize>,
}

/// `GET /api/v1/search?q=`: the items the caller may find, best first, as every search is
/// ranked.
pub(crate) async fn search<E: Derived>(
    State(app): State<App<E>>,
    caller: Option<Extension<Caller>>,
    Query(query): Query<SearchQuery>,
) -> Result<Response, Refusal> {
    let caller = caller_of(caller);
    let words = query.q.trim();
    if words.is_empty() {
        return Err(Refusal::bad_request(
            "Query required: `q=` names what to look for",
        ));
    }
    let limit = query.limit.unwrap_or(25).clamp(1, Page::MOST);
    let permit = app
        .may(&caller, Operation::SearchSkills)
        .map_err(Refusal::of)?;
    let hits = app
        .search(&permit, words, limit)
        .await
        .map_err(Refusal::of)?;
    let catalog = app.view_for(&caller, View::Listed);
    let directory = &catalog.people().directory;
    let results: Vec<Value> = hits
        .iter()
        .filter(|hit| hit.kind == Kind::Skill)
        .filter_map(|hit| {
            let full = FullName::of_key(&hit.name)?;
            let listed = catalog.item(&hit.name)?;
            let latest = skillpath_model::release::tag_target(
                directory.releases_of(&hit.name),
                directory.tags_of(&hit.name),
                skillpath_model::release::LATEST,
            );
            Some(json!({
                "slug": full.slug(),
                "displayName": full.name,
                "summary": hit.description,
                "version": latest.map(|release| release.version.to_string()),
                "score": hit.score,
                "updatedAt": answers::millis(&listed.updated_at),
                "ownerHandle": full.namespace.as_str(),
                "owner": answers::owner(&full),
            }))
        })
        .collect();
    Ok(axum::Json(json!({"results": results})).into_response())
}

/// What `GET /api/v1/skills` takes: a page, an order, and a slug prefix (a query string's
/// numbers read only outside a flattened part, so the page's fields are here).
#[derive(serde::Deserialize)]
pub(crate) struct ListQuery {
    limit: Option<usize>,
    cursor: Option<String>,
    sort: Option<String>,
    prefix: Option<String>,
}

/// The orders of the listing.
#[derive(Clone, Copy)]
enum Sort {
    /// Newest first, by first release (else first write).
    Created,
    /// Most recently written first (the default).
    Updated,
    /// Most starred first.
    Stars,
    /// Most used first (every use agents made of it).
    Uses,
    /// By slug.
    Name,
}

impl Sort {
    fn parse(text: Option<&str>) -> Result<Sort, Refusal> {
        Ok(match text.map(str::trim) {
            None | Some("" | "updated") => Sort::Updated,
            Some("createdAt" | "newest") => Sort::Created,
            Some("stars" | "rating" | "recommended" | "default" | "trending") => Sort::Stars,
            Some("downloads" | "installs" | "installsCurrent" | "installsAllTime") => Sort::Uses,
            Some("name") => Sort::Name,
            Some(other) => {
                return Err(Refusal::bad_request(format!(
                    "`{other}` is no order of this listing: updated, createdAt, stars, downloads, installs, trending or name"
                )));
            }
        })
    }
}

/// `GET /api/v1/skills`: the items the caller may find, a page at a time.
pub(crate) async fn list<E: Derived>(
    State(app): State<App<E>>,
    caller: Option<Extension<Caller>>,
    Query(query): Query<ListQuery>,
) -> Result<Response, Refusal> {
    let caller = caller_of(caller);
    let sort = Sort::parse(query.sort.as_deref())?;
    let prefix = query.prefix.as_deref().map(str::trim).unwrap_or_default();
    let catalog = app.view_for(&caller, View::Listed);
    let mut rows: Vec<(FullName, Value, u64)> = Vec::new();
    for skill in catalog.skills() {
        let Some(full) = FullName::of_key(&skill.name) else {
            continue;
        };
        if !full.slug().starts_with(prefix) {
            continue;
        }
        let permit = app
            .may(&caller, Operation::ListReleases)
            .map_err(Refusal::of)?;
        let Ok(releases) = app.releases(&permit, &skill.name).await else {
            continue;
        };
        let summary =
            answers::skill_summary(&full, skill, &releases, catalog.stars_of(&skill.name));
        rows.push((full, summary, catalog.uses(&skill.name)));
    }
    let number = |row: &(FullName, Value, u64), key: &str| row.1[key].as_i64().unwrap_or(0);
    match sort {
        Sort::Created => rows.sort_by_key(|row| std::cmp::Reverse(number(row, "createdAt"))),
        Sort::Updated => rows.sort_by_key(|row| std::cmp::Reverse(number(row, "updatedAt"))),
        Sort::Stars => {
            rows.sort_by_key(|row| std::cmp::Reverse(row.1["stats"]["stars"].as_u64().unwrap_or(0)))
        }
        Sort::Uses => rows.sort_by_key(|row| std::cmp::Reverse(row.2)),
        Sort::Name => rows.sort_by_key(|row| row.0.slug()),
    }
    let items: Vec<Value> = rows.into_iter().map(|(_, summary, _)| summary).collect();
    let page = Page {
        limit: query.limit,
        cursor: query.cursor,
    };
    let (items, next) = page.cut(items)?;
    Ok(axum::Json(json!({"items": items, "nextCursor": next})).into_response())
}

/// What `GET /api/v1/resolve` takes: the slug and a folder's fingerprint.
#[derive(serde::Deserialize)]
pub(crate) struct ResolveQuery {
    slug: String,
    hash: Option<String>,
}

/// `GET /api/v1/resolve`: which release (not yanked) has exactly the files the fingerprint
/// `hash` names ([`skillpath_sources::registry::fingerprint`]), and the latest release.
pub(crate) async fn resolve<E: Derived>(
    State(app): State<App<E>>,
    caller: Option<Extension<Caller>>,
    Query(query): Query<ResolveQuery>,
) -> Result<Response, Refusal> {
    let caller = caller_of(caller);
    let (full, releases) = item(&app, &caller, &query.slug).await?;
    let wanted = query.hash.as_deref().map(str::to_ascii_lowercase);
    let mut matched = None;
    if let Some(wanted) = &wanted {
        for release in releases
            .releases
            .iter()
            .rev()
            .filter(|release| release.yanked.is_none())
            .take(MOST_RESOLVED)
        {
            let files = files_of(&app, &caller, &full, release).await?;
            let print = skillpath_sources::registry::fingerprint(
                files
                    .iter()
                    .map(|(path, bytes)| (path.as_str(), bytes.as_slice())),
            );
            if print == *wanted {
                matched = Some(json!({"version": release.version.to_string()}));
                break;
            }
        }
    }
    let latest =
        latest_of(&releases).map(|release| json!({"version": release.version.to_string()}));
    Ok(
        axum::Json(json!({"slug": full.slug(), "match": matched, "latestVersion": latest}))
            .into_response(),
    )
}
