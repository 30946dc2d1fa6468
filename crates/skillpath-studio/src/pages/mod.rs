//! The studio's pages: one module per part (catalog, a skill, editing, history, review,
//! creating, settings), the state they share, the page frame every one of them is drawn in, and
//! the routes.

mod catalog;
mod create;
pub(crate) mod edit;
mod history;
mod review;
mod settings;
mod skill;

use std::sync::Arc;

use askama::Template;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use skillpath_app::Operation;
use skillpath_app::SkillContent;
use skillpath_server::catalog::CatalogSkill;
use skillpath_server::{KeyPolicy, SkillServer};

use crate::visitor::{Sessions, Visitor};

/// What every page handler has: the server (its catalog, store and rules), the sessions, and
/// how visitors are let in.
#[derive(Clone)]
pub(crate) struct Studio {
    pub(crate) server: SkillServer,
    pub(crate) sessions: Arc<Sessions>,
    pub(crate) keys: KeyPolicy,
    pub(crate) allowed_hosts: Arc<Vec<String>>,
}

pub(crate) fn router(studio: Studio) -> axum::Router {
    axum::Router::new()
        .route("/", get(catalog::page))
        .route("/skills/{name}", get(skill::page))
        .route("/skills/{name}/files/{*path}", get(skill::file))
        .route("/skills/{name}/try", get(skill::try_it))
        .route("/skills/{name}/edit", get(edit::page).post(edit::save))
        .route("/skills/{name}/check", post(edit::check))
        .route("/skills/{name}/history", get(history::page))
        .route("/skills/{name}/diff", get(history::diff))
        .route("/skills/{name}/rollback", post(history::rollback))
        .route("/review", get(review::queue))
        .route("/review/{name}", get(review::draft))
        .route("/review/{name}/publish", post(review::publish))
        .route("/review/{name}/reject", post(review::reject))
        .route("/new", get(create::page).post(create::submit))
        .route(
            "/settings/keys",
            get(settings::keys).post(settings::create_key),
        )
        .route("/settings/keys/revoke", post(settings::revoke_key))
        .route("/connect", get(settings::connect))
        .route("/login", get(settings::login_page).post(settings::login))
        .route("/logout", post(settings::logout))
        .route("/assets/{name}", get(crate::assets::serve))
        // axum's extractors take 2 MiB unless told; a write's body was already read within
        // the studio's own limit, as it passed the visitor's checks.
        .layer(axum::extract::DefaultBodyLimit::max(
            crate::visitor::MAX_FORM_BYTES,
        ))
        .layer(axum::middleware::from_fn_with_state(
            studio.clone(),
            crate::visitor::visit,
        ))
        .with_state(studio)
}

/// What the frame of every page shows: the title, who is signed in, what they may reach, the
/// CSRF token its forms carry, and the assets.
pub(crate) struct Shell {
    pub(crate) title: String,
    /// Which part of the navigation is current (`catalog`, `review`, `new`, `keys`, `connect`).
    pub(crate) section: &'static str,
    pub(crate) csrf: String,
    /// The key's name, when signed in.
    pub(crate) signed_in: Option<String>,
    /// The role, as a word.
    pub(crate) role: String,
    pub(crate) may_write: bool,
    pub(crate) may_admin: bool,
    pub(crate) notice: Option<String>,
    pub(crate) css: &'static str,
    pub(crate) js: &'static str,
}

impl Studio {
    /// The frame of a page titled `title` in `section`, for `visitor`.
    pub(crate) fn shell(&self, visitor: &Visitor, title: String, section: &'static str) -> Shell {
        let caller = visitor.caller();
        Shell {
            title,
            section,
            csrf: visitor.csrf.clone(),
            signed_in: visitor.signed_in.clone(),
            role: match (&visitor.signed_in, &visitor.caller) {
                (None, Some(_)) => "local user".to_owned(),
                (None, None) => "not signed in".to_owned(),
                (Some(_), _) => caller.role.to_string(),
            },
            may_write: self.server.app().allows(&caller, Operation::UpdateSkill),
            may_admin: self.server.app().allows(&caller, Operation::ListApiKeys),
            notice: visitor.notice.clone(),
            css: crate::assets::url("studio.css"),
            js: crate::assets::url("studio.js"),
        }
    }
}

/// A template rendered as a page (`200`), or the error page when it cannot be.
pub(crate) fn html(page: &impl Template) -> Response {
    html_status(StatusCode::OK, page)
}

pub(crate) fn html_status(status: StatusCode, page: &impl Template) -> Response {
    match page.render() {
        Ok(text) => {
            let mut response = (status, text).into_response();
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            );
            response
        }
        Err(error) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the page could not be drawn: {error}\n"),
        )
            .into_response(),
    }
}

/// A page that says what went wrong and what to do.
#[derive(Template)]
#[template(path = "message.html")]
pub(crate) struct MessagePage {
    pub(crate) shell: Shell,
    pub(crate) heading: String,
    pub(crate) text: String,
    /// Where to go from here: (label, URL).
    pub(crate) links: Vec<(String, String)>,
}

impl Studio {
    /// The page for `status`, saying `text`.
    pub(crate) fn message(
        &self,
        visitor: &Visitor,
        status: StatusCode,
        heading: &str,
        text: String,
    ) -> Response {
        let page = MessagePage {
            shell: self.shell(visitor, heading.to_owned(), ""),
            heading: heading.to_owned(),
            text,
            links: vec![("Back to the catalog".to_owned(), "/".to_owned())],
        };
        html_status(status, &page)
    }

    /// `503` for what the store could not answer now.
    pub(crate) fn unavailable(
        &self,
        visitor: &Visitor,
        what: &str,
        error: impl std::fmt::Display,
    ) -> Response {
        self.message(
            visitor,
            StatusCode::SERVICE_UNAVAILABLE,
            &format!("{what} cannot be read now"),
            error.to_string(),
        )
    }

    /// The skill or package `name` of the catalog with its content, or the page that says why
    /// not (none by that name, a store that cannot answer).
    pub(crate) async fn item(
        &self,
        visitor: &Visitor,
        name: &str,
    ) -> Result<(Arc<CatalogSkill>, Arc<SkillContent>), Response> {
        let catalog = self.server.catalog();
        let Some(skill) = catalog.item(name).cloned() else {
            return Err(self.no_skill(visitor, name));
        };
        match self.server.app().content(&skill).await {
            Ok(content) => Ok((skill, content)),
            Err(error) => Err(self.unavailable(visitor, "The skill", error)),
        }
    }

    /// `404` for a skill this studio does not have.
    pub(crate) fn no_skill(&self, visitor: &Visitor, name: &str) -> Response {
        self.message(
            visitor,
            StatusCode::NOT_FOUND,
            "No such skill",
            format!("There is no skill or package named `{name}` here. Search the catalog for it."),
        )
    }
}

/// `text` as one path segment of a URL (everything but unreserved characters escaped).
pub(crate) fn encode_path(text: &str) -> String {
    encode(text, |b| b.is_ascii_alphanumeric() || b"-._~".contains(&b))
}

/// `text` as a query value (a path's `/` kept, for readable `next=` links).
pub(crate) fn encode_query(text: &str) -> String {
    encode(text, |b| b.is_ascii_alphanumeric() || b"-._~/".contains(&b))
}

fn encode(text: &str, keep: impl Fn(u8) -> bool) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if keep(byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// A redirect after a write (`303 See Other`, so the browser loads the page with `GET`).
pub(crate) fn see_other(location: &str) -> Response {
    let mut response = StatusCode::SEE_OTHER.into_response();
    if let Ok(value) = HeaderValue::from_str(location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    response
}

/// The approximate token count of `bytes` bytes of text: 4 bytes a token, the usual rule for
/// English prose and code (models' tokenizers differ by a fifth either way).
pub(crate) fn tokens(bytes: usize) -> usize {
    bytes.div_ceil(4)
}

/// `text` with HTML's special characters escaped, for the few places that build HTML in code
/// (the templates escape everything else).
pub(crate) fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}
