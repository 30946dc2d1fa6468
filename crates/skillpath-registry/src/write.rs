//! Changing items: stars (the caller's person's), and deleting and bringing back an item
//! (whoever may delete it on MCP: an author of its namespace, a maintainer where it reviews).

use axum::Extension;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use skillpath_app::{App, Caller, Derived, Operation};
use skillpath_model::FullName;

use crate::caller_of;
use crate::refusal::Refusal;

/// `POST /api/v1/stars/{slug}`.
pub(crate) async fn star<E: Derived>(
    State(app): State<App<E>>,
    caller: Option<Extension<Caller>>,
    Path(slug): Path<String>,
) -> Result<Response, Refusal> {
    let was = set_star(&app, caller_of(caller), &slug, true).await?;
    Ok(axum::Json(json!({"ok": true, "starred": true, "alreadyStarred": was})).into_response())
}

/// `DELETE /api/v1/stars/{slug}`.
pub(crate) async fn unstar<E: Derived>(
    State(app): State<App<E>>,
    caller: Option<Extension<Caller>>,
    Path(slug): Path<String>,
) -> Result<Response, Refusal> {
    let was = set_star(&app, caller_of(caller), &slug, false).await?;
    Ok(
        axum::Json(json!({"ok": true, "unstarred": true, "alreadyUnstarred": !was}))
            .into_response(),
    )
}

/// Stars or unstars the item `slug` for the caller's person: whether it was starred before.
async fn set_star<E: Derived>(
    app: &App<E>,
    caller: Caller,
    slug: &str,
    starred: bool,
) -> Result<bool, Refusal> {
    let full = FullName::of_slug(slug.trim()).map_err(|_| Refusal::not_found())?;
    let operation = if starred {
        Operation::StarSkill
    } else {
        Operation::UnstarSkill
    };
    let permit = app.may(&caller, operation).map_err(Refusal::of)?;
    app.star(&permit, None, &full.key(), starred)
        .await
        .map_err(Refusal::of)
}

/// `DELETE /api/v1/skills/{slug}`: the item deleted (it stays in history; `undelete` brings
/// it back).
pub(crate) async fn delete<E: Derived>(
    State(app): State<App<E>>,
    caller: Option<Extension<Caller>>,
    Path(slug): Path<String>,
) -> Result<Response, Refusal> {
    change(&app, caller_of(caller), &slug, Operation::DeleteSkill).await?;
    Ok(axum::Json(json!({"ok": true})).into_response())
}

/// `POST /api/v1/skills/{slug}/undelete`.
pub(crate) async fn undelete<E: Derived>(
    State(app): State<App<E>>,
    caller: Option<Extension<Caller>>,
    Path(slug): Path<String>,
) -> Result<Response, Refusal> {
    change(&app, caller_of(caller), &slug, Operation::RestoreSkill).await?;
    Ok(axum::Json(json!({"ok": true})).into_response())
}

/// What `DELETE …/versions/{version}` may carry: why.
#[derive(serde::Deserialize, Default)]
pub(crate) struct Why {
    reason: Option<String>,
}

/// `DELETE /api/v1/skills/{slug}/versions/{version}` (`clawhub delete SLUG --version V`): the
/// release yanked, for the reason given (a maintainer's), hidden from resolution and kept for
/// the locks that pin it.
pub(crate) async fn yank<E: Derived>(
    State(app): State<App<E>>,
    caller: Option<Extension<Caller>>,
    Path((slug, version)): Path<(String, String)>,
    body: Option<axum::Json<Why>>,
) -> Result<Response, Refusal> {
    let caller = caller_of(caller);
    let full = FullName::of_slug(slug.trim()).map_err(|_| Refusal::not_found())?;
    let version =
        skillpath_model::release::parse_version(&version).map_err(|_| Refusal::no_version())?;
    let reason = body
        .and_then(|axum::Json(why)| why.reason)
        .filter(|reason| !reason.trim().is_empty())
        .unwrap_or_else(|| "withdrawn through the registry protocol".to_owned());
    let permit = app
        .may(&caller, Operation::ReleaseSkill)
        .map_err(Refusal::of)?;
    app.yank(&permit, &full.key(), version, reason)
        .await
        .map_err(Refusal::of)?;
    Ok(axum::Json(json!({"ok": true})).into_response())
}

/// `POST /api/v1/skills/{slug}/versions/{version}/restore`: refused, since a yanked release
/// stays yanked (a version is never reused either): the fix is a new release.
pub(crate) async fn unyank() -> Refusal {
    Refusal::new(
        axum::http::StatusCode::CONFLICT,
        "a yanked version stays yanked: release a new version (`skillpath release`, or `clawhub publish --version`)",
    )
}

/// Deletes or restores (`operation`) the item `slug` at its current revision.
async fn change<E: Derived>(
    app: &App<E>,
    caller: Caller,
    slug: &str,
    operation: Operation,
) -> Result<(), Refusal> {
    let full = FullName::of_slug(slug.trim()).map_err(|_| Refusal::not_found())?;
    let key = full.key();
    let reading = app.may(&caller, Operation::GetSkill).map_err(Refusal::of)?;
    let current = app
        .revision(&reading, &key, None)
        .await
        .map_err(Refusal::of)?;
    let permit = app.may(&caller, operation).map_err(Refusal::of)?;
    let done = match operation {
        Operation::DeleteSkill => app.delete(&permit, &key, current.revision, None).await,
        _ => app.restore(&permit, &key, current.revision, None).await,
    };
    done.map(|_| ()).map_err(Refusal::of)
}
