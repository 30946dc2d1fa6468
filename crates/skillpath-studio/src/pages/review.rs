//! `/review`: the drafts waiting for review (an author sees their own, a maintainer every one),
//! and `/review/<name>?author=…`: one draft beside the revision it was made on, with publish
//! and reject (a maintainer's, as over MCP: the application's review operations).

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::{Extension, Form};
use serde::Deserialize;
use skillpath_app::{AppError, DraftSummary, Operation, SkillSnapshot};
use skillpath_server::app_error;
use skillpath_sources::folders::files_of;

use super::common::{Shell, Studio, html, see_other};
use crate::diff_view::{self, FileDiff};
use crate::encode::{encode_path, encode_query};
use crate::visitor::Visitor;

#[derive(Template)]
#[template(path = "review.html")]
struct QueuePage {
    shell: Shell,
    drafts: Vec<(DraftSummary, String)>,
    reviews: bool,
}

fn draft_href(draft: &DraftSummary) -> String {
    format!(
        "/review/{}?author={}",
        encode_path(&draft.name),
        encode_query(&draft.author)
    )
}

pub(crate) async fn queue(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
) -> Response {
    let drafts = match studio
        .server
        .app()
        .drafts_seen_by(&visitor.caller(), None)
        .await
    {
        Ok(drafts) => drafts,
        Err(error) => {
            return studio.message(
                &visitor,
                StatusCode::SERVICE_UNAVAILABLE,
                "The drafts cannot be read now",
                error.to_string(),
            );
        }
    };
    let page = QueuePage {
        shell: studio.shell(&visitor, "Review".to_owned(), "review"),
        drafts: drafts
            .into_iter()
            .map(|draft| {
                let href = draft_href(&draft);
                (draft, href)
            })
            .collect(),
        reviews: studio.server.app().options().review,
    };
    html(&page)
}

#[derive(Deserialize)]
pub(crate) struct AuthorQuery {
    author: Option<String>,
}

#[derive(Template)]
#[template(path = "draft.html")]
struct DraftPage {
    shell: Shell,
    draft: DraftSummary,
    href: String,
    diffs: Vec<FileDiff>,
    old_label: String,
    new_label: String,
    may_review: bool,
}

pub(crate) async fn draft(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    Path(name): Path<String>,
    Query(query): Query<AuthorQuery>,
) -> Response {
    let app = studio.server.app();
    let caller = visitor.caller();
    // A draft the visitor may not see is answered as one nobody made.
    let draft = async {
        let permit = app.may(&caller, Operation::GetSkill)?;
        app.draft(&permit, &name, query.author.as_deref()).await
    };
    let draft = match draft.await {
        Ok(draft) => draft,
        Err(_) => {
            return studio.message(
                &visitor,
                StatusCode::NOT_FOUND,
                "No such draft",
                format!("There is no draft of `{name}` for you to see."),
            );
        }
    };
    let base = match draft.summary.base {
        0 => SkillSnapshot {
            kind: draft.snapshot.kind,
            skill_md: String::new(),
            files: Vec::new(),
        },
        base => match async {
            let permit = app.may(&caller, Operation::GetSkill)?;
            app.revision(&permit, &name, Some(base)).await
        }
        .await
        {
            Ok(stored) => stored.snapshot,
            Err(error) => {
                return studio.message(
                    &visitor,
                    StatusCode::SERVICE_UNAVAILABLE,
                    "The draft's base cannot be read now",
                    error.to_string(),
                );
            }
        },
    };
    let diffs = diff_view::diff(&files_of(&base), &files_of(&draft.snapshot));
    let summary = draft.summary;
    let page = DraftPage {
        shell: studio.shell(&visitor, format!("Draft of {name}"), "review"),
        href: format!("/review/{}", encode_path(&name)),
        old_label: match summary.base {
            0 => "nothing (a new item)".to_owned(),
            base => format!("revision {base}"),
        },
        new_label: format!("draft by {}", summary.author),
        draft: summary,
        diffs,
        may_review: caller.holds(Operation::PublishSkill),
    };
    html(&page)
}

#[derive(Deserialize)]
pub(crate) struct DecisionForm {
    author: String,
    #[serde(default)]
    message: String,
}

/// `POST /review/<name>/publish`: to the item's history once it is served, else back to the
/// queue.
pub(crate) async fn publish(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    Path(name): Path<String>,
    Form(form): Form<DecisionForm>,
) -> Response {
    let published = async {
        let permit = studio.permit(&visitor, Operation::PublishSkill)?;
        studio
            .server
            .app()
            .publish(&permit, &name, Some(&form.author), form.message)
            .await
    };
    let published = published.await;
    if let Err(error) = published {
        return refused(&studio, &visitor, error);
    }
    match studio.catalog_for(&visitor).item(&name) {
        Some(_) => see_other(&format!("/skills/{}/history", encode_path(&name))),
        None => see_other("/review"),
    }
}

/// `POST /review/<name>/reject`.
pub(crate) async fn reject(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    Path(name): Path<String>,
    Form(form): Form<DecisionForm>,
) -> Response {
    let rejected = async {
        let permit = studio.permit(&visitor, Operation::RejectSkill)?;
        studio
            .server
            .app()
            .reject(&permit, &name, Some(&form.author), form.message)
            .await
    };
    let rejected = rejected.await;
    match rejected {
        Ok(_) => see_other("/review"),
        Err(error) => refused(&studio, &visitor, error),
    }
}

/// The page of a decision refused, saying why as MCP's tools say it.
fn refused(studio: &Studio, visitor: &Visitor, error: AppError) -> Response {
    studio.message(visitor, StatusCode::CONFLICT, "Refused", app_error(error))
}
