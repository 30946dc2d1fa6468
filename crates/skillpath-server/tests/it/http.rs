//! Serving over HTTP, safely: the health route, `Host` and `Origin` allow lists, the body
//! limit, and sessions or none, against [`skillpath_server::serve_http`] in the test's process.
//! Raw HTTP/1.1 over TCP. (API keys: the binary's `api_keys.rs`.)

use std::path::Path;
use std::sync::Arc;

use skillpath_server::{HttpOptions, ServerOptions, SkillServer};
use skillpath_store::{SqliteStore, Store};
use skillpath_test_support::http::{exchange, status};

/// A server over a new store in a test's folder, served over HTTP with some options on a free
/// loopback port; it stops with the test.
struct HttpServer {
    address: String,
    _runtime: tokio::runtime::Runtime,
}

impl HttpServer {
    /// Serves a new store in `work` with the default HTTP options changed by `configure`.
    fn start(work: &Path, configure: impl FnOnce(&mut HttpOptions)) -> HttpServer {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime");
        let mut options = HttpOptions::default();
        configure(&mut options);
        let address = runtime.block_on(async {
            let store: Arc<dyn Store> =
                Arc::new(SqliteStore::open(&work.join("store.db")).expect("a store"));
            let server = SkillServer::new(store, ServerOptions::default())
                .await
                .expect("a server");
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("a loopback port");
            let address = listener.local_addr().expect("its address").to_string();
            let serving =
                skillpath_server::serve_http(server, listener, options, std::future::pending());
            tokio::spawn(serving);
            address
        });
        HttpServer {
            address,
            _runtime: runtime,
        }
    }

    fn exchange(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> String {
        exchange(&self.address, method, path, headers, body)
    }

    fn status(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> u16 {
        status(&self.exchange(method, path, headers, body))
    }
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
const MCP_HEADERS: [(&str, &str); 2] = [
    ("Content-Type", "application/json"),
    ("Accept", "application/json, text/event-stream"),
];

#[test]
fn http_accepts_loopback_refuses_foreign_hosts_origins_and_huge_bodies() {
    let work = tempfile::tempdir().expect("tempdir");
    let server = HttpServer::start(work.path(), |_| {});
    assert_eq!(server.status("GET", "/healthz", &[], b""), 200);
    assert_eq!(
        server.status("POST", "/mcp", &MCP_HEADERS, INITIALIZE.as_bytes()),
        200
    );
    let with = |extra: (&'static str, &'static str)| [MCP_HEADERS[0], MCP_HEADERS[1], extra];
    assert_eq!(
        server.status(
            "POST",
            "/mcp",
            &with(("Origin", "http://127.0.0.1:3000")),
            INITIALIZE.as_bytes()
        ),
        200
    );
    assert_eq!(
        server.status(
            "POST",
            "/mcp",
            &with(("Origin", "http://evil.example")),
            INITIALIZE.as_bytes()
        ),
        403
    );
    assert_eq!(
        server.status(
            "POST",
            "/mcp",
            &with(("Host", "evil.example")),
            INITIALIZE.as_bytes()
        ),
        403
    );
    let huge = vec![b' '; 17 * 1024 * 1024];
    assert_eq!(server.status("POST", "/mcp", &MCP_HEADERS, &huge), 413);

    let configured = HttpServer::start(work.path(), |options| {
        options.allowed_hosts.push("skills.internal".to_owned());
        options
            .allowed_origins
            .push("https://portal.internal".to_owned());
    });
    assert_eq!(
        configured.status(
            "POST",
            "/mcp",
            &with(("Host", "skills.internal")),
            INITIALIZE.as_bytes()
        ),
        200
    );
    assert_eq!(
        configured.status(
            "POST",
            "/mcp",
            &with(("Origin", "https://portal.internal")),
            INITIALIZE.as_bytes()
        ),
        200
    );
}

/// Whether an HTTP response carries an `Mcp-Session-Id` header.
fn has_session(response: &str) -> bool {
    let head = response.split("\r\n\r\n").next().unwrap_or_default();
    head.lines()
        .any(|line| line.to_ascii_lowercase().starts_with("mcp-session-id:"))
}

#[test]
fn stateless_http_keeps_no_sessions_and_answers_any_request() {
    let work = tempfile::tempdir().expect("tempdir");
    let with_sessions = HttpServer::start(work.path(), |_| {});
    let response = with_sessions.exchange("POST", "/mcp", &MCP_HEADERS, INITIALIZE.as_bytes());
    assert!(has_session(&response), "{response}");

    let stateless = HttpServer::start(work.path(), |options| options.stateless = true);
    let response = stateless.exchange("POST", "/mcp", &MCP_HEADERS, INITIALIZE.as_bytes());
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(!has_session(&response), "{response}");
    // Without a session, a request stands alone: it needs no initialize before it.
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}"#;
    let headers = [
        MCP_HEADERS[0],
        MCP_HEADERS[1],
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let response = stateless.exchange("POST", "/mcp", &headers, list.as_bytes());
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(response.contains("\"create_skill\""), "{response}");
}

#[test]
fn ending_a_session_answers_200() {
    let work = tempfile::tempdir().expect("tempdir");
    let server = HttpServer::start(work.path(), |_| {});
    let response = server.exchange("POST", "/mcp", &MCP_HEADERS, INITIALIZE.as_bytes());
    let session = response
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_owned())
        })
        .expect("a session id");
    let end = [("Mcp-Session-Id", session.as_str())];
    // The official Python SDK takes 200, 204 or 405 (rmcp says 202).
    assert_eq!(server.status("DELETE", "/mcp", &end, b""), 200);
    // The session is gone: a request in it is refused.
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}"#;
    let in_session = [MCP_HEADERS[0], MCP_HEADERS[1], end[0]];
    assert_eq!(
        server.status("POST", "/mcp", &in_session, list.as_bytes()),
        404
    );
}
