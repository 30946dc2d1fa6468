//! `skillpath serve --http` safety: the health route, `Host` and `Origin` allow lists, the body
//! limit, and refusing a non-loopback address without `--allow-remote`. Raw HTTP/1.1 over TCP.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::support::skillpath_bin;

struct HttpServer {
    child: Child,
    address: String,
}

impl HttpServer {
    fn start(work: &std::path::Path, extra: &[&str]) -> HttpServer {
        let mut child = Command::new(skillpath_bin())
            .args(["serve", "--no-discover", "--http", "127.0.0.1:0"])
            .args(extra)
            .env("SKILLPATH_DB", work.join("store.db"))
            .env("HOME", work)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start");
        let stderr = child.stderr.take().expect("stderr");
        let mut lines = BufReader::new(stderr).lines();
        let address = loop {
            let line = lines
                .next()
                .expect("the server says where it listens")
                .expect("utf-8");
            if let Some(url) = line.split("serving MCP on http://").nth(1) {
                break url.trim_end_matches("/mcp").to_owned();
            }
        };
        std::thread::spawn(move || for _ in lines {});
        HttpServer { child, address }
    }

    /// Sends one HTTP request and returns the status code.
    fn status(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> u16 {
        let mut stream = TcpStream::connect(&self.address).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        let mut request = format!(
            "{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n",
            body.len()
        );
        if !headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case("host"))
        {
            request.push_str(&format!("Host: {}\r\n", self.address));
        }
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        stream.write_all(request.as_bytes()).expect("send head");
        let _ = stream.write_all(body);
        let mut response = Vec::new();
        let _ = stream.read_to_end(&mut response);
        let head = String::from_utf8_lossy(&response);
        head.split_whitespace()
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or(0)
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
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
    let server = HttpServer::start(work.path(), &[]);
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

    let configured = HttpServer::start(
        work.path(),
        &[
            "--allowed-host",
            "skills.internal",
            "--allowed-origin",
            "https://portal.internal",
        ],
    );
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

#[test]
fn a_non_loopback_address_needs_allow_remote() {
    let work = tempfile::tempdir().expect("tempdir");
    let output = Command::new(skillpath_bin())
        .args(["serve", "--no-discover", "--http", "0.0.0.0:0"])
        .env("SKILLPATH_DB", work.path().join("store.db"))
        .env("HOME", work.path())
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--allow-remote"));
}
