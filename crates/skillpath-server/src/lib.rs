//! The skillpath MCP server: every stored skill as a tool (or, for large catalogs, behind
//! `search_skills` and `load_skill`), the authoring tools that create and change skills, skills
//! and their files as resources, skills as prompts, and `list_changed` notifications whenever
//! the catalog changes.
//!
//! Start with [`SkillServer`]. It holds the application layer ([`skillpath_app::App`]: the
//! store, the catalog, the rules and the operations); a built-in tool converts its arguments
//! to an operation's and the operation's typed answer to MCP, and every write reloads the
//! catalog and tells the clients. Only this crate knows MCP types; rendering and validation are
//! core's, the rules the application's, storage the store's.

mod architecture_tools;
mod arguments;
mod auth;
mod authoring;
mod builtin;
pub mod catalog;
mod catalog_tools;
mod client_log;
#[cfg(feature = "conformance-fixtures")]
mod conformance;
pub mod direct;
mod elicit_state;
pub mod elicitation;
#[cfg(feature = "conformance-fixtures")]
mod fixtures;
pub mod folders;
mod handler;
mod key_tools;
mod lists;
mod notifications;
mod pagination;
mod release_tools;
mod resources;
mod review_tools;
mod schemas;
mod sessions;
pub mod skill_entry;
mod state;
mod to_mcp;
mod tool_error;
mod uri;
mod usage;
mod well_known;

pub use auth::{Caller, DraftsSeen, KeyPolicy};
pub use elicit_state::{DEFAULT_ELICIT_TIMEOUT, ElicitMode, MIN_STATE_KEY_BYTES};
pub use skillpath_app::DEFAULT_CONTENT_CACHE_BYTES;
pub use skillpath_app::Meaning;
pub use state::{DEFAULT_SYNC_WAIT, DEFAULT_TOOL_THRESHOLD, ServerOptions, SkillServer, ToolsMode};
pub use tool_error::app_error;

/// How long a stdio server, once asked to stop, goes on reading requests already sent.
const STDIO_SETTLE: std::time::Duration = std::time::Duration::from_millis(100);

/// Serves `server` over stdin/stdout until the client disconnects, or until `shutdown`
/// completes: then no more tool calls are taken and the ones in flight get up to `drain` to be
/// answered before the server ends. Logs must go to stderr.
pub async fn serve_stdio(
    server: SkillServer,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    drain: std::time::Duration,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    #[cfg(feature = "conformance-fixtures")]
    if server.options().conformance_fixtures {
        let handler = conformance::WithFixtures(server.clone());
        return stdio_until(handler, &server, shutdown, drain).await;
    }
    stdio_until(server.clone(), &server, shutdown, drain).await
}

/// [`serve_stdio`] with `handler` answering the requests of `server`'s one session.
async fn stdio_until(
    handler: impl rmcp::ServerHandler,
    server: &SkillServer,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    drain: std::time::Duration,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    use rmcp::ServiceExt;
    let mut shutdown = std::pin::pin!(shutdown);
    let read = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let stdin = CountedStdin {
        stdin: tokio::io::stdin(),
        read: std::sync::Arc::clone(&read),
    };
    let mut handshake = std::pin::pin!(handler.serve((stdin, tokio::io::stdout())));
    let mut signalled = false;
    let running = tokio::select! {
        running = &mut handshake => running?,
        () = &mut shutdown => {
            // A signal during the handshake: it goes on while the client is still writing
            // (its calls may follow it), and the server ends, having taken no call, once the
            // client has stopped.
            signalled = true;
            server.begin_shutdown();
            tokio::select! {
                running = &mut handshake => running?,
                _ = tokio::time::timeout(drain, settled(server, &read)) => return Ok(()),
            }
        }
    };
    let stop = running.cancellation_token();
    let mut waiting = std::pin::pin!(running.waiting());
    if !signalled {
        tokio::select! {
            ended = &mut waiting => {
                ended?;
                return Ok(());
            }
            () = &mut shutdown => {}
        }
        server.begin_shutdown();
    }
    // Requests already written to stdin are read and answered too (a call refused as the
    // server is closing), within the drain time, so the client gets an answer to each one it
    // sent. Whether stdin is still open does not matter: agents signal a server without
    // closing it.
    let _ = tokio::time::timeout(drain, settled(server, &read)).await;
    stop.cancel();
    let _ = tokio::time::timeout(std::time::Duration::from_secs(1), waiting).await;
    Ok(())
}

/// Completes once a stdio client has stopped writing and is answered: nothing written to
/// stdin is left unread, no tool call is in flight, and for [`STDIO_SETTLE`] neither a byte
/// (`read`, what [`CountedStdin`] counted) nor a call came.
async fn settled(server: &SkillServer, read: &std::sync::atomic::AtomicU64) {
    let activity = || {
        (
            server.calls_started(),
            read.load(std::sync::atomic::Ordering::SeqCst),
        )
    };
    loop {
        let seen = activity();
        tokio::time::sleep(STDIO_SETTLE).await;
        server.drained().await;
        if activity() == seen && stdin_unread() == 0 {
            return;
        }
    }
}

/// The server's stdin, counting the bytes it hands on, so that a stopping server can tell
/// whether requests are still coming in ([`stdio_until`]).
struct CountedStdin {
    stdin: tokio::io::Stdin,
    read: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl tokio::io::AsyncRead for CountedStdin {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        context: &mut std::task::Context<'_>,
        buffer: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let before = buffer.filled().len();
        let polled = std::pin::Pin::new(&mut self.stdin).poll_read(context, buffer);
        let added = buffer.filled().len().saturating_sub(before);
        self.read
            .fetch_add(added as u64, std::sync::atomic::Ordering::SeqCst);
        polled
    }
}

/// How many bytes written to the server's stdin it has not read yet (none where the system
/// cannot tell).
fn stdin_unread() -> u64 {
    #[cfg(unix)]
    {
        rustix::io::ioctl_fionread(std::io::stdin()).unwrap_or(0)
    }
    #[cfg(not(unix))]
    {
        0
    }
}

/// Largest HTTP request body accepted (a skill with its templates fits many times over).
pub const MAX_REQUEST_BODY: usize = 16 * 1024 * 1024;

/// Refuses (413) a request whose `Content-Length` announces a body over [`MAX_REQUEST_BODY`],
/// before reading any of it. rmcp counts a body's bytes as they arrive, so without this a client
/// that announces a huge body and then sends nothing (or sends it slowly) keeps the request open
/// until it gives up.
/// The routes whose bodies bound themselves (`Registry::large_bodies`) are let through to their
/// own limits.
async fn refuse_announced_oversize(
    axum::extract::State(large_bodies): axum::extract::State<std::sync::Arc<Vec<String>>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let announced = announced_body_length(request.headers());
    let bounded_by_route = large_bodies
        .iter()
        .any(|path| request.uri().path() == path.as_str());
    if !bounded_by_route && announced.is_some_and(|length| length > MAX_REQUEST_BODY as u64) {
        return payload_too_large();
    }
    next.run(request).await
}

/// `413 Payload Too Large`, as rmcp words it, for a body over [`MAX_REQUEST_BODY`].
fn payload_too_large() -> axum::response::Response {
    use axum::response::IntoResponse;
    (
        axum::http::StatusCode::PAYLOAD_TOO_LARGE,
        format!("Payload Too Large: request body exceeds {MAX_REQUEST_BODY} bytes"),
    )
        .into_response()
}

/// Answers a JSON body that is not JSON (a syntax error, a cut-off text, or nesting deeper
/// than the parser's 128 levels) with `400 Bad Request` and the JSON-RPC parse error (`-32700`,
/// no id: none can be read), as JSON-RPC and MCP's HTTP transport say; rmcp answers every body
/// it cannot read with `415 Unsupported Media Type`. A body of the wrong shape (JSON, but no
/// JSON-RPC message) and one of another media type go on to rmcp, which refuses them itself.
async fn parse_errors_are_json_rpc(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let json = request
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            let essence = value.split(';').next().unwrap_or_default();
            essence.trim().eq_ignore_ascii_case("application/json")
        });
    // Only MCP speaks JSON-RPC; the registry protocol answers its own bodies.
    if request.method() != axum::http::Method::POST || !json || request.uri().path() != "/mcp" {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_REQUEST_BODY).await else {
        return payload_too_large();
    };
    // Into a tree, as rmcp reads it: `IgnoredAny` skips nesting without counting it.
    if let Err(error) = serde_json::from_slice::<serde_json::Value>(&bytes)
        && matches!(
            error.classify(),
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof
        )
    {
        let answer = serde_json::json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": {"code": -32700, "message": format!("Parse error: {error}")},
        });
        return (
            axum::http::StatusCode::BAD_REQUEST,
            [(axum::http::header::CONTENT_TYPE, "application/json")],
            answer.to_string(),
        )
            .into_response();
    }
    next.run(axum::extract::Request::from_parts(
        parts,
        axum::body::Body::from(bytes),
    ))
    .await
}

/// The length a request's `Content-Length` announces for its body, if it gives one that reads.
pub fn announced_body_length(headers: &axum::http::HeaderMap) -> Option<u64> {
    headers
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().parse::<u64>().ok())
}

/// Answers a session's end (`DELETE /mcp`) with `200 OK` where rmcp answers `202 Accepted`:
/// the session is ended by then, not merely accepted for ending, and the official Python SDK
/// takes only 200, 204 or 405 (it logs "Session termination failed: 202" on every close).
async fn session_end_is_ok(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let deleting = request.method() == axum::http::Method::DELETE;
    let mut response = next.run(request).await;
    if deleting && response.status() == axum::http::StatusCode::ACCEPTED {
        *response.status_mut() = axum::http::StatusCode::OK;
    }
    response
}

/// How the HTTP server runs: which `Host` and `Origin` values it accepts (DNS-rebinding
/// protection), whether it keeps sessions, and whether requests need API keys.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Accepted `Host` header values (host names, with or without a port).
    pub allowed_hosts: Vec<String>,
    /// Accepted `Origin` values (`http://host:*` allows any port).
    pub allowed_origins: Vec<String>,
    /// Keep no sessions in the 2025-11-25 era either, so that any request can go to any
    /// replica behind a load balancer (the 2026-07-28 era never has sessions). Clients then
    /// get no server-initiated notifications in that era.
    pub stateless: bool,
    /// Whether every request needs an API key. Required whenever the server can be reached
    /// from other hosts.
    pub keys: KeyPolicy,
    /// Where keys are required: whether a request without one may read the public items, as
    /// a reader with no namespace (`serve --public-read`).
    pub public_read: bool,
    /// Bounds on connections and sessions.
    pub limits: HttpLimits,
    /// How long a shutdown waits for the requests in flight to be answered.
    pub drain: std::time::Duration,
    /// Routes served beside `/mcp` (the studio's pages), which check who is asking
    /// themselves: the API-key check of `/mcp` does not apply to them.
    pub pages: Option<axum::Router>,
    /// The registry protocol's routes (the ClawHub HTTP API).
    pub registry: Option<Registry>,
}

/// The routes of a registry protocol served beside `/mcp`.
#[derive(Debug, Clone)]
pub struct Registry {
    /// Those behind the API-key check of `/mcp`, each request with its [`skillpath_app::Caller`].
    pub keyed: axum::Router,
    /// Those anyone may ask (what a client reads before it has a key: where the API is).
    pub open: axum::Router,
    /// The paths of routes that bound their bodies themselves, above [`MAX_REQUEST_BODY`] (a
    /// version published in one request).
    pub large_bodies: Vec<String>,
}

/// Bounds on what HTTP clients can hold, so that slow, idle or hostile clients cannot take
/// the server's descriptors, memory or attention from the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpLimits {
    /// How long a connection may take to send a request's headers, and how long a kept-alive
    /// connection may stay idle between requests; then it is closed.
    pub header_timeout: std::time::Duration,
    /// The most connections served at once; more wait to be accepted until one closes.
    pub max_connections: usize,
    /// The most sessions (2025-11-25 era) kept at once; an `initialize` past it is refused.
    pub max_sessions: usize,
    /// How long a session may go without a request before it ends.
    pub session_idle: std::time::Duration,
}

impl Default for HttpLimits {
    /// 10 s for headers, 1,024 connections, 1,000 sessions, each ending after 5 idle minutes.
    fn default() -> Self {
        HttpLimits {
            header_timeout: std::time::Duration::from_secs(10),
            max_connections: 1024,
            max_sessions: 1000,
            session_idle: std::time::Duration::from_secs(300),
        }
    }
}

impl Default for HttpOptions {
    /// Loopback only, with sessions, API keys optional.
    fn default() -> Self {
        HttpOptions {
            allowed_hosts: ["localhost", "127.0.0.1", "::1"].map(String::from).to_vec(),
            allowed_origins: ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"]
                .map(String::from)
                .to_vec(),
            stateless: false,
            keys: KeyPolicy::Optional,
            public_read: false,
            limits: HttpLimits::default(),
            drain: DEFAULT_DRAIN,
            pages: None,
            registry: None,
        }
    }
}

/// Serves `server` over Streamable HTTP at `/mcp` (and `/healthz`) on `listener` until
/// `shutdown` completes. Requests whose `Host` or `Origin` is not in `options` are refused (403);
/// bodies over [`MAX_REQUEST_BODY`] are refused (413; on the `Content-Length` header alone when
/// it announces one); requests to `/mcp` without a valid API key
/// where one is needed, or with an invalid one anywhere, are refused (401).
pub async fn serve_http(
    server: SkillServer,
    listener: tokio::net::TcpListener,
    options: HttpOptions,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;

    let cancel = tokio_util::sync::CancellationToken::new();
    let config = StreamableHttpServerConfig::default()
        .with_cancellation_token(cancel.child_token())
        .with_allowed_hosts(options.allowed_hosts)
        .with_allowed_origins(options.allowed_origins)
        .with_legacy_session_mode(!options.stateless)
        .enforce_origin_validation()
        .with_max_request_body_bytes(MAX_REQUEST_BODY);
    let gate = auth::Gate {
        app: server.app().clone(),
        policy: options.keys,
        public_read: options.public_read,
    };
    let closing = server.closing();
    let draining = server.clone();
    let ready_server = server.clone();
    let ending = server.clone();
    let sessions: std::sync::Arc<_> =
        sessions::BoundedSessions::new(options.limits.max_sessions, options.limits.session_idle)
            .into();
    let (keyed, open, large_bodies) = match options.registry {
        Some(Registry {
            keyed,
            open,
            large_bodies,
        }) => (keyed, Some(open), large_bodies),
        None => (axum::Router::new(), None, Vec::new()),
    };
    let mcp = axum::Router::new()
        .merge(well_known::routes(server.clone()))
        .merge(keyed);
    let mcp = with_mcp(mcp, server, sessions, config);
    // The studio's pages refuse an oversized form themselves, with a page that says so.
    let mcp = mcp
        .layer(axum::middleware::from_fn(sessions::full_is_unavailable))
        .layer(axum::middleware::from_fn(parse_errors_are_json_rpc))
        .layer(axum::middleware::from_fn_with_state(
            gate,
            auth::authenticate,
        ))
        .layer(axum::middleware::from_fn_with_state(
            std::sync::Arc::new(large_bodies),
            refuse_announced_oversize,
        ));
    let mcp = match options.pages {
        Some(pages) => mcp.merge(pages),
        None => mcp,
    };
    let mcp = match open {
        Some(open) => mcp.merge(open),
        None => mcp,
    };
    let router = mcp
        .layer(axum::middleware::from_fn(session_end_is_ok))
        .layer(axum::middleware::from_fn_with_state(
            closing.clone(),
            refuse_when_closing,
        ))
        .route("/healthz", axum::routing::get(|| async { "ok" }))
        .route(
            "/readyz",
            axum::routing::get(move || async move { readiness(&ready_server).await }),
        );
    let drain = options.drain;
    let stopping = async move {
        shutdown.await;
        draining.begin_shutdown();
    };
    let answered = async move {
        // Once every tool call is answered (and a moment for the reads still on their way),
        // rmcp's sessions end, and with them every stream still open (a 2026-era
        // `subscriptions/listen` among them), so the connections can close.
        ending.drained().await;
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        cancel.cancel();
    };
    accept(listener, router, options.limits, stopping, answered, drain).await;
    Ok(())
}

/// `router` with `/mcp`: a session of `server` for each client (with the conformance suite's
/// fixtures when the server was asked for them), kept in `sessions`.
fn with_mcp(
    router: axum::Router,
    server: SkillServer,
    sessions: std::sync::Arc<sessions::BoundedSessions>,
    config: rmcp::transport::streamable_http_server::StreamableHttpServerConfig,
) -> axum::Router {
    use rmcp::transport::streamable_http_server::StreamableHttpService;
    #[cfg(feature = "conformance-fixtures")]
    if server.options().conformance_fixtures {
        let session = move || Ok(conformance::WithFixtures(server.for_session()));
        return router.nest_service(
            "/mcp",
            StreamableHttpService::new(session, sessions, config),
        );
    }
    let session = move || Ok(server.for_session());
    router.nest_service(
        "/mcp",
        StreamableHttpService::new(session, sessions, config),
    )
}

/// How long a readiness check waits for the database.
const READY_DEADLINE: std::time::Duration = std::time::Duration::from_secs(2);

/// `GET /readyz`: `200` with what was checked when the server can serve (the store answers
/// within [`READY_DEADLINE`], the folder sync works, it is not shutting down), `503` with what
/// is wrong otherwise. `/healthz` stays a liveness check that asks nothing.
async fn readiness(server: &SkillServer) -> axum::response::Response {
    use axum::response::IntoResponse;
    let (status, report) = if server.closing().is_cancelled() {
        (
            axum::http::StatusCode::SERVICE_UNAVAILABLE,
            serde_json::json!({"ready": false, "shutting_down": true}),
        )
    } else {
        match server.readiness(READY_DEADLINE).await {
            Ok(report) => (axum::http::StatusCode::OK, report),
            Err(report) => (axum::http::StatusCode::SERVICE_UNAVAILABLE, report),
        }
    };
    (
        status,
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        format!("{report}\n"),
    )
        .into_response()
}

/// How long a shutdown waits for the requests in flight, unless told otherwise.
pub const DEFAULT_DRAIN: std::time::Duration = std::time::Duration::from_secs(5);

/// Once the server is closing, answers a new request with `503 Service Unavailable` (a load
/// balancer retries it on another replica), and ends a stream of notifications (`GET /mcp`)
/// so that its connection can close; the requests in flight go on to their answers.
async fn refuse_when_closing(
    axum::extract::State(closing): axum::extract::State<tokio_util::sync::CancellationToken>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    if closing.is_cancelled() {
        return (
            axum::http::StatusCode::SERVICE_UNAVAILABLE,
            [(axum::http::header::CONNECTION, "close")],
            "the server is shutting down\n",
        )
            .into_response();
    }
    let notifications = request.method() == axum::http::Method::GET;
    let response = next.run(request).await;
    if !notifications {
        return response;
    }
    body_until(response, closing.cancelled_owned())
}

/// `response` with its body cut off when `end` completes (a stream of server-sent events that
/// must not outlive a shutdown or its API key); the body as it was until then.
pub(crate) fn body_until(
    response: axum::response::Response,
    end: impl std::future::Future<Output = ()> + Send + 'static,
) -> axum::response::Response {
    use futures_util::StreamExt as _;
    let (parts, body) = response.into_parts();
    let stream = body.into_data_stream().take_until(Box::pin(end));
    axum::response::Response::from_parts(parts, axum::body::Body::from_stream(stream))
}

/// Serves each connection `listener` accepts with `router` (HTTP/1.1), at most
/// `limits.max_connections` at once, each closed when its headers take longer than
/// `limits.header_timeout`, until `shutdown` completes; then stops accepting and waits up to
/// `drain` for the open connections to finish what they are answering (`answered` ends the
/// streams that would keep them open).
async fn accept(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    limits: HttpLimits,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    answered: impl std::future::Future<Output = ()> + Send + 'static,
    drain: std::time::Duration,
) {
    use hyper_util::rt::{TokioIo, TokioTimer};
    use hyper_util::service::TowerToHyperService;

    let slots = std::sync::Arc::new(tokio::sync::Semaphore::new(limits.max_connections.max(1)));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    let serve = |stream: tokio::net::TcpStream, slot: Option<tokio::sync::OwnedSemaphorePermit>| {
        // Without TCP_NODELAY, a response written in two parts (headers, then the SSE event
        // with the result) waits for the client's delayed ACK of the first: about 40 ms per
        // request on a kept-alive connection.
        let _ = stream.set_nodelay(true);
        // Each request carries the client's address (`ConnectInfo`), which the registry's
        // rate limits count anonymous requests by.
        let peer = stream.peer_addr().ok();
        let service = tower::ServiceExt::map_request(
            router.clone(),
            move |mut request: hyper::Request<hyper::body::Incoming>| {
                if let Some(peer) = peer {
                    request
                        .extensions_mut()
                        .insert(axum::extract::ConnectInfo(peer));
                }
                request
            },
        );
        let connection =
            builder.serve_connection(TokioIo::new(stream), TowerToHyperService::new(service));
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            let _ = connection.await;
            drop(slot);
        });
    };
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let slot = tokio::select! {
            slot = std::sync::Arc::clone(&slots).acquire_owned() => slot,
            () = &mut shutdown => break,
        };
        let Ok(slot) = slot else { break }; // the semaphore is never closed
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
        };
        match accepted {
            Ok((stream, _)) => serve(stream, Some(slot)),
            Err(error) => {
                // Out of descriptors, or a connection reset before it was accepted: wait a
                // moment rather than spin, and go on.
                tracing::warn!("accepting a connection failed: {error}");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
        }
    }
    // Clients that connected before the signal are answered (503, by `refuse_when_closing`)
    // rather than reset with the listening socket: the queue is served until it stays empty
    // for a moment, within the drain time.
    let queued = async {
        while let Ok(Ok((stream, _))) =
            tokio::time::timeout(std::time::Duration::from_millis(50), listener.accept()).await
        {
            serve(stream, None);
        }
    };
    let started = std::time::Instant::now();
    let _ = tokio::time::timeout(drain, queued).await;
    drop(listener);
    let left = drain.saturating_sub(started.elapsed());
    let _ = tokio::time::timeout(left, async {
        tokio::join!(answered, graceful.shutdown());
    })
    .await;
}

/// Raises this process's soft limit on open files to its hard limit, so that a server with many
/// clients does not run out of descriptors at the soft limit of 1,024 most systems start with.
/// The limit reached, as `(soft, hard)`, or `None` where it cannot be read.
pub fn raise_open_file_limit() -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
        let limit = getrlimit(Resource::Nofile);
        let raised = Rlimit {
            current: limit.maximum,
            maximum: limit.maximum,
        };
        let now = if limit.current != limit.maximum && setrlimit(Resource::Nofile, raised).is_ok() {
            raised
        } else {
            limit
        };
        // `None` is unlimited.
        Some((
            now.current.unwrap_or(u64::MAX),
            now.maximum.unwrap_or(u64::MAX),
        ))
    }
    #[cfg(not(unix))]
    {
        None
    }
}
