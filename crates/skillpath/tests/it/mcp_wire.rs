//! A raw JSON-RPC client for `skillpath serve` over stdio, so tests see exactly what is on the
//! wire: requests with their responses, and notifications as they come.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::skillpath_bin;

pub(crate) struct Server {
    instructions: String,
    child: Child,
    input: ChildStdin,
    messages: Receiver<Value>,
    next_id: u64,
}

impl Server {
    /// Starts `skillpath serve` on `skills` with `extra` arguments (`--tools` among them, or the
    /// default applies), and initializes a session.
    pub(crate) fn start_with(skills: &Path, work: &Path, extra: &[&str]) -> Server {
        let mut child = Command::new(skillpath_bin())
            .args(["serve", "--no-discover", "--skills"])
            .arg(skills)
            .args(extra)
            .env("SKILLPATH_DB", work.join("store.db"))
            .env("HOME", work)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start skillpath serve");
        let input = child.stdin.take().expect("stdin");
        let output = child.stdout.take().expect("stdout");
        let (sender, messages) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(output).lines().map_while(Result::ok) {
                if let Ok(message) = serde_json::from_str::<Value>(&line)
                    && sender.send(message).is_err()
                {
                    break;
                }
            }
        });
        let mut server = Server {
            instructions: String::new(),
            child,
            input,
            messages,
            next_id: 1,
        };
        let initialized = server.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "wire-test", "version": "1"}}),
        );
        server.instructions = initialized["instructions"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        server.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    /// Starts `skillpath serve` on `skills` (one tool per skill).
    pub(crate) fn start(skills: &Path, work: &Path) -> Server {
        Server::start_with(skills, work, &["--tools", "per-skill"])
    }

    fn send(&mut self, message: Value) {
        writeln!(self.input, "{message}").expect("write to the server");
        self.input.flush().expect("flush");
    }

    /// Sends a request and waits for its response (notifications before it are dropped);
    /// the whole response, with `result` or `error`.
    pub(crate) fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let message = self
                .messages
                .recv_timeout(Duration::from_secs(20))
                .expect("a response");
            if message["id"] == id {
                return message;
            }
        }
    }

    /// The instructions the server sent at initialization.
    pub(crate) fn instructions(&self) -> &str {
        &self.instructions
    }

    /// A request's `result`.
    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        self.call(method, params)["result"].clone()
    }

    /// Waits for `notifications/tools/list_changed`; returns how long it took.
    pub(crate) fn wait_for_list_changed(&mut self, since: Instant) -> Duration {
        self.notifications_until_list_changed();
        since.elapsed()
    }

    /// Every notification up to and including the next `notifications/tools/list_changed`.
    pub(crate) fn notifications_until_list_changed(&mut self) -> Vec<Value> {
        let mut received = Vec::new();
        loop {
            let message = self
                .messages
                .recv_timeout(Duration::from_secs(10))
                .expect("a list_changed notification");
            let done = message["method"] == "notifications/tools/list_changed";
            received.push(message);
            if done {
                return received;
            }
        }
    }

    pub(crate) fn tool(&mut self, name: &str) -> Option<Value> {
        let tools = self.request("tools/list", json!({}));
        tools["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .find(|t| t["name"] == name)
            .cloned()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
