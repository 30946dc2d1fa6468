//! A raw JSON-RPC session with a [`SkillServer`] in this process, over an in-memory pipe: the
//! bytes the server writes, as a client reads them, with requests answered in order and
//! notifications set aside.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;
use serde_json::{Value, json};
use skillpath_folders::sources::FolderSources;
use skillpath_server::folders::FolderSync;
use skillpath_server::{ServerOptions, SkillServer, ToolsMode};
use skillpath_store::{SqliteStore, Store};
use skillpath_test_support::mcp;
use tokio::io::{
    AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};

/// How long a response may take before the test fails.
const RESPONSE_WITHIN: Duration = Duration::from_secs(30);

/// A session with a server over the skills of one folder, stored in a new SQLite file.
pub(crate) struct Wire {
    runtime: tokio::runtime::Runtime,
    writer: WriteHalf<DuplexStream>,
    reader: Lines<BufReader<ReadHalf<DuplexStream>>>,
    next_id: u64,
    instructions: String,
}

impl Wire {
    /// A server over the skills in `skills` (synced into a store in `work` before it starts,
    /// as `serve --skills` does on a new database), with `options`, and an initialized session.
    pub(crate) fn start_with(skills: &Path, work: &Path, options: ServerOptions) -> Wire {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime");
        let client = runtime.block_on(async {
            let store: Arc<dyn Store> =
                Arc::new(SqliteStore::open(&work.join("store.db")).expect("a new store"));
            let sources = FolderSources {
                discover: None,
                roots: vec![skills.to_path_buf()],
            };
            FolderSync::new(sources, Arc::clone(&store))
                .sync()
                .await
                .expect("the folders synced");
            let server = SkillServer::new(store, options).await.expect("a server");
            let (client, server_end) = tokio::io::duplex(1 << 20);
            tokio::spawn(async move {
                if let Ok(running) = server.serve(server_end).await {
                    let _ = running.waiting().await;
                }
            });
            client
        });
        let (read, writer) = tokio::io::split(client);
        let mut wire = Wire {
            runtime,
            writer,
            reader: BufReader::new(read).lines(),
            next_id: 1,
            instructions: String::new(),
        };
        wire.initialize();
        wire
    }

    /// [`Wire::start_with`] with one tool per skill.
    pub(crate) fn start(skills: &Path, work: &Path) -> Wire {
        Wire::start_with(skills, work, per_skill())
    }

    /// The `initialize` handshake, as the binary's wire tests make it.
    fn initialize(&mut self) {
        let initialized = self.request("initialize", mcp::initialize_params());
        self.instructions = mcp::instructions(&initialized);
        self.send(&mcp::initialized());
    }

    fn send(&mut self, message: &Value) {
        let line = format!("{message}\n");
        self.runtime.block_on(async {
            self.writer
                .write_all(line.as_bytes())
                .await
                .expect("write to the server");
            self.writer.flush().await.expect("flush");
        });
    }

    /// Sends a request and waits for its response (notifications before it are passed over);
    /// the whole response, with `result` or `error`.
    pub(crate) fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self.runtime.block_on(async {
                tokio::time::timeout(RESPONSE_WITHIN, self.reader.next_line()).await
            });
            let line = line
                .expect("a response in time")
                .expect("the pipe reads")
                .expect("the server answers before it ends");
            let message: Value = serde_json::from_str(&line).expect("a JSON-RPC message");
            if message["id"] == id {
                return message;
            }
        }
    }

    /// A request's `result`.
    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        self.call(method, params)["result"].clone()
    }

    /// The instructions the server sent at initialization.
    pub(crate) fn instructions(&self) -> &str {
        &self.instructions
    }

    /// The tool `name` as `tools/list` lists it (on its first page).
    pub(crate) fn tool(&mut self, name: &str) -> Option<Value> {
        let tools = self.request("tools/list", json!({}));
        mcp::named(&tools, "tools", name).cloned()
    }
}

/// The default options with one tool per skill (`--tools per-skill`).
pub(crate) fn per_skill() -> ServerOptions {
    ServerOptions {
        tools: ToolsMode::PerSkill,
        ..ServerOptions::default()
    }
}
