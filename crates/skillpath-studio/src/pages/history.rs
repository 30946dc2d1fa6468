//! `/skills/<name>/history`: the timeline of a skill's revisions (who, when, why); any two of
//! them side by side (`/skills/<name>/diff?from=…&to=…`); and a rollback to one of them
//! (the application's rollback, with its role checks and review).

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::{Extension, Form};
use serde::Deserialize;
use skillpath_app::{AppError, Operation, Revision, Written};
use skillpath_server::app_error;
use skillpath_sources::folders::files_of;

use super::common::{Shell, Studio, html, see_other};
use crate::diff_view::{self, FileDiff};
use crate::encode::encode_path;
use crate::visitor::Visitor;

#[derive(Template)]
#[template(path = "history.html")]
struct HistoryPage {
    shell: Shell,
    name: String,
    href: String,
    revisions: Vec<Revision>,
    current: u64,
    may_write: bool,
}

pub(crate) async fn page(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    Path(name): Path<String>,
) -> Response {
    let revisions = async {
        let permit = studio.permit(&visitor, Operation::SkillHistory)?;
        studio.server.app().history(&permit, &name).await
    };
    let mut revisions = match revisions.await {
        Ok(revisions) if !revisions.is_empty() => revisions,
        _ => return studio.no_skill(&visitor, &name),
    };
    revisions.reverse();
    let page = HistoryPage {
        shell: studio.shell(&visitor, format!("History of {name}"), "catalog"),
        href: format!("/skills/{}", encode_path(&name)),
        current: revisions.first().map_or(0, |r| r.number),
        may_write: studio
            .server
            .app()
            .allows(&visitor.caller(), Operation::RollbackSkill),
        revisions,
        name,
    };
    html(&page)
}

#[derive(Deserialize)]
pub(crate) struct DiffQuery {
    from: u64,
    to: u64,
}

#[derive(Template)]
#[template(path = "diff_page.html")]
struct DiffPage {
    shell: Shell,
    name: String,
    href: String,
    from: u64,
    to: u64,
    diffs: Vec<FileDiff>,
    old_label: String,
    new_label: String,
}

pub(crate) async fn diff(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    Path(name): Path<String>,
    Query(query): Query<DiffQuery>,
) -> Response {
    let app = studio.server.app();
    let both = async {
        let reading = studio.permit(&visitor, Operation::GetSkill)?;
        let old = app.revision(&reading, &name, Some(query.from)).await?;
        let new = app.revision(&reading, &name, Some(query.to)).await?;
        Ok::<_, AppError>((old, new))
    };
    let (old, new) = match both.await {
        Ok(both) => both,
        Err(error) => {
            return studio.message(
                &visitor,
                StatusCode::NOT_FOUND,
                "No such revision",
                error.to_string(),
            );
        }
    };
    let page = DiffPage {
        shell: studio.shell(
            &visitor,
            format!("{name}: {} → {}", query.from, query.to),
            "catalog",
        ),
        href: format!("/skills/{}", encode_path(&name)),
        diffs: diff_view::diff(&files_of(&old.snapshot), &files_of(&new.snapshot)),
        old_label: format!("revision {}", query.from),
        new_label: format!("revision {}", query.to),
        from: query.from,
        to: query.to,
        name,
    };
    html(&page)
}

#[derive(Deserialize)]
pub(crate) struct RollbackForm {
    to: u64,
    current: u64,
}

/// `POST /skills/<name>/rollback`: the rollback as the visitor; to their draft where it waits
/// for review.
pub(crate) async fn rollback(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    Path(name): Path<String>,
    Form(form): Form<RollbackForm>,
) -> Response {
    let written = async {
        let permit = studio.permit(&visitor, Operation::RollbackSkill)?;
        studio
            .server
            .app()
            .rollback(&permit, &name, form.to, form.current, None)
            .await
    };
    let written = written.await;
    match written {
        Ok(Written::Drafted(_)) => see_other(&format!("/review/{}", encode_path(&name))),
        Ok(Written::Stored(_)) => see_other(&format!("/skills/{}/history", encode_path(&name))),
        Err(error) => studio.message(
            &visitor,
            StatusCode::CONFLICT,
            "The rollback was refused",
            app_error(error),
        ),
    }
}
