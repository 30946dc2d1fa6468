//! A raw JSON-RPC client for `skillpath serve` over stdio, so tests see exactly what is on the
//! wire: requests with their responses, and notifications as they come.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use skillpath_test_support::mcp;

use crate::support::skillpath_bin;

pub(crate) struct Server {
    instructions: String,
    child: Child,
    input: Option<ChildStdin>,
    messages: Receiver<Value>,
    next_id: u64,
    /// Everything the server wrote to stderr so far.
    log: Arc<Mutex<String>>,
    /// What came before the responses [`Server::call`] waited for.
    passed_over: Vec<Value>,
}

impl Server {
    /// Starts `skillpath serve` on `skills` with `extra` arguments (`--tools` among them, or the
    /// default applies), and initializes a session.
    pub(crate) fn start_with(skills: &Path, work: &Path, extra: &[&str]) -> Server {
        Server::start_with_env(skills, work, extra, &[])
    }

    /// Starts `skillpath serve` like [`Server::start_with`], with more environment variables.
    pub(crate) fn start_with_env(
        skills: &Path,
        work: &Path,
        extra: &[&str],
        env: &[(&str, &OsStr)],
    ) -> Server {
        let mut command = Command::new(skillpath_bin());
        command
            .args(["serve", "--no-discover", "--skills"])
            .arg(skills)
            .args(extra)
            .env("SKILLPATH_DB", work.join("store.db"))
            .env("HOME", work)
            .envs(env.iter().copied());
        Server::spawn(command)
    }

    /// Starts `command` (a `skillpath serve` over stdio, as the test set it up), waits for its
    /// first folder sync, and initializes a session.
    pub(crate) fn spawn(command: Command) -> Server {
        let mut server = Server::launch(command);
        // Tests start from the synced state, said on stderr (one that tests what a client meets
        // before it uses [`Server::spawn_unsynced`]).
        server.wait_for_first_sync();
        server.initialize();
        server
    }

    /// Starts `command`, with readers of its stdout and stderr.
    fn launch(mut command: Command) -> Server {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start skillpath serve");
        let input = child.stdin.take().expect("stdin");
        let output = child.stdout.take().expect("stdout");
        let errors = child.stderr.take().expect("stderr");
        let log = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&log);
        std::thread::spawn(move || {
            for line in BufReader::new(errors).lines().map_while(Result::ok) {
                if let Ok(mut log) = sink.lock() {
                    log.push_str(&line);
                    log.push('\n');
                }
            }
        });
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
        Server {
            instructions: String::new(),
            child,
            input: Some(input),
            messages,
            next_id: 1,
            log,
            passed_over: Vec::new(),
        }
    }

    /// Starts `command` like [`Server::spawn`], without waiting for the first folder sync.
    pub(crate) fn spawn_unsynced(command: Command) -> Server {
        let mut server = Server::launch(command);
        server.initialize();
        server
    }

    /// Waits (up to 60 s, or until the server exits) for its stderr to say that the first
    /// folder sync is done.
    fn wait_for_first_sync(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !crate::support::first_sync_said(&self.log())
            && Instant::now() < deadline
            && matches!(self.child.try_wait(), Ok(None))
        {
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The `initialize` handshake.
    fn initialize(&mut self) {
        let initialized = self.request("initialize", mcp::initialize_params());
        self.instructions = mcp::instructions(&initialized);
        self.send(mcp::initialized());
    }

    /// Starts `skillpath serve` on `skills` (one tool per skill).
    pub(crate) fn start(skills: &Path, work: &Path) -> Server {
        Server::start_with(skills, work, &["--tools", "per-skill"])
    }

    fn send(&mut self, message: Value) {
        self.send_line(&message.to_string());
    }

    /// Sends `line` as it is (it should not contain a newline), followed by a newline.
    pub(crate) fn send_line(&mut self, line: &str) {
        let input = self.input.as_mut().expect("stdin is open");
        writeln!(input, "{line}").expect("write to the server");
        input.flush().expect("flush");
    }

    /// The next message from the server, if one comes within `timeout`.
    pub(crate) fn next_message(&mut self, timeout: Duration) -> Option<Value> {
        self.messages.recv_timeout(timeout).ok()
    }

    /// The server's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What the server wrote to stderr so far.
    pub(crate) fn log(&self) -> String {
        self.log.lock().map(|log| log.clone()).unwrap_or_default()
    }

    /// What the server wrote to stderr once `ready` holds for it, waiting up to 10 s. A line
    /// about a change may come a moment after the change is visible: the catalog follows the
    /// store as soon as a write commits, and the watcher says what it saw after writing.
    pub(crate) fn log_when(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let log = self.log();
            if ready(&log) {
                return log;
            }
            assert!(Instant::now() < deadline, "the log never {what}:\n{log}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Closes the server's stdin and waits (up to 10 s) for it to exit: its exit code (`None`
    /// when a signal ended it or it did not exit) and everything it wrote to stderr.
    pub(crate) fn finish(mut self) -> (Option<i32>, String) {
        drop(self.input.take());
        self.exit_within(Duration::from_secs(10))
    }

    /// Waits up to `within` for the server to exit, its stdin left as it is: its exit code
    /// (`None` when a signal ended it or it did not exit) and everything it wrote to stderr.
    pub(crate) fn exit_within(&mut self, within: Duration) -> (Option<i32>, String) {
        let deadline = Instant::now() + within;
        let code = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break status.code(),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                _ => break None,
            }
        };
        // The stderr reader finishes once the process is gone.
        std::thread::sleep(Duration::from_millis(50));
        (code, self.log())
    }

    /// Sends the server the signal `name` (`TERM`, `INT`) with `kill`.
    pub(crate) fn signal(&self, name: &str) {
        let sent = Command::new("kill")
            .args([&format!("-{name}"), &self.pid().to_string()])
            .status()
            .expect("kill");
        assert!(sent.success(), "kill -{name}");
    }

    /// Sends a request and waits for its response (notifications before it are set aside,
    /// [`Server::passed_over`]); the whole response, with `result` or `error`.
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
            self.passed_over.push(message);
        }
    }

    /// Sends one request of `method` per element of `params` at once, then waits for every
    /// response; the responses in the order of `params` (notifications are set aside).
    pub(crate) fn pipelined(&mut self, method: &str, params: &[Value]) -> Vec<Value> {
        let first = self.next_id;
        let lines: Vec<String> = params
            .iter()
            .enumerate()
            .map(|(offset, params)| {
                json!({"jsonrpc": "2.0", "id": first + offset as u64, "method": method, "params": params})
                    .to_string()
            })
            .collect();
        self.next_id += params.len() as u64;
        self.send_line(&lines.join("\n"));
        let mut responses: Vec<Option<Value>> = vec![None; params.len()];
        let mut pending = params.len();
        while pending > 0 {
            let message = self
                .messages
                .recv_timeout(Duration::from_secs(60))
                .expect("a response");
            let slot = message["id"]
                .as_u64()
                .and_then(|id| id.checked_sub(first))
                .and_then(|offset| responses.get_mut(usize::try_from(offset).ok()?));
            match slot {
                Some(slot) if slot.is_none() => {
                    *slot = Some(message);
                    pending -= 1;
                }
                _ => self.passed_over.push(message),
            }
        }
        responses.into_iter().flatten().collect()
    }

    /// The notifications [`Server::call`] passed over since this was last asked.
    pub(crate) fn passed_over(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.passed_over)
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
        self.notifications_until("notifications/tools/list_changed")
    }

    /// Every notification up to and including the next one with `method`.
    pub(crate) fn notifications_until(&mut self, method: &str) -> Vec<Value> {
        let mut received = Vec::new();
        loop {
            let message = self
                .messages
                .recv_timeout(Duration::from_secs(10))
                .unwrap_or_else(|_| panic!("no {method} within 10 s; got {received:?}"));
            let done = message["method"] == method;
            received.push(message);
            if done {
                return received;
            }
        }
    }

    /// Every notification that arrives within `quiet` of the one before it.
    pub(crate) fn notifications_for(&mut self, quiet: Duration) -> Vec<Value> {
        let mut received = Vec::new();
        while let Ok(message) = self.messages.recv_timeout(quiet) {
            received.push(message);
        }
        received
    }

    pub(crate) fn tool(&mut self, name: &str) -> Option<Value> {
        let tools = self.request("tools/list", json!({}));
        mcp::named(&tools, "tools", name).cloned()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
