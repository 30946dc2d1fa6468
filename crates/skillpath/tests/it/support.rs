//! What the integration tests need from their surroundings: our binary, the shared corpus,
//! the reference validator's Python, the MCP conformance suite, and a running HTTP server. Missing test tools fail loudly, naming the fix;
//! nothing is skipped.

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
/// Environment variable naming the shared corpus of real skills.
pub(crate) const CORPUS_VAR: &str = "SKILLPATH_CORPUS";

/// The `skillpath` binary under test.
pub(crate) fn skillpath_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_skillpath"))
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

/// The shared corpus: `$SKILLPATH_CORPUS`, else `../shared/corpus` beside the repository.
pub(crate) fn corpus_dir() -> PathBuf {
    let path = std::env::var_os(CORPUS_VAR)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
        });
    assert!(
        path.is_dir(),
        "no skill corpus at {} (set {CORPUS_VAR})",
        path.display()
    );
    path.canonicalize().expect("corpus path")
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
        let address = loop {
            let line = lines
                .next()
                .expect("the server says where it listens")
                .expect("utf-8");
            append(&log, &line);
            if let Some(url) = line.split("serving MCP on http://").nth(1) {
                break url.trim_end_matches("/mcp").to_owned();
            }
        };
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
        let response = self.exchange(method, path, headers, body);
        response
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or(0)
    }

    /// Sends one HTTP request and returns the whole response (status line, headers, body).
    pub(crate) fn exchange(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> String {
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
        String::from_utf8_lossy(&response).into_owned()
    }
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
