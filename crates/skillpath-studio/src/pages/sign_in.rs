//! Signing in and out: the sign-in page (an API key, or a button per identity provider), the
//! provider's round trip (`/login/oidc/<provider>`, its own page, `/login/oidc/callback`),
//! sign-out, and the device login a command line runs (`skillpath login`: `/login/device`,
//! `/login/device/token`; the `clawhub` CLI's `clawhub login`: `/api/cli/device/code`,
//! `/api/cli/device/token`) and `skillpath logout`'s sign-out (`/logout/key`).
//!
//! What a provider proves becomes a person and a key through the application
//! ([`skillpath_app::App::sign_in`]); the session holds the key as a sign-in with a key does, so
//! every request checks it again (a person disabled, a key revoked: signed out at once). The
//! device login keeps nothing here: the command line polls with the provider's device code,
//! which only this server's client secret can exchange.

use std::time::{Duration, Instant};

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Form, Json};
use serde::Deserialize;
use serde_json::json;
use skillpath_app::{Account, KeyUse, Operation, SignedIn};
use skillpath_identity::{DeviceLogin, DevicePoll, Identity, IdentityError, Provider};

use super::common::{MessagePage, Shell, Studio, html, html_status, see_other};
use crate::gate;
use crate::identities::{DEVICE_POLL_WAIT, Waiting};
use crate::visitor::{self, Origin, SESSION_LIFETIME, Visitor};

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
    let provider_sign_out = signed_out(&studio, &visitor, origin, &headers).await;
    let mut response = match provider_sign_out {
        Some(link) => {
            let signed_out = Visitor {
                caller: None,
                signed_in: None,
                ..visitor.clone()
            };
            let page = MessagePage {
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

/// What an identity proves, as the application takes it.
fn account(provider: &Provider, identity: Identity) -> Account {
    Account {
        provider: provider.config().id.clone(),
        issuer: identity.issuer,
        subject: identity.subject,
        username: identity.username,
        email: identity.email,
        name: identity.name,
        groups: identity.groups,
    }
}

/// The page saying why a sign-in did not happen, with the way back to `/login`.
fn refused(studio: &Studio, visitor: &Visitor, status: StatusCode, text: String) -> Response {
    let page = MessagePage {
        shell: studio.shell(visitor, "Sign-in refused".to_owned(), ""),
        heading: "You were not signed in".to_owned(),
        text,
        links: vec![("Sign in again".to_owned(), "/login".to_owned())],
    };
    html_status(status, &page)
}

#[derive(Deserialize)]
pub(crate) struct BeginQuery {
    #[serde(default)]
    next: String,
}

/// `GET /login/oidc/{provider}`: the browser sent to the provider's sign-in page.
pub(crate) async fn begin(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    Path(id): Path<String>,
    Query(query): Query<BeginQuery>,
    headers: HeaderMap,
) -> Response {
    let Some(sign_ins) = studio.sign_ins.clone() else {
        return studio.message(
            &visitor,
            StatusCode::NOT_FOUND,
            "No identity provider",
            "This server signs in with API keys only (`serve --oidc-issuer` adds a provider)."
                .to_owned(),
        );
    };
    let Some((index, provider)) = sign_ins.provider(&id) else {
        return refused(
            &studio,
            &visitor,
            StatusCode::NOT_FOUND,
            format!("This server has no identity provider named `{id}`."),
        );
    };
    match provider.login(&sign_ins.callback(&headers)).await {
        Ok(login) => {
            let url = login.url.clone();
            let waiting = Waiting {
                provider: index,
                cookie: visitor.cookie.clone(),
                next: local_path(&query.next),
                began: Instant::now(),
                login: login.pending,
            };
            sign_ins.keep(waiting.login.state.clone(), waiting);
            see_other(&url)
        }
        Err(error) => login_refused(
            &studio,
            &visitor,
            &query.next,
            format!("{error}. You can still sign in with an API key."),
            StatusCode::SERVICE_UNAVAILABLE,
        ),
    }
}

#[derive(Deserialize)]
pub(crate) struct CallbackQuery {
    #[serde(default)]
    state: String,
    code: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

/// `GET /login/oidc/callback`: the provider's answer, checked, and the person signed in.
pub(crate) async fn callback(
    State(studio): State<Studio>,
    Extension(visitor): Extension<Visitor>,
    Query(query): Query<CallbackQuery>,
    headers: HeaderMap,
) -> Response {
    let Some(sign_ins) = studio.sign_ins.clone() else {
        return refused(
            &studio,
            &visitor,
            StatusCode::NOT_FOUND,
            "This server has no identity provider.".to_owned(),
        );
    };
    let Some(waiting) = sign_ins.take(&query.state) else {
        return refused(
            &studio,
            &visitor,
            StatusCode::BAD_REQUEST,
            "This sign-in is not one this server began, or it was finished already (its link was used twice) or took longer than ten minutes.".to_owned(),
        );
    };
    if waiting.cookie != visitor.cookie {
        return refused(
            &studio,
            &visitor,
            StatusCode::BAD_REQUEST,
            "This sign-in was begun in another browser: sign in from this one.".to_owned(),
        );
    }
    let provider = &sign_ins.providers[waiting.provider];
    if let Some(error) = query.error {
        let said = query.error_description.unwrap_or_default();
        return refused(
            &studio,
            &visitor,
            StatusCode::FORBIDDEN,
            format!(
                "{} answered `{error}`: {said}",
                provider.config().display_name
            ),
        );
    }
    let Some(code) = query.code else {
        return refused(
            &studio,
            &visitor,
            StatusCode::BAD_REQUEST,
            "The provider's answer has no code.".to_owned(),
        );
    };
    let identity = match provider
        .complete(&sign_ins.callback(&headers), &code, waiting.login)
        .await
    {
        Ok(identity) => identity,
        Err(error) => {
            return refused(
                &studio,
                &visitor,
                StatusCode::FORBIDDEN,
                format!("{error}."),
            );
        }
    };
    let id_token = identity.id_token.clone();
    let key_use = KeyUse::Studio {
        lifetime_secs: SESSION_LIFETIME.as_secs(),
    };
    let app = studio.server.app();
    let signed_in = match app
        .sign_in(account(provider, identity), &sign_ins.rules, key_use)
        .await
    {
        Ok(signed_in) => signed_in,
        Err(error) => return refused(&studio, &visitor, StatusCode::FORBIDDEN, format!("{error}")),
    };
    for skipped in &signed_in.skipped {
        tracing::warn!("signing in `{}`: left out {skipped}", signed_in.handle);
    }
    studio.sessions.sign_out(&visitor.cookie);
    let origin = Origin {
        provider: waiting.provider,
        id_token,
    };
    let cookie = studio.sessions.sign_in(signed_in.key.key, Some(origin));
    let mut response = see_other(&waiting.next);
    gate::set_cookie(&mut response, &cookie, Some(SESSION_LIFETIME.as_secs()));
    response
}

/// After the studio's session ended: the key a provider's sign-in made revoked, and the
/// provider's own sign-out offered where it has one.
pub(crate) async fn signed_out(
    studio: &Studio,
    visitor: &Visitor,
    origin: Option<Origin>,
    headers: &HeaderMap,
) -> Option<(String, String)> {
    let origin = origin?;
    let app = studio.server.app();
    if let Some(caller) = &visitor.caller
        && let Ok(permit) = app.may(caller, Operation::ManageOwnKeys)
        && let Err(error) = app.revoke_own_key(&permit, None).await
    {
        tracing::warn!("a signed-out session's key is still valid until it expires: {error}");
    }
    let sign_ins = studio.sign_ins.as_ref()?;
    let provider = sign_ins.providers.get(origin.provider)?;
    let after = format!("{}/login", sign_ins.base(headers));
    let url = provider.end_session_url(&origin.id_token, &after).await?;
    Some((
        format!("Sign out of {} too", provider.config().display_name),
        url,
    ))
}

/// A refusal of the device login's JSON API: `error` as OAuth names it, and what to do.
fn device_error(status: StatusCode, error: &str, message: String) -> Response {
    (status, Json(json!({"error": error, "message": message}))).into_response()
}

#[derive(Deserialize)]
pub(crate) struct DeviceStart {
    provider: Option<String>,
}

/// A device login begun with the first provider that has the grant (or the one `asked`),
/// with that provider's short name; else the refusal, as an answer.
async fn begin_device(
    studio: &Studio,
    headers: &HeaderMap,
    asked: Option<&str>,
) -> Result<(String, String, DeviceLogin), Response> {
    let Some(sign_ins) = studio.sign_ins.clone() else {
        return Err(device_error(
            StatusCode::NOT_FOUND,
            "no_provider",
            "this server signs in with API keys only: ask its administrator for one, and store it with `skillpath login --token-file`".to_owned(),
        ));
    };
    let keys_page = format!("{}/settings/keys", sign_ins.base(headers));
    for provider in &sign_ins.providers {
        let config = provider.config();
        if asked.is_some_and(|id| id != config.id) {
            continue;
        }
        match provider.device_login().await {
            Ok(Some(device)) => {
                return Ok((config.id.clone(), config.display_name.clone(), device));
            }
            Ok(None) => {}
            Err(error) => {
                return Err(device_error(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "provider_unavailable",
                    error.to_string(),
                ));
            }
        }
    }
    Err(device_error(
        StatusCode::NOT_FOUND,
        "no_device_grant",
        format!(
            "this server's identity provider has no device login: sign in at {keys_page}, create a key there, and store it with `skillpath login --token-file`"
        ),
    ))
}

/// Polls the device login of `device_code` at `provider` for up to [`DEVICE_POLL_WAIT`]: once
/// approved, the person signed in with a new key of theirs; else the refusal, as an answer
/// (`400 authorization_pending` while not approved, `400 expired_token`, `403 access_denied`).
async fn poll_device(
    studio: &Studio,
    provider: &str,
    device_code: &str,
    interval: u64,
) -> Result<SignedIn, Response> {
    let Some(sign_ins) = studio.sign_ins.clone() else {
        return Err(device_error(
            StatusCode::NOT_FOUND,
            "no_provider",
            "this server has no identity provider".to_owned(),
        ));
    };
    let Some((_, provider)) = sign_ins.provider(provider) else {
        return Err(device_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            format!("this server has no identity provider named `{provider}`"),
        ));
    };
    let interval = Duration::from_secs(interval.clamp(1, 60));
    let identity = match provider
        .poll_device(device_code, interval, DEVICE_POLL_WAIT)
        .await
    {
        Ok(DevicePoll::Approved(identity)) => identity,
        Ok(DevicePoll::Pending) => {
            return Err(device_error(
                StatusCode::BAD_REQUEST,
                "authorization_pending",
                "not approved yet".to_owned(),
            ));
        }
        Err(IdentityError::Expired) => {
            return Err(device_error(
                StatusCode::BAD_REQUEST,
                "expired_token",
                "the code expired before it was approved: sign in again".to_owned(),
            ));
        }
        Err(error) => {
            return Err(device_error(
                StatusCode::FORBIDDEN,
                "access_denied",
                error.to_string(),
            ));
        }
    };
    let key_use = KeyUse::Cli {
        lifetime_secs: sign_ins.cli_key_lifetime.as_secs(),
    };
    studio
        .server
        .app()
        .sign_in(account(provider, identity), &sign_ins.rules, key_use)
        .await
        .map_err(|error| device_error(StatusCode::FORBIDDEN, "access_denied", error.to_string()))
}

/// `POST /login/device`: a device login begun with the first provider that has the grant (or
/// the one named): the code the person types, and where.
pub(crate) async fn device_begin(
    State(studio): State<Studio>,
    headers: HeaderMap,
    body: Option<Json<DeviceStart>>,
) -> Response {
    let asked = body.and_then(|Json(start)| start.provider);
    match begin_device(&studio, &headers, asked.as_deref()).await {
        Ok((provider, provider_name, device)) => Json(json!({
            "provider": provider,
            "provider_name": provider_name,
            "device_code": device.device_code,
            "user_code": device.user_code,
            "verification_uri": device.verification_uri,
            "verification_uri_complete": device.verification_uri_complete,
            "expires_in": device.expires_in,
            "interval": device.interval,
        }))
        .into_response(),
        Err(refused) => refused,
    }
}

#[derive(Deserialize)]
pub(crate) struct DeviceToken {
    provider: String,
    device_code: String,
    #[serde(default)]
    interval: u64,
}

/// `POST /login/device/token`: waits up to [`DEVICE_POLL_WAIT`] for the person's approval;
/// then a new key of theirs (`400 authorization_pending` meanwhile).
pub(crate) async fn device_token(
    State(studio): State<Studio>,
    Json(asked): Json<DeviceToken>,
) -> Response {
    match poll_device(&studio, &asked.provider, &asked.device_code, asked.interval).await {
        Ok(signed_in) => Json(json!({
            "key": signed_in.key.key,
            "name": signed_in.key.info.name,
            "user": signed_in.handle,
            "expires_at": signed_in.key.info.expires_at,
        }))
        .into_response(),
        Err(refused) => refused,
    }
}

/// `POST /api/cli/device/code`: the device login of the `clawhub` CLI (`clawhub login`), in
/// its shapes. Its device code carries the provider and its interval (`<provider>:<interval>:
/// <code>`), since the CLI sends back the code alone; its `verification_uri` is the address
/// that holds the code where the provider gives one, since the CLI prints only that.
pub(crate) async fn clawhub_device_begin(
    State(studio): State<Studio>,
    headers: HeaderMap,
) -> Response {
    match begin_device(&studio, &headers, None).await {
        Ok((provider, _, device)) => Json(json!({
            "device_code": format!("{provider}:{}:{}", device.interval, device.device_code),
            "user_code": device.user_code,
            "verification_uri": device
                .verification_uri_complete
                .unwrap_or(device.verification_uri),
            "expires_in": device.expires_in,
            "interval": device.interval,
        }))
        .into_response(),
        Err(refused) => refused,
    }
}

#[derive(Deserialize)]
pub(crate) struct ClawhubDeviceToken {
    device_code: String,
}

/// `POST /api/cli/device/token`: [`device_token`] for the `clawhub` CLI: the key as its
/// `access_token`.
pub(crate) async fn clawhub_device_token(
    State(studio): State<Studio>,
    Json(asked): Json<ClawhubDeviceToken>,
) -> Response {
    let mut parts = asked.device_code.splitn(3, ':');
    let (Some(provider), Some(interval), Some(code)) = (parts.next(), parts.next(), parts.next())
    else {
        return device_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "this is not a device code this server gave".to_owned(),
        );
    };
    let interval = interval.parse().unwrap_or(5);
    match poll_device(&studio, provider, code, interval).await {
        Ok(signed_in) => Json(json!({
            "access_token": signed_in.key.key,
            "token_type": "Bearer",
            "scope": "read write",
        }))
        .into_response(),
        Err(refused) => refused,
    }
}

/// `POST /logout/key`: the key presented (`Authorization: Bearer`) revoked, for `skillpath
/// logout`.
pub(crate) async fn revoke_presented(State(studio): State<Studio>, headers: HeaderMap) -> Response {
    let presented = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .unwrap_or_default()
        .trim()
        .to_owned();
    let app = studio.server.app();
    let caller = match app.authenticate(&presented).await {
        Ok(caller) => caller,
        Err(error) => {
            return device_error(StatusCode::UNAUTHORIZED, "invalid_token", error.to_string());
        }
    };
    let revoked = match app.may(&caller, Operation::ManageOwnKeys) {
        Ok(permit) => app.revoke_own_key(&permit, None).await,
        Err(error) => Err(error),
    };
    match revoked {
        Ok(key) => Json(json!({"revoked": key.name})).into_response(),
        Err(error) => device_error(StatusCode::FORBIDDEN, "access_denied", error.to_string()),
    }
}

/// The routes of the device login and of `skillpath logout`: JSON for a command line, outside
/// the pages' gate (no cookie, no CSRF token: nothing here acts on a browser's session).
pub(crate) fn api(studio: Studio) -> axum::Router {
    use axum::routing::post;
    axum::Router::new()
        .route("/login/device", post(device_begin))
        .route("/login/device/token", post(device_token))
        .route("/logout/key", post(revoke_presented))
        .route("/api/cli/device/code", post(clawhub_device_begin))
        .route("/api/cli/device/token", post(clawhub_device_token))
        .layer(axum::extract::DefaultBodyLimit::max(16 * 1024))
        .with_state(studio)
}
