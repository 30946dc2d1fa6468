//! `/log`: the governance log as the visitor may read it (a namespace's owners its entries, an
//! admin all), newest first, through the application's log operation.

use askama::Template;
use axum::Extension;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use skillpath_app::{AppError, LogEntry as Entry, LogFilter, Namespace, Operation};
use skillpath_server::app_error;

use super::common::{Shell, Studio, html};
use crate::visitor::Visitor;

/// The most entries the page shows (the newest).
const SHOWN: usize = 500;

#[derive(Template)]
#[template(path = "log.html")]
struct LogPage {
    shell: Shell,
    namespace: String,
    entries: Vec<Entry>,
    /// Whether the whole chain was checked and holds (an admin's view).
    verified: bool,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct LogQuery {
    #[serde(default)]
    namespace: String,
}

pub(crate) async fn page(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    Query(query): Query<LogQuery>,
) -> Response {
    let read = async {
        let namespace = match query.namespace.trim() {
            "" => None,
            text => Some(
                Namespace::parse(text)
                    .map_err(|error| AppError::NoNamespace(format!("{text} ({error})")))?,
            ),
        };
        let permit = studio.permit(&visitor, Operation::ReadLog)?;
        let app = studio.server.app();
        let filter = LogFilter {
            namespace,
            since: None,
        };
        let mut entries = app.governance_log(&permit, filter).await?;
        let verified = matches!(app.verify_log(&permit).await, Ok(Ok(_)));
        entries.reverse();
        entries.truncate(SHOWN);
        Ok::<_, AppError>((entries, verified))
    };
    match read.await {
        Ok((entries, verified)) => html(&LogPage {
            shell: studio.shell(&visitor, "Governance log".to_owned(), "log"),
            namespace: query.namespace,
            entries,
            verified,
        }),
        Err(error) => studio.message(
            &visitor,
            StatusCode::FORBIDDEN,
            "The log cannot be shown",
            app_error(error),
        ),
    }
}
