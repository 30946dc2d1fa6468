//! `/review`: the drafts waiting for review (an author sees their own, a maintainer every one),
//! and `/review/<name>?author=…`: one draft beside the revision it was made on, with publish
//! and reject (`publish_skill`, `reject_skill`: a maintainer's, as over MCP).

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::{Extension, Form};
use serde::Deserialize;
use skillpath_model::{Kind, SkillSnapshot};
use skillpath_server::DraftsSeen;
use skillpath_sources::folders::files_of;
use skillpath_store::drafts::{DraftFilter, DraftSummary};

use super::{Shell, Studio, encode_path, encode_query, html, see_other};
use crate::diff_view::{self, FileDiff};
use crate::visitor::Visitor;

#[derive(Template)]
#[template(path = "review.html")]
struct QueuePage {
    shell: Shell,
    drafts: Vec<(DraftSummary, String)>,
    reviews: bool,
}

/// The drafts filter of what the visitor may see; `None`: nothing.
fn seen(visitor: &Visitor, name: Option<String>) -> Option<DraftFilter> {
    match visitor.caller().drafts_seen() {
        DraftsSeen::None => None,
        DraftsSeen::Own(author) => Some(DraftFilter {
            name,
            author: Some(author),
        }),
        DraftsSeen::All => Some(DraftFilter { name, author: None }),
    }
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
    let drafts = match seen(&visitor, None) {
        None => Vec::new(),
        Some(filter) => match studio.server.store_handle().drafts(filter).await {
            Ok(drafts) => drafts,
            Err(error) => {
                return studio.message(
                    &visitor,
                    StatusCode::SERVICE_UNAVAILABLE,
                    "The drafts cannot be read now",
                    error.to_string(),
                );
            }
        },
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
        reviews: studio.server.reviews(),
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
    let store = studio.server.store_handle();
    // A draft the visitor may not see is answered as one nobody made.
    let nothing = |studio: &Studio| {
        studio.message(
            &visitor,
            StatusCode::NOT_FOUND,
            "No such draft",
            format!("There is no draft of `{name}` for you to see."),
        )
    };
    let Some(filter) = seen(&visitor, Some(name.clone())) else {
        return nothing(&studio);
    };
    let author = match (&filter.author, &query.author) {
        (Some(own), Some(asked)) if own != asked => return nothing(&studio),
        (Some(own), _) => Some(own.clone()),
        (None, asked) => asked.clone(),
    };
    let draft = match store.draft(&name, author.as_deref()).await {
        Ok(draft) => draft,
        Err(_) => return nothing(&studio),
    };
    let base = match draft.summary.base {
        0 => SkillSnapshot {
            kind: draft.snapshot.kind,
            skill_md: String::new(),
            files: Vec::new(),
        },
        base => match store.get(&name, Some(base)).await {
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
        may_review: visitor.may(skillpath_store::keys::Role::Maintainer),
    };
    html(&page)
}

#[derive(Deserialize)]
pub(crate) struct DecisionForm {
    author: String,
    #[serde(default)]
    message: String,
}

/// `POST /review/<name>/publish`.
pub(crate) async fn publish(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    Path(name): Path<String>,
    Form(form): Form<DecisionForm>,
) -> Response {
    decide(studio, visitor, "publish_skill", name, form).await
}

/// `POST /review/<name>/reject`.
pub(crate) async fn reject(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    Path(name): Path<String>,
    Form(form): Form<DecisionForm>,
) -> Response {
    decide(studio, visitor, "reject_skill", name, form).await
}

async fn decide(
    studio: Studio,
    visitor: Visitor,
    tool: &str,
    name: String,
    form: DecisionForm,
) -> Response {
    let mut arguments = serde_json::Map::new();
    arguments.insert("name".to_owned(), name.clone().into());
    arguments.insert("author".to_owned(), form.author.into());
    if !(tool == "publish_skill" && form.message.trim().is_empty()) {
        arguments.insert("message".to_owned(), form.message.into());
    }
    let answer = studio
        .server
        .call_as(&visitor.caller(), tool, arguments)
        .await;
    if answer.is_error {
        return studio.message(&visitor, StatusCode::CONFLICT, "Refused", answer.text);
    }
    let catalog = studio.server.catalog();
    let published = catalog.item(&name).map(|item| item.kind);
    match (tool, published) {
        ("publish_skill", Some(Kind::Skill | Kind::Package)) => {
            see_other(&format!("/skills/{}/history", encode_path(&name)))
        }
        _ => see_other("/review"),
    }
}
