//! The MCP request path: raw bytes sent to the server's handler as one line of JSON-RPC after
//! a normal `initialize`, then a `ping`. Whatever the bytes, the server must not panic and must
//! still answer the ping (a malformed message is answered with an error or dropped; it never
//! ends the session or hangs it).
#![no_main]

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use rmcp::ServiceExt;
use skillpath_server::{ServerOptions, SkillServer};
use skillpath_store::Store;
use skillpath_model::SkillSnapshot;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

#[path = "common/seeded_store.rs"]
mod seeded_store;
use seeded_store::seeded_store;

struct Fixture {
    _temp: tempfile::TempDir,
    runtime: tokio::runtime::Runtime,
    store: Arc<dyn Store>,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime");
        let skill_md = "---\nname: add-caching\ndescription: Add caching to a service.\nargs:\n  - name: service_name\n    description: The service.\n    required: true\n  - name: cache\n    description: Which cache.\n    enum: [redis, memory]\n    default: memory\n---\n# Add caching\n\n## Execution Steps\n\n### Phase 1: Write it\n\n**Template:** `templates/cache.md`\n**Target:** `src/{ServiceName}/Cache.cs`\n**Condition:** cache == redis\n";
        let snapshot = SkillSnapshot::new(
            skill_md.to_owned(),
            vec![skillpath_model::SkillFile {
                path: "templates/cache.md".into(),
                bytes: b"{{#if redis}}Redis for {ServiceName}{{/if}}\n".to_vec(),
            }],
        )
        .expect("a snapshot");
        let (temp, store) = seeded_store(&runtime, vec![snapshot]);
        let store: Arc<dyn Store> = Arc::new(store);
        Fixture {
            _temp: temp,
            runtime,
            store,
        }
    })
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const PING: &str = r#"{"jsonrpc":"2.0","id":"fuzz-ping","method":"ping"}"#;

fuzz_target!(|data: &[u8]| {
    let fixture = fixture();
    fixture.runtime.block_on(async {
        let server = SkillServer::new(Arc::clone(&fixture.store), ServerOptions::default())
            .await
            .expect("a server");
        let (client, server_end) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server_end);
        let mut running = tokio::spawn(async move {
            if let Ok(service) = server.serve((server_read, server_write)).await {
                let _ = service.waiting().await;
            }
        });
        let (client_read, mut client_write) = tokio::io::split(client);
        let mut lines = BufReader::new(client_read).lines();
        let mut message = Vec::new();
        for part in [
            INITIALIZE.as_bytes(),
            b"\n",
            INITIALIZED.as_bytes(),
            b"\n",
            data,
            b"\n",
            PING.as_bytes(),
            b"\n",
        ] {
            message.extend_from_slice(part);
        }
        client_write
            .write_all(&message)
            .await
            .expect("the server reads");
        let answered = tokio::time::timeout(Duration::from_secs(10), async {
            while let Ok(Some(line)) = lines.next_line().await {
                if line.contains("\"fuzz-ping\"") {
                    return true;
                }
            }
            false
        })
        .await;
        assert!(
            matches!(answered, Ok(true)),
            "the server stopped answering after {:?}",
            String::from_utf8_lossy(data)
        );
        // End the session the way a client does, by closing its end, and let the server finish
        // what it was doing (a `create_skill` may still be writing).
        drop(client_write);
        drop(lines);
        if tokio::time::timeout(Duration::from_secs(10), &mut running)
            .await
            .is_err()
        {
            running.abort();
            panic!("the server did not end its session after the client closed it");
        }
    });
});
