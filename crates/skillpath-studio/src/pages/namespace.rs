//! `/namespaces/<@name>`: a namespace's settings, members and the items the visitor may see in
//! it, as the application's directory and the visitor's view of the catalog say.

use askama::Template;
use axum::Extension;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use skillpath_app::{Namespace, Operation, namespace_of_key};
use skillpath_server::app_error;

use super::common::{Shell, Studio, html};
use crate::encode::encode_path;
use crate::visitor::Visitor;

#[derive(Template)]
#[template(path = "namespace.html")]
struct NamespacePage {
    shell: Shell,
    name: String,
    kind: String,
    state: String,
    members: Vec<(String, String)>,
    /// Each item: its full name, its link, its visibility, its stars and its description.
    items: Vec<(String, String, String, usize, String)>,
}

pub(crate) async fn page(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    Path(name): Path<String>,
) -> Response {
    let not_found = |studio: &Studio| {
        studio.message(
            &visitor,
            StatusCode::NOT_FOUND,
            "No such namespace",
            format!("There is no namespace `{name}` you may see."),
        )
    };
    let Ok(namespace) = Namespace::parse(&name) else {
        return not_found(&studio);
    };
    let directory = async {
        let permit = studio.permit(&visitor, Operation::ReadDirectory)?;
        studio.server.app().directory(&permit).await
    };
    let directory = match directory.await {
        Ok(directory) => directory,
        Err(error) => {
            return studio.message(
                &visitor,
                StatusCode::FORBIDDEN,
                "Namespaces",
                app_error(error),
            );
        }
    };
    let Some(record) = directory.namespace(&namespace) else {
        return not_found(&studio);
    };
    let catalog = studio.catalog_for(&visitor);
    let items = catalog
        .skills()
        .chain(catalog.packages())
        .filter(|item| namespace_of_key(&item.name) == namespace)
        .map(|item| {
            (
                item.name.clone(),
                format!("/skills/{}", encode_path(&item.name)),
                directory.access(&item.name).visibility.to_string(),
                catalog.stars_of(&item.name),
                item.description.clone(),
            )
        })
        .collect();
    let state = match (record.archived, record.frozen) {
        (true, _) => "archived",
        (false, true) => "frozen",
        (false, false) => "open",
    };
    let review = match record.review {
        Some(true) => ", authors write drafts",
        Some(false) => ", authors publish at once",
        None => "",
    };
    html(&NamespacePage {
        shell: studio.shell(&visitor, namespace.to_string(), "catalog"),
        name: namespace.to_string(),
        kind: record.kind.as_str().to_owned(),
        state: format!("{state}{review}"),
        members: directory
            .members_of(&namespace)
            .map(|member| (member.handle.clone(), member.role.to_string()))
            .collect(),
        items,
    })
}
