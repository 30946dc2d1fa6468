//! What the workspace's tests share, written once instead of copied into each test file:
//! running a command to its end ([`RunExt`] on [`std::process::Command`]), what it did ([`Run`]),
//! and its output read as JSON ([`json`]). A dev-dependency only; never published.
//!
//! The commands are built with `std`'s own [`Command`] methods (folder, environment, extra
//! arguments), so each test says in one line how it runs the binary it tests.

use std::process::{Command, Output};

use serde_json::Value;

/// What one run of a command did: its exit code and what it printed (read as UTF-8, any bytes
/// that are not replaced, so that a hostile input's echo is shown rather than a second panic).
#[derive(Debug)]
pub struct Run {
    /// The exit code.
    pub code: i32,
    /// What it printed on stdout.
    pub stdout: String,
    /// What it printed on stderr.
    pub stderr: String,
}

impl Run {
    /// What `output` tells. A process ended by a signal panics here, with its stderr: no test
    /// expects one, and an exit code cannot stand for it.
    pub fn of(output: Output) -> Run {
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        let Some(code) = output.status.code() else {
            panic!("ended by a signal: {stderr}")
        };
        Run {
            code,
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr,
        }
    }

    /// `(code, stdout, stderr)`, for a test that names them itself.
    pub fn parts(self) -> (i32, String, String) {
        (self.code, self.stdout, self.stderr)
    }

    /// Asserts the run ended with `code` and did not panic.
    pub fn exited(&self, code: i32) -> &Run {
        assert_no_panic(Some(self.code), &self.stderr);
        assert_eq!(self.code, code, "{self:#?}");
        self
    }
}

/// Asserts that a process ended by itself (`code`, not a signal) and did not panic, which
/// `stderr` would say.
pub fn assert_no_panic(code: Option<i32>, stderr: &str) {
    assert!(!stderr.contains("panicked at"), "a panic: {stderr}");
    assert_ne!(code, Some(101), "exit code 101 (a panic): {stderr}");
    assert!(code.is_some(), "ended by a signal: {stderr}");
}

/// `text` (a command's stdout) as JSON; a test fails with the text when it is not.
pub fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|error| panic!("{error}: {text}"))
}

/// Running a [`Command`] to its end, the ways the tests read it.
pub trait RunExt {
    /// Runs it: what it did.
    fn run(&mut self) -> Run;
    /// Runs it and asserts it succeeded: its stdout.
    fn ok_stdout(&mut self) -> String;
    /// Runs it and asserts it succeeded: its stdout as JSON.
    fn ok_json(&mut self) -> Value;
}

impl RunExt for Command {
    fn run(&mut self) -> Run {
        Run::of(started(self))
    }

    fn ok_stdout(&mut self) -> String {
        let run = self.run();
        assert!(
            run.code == 0,
            "{} failed ({}): {}",
            line(self),
            run.code,
            run.stderr
        );
        run.stdout
    }

    fn ok_json(&mut self) -> Value {
        json(&self.ok_stdout())
    }
}

/// The output of `command`, which must start.
fn started(command: &mut Command) -> Output {
    command
        .output()
        .unwrap_or_else(|error| panic!("cannot run {}: {error}", line(command)))
}

/// `command`'s program and arguments, as a shell would show them (for failure messages).
fn line(command: &Command) -> String {
    let mut line = command.get_program().to_string_lossy().into_owned();
    for arg in command.get_args() {
        line.push(' ');
        line.push_str(&arg.to_string_lossy());
    }
    line
}

/// The shared corpus of real skills: `$SKILLPATH_CORPUS`, else `../shared/corpus` beside the
/// repository. The test fails when it is not there, saying how to point at it.
pub fn corpus_dir() -> std::path::PathBuf {
    let default = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus");
    let root = std::env::var_os("SKILLPATH_CORPUS").map_or_else(
        || std::path::PathBuf::from(default),
        std::path::PathBuf::from,
    );
    root.canonicalize().unwrap_or_else(|error| {
        panic!(
            "the skills corpus is missing at `{}` ({error}); set SKILLPATH_CORPUS to its folder",
            root.display()
        )
    })
}

/// The example skills of the repository (`examples/skills`).
pub fn examples_dir() -> std::path::PathBuf {
    std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/skills"
    ))
}

/// Plain HTTP/1.1 as the tests speak it: one request per connection, read to its end, so that
/// a test sees the status line, every header and the body as a client receives them.
pub mod http {
    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::time::Duration;

    /// Sends one request to `address` (`Host` is the address unless `headers` give one) and
    /// answers with the whole response as text (bytes that are no UTF-8 replaced).
    pub fn exchange(
        address: &str,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> String {
        String::from_utf8_lossy(&exchange_bytes(address, method, path, headers, body)).into_owned()
    }

    /// [`exchange`], answering with the response's bytes as they came (a binary body whole).
    pub fn exchange_bytes(
        address: &str,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Vec<u8> {
        let mut stream = TcpStream::connect(address).expect("connect");
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
            request.push_str(&format!("Host: {address}\r\n"));
        }
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        stream.write_all(request.as_bytes()).expect("send head");
        let _ = stream.write_all(body);
        let mut response = Vec::new();
        let _ = stream.read_to_end(&mut response);
        response
    }

    /// The value of the header `name` (any case) in `response`'s head.
    pub fn header<'a>(response: &'a str, name: &str) -> Option<&'a str> {
        let head = response.split("\r\n\r\n").next()?;
        head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name).then(|| value.trim())
        })
    }

    /// `response`'s status code (0 when it has no status line).
    pub fn status(response: &str) -> u16 {
        response
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or(0)
    }

    /// `fields` URL-encoded, as a browser posts a form.
    pub fn form(fields: &[(&str, &str)]) -> String {
        let encode = |text: &str| -> String {
            text.bytes()
                .map(|b| match b {
                    b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => {
                        (b as char).to_string()
                    }
                    _ => format!("%{b:02X}"),
                })
                .collect()
        };
        fields
            .iter()
            .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
            .collect::<Vec<_>>()
            .join("&")
    }
}

/// A browser's visits to the studio over [`http`]: its session cookie, its pages' CSRF token,
/// and the forms it posts.
pub mod studio {
    use crate::http::{exchange, header, status};

    /// A browser's visit: the cookie the studio set and the CSRF token of its pages.
    pub struct Visit {
        /// The session cookie's value.
        pub cookie: String,
        /// The CSRF token of the page visited.
        pub token: String,
    }

    /// The value of the studio's cookie that `response` sets.
    pub fn set_cookie(response: &str) -> Option<String> {
        let value = header(response, "set-cookie")?;
        let pair = value.split(';').next()?;
        pair.strip_prefix("skillpath_studio=").map(str::to_owned)
    }

    /// The CSRF token a page of the studio carries.
    pub fn token_of(page: &str) -> String {
        page.split("data-csrf=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .expect("a page with its CSRF token")
            .to_owned()
    }

    /// A first visit to `path` of the studio at `address`, as a new browser makes it.
    pub fn visit(address: &str, path: &str) -> Visit {
        let page = exchange(address, "GET", path, &[], b"");
        assert_eq!(status(&page), 200, "{page}");
        Visit {
            cookie: set_cookie(&page).expect("a new visitor gets a cookie"),
            token: token_of(&page),
        }
    }

    /// A form posted to `path`, with the session `cookie` when given and `extra` headers.
    pub fn post(
        address: &str,
        path: &str,
        cookie: Option<&str>,
        extra: &[(&str, &str)],
        body: &str,
    ) -> String {
        let cookie = cookie.map(|c| format!("skillpath_studio={c}"));
        let mut headers = vec![("Content-Type", "application/x-www-form-urlencoded")];
        if let Some(cookie) = &cookie {
            headers.push(("Cookie", cookie));
        }
        headers.extend_from_slice(extra);
        exchange(address, "POST", path, &headers, body.as_bytes())
    }

    /// The page at `path`, read with the session `cookie`.
    pub fn get(address: &str, path: &str, cookie: &str) -> String {
        let cookie = format!("skillpath_studio={cookie}");
        exchange(address, "GET", path, &[("Cookie", &cookie)], b"")
    }

    /// How many revisions the history page of the skill `name` offers to roll back to.
    pub fn revisions(address: &str, cookie: &str, name: &str) -> usize {
        let page = get(address, &format!("/skills/{name}/history"), cookie);
        page.matches("type=\"radio\" name=\"to\"").count()
    }
}

/// Writes a plain skill `name` with `description` into the folder `dir` (created).
pub fn write_skill(dir: &std::path::Path, name: &str, description: &str) {
    std::fs::create_dir_all(dir).expect("mkdir");
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n"),
    )
    .expect("write");
}

/// The MCP session's handshake as the wire tests make it.
pub mod mcp {
    use serde_json::{Value, json};

    /// The `initialize` request's parameters: the protocol version the wire tests speak.
    pub fn initialize_params() -> Value {
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "wire-test", "version": "1"}})
    }

    /// The instructions in an `initialize` result (empty when it has none).
    pub fn instructions(initialized: &Value) -> String {
        initialized["instructions"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// The notification that ends the handshake.
    pub fn initialized() -> Value {
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    }

    /// The item named `name` in a list result's `key` array (`tools`, `prompts`); `None` when
    /// it has none of that name.
    pub fn named<'a>(list: &'a Value, key: &str, name: &str) -> Option<&'a Value> {
        list[key]
            .as_array()
            .and_then(|items| items.iter().find(|item| item["name"] == name))
    }
}
