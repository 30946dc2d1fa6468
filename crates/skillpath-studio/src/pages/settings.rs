//! `/settings/keys`: API keys for admins (create, shown once; list; revoke), through the
//! application's key operations, as MCP's tools. `/connect`: how to register this server in Claude Code, Codex, Cursor and VS
//! Code, filled in with its address. `/login` and `/logout`: a session from an API key.

use askama::Template;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use axum::{Extension, Form};
use serde::Deserialize;
use skillpath_app::{AppError, KeyInfo, Operation, Role};
use skillpath_server::app_error;

use super::common::{Shell, Studio, html, html_status, see_other};
use crate::gate;
use crate::visitor::{self, Visitor};

#[derive(Template)]
#[template(path = "keys.html")]
struct KeysPage {
    shell: Shell,
    keys: Vec<KeyInfo>,
    roles: Vec<&'static str>,
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
    let keys = async {
        let permit = studio.permit(visitor, Operation::ListApiKeys)?;
        studio.server.app().list_keys(&permit).await
    };
    let keys = match keys.await {
        Ok(keys) => keys,
        Err(AppError::Forbidden { .. }) => {
            return studio.message(
                visitor,
                StatusCode::FORBIDDEN,
                "API keys are for admins",
                "Managing API keys needs an API key with the `admin` role: sign in with one (`skillpath keys create --role admin` makes one).".to_owned(),
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
    let page = KeysPage {
        shell: studio.shell(visitor, "API keys".to_owned(), "keys"),
        keys,
        roles: roles(),
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
    role: String,
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
    let created = async {
        let permit = studio.permit(&visitor, Operation::CreateApiKey)?;
        let app = studio.server.app();
        app.create_key(&permit, form.name.trim(), &form.role, expires)
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
    let revoked = async {
        let permit = studio.permit(&visitor, Operation::RevokeApiKey)?;
        studio.server.app().revoke_key(&permit, &form.name).await
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

#[derive(Template)]
#[template(path = "login.html")]
struct LoginPage {
    shell: Shell,
    next: String,
    error: Option<String>,
    /// The identity providers' buttons: (short name, display name).
    providers: Vec<(String, String)>,
}

impl LoginPage {
    fn new(studio: &Studio, visitor: &Visitor, next: &str, error: Option<String>) -> LoginPage {
        LoginPage {
            shell: studio.shell(visitor, "Sign in".to_owned(), ""),
            next: local_path(next),
            error,
            providers: studio
                .sign_ins
                .as_ref()
                .map(|sign_ins| sign_ins.buttons())
                .unwrap_or_default(),
        }
    }
}

#[derive(Deserialize)]
pub(crate) struct NextQuery {
    #[serde(default)]
    next: String,
}

/// Where to go after signing in: `next` when it is a path of this site as a browser resolves
/// it, normalised (its path, query and fragment), else the catalog. Judged by the URL parser
/// browsers follow rather than by its first characters: a browser strips tabs and newlines and
/// reads `\` as `/`, so `/<tab>/host` and `/\host` lead to another site; those are refused
/// outright, with every control character, and so is anything that resolves to another origin
/// or to a path that starts with `//` (`/.//host`), which a `Location` would send off-site.
pub(crate) fn local_path(next: &str) -> String {
    const HOME: &str = "/";
    let plain = next.starts_with('/') && !next.chars().any(|c| c.is_control() || c == '\\');
    if !plain {
        return HOME.to_owned();
    }
    let Ok(site) = url::Url::parse("http://studio.invalid/") else {
        return HOME.to_owned();
    };
    match site.join(next) {
        Ok(resolved) if resolved.origin() == site.origin() => {
            let path = &resolved[url::Position::BeforePath..];
            match path.starts_with("//") {
                true => HOME.to_owned(),
                false => path.to_owned(),
            }
        }
        _ => HOME.to_owned(),
    }
}

/// The sign-in page saying `error` (a provider that did not answer), with `status`: the
/// other ways to sign in stay on it.
pub(crate) fn login_refused(
    studio: &Studio,
    visitor: &Visitor,
    next: &str,
    error: String,
    status: StatusCode,
) -> Response {
    html_status(status, &LoginPage::new(studio, visitor, next, Some(error)))
}

pub(crate) async fn login_page(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    Query(query): Query<NextQuery>,
) -> Response {
    html(&LoginPage::new(&studio, &visitor, &query.next, None))
}

#[derive(Deserialize)]
pub(crate) struct LoginForm {
    key: String,
    #[serde(default)]
    next: String,
}

/// `POST /login`: the key checked like an MCP request's; a session with a new cookie.
pub(crate) async fn login(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    Form(form): Form<LoginForm>,
) -> Response {
    let key = form.key.trim().to_owned();
    match studio.server.app().authenticate(&key).await {
        Ok(_) => {
            studio.sessions.sign_out(&visitor.cookie);
            let cookie = studio.sessions.sign_in(key, None);
            let mut response = see_other(&local_path(&form.next));
            gate::set_cookie(
                &mut response,
                &cookie,
                Some(crate::visitor::SESSION_LIFETIME.as_secs()),
            );
            response
        }
        Err(error) => {
            let error = Some(format!("That key does not work: {error}."));
            let page = LoginPage::new(&studio, &visitor, &form.next, error);
            html_status(StatusCode::UNAUTHORIZED, &page)
        }
    }
}

/// `POST /logout`: the session ended, and a new cookie that names none. A session an identity
/// provider's sign-in made has its key revoked, and the provider's own sign-out is offered
/// where it has one.
pub(crate) async fn logout(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    headers: axum::http::HeaderMap,
) -> Response {
    let origin = studio.sessions.sign_out(&visitor.cookie);
    let provider_sign_out = crate::signin::signed_out(&studio, &visitor, origin, &headers).await;
    let mut response = match provider_sign_out {
        Some(link) => {
            let signed_out = Visitor {
                caller: None,
                signed_in: None,
                ..visitor.clone()
            };
            let page = crate::pages::common::MessagePage {
                shell: studio.shell(&signed_out, "Signed out".to_owned(), ""),
                heading: "You are signed out".to_owned(),
                text: "Your session here has ended and its key is revoked. Your identity provider may still remember you in this browser.".to_owned(),
                links: vec![link, ("Sign in again".to_owned(), "/login".to_owned())],
            };
            html(&page)
        }
        None => see_other("/login"),
    };
    gate::set_cookie(&mut response, &visitor::new_cookie(), None);
    response
}
