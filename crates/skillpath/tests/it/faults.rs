//! Faults a server must survive. Here: a shutdown (SIGTERM) while clients write: every write
//! is either answered or not in the store, the calls after it get a clean refusal, and the
//! server ends with status 0 within its drain time; on SQLite and on PostgreSQL. Over stdio,
//! the way agents stop a server (SIGINT, SIGTERM 100 ms later, stdin left open) ends it
//! promptly with every call counted.

use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::postgres_support::Schema;
use crate::support::{HttpServer, call_tool, skillpath_bin};

/// What `call_tool` gave: whether the result is an error, and its text; or why there was none.
type Answer = Result<(bool, String), String>;

/// The names in the store `db`.
fn stored_names(db: &str) -> Vec<String> {
    let output = std::process::Command::new(skillpath_bin())
        .args(["list", "--limit", "1000", "--format", "json", "--db", db])
        .output()
        .expect("list");
    assert!(output.status.success(), "{output:?}");
    let page: Value = serde_json::from_slice(&output.stdout).expect("json");
    page["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|item| item["name"].as_str().map(str::to_owned))
        .collect()
}

/// Eight clients call `create_skill` one after another, as fast as they are answered, until
/// one is refused; SIGTERM once sixteen creates are answered (however slow the machine), so
/// writes are in flight when it comes.
fn sigterm_during_concurrent_writes(db: &str) {
    let work = tempfile::tempdir().expect("tempdir");
    let mut server = HttpServer::start(work.path(), &["--stateless", "--db", db]);
    let start = Arc::new(Barrier::new(9));
    let answered = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let clients: Vec<_> = (0..8)
        .map(|client| {
            let address = server.address.clone();
            let start = Arc::clone(&start);
            let answered = Arc::clone(&answered);
            std::thread::spawn(move || {
                start.wait();
                let mut answers = Vec::new();
                for n in 0.. {
                    let name = format!("drained-{client}-{n}");
                    let answer = call_tool(
                        &address,
                        "create_skill",
                        json!({"name": name, "description": "Use when testing a shutdown under load."}),
                    );
                    let created = matches!(&answer, Ok((false, _)));
                    answered.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    answers.push((name, answer));
                    if !created {
                        break;
                    }
                }
                answers
            })
        })
        .collect();
    start.wait();
    let under_way = Instant::now() + Duration::from_secs(30);
    while answered.load(std::sync::atomic::Ordering::SeqCst) < 16 && Instant::now() < under_way {
        std::thread::sleep(Duration::from_millis(5));
    }
    let stopping = Instant::now();
    let code = server.terminate(Duration::from_secs(10));
    let took = stopping.elapsed();
    let answers: Vec<(String, Answer)> = clients
        .into_iter()
        .flat_map(|client| client.join().expect("client"))
        .collect();
    assert_eq!(code, Some(0), "{}", server.log());
    assert!(took < Duration::from_secs(7), "drained in {took:?}");
    let stored = stored_names(db);
    let mut created = 0;
    for (name, answer) in &answers {
        let acknowledged =
            matches!(answer, Ok((false, text)) if text.starts_with(&format!("Created `{name}`")));
        assert_eq!(
            stored.contains(name),
            acknowledged,
            "`{name}`: stored {} but answered {answer:?}",
            stored.contains(name)
        );
        if acknowledged {
            created += 1;
        } else {
            // Refused cleanly: by the server while closing, with 503, or never connected.
            let clean = match answer {
                Ok((true, text)) => text.contains("shutting down"),
                Err(error) => {
                    error.contains("503") || error.contains("connect") || error.contains("refused")
                }
                Ok((false, _)) => false,
            };
            assert!(clean, "`{name}`: {answer:?}");
        }
    }
    assert_eq!(
        stored.len(),
        created,
        "nothing stored that was not answered"
    );
    assert!(created >= 16, "writes were under way: {created}");
    eprintln!(
        "faults: SIGTERM after 16 answers to 8 clients writing: {created} creates answered and stored, {} refused cleanly, ended in {took:?}",
        answers.len() - created
    );
}

#[test]
fn sigterm_during_concurrent_writes_sqlite() {
    let work = tempfile::tempdir().expect("tempdir");
    let db = work.path().join("faults.db");
    sigterm_during_concurrent_writes(&db.display().to_string());
}

#[test]
fn sigterm_during_concurrent_writes_postgres() {
    let schema = Schema::create("sigterm");
    sigterm_during_concurrent_writes(&schema.url());
}

/// Over stdio: calls sent around SIGTERM each get an answer (created and stored, or refused as
/// the server closes, and then not stored), and the server ends with status 0.
#[test]
fn sigterm_over_stdio_answers_every_call() {
    let work = tempfile::tempdir().expect("tempdir");
    let skills = work.path().join("skills");
    std::fs::create_dir_all(&skills).expect("mkdir");
    let mut server = crate::mcp_wire::Server::start(&skills, work.path());
    let call = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "create_skill",
            "arguments": {"name": format!("call-{id}"), "description": "Use when testing a shutdown over stdio."}}})
        .to_string()
    };
    for id in 100..105 {
        server.send_line(&call(id));
    }
    server.signal("TERM");
    for id in 105..110 {
        server.send_line(&call(id));
    }
    let mut answers = std::collections::BTreeMap::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    while answers.len() < 10 && Instant::now() < deadline {
        if let Some(message) = server.next_message(Duration::from_millis(200))
            && let Some(id) = message["id"].as_u64()
        {
            answers.insert(id, message);
        }
    }
    let (code, log) = server.finish();
    assert_eq!(code, Some(0), "{log}");
    assert!(log.contains("skillpath: shutting down"), "{log}");
    assert_eq!(answers.len(), 10, "every call is answered: {answers:#?}");
    let stored = stored_names(&work.path().join("store.db").display().to_string());
    for (id, answer) in &answers {
        let text = answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        let created = answer["result"]["isError"] == false;
        assert!(
            created && text.starts_with(&format!("Created `call-{id}`"))
                || !created && text.contains("shutting down"),
            "{answer}"
        );
        assert_eq!(stored.contains(&format!("call-{id}")), created, "{answer}");
    }
}

/// The example skills' folder.
fn examples_dir() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/skills")
}

/// A call of `add-caching`'s tool (a use, once answered) with request id `id`.
fn add_caching_call(id: u64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "add-caching", "arguments": {"service_name": format!("Service{id}")}}})
    .to_string()
}

/// How many calls of `skill` the store `db` counted (`skillpath usage`).
fn calls_counted(db: &std::path::Path, skill: &str) -> u64 {
    let output = std::process::Command::new(skillpath_bin())
        .args(["usage", "--format", "json", "--db"])
        .arg(db)
        .output()
        .expect("skillpath usage");
    assert!(output.status.success(), "{output:?}");
    let rows: Value = serde_json::from_slice(&output.stdout).expect("json");
    rows.as_array()
        .expect("rows")
        .iter()
        .filter(|row| row["skill"] == skill)
        .map(|row| row["calls"].as_u64().expect("calls"))
        .sum()
}

/// The way agents stop a stdio server (Claude Code sends SIGINT, then SIGTERM 100 ms later),
/// with skill calls just answered: the process ends well within 10 s (it once waited for
/// stdin to close, and the second signal ended it without writing the usage counts), and every
/// call is counted in the store.
#[test]
fn sigint_then_sigterm_over_stdio_ends_promptly_and_counts_the_calls() {
    let work = tempfile::tempdir().expect("tempdir");
    let mut server = crate::mcp_wire::Server::start(&examples_dir(), work.path());
    for id in 0..3 {
        let answer = server.call(
            "tools/call",
            json!({"name": "add-caching", "arguments": {"service_name": format!("Service{id}")}}),
        );
        assert_eq!(answer["result"]["isError"], false, "{answer}");
    }
    server.signal("INT");
    std::thread::sleep(Duration::from_millis(100));
    server.signal("TERM");
    let (code, log) = server.exit_within(Duration::from_secs(10));
    assert!(
        matches!(code, Some(0 | 1)),
        "ended within 10 s by itself: {code:?}\n{log}"
    );
    assert_eq!(
        calls_counted(&work.path().join("store.db"), "add-caching"),
        3,
        "{log}"
    );
}

/// One SIGINT while the client keeps stdin open ends the server once the calls it had sent
/// are answered (each one done, or refused as the server closes), with status 0 and the calls
/// done counted; it once went on until stdin closed.
#[test]
fn one_sigint_with_stdin_open_answers_the_calls_sent_and_ends() {
    let work = tempfile::tempdir().expect("tempdir");
    let mut server = crate::mcp_wire::Server::start(&examples_dir(), work.path());
    let sent: Vec<String> = (100..104).map(add_caching_call).collect();
    server.send_line(&sent.join("\n"));
    server.signal("INT");
    let mut answers = std::collections::BTreeMap::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    while answers.len() < sent.len() && Instant::now() < deadline {
        if let Some(message) = server.next_message(Duration::from_millis(200))
            && let Some(id) = message["id"].as_u64()
        {
            answers.insert(id, message);
        }
    }
    let (code, log) = server.exit_within(Duration::from_secs(10));
    assert_eq!(code, Some(0), "ended within 10 s with stdin open: {log}");
    assert_eq!(
        answers.len(),
        sent.len(),
        "every call is answered: {answers:#?}\n{log}"
    );
    let mut done = 0;
    for answer in answers.values() {
        let text = answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        if answer["result"]["isError"] == false {
            done += 1;
        } else {
            assert!(text.contains("shutting down"), "{answer}");
        }
    }
    assert_eq!(
        calls_counted(&work.path().join("store.db"), "add-caching"),
        done,
        "{log}"
    );
}

/// A watching server on a PostgreSQL that goes down: an edit to a skill folder made during the
/// outage reaches the store within seconds of the server coming back.
#[test]
fn a_folder_edit_during_a_database_outage_is_synced_after_it() {
    let postgres = crate::postgres_support::OwnPostgres::start();
    let work = tempfile::tempdir().expect("tempdir");
    let skills = work.path().join("skills");
    let write = |description: &str| {
        crate::support::write_skill(&skills.join("outage"), "outage", description);
    };
    write("Use when testing an outage (before).");
    let server = HttpServer::start(
        work.path(),
        &[
            "--stateless",
            "--db",
            &postgres.url(),
            "--skills",
            &skills.display().to_string(),
        ],
    );
    let described = |db: &str| -> Option<String> {
        let output = std::process::Command::new(skillpath_bin())
            .args(["show", "outage", "--format", "json", "--db", db])
            .output()
            .ok()?;
        let shown: Value = serde_json::from_slice(&output.stdout).ok()?;
        shown["description"].as_str().map(str::to_owned)
    };
    assert_eq!(
        described(&postgres.url()).as_deref(),
        Some("Use when testing an outage (before).")
    );
    postgres.stop();
    let report = server.exchange("GET", "/readyz", &[], b"");
    assert!(report.starts_with("HTTP/1.1 503"), "{report}");
    write("Use when testing an outage (during).");
    // The watcher tries, fails and says so.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !server.log().contains("syncing the skill folders failed") {
        assert!(Instant::now() < deadline, "{}", server.log());
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_secs(1));
    postgres.resume_start();
    let back = Instant::now();
    loop {
        if described(&postgres.url()).as_deref() == Some("Use when testing an outage (during).") {
            break;
        }
        assert!(
            back.elapsed() < Duration::from_secs(15),
            "the edit never reached the store:\n{}",
            server.log()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    eprintln!(
        "faults: the edit made during the outage was in the store {:?} after PostgreSQL was back",
        back.elapsed()
    );
    let deadline = Instant::now() + Duration::from_secs(5);
    while !server.log().contains("the skill folders are synced again") {
        assert!(Instant::now() < deadline, "{}", server.log());
        std::thread::sleep(Duration::from_millis(50));
    }
    // Readiness follows: the store, the folder sync and the change listener are back.
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let report = server.exchange("GET", "/readyz", &[], b"");
        if report.starts_with("HTTP/1.1 200") {
            assert!(report.contains("\"changes\":\"following\""), "{report}");
            break;
        }
        assert!(Instant::now() < deadline, "{report}\n{}", server.log());
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The SQLite file is deleted under a running server: writes are refused with the reason
/// instead of being acknowledged into a file nobody can open again, and a command that only
/// reads creates no empty database in its place.
#[test]
fn a_deleted_sqlite_file_refuses_writes_and_is_not_made_again() {
    let work = tempfile::tempdir().expect("tempdir");
    let db = work.path().join("gone.db");
    let db_arg = db.display().to_string();
    let server = HttpServer::start(work.path(), &["--stateless", "--db", &db_arg]);
    let (is_error, text) = call_tool(
        &server.address,
        "create_skill",
        json!({"name": "before", "description": "Use when testing a deleted database."}),
    )
    .expect("an answer");
    assert!(!is_error, "{text}");
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{db_arg}{suffix}"));
    }
    let (is_error, text) = call_tool(
        &server.address,
        "create_skill",
        json!({"name": "after", "description": "Use when testing a deleted database."}),
    )
    .expect("an answer");
    assert!(is_error, "{text}");
    assert!(
        text.contains(&format!(
            "the database file `{db_arg}` was deleted or replaced while this process had it open"
        )),
        "{text}"
    );
    let listed = std::process::Command::new(skillpath_bin())
        .args(["list", "--db", &db_arg])
        .output()
        .expect("list");
    assert_eq!(listed.status.code(), Some(2), "{listed:?}");
    assert!(
        String::from_utf8_lossy(&listed.stderr)
            .contains(&format!("there is no database at `{db_arg}` yet")),
        "{listed:?}"
    );
    assert!(!db.exists(), "a reading command made a database");
}

/// `skillpath` with `args`: its exit code, stderr, and how long it took.
fn timed(args: &[&str]) -> (Option<i32>, String, Duration) {
    let started = Instant::now();
    let output = std::process::Command::new(skillpath_bin())
        .args(args)
        .output()
        .expect("run skillpath");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        started.elapsed(),
    )
}

/// A port that accepts TCP connections and never says a word: every command fails within its
/// `connect_timeout`, naming the database, with the status of a database that cannot be
/// reached (2), `serve` included.
#[test]
fn a_silent_port_fails_every_command_within_its_timeout() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    let url = format!("postgres://postgres@127.0.0.1:{port}/silent?connect_timeout=2");
    let work = tempfile::tempdir().expect("tempdir");
    let folder = work.path().join("skills/one");
    crate::support::write_skill(&folder, "one", "Use when testing a silent database.");
    let folder = folder.display().to_string();
    for args in [
        vec!["list", "--db", &url],
        vec!["import", &folder, "--db", &url],
        vec![
            "serve",
            "--no-discover",
            "--http",
            "127.0.0.1:0",
            "--db",
            &url,
        ],
    ] {
        let (code, stderr, took) = timed(&args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(took < Duration::from_secs(8), "{args:?} took {took:?}");
        assert!(
            stderr.contains(&format!("127.0.0.1:{port}/silent")) && stderr.contains("within 2 s"),
            "{args:?}: {stderr}"
        );
    }
}

/// A PostgreSQL whose processes are stopped (SIGSTOP) accepts connections and answers
/// nothing: a call fails within the URL's `timeout`, commands within it too, readiness goes
/// red and comes back green when the server goes on (SIGCONT).
#[test]
fn a_hung_postgres_fails_within_the_timeout_and_readiness_follows() {
    let postgres = crate::postgres_support::OwnPostgres::start();
    let url = format!("{}?timeout=2&connect_timeout=2", postgres.url());
    let work = tempfile::tempdir().expect("tempdir");
    let server = HttpServer::start(work.path(), &["--stateless", "--db", &url]);
    let ready = |server: &HttpServer| server.status("GET", "/readyz", &[], b"");
    // Ready once the change listener has connected too (a moment after start).
    let deadline = Instant::now() + Duration::from_secs(10);
    while ready(&server) != 200 {
        assert!(Instant::now() < deadline, "{}", server.log());
        std::thread::sleep(Duration::from_millis(50));
    }

    postgres.signal_all("-STOP");
    let stopped = Instant::now();
    assert_eq!(ready(&server), 503);
    assert!(
        stopped.elapsed() < Duration::from_secs(4),
        "{:?}",
        stopped.elapsed()
    );
    let report = server.exchange("GET", "/readyz", &[], b"");
    assert!(report.contains("\"ready\":false"), "{report}");
    let started = Instant::now();
    let (is_error, text) = call_tool(
        &server.address,
        "create_skill",
        json!({"name": "during", "description": "Use when testing a hung database."}),
    )
    .expect("an answer");
    assert!(is_error, "{text}");
    assert!(text.contains("did not answer within 2 s"), "{text}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let (code, stderr, took) = timed(&["list", "--db", &url]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(took < Duration::from_secs(6), "list took {took:?}");
    assert!(stderr.contains("within 2 s"), "{stderr}");
    assert_eq!(healthz(&server), 200, "liveness asks nothing");

    postgres.signal_all("-CONT");
    let resumed = Instant::now();
    while ready(&server) != 200 {
        assert!(
            resumed.elapsed() < Duration::from_secs(10),
            "{}",
            server.log()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let (is_error, text) = call_tool(
        &server.address,
        "create_skill",
        json!({"name": "after", "description": "Use when testing a hung database."}),
    )
    .expect("an answer");
    assert!(!is_error, "{text}");
    eprintln!(
        "faults: hung PostgreSQL: readiness red within {:?}, green {:?} after it went on",
        Duration::from_secs(2),
        resumed.elapsed()
    );
}

fn healthz(server: &HttpServer) -> u16 {
    server.status("GET", "/healthz", &[], b"")
}

/// Nothing can be written (here: a file size limit of 0 blocks, which a full disk also makes
/// of every write): an import into a new database fails with exit 2 and says what to do, and
/// leaves no empty database file behind.
#[test]
fn an_import_that_cannot_write_a_new_database_leaves_nothing_behind() {
    let work = tempfile::tempdir().expect("tempdir");
    let folder = work.path().join("skills/one");
    crate::support::write_skill(&folder, "one", "Use when testing a full disk.");
    let db = work.path().join("new.db");
    // SIGXFSZ would end the process at the first write past the limit; ignored, the write
    // fails with EFBIG, as one fails with ENOSPC on a full disk.
    let output = std::process::Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 0; exec \"$0\" import \"$1\" --db \"$2\"")
        .arg(skillpath_bin())
        .arg(&folder)
        .arg(&db)
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "the database failed: `{}`: disk I/O error",
            db.display()
        )) && stderr.contains("the disk may be full"),
        "{stderr}"
    );
    let left: Vec<String> = std::fs::read_dir(work.path())
        .expect("read")
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("new.db"))
        .collect();
    assert_eq!(left, Vec::<String>::new(), "{stderr}");
}
