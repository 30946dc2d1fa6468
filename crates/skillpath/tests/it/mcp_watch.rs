//! `skillpath serve` watches its skill folders: an edit, an addition and a removal on disk reach
//! the store and connected clients (`notifications/tools/list_changed`), and `tools/list` shows
//! the change. Speaks raw JSON-RPC over stdio, so nothing stands between the test and the wire.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::skillpath_bin;

struct Server {
    child: Child,
    input: ChildStdin,
    messages: Receiver<Value>,
    next_id: u64,
}

impl Server {
    fn start(skills: &Path, work: &Path) -> Server {
        let mut child = Command::new(skillpath_bin())
            .args(["serve", "--no-discover", "--tools", "per-skill", "--skills"])
            .arg(skills)
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
            child,
            input,
            messages,
            next_id: 1,
        };
        server.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "watch-test", "version": "1"}}),
        );
        server.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn send(&mut self, message: Value) {
        writeln!(self.input, "{message}").expect("write to the server");
        self.input.flush().expect("flush");
    }

    /// Sends a request and waits for its response (notifications before it are dropped).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let message = self
                .messages
                .recv_timeout(Duration::from_secs(20))
                .expect("a response");
            if message["id"] == id {
                return message["result"].clone();
            }
        }
    }

    /// Waits for `notifications/tools/list_changed`; returns how long it took.
    fn wait_for_list_changed(&mut self, since: Instant) -> Duration {
        loop {
            let message = self
                .messages
                .recv_timeout(Duration::from_secs(10))
                .expect("a list_changed notification");
            if message["method"] == "notifications/tools/list_changed" {
                return since.elapsed();
            }
        }
    }

    fn tool(&mut self, name: &str) -> Option<Value> {
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

fn write_skill(dir: &Path, name: &str, description: &str) {
    std::fs::create_dir_all(dir).expect("mkdir");
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n"),
    )
    .expect("write");
}

#[test]
fn edits_additions_and_removals_on_disk_reach_connected_clients() {
    let work = tempfile::tempdir().expect("tempdir");
    let skills = work.path().join("skills");
    write_skill(
        &skills.join("alpha"),
        "alpha",
        "Use when testing the first version.",
    );
    let mut server = Server::start(&skills, work.path());
    assert_eq!(
        server.tool("alpha").expect("alpha is a tool")["description"],
        "Use when testing the first version."
    );

    let edited = Instant::now();
    write_skill(
        &skills.join("alpha"),
        "alpha",
        "Use when testing the second version.",
    );
    let edit_latency = server.wait_for_list_changed(edited);
    assert_eq!(
        server.tool("alpha").expect("alpha")["description"],
        "Use when testing the second version."
    );

    let added = Instant::now();
    write_skill(
        &skills.join("beta"),
        "beta",
        "Use when testing an added skill.",
    );
    let add_latency = server.wait_for_list_changed(added);
    assert!(server.tool("beta").is_some(), "the added skill is a tool");

    let removed = Instant::now();
    std::fs::remove_dir_all(skills.join("alpha")).expect("remove");
    let remove_latency = server.wait_for_list_changed(removed);
    assert!(server.tool("alpha").is_none(), "the removed skill is gone");

    eprintln!(
        "watch: list_changed after an edit {edit_latency:?}, an addition {add_latency:?}, a removal {remove_latency:?}"
    );
    for latency in [edit_latency, add_latency, remove_latency] {
        assert!(latency < Duration::from_secs(3), "{latency:?}");
    }
}
