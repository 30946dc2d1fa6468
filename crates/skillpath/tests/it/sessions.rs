//! A legacy (2025-11-25) MCP session over Streamable HTTP, spoken as raw HTTP/1.1 over TCP,
//! so that a test sees exactly what a client gets: the answers, and the notifications of the
//! session's standalone SSE stream as they arrive.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::HttpServer;

/// An HTTP/1.1 response: status, headers (names lowercased), body (de-chunked).
pub(crate) struct Response {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) reader: BufReader<TcpStream>,
}

impl Response {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The next piece of the body: a chunk, or (unchunked) whatever arrives; `None` at the end.
    fn next_piece(&mut self) -> Option<Vec<u8>> {
        if self
            .header("transfer-encoding")
            .is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
        {
            let mut size = String::new();
            self.reader.read_line(&mut size).ok()?;
            let size = usize::from_str_radix(size.trim().split(';').next()?, 16).ok()?;
            if size == 0 {
                return None;
            }
            let mut chunk = vec![0; size + 2];
            self.reader.read_exact(&mut chunk).ok()?;
            chunk.truncate(size);
            Some(chunk)
        } else {
            let mut buffer = vec![0; 8192];
            let n = self.reader.read(&mut buffer).ok()?;
            (n > 0).then(|| {
                buffer.truncate(n);
                buffer
            })
        }
    }

    /// The JSON of every SSE `data:` line of the body, as they arrive, until the body ends.
    pub(crate) fn events(mut self, mut each: impl FnMut(Value) -> bool) {
        let mut pending = String::new();
        while let Some(piece) = self.next_piece() {
            pending.push_str(&String::from_utf8_lossy(&piece));
            while let Some(end) = pending.find('\n') {
                let line: String = pending.drain(..=end).collect();
                if let Some(data) = line.trim_end().strip_prefix("data:")
                    && let Ok(value) = serde_json::from_str::<Value>(data.trim())
                    && !each(value)
                {
                    return;
                }
            }
        }
    }

    /// The body's SSE `data:` JSON values, or the body as one JSON value.
    pub(crate) fn json(self) -> Vec<Value> {
        let json_body = self
            .header("content-type")
            .is_some_and(|v| v.starts_with("application/json"));
        if json_body {
            let mut this = self;
            let mut body = Vec::new();
            while let Some(piece) = this.next_piece() {
                body.extend(piece);
            }
            return serde_json::from_slice(&body).into_iter().collect();
        }
        let mut values = Vec::new();
        self.events(|value| {
            values.push(value);
            true
        });
        values
    }
}

pub(crate) fn http(address: &str, method: &str, headers: &[(&str, &str)], body: &str) -> Response {
    let mut stream = TcpStream::connect(address).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let mut request = format!(
        "{method} /mcp HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).expect("send head");
    stream.write_all(body.as_bytes()).expect("send body");
    let mut reader = BufReader::new(stream);
    let mut status_line = String::new();
    reader.read_line(&mut status_line).expect("status line");
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).expect("header");
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    Response {
        status,
        headers,
        reader,
    }
}

/// A legacy (2025-11-25) MCP session over Streamable HTTP.
pub(crate) struct Session {
    address: String,
    id: String,
    next_id: u64,
    /// The `Authorization` header of every request, when the session acts with a key.
    authorization: Option<String>,
}

impl Session {
    pub(crate) fn open(server: &HttpServer) -> Session {
        Session::open_as(server, None)
    }

    /// A session whose every request carries `key` as its bearer token.
    pub(crate) fn open_as(server: &HttpServer, key: Option<&str>) -> Session {
        let authorization = key.map(|key| format!("Bearer {key}"));
        let initialize = json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "replica-test", "version": "1"}
            }
        });
        let mut headers = vec![
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ];
        if let Some(authorization) = &authorization {
            headers.push(("Authorization", authorization));
        }
        let response = http(&server.address, "POST", &headers, &initialize.to_string());
        assert_eq!(response.status, 200, "initialize");
        let id = response
            .header("mcp-session-id")
            .expect("a session id")
            .to_owned();
        let answers = response.json();
        assert!(
            answers
                .iter()
                .any(|a| a["id"] == 0 && a.get("result").is_some()),
            "{answers:?}"
        );
        let session = Session {
            address: server.address.clone(),
            id,
            next_id: 1,
            authorization,
        };
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let status = session.post(&initialized).status;
        assert!(status == 202 || status == 200, "initialized: {status}");
        session
    }

    /// The headers of the session's every request after `initialize`, with `first`.
    fn headers<'a>(&'a self, first: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
        let mut headers = first.to_vec();
        headers.push(("Mcp-Session-Id", &self.id));
        headers.push(("Mcp-Protocol-Version", "2025-11-25"));
        if let Some(authorization) = &self.authorization {
            headers.push(("Authorization", authorization));
        }
        headers
    }

    pub(crate) fn post(&self, message: &Value) -> Response {
        let headers = self.headers(&[
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ]);
        http(&self.address, "POST", &headers, &message.to_string())
    }

    /// The standalone SSE stream's notification methods, as they arrive.
    pub(crate) fn notifications(&self) -> mpsc::Receiver<String> {
        let headers = self.headers(&[("Accept", "text/event-stream")]);
        let response = http(&self.address, "GET", &headers, "");
        assert_eq!(response.status, 200, "the GET stream opens");
        response
            .reader
            .get_ref()
            .set_read_timeout(None)
            .expect("no timeout");
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || {
            response.events(|event| match event["method"].as_str() {
                Some(method) => sender.send(method.to_owned()).is_ok(),
                None => true,
            });
        });
        receiver
    }

    pub(crate) fn tool_names(&mut self) -> Vec<String> {
        let id = self.next_id;
        self.next_id += 1;
        let answers = self
            .post(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}))
            .json();
        let answer = answers
            .iter()
            .find(|a| a["id"] == id)
            .unwrap_or_else(|| panic!("no answer to tools/list: {answers:?}"));
        answer["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("tools/list: {answer}"))
            .iter()
            .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
            .collect()
    }
}
