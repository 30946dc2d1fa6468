//! `/namespaces/<@name>`: a namespace's settings, members and the items the visitor may see in
//! it, as the application's directory and the visitor's view of the catalog say; for its
//! owners (and the instance's admins), forms that change its settings and members through the
//! application's governance, which decides again who may.

use askama::Template;
use axum::Extension;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use skillpath_app::{AppError, Governance, MemberRole, Namespace, Operation, namespace_of_key};
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
    /// Whether the visitor manages it (an owner, or an instance admin): the forms are shown.
    manages: bool,
    /// Its state's settings as the forms offer them: frozen, archived, and the review setting
    /// (`drafts`, `direct`, `server`).
    frozen: bool,
    archived: bool,
    review: &'static str,
    /// The roles a member may have, for the forms' choices.
    roles: Vec<&'static str>,
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
    let manages = match studio.server.app().sight(&visitor.caller()).await {
        Ok(sight) => sight.is_admin() || sight.role_in(&namespace) == Some(MemberRole::Owner),
        Err(_) => false,
    };
    html(&NamespacePage {
        manages,
        frozen: record.frozen,
        archived: record.archived,
        review: match record.review {
            Some(true) => "drafts",
            Some(false) => "direct",
            None => "server",
        },
        roles: MemberRole::ALL.iter().map(|role| role.as_str()).collect(),
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

/// What a settings button posts: the change (`freeze`, `thaw`, `archive`, `unarchive`, or the
/// review setting `drafts`, `direct`, `server`).
#[derive(serde::Deserialize)]
pub(crate) struct SettingForm {
    change: String,
}

/// `POST /namespaces/<@name>/settings`: one setting changed, by the application's rules.
pub(crate) async fn settings(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    Path(name): Path<String>,
    axum::Form(form): axum::Form<SettingForm>,
) -> Response {
    let change = |namespace: Namespace| {
        Ok(match form.change.as_str() {
            "freeze" => Governance::SetFrozen(namespace, true),
            "thaw" => Governance::SetFrozen(namespace, false),
            "archive" => Governance::SetArchived(namespace, true),
            "unarchive" => Governance::SetArchived(namespace, false),
            "drafts" => Governance::SetReview(namespace, Some(true)),
            "direct" => Governance::SetReview(namespace, Some(false)),
            "server" => Governance::SetReview(namespace, None),
            other => {
                return Err(AppError::Invalid(format!(
                    "- change: `{other}` is none of freeze, thaw, archive, unarchive, drafts, direct, server\n"
                )));
            }
        })
    };
    governed(
        &studio,
        &visitor,
        &name,
        "The setting was not changed",
        change,
    )
    .await
}

/// What the member forms post: the person, the role (to add or set), and the action.
#[derive(serde::Deserialize)]
pub(crate) struct MemberForm {
    handle: String,
    #[serde(default)]
    role: String,
    action: String,
}

/// `POST /namespaces/<@name>/members`: a member added, their role set, or removed.
pub(crate) async fn members(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    Path(name): Path<String>,
    axum::Form(form): axum::Form<MemberForm>,
) -> Response {
    let change = |namespace: Namespace| {
        let handle = form.handle.trim().to_owned();
        let role = || {
            MemberRole::parse(&form.role).ok_or_else(|| {
                AppError::Invalid(format!(
                    "- role: `{}` is none of reader, author, maintainer, owner\n",
                    form.role
                ))
            })
        };
        Ok(match form.action.as_str() {
            "add" => Governance::AddMember {
                namespace,
                handle,
                role: role()?,
            },
            "set" => Governance::SetRole {
                namespace,
                handle,
                role: role()?,
            },
            "remove" => Governance::RemoveMember { namespace, handle },
            other => {
                return Err(AppError::Invalid(format!(
                    "- action: `{other}` is none of add, set, remove\n"
                )));
            }
        })
    };
    governed(
        &studio,
        &visitor,
        &name,
        "The members were not changed",
        change,
    )
    .await
}

/// Makes the change `change` says of the namespace `name` as the visitor, then shows the
/// namespace's page again; or says why not, under `failed`.
async fn governed(
    studio: &Studio,
    visitor: &Visitor,
    name: &str,
    failed: &str,
    change: impl FnOnce(Namespace) -> Result<Governance, AppError>,
) -> Response {
    let made = async {
        let namespace = Namespace::parse(name)
            .map_err(|error| AppError::Invalid(format!("- namespace: {error}\n")))?;
        let change = change(namespace)?;
        let permit = studio.permit(visitor, Operation::Govern)?;
        studio.server.app().govern(&permit, change).await
    };
    match made.await {
        Ok(_) => super::common::see_other(&format!("/namespaces/{}", encode_path(name))),
        Err(error) => studio.message(
            visitor,
            StatusCode::CONFLICT,
            failed,
            skillpath_server::app_error(error),
        ),
    }
}
