//! Who is asking: API keys on HTTP, and what each role may do.
//!
//! The HTTP layer checks the `Authorization: Bearer sp_…` header of every request against the
//! store ([`skillpath_app::App::authenticate`]) before MCP sees it, and passes the key's name
//! and role on in the request's extensions, where the handler finds them ([`caller_of`]). A
//! request without a key is the local user's (stdio, or loopback HTTP when keys are optional),
//! who may do what an author may; key management over MCP needs an admin key. Who may do what
//! is the application's rule ([`skillpath_app::Operation`]).

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::RoleServer;
use rmcp::service::RequestContext;
use skillpath_store::keys::AuthError;

use crate::catalog::App;

pub use skillpath_app::{Caller, DraftsSeen};

/// Whether HTTP requests must carry an API key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyPolicy {
    /// Every request needs a valid key.
    Required,
    /// A request may come without a key (as the local user); one that has a key must have a
    /// valid one.
    Optional,
}

/// The caller of an MCP request: the key the HTTP layer accepted, else the local user.
pub(crate) fn caller_of(context: &RequestContext<RoleServer>) -> Caller {
    caller_in(&context.extensions)
}

/// The caller whose HTTP request's parts are in `extensions` (a request's or a
/// notification's: rmcp puts them in both), else the local user.
pub(crate) fn caller_in(extensions: &rmcp::model::Extensions) -> Caller {
    extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<Caller>())
        .cloned()
        .unwrap_or_else(Caller::local)
}

/// The state of the authentication layer.
#[derive(Clone)]
pub(crate) struct Gate {
    pub(crate) app: App,
    pub(crate) policy: KeyPolicy,
    /// Whether a request without a key reads the public items ([`Caller::public_reader`])
    /// where keys are required.
    pub(crate) public_read: bool,
}

/// Axum middleware: lets a request through with its [`Caller`], or answers 401. The key is
/// never logged or echoed.
pub(crate) async fn authenticate(
    State(gate): State<Gate>,
    mut request: Request,
    next: Next,
) -> Response {
    let Some(value) = request.headers().get(header::AUTHORIZATION) else {
        return match gate.policy {
            KeyPolicy::Optional => next.run(request).await,
            KeyPolicy::Required if gate.public_read => {
                request.extensions_mut().insert(Caller::public_reader());
                next.run(request).await
            }
            KeyPolicy::Required => unauthorized(
                None,
                "this server needs an API key: send `Authorization: Bearer sp_<id>_<secret>` (an admin creates keys with `skillpath keys create`)",
            ),
        };
    };
    let Some(presented) = bearer(value) else {
        return unauthorized(
            Some("invalid_request"),
            "the `Authorization` header must be `Bearer sp_<id>_<secret>` (the key `skillpath keys create` printed)",
        );
    };
    let presented = presented.to_owned();
    match gate.app.authenticate(&presented).await {
        Ok(caller) => {
            request.extensions_mut().insert(caller);
            let response = next.run(request).await;
            if is_event_stream(&response) {
                ends_with_key(response, gate.app, presented)
            } else {
                response
            }
        }
        Err(AuthError::Store(error)) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("cannot check the API key now: {error}\n"),
        )
            .into_response(),
        Err(error) => unauthorized(Some("invalid_token"), &error.to_string()),
    }
}

/// How often a stream opened with a key checks the key even when the store says nothing
/// changed: the bound on how long a stream outlives its key's expiry.
const KEY_RECHECK: std::time::Duration = std::time::Duration::from_secs(5);

/// Whether `response` is a stream of server-sent events (a session's notifications, or a
/// request's answers).
fn is_event_stream(response: &Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("text/event-stream"))
}

/// `response` with its stream ended as soon as the key `presented` stops working: it is
/// checked again after every change to the store (a revocation is one, on any server of the
/// database) and every [`KEY_RECHECK`] (an expiry comes with time). While the store cannot
/// be asked, the stream goes on.
fn ends_with_key(response: Response, app: App, presented: String) -> Response {
    let key_ends = async move {
        let mut changes = app.store().watch_changes();
        loop {
            let wait = tokio::time::sleep(KEY_RECHECK);
            match changes.as_mut() {
                Some(receiver) => tokio::select! {
                    signal = receiver.recv() => {
                        if matches!(signal, Err(tokio::sync::broadcast::error::RecvError::Closed)) {
                            changes = None;
                        }
                    }
                    () = wait => {}
                },
                None => wait.await,
            }
            match app.authenticate(&presented).await {
                Ok(_) | Err(AuthError::Store(_)) => {}
                Err(_) => return,
            }
        }
    };
    crate::body_until(response, key_ends)
}

/// The token of a `Bearer` authorization (the scheme is case-insensitive, RFC 7235).
fn bearer(value: &HeaderValue) -> Option<&str> {
    let text = value.to_str().ok()?;
    let (scheme, token) = text.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|token| !token.is_empty())
}

/// 401 with the `WWW-Authenticate` challenge of RFC 6750 and the reason as text. The
/// challenge's `error_description` may hold only printable ASCII without `"` and `\\`
/// (RFC 6750 §3); a reason that quotes what the client sent (a key with other characters)
/// has those replaced, and the body keeps the reason as it is.
fn unauthorized(error: Option<&str>, message: &str) -> Response {
    let quoted: String = message
        .chars()
        .map(|c| match c {
            '"' | '\\' => '\'',
            ' '..='~' => c,
            _ => '?',
        })
        .collect();
    let challenge = match error {
        Some(error) => {
            format!("Bearer realm=\"skillpath\", error=\"{error}\", error_description=\"{quoted}\"")
        }
        None => "Bearer realm=\"skillpath\"".to_owned(),
    };
    let mut response = (StatusCode::UNAUTHORIZED, format!("{message}\n")).into_response();
    if let Ok(challenge) = HeaderValue::from_str(&challenge) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, challenge);
    }
    response
}
