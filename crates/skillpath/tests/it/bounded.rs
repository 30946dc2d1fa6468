//! What one server's clients can hold is bounded: oversized arguments, many sessions with large
//! `clientInfo`, and hundreds of half-open connections each leave the server's memory within a
//! stated bound and the server answering everyone else. Real processes, real sockets; the
//! memory is the server's `VmRSS`, sampled while the clients push.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::{HttpServer, call_tool, mcp_request, rss_kib};

fn examples() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/skills"
    ))
}

/// Samples the server's RSS every 20 ms until `done`; the highest value, in KiB.
fn peak_while(pid: u32, done: &Arc<AtomicBool>) -> std::thread::JoinHandle<u64> {
    let done = Arc::clone(done);
    std::thread::spawn(move || {
        let mut peak = 0;
        while !done.load(Ordering::Relaxed) {
            peak = peak.max(rss_kib(pid).unwrap_or(0));
            std::thread::sleep(Duration::from_millis(20));
        }
        peak
    })
}

fn healthy(server: &HttpServer) -> Duration {
    let started = Instant::now();
    assert_eq!(server.status("GET", "/healthz", &[], b""), 200);
    started.elapsed()
}

/// Eight clients at once call a stock skill with two 7,000,000-character values each (what
/// once cost 780 MB per call and aborted the process): each is refused naming the limit, and
/// the server's memory grows by less than 400 MiB (the requests themselves are 14 MB each,
/// parsed).
#[test]
fn eight_oversized_renders_at_once_are_refused_within_bounded_memory() {
    let work = tempfile::tempdir().expect("tempdir");
    let skills = examples().display().to_string();
    let server = HttpServer::start(work.path(), &["--stateless", "--skills", &skills]);
    let before = rss_kib(server.pid()).expect("rss");
    let huge = "x".repeat(7_000_000);
    let done = Arc::new(AtomicBool::new(false));
    let sampler = peak_while(server.pid(), &done);
    let calls: Vec<_> = (0..8)
        .map(|_| {
            let address = server.address.clone();
            let huge = huge.clone();
            std::thread::spawn(move || {
                call_tool(
                    &address,
                    "add-endpoint",
                    json!({"service_name": huge, "entity_name": huge}),
                )
            })
        })
        .collect();
    for call in calls {
        let (is_error, text) = call.join().expect("client").expect("an answer");
        assert!(is_error, "{}", &text[..text.len().min(300)]);
        assert!(
            text.contains("is 7000000 bytes long; the limit is 65536 bytes"),
            "{}",
            &text[..text.len().min(300)]
        );
    }
    done.store(true, Ordering::Relaxed);
    let peak = sampler.join().expect("sampler");
    let grown = peak.saturating_sub(before);
    eprintln!(
        "bounded: 8 oversized renders: RSS {} MiB before, peak {} MiB",
        before / 1024,
        peak / 1024
    );
    assert!(
        grown < 400 * 1024,
        "the server grew by {} MiB",
        grown / 1024
    );
    assert!(healthy(&server) < Duration::from_secs(1));
    let (is_error, text) = call_tool(
        &server.address,
        "add-endpoint",
        json!({"service_name": "Orders", "entity_name": "Order"}),
    )
    .expect("a normal call");
    assert!(!is_error, "{text}");
}

/// One `initialize` (a new session) with `client_info_name`; the JSON-RPC answer.
fn initialize(address: &str, client_info_name: &str) -> serde_json::Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": client_info_name, "version": "1"}}})
    .to_string();
    let mut stream = TcpStream::connect(address).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).expect("send");
    let mut response = String::new();
    let _ = stream.read_to_string(&mut response);
    response
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str(data.trim()).ok())
        .next_back()
        .unwrap_or_else(|| json!({"http": response}))
}

/// A thousand sessions whose clients describe themselves at length (15 KiB each, under the
/// 16 KiB limit) are kept within 256 MiB (about 150 MiB measured); the next session is refused (the limit is 1,000);
/// 20 `initialize` requests with a 15 MB `clientInfo` are refused and keep nothing.
#[test]
fn a_thousand_sessions_with_large_client_info_stay_within_bounded_memory() {
    let work = tempfile::tempdir().expect("tempdir");
    let server = HttpServer::start(work.path(), &[]);
    let before = rss_kib(server.pid()).expect("rss");
    let done = Arc::new(AtomicBool::new(false));
    let sampler = peak_while(server.pid(), &done);

    let huge = "n".repeat(15_000_000);
    for _ in 0..20 {
        let answer = initialize(&server.address, &huge);
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("the limit is 16384"),
            "{}",
            &answer.to_string()[..300.min(answer.to_string().len())]
        );
    }
    let large = "n".repeat(15 * 1024);
    let kept = AtomicU64::new(0);
    std::thread::scope(|scope| {
        for _ in 0..10 {
            scope.spawn(|| {
                for _ in 0..100 {
                    let answer = initialize(&server.address, &large);
                    assert!(answer.get("result").is_some(), "{answer}");
                    kept.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
    });
    assert_eq!(kept.load(Ordering::Relaxed), 1000);
    let refused = initialize(&server.address, "one more");
    assert!(
        refused.to_string().contains("1000 open sessions"),
        "{refused}"
    );
    done.store(true, Ordering::Relaxed);
    let peak = sampler.join().expect("sampler");
    eprintln!(
        "bounded: 1,000 sessions: RSS {} MiB before, peak {} MiB",
        before / 1024,
        peak / 1024
    );
    assert!(
        peak.saturating_sub(before) < 256 * 1024,
        "the server grew by {} MiB",
        peak.saturating_sub(before) / 1024
    );
    assert!(healthy(&server) < Duration::from_secs(1));
}

/// Past the session cap (`--max-sessions 2`) an `initialize` is answered `503 Service
/// Unavailable` with `Retry-After` and a JSON-RPC error naming the limit (it was a `500`, as if
/// the server had failed); once a session ends, a new one is taken again.
#[test]
fn an_initialize_past_the_session_cap_is_told_to_retry_later() {
    let work = tempfile::tempdir().expect("tempdir");
    let server = HttpServer::start(work.path(), &["--max-sessions", "2"]);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "capped", "version": "1"}}})
    .to_string();
    let headers = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    let open = || server.exchange("POST", "/mcp", &headers, body.as_bytes());
    let session_of = |response: &str| {
        response
            .lines()
            .find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.eq_ignore_ascii_case("mcp-session-id")
                    .then(|| value.trim().to_owned())
            })
            .unwrap_or_else(|| panic!("a session: {response}"))
    };
    let first = session_of(&open());
    session_of(&open());
    let refused = open();
    assert!(refused.starts_with("HTTP/1.1 503"), "{refused}");
    assert!(
        refused
            .to_ascii_lowercase()
            .contains("\r\nretry-after: 10\r\n"),
        "{refused}"
    );
    let error: serde_json::Value =
        serde_json::from_str(refused.split("\r\n\r\n").nth(1).expect("a body"))
            .expect("a JSON-RPC error");
    assert_eq!(
        error["error"]["message"],
        "the server has 2 open sessions, its limit; end one, or wait for an idle one to expire",
        "{refused}"
    );
    let ended = server.status(
        "DELETE",
        "/mcp",
        &[
            ("Mcp-Session-Id", &first),
            ("MCP-Protocol-Version", "2025-11-25"),
        ],
        b"",
    );
    assert_eq!(ended, 200);
    session_of(&open());
}

/// 500 connections that send a request line and a `Host` header and then nothing: `/healthz`
/// and a real client are served meanwhile, and each of the 500 is closed once the header
/// timeout (2 s here) passes.
#[test]
fn five_hundred_half_open_connections_stop_no_one_and_are_closed() {
    let work = tempfile::tempdir().expect("tempdir");
    let skills = examples().display().to_string();
    let server = HttpServer::start(
        work.path(),
        &["--stateless", "--skills", &skills, "--header-timeout", "2"],
    );
    let opened = Instant::now();
    let mut half_open: Vec<TcpStream> = (0..500)
        .map(|_| {
            let mut stream = TcpStream::connect(&server.address).expect("connect");
            let head = format!("POST /mcp HTTP/1.1\r\nHost: {}\r\n", server.address);
            stream.write_all(head.as_bytes()).expect("send");
            stream
        })
        .collect();
    eprintln!(
        "bounded: 500 half-open connections opened in {:?}",
        opened.elapsed()
    );
    assert!(healthy(&server) < Duration::from_secs(1));
    eprintln!("bounded: /healthz answered at {:?}", opened.elapsed());
    let answer = mcp_request(&server.address, "tools/list", &json!({})).expect("a real client");
    assert!(
        answer["result"]["tools"]
            .as_array()
            .is_some_and(|tools| !tools.is_empty())
    );
    assert!(
        opened.elapsed() < Duration::from_secs(2),
        "the checks ran before the timeout"
    );
    for stream in &mut half_open {
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        let mut rest = Vec::new();
        // The server closes the connection (after a 408, or without a word): the read ends.
        let ended = stream.read_to_end(&mut rest).is_ok();
        assert!(ended, "a half-open connection was not closed");
    }
    assert!(
        opened.elapsed() < Duration::from_secs(12),
        "closed after the timeout: {:?}",
        opened.elapsed()
    );
    assert!(healthy(&server) < Duration::from_secs(1));
}

/// `serve` raises its soft limit on open files to the hard limit at start: started with a soft
/// limit of 256 (below `--max-connections`), it runs with its hard limit.
#[test]
fn serve_raises_its_open_file_limit() {
    use std::io::BufRead as _;
    let work = tempfile::tempdir().expect("tempdir");
    let mut child = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -S -n 256 && exec \"$0\" serve --no-discover --http 127.0.0.1:0")
        .arg(crate::support::skillpath_bin())
        .env("SKILLPATH_DB", work.path().join("store.db"))
        .env("HOME", work.path())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start");
    let stderr = child.stderr.take().expect("stderr");
    for line in std::io::BufReader::new(stderr)
        .lines()
        .map_while(Result::ok)
    {
        if line.contains("serving MCP on") {
            break;
        }
    }
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", child.id())).expect("limits");
    let _ = child.kill();
    let _ = child.wait();
    let open_files = limits
        .lines()
        .find(|line| line.starts_with("Max open files"))
        .expect("the open-files line");
    let numbers: Vec<&str> = open_files.split_whitespace().skip(3).take(2).collect();
    assert_eq!(numbers.len(), 2, "{open_files}");
    assert_eq!(
        numbers[0], numbers[1],
        "soft limit raised to the hard one: {open_files}"
    );
    assert_ne!(numbers[0], "256", "{open_files}");
}

/// 100,000 calls spread over 10,000 skills leave the server's memory flat: after a first round
/// that has called every skill once (catalog, content cache and allocator warm), its RSS grows
/// by less than 24 MiB over the next nine rounds, with a content cache of 8 MiB that the
/// skills overflow (each call's content read again, parsed and dropped, or kept by the
/// cache's bound). Calls go over stdio, pipelined a hundred at a time.
#[test]
fn memory_stays_flat_over_100000_calls_spread_over_10000_skills() {
    const SKILLS: usize = 10_000;
    const ROUNDS: usize = 10;
    let work = tempfile::tempdir().expect("tempdir");
    let tree = work.path().join("skills");
    // Large enough (about 2 KB each, 20 MB in all) that the cache cannot hold them all.
    let body = "Follow these steps with care and report what you did.\n".repeat(36);
    for index in 0..SKILLS {
        let name = format!("skill-{index:05}");
        let dir = tree.join(&name);
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: Use when testing call {index}.\n---\n# {name}\n\n{body}"),
        )
        .expect("write");
    }
    let db = work.path().join("store.db");
    let (code, _, stderr) = crate::support::run_in(
        work.path(),
        &[
            "import",
            &tree.display().to_string(),
            "--db",
            &db.display().to_string(),
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    let mut command = std::process::Command::new(crate::support::skillpath_bin());
    command
        .args(["serve", "--no-discover", "--content-cache-mb", "8", "--db"])
        .arg(&db)
        .env("HOME", work.path());
    let mut server = crate::mcp_wire::Server::spawn(command);
    let round = |server: &mut crate::mcp_wire::Server, round: usize| {
        for batch in 0..SKILLS / 100 {
            let calls: Vec<serde_json::Value> = (0..100)
                .map(|i| {
                    let index = (batch * 100 + i + round * 37) % SKILLS;
                    json!({"name": "load_skill", "arguments": {"name": format!("skill-{index:05}")}})
                })
                .collect();
            for result in server.pipelined("tools/call", &calls) {
                let text = result["result"]["content"][0]["text"]
                    .as_str()
                    .unwrap_or_default();
                assert!(text.contains("Follow these steps"), "{result}");
            }
        }
    };
    round(&mut server, 0);
    let warm = rss_kib(server.pid()).expect("rss");
    let mut peak = warm;
    for number in 1..ROUNDS {
        round(&mut server, number);
        peak = peak.max(rss_kib(server.pid()).expect("rss"));
    }
    eprintln!(
        "{} calls over {SKILLS} skills: RSS {} MiB after the first round, at most {} MiB after",
        SKILLS * ROUNDS,
        warm / 1024,
        peak / 1024
    );
    assert!(
        peak < warm + 24 * 1024,
        "memory grew from {warm} KiB to {peak} KiB over {} calls",
        SKILLS * ROUNDS
    );
}
