//! Sessions of the 2025-11-25 era, bounded in number: rmcp's in-memory session manager, which
//! refuses a new session while [`HttpLimits::max_sessions`](crate::HttpLimits) are open (an
//! `initialize` answered `503 Service Unavailable` with `Retry-After`, [`full_is_unavailable`]).
//! A session ends when its client ends it or after its idle time, and then frees its place.

use std::cell::Cell;

use futures_core::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::common::server_side_http::ServerSseMessage;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{SessionId, SessionManager};

/// How long a client refused a session is asked to wait before it tries again: sessions end
/// as their clients end them, or after `--session-idle`.
pub(crate) const FULL_RETRY_AFTER_SECS: u64 = 10;

tokio::task_local! {
    /// The limit of open sessions, once [`BoundedSessions::create_session`] refused a session
    /// to the request being answered; read by [`full_is_unavailable`].
    static REFUSED_AT: Cell<Option<usize>>;
}

/// Axum middleware in front of rmcp's `/mcp`: an `initialize` refused because the sessions are
/// at their limit is answered `503 Service Unavailable` with `Retry-After` and the reason as a
/// JSON-RPC error, where rmcp answers every session it could not create with `500`: it is no
/// fault of the server's, and a client (or a load balancer) may try again later.
pub(crate) async fn full_is_unavailable(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let (response, refused_at) = REFUSED_AT
        .scope(Cell::new(None), async {
            let response = next.run(request).await;
            (response, REFUSED_AT.with(Cell::get))
        })
        .await;
    let Some(max) = refused_at else {
        return response;
    };
    let error = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": -32000, "message": SessionsError::Full(max).to_string()},
    });
    (
        axum::http::StatusCode::SERVICE_UNAVAILABLE,
        [
            (
                axum::http::header::RETRY_AFTER,
                FULL_RETRY_AFTER_SECS.to_string(),
            ),
            (
                axum::http::header::CONTENT_TYPE,
                "application/json".to_owned(),
            ),
        ],
        error.to_string(),
    )
        .into_response()
}

/// [`LocalSessionManager`] with at most `max` sessions.
pub(crate) struct BoundedSessions {
    inner: LocalSessionManager,
    max: usize,
}

impl BoundedSessions {
    /// Sessions that end after `idle` without a request, at most `max` at once.
    pub(crate) fn new(max: usize, idle: std::time::Duration) -> BoundedSessions {
        let mut inner = LocalSessionManager::default();
        inner.session_config.keep_alive = Some(idle);
        BoundedSessions { inner, max }
    }
}

/// Why a session operation failed.
#[derive(Debug)]
pub(crate) enum SessionsError {
    /// The limit of open sessions was reached.
    Full(usize),
    /// rmcp's session manager failed.
    Local(LocalSessionManagerError),
}

impl std::fmt::Display for SessionsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionsError::Full(max) => write!(
                f,
                "the server has {max} open sessions, its limit; end one, or wait for an idle one to expire"
            ),
            SessionsError::Local(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for SessionsError {}

impl SessionManager for BoundedSessions {
    type Error = SessionsError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        // Checked before creating: two `initialize` requests at the same moment may both pass,
        // so the bound holds within the number of requests in flight.
        if self.inner.sessions.read().await.len() >= self.max {
            // Outside a request's scope (none in this crate) there is no one to tell.
            let _ = REFUSED_AT.try_with(|refused| refused.set(Some(self.max)));
            return Err(SessionsError::Full(self.max));
        }
        self.inner
            .create_session()
            .await
            .map_err(SessionsError::Local)
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.inner
            .initialize_session(id, message)
            .await
            .map_err(SessionsError::Local)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.inner
            .has_session(id)
            .await
            .map_err(SessionsError::Local)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.inner
            .close_session(id)
            .await
            .map_err(SessionsError::Local)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner
            .create_stream(id, message)
            .await
            .map_err(SessionsError::Local)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.inner
            .accept_message(id, message)
            .await
            .map_err(SessionsError::Local)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner
            .create_standalone_stream(id)
            .await
            .map_err(SessionsError::Local)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.inner
            .resume(id, last_event_id)
            .await
            .map_err(SessionsError::Local)
    }
}
