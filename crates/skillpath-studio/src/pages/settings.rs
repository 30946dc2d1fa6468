//! `/settings/keys`: API keys (create, shown once; list; revoke), through the application's
//! key operations: every key for admins, as MCP's tools; a person's own keys for anyone else
//! signed in (narrowed to one of their namespaces or not, always with an expiry). `/connect`: how to register this server in Claude Code, Codex, Cursor and VS
//! Code, filled in with its address. `/login` and `/logout`: a session from an API key.

use askama::Template;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use axum::{Extension, Form};
use serde::Deserialize;
use skillpath_app::{AppError, KeyInfo, Namespace, Operation, Role};
use skillpath_server::app_error;

use super::common::{Shell, Studio, html, html_status, see_other};
use crate::visitor::Visitor;

#[derive(Template)]
#[template(path = "keys.html")]
struct KeysPage {
    shell: Shell,
    keys: Vec<KeyInfo>,
    /// The roles a new key may have (an admin's page); empty on a person's own page.
    roles: Vec<&'static str>,
    /// The person's namespaces a new key of theirs may be narrowed to (their own page).
    namespaces: Vec<String>,
    /// The lifetime a person's key gets when they give none.
    default_lifetime: &'static str,
    /// The key just created, shown once.
    created: Option<(String, String)>,
    error: Option<String>,
}

fn roles() -> Vec<&'static str> {
    Role::ALL.into_iter().map(Role::as_str).collect()
}

async fn keys_page(
    studio: &Studio,
    visitor: &Visitor,
    created: Option<(String, String)>,
    error: Option<String>,
) -> Response {
    let app = studio.server.app();
    let admin = app.allows(&visitor.caller(), Operation::ListApiKeys);
    let keys = async {
        if admin {
            let permit = studio.permit(visitor, Operation::ListApiKeys)?;
            app.list_keys(&permit).await
        } else {
            let permit = studio.permit(visitor, Operation::ManageOwnKeys)?;
            app.own_keys(&permit).await
        }
    };
    let keys = match keys.await {
        Ok(keys) => keys,
        Err(AppError::Forbidden { .. } | AppError::NoPerson) => {
            return studio.message(
                visitor,
                StatusCode::FORBIDDEN,
                "API keys are for people signed in",
                "Sign in (with your identity provider, or a key) to make keys of your own; managing everyone's keys needs the `admin` role.".to_owned(),
            );
        }
        Err(error) => {
            return studio.message(
                visitor,
                StatusCode::SERVICE_UNAVAILABLE,
                "The keys cannot be read now",
                error.to_string(),
            );
        }
    };
    let status = match (&created, &error) {
        (_, Some(_)) => StatusCode::UNPROCESSABLE_ENTITY,
        _ => StatusCode::OK,
    };
    let namespaces = match (&visitor.caller().user, admin) {
        (Some(user), false) => match app.people().await {
            Ok(people) => people
                .directory
                .memberships(user)
                .map(|member| member.namespace.to_string())
                .collect(),
            Err(_) => Vec::new(),
        },
        _ => Vec::new(),
    };
    let page = KeysPage {
        shell: studio.shell(visitor, "API keys".to_owned(), "keys"),
        keys,
        roles: if admin { roles() } else { Vec::new() },
        namespaces,
        default_lifetime: skillpath_app::OWN_KEY_LIFETIME,
        created,
        error,
    };
    html_status(status, &page)
}

pub(crate) async fn keys(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
) -> Response {
    keys_page(&studio, &visitor, None, None).await
}

#[derive(Deserialize)]
pub(crate) struct NewKey {
    name: String,
    /// An admin's form: the key's role.
    #[serde(default)]
    role: String,
    /// A person's own form: the one namespace it is narrowed to (empty: all of theirs).
    #[serde(default)]
    namespace: String,
    #[serde(default)]
    expires: String,
}

/// `POST /settings/keys`: a new key, shown once, on the page this answers.
pub(crate) async fn create_key(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    Form(form): Form<NewKey>,
) -> Response {
    let expires = Some(form.expires.trim()).filter(|expires| !expires.is_empty());
    let app = studio.server.app();
    let created = async {
        if app.allows(&visitor.caller(), Operation::CreateApiKey) {
            let permit = studio.permit(&visitor, Operation::CreateApiKey)?;
            return app
                .create_key(&permit, form.name.trim(), &form.role, expires)
                .await;
        }
        let permit = studio.permit(&visitor, Operation::ManageOwnKeys)?;
        let narrowed = match form.namespace.trim() {
            "" => Vec::new(),
            namespace => vec![
                Namespace::parse(namespace)
                    .map_err(|error| AppError::Invalid(error.to_string()))?,
            ],
        };
        app.create_own_key(&permit, form.name.trim(), narrowed, expires)
            .await
    };
    let created = created.await;
    match created {
        Ok(created) => {
            let shown = (created.info.name, created.key);
            keys_page(&studio, &visitor, Some(shown), None).await
        }
        Err(error) => keys_page(&studio, &visitor, None, Some(app_error(error))).await,
    }
}

#[derive(Deserialize)]
pub(crate) struct RevokeForm {
    name: String,
}

/// `POST /settings/keys/revoke`: the key refused from now on.
pub(crate) async fn revoke_key(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    Form(form): Form<RevokeForm>,
) -> Response {
    let app = studio.server.app();
    let revoked = async {
        if app.allows(&visitor.caller(), Operation::RevokeApiKey) {
            let permit = studio.permit(&visitor, Operation::RevokeApiKey)?;
            return app.revoke_key(&permit, &form.name).await;
        }
        let permit = studio.permit(&visitor, Operation::ManageOwnKeys)?;
        app.revoke_own_key(&permit, Some(&form.name)).await
    };
    let revoked = revoked.await;
    match revoked {
        Ok(_) => see_other("/settings/keys"),
        Err(error) => keys_page(&studio, &visitor, None, Some(app_error(error))).await,
    }
}

#[derive(Template)]
#[template(path = "connect.html")]
struct ConnectPage {
    shell: Shell,
    url: String,
    claude: String,
    codex: String,
    cursor: String,
    vscode: String,
    keys_required: bool,
}

/// `GET /connect`.
pub(crate) async fn connect(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    headers: HeaderMap,
) -> Response {
    // The host the browser reached, which the Host check allowed: the address agents use too.
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("127.0.0.1:7777");
    let scheme = match headers
        .get("x-forwarded-proto")
        .and_then(|p| p.to_str().ok())
    {
        Some("https") => "https",
        _ => "http",
    };
    let url = format!("{scheme}://{host}/mcp");
    let keys_required = studio.keys == skillpath_server::KeyPolicy::Required;
    let key = "sp_…";
    let (claude, codex, cursor, vscode) = if keys_required {
        (
            format!(
                "claude mcp add --transport http skillpath {url} --header \"Authorization: Bearer {key}\""
            ),
            format!(
                "# ~/.codex/config.toml (the key in the environment variable SKILLPATH_KEY)\n[mcp_servers.skillpath]\nurl = \"{url}\"\nbearer_token_env_var = \"SKILLPATH_KEY\""
            ),
            format!(
                "// .cursor/mcp.json\n{{\n  \"mcpServers\": {{\n    \"skillpath\": {{\n      \"url\": \"{url}\",\n      \"headers\": {{ \"Authorization\": \"Bearer {key}\" }}\n    }}\n  }}\n}}"
            ),
            format!(
                "// .vscode/mcp.json\n{{\n  \"servers\": {{\n    \"skillpath\": {{\n      \"type\": \"http\",\n      \"url\": \"{url}\",\n      \"headers\": {{ \"Authorization\": \"Bearer {key}\" }}\n    }}\n  }}\n}}"
            ),
        )
    } else {
        (
            format!("claude mcp add --transport http skillpath {url}"),
            format!("# ~/.codex/config.toml\n[mcp_servers.skillpath]\nurl = \"{url}\""),
            format!(
                "// .cursor/mcp.json\n{{\n  \"mcpServers\": {{\n    \"skillpath\": {{ \"url\": \"{url}\" }}\n  }}\n}}"
            ),
            format!(
                "// .vscode/mcp.json\n{{\n  \"servers\": {{\n    \"skillpath\": {{ \"type\": \"http\", \"url\": \"{url}\" }}\n  }}\n}}"
            ),
        )
    };
    let page = ConnectPage {
        shell: studio.shell(&visitor, "Connect an agent".to_owned(), "connect"),
        url,
        claude,
        codex,
        cursor,
        vscode,
        keys_required,
    };
    html(&page)
}
