//! Who is asking: API keys on HTTP, and what each role may do.
//!
//! The HTTP layer checks the `Authorization: Bearer sp_…` header of every request against the
//! store ([`skillpath_store::keys::authenticate`]) before MCP sees it, and passes the key's name
//! and role on in the request's extensions, where the handler finds them ([`Caller::of`]). A
//! request without a key is the local user's (stdio, or loopback HTTP when keys are optional),
//! who may do what an author may; key management over MCP needs an admin key.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::RoleServer;
use rmcp::service::RequestContext;
use skillpath_store::Store;
use skillpath_store::keys::{self, AuthError, Role};

/// Whether HTTP requests must carry an API key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyPolicy {
    /// Every request needs a valid key.
    Required,
    /// A request may come without a key (as the local user); one that has a key must have a
    /// valid one.
    Optional,
}

/// Who makes a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// The name of the API key the request came with; `None` for the local user.
    pub key: Option<String>,
    /// What the caller may do.
    pub role: Role,
}

impl Caller {
    /// The local user: stdio, or HTTP without a key where keys are optional.
    pub fn local() -> Caller {
        Caller {
            key: None,
            role: Role::Author,
        }
    }

    /// The caller of an MCP request: the key the HTTP layer accepted, else the local user.
    pub(crate) fn of(context: &RequestContext<RoleServer>) -> Caller {
        context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Caller>())
            .cloned()
            .unwrap_or_else(Caller::local)
    }

    /// The author recorded in the revisions this caller makes: the key's name, or `mcp`.
    pub(crate) fn author(&self) -> String {
        self.key.clone().unwrap_or_else(|| "mcp".to_owned())
    }

    /// Why this caller may not use something that needs `role`, or `None` when it may.
    pub(crate) fn refusal(&self, what: &str, role: Role) -> Option<String> {
        if self.role >= role {
            return None;
        }
        Some(match &self.key {
            Some(key) => format!(
                "{what} needs an API key with the `{role}` role; the key `{key}` is a `{}`",
                self.role
            ),
            None => format!(
                "{what} needs an API key with the `{role}` role (create one with `skillpath keys create --role {role}`)"
            ),
        })
    }
}

/// The state of the authentication layer.
#[derive(Clone)]
pub(crate) struct Gate {
    pub(crate) store: Arc<dyn Store>,
    pub(crate) policy: KeyPolicy,
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
            KeyPolicy::Required => unauthorized(
                None,
                "this server needs an API key: send `Authorization: Bearer sp_…` (an admin creates keys with `skillpath keys create`)",
            ),
        };
    };
    let Some(presented) = bearer(value) else {
        return unauthorized(
            Some("invalid_request"),
            "the `Authorization` header must be `Bearer sp_…`",
        );
    };
    match keys::authenticate(gate.store.as_ref(), presented).await {
        Ok(info) => {
            request.extensions_mut().insert(Caller {
                key: Some(info.name),
                role: info.role,
            });
            next.run(request).await
        }
        Err(AuthError::Store(error)) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("cannot check the API key now: {error}\n"),
        )
            .into_response(),
        Err(error) => unauthorized(Some("invalid_token"), &error.to_string()),
    }
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

/// 401 with the `WWW-Authenticate` challenge of RFC 6750 and the reason as text.
fn unauthorized(error: Option<&str>, message: &str) -> Response {
    let quoted = message.replace(['"', '\\'], "'");
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
