//! What every page shares: the studio's state, the frame each page is drawn in, the message
//! page, and the ways a page answers (a rendered template, a redirect). The pages import it and
//! it imports no page, so the routes (`pages/mod.rs`) stay apart from the helpers.

use std::sync::Arc;

use askama::Template;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use skillpath_app::SkillContent;
use skillpath_app::{AppError, Operation, Permit};
use skillpath_server::catalog::CatalogSkill;
use skillpath_server::{KeyPolicy, SkillServer};

use crate::assets::url;
use crate::visitor::{Sessions, Visitor};

/// What every page handler has: the server (its catalog, store and rules), the sessions, and
/// how visitors are let in.
#[derive(Clone)]
pub(crate) struct Studio {
    pub(crate) server: SkillServer,
    pub(crate) sessions: Arc<Sessions>,
    pub(crate) keys: KeyPolicy,
    pub(crate) allowed_hosts: Arc<Vec<String>>,
    /// The identity providers people sign in with, if any.
    pub(crate) sign_ins: Option<crate::identities::Shared>,
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
    /// The part of the catalog `visitor` may find ([`View::Listed`]): every page shows only
    /// what the signed-in person may see.
    pub(crate) fn catalog_for(&self, visitor: &Visitor) -> Arc<skillpath_server::catalog::Catalog> {
        self.server
            .app()
            .view_for(&visitor.caller(), skillpath_app::View::Listed)
    }

    /// The permit the rules give `visitor` for `operation` ([`skillpath_app::App::may`]): what
    /// the operation takes, so that the rule is decided once, before it runs.
    pub(crate) fn permit(
        &self,
        visitor: &Visitor,
        operation: Operation,
    ) -> Result<Permit, AppError> {
        self.server.app().may(&visitor.caller(), operation)
    }

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
            css: url("studio.css"),
            js: url("studio.js"),
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
        let catalog = self.catalog_for(visitor);
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
