//! The bounded load test: one `skillpath serve --http --stateless` on loopback with its store
//! in SQLite, and 50 client threads (blocking HTTP/1.1 with keep-alive, one connection each)
//! mixing reads, calls and writes for `$SKILLPATH_LOAD_SECONDS` seconds (default 5, so the
//! suite stays fast; the full run is `SKILLPATH_LOAD_SECONDS=60`, best in a release build:
//! `cargo nextest run --release -p skillpath load --no-capture`).
//!
//! Every client repeatedly picks one of: `tools/list` (its first page), `resources/read` of a skill's
//! `SKILL.md`, a call of a skill's own tool (rendering it), `search_skills`, `get_skill`,
//! `update_skill` of one of a few shared skills at the revision it last saw (so some writes
//! are refused as stale: expected), and now and then `create_skill` of a new name.
//!
//! It asserts that no answer is an error other than a stale-write refusal, that afterwards
//! every acknowledged revision is in its skill's history with the description sent (and every
//! history is numbered 1..n), that the server logged no panic, and that its resident memory
//! (`VmRSS`, sampled every second) stays flat once the first third of the run has warmed it
//! up. The figures (requests per second per kind, p50/p99 latency, stale refusals, RSS) go to
//! stderr.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::crash_consistency::INCONSISTENT_SKILLS;
use crate::support::{HttpServer, Rng, rss_kib};

/// Client threads.
const CLIENTS: usize = 50;
/// Skills every client reads, calls and updates.
const SHARED: usize = 8;
/// New skills each client creates at most (then it updates instead): enough to exercise `create_skill` throughout, few
/// enough that the catalog's growth does not pass for a leak.
const CREATES_PER_CLIENT: usize = 10;

/// Memory growth allowed after warm-up: 30% of the first sample after warm-up, or 20 MiB,
/// whichever is larger. The server's memory legitimately grows a little after warm-up: its
/// catalog holds the up to 500 skills created during the run (a few KiB each, parsed, with
/// their tool schemas), SQLite's page cache fills as the database grows (up to its 32 MiB
/// limit, far more than this database's size), and the allocator keeps freed memory for
/// reuse. A leak per request (at thousands of requests per second) passes this bound within
/// seconds; fragmentation and caches settle below it.
const RSS_GROWTH_FRACTION: f64 = 0.30;
const RSS_GROWTH_FLOOR_KIB: u64 = 20 * 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    ToolsList,
    ResourcesRead,
    Render,
    Search,
    GetSkill,
    Update,
    Create,
}

impl Kind {
    /// Relative frequency of each kind (out of 100).
    const MIX: [(Kind, u64); 7] = [
        (Kind::ToolsList, 14),
        (Kind::ResourcesRead, 14),
        (Kind::Render, 20),
        (Kind::Search, 14),
        (Kind::GetSkill, 14),
        (Kind::Update, 20),
        (Kind::Create, 4),
    ];

    fn pick(rng: &mut Rng) -> Kind {
        let mut roll = rng.below(100);
        for (kind, weight) in Kind::MIX {
            if roll < weight {
                return kind;
            }
            roll -= weight;
        }
        Kind::GetSkill
    }
}

/// One keep-alive HTTP/1.1 connection to the server's `/mcp`.
struct Connection {
    address: String,
    reader: Option<BufReader<TcpStream>>,
}

impl Connection {
    fn new(address: &str) -> Connection {
        Connection {
            address: address.to_owned(),
            reader: None,
        }
    }

    /// One JSON-RPC request; its answer (the last SSE `data:` line, or a JSON body).
    fn request(&mut self, method: &str, params: Value) -> Result<Value, String> {
        let body =
            json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
        let result = self.exchange(&body);
        if result.is_err() {
            // A broken connection is not reused.
            self.reader = None;
        }
        result
    }

    fn exchange(&mut self, body: &str) -> Result<Value, String> {
        let reader = match &mut self.reader {
            Some(reader) => reader,
            None => {
                let stream = TcpStream::connect(&self.address)
                    .map_err(|error| format!("connect: {error}"))?;
                stream
                    .set_read_timeout(Some(Duration::from_secs(30)))
                    .map_err(|error| error.to_string())?;
                stream
                    .set_nodelay(true)
                    .map_err(|error| error.to_string())?;
                self.reader.insert(BufReader::new(stream))
            }
        };
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n\
             Content-Length: {}\r\n\r\n{body}",
            self.address,
            body.len()
        );
        reader
            .get_mut()
            .write_all(request.as_bytes())
            .map_err(|error| format!("send: {error}"))?;
        let io = |error: std::io::Error| format!("receive: {error}");
        let mut status = String::new();
        reader.read_line(&mut status).map_err(io)?;
        if !status.starts_with("HTTP/1.1 200") {
            return Err(format!("status {status:?}"));
        }
        let (mut chunked, mut length, mut close) = (false, None, false);
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).map_err(io)?;
            let line = line.trim_end().to_ascii_lowercase();
            if line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                let value = value.trim();
                match name.trim() {
                    "transfer-encoding" => chunked = value.contains("chunked"),
                    "content-length" => length = value.parse::<usize>().ok(),
                    "connection" => close = value.contains("close"),
                    _ => {}
                }
            }
        }
        let mut payload = Vec::new();
        if chunked {
            loop {
                let mut size = String::new();
                reader.read_line(&mut size).map_err(io)?;
                let size = usize::from_str_radix(size.trim().split(';').next().unwrap_or(""), 16)
                    .map_err(|error| format!("chunk size: {error}"))?;
                let mut chunk = vec![0; size + 2];
                reader.read_exact(&mut chunk).map_err(io)?;
                if size == 0 {
                    break;
                }
                chunk.truncate(size);
                payload.extend(chunk);
            }
        } else if let Some(length) = length {
            payload.resize(length, 0);
            reader.read_exact(&mut payload).map_err(io)?;
        } else {
            reader.read_to_end(&mut payload).map_err(io)?;
            close = true;
        }
        if close {
            self.reader = None;
        }
        let payload = String::from_utf8(payload).map_err(|error| error.to_string())?;
        payload
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .next_back()
            .or_else(|| serde_json::from_str(payload.trim()).ok())
            .ok_or_else(|| format!("no JSON-RPC answer: {payload}"))
    }

    /// A `tools/call`: `Ok((is_error, text))`, or `Err` for a JSON-RPC error or a broken exchange.
    fn call(&mut self, tool: &str, arguments: Value) -> Result<(bool, String), String> {
        let answer = self.request("tools/call", json!({"name": tool, "arguments": arguments}))?;
        let result = answer
            .get("result")
            .ok_or_else(|| format!("JSON-RPC error: {answer}"))?;
        let text = result["content"][0]["text"]
            .as_str()
            .ok_or_else(|| format!("no text: {answer}"))?;
        Ok((
            result["isError"].as_bool().unwrap_or(false),
            text.to_owned(),
        ))
    }
}

/// A shared skill's name: before every created skill's (`load-c…`) in name order, so it is on
/// the first page of `tools/list` however many skills are created.
fn shared_name(index: usize) -> String {
    format!("a-shared-{index}")
}

/// A Golden Path skill with one required argument, so calling its tool renders it.
fn shared_spec(index: usize) -> Value {
    json!({
        "name": shared_name(index),
        "description": format!("Use when loading the server with shared skill {index}."),
        "title": format!("Shared {index}"),
        "args": [{"name": "service_name", "description": "The service.", "required": true}],
        "sections": [{"type": "execution-steps", "heading": "Execution Steps", "content": ""}],
        "phases": [{"name": "Write it", "content": "Write the {ServiceName} service."}],
    })
}

/// What one client saw.
#[derive(Default)]
struct Tally {
    latencies: BTreeMap<Kind, Vec<Duration>>,
    errors: Vec<String>,
    stale: usize,
    /// Acknowledged writes: (name, revision, description).
    acknowledged: Vec<(String, u64, String)>,
}

/// The revision a stale-write refusal says the skill is at.
fn current_revision(refusal: &str) -> Option<u64> {
    refusal
        .split(" is at revision ")
        .nth(1)?
        .split(',')
        .next()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// A client's own state.
struct Client {
    index: usize,
    rng: Rng,
    /// The revision of each shared skill this client last saw.
    known: [u64; SHARED],
    created: usize,
    tally: Tally,
}

/// One request of `kind`; `Err` when its answer is wrong.
fn one(
    connection: &mut Connection,
    kind: Kind,
    step: usize,
    state: &mut Client,
) -> Result<(), String> {
    let client = state.index;
    let Client {
        rng,
        known,
        created,
        tally,
        ..
    } = state;
    let index = rng.below(SHARED as u64) as usize;
    let name = shared_name(index);
    match kind {
        Kind::ToolsList => {
            let answer = connection.request("tools/list", json!({}))?;
            let tools = answer["result"]["tools"]
                .as_array()
                .ok_or_else(|| format!("tools/list: {answer}"))?;
            if !tools.iter().any(|tool| tool["name"] == name) {
                return Err(format!("tools/list lacks `{name}`"));
            }
        }
        Kind::ResourcesRead => {
            let uri = format!("skill://{name}/SKILL.md");
            let answer = connection.request("resources/read", json!({"uri": uri}))?;
            let text = answer["result"]["contents"][0]["text"]
                .as_str()
                .ok_or_else(|| format!("resources/read {uri}: {answer}"))?;
            if !text.contains(&format!("name: {name}\n")) {
                return Err(format!("resources/read {uri}: {text}"));
            }
        }
        Kind::Render => {
            let service = format!("Service{client}x{step}");
            let (is_error, text) = connection.call(&name, json!({"service_name": service}))?;
            if is_error || !text.contains(&format!("Write the {service} service.")) {
                return Err(format!("{name}: {text}"));
            }
        }
        Kind::Search => {
            let (is_error, text) = connection.call(
                "search_skills",
                json!({"query": format!("shared skill {index}")}),
            )?;
            if is_error || !text.contains(&name) {
                return Err(format!("search_skills: {text}"));
            }
        }
        Kind::GetSkill => {
            let (is_error, text) = connection.call("get_skill", json!({"name": name}))?;
            let skill: Value =
                serde_json::from_str(&text).map_err(|_| format!("get_skill: {text}"))?;
            if is_error || skill["name"] != name.as_str() {
                return Err(format!("get_skill: {text}"));
            }
        }
        Kind::Update => {
            let expected = known[index];
            let description = format!(
                "Use when loading the server with shared skill {index}, client {client} step {step}."
            );
            let (is_error, text) = connection.call(
                "update_skill",
                json!({"name": name, "expected_revision": expected, "description": description}),
            )?;
            if !is_error
                && text.starts_with(&format!("Updated `{name}` to revision {}.", expected + 1))
            {
                known[index] = expected + 1;
                tally.acknowledged.push((name, expected + 1, description));
            } else if is_error && text.contains("it was changed since you read it") {
                tally.stale += 1;
                known[index] = current_revision(&text)
                    .ok_or_else(|| format!("a refusal without the current revision: {text}"))?;
            } else {
                return Err(format!("update_skill: {text}"));
            }
        }
        Kind::Create => {
            *created += 1;
            let new = format!("load-c{client}-{step}");
            let description =
                format!("Use when loading the server with client {client}'s skill {step}.");
            let (is_error, text) = connection.call(
                "create_skill",
                json!({"name": new, "description": description}),
            )?;
            if is_error || !text.starts_with(&format!("Created `{new}` at revision 1;")) {
                return Err(format!("create_skill: {text}"));
            }
            tally.acknowledged.push((new, 1, description));
        }
    }
    Ok(())
}

fn client(address: String, index: usize, until: Instant) -> Tally {
    let mut connection = Connection::new(&address);
    let mut state = Client {
        index,
        rng: Rng::new(0x10AD_0000 + index as u64),
        known: [1; SHARED],
        created: 0,
        tally: Tally::default(),
    };
    for step in 0.. {
        if Instant::now() >= until {
            break;
        }
        let kind = match Kind::pick(&mut state.rng) {
            // A client that has created its share of skills updates instead.
            Kind::Create if state.created >= CREATES_PER_CLIENT => Kind::Update,
            kind => kind,
        };
        let started = Instant::now();
        let outcome = one(&mut connection, kind, step, &mut state);
        let took = started.elapsed();
        match outcome {
            Ok(()) => state.tally.latencies.entry(kind).or_default().push(took),
            Err(error) => state.tally.errors.push(format!("{kind:?}: {error}")),
        }
    }
    state.tally
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let at = ((sorted.len() as f64 * fraction).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[at]
}

#[test]
fn load_fifty_clients_mixed_reads_calls_and_writes() {
    let seconds: u64 = std::env::var("SKILLPATH_LOAD_SECONDS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(5)
        .max(3);
    let duration = Duration::from_secs(seconds);
    let work = tempfile::tempdir().expect("tempdir");
    // One tool per skill however many there are (`--tools auto` would switch to the loader
    // above 40 skills, and the skills' tools would leave `tools/list`).
    let server = HttpServer::start(work.path(), &["--stateless", "--tools", "per-skill"]);
    let mut setup = Connection::new(&server.address);
    for index in 0..SHARED {
        let (is_error, text) = setup
            .call("create_skill", shared_spec(index))
            .expect("create a shared skill");
        assert!(!is_error, "{text}");
    }

    let stop = Arc::new(AtomicBool::new(false));
    let samples = Arc::new(Mutex::new(Vec::new()));
    let started = Instant::now();
    let sampler = {
        let (stop, samples, pid) = (Arc::clone(&stop), Arc::clone(&samples), server.pid());
        std::thread::spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                if let Some(kib) = rss_kib(pid) {
                    samples
                        .lock()
                        .expect("samples")
                        .push((started.elapsed(), kib));
                }
                std::thread::sleep(Duration::from_secs(1));
            }
        })
    };
    let until = started + duration;
    let clients: Vec<_> = (0..CLIENTS)
        .map(|index| {
            let address = server.address.clone();
            std::thread::spawn(move || client(address, index, until))
        })
        .collect();
    let tallies: Vec<Tally> = clients
        .into_iter()
        .map(|client| client.join().expect("client"))
        .collect();
    let elapsed = started.elapsed();
    stop.store(true, Ordering::SeqCst);
    sampler.join().expect("sampler");

    // Figures.
    let mut latencies: BTreeMap<Kind, Vec<Duration>> = BTreeMap::new();
    let mut errors = Vec::new();
    let mut acknowledged = Vec::new();
    let mut stale = 0;
    for tally in tallies {
        for (kind, list) in tally.latencies {
            latencies.entry(kind).or_default().extend(list);
        }
        errors.extend(tally.errors);
        acknowledged.extend(tally.acknowledged);
        stale += tally.stale;
    }
    let seconds_run = elapsed.as_secs_f64();
    let total: usize = latencies.values().map(Vec::len).sum();
    let mut all = Vec::with_capacity(total);
    eprintln!(
        "load: {CLIENTS} clients for {elapsed:.1?} ({} build): {total} requests answered, {:.0} req/s",
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
        total as f64 / seconds_run
    );
    for (kind, list) in &mut latencies {
        list.sort();
        all.extend(list.iter().copied());
        eprintln!(
            "load:   {:<14} {:>7} ({:>6.0}/s)  p50 {:>9.2?}  p99 {:>9.2?}  max {:>9.2?}",
            format!("{kind:?}"),
            list.len(),
            list.len() as f64 / seconds_run,
            percentile(list, 0.50),
            percentile(list, 0.99),
            percentile(list, 1.0),
        );
    }
    all.sort();
    eprintln!(
        "load:   all            p50 {:.2?}  p99 {:.2?}; {} writes acknowledged, {stale} refused as stale, {} errors",
        percentile(&all, 0.50),
        percentile(&all, 0.99),
        acknowledged.len(),
        errors.len()
    );
    let samples = samples.lock().expect("samples").clone();
    let warm: Vec<u64> = samples
        .iter()
        .filter(|(at, _)| *at >= duration / 3)
        .map(|(_, kib)| *kib)
        .collect();
    let first = warm.first().copied().unwrap_or(0);
    let (low, high) = (
        warm.iter().copied().min().unwrap_or(0),
        warm.iter().copied().max().unwrap_or(0),
    );
    eprintln!(
        "load:   RSS after warm-up ({} samples): first {:.1} MiB, min {:.1} MiB, max {:.1} MiB, last {:.1} MiB (all samples: {:?} KiB)",
        warm.len(),
        mib(first),
        mib(low),
        mib(high),
        mib(warm.last().copied().unwrap_or(0)),
        samples.iter().map(|(_, kib)| *kib).collect::<Vec<_>>()
    );

    // Assertions.
    assert!(
        errors.is_empty(),
        "{} errors other than stale refusals, e.g. {:?}\nserver log:\n{}",
        errors.len(),
        &errors[..errors.len().min(10)],
        server.log()
    );
    assert!(!server.log().contains("panicked"), "{}", server.log());
    for kind in Kind::MIX.map(|(kind, _)| kind) {
        assert!(
            latencies.get(&kind).is_some_and(|list| !list.is_empty()),
            "no {kind:?} request was answered"
        );
    }
    assert!(
        stale > 0,
        "no write was refused as stale: the test does not race"
    );
    assert!(warm.len() >= 2, "too few memory samples: {samples:?}");
    let allowed = ((first as f64 * RSS_GROWTH_FRACTION) as u64).max(RSS_GROWTH_FLOOR_KIB);
    assert!(
        high <= first + allowed,
        "the server's memory grew from {first} KiB to {high} KiB after warm-up (allowed: {allowed} KiB more)"
    );

    let database_kib: u64 = ["store.db", "store.db-wal"]
        .iter()
        .filter_map(|file| std::fs::metadata(work.path().join(file)).ok())
        .map(|metadata| metadata.len() / 1024)
        .sum();
    eprintln!(
        "load:   database and log at the end: {:.1} MiB",
        mib(database_kib)
    );

    // Every acknowledged revision is in its skill's history with the description sent.
    let connection =
        rusqlite::Connection::open(work.path().join("store.db")).expect("the database opens");
    let inconsistent: i64 = connection
        .query_row(INCONSISTENT_SKILLS, [], |row| row.get(0))
        .expect("query");
    assert_eq!(inconsistent, 0, "a skill's history is not numbered 1..n");
    let mut statement = connection
        .prepare(
            "SELECT r.description FROM revisions r JOIN skills s ON s.id = r.skill_id
             WHERE s.name = ?1 AND r.number = ?2",
        )
        .expect("prepare");
    for (name, revision, description) in &acknowledged {
        let stored: Option<String> = statement
            .query_row(rusqlite::params![name, *revision as i64], |row| row.get(0))
            .ok();
        assert_eq!(
            stored.as_deref(),
            Some(description.as_str()),
            "acknowledged revision {revision} of `{name}`"
        );
    }
    drop(server);
}
