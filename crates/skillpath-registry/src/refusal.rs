//! A refused request as the protocol says it: plain text with its status. The CLI prints the
//! text as it is (it rewrites `Skill not found` on a 404 into its own sentence), so each says
//! what is wrong and what to do, and none holds a word the CLI takes for a network failure.

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use skillpath_app::{AppError, StoreError};
use skillpath_model::release::Version;

/// A refused request: its status and its sentence.
#[derive(Debug)]
pub(crate) struct Refusal {
    status: StatusCode,
    text: String,
}

impl Refusal {
    pub(crate) fn new(status: StatusCode, text: impl Into<String>) -> Refusal {
        Refusal {
            status,
            text: text.into(),
        }
    }

    /// A request whose parameters are wrong, saying which and how.
    pub(crate) fn bad_request(text: impl Into<String>) -> Refusal {
        Refusal::new(StatusCode::BAD_REQUEST, text)
    }

    /// An item that is not there for the caller (missing, hidden, or no slug at all).
    pub(crate) fn not_found() -> Refusal {
        Refusal::new(StatusCode::NOT_FOUND, "Skill not found")
    }

    /// A version the item has no release of.
    pub(crate) fn no_version() -> Refusal {
        Refusal::new(StatusCode::NOT_FOUND, "Version not found")
    }

    /// A tag that points at nothing: for an item without releases, that it has none.
    pub(crate) fn no_tag(slug: &str, tag: &str, unreleased: bool) -> Refusal {
        let text = if unreleased {
            format!(
                "`{slug}` has no release yet: a maintainer of its namespace releases one with `skillpath release`"
            )
        } else {
            format!("`{slug}` has no release tagged `{tag}`")
        };
        Refusal::new(StatusCode::NOT_FOUND, text)
    }

    /// A yanked version: gone for whoever did not pin it.
    pub(crate) fn yanked(version: &Version, slug: &str, reason: &str) -> Refusal {
        Refusal::new(
            StatusCode::GONE,
            format!("Version {version} of `{slug}` was yanked ({reason}): install another version"),
        )
    }

    /// What the application refused, with its status.
    pub(crate) fn of(error: AppError) -> Refusal {
        match &error {
            AppError::Store(StoreError::NotFound { .. }) => Refusal::not_found(),
            AppError::Forbidden { .. } | AppError::NotInNamespace { .. } => {
                Refusal::new(StatusCode::FORBIDDEN, error.to_string())
            }
            AppError::Store(StoreError::Refused(_)) | AppError::Closed(_) => {
                Refusal::new(StatusCode::CONFLICT, error.to_string())
            }
            AppError::Invalid(_) => Refusal::new(StatusCode::BAD_REQUEST, error.to_string()),
            AppError::Store(StoreError::Database(_)) => {
                Refusal::new(StatusCode::SERVICE_UNAVAILABLE, error.to_string())
            }
            _ => Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, error.to_string()),
        }
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        (
            self.status,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            format!("{}\n", self.text),
        )
            .into_response()
    }
}
