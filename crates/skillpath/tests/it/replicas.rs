//! Replicas: two `skillpath serve --http` processes on one PostgreSQL schema behave as one
//! server. A change made by a third process (`skillpath import`) or through one replica (its
//! folder sync) reaches the clients of the other as `notifications/tools/list_changed` within two
//! seconds, and its `tools/list` shows it. A write in another schema of the same database is
//! not announced. Raw HTTP/1.1 over TCP against a real PostgreSQL
//! (`$SKILLPATH_TEST_POSTGRES`, default `postgres://postgres@127.0.0.1:5432/test`, trust auth),
//! in a fresh schema dropped at the end; an unreachable server fails the test.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Command;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::postgres_support::Schema;
use crate::support::{HttpServer, skillpath_bin};

/// How soon a change must reach the other replica's clients.
const DEADLINE: Duration = Duration::from_secs(2);

fn write_skill(dir: &Path, name: &str) {
    std::fs::create_dir_all(dir).expect("mkdir");
    std::fs::write(
        dir.join("SKILL.md"),
        format!(
            "---\nname: {name}\ndescription: Use when testing replicas ({name}).\n---\n# {name}\n"
        ),
    )
    .expect("write");
}

/// An HTTP/1.1 response: status, headers (names lowercased), body (de-chunked).
struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    reader: BufReader<TcpStream>,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
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
    fn events(mut self, mut each: impl FnMut(Value) -> bool) {
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
    fn json(self) -> Vec<Value> {
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

fn http(address: &str, method: &str, headers: &[(&str, &str)], body: &str) -> Response {
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
struct Session {
    address: String,
    id: String,
    next_id: u64,
}

impl Session {
    fn open(server: &HttpServer) -> Session {
        let initialize = json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "replica-test", "version": "1"}
            }
        });
        let response = http(
            &server.address,
            "POST",
            &[
                ("Content-Type", "application/json"),
                ("Accept", "application/json, text/event-stream"),
            ],
            &initialize.to_string(),
        );
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
        };
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let status = session.post(&initialized).status;
        assert!(status == 202 || status == 200, "initialized: {status}");
        session
    }

    fn post(&self, message: &Value) -> Response {
        http(
            &self.address,
            "POST",
            &[
                ("Content-Type", "application/json"),
                ("Accept", "application/json, text/event-stream"),
                ("Mcp-Session-Id", &self.id),
                ("Mcp-Protocol-Version", "2025-11-25"),
            ],
            &message.to_string(),
        )
    }

    /// The standalone SSE stream's notification methods, as they arrive.
    fn notifications(&self) -> mpsc::Receiver<String> {
        let response = http(
            &self.address,
            "GET",
            &[
                ("Accept", "text/event-stream"),
                ("Mcp-Session-Id", &self.id),
                ("Mcp-Protocol-Version", "2025-11-25"),
            ],
            "",
        );
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

    fn tool_names(&mut self) -> Vec<String> {
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

/// Waits for `notifications/tools/list_changed` on `notifications`, up to the deadline after
/// `since`; the latency.
fn wait_for_list_changed(notifications: &mpsc::Receiver<String>, since: Instant) -> Duration {
    loop {
        let left = (since + DEADLINE).saturating_duration_since(Instant::now());
        match notifications.recv_timeout(left) {
            Ok(method) if method == "notifications/tools/list_changed" => return since.elapsed(),
            Ok(_) => {}
            Err(_) => panic!(
                "no tools/list_changed on the other replica within {DEADLINE:?} of the change"
            ),
        }
    }
}

/// Polls `tools/list` until `appears` says so, up to the deadline after `since`; the latency.
fn poll_tools(
    session: &mut Session,
    since: Instant,
    appears: impl Fn(&[String]) -> bool,
) -> Duration {
    loop {
        let names = session.tool_names();
        if appears(&names) {
            return since.elapsed();
        }
        assert!(
            since.elapsed() < DEADLINE,
            "the other replica's tools/list did not follow within {DEADLINE:?}: {names:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn replicas_on_one_postgres_schema_announce_each_others_changes() {
    let schema = Schema::create("replicas");
    let url = schema.url();
    let work = tempfile::tempdir().expect("tempdir");
    let a_skills = work.path().join("a-skills");
    std::fs::create_dir_all(&a_skills).expect("mkdir");
    let (a_home, b_home) = (work.path().join("a"), work.path().join("b"));
    std::fs::create_dir_all(&a_home).expect("mkdir");
    std::fs::create_dir_all(&b_home).expect("mkdir");
    let a = HttpServer::start(
        &a_home,
        &["--db", &url, "--skills", a_skills.to_str().expect("utf-8")],
    );
    let b = HttpServer::start(&b_home, &["--db", &url]);
    let mut session = Session::open(&b);
    let notifications = session.notifications();
    assert!(!session.tool_names().iter().any(|n| n == "from-import"));
    // Let the GET stream and both listeners settle before the first change.
    std::thread::sleep(Duration::from_millis(300));

    // 1. A third process imports a skill.
    let incoming = work.path().join("incoming");
    write_skill(&incoming.join("from-import"), "from-import");
    let started = Instant::now();
    let import = Command::new(skillpath_bin())
        .args(["import", incoming.to_str().expect("utf-8"), "--db", &url])
        .env("HOME", work.path())
        .output()
        .expect("run import");
    assert!(import.status.success(), "{import:?}");
    let committed = Instant::now();
    let import_notified = wait_for_list_changed(&notifications, committed);
    let import_listed = poll_tools(&mut session, committed, |names| {
        names.iter().any(|n| n == "from-import")
    });
    eprintln!(
        "replicas: `skillpath import` (process took {:?}) → replica B: list_changed {:?}, tools/list {:?} after the import exited",
        committed - started,
        import_notified,
        import_listed
    );

    // 2. Replica A writes (its folder sync imports a new skill folder).
    let written = Instant::now();
    write_skill(&a_skills.join("from-replica-a"), "from-replica-a");
    let a_notified = wait_for_list_changed(&notifications, written);
    let a_listed = poll_tools(&mut session, written, |names| {
        names.iter().any(|n| n == "from-replica-a")
    });
    eprintln!(
        "replicas: a skill folder written for replica A (150 ms settle included) → replica B: list_changed {a_notified:?}, tools/list {a_listed:?}"
    );

    // 3. A write in another schema of the same database is not announced here.
    let other = Schema::create("other");
    let other_import = Command::new(skillpath_bin())
        .args([
            "import",
            incoming.to_str().expect("utf-8"),
            "--db",
            &other.url(),
        ])
        .env("HOME", work.path())
        .output()
        .expect("run import");
    assert!(other_import.status.success(), "{other_import:?}");
    while let Ok(method) = notifications.recv_timeout(Duration::from_millis(700)) {
        assert_ne!(
            method, "notifications/tools/list_changed",
            "a write in another schema reached replica B"
        );
    }
    drop(a);
}

/// Two replicas on one schema, each with the content of the skills it served cached by
/// revision: once a skill changes through the other replica (its folder sync), this one serves
/// the new revision through every way of reading it, never the one it cached.
#[test]
fn a_skill_changed_through_another_replica_is_never_served_from_a_stale_cache() {
    let schema = Schema::create("stale_cache");
    let url = schema.url();
    let work = tempfile::tempdir().expect("tempdir");
    let folder = work.path().join("b-skills");
    let old = "Use when testing a cached skill.";
    let new = "Use when testing a cached skill, changed through the other replica.";
    // The description in the body too, which is what a call renders.
    let write = |description: &str| {
        let skill = folder.join("cached");
        std::fs::create_dir_all(&skill).expect("mkdir");
        std::fs::write(
            skill.join("SKILL.md"),
            format!(
                "---\nname: cached\ndescription: {description}\n---\n# Cached\n\n{description}\n"
            ),
        )
        .expect("write");
    };
    write(old);
    let replica = |skills: Option<&Path>| {
        let mut command = Command::new(skillpath_bin());
        command
            .args([
                "serve",
                "--no-discover",
                "--tools",
                "per-skill",
                "--db",
                &url,
            ])
            .env("HOME", work.path());
        if let Some(skills) = skills {
            command.arg("--skills").arg(skills);
        }
        crate::mcp_wire::Server::spawn(command)
    };
    let b = replica(Some(&folder));
    let mut a = replica(None);
    // Read twice: the second time from the cache.
    for _ in 0..2 {
        for text in crate::shared_sqlite::reads(&mut a, "cached") {
            assert!(text.contains(old) && !text.contains(new), "{text}");
        }
    }
    let changed = Instant::now();
    write(new);
    let latency = a.wait_for_list_changed(changed);
    assert!(latency < DEADLINE * 3, "list_changed after {latency:?}");
    for text in crate::shared_sqlite::reads(&mut a, "cached") {
        assert!(text.contains(new), "served a stale revision: {text}");
    }
    for server in [a, b] {
        let (_, log) = server.finish();
        assert!(!log.contains("failed"), "{log}");
    }
}
