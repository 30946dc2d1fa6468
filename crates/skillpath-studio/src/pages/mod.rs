//! The studio's pages: one module per part (catalog, a skill, editing, history, review,
//! creating, settings), what they share ([`common`]), and the routes to them.

mod catalog;
pub(crate) mod common;
mod create;
pub(crate) mod edit;
mod history;
mod log;
mod namespace;
mod review;
mod settings;
pub(crate) mod sign_in;
mod skill;

use axum::routing::{get, post};

use common::Studio;

/// The route of `action` on an item's releases ([`skill::release_action`]).
fn release_action(action: skill::ReleaseAction) -> axum::routing::MethodRouter<Studio> {
    post(
        move |axum::extract::State(studio): axum::extract::State<Studio>,
              axum::Extension(visitor): axum::Extension<crate::visitor::Visitor>,
              axum::extract::Path(name): axum::extract::Path<String>,
              axum::Form(form): axum::Form<skill::ReleaseActionForm>| {
            skill::release_action(studio, visitor, name, form, action)
        },
    )
}

pub(crate) fn router(studio: Studio) -> axum::Router {
    axum::Router::new()
        .route("/", get(catalog::page))
        .route("/skills/{name}", get(skill::page))
        .route("/skills/{name}/files/{*path}", get(skill::file))
        .route("/skills/{name}/try", get(skill::try_it))
        .route("/skills/{name}/star", post(skill::star))
        .route("/skills/{name}/visibility", post(skill::visibility))
        .route("/skills/{name}/release", post(skill::release))
        .route(
            "/skills/{name}/yank",
            release_action(skill::ReleaseAction::Yank),
        )
        .route(
            "/skills/{name}/tag",
            release_action(skill::ReleaseAction::Tag),
        )
        .route(
            "/skills/{name}/decline",
            release_action(skill::ReleaseAction::Decline),
        )
        .route("/skills/{name}/edit", get(edit::page).post(edit::save))
        .route("/skills/{name}/check", post(edit::check))
        .route("/skills/{name}/history", get(history::page))
        .route("/skills/{name}/diff", get(history::diff))
        .route("/skills/{name}/rollback", post(history::rollback))
        .route("/review", get(review::queue))
        .route("/log", get(log::page))
        .route("/namespaces/{name}", get(namespace::page))
        .route("/namespaces/{name}/settings", post(namespace::settings))
        .route("/namespaces/{name}/members", post(namespace::members))
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
        .route("/login", get(sign_in::login_page).post(sign_in::login))
        .route("/login/oidc/callback", get(sign_in::callback))
        .route("/login/oidc/{provider}", get(sign_in::begin))
        .route("/logout", post(sign_in::logout))
        .route("/assets/{name}", get(crate::assets::serve))
        // axum's extractors take 2 MiB unless told; a write's body was already read within
        // the studio's own limit, as it passed the visitor's checks.
        .layer(axum::extract::DefaultBodyLimit::max(
            crate::gate::MAX_FORM_BYTES,
        ))
        .layer(axum::middleware::from_fn_with_state(
            studio.clone(),
            crate::gate::visit,
        ))
        .with_state(studio)
}
